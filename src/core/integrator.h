/* integrator.h: what the run driver hands an integrator, and what it gets back.
 *
 * An integrator advances the model from t0 to tf and delivers the states at
 * the K sample times (sample_at: t0 + (tf - t0) k / K, k = 1..K, or the
 * run's list) through `sample`, from dense output (never by stopping on the
 * output grid).
 */
#ifndef QMOL_INTEGRATOR_H
#define QMOL_INTEGRATOR_H

#include "core/model.h"
#include "core/stats.h"
#include <stddef.h>
#include <stdio.h>

struct integrator_def; /* a method: integrator_registry.h */
struct halo_plan;
struct progress;
struct state_io;
struct integrator_state;

/* CVODE linear solvers; LINSOL_AUTO is resolved by cvode_choose_linsol. */
typedef enum linsol_id { LINSOL_KLU, LINSOL_BAND, LINSOL_SPGMR, LINSOL_AUTO } linsol_id;

enum { PRECOND_AUTO, PRECOND_JACOBI, PRECOND_BLOCK, PRECOND_ILU };
/* CVODE's norm of weighted errors: SUNDIALS' root mean square, or the
 * largest component (cvode_vector.h). */
enum { CVODE_NORM_RMS, CVODE_NORM_MAX };

/* Mixed runs: a QSS input of the BDF block inside a step [t_k, T] is the
 * straight line from q(t_k) to q(T) (COUPLING_INTERP, as the public QSS
 * Solver does), q(t_k) held (COUPLING_SAMPLE, the thesis's Eq. 7.2b), or
 * q itself, piece by piece as it changed during the step (COUPLING_HISTORY:
 * no coupling error, so no step limit). */
enum { COUPLING_INTERP, COUPLING_SAMPLE, COUPLING_HISTORY };

typedef struct integrator_options {
    const struct integrator_def *method; /* integrator_registry.h */
    double reltol;                       /* QSS: relative quantum; CVODE: reltol */
    double abstol;                       /* QSS: minimum quantum; CVODE: abstol */
    double t0, tf;
    int64_t samples; /* K >= 1 */
    /* The K sample times (increasing, in (t0, tf], the last one tf), or NULL:
     * evenly spaced (sample_time). */
    const double *sample_times;
    int use_jacobian; /* 1: use the problem's analytic jac when it has one */
    linsol_id linsol; /* CVODE linear solver */
    int max_order;    /* CVODE BDF max order (1..5) */
    int precond;      /* SPGMR preconditioner: PRECOND_AUTO (precond_resolve),
                         PRECOND_JACOBI, PRECOND_BLOCK, PRECOND_ILU */
    int cvode_norm;   /* CVODE's error norm: CVODE_NORM_RMS or CVODE_NORM_MAX */
    /* Distributed runs: the halo plan (NULL on one rank) and the window
     * length control: window > 0 fixes it; otherwise it adapts between
     * window_min and window_max (0: defaults, see docs/parallel.md). */
    struct halo_plan *halo;
    double window, window_min, window_max;
    /* Mixed runs: the QSS block's method, the per-state assignment
     * (ASSIGN_QSS / ASSIGN_BDF of assign.h, one per local state) and how the
     * BDF block reads QSS states inside a step (COUPLING_*). */
    const struct integrator_def *qss_method;
    const unsigned char *assignment;
    int coupling;
    /* Discrete events (zero crossings: c >= 0 with direction +-1; time
     * events: c = -1), as they are handled (may be NULL). */
    void (*on_discrete)(void *ctx, double t, int64_t c, int direction);
    void *discrete_ctx;
    /* QSS and mixed runs: activity[j] += 1 at each event of local state j
     * (owned states, the layout's order), or NULL. */
    double *activity;
    /* Checkpoints (run.c): at_window_end is called at the same window ends and
     * samples on every rank (collective) with the time and the integrator's
     * state there (integrator_state); non-zero stops the run (the integrator
     * returns it). NULL: none. window_cap > 0 bounds windows on one rank, so
     * that at_window_end comes often enough (on several ranks, with
     * stop_mid_window, where windows cannot be run again). */
    int (*at_window_end)(void *ctx, double t, const struct integrator_state *s);
    void *window_ctx;
    double window_cap;
    /* One rank: polled with stop_ctx and the events' time every 2^8 QSS
     * events; non-zero ends
     * the window at once (a signal arrived; auto's budget ran out), so that
     * at_window_end comes soon. NULL: never. With stop_mid_window, QSS
     * methods on several ranks with adaptive windows that can be run again
     * poll it too: the window ends at the earliest time a rank stopped, on
     * every rank (it is taken back and run again up to there). */
    int (*stop_requested)(void *stop_ctx, double t);
    void *stop_ctx;
    int stop_mid_window;
    /* A resumed run: the integration starts at t0, the checkpoint's time,
     * from the starting values start (initial.h; NULL: the problem's x0)
     * and then reads its own state back from resume (state_io, loading);
     * run_t0 is the run's own t0, which default window lengths scale with.
     * first_sample: the first sample to deliver (1-based; 0 means 1). */
    const struct initial_values *start;
    struct state_io *resume;
    double run_t0;
    int64_t first_sample;
    /* Progress reports (progress.h), or NULL. */
    struct progress *progress;
    /* Trace of QSS events, for tests: called after each event with the q0 of
     * the first (at most 4) local states (may be NULL). */
    void (*trace)(void *ctx, double t, int32_t i, const double *q);
    void *trace_ctx;
    /* A method that chooses as it runs (--method auto): what it chose
     * (method_log.h; NULL: not asked). */
    struct method_log *methods;
    /* --method moving: the span its plans and longest windows are fractions
     * of (0: tf - t0; auto passes its whole run's to its probes and
     * segments). */
    double rhythm_span;
    /* CVODE alone (cvode_integrate): where to leave the step it would take
     * next at its end (NULL: not asked; auto's measure of what CVODE costs
     * per unit of t). */
    double *last_step;
} integrator_options;

/* The time of sample k (1..K): t0 + (tf - t0) k / K, with sample K exactly tf. */
static inline double sample_time(double t0, double tf, int64_t k, int64_t K) {
    return k >= K ? tf : t0 + (tf - t0) * (double)k / (double)K;
}

/* The time of sample k (1..K) of a run. */
static inline double sample_at(const integrator_options *o, int64_t k) {
    return o->sample_times ? o->sample_times[k - 1] : sample_time(o->t0, o->tf, k, o->samples);
}

/* An integrator's state in a checkpoint, and back: one function describes
 * it for both directions. It passes each per-state field (one double per
 * owned state, the layout's order) and each scalar (the same on every rank)
 * to io, which stores them (saving) or overwrites them with the stored
 * values (loading: io->loading). Collective; the calls and names must be the
 * same on every rank. Each returns 0, or -1 (agreed; the run stops). */
typedef struct state_io {
    int loading;
    const char *why; /* set by io, or by the integrator, on failure */
    int (*field)(struct state_io *io, const char *name, double *owned);
    int (*scalar)(struct state_io *io, const char *name, double *value);
    /* len values the same on every rank (per crossing function, say) */
    int (*vector)(struct state_io *io, const char *name, int64_t len, double *values);
    /* Loading: whether the source holds field name (the same answer on
     * every rank); NULL: it holds every field. A field added to an
     * integrator since a checkpoint was written takes its initial value. */
    int (*has_field)(struct state_io *io, const char *name);
    /* Loading: whether the source holds scalar name (the same answer on
     * every rank); NULL: it holds every scalar. */
    int (*has_scalar)(struct state_io *io, const char *name);
    /* Saving, optional (NULL: none): where io keeps the owned values of the
     * field `ahead` places after the next (0: the next), when the fields up
     * to it are passed in order with nothing between. A saver that writes
     * a field there and passes that pointer to field spares io a copy. Ask
     * for the furthest first (the places may move until then); NULL: no
     * such place now. */
    double *(*field_room)(struct state_io *io, int ahead);
    void *ctx;
} state_io;

/* What at_window_end receives: the owned states' values at t (states), the
 * function that passes the integrator's own state to a state_io (save; NULL:
 * the states are all), one that adds to s what the integrator counts for
 * itself until it returns (stats; NULL: nothing), and whether this rank
 * failed in the window (then no rank writes a checkpoint). */
typedef struct integrator_state {
    void (*states)(void *ictx, double t, double *x);
    int (*save)(void *ictx, state_io *io);
    void (*stats)(void *ictx, qmol_stats *s);
    void *ictx;
    int failed;       /* this rank failed in the window (not yet agreed): no checkpoint */
    double next_step; /* CVODE alone: the step it would take next (0: not known) */
    /* no last window is kept here (auto between its stretches' ends: its
     * short windows would spend the records' free share on records; the
     * same on every rank) */
    int keep_not_here;
    /* CVODE alone: writes its owned states' weighted local error estimates
     * of its last step, |e_i| w_i, into we (NULL: not known) */
    void (*local_errors)(void *ictx, double *we);
} integrator_state;

/* What an integrator returns when at_window_end stopped the run (a signal):
 * the same on every rank. */
#define INTEGRATOR_STOPPED 3
/* What an integrator returns when its method found, while running, that it
 * cannot follow the problem (BQSS's balance check, mass_check.h): the run
 * exits with this code, its message naming the methods to use instead; the
 * output is dropped and no checkpoint is offered (a restart would stop
 * again). One rank only for now (BQSS runs on one rank). */
#define INTEGRATOR_UNSUITED 4

/* Receives sample k (1..K) at time t; x holds the n local states. Returns 0,
 * or non-zero to abort the run (the integrator returns that value). */
typedef int (*sample_fn)(void *ctx, int64_t k, double t, const double *x);

/* What an integrator returns when sample k at t stopped the run with a
 * non-zero code: the code, with the message in err. */
static inline int sample_stopped(char *err, size_t errlen, int64_t k, double t, int code) {
    snprintf(err, errlen, "sample %lld at t=%.17g stopped the run (code %d)", (long long)k, t,
             code);
    return code;
}

/* The integrate functions of the registry's entries (integrator_registry.h):
 * qss_integrate runs o->method's QSS table, mixed_integrate o->qss_method's
 * in its QSS block. Each returns 0 on success; on failure non-zero with a
 * message in err. */
int qss_integrate(const model *m, const integrator_options *o, sample_fn sample, void *ctx,
                  qmol_stats *stats, char *err, size_t errlen);
int cvode_integrate(const model *m, const integrator_options *o, sample_fn sample, void *ctx,
                    qmol_stats *stats, char *err, size_t errlen);
int mixed_integrate(const model *m, const integrator_options *o, sample_fn sample, void *ctx,
                    qmol_stats *stats, char *err, size_t errlen);
/* --method moving (moving_run.c): o->qss_method (LIQSS2 when NULL) and a
 * CVODE block over the states where the activity is, moved as it moves. */
int moving_integrate(const model *m, const integrator_options *o, sample_fn sample, void *ctx,
                     qmol_stats *stats, char *err, size_t errlen);
/* --method auto (auto_run.c): segments of CVODE, o->qss_method and (when
 * o->assignment splits the states) the mixed method, each chosen by its
 * measured cost. */
int auto_integrate(const model *m, const integrator_options *o, sample_fn sample, void *ctx,
                   qmol_stats *stats, char *err, size_t errlen);
/* The mixed method's coupling on `ranks` ranks: 0, or -1 with a message
 * (interp and sample run on one rank only). */
int mixed_check_coupling(int coupling, int ranks, char *err, size_t errlen);

/* The solver `auto` stands for on model m: on P ranks (halo set) SPGMR,
 * the only one that takes a distributed vector; on one rank band when every
 * row lies within LINSOL_AUTO_BAND of the diagonal on both sides (1D
 * stencils), else SPGMR when the problem is a 2D or 3D grid (KLU's fill-in
 * there costs gigabytes at 1e6 states), else KLU. */
#define LINSOL_AUTO_BAND 8
linsol_id cvode_choose_linsol(const model *m, const struct halo_plan *halo);
const char *linsol_name(linsol_id l);
/* The preconditioner that runs for `precond`: PRECOND_AUTO is ILU(0) on any
 * number of ranks (fewest linear iterations on every grid measured,
 * docs/methods.md "CVODE's preconditioners"). */
int precond_resolve(int precond);
/* "Jacobi", "block-Jacobi (KLU per piece of rows)" or "ILU(0) (per rank)"
 * when l is SPGMR with a resolved preconditioner (not PRECOND_AUTO); NULL
 * otherwise. */
const char *precond_name(linsol_id l, int precond);
/* "rms" or "max" (CVODE_NORM_*). */
const char *cvode_norm_name(int norm);

#endif
