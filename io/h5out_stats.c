/* h5out_stats.c: /stats, the run statistics of every rank and their totals.
 *
 * Counters add up over ranks. Wall times do not: the ranks run their phases at
 * the same time, so the total of a phase is the longest rank's time. Each
 * rank's own figures go to /stats/per_rank/<field>[rank].
 */
#include "io/h5out_internal.h"

#include <stddef.h>
#include <stdlib.h>

static int write_totals(const qmol_stats *tot, hid_t g, const h5u_ectx *c) {
    qmol_stats s = *tot;
    for (size_t i = 0; i < stats_nfields; i++) {
        int rc = stats_fields[i].is_double
                     ? h5u_put_f64(c, g, stats_fields[i].name, stats_wall(&s, i), 0)
                     : h5u_put_u64(c, g, stats_fields[i].name, stats_counter(&s, i));
        if (rc) return -1;
    }
    if (s.wall_integrate > 0) {
        double eps = (double)s.events / s.wall_integrate;
        if (h5u_put_f64(c, g, "events_per_second", &eps, 0)) return -1;
    }
    return 0;
}

/* /stats/per_rank/<field>: element `rank` from each rank. */
static int write_per_rank(const h5out *w, const qmol_stats *mine, hid_t g, const h5u_ectx *c) {
    hid_t pr = h5u_group(c, g, "per_rank");
    if (pr < 0) return -1;
    qmol_stats s = *mine;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < stats_nfields; i++) {
        int dbl = stats_fields[i].is_double;
        const void *v = dbl ? (const void *)stats_wall(&s, i) : (const void *)stats_counter(&s, i);
        rc = h5u_write_1d(c, pr, stats_fields[i].name, dbl ? H5T_IEEE_F64LE : H5T_STD_U64LE,
                          dbl ? H5T_NATIVE_DOUBLE : H5T_NATIVE_UINT64, w->nranks, w->rank, 1, v,
                          w->dxpl);
    }
    return h5u_close_group(c, pr, "/stats/per_rank", rc);
}

int h5out_write_stats(h5out *w, const qmol_stats *mine, const h5u_ectx *c) {
    qmol_stats tot = stats_reduce(mine, w->comm);
    hid_t g = h5u_group(c, w->file, "stats");
    if (g < 0) return -1;
    int rc = write_totals(&tot, g, c) == 0 && write_per_rank(w, mine, g, c) == 0 ? 0 : -1;
    return h5u_close_group(c, g, "/stats", rc);
}
