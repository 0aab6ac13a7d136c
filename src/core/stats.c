/* stats.c: the run statistics' fields, their totals over ranks, and what a
 * resumed run carries over from its checkpoint (stats.h). */
#include "core/stats.h"

#include <stddef.h>

#define COUNTER(name, agreed, former, added)                                                       \
    { #name, offsetof(qmol_stats, name), 0, agreed, former, added }
#define WALL(name)                                                                                 \
    { #name, offsetof(qmol_stats, name), 1, 0, NULL, 0 }

const stats_field stats_fields[] = {
    COUNTER(events, 0, NULL, 0),
    COUNTER(pair_steps, 0, NULL, 0),
    COUNTER(row_evals, 0, "rhs_evals", 0),
    COUNTER(jac_rows, 0, "jac_evals", 0),
    COUNTER(nst, 0, "steps", 0),
    COUNTER(nfe, 0, NULL, 1),
    COUNTER(nfeLS, 0, NULL, 1),
    COUNTER(nni, 0, "newton_iters", 0),
    COUNTER(ncfn, 0, "conv_fails", 0),
    COUNTER(netf, 0, "err_test_fails", 0),
    COUNTER(nsetups, 0, NULL, 1),
    COUNTER(nli, 0, "lin_iters", 0),
    COUNTER(ncfl, 0, NULL, 1),
    COUNTER(nje, 0, "jac_setups", 0),
    COUNTER(npe, 0, NULL, 1),
    COUNTER(nps, 0, NULL, 1),
    COUNTER(njvevals, 0, NULL, 1),
    COUNTER(windows, 1, NULL, 0),
    COUNTER(windows_rejected, 1, NULL, 0),
    COUNTER(windows_stopped, 1, NULL, 1),
    COUNTER(events_rejected, 0, NULL, 0),
    COUNTER(crossings, 0, NULL, 0),
    COUNTER(time_events, 0, NULL, 0),
    COUNTER(step_limits, 0, NULL, 0),
    COUNTER(extrap_limits, 0, NULL, 0),
    COUNTER(to_bdf, 0, NULL, 1),
    COUNTER(to_qss, 0, NULL, 1),
    COUNTER(messages, 0, NULL, 0),
    COUNTER(bytes_sent, 0, NULL, 0),
    COUNTER(late_updates, 0, NULL, 0),
    WALL(wall_setup),
    WALL(wall_partition),
    WALL(wall_integrate),
    WALL(wall_exchange),
    WALL(wall_wait),
    WALL(wall_output),
    WALL(wall_total),
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

/* Field i is one of CVODE's counters (nst ... njvevals in qmol_stats). */
static int is_solver(size_t i) {
    return stats_fields[i].off >= offsetof(qmol_stats, nst) &&
           stats_fields[i].off <= offsetof(qmol_stats, njvevals);
}

void stats_count_global_once(qmol_stats *s, int rank) {
    if (rank == 0) return;
    s->crossings = s->time_events = 0; /* every rank handles every event */
    s->events = 0;
    for (size_t i = 0; i < stats_nfields; i++)
        if (is_solver(i)) *stats_counter(s, i) = 0;
}

void stats_add_solver(qmol_stats *s, const qmol_stats *from) {
    for (size_t i = 0; i < stats_nfields; i++)
        if (is_solver(i)) *stats_counter(s, i) += *stats_counter((qmol_stats *)from, i);
}

/* Adds before's wall times, and its counters on rank 0 (all ranks: the
 * agreed ones, and every one when every_rank). */
static void add_fields(qmol_stats *s, const qmol_stats *before, int rank, int every_rank) {
    for (size_t i = 0; i < stats_nfields; i++) {
        if (stats_fields[i].is_double)
            *stats_wall(s, i) += *stats_wall((qmol_stats *)before, i);
        else if (every_rank || rank == 0 || stats_fields[i].agreed)
            *stats_counter(s, i) += *stats_counter((qmol_stats *)before, i);
    }
}

void stats_add(qmol_stats *s, const qmol_stats *from) {
    add_fields(s, from, 0, 1);
}

void stats_carry_over(qmol_stats *s, const qmol_stats *before, int rank) {
    add_fields(s, before, rank, 0);
}
