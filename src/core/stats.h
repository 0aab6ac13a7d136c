/* stats.h: what a run counts, the same fields for every integrator. */
#ifndef QMOL_STATS_H
#define QMOL_STATS_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

typedef struct qmol_stats {
    /* QSS family */
    uint64_t events;     /* changes of a quantized state (CVODE: its steps) */
    uint64_t pair_steps; /* mLIQSS simultaneous pair steps taken */
    /* per row, every integrator: this rank's scalar evaluations of f_i and of
     * Jacobian rows (a CVODE right-hand side evaluates every owned row) */
    uint64_t row_evals, jac_rows;
    /* CVODE, with SUNDIALS' names and meaning (CVodeGetNum*): steps (nst),
     * right-hand sides of the whole system (nfe, and nfeLS for the linear
     * solver), Newton iterations and their convergence failures (nni, ncfn),
     * error test failures (netf), linear solver set-ups, iterations and
     * convergence failures (nsetups, nli, ncfl), Jacobian evaluations of the
     * whole system (nje: qmol's, for the direct solvers and for the
     * preconditioners), preconditioner evaluations and solves (npe, nps),
     * Jacobian-vector products (njvevals) */
    uint64_t nst, nfe, nfeLS, nni, ncfn, netf, nsetups, nli, ncfl, nje, npe, nps, njvevals;
    /* discontinuities: zero crossings and time events handled */
    uint64_t crossings, time_events;
    /* mixed: BDF steps cut short by the coupling step limit (thesis Eq. 7.35) */
    uint64_t step_limits;
    /* mixed: windows shortened so that QSS's view of the BDF states stays
     * within a quantum (mixed_run.c, extrapolation_limit) */
    uint64_t extrap_limits;
    /* moving (moving_run.c): states moved from the QSS engine to the BDF
     * block and back, over all plans */
    uint64_t to_bdf, to_qss;
    /* across ranks (this rank's figures; 0 on one rank) */
    uint64_t windows;          /* synchronization windows (accepted; agreed) */
    uint64_t windows_rejected; /* windows run again, shorter (drift above the bound; agreed) */
    /* windows run again up to where a rank's stop request came (auto's
     * alarm, a signal: integrator_options.stop_mid_window; agreed) */
    uint64_t windows_stopped;
    uint64_t events_rejected; /* events of the rejected and stopped windows (not in events) */
    uint64_t messages;        /* point-to-point messages sent (non-empty) */
    uint64_t bytes_sent;      /* payload bytes sent */
    uint64_t late_updates;    /* ghost changes applied after their time (at a window end) */
    /* wall time per phase, seconds; exchange and wait are inside integrate */
    double wall_setup, wall_partition, wall_integrate, wall_exchange, wall_wait, wall_output,
        wall_total;
} qmol_stats;

/* The fields by name: counters (uint64_t) and wall times (double, is_double)
 * at offset off. An agreed counter (windows) is the same on every rank: its
 * total is that count, not the sum over ranks. Checkpoints written before
 * the counters took SUNDIALS' names store a field under `former` (or lack it:
 * `added`, loaded as 0). */
typedef struct stats_field {
    const char *name;
    size_t off;
    int is_double;
    int agreed;
    const char *former;
    int added;
} stats_field;
extern const stats_field stats_fields[];
extern const size_t stats_nfields;
uint64_t *stats_counter(qmol_stats *s, size_t i);
double *stats_wall(qmol_stats *s, size_t i);

/* Collective: the totals over ranks. Counters add up, but for the agreed
 * ones (the same on every rank: the largest); wall times do not (the ranks
 * run their phases at the same time): a phase takes the longest rank's
 * time. */
qmol_stats stats_reduce(const qmol_stats *mine, MPI_Comm comm);
/* CVODE's solver counters and the discrete events are the same on every
 * rank: ranks other than 0 zero them, so that totals over ranks are the
 * solver's (row evaluations stay per rank). */
void stats_count_global_once(qmol_stats *s, int rank);
/* Adds every counter and wall time of from to s. */
void stats_add(qmol_stats *s, const qmol_stats *from);
/* Adds from's CVODE solver counters (nst ... njvevals) to s. */
void stats_add_solver(qmol_stats *s, const qmol_stats *from);
/* A resumed run adds what its checkpoint counted before (`before`: totals
 * over the stopped run's ranks, windows as rank 0 counted them): counters on
 * rank 0, windows and wall times on every rank, so that the totals over the
 * ranks (and /stats) cover the whole run. */
void stats_carry_over(qmol_stats *s, const qmol_stats *before, int rank);

#endif
