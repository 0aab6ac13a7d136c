/* h5out_events.c: /events, the discrete events (zero crossings) of a run.
 *
 * Each rank passes the events it handled, in time order; they are written one
 * rank after the other (rank 0's first), so on one rank the file lists them
 * in time order. Written at most once, before h5out_finish.
 */
#include "io/h5out_internal.h"

#include <stdlib.h>

#define MSG_LEN 1024

int h5out_events(h5out *w, int64_t count, const double *time, const int64_t *crossing,
                 const int8_t *direction, char *err, size_t errlen) {
    h5u_set_err(err, errlen, "%s", "");
    if (!w) {
        h5u_set_err(err, errlen, "no output file for the events");
        return -1;
    }
    char msg[MSG_LEN] = "";
    int ok = count >= 0 && (count == 0 || (time && crossing && direction));
    if (!ok) h5u_set_err(msg, sizeof msg, "%s: rank %d: bad event list", w->partial, w->rank);
    ok = h5out_agree(w, ok, msg, sizeof msg);
    int64_t first = 0, total = 0;
    MPI_Exscan(&count, &first, 1, MPI_INT64_T, MPI_SUM, w->comm);
    if (w->rank == 0) first = 0;
    MPI_Allreduce(&count, &total, 1, MPI_INT64_T, MPI_SUM, w->comm);
    if (ok) {
        h5u_quiet q;
        h5u_quiet_on(&q);
        h5u_ectx c = {w->partial, msg, sizeof msg};
        hid_t g = h5u_group(&c, w->file, "events");
        int rc = g < 0;
        if (!rc)
            rc = h5u_write_1d(&c, g, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, total, first, count,
                              time, w->dxpl) ||
                 h5u_write_1d(&c, g, "crossing", H5T_STD_I64LE, H5T_NATIVE_INT64, total, first,
                              count, crossing, w->dxpl) ||
                 h5u_write_1d(&c, g, "direction", H5T_STD_I8LE, H5T_NATIVE_INT8, total, first,
                              count, direction, w->dxpl);
        rc = h5u_close_group(&c, g, "/events", rc);
        h5u_quiet_off(&q);
        ok = h5out_agree(w, !rc, msg, sizeof msg);
    }
    return ok ? 0 : h5out_fail(w, msg, err, errlen);
}
