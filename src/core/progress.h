/* progress.h: how far a run has got, shown by rank 0 on stderr.
 *
 * A report gives the simulated time and its percentage of the run, the events
 * (QSS) or steps (CVODE) per second summed over ranks since the last report,
 * the current window length (several ranks, mixed) and an estimate of the
 * time left. On a terminal it is one line redrawn in place with a bar; into
 * a file or pipe (job logs) a plain line each `interval` seconds. Nothing
 * with --quiet. With --verbose each report adds the spread of events and of
 * waiting time over the ranks.
 *
 * Integrators ask progress_due (local: rank 0's clock) and, where ranks
 * agree on something each window anyway, carry rank 0's answer in that
 * agreement so that every rank joins progress_collect at the same window.
 */
#ifndef QMOL_PROGRESS_H
#define QMOL_PROGRESS_H

#include <mpi.h>
#include <stdint.h>

/* Seconds between reports unless --progress says otherwise. */
#define PROGRESS_TTY_INTERVAL 0.5
#define PROGRESS_LOG_INTERVAL 10.0

typedef struct progress {
    int show;        /* this rank prints (rank 0, not quiet) */
    int verbose;     /* per-rank spread */
    int tty;         /* stderr is a terminal: one line redrawn */
    double interval; /* seconds between reports */
    double t0, tf;   /* the run's span: the percentage */
    double t_start;  /* where this process began (a restart: the checkpoint's t): the ETA */
    double wall_start, wall_last;
    double count_last; /* events (or steps) at the last report, all ranks */
    int line_open;     /* a redrawn line waits for its newline */
    const char *unit;  /* "events" or "steps" */
    MPI_Comm comm;
} progress;

/* The run spans [t0, tf] and this process starts at t_start (t0, or a
 * restart's checkpoint time): reports give the percentage of the whole run
 * and estimate the time left from this process's own pace. interval < 0:
 * the default for the kind of stderr; unit: what is counted ("events",
 * "steps"). */
void progress_init(progress *p, MPI_Comm comm, double t0, double t_start, double tf, int quiet,
                   int verbose, double interval, const char *unit);
/* Another integrator takes over (auto's segments): its count starts at 0
 * and counts unit. */
void progress_switch(progress *p, const char *unit);
/* Whether a report is due by this rank's clock (always 0 but on rank 0). */
int progress_due(const progress *p);
/* Collective over p->comm: sums `count` (this rank's events or steps so
 * far) and, verbose, gathers the spread of count and wait; rank 0 prints the
 * report at simulated time t. window: the current window length, or 0. */
void progress_collect(progress *p, double t, uint64_t count, double wait, double window);
/* One rank's own report (its count is the run's: one rank, or CVODE steps,
 * which every rank shares). */
void progress_local(progress *p, double t, uint64_t count, double window);
/* Ends a redrawn line. */
void progress_end(progress *p);

#endif
