/* h5out_methods.c: /methods, which method ran from when (--method auto).
 *
 * Every rank holds the same segments (the switches are agreed); rank 0
 * writes them. Written at most once, before h5out_finish.
 */
#include "io/h5out_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MSG_LEN 1024
#define NAMES_LEN 256

/* The distinct names in order of first use, space-separated, and each
 * segment's index among them. Returns 0, or -1 when they do not fit. */
static int index_names(int64_t count, const char *const *name, char *names, int64_t *index) {
    names[0] = '\0';
    int distinct = 0;
    const char *seen[NAMES_LEN / 2];
    for (int64_t k = 0; k < count; k++) {
        int at = 0;
        while (at < distinct && strcmp(seen[at], name[k]) != 0)
            at++;
        if (at == distinct) {
            size_t used = strlen(names), len = strlen(name[k]);
            if (distinct == NAMES_LEN / 2 || used + len + 2 > NAMES_LEN) return -1;
            seen[distinct++] = name[k];
            if (used) strcat(names, " ");
            strcat(names, name[k]);
        }
        index[k] = at;
    }
    return 0;
}

int h5out_methods(h5out *w, int64_t count, const double *t, const char *const *name,
                  const int64_t *bdf_states, int complete, double start_dropped_to, char *err,
                  size_t errlen) {
    h5u_set_err(err, errlen, "%s", "");
    if (!w) {
        h5u_set_err(err, errlen, "no output file for the methods");
        return -1;
    }
    char msg[MSG_LEN] = "", names[NAMES_LEN];
    int64_t *index = malloc((size_t)(count > 0 ? count : 1) * sizeof *index);
    int ok = index && count >= 0 && index_names(count, name, names, index) == 0;
    if (!ok)
        h5u_set_err(msg, sizeof msg, "%s: rank %d: cannot list the methods", w->partial, w->rank);
    ok = h5out_agree(w, ok, msg, sizeof msg);
    if (ok) {
        h5u_quiet q;
        h5u_quiet_on(&q);
        h5u_ectx c = {w->partial, msg, sizeof msg};
        hid_t g = h5u_group(&c, w->file, "methods");
        int64_t mine = w->rank == 0 ? count : 0, full = complete ? 1 : 0;
        int rc = g < 0;
        if (!rc)
            rc = h5u_write_1d(&c, g, "t", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, count, 0, mine, t,
                              w->dxpl) ||
                 h5u_write_1d(&c, g, "method", H5T_STD_I64LE, H5T_NATIVE_INT64, count, 0, mine,
                              index, w->dxpl) ||
                 h5u_write_1d(&c, g, "bdf_states", H5T_STD_I64LE, H5T_NATIVE_INT64, count, 0, mine,
                              bdf_states, w->dxpl) ||
                 h5u_put_str(&c, g, "names", names) || h5u_put_i64(&c, g, "complete", &full, 0) ||
                 (!isnan(start_dropped_to) &&
                  h5u_put_f64(&c, g, "start_dropped_to", &start_dropped_to, 0));
        rc = h5u_close_group(&c, g, "/methods", rc);
        h5u_quiet_off(&q);
        ok = h5out_agree(w, !rc, msg, sizeof msg);
    }
    free(index);
    return ok ? 0 : h5out_fail(w, msg, err, errlen);
}
