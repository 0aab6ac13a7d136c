/* h5out_activity.c: /activity, where a QSS run spent its events.
 *
 * /activity/events (n, uint64): the events of each state over the run, the
 * quantized-state fingerprint of where the solution moved. Each rank passes
 * the counts of its output block (as doubles, exact below 2^53). Written at
 * most once, before h5out_finish. /activity/per_sample (K x n, float64, on
 * request): row k - 1 holds the events between samples k - 1 and k (from t0
 * for k = 1), written with each sample.
 */
#include "io/h5out_internal.h"

#include <math.h>

#define MSG_LEN 1024

/* /activity, opened if a per-sample row created it, else created. */
static hid_t activity_group(const h5u_ectx *c, hid_t file) {
    if (H5Lexists(file, "activity", H5P_DEFAULT) > 0) {
        hid_t g = H5Gopen2(file, "activity", H5P_DEFAULT);
        if (g < 0) h5u_fail(c, "cannot open group /activity");
        return g;
    }
    return h5u_group(c, file, "activity");
}

/* Whole, non-negative counts below 2^53 in the block. */
static int counts_ok(const h5out *w, const double *block) {
    int ok = w->count == 0 || block != NULL;
    for (int64_t k = 0; ok && k < w->count; k++)
        ok = block[k] >= 0.0 && block[k] < 9007199254740992.0 && block[k] == floor(block[k]);
    return ok;
}

int h5out_activity_sample(h5out *w, int64_t k, const double *block) {
    if (!w) return -1;
    char msg[MSG_LEN] = "";
    int ok = k >= 1 && k <= w->samples && counts_ok(w, block);
    if (!ok)
        h5u_set_err(msg, sizeof msg, "%s: rank %d: bad event counts for sample %lld", w->partial,
                    w->rank, (long long)k);
    ok = h5out_agree(w, ok, msg, sizeof msg);
    if (ok) {
        h5u_quiet q;
        h5u_quiet_on(&q);
        h5u_ectx c = {w->partial, msg, sizeof msg};
        if (w->per_sample < 0) { /* the first row creates the dataset */
            hsize_t dims[2] = {(hsize_t)w->samples, (hsize_t)w->columns}, chunk[2];
            h5out_row_chunk(w, chunk);
            hid_t g = activity_group(&c, w->file);
            if (g >= 0) {
                w->per_sample =
                    h5out_make_dataset(&c, g, "per_sample", 2, dims, chunk, w->deflate, 0);
                if (w->per_sample >= 0) w->per_sample_space = H5Dget_space(w->per_sample);
                h5u_close_group(&c, g, "/activity", 0);
            }
        }
        int rc = w->per_sample < 0 || w->per_sample_space < 0 ||
                 h5out_write_row(w, w->per_sample, w->per_sample_space, k - 1, block) != 0;
        if (rc && !msg[0])
            h5u_set_err(msg, sizeof msg, "%s: cannot write /activity/per_sample row %lld",
                        w->partial, (long long)k);
        h5u_quiet_off(&q);
        ok = h5out_agree(w, !rc, msg, sizeof msg);
    }
    if (!ok) h5out_keep_error(w, msg);
    return ok ? 0 : -1;
}

int h5out_activity(h5out *w, const double *block, char *err, size_t errlen) {
    h5u_set_err(err, errlen, "%s", "");
    if (!w) {
        h5u_set_err(err, errlen, "no output file for the activity");
        return -1;
    }
    char msg[MSG_LEN] = "";
    int ok = w->count == 0 || block != NULL;
    for (int64_t k = 0; ok && k < w->count; k++)
        ok = block[k] >= 0.0 && block[k] < 9007199254740992.0 && block[k] == floor(block[k]);
    if (!ok) h5u_set_err(msg, sizeof msg, "%s: rank %d: bad event counts", w->partial, w->rank);
    ok = h5out_agree(w, ok, msg, sizeof msg);
    if (ok) {
        h5u_quiet q;
        h5u_quiet_on(&q);
        h5u_ectx c = {w->partial, msg, sizeof msg};
        hid_t g = activity_group(&c, w->file);
        int rc = g < 0;
        if (!rc)
            rc = h5u_write_1d(&c, g, "events", H5T_STD_U64LE, H5T_NATIVE_DOUBLE, w->n, w->first,
                              w->count, block, w->dxpl);
        rc = h5u_close_group(&c, g, "/activity", rc);
        h5u_quiet_off(&q);
        ok = h5out_agree(w, !rc, msg, sizeof msg);
    }
    return ok ? 0 : h5out_fail(w, msg, err, errlen);
}
