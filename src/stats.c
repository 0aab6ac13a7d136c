/* stats.c: the run statistics' fields, their totals over ranks, and what a
 * resumed run carries over from its checkpoint (stats.h). */
#include "stats.h"

#include <stddef.h>

const stats_field stats_fields[] = {
    {"events", offsetof(qmol_stats, events), 0, 0},
    {"rhs_evals", offsetof(qmol_stats, rhs_evals), 0, 0},
    {"jac_evals", offsetof(qmol_stats, jac_evals), 0, 0},
    {"pair_steps", offsetof(qmol_stats, pair_steps), 0, 0},
    {"steps", offsetof(qmol_stats, steps), 0, 0},
    {"newton_iters", offsetof(qmol_stats, newton_iters), 0, 0},
    {"lin_iters", offsetof(qmol_stats, lin_iters), 0, 0},
    {"err_test_fails", offsetof(qmol_stats, err_test_fails), 0, 0},
    {"conv_fails", offsetof(qmol_stats, conv_fails), 0, 0},
    {"jac_setups", offsetof(qmol_stats, jac_setups), 0, 0},
    {"windows", offsetof(qmol_stats, windows), 0, 1},
    {"windows_rejected", offsetof(qmol_stats, windows_rejected), 0, 1},
    {"events_rejected", offsetof(qmol_stats, events_rejected), 0, 0},
    {"crossings", offsetof(qmol_stats, crossings), 0, 0},
    {"time_events", offsetof(qmol_stats, time_events), 0, 0},
    {"step_limits", offsetof(qmol_stats, step_limits), 0, 0},
    {"extrap_limits", offsetof(qmol_stats, extrap_limits), 0, 0},
    {"messages", offsetof(qmol_stats, messages), 0, 0},
    {"bytes_sent", offsetof(qmol_stats, bytes_sent), 0, 0},
    {"late_updates", offsetof(qmol_stats, late_updates), 0, 0},
    {"wall_setup", offsetof(qmol_stats, wall_setup), 1, 0},
    {"wall_partition", offsetof(qmol_stats, wall_partition), 1, 0},
    {"wall_integrate", offsetof(qmol_stats, wall_integrate), 1, 0},
    {"wall_exchange", offsetof(qmol_stats, wall_exchange), 1, 0},
    {"wall_wait", offsetof(qmol_stats, wall_wait), 1, 0},
    {"wall_output", offsetof(qmol_stats, wall_output), 1, 0},
    {"wall_total", offsetof(qmol_stats, wall_total), 1, 0},
};

const size_t stats_nfields = sizeof stats_fields / sizeof stats_fields[0];

uint64_t *stats_counter(qmol_stats *s, size_t i) {
    return (uint64_t *)((char *)s + stats_fields[i].off);
}

double *stats_wall(qmol_stats *s, size_t i) {
    return (double *)((char *)s + stats_fields[i].off);
}

qmol_stats stats_reduce(const qmol_stats *mine, MPI_Comm comm) {
    qmol_stats in = *mine, out = *mine;
    /* sums, then the largest of the agreed counters and of the wall times */
    uint64_t cin[sizeof stats_fields / sizeof stats_fields[0]], cout[sizeof cin / sizeof cin[0]];
    double win[sizeof cin / sizeof cin[0]], wout[sizeof cin / sizeof cin[0]];
    int nc = 0, nw = 0;
    for (size_t i = 0; i < stats_nfields; i++) {
        if (stats_fields[i].is_double)
            win[nw++] = *stats_wall(&in, i);
        else if (stats_fields[i].agreed)
            win[nw++] = (double)*stats_counter(&in, i);
        else
            cin[nc++] = *stats_counter(&in, i);
    }
    MPI_Allreduce(cin, cout, nc, MPI_UINT64_T, MPI_SUM, comm);
    MPI_Allreduce(win, wout, nw, MPI_DOUBLE, MPI_MAX, comm);
    nc = nw = 0;
    for (size_t i = 0; i < stats_nfields; i++) {
        if (stats_fields[i].is_double)
            *stats_wall(&out, i) = wout[nw++];
        else if (stats_fields[i].agreed)
            *stats_counter(&out, i) = (uint64_t)wout[nw++];
        else
            *stats_counter(&out, i) = cout[nc++];
    }
    return out;
}

void stats_count_global_once(qmol_stats *s, int rank) {
    if (rank == 0) return;
    s->crossings = s->time_events = 0; /* every rank handles every event */
    s->events = s->steps = s->newton_iters = s->lin_iters = 0;
    s->err_test_fails = s->conv_fails = s->jac_setups = 0;
}

void stats_carry_over(qmol_stats *s, const qmol_stats *before, int rank) {
    for (size_t i = 0; i < stats_nfields; i++) {
        if (stats_fields[i].is_double)
            *stats_wall(s, i) += *stats_wall((qmol_stats *)before, i);
        else if (rank == 0 || stats_fields[i].agreed)
            *stats_counter(s, i) += *stats_counter((qmol_stats *)before, i);
    }
}
