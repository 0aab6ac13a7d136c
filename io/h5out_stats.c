/* h5out_stats.c: /stats, the run statistics of every rank and their totals.
 *
 * Counters add up over ranks. Wall times do not: the ranks run their phases at
 * the same time, so the total of a phase is the longest rank's time. Each
 * rank's own figures go to /stats/per_rank/<field>[rank].
 */
#include "h5out_internal.h"

#include <stddef.h>
#include <stdlib.h>

static const struct {
    const char *name;
    size_t off;
    int is_double;
} stat_fields[] = {
    {"events", offsetof(qmol_stats, events), 0},
    {"rhs_evals", offsetof(qmol_stats, rhs_evals), 0},
    {"jac_evals", offsetof(qmol_stats, jac_evals), 0},
    {"pair_steps", offsetof(qmol_stats, pair_steps), 0},
    {"steps", offsetof(qmol_stats, steps), 0},
    {"newton_iters", offsetof(qmol_stats, newton_iters), 0},
    {"lin_iters", offsetof(qmol_stats, lin_iters), 0},
    {"err_test_fails", offsetof(qmol_stats, err_test_fails), 0},
    {"conv_fails", offsetof(qmol_stats, conv_fails), 0},
    {"jac_setups", offsetof(qmol_stats, jac_setups), 0},
    {"windows", offsetof(qmol_stats, windows), 0},
    {"crossings", offsetof(qmol_stats, crossings), 0},
    {"time_events", offsetof(qmol_stats, time_events), 0},
    {"step_limits", offsetof(qmol_stats, step_limits), 0},
    {"extrap_limits", offsetof(qmol_stats, extrap_limits), 0},
    {"messages", offsetof(qmol_stats, messages), 0},
    {"bytes_sent", offsetof(qmol_stats, bytes_sent), 0},
    {"late_updates", offsetof(qmol_stats, late_updates), 0},
    {"wall_setup", offsetof(qmol_stats, wall_setup), 1},
    {"wall_partition", offsetof(qmol_stats, wall_partition), 1},
    {"wall_integrate", offsetof(qmol_stats, wall_integrate), 1},
    {"wall_exchange", offsetof(qmol_stats, wall_exchange), 1},
    {"wall_wait", offsetof(qmol_stats, wall_wait), 1},
    {"wall_output", offsetof(qmol_stats, wall_output), 1},
    {"wall_total", offsetof(qmol_stats, wall_total), 1},
};

#define NFIELDS (sizeof(stat_fields) / sizeof(stat_fields[0]))

static uint64_t *counter(qmol_stats *s, size_t i) {
    return (uint64_t *)((char *)s + stat_fields[i].off);
}

static double *wall(qmol_stats *s, size_t i) {
    return (double *)((char *)s + stat_fields[i].off);
}

/* The totals over ranks (collective, MPI only: cannot fail on one rank). */
static qmol_stats reduce(const h5out *w, const qmol_stats *mine) {
    qmol_stats in = *mine, out = *mine;
    uint64_t cin[NFIELDS], cout[NFIELDS];
    double win[NFIELDS], wout[NFIELDS];
    int nc = 0, nw = 0;
    for (size_t i = 0; i < NFIELDS; i++) {
        if (stat_fields[i].is_double)
            win[nw++] = *wall(&in, i);
        else
            cin[nc++] = *counter(&in, i);
    }
    MPI_Allreduce(cin, cout, nc, MPI_UINT64_T, MPI_SUM, w->comm);
    MPI_Allreduce(win, wout, nw, MPI_DOUBLE, MPI_MAX, w->comm);
    nc = nw = 0;
    for (size_t i = 0; i < NFIELDS; i++) {
        if (stat_fields[i].is_double)
            *wall(&out, i) = wout[nw++];
        else
            *counter(&out, i) = cout[nc++];
    }
    return out;
}

static int write_totals(const qmol_stats *tot, hid_t g, const h5u_ectx *c) {
    qmol_stats s = *tot;
    for (size_t i = 0; i < NFIELDS; i++) {
        int rc = stat_fields[i].is_double ? h5u_put_f64(c, g, stat_fields[i].name, wall(&s, i), 0)
                                          : h5u_put_u64(c, g, stat_fields[i].name, counter(&s, i));
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
    for (size_t i = 0; rc == 0 && i < NFIELDS; i++) {
        int dbl = stat_fields[i].is_double;
        const void *v = dbl ? (const void *)wall(&s, i) : (const void *)counter(&s, i);
        rc = h5u_write_1d(c, pr, stat_fields[i].name, dbl ? H5T_IEEE_F64LE : H5T_STD_U64LE,
                          dbl ? H5T_NATIVE_DOUBLE : H5T_NATIVE_UINT64, w->nranks, w->rank, 1, v,
                          w->dxpl);
    }
    return h5u_close_group(c, pr, "/stats/per_rank", rc);
}

int h5out_write_stats(h5out *w, const qmol_stats *mine, const h5u_ectx *c) {
    qmol_stats tot = reduce(w, mine);
    hid_t g = h5u_group(c, w->file, "stats");
    if (g < 0) return -1;
    int rc = write_totals(&tot, g, c) == 0 && write_per_rank(w, mine, g, c) == 0 ? 0 : -1;
    return h5u_close_group(c, g, "/stats", rc);
}
