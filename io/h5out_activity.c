/* h5out_activity.c: /activity, where a QSS run spent its events.
 *
 * /activity/events (n, uint64): the events of each state over the run, the
 * quantized-state fingerprint of where the solution moved. Each rank passes
 * the counts of its output block (as doubles, exact below 2^53). Written at
 * most once, before h5out_finish.
 */
#include "h5out_internal.h"

#include <math.h>

#define MSG_LEN 1024

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
        hid_t g = h5u_group(&c, w->file, "activity");
        int rc = g < 0;
        if (!rc)
            rc = h5u_write_1d(&c, g, "events", H5T_STD_U64LE, H5T_NATIVE_DOUBLE, w->n, w->first,
                              w->count, block, w->dxpl);
        if (g >= 0 && H5Gclose(g) < 0 && !rc) {
            h5u_fail(&c, "cannot close group /activity");
            rc = 1;
        }
        h5u_quiet_off(&q);
        ok = h5out_agree(w, !rc, msg, sizeof msg);
    }
    if (!ok) {
        h5out_keep_error(w, msg);
        h5u_set_err(err, errlen, "%s", msg);
        return -1;
    }
    return 0;
}
