/* qss_engine.h: per-state storage and shared steps of the QSS family.
 *
 * A state's polynomials are records, one cache line or less each, so that an
 * event reads a few lines per state it touches (issue 21: with one array per
 * coefficient an event read 8 lines per dependent). x_i is a polynomial of
 * degree `order` about x[i].tx: x(t) = c[0] + c[1] e + c[2] e^2 + c[3] e^3,
 * e = t - tx, with the quantum dq beside it; q_i a polynomial of degree
 * order-1 about q[i].tq with coefficients q[i].c[k] (what i's readers
 * gather). Everything else (Jacobian estimates, ages, boundary marks) stays
 * one array per field: the event loop reads it less often.
 * A method is a table of functions (qss_method); the event loop, the sampling
 * and the scheduler never test which method runs.
 */
#ifndef QMOL_QSS_ENGINE_H
#define QMOL_QSS_ENGINE_H

#include "qss/heap.h"
#include "qss/linear_rows.h"
#include "qss/row_shapes.h"
#include "core/integrator.h"
#include "core/model.h"
#include "core/stats.h"

#include <math.h>
#include <stddef.h>

typedef struct qss_engine qss_engine;

/* What an event reads and writes of a state it touches, in one cache line
 * (64 bytes, the array 64-byte aligned): x_i's polynomial about tx, its
 * quantum, and two fields of the order-2 and LIQSS methods that the same
 * event reads (issue 21: as arrays of their own they were two more cache
 * misses per dependent at 1e5 states).
 * - checked_age (order >= 2): the age of x's polynomial that the unseen
 *   check (eng_unseen_cap) last found safe, INFINITY before its first
 *   measurement; a polynomial may grow at most AGE_GROWTH times older than
 *   that before the state's next event, and before the first measurement
 *   AGE_GROWTH times the time x takes to move a quantum at its slope
 *   (qss_engine.c). The age is never negative: its sign bit says whether
 *   x was put on its equilibrium at the state's last event (eng_settled),
 *   so that the flag travels with the record (journal, checkpoint).
 * - diag (LIQSS1, LIQSS2): the estimate of df_i/dx_i (mLIQSS keeps every
 *   row entry's estimate in qss_engine.entry instead). */
typedef struct qss_x {
    double c[4];
    double tx, dq;
    double checked_age;
    double diag;
} qss_x;
_Static_assert(sizeof(qss_x) == 64, "qss_x is one cache line");

/* q_i's polynomial about tq (32 bytes: two to a cache line). */
typedef struct qss_q {
    double c[3];
    double tq;
} qss_q;

/* Doubles in each record (the journal and halo exchanges copy them). */
#define QSS_X_DOUBLES (sizeof(qss_x) / sizeof(double))
#define QSS_Q_DOUBLES (sizeof(qss_q) / sizeof(double))

typedef struct qss_method {
    const char *name;
    int order; /* degree of x */
    /* Optional extra storage and initial values, after the common init. */
    int (*init)(qss_engine *e);
    /* Handles the event of state i at time t (requantize, propagate). */
    void (*event)(qss_engine *e, int32_t i, double t);
    /* Schedules j's next event after x_j's derivatives changed at t (the
     * method's scheduler; eng_input_changed calls it). */
    void (*reschedule)(qss_engine *e, int32_t j, double t);
    void (*destroy)(qss_engine *e);
    /* Optional: passes the method's own per-state fields to io (see
     * eng_state_io). */
    int (*state_io)(qss_engine *e, state_io *io);
    /* The doubles a kept window (last_window.h) holds for the method beyond
     * the engine's fields: per owned state (what its state_io passes, and
     * LIQSS's diagonal estimates) and per entry of the longest row (mLIQSS's
     * Jacobian estimates). */
    double kept_fields, kept_per_entry;
} qss_method;

/* watched_q bits: q_i feeds the BDF block (on_q_change is called) and/or a
 * crossing function (its next zero is predicted again). */
enum { WATCH_BDF = 1, WATCH_CROSSING = 2 };

/* boundary[i] for owned states read by other ranks (0: not a boundary). */
enum { BOUNDARY_QUIET = 1, BOUNDARY_CHANGED = 2 };

struct qss_engine {
    const model *m;
    const qmol_problem *p;
    const integrator_options *o;
    const qss_method *method;
    int32_t n;      /* owned states: those with events */
    int32_t n_cols; /* owned + ghosts: storage length of the per-state arrays */
    int order;
    qss_x *x; /* n_cols records (ghosts: q and dq only are kept current) */
    qss_q *q; /* n_cols records */
    event_heap heap;
    /* Jacobian estimates: entry[eng_entry_pos(j, k)] ~ row j's entry k
     * (mLIQSS), or, without entry and with has_diag, x[i].diag ~ df_i/dx_i
     * (LIQSS) */
    double *entry;
    /* entry's layout: row j's estimates at j * entry_stride + k (rows as
     * shapes, of nearly equal length: found without row_ptr, whose load an
     * event's prefetches and pair search waited for), or at the model's CSR
     * positions row_ptr[j] + k (entry_stride 0) */
    int32_t entry_stride;
    /* the event's prefetches ask for the dependents' row_ptr[j]: rows from
     * the CSR, or mLIQSS where the estimates keep the CSR's positions or a
     * re-evaluation reads the row's start (a numeric Jacobian's secants,
     * and all but the fused second-order rows) */
    int prefetch_row_start;
    int has_diag;
    double *io_column; /* eng_state_io's per-state column, kept between saves (or NULL) */
    int analytic_jac;  /* the problem's jac is used */
    /* scratch of the longest row / longest dependents list */
    double *vals, *vals2, *slopes, *curv, *dfdv, *saved, *saved2;
    double *listed; /* model_rhs and model_jac's scratch (model_scratch_size) */
    int32_t max_deps;
    row_shapes shapes;  /* the rows and dependents as shapes (shapes.row NULL: the CSR) */
    linear_rows linear; /* the shapes whose rows are linear but for their own term */
    double tf;
    double shortest;     /* the shortest interval the age and unseen checks set */
    int prefetch_inputs; /* an event prefetches its dependents and their rows' inputs, and
                            the next event's records (PREFETCH_INPUTS_BYTES) */
    int own_entry;       /* where the row gather_row gathered last reads its own state, or -1 */
    qmol_stats *stats;
    /* distributed runs (NULL/0 on one rank): the halo, boundary marks and the
     * boundary states whose q changed in the current window */
    struct halo_plan *halo;
    unsigned char *boundary;
    int32_t *changed, nchanged;
    /* per changed boundary state (changed[k]): the q polynomial its readers
     * held at the window's start (stale[4k .. 4k+2] about stale[4k+3]) and
     * the integral over the window so far of q minus that polynomial
     * (stale_area[k]); change_slot[i] is i's k. The window's error
     * estimate (qss_window.c) reads them. */
    double *stale, *stale_area;
    int32_t *change_slot;
    void *method_data;
    struct qss_journal *journal; /* the window's undo log (qss_journal.h), or NULL */
    /* Events run while their time is below events_until. A mixed run marks the
     * QSS states its BDF block reads (watched_q) and lowers events_until from
     * on_q_change, called after such a state's q changed at t (old_q: the
     * previous polynomial's coefficients about old_tq). */
    double window_start, events_until;
    /* Several ranks: whether a stop request ends this window (stop_polled)
     * and the time it did (stopped_at; INFINITY: none). */
    int stop_polled;
    double stopped_at;
    int failed_in_exchange;         /* failed at the window end's exchange, not before */
    struct discrete *disc;          /* zero crossings and time events, or NULL */
    const unsigned char *watched_q; /* WATCH_* bits per column, or NULL */
    void (*on_q_change)(qss_engine *e, int32_t i, double t, const double *old_q, double old_tq);
    void *driver;
    /* States the engine does not advance (a BDF block holds them: moving_run.c),
     * or NULL: one popped from the queue is put back at INFINITY unhandled.
     * Their q is set by the driver, which re-evaluates their readers. */
    const unsigned char *passive;
    double *activity; /* events per row (o->activity, or the mixed run's own), or NULL */
    /* Several ranks: the rank that handles the discontinuities alone (the
     * others' copies of the problem's discrete variables go stale), -1 when
     * none does; room for those variables (discrete_share); and whether
     * its handlers ran since they were last shared (that rank's; agreed
     * over the ranks by window_agree). */
    int disc_root;
    double *disc_vars;
    int disc_changed;
    int failed;
    char *err;
    size_t errlen;
};

/* The methods' tables (qss_explicit.c, bqss.c, liqss.c, mliqss.c) are
 * declared where their entries are, in integrator_registry.c. */

/* Fills e's fields for model m and options o with method `method` and
 * allocates its storage (eng_alloc). Returns 0 or -1 (out of memory). */
int eng_setup(qss_engine *e, const model *m, const integrator_options *o, const qss_method *method,
              qmol_stats *stats, char *err, size_t errlen);
/* Runs the events of times below T_end (or below a lower e->events_until set
 * meanwhile); stops the run when time stalls. last_t and same_time carry the
 * stall detection between calls (start with t0 and 0). */
struct window_watch;
void eng_run_events(qss_engine *e, double T_end, struct window_watch *watch, double *last_t,
                    uint64_t *same_time);

/* Storage for n_cols states and the heap for n (e->m, n, n_cols, order
 * set); eng_free releases everything. Returns 0 or -1 (out of memory). */
int eng_alloc(qss_engine *e);
void eng_free(qss_engine *e);
/* x = q = x0 for all local states; q's slopes from the derivatives
 * (collective with the halo: ghosts get their owners' slopes). */
void eng_initial_state(qss_engine *e);

/* Re-centres x_j's polynomial at t. */
void eng_advance_x(qss_engine *e, int32_t j, double t);
/* Asks the memory for what the events of i's dependents will read (their
 * x records and next times, their inputs' q records) all at once, so the
 * cache misses overlap instead of coming one after another (the event loop
 * asks where the q records exceed the caches: prefetch_inputs). */
void eng_prefetch_deps(const qss_engine *e, int32_t i);
/* The same for the likely next event's own record, rows and next time
 * (heap_next_guess). */
void eng_prefetch_next(const qss_engine *e);
/* x_j(t), dx_j/dt(t), q_k(t), dq_k/dt(t) without changing storage. */
double eng_x_at(const qss_engine *e, int32_t j, double t);
/* x_j's slope at t, from its polynomial. */
double eng_xdot_at(const qss_engine *e, int32_t j, double t);
/* Whether x_j was put on its equilibrium at j's last event (liqss2_settle),
 * and setting that; the age checked_age holds without the flag. */
static inline int eng_settled(const qss_engine *e, int32_t j) {
    return signbit(e->x[j].checked_age) != 0;
}
static inline void eng_set_settled(qss_engine *e, int32_t j, int settled) {
    e->x[j].checked_age = copysign(e->x[j].checked_age, settled ? -1.0 : 1.0);
}
static inline double eng_checked_age(const qss_engine *e, int32_t j) {
    return fabs(e->x[j].checked_age);
}
double eng_q_at(const qss_engine *e, int32_t k, double t);
double eng_qdot_at(const qss_engine *e, int32_t k, double t);
/* Sets q_i's polynomial to (value, slope, curvature/2) about t. */
void eng_set_q(qss_engine *e, int32_t i, double t, double value, double slope, double half_curv);
/* Recomputes x_j's derivative coefficients at t from q (x_j must be at t).
 * With an analytic Jacobian also stores the row's partials when the method
 * keeps estimates (diag, entry). */
void eng_eval_derivs(qss_engine *e, int32_t j, double t);
/* f_j's inputs changed at t (an event, or a ghost updated at a window end):
 * advances x_j, re-evaluates its derivatives and reschedules j by the
 * method's rule. */
void eng_input_changed(qss_engine *e, int32_t j, double t);
/* eng_input_changed for every reader of state i, their rows evaluated
 * ENG_BATCH at a time before their next times (the exit roots, each a
 * square root and a division, then overlap instead of each waiting behind
 * its own row; a next time reads only its own row's x and q, and the queue
 * is updated in the same order: the results are the same). */
#define ENG_BATCH 16
void eng_readers_changed(qss_engine *e, int32_t i, double t);
/* The integral from the window's start to t (t >= the current piece's tq)
 * of changed[k]'s q minus the polynomial its readers hold. */
double eng_stale_area(const qss_engine *e, int32_t k, double t);
/* sum_g df_j/dq_g area[g - n] over row j's ghost inputs g at q(t): how
 * far x_j drifted while it read the ghosts' stale q's (area: each ghost's
 * integral of new q minus stale q over the window, 0 where unchanged). A
 * directional difference of f_j, exact for linear rows. */
double eng_stale_drift(qss_engine *e, int32_t j, double t, const double *area);
/* Evaluates row j's Jacobian at q(t) into e->dfdv (analytic only). */
void eng_eval_jac_row(qss_engine *e, int32_t j, double t);
/* How much row j's other inputs weigh against its own state: the sum of
 * |df_j/dv_k| over k != j, over |df_j/dx_j|, at the q's at t (mLIQSS's
 * estimates where it keeps them, else the problem's Jacobian; INFINITY
 * without either, or where the diagonal is 0). Leaves the estimates as
 * they were. */
double eng_coupling_share(qss_engine *e, int32_t j, double t);
/* Time scale over which the inputs cols[0 .. len) (values, slopes, and
 * half curvatures or NULL, gathered at t) change by their own size plus a
 * quantum: finite-difference steps along q are fractions of it. */
double eng_time_scale(const qss_engine *e, const int32_t *cols, const double *vals,
                      const double *slopes, const double *curv, int len, double t);
/* Quantum of state i at value x: max(reltol |x|, abstol * scale_i). */
double eng_quantum(const qss_engine *e, int32_t i, double x);
/* Sets dq_i from the current x value. */
void eng_update_quantum(qss_engine *e, int32_t i);
/* How far, in quanta, x may leave q before a LIQSS state's next event: 2 at
 * order 1 (the thesis), 1 at order 2 (the public QSS Solver's LIQSS2;
 * qss_engine.c's AWAY_LIMIT2 adds a hair). mLIQSS's pair steps accept a q
 * within the same distance of x (mliqss.c). */
static inline double eng_exit_quanta(int order) {
    return order == 1 ? 2.0 : 1.0;
}
/* Order k >= 2: what eng_unseen_cap needs from before state j's own event
 * at t (eng_unseen_before fills it): x's age t - tx and its old
 * polynomial's slope at t, the quantum, q_j's old polynomial and, where
 * x_j kept its polynomial since j's last own event (tx == tq) or its age
 * reached its limit (aged: checked_age), f_j along the old q's at t (measured).
 * An aged state that does not read itself has x_j re-evaluated at t (its
 * own event would not: qss_run.c). */
typedef struct unseen_before {
    double h, slope, dq, q[3], tq, along;
    int measured, aged;
} unseen_before;
void eng_unseen_before(qss_engine *e, int32_t j, double t, unseen_before *b);
/* After that event, j scheduled: the longest next interval over which the
 * term x's polynomial leaves out (f along q beyond order k - 1) stays
 * within a quantum, estimated from the gap between the old polynomial's
 * slope and f along the old q's at t, and no longer than AGE_GROWTH times
 * the age checked_age now holds; INFINITY when none or when it could not
 * act: j's next time within the floor or beyond twice the cap, or (f not
 * yet measured) an input's event scheduled before j's next one (it
 * re-evaluates x_j and reschedules j). A measurement updates checked_age,
 * and where that lengthens j's age limit and the check vouches for
 * AGE_GROWTH times the new one, schedules j again (the method's reschedule)
 * before the cap. */
double eng_unseen_cap(qss_engine *e, int32_t j, double t, const unseen_before *b);
/* Next time by the QSS rule (|x - q| = dq) and by the LIQSS rule (order 1:
 * x meets q, or |x - q| = eng_exit_quanta dq; order 2: |x - q| leaves
 * eng_exit_quanta dq, the choice aiming q through x); both schedule j. */
void eng_schedule_qss(qss_engine *e, int32_t j, double t);
void eng_schedule_liqss(qss_engine *e, int32_t j, double t);
/* Whether f_i reads x_i: then propagating q_i's change re-evaluates and
 * reschedules i itself, and the event need not schedule i again. */
static inline int eng_reads_self(const qss_engine *e, int32_t i) {
    return e->shapes.row ? row_shape_own(&e->shapes, i) >= 0 : e->m->diag_entry[i] >= 0;
}
/* List j of the model's CSR (ptr, idx) or, with shapes, of their ids:
 * base + list[k] for k < *len (base: j with shapes, 0 with the CSR). */
static inline const int32_t *eng_list(const row_shapes *s, const uint16_t *ids, const int64_t *ptr,
                                      const int32_t *idx, int32_t j, int *len, int32_t *base) {
    if (ids) {
        *base = j;
        return row_shapes_list(s, ids[j], len);
    }
    *base = 0;
    *len = (int)(ptr[j + 1] - ptr[j]);
    return idx + ptr[j];
}
/* Row j's columns, and state i's dependents, as eng_list gives them. */
static inline const int32_t *eng_row(const qss_engine *e, int32_t j, int *len, int32_t *base) {
    return eng_list(&e->shapes, e->shapes.row, e->m->row_ptr, e->m->row_col, j, len, base);
}
static inline const int32_t *eng_deps(const qss_engine *e, int32_t i, int *len, int32_t *base) {
    return eng_list(&e->shapes, e->shapes.deps, e->m->dep_ptr, e->m->dep_row, i, len, base);
}
/* Allocates e->entry, a Jacobian estimate per row entry, all 0, and
 * chooses its layout (entry_stride); after eng_alloc. Returns 0 or -1 (out
 * of memory). */
int eng_alloc_estimates(qss_engine *e);
/* Position of row j's entry k among the estimates (e->entry). */
static inline int64_t eng_entry_pos(const qss_engine *e, int32_t j, int k) {
    return e->entry_stride ? (int64_t)j * e->entry_stride + k : e->m->row_ptr[j] + k;
}
/* Position of row j's own entry among the estimates, or -1: without
 * shapes the model's diag_entry[j]. */
static inline int64_t eng_diag_entry(const qss_engine *e, int32_t j) {
    if (!e->shapes.row) return e->m->diag_entry[j];
    int own = row_shape_own(&e->shapes, j);
    return own >= 0 ? eng_entry_pos(e, j, own) : -1;
}
/* Passes the engine's state at a window end (every owned state's
 * polynomials, times, quantum, next time, Jacobian estimates and the
 * method's fields) to io: a checkpoint saves it, a restart loads it and
 * refreshes the ghosts. Collective. Returns 0, or -1 (agreed) with io->why. */
int eng_state_io(qss_engine *e, state_io *io);
/* Stops the run with a message (first failure wins). */
void eng_fail(qss_engine *e, const char *fmt, ...);

#endif
