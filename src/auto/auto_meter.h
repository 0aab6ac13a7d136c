/* auto_meter.h: how --method auto measures what a method costs (auto_run.c).
 *
 * A method's integration is timed at its window ends (CVODE: its steps) in
 * stretches of simulated time, each at least a stretch long and
 * STRETCH_WINDOWS window ends: a stretch's cost is its wall time per unit of
 * simulated time. A probe goes on until the cost of a stretch settles,
 * within a factor SETTLE of the one before, with its QSS events past
 * WARMUP_EVENTS per state (QSS on a stiff grid starts cheap and its
 * oscillations build up over several stretches; CVODE starts with tiny
 * steps), PROBE_LONGEST of the span at most. It is lost when its first
 * stretch (its start-up; the integrator's set-up is not counted) takes
 * longer than first_budget, when the
 * stretches after it cost more than budget_rate over the whole probe, or
 * when a stretch costs more than budget_rate and its cost no longer falls
 * by SETTLE (the start is over). A run is watched: a stretch that costs
 * more than WATCH_FACTOR times watch_rate, two stretches in a row, raises the
 * alarm, and one that already cost WATCH_FACTOR^2 times raises it at once
 * (the first, beyond its start: first_allowance). Wall times are agreed
 * over the ranks (the slowest rank's), so every rank reaches the same verdicts.
 */
#ifndef QMOL_AUTO_METER_H
#define QMOL_AUTO_METER_H

#include <mpi.h>
#include <stdint.h>

/* Fractions of the span. */
#define PROBE_STRETCH (1.0 / 2048.0)
#define RUN_STRETCH (1.0 / 256.0)
#define PROBE_LONGEST (1.0 / 32.0)
#define STRETCH_WINDOWS 4
/* A run is measured in short stretches (PROBE_STRETCH) until its cost
 * settles, at most this many: the first probes beside it wait for that. */
#define SETTLE_MOST 16
#define SETTLE 1.5
/* ...and not before the QSS events of a probe reach this many per state
 * (its stiff oscillations need a few events of each state to show). */
#define WARMUP_EVENTS 2.0
/* A measurement's budgets, against the best other candidate: its first
 * stretch FIRST_FACTOR times the larger first stretch of the two (set-ups
 * differ), then CUT_FACTOR times the best's cost. */
#define CUT_FACTOR 2.0
#define FIRST_FACTOR 2.0
#define WATCH_FACTOR 4.0
/* Wall times below this are mostly the timer's and the system's noise: a
 * run's stretch that took less raises no alarm. */
#define NOISE_FLOOR 2e-3

typedef struct meter {
    MPI_Comm comm;
    int rank, size;
    int probe;                /* a probe (1), or the run (0) */
    double span;              /* the run's span */
    double t_a, t_b;          /* the measured integration's span */
    double t_end;             /* where it ended (set by the caller) */
    double last_t;            /* its last window end so far */
    double wall_a;            /* agreed wall clock at t_a */
    double mark_t, mark_wall; /* the stretch that runs began here */
    double last_rate;         /* the last stretch's cost (INFINITY: none yet) */
    double last_wall;         /* its wall time, and its window ends */
    double cost_now;          /* its cost at its last window end (agreed) */
    int last_windows;
    double first_cost, t_first; /* the first stretch's wall time and end */
    int stretches, windows;     /* stretches done, window ends in this one */
    double first_budget, budget_rate, watch_rate;
    /* a run: what its first stretch (its start) may cost, beyond the watch's
     * WATCH_FACTOR^2 and its set-up, before the alarm sounds there
     * (INFINITY: not in the first stretch) */
    double first_allowance;
    double paused_at, excluded; /* time spent outside the integration (probes) */
    double away;                /* this rank's time away not yet agreed (meter_away) */
    int lost, ended;            /* the measurement lost; it ended (settled or lost) */
    int settled;                /* a run's cost settled once (or it ran SETTLE_MOST stretches) */
    int over_before;            /* a run's last stretch was over the watch */
    /* the integrator's set-up time (its stats' wall_setup, written before
     * its first window; NULL: none): not judged, it cannot be cut short */
    const double *setup;
    double setup_cost; /* the set-up, agreed, once the first stretch ended */
    /* a probe: its QSS events so far (the integrator's counter; NULL: none)
     * and how many settle needs (summed over the ranks) */
    const uint64_t *events;
    double warmup;
} meter;

/* Starts measuring an integration over [t_a, t_b] (collective). Budgets and
 * the watch are off (INFINITY) until the caller sets them. */
void meter_start(meter *M, MPI_Comm comm, int probe, double t_a, double t_b, double span);
/* Whether any rank failed (collective; the integrator says so of its own
 * rank in integrator_state.failed until it agrees). */
int meter_any_failed(const meter *M, int failed);
/* The agreed wall clock (collective); the time away this rank noted
 * (meter_away) is agreed with it, the slowest rank's, and left out of the
 * integration's. */
double meter_now(meter *M);
/* Local: seconds spent away from the integration at a window end (the
 * checkpointer), left out at the next meter_now. */
void meter_away(meter *M, double seconds);
/* At a window end at t (collective): whether the measurement ends here
 * (a probe settled or lost: M->ended, M->lost), or a run raised
 * the alarm. */
int meter_window_end(meter *M, double t);
/* Time spent elsewhere (probes) between pause and resume is not the
 * integration's (collective). */
void meter_pause(meter *M);
void meter_resume(meter *M);
/* Between window ends, the events at t: whether the wall clock already
 * says the probe lost or the alarm will sound (a run), so that the window
 * ends now (integrator_options.stop_requested). Local. */
int meter_over(const meter *M, double t);
/* The integration's wall time so far (collective), and this rank's
 * reading of it (local). */
double meter_cost(meter *M);
double meter_cost_local(const meter *M);
/* One rank: the QSS window length that lets stretches end on time. */
double meter_window_cap(double span);

#endif
