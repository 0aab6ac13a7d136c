/* qss_engine.c: storage and the shared steps of the QSS family (advance,
 * derivatives, quanta, next times); the event loop is in qss_run.c. */
#include "qss/qss_engine.h"
#include "core/big_alloc.h"
#include "core/initial.h"
#include "qss/liqss.h"
#include "qss/qss_journal.h"

#include "qss/discrete.h"
#include "comm/halo.h"
#include "qss/poly2.h"
#include "core/wallclock.h"

#include <float.h>
#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void eng_fail(qss_engine *e, const char *fmt, ...) {
    if (e->failed) return;
    e->failed = 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->err, e->errlen, fmt, ap);
    va_end(ap);
}

/* ---- polynomial access ------------------------------------------------- */

void eng_advance_x(qss_engine *e, int32_t j, double t) {
    journal_touch(e, j);
    double h = t - e->x[j].tx;
    if (h == 0.0) return;
    double a1 = e->x[j].c[1], a2 = e->x[j].c[2], a3 = e->x[j].c[3];
    e->x[j].c[0] += h * (a1 + h * (a2 + h * a3));
    e->x[j].c[1] = a1 + h * (2.0 * a2 + 3.0 * h * a3);
    e->x[j].c[2] = a2 + 3.0 * h * a3;
    e->x[j].tx = t;
}

double eng_x_at(const qss_engine *e, int32_t j, double t) {
    double h = t - e->x[j].tx;
    return e->x[j].c[0] + h * (e->x[j].c[1] + h * (e->x[j].c[2] + h * e->x[j].c[3]));
}

double eng_xdot_at(const qss_engine *e, int32_t j, double t) {
    double h = t - e->x[j].tx;
    return e->x[j].c[1] + h * (2.0 * e->x[j].c[2] + 3.0 * h * e->x[j].c[3]);
}

double eng_q_at(const qss_engine *e, int32_t k, double t) {
    double h = t - e->q[k].tq;
    return e->q[k].c[0] + h * (e->q[k].c[1] + h * e->q[k].c[2]);
}

double eng_qdot_at(const qss_engine *e, int32_t k, double t) {
    double h = t - e->q[k].tq;
    return e->q[k].c[1] + 2.0 * h * e->q[k].c[2];
}

static double q_gap_area(const double *p, double tp, const double *r, double tr, double a,
                         double b) {
    if (!(b > a)) return 0.0;
    /* Simpson's rule: exact for the quadratics q can be */
    double gap[3], m = 0.5 * (a + b), at[3] = {a, m, b};
    for (int k = 0; k < 3; k++) {
        double hp = at[k] - tp, hr = at[k] - tr;
        gap[k] = (p[0] + hp * (p[1] + hp * p[2])) - (r[0] + hr * (r[1] + hr * r[2]));
    }
    return (b - a) / 6.0 * (gap[0] + 4.0 * gap[1] + gap[2]);
}

double eng_stale_area(const qss_engine *e, int32_t k, double t) {
    int32_t i = e->changed[k];
    const double *st = e->stale + 4 * (size_t)k;
    double cur[3] = {e->q[i].c[0], e->q[i].c[1], e->q[i].c[2]};
    return e->stale_area[k] + q_gap_area(cur, e->q[i].tq, st, st[3], e->q[i].tq, t);
}

/* Boundary state i's q changes at t: the first change in a window keeps the
 * polynomial its readers hold (stale), later ones add the area between the
 * ending piece and it. */
static void note_boundary_change(qss_engine *e, int32_t i, double t) {
    int32_t k;
    if (e->boundary[i] == BOUNDARY_QUIET) {
        e->boundary[i] = BOUNDARY_CHANGED;
        k = e->nchanged++;
        e->changed[k] = i;
        e->change_slot[i] = k;
        double *st = e->stale + 4 * (size_t)k;
        st[0] = e->q[i].c[0];
        st[1] = e->q[i].c[1];
        st[2] = e->q[i].c[2];
        st[3] = e->q[i].tq;
        e->stale_area[k] = 0.0;
        return;
    }
    k = e->change_slot[i];
    e->stale_area[k] = eng_stale_area(e, k, t);
}

void eng_set_q(qss_engine *e, int32_t i, double t, double value, double slope, double half_curv) {
    /* read by another rank: sent at the window end */
    if (e->boundary && e->boundary[i]) note_boundary_change(e, i, t);
    if (e->watched_q && e->watched_q[i]) {
        double old[3] = {e->q[i].c[0], e->q[i].c[1], e->q[i].c[2]}, old_tq = e->q[i].tq;
        e->q[i].c[0] = value;
        e->q[i].c[1] = slope;
        e->q[i].c[2] = half_curv;
        e->q[i].tq = t;
        if (e->watched_q[i] & WATCH_BDF) e->on_q_change(e, i, t, old, old_tq);
        if (e->watched_q[i] & WATCH_CROSSING) discrete_input_changed(e, i, t);
        return;
    }
    e->q[i].c[0] = value;
    e->q[i].c[1] = slope;
    e->q[i].c[2] = half_curv;
    e->q[i].tq = t;
}

double eng_quantum(const qss_engine *e, int32_t i, double x) {
    return model_quantum(e->m, i, x, e->o->reltol, e->o->abstol);
}

void eng_update_quantum(qss_engine *e, int32_t i) {
    e->x[i].dq = eng_quantum(e, i, e->x[i].c[0]);
}

/* ---- derivatives ------------------------------------------------------- */

void eng_prefetch_deps(const qss_engine *e, int32_t i) {
    const model *m = e->m;
    int32_t base;
    int len = 0;
    const int32_t *deps = eng_deps(e, i, &len, &base);
    /* in stages, so that each stage's loads are independent of one another
     * and their misses overlap: each dependent's x record, time, row (its
     * shape, or its start in the CSR) and mLIQSS's estimates by row slot;
     * then the estimates at the CSR's positions, the rows' columns and the
     * q's they read */
    for (int p = 0; p < len; p++) {
        int32_t j = base + deps[p];
        __builtin_prefetch(&e->x[j]);
        if (j < e->n) __builtin_prefetch(&e->heap.time[j]);
        if (e->shapes.row) __builtin_prefetch(&e->shapes.row[j]);
        if (e->prefetch_row_start) __builtin_prefetch(&m->row_ptr[j]);
        if (e->entry && e->entry_stride) { /* (a row may span two lines) */
            __builtin_prefetch(&e->entry[eng_entry_pos(e, j, 0)]);
            __builtin_prefetch(&e->entry[eng_entry_pos(e, j, e->entry_stride - 1)]);
        }
    }
    /* mLIQSS's estimates at the CSR's positions: the rows' entries (the
     * pair search reads them, the dependents' re-evaluation writes them) */
    if (e->entry && !e->entry_stride)
        for (int p = 0; p < len; p++)
            __builtin_prefetch(&e->entry[m->row_ptr[base + deps[p]]]);
    if (!e->shapes.row)
        for (int p = 0; p < len; p++)
            __builtin_prefetch(&m->row_col[m->row_ptr[base + deps[p]]]);
    for (int p = 0; p < len; p++) {
        int32_t j = base + deps[p], cbase;
        int rlen = 0;
        const int32_t *cols = eng_row(e, j, &rlen, &cbase);
        for (int k = 0; k < rlen; k++)
            __builtin_prefetch(&e->q[cbase + cols[k]]);
    }
}

void eng_prefetch_next(const qss_engine *e) {
    int32_t guess = heap_next_guess(&e->heap);
    if (guess < 0) return;
    __builtin_prefetch(&e->x[guess]);
    if (e->shapes.row) {
        __builtin_prefetch(&e->shapes.deps[guess]);
        __builtin_prefetch(&e->shapes.row[guess]);
        if (e->prefetch_row_start) __builtin_prefetch(&e->m->row_ptr[guess]);
        if (e->entry && e->entry_stride) __builtin_prefetch(&e->entry[eng_entry_pos(e, guess, 0)]);
    } else {
        __builtin_prefetch(&e->m->dep_ptr[guess]);
        __builtin_prefetch(&e->m->row_ptr[guess]);
    }
    heap_prefetch_block(&e->heap, guess); /* its event postpones it: a rescan */
}

/* Gathers q (and its slope and half curvature) of row j at t into scratch,
 * and notes where the row reads x_j (e->own_entry). */
static int gather_row(qss_engine *e, int32_t j, double t) {
    int32_t base;
    int len = 0;
    const int32_t *restrict cols = eng_row(e, j, &len, &base);
    const qss_q *restrict q = e->q + base; /* (column k: q[cols[k]]) */
    int32_t self = j - base, own = -1;
    double *restrict vals = e->vals, *restrict slopes = e->slopes;
    if (e->order <= 2) { /* q is at most linear: no curvature */
        for (int k = 0; k < len; k++) {
            const qss_q *qc = q + cols[k];
            vals[k] = qc->c[0] + (t - qc->tq) * qc->c[1];
            slopes[k] = qc->c[1];
            own = cols[k] == self ? k : own;
        }
        e->own_entry = own;
        return len;
    }
    double *restrict curv = e->curv;
    for (int k = 0; k < len; k++) {
        const qss_q *qc = q + cols[k];
        double h = t - qc->tq;
        vals[k] = qc->c[0] + h * (qc->c[1] + h * qc->c[2]);
        slopes[k] = qc->c[1] + 2.0 * h * qc->c[2];
        curv[k] = qc->c[2];
        own = cols[k] == self ? k : own;
    }
    e->own_entry = own;
    return len;
}

static double eval_rhs(qss_engine *e, int32_t j, double t, const double *vals) {
    e->stats->row_evals++;
    return model_rhs(e->m, j, t, vals, e->listed);
}

/* f_j along the q trajectories at t + tau (tau small), from gathered rows. */
static double rhs_along(qss_engine *e, int32_t j, double t, double tau, int len) {
    if (e->order <= 2) {
        for (int k = 0; k < len; k++)
            e->vals2[k] = e->vals[k] + tau * e->slopes[k];
    } else {
        for (int k = 0; k < len; k++)
            e->vals2[k] = e->vals[k] + tau * (e->slopes[k] + tau * e->curv[k]);
    }
    return eval_rhs(e, j, t + tau, e->vals2);
}

/* Time scale over which row j's inputs change by their own size: the finite
 * difference steps are fractions of it. */
double eng_time_scale(const qss_engine *e, const int32_t *cols, const double *vals,
                      const double *slopes, const double *curv, int len, double t) {
    double scale = INFINITY;
    for (int k = 0; k < len; k++) {
        double speed = fabs(slopes[k]);
        if (speed > 0.0) {
            double ts = (fabs(vals[k]) + e->x[cols[k]].dq) / speed;
            /* third order: also the time q's slope takes to change by its own
             * size; an input at 0 with a small quantum otherwise gives steps
             * so short that rounding swamps the second difference (pulse, x =
             * 0, tol = abstol = 1e-4: QSS3 never left its first polynomial) */
            if (curv && curv[k] != 0.0) {
                double bend = speed / (2.0 * fabs(curv[k]));
                if (bend > ts) ts = bend;
            }
            if (ts < scale) scale = ts;
        }
    }
    if (e->p->explicit_time) {
        double span = fabs(e->tf - e->o->t0) + fabs(t) + 1.0;
        if (span < scale) scale = span;
    }
    return scale;
}

/* (right after gather_row of row j) */
static void store_estimates(qss_engine *e, int32_t j, int len) {
    if (e->entry) { /* rows are short: a loop, not a library call */
        double *entry = e->entry + eng_entry_pos(e, j, 0);
        for (int k = 0; k < len; k++)
            entry[k] = e->dfdv[k];
    } else if (e->has_diag && e->own_entry >= 0) {
        /* the row's own column, as the gather found it: diag_entry[j]
         * would be one more line per dependent where the model's arrays
         * outgrow the cache */
        e->x[j].diag = e->dfdv[e->own_entry];
    }
}

double eng_stale_drift(qss_engine *e, int32_t j, double t, const double *area) {
    int len = gather_row(e, j, t);
    const int32_t *cols = e->m->row_col + e->m->row_ptr[j];
    double step = INFINITY;
    for (int k = 0; k < len; k++) {
        int32_t c = cols[k];
        double a = c >= e->n ? area[c - e->n] : 0.0;
        if (a != 0.0 && e->x[c].dq / fabs(a) < step) step = e->x[c].dq / fabs(a);
    }
    if (isinf(step)) return 0.0;
    /* each input moves by at most its quantum: a size f_j's rounding does
     * not swamp, and within which a nonlinear row is nearly linear */
    for (int k = 0; k < len; k++) {
        int32_t c = cols[k];
        e->vals2[k] = e->vals[k] + (c >= e->n ? step * area[c - e->n] : 0.0);
    }
    double f0 = eval_rhs(e, j, t, e->vals), f1 = eval_rhs(e, j, t, e->vals2);
    return (f1 - f0) / step;
}

/* Relative size of f below which eng_unseen_cap's gap is rounding, and
 * the shortest interval it and unless_frozen set, as a fraction of the span. */
#define UNSEEN_ROUNDING 1e-10
#define UNSEEN_FLOOR 1e-9

/* The shortest interval the unseen check, the age bound and unless_frozen
 * set: UNSEEN_FLOOR of the span. */
static inline double shortest_interval(const qss_engine *e) {
    return e->shortest;
}
/* How many times older than the age its check last found safe x's
 * polynomial may grow (age_limit). The check measures what the
 * polynomial left out at one age and extrapolates with the order it
 * assumes (f along q beyond order k - 1 grows as age^k); where the left-out
 * term grows faster, or is tiny when measured (x'' = 2e-6 on a tan ring
 * spread by 1e-6 gave a first interval past tf: no event, 22% off), only a
 * bounded growth finds it before it reaches a quantum. Measured in
 * docs/methods.md ("Second order: what x's polynomial leaves out"). */
#define AGE_GROWTH 8.0

/* Where the cap can act. It shortens j's next interval only if it fires
 * before x_j is re-evaluated: an input's event re-evaluates x_j and
 * reschedules j from the new polynomial, and the cap is gone. So f_j along
 * the old q's (one right-hand side) is evaluated only
 * - before the event where x_j kept its polynomial since j's last own event
 *   (tx == tq: no input's event came between; a state that reads only
 *   itself, at every event) or where its age reached age_limit, or
 * - after it where no owned input's event is scheduled before j's next one,
 * and the root only where the cap is below twice that interval or the
 * age to keep is below the one checked before.
 * Neither of the first two rules alone keeps cli.plugin's unseen_coupled: on a ring of tan
 * states each event re-evaluates both neighbours, whose next events come
 * before the state's own, yet its cap fires first (the second rule alone:
 * u(1) = 2.001 for 2.557); in a star whose hub decays, the hub re-evaluates
 * the leaves between their own events but its next event comes after
 * theirs (the first rule alone: LIQSS2 1.3e-2 off instead of 2.4e-3). The
 * usual problems' numbers: docs/methods.md. */

/* f_j along the old q's at t (b's own, and the inputs' current ones, which
 * j's event leaves alone), as gather_row computes them. */
static double rhs_before(qss_engine *e, int32_t j, double t, const unseen_before *b) {
    gather_row(e, j, t);
    int own = e->own_entry;
    double dt = t - b->tq;
    if (own >= 0) e->vals[own] = b->q[0] + dt * (b->q[1] + dt * b->q[2]);
    return eval_rhs(e, j, t, e->vals);
}

/* The oldest x_j's polynomial may grow before j's next event: AGE_GROWTH
 * times checked_age, or before the first check AGE_GROWTH times the time x
 * takes to move a quantum at its slope (INFINITY at rest). Every schedule
 * asks it. */
static inline double age_limit(const qss_engine *e, int32_t j) {
    double age = eng_checked_age(e, j);
    if (!(age < INFINITY)) { /* not yet checked: the time x takes to move a quantum */
        double slope = fabs(e->x[j].c[1]);
        if (!(slope > 0.0)) return INFINITY;
        age = e->x[j].dq / slope;
    }
    double limit = AGE_GROWTH * age, floor = shortest_interval(e);
    return limit > floor ? limit : floor;
}

void eng_unseen_before(qss_engine *e, int32_t j, double t, unseen_before *b) {
    b->h = t - e->x[j].tx;
    b->slope = eng_xdot_at(e, j, t);
    b->dq = e->x[j].dq;
    for (int k = 0; k < 3; k++)
        b->q[k] = k < e->order ? e->q[j].c[k] : 0.0;
    b->tq = e->q[j].tq;
    b->aged = b->h > 0.0 && b->h >= (1.0 - 1e-12) * age_limit(e, j);
    /* x_j kept its polynomial since j's last own event (no input's event
     * re-evaluated it), or grew as old as it may: measured now, with every
     * old q in place */
    b->measured = b->h > 0.0 && (e->x[j].tx == e->q[j].tq || b->aged);
    b->along = b->measured ? rhs_before(e, j, t, b) : 0.0;
}

/* s^(k+1) and its root, k the order */
static double power_k1(int k, double s) {
    return k == 2 ? s * s * s : (s * s) * (s * s);
}

static double root_k1(int k, double v) {
    return k == 2 ? cbrt(v) : sqrt(sqrt(v));
}

double eng_unseen_cap(qss_engine *e, int32_t j, double t, const unseen_before *b) {
    if (!(b->h > 0.0) || e->failed) return INFINITY;
    double floor_span = shortest_interval(e);
    double span = heap_time(&e->heap, j) - t; /* the interval the cap would shorten */
    double along = b->along;
    if (!b->measured) {
        if (!(span > floor_span)) return INFINITY;
        /* x_j was re-evaluated since j's last own event: measured only if
         * no input's event is scheduled before j's next one (such an event
         * re-evaluates x_j and reschedules j from the new polynomial,
         * dropping the cap). Owned inputs only: ghosts change at window
         * ends. An input whose q changed at t (mLIQSS's pair step moved
         * the partner) would need its old q too: not measured either. */
        int32_t base;
        int len = 0;
        const int32_t *cols = eng_row(e, j, &len, &base);
        for (int k = 0; k < len; k++) {
            int32_t c = base + cols[k];
            if (c != j && c < e->n && (heap_time(&e->heap, c) - t < span || e->q[c].tq == t))
                return INFINITY;
        }
        along = rhs_before(e, j, t, b);
    }
    double gap = fabs(along - b->slope);
    if (isnan(gap)) return INFINITY;
    /* f along q at age h beyond x's polynomial: about f^(k) h^k / k!, and
     * x leaves out its integral, f^(k) s^(k+1) / (k+1)!, a quantum at
     * s^(k+1) = (k+1) dq h^k / gap (k = 2: 3 dq h^2 / gap). A gap within
     * the rounding of f says nothing (so shortly after the last
     * re-evaluation it is all rounding): no cap. */
    int k = e->order;
    double held = eng_checked_age(e, j);
    double base = isinf(held) ? b->h : fmax(held, b->h); /* the age verified so far */
    double v = INFINITY;                                 /* the safe age ^ (k + 1) */
    if (gap > UNSEEN_ROUNDING * fmax(fabs(along), fabs(b->slope)))
        v = (k + 1) * b->dq * (k == 2 ? b->h * b->h : b->h * b->h * b->h) / gap;
    double limit_before = age_limit(e, j);
    double checked = v < power_k1(k, base) ? root_k1(k, v) : base;
    e->x[j].checked_age = copysign(checked, e->x[j].checked_age); /* (the settled flag) */
    /* The event scheduled j within the age limit of the check before.
     * Where this check lengthens it and vouches for AGE_GROWTH times the
     * new limit (its safe age that far beyond: a state at rest), j's next
     * time again: else j has an event at the old limit only for its next
     * check to grow it, one more for each factor AGE_GROWTH a state at
     * rest grows its age by (adr1d N = 1000, tol = abstol = 1e-3, the
     * states behind the front after it had passed). Elsewhere the old limit
     * stands once more, so each age is checked twice: rescheduled wherever
     * the limit grew, the rings of cli.plugin's unseen_tiny whose left-out
     * term grows faster than the check assumes ((u - 1)^3) ended 2.0e-3
     * (QSS2) and 6.4e-3 (LIQSS2) off instead of 1.7e-3 and 2.9e-3. LIQSS2
     * events 34,785 -> 32,534, mLIQSS2 33,588 -> 31,313, N = 10000 LIQSS2
     * 589,338 -> 572,905, adr2d 100 x 100 705,734 -> 698,568, heat1d QSS3
     * 259,604 -> 254,158; e_rr within 0.1% or lower (heat1d QSS3 1.67e-4 ->
     * 1.37e-4). */
    if (age_limit(e, j) > limit_before && v >= power_k1(k, AGE_GROWTH * age_limit(e, j))) {
        e->method->reschedule(e, j, t);
        span = heap_time(&e->heap, j) - t;
    }
    /* the root only where the cap can act: below twice the interval */
    double safe = v < power_k1(k, fmax(base, 2.0 * span)) ? root_k1(k, v) : INFINITY;
    /* not below UNSEEN_FLOOR of the span (as unless_frozen: near a blow-up
     * tiny intervals fall below the clock's resolution; adr1d u0 = 1e120
     * stalled at t = 1e-64 instead of failing on its infinite derivative) */
    double cap = fmin(safe, age_limit(e, j));
    return cap < span && span > floor_span ? fmax(cap, floor_span) : INFINITY;
}

/* Row j's Jacobian at q(t) into e->dfdv (the problem's); returns its
 * length. */
static int jac_row_at_q(qss_engine *e, int32_t j, double t) {
    int len = gather_row(e, j, t);
    e->stats->jac_rows++;
    model_jac(e->m, j, t, e->vals, e->dfdv, e->listed);
    return len;
}

void eng_eval_jac_row(qss_engine *e, int32_t j, double t) {
    store_estimates(e, j, jac_row_at_q(e, j, t));
}

double eng_coupling_share(qss_engine *e, int32_t j, double t) {
    int32_t base;
    int len = 0;
    const int32_t *cols = eng_row(e, j, &len, &base);
    const double *row;
    if (e->entry) {
        row = e->entry + eng_entry_pos(e, j, 0);
    } else if (e->analytic_jac) {
        jac_row_at_q(e, j, t);
        row = e->dfdv;
    } else {
        return INFINITY;
    }
    double diag = 0.0, others = 0.0;
    for (int k = 0; k < len; k++) {
        if (cols[k] == j - base)
            diag += row[k];
        else
            others += fabs(row[k]);
    }
    return diag != 0.0 ? others / fabs(diag) : INFINITY;
}

void eng_input_changed(qss_engine *e, int32_t j, double t) {
    eng_advance_x(e, j, t);
    eng_eval_derivs(e, j, t);
    e->method->reschedule(e, j, t);
}

/* x_j's value advanced to t, its slope and curvature left as they were:
 * eng_eval_derivs, which comes next, sets them all (or the run fails). */
static inline void advance_value(qss_engine *e, int32_t j, double t) {
    journal_touch(e, j);
    double h = t - e->x[j].tx;
    if (h == 0.0) return;
    const double *c = e->x[j].c;
    e->x[j].c[0] = c[0] + h * (c[1] + h * (c[2] + h * c[3]));
    e->x[j].tx = t;
}

void eng_readers_changed(qss_engine *e, int32_t i, double t) {
    int32_t base;
    int len = 0;
    const int32_t *deps = eng_deps(e, i, &len, &base);
    for (int lo = 0; lo < len; lo += ENG_BATCH) {
        int hi = len - lo > ENG_BATCH ? lo + ENG_BATCH : len;
        for (int p = lo; p < hi; p++) {
            advance_value(e, base + deps[p], t);
            eng_eval_derivs(e, base + deps[p], t);
        }
        for (int p = lo; p < hi; p++)
            e->method->reschedule(e, base + deps[p], t);
    }
}

/* Order 2 with the problem's Jacobian: f and its row in one call, and f's
 * slope from them (no finite differences along the row's inputs). */
static inline int fused_rows(const qss_engine *e) {
    return e->analytic_jac && e->order == 2 && !e->p->explicit_time;
}

/* f0 + sum_k c_k q_k(t) over a row's len inputs, and the slope of the sum
 * added to *fdot, in the entries' order (the same rounding whatever len). */
static inline double linear_sum_of(const qss_q *restrict q, const int32_t *restrict cols,
                                   const double *restrict c, int len, double t, double f,
                                   double *fdot) {
    double slope_sum = *fdot;
    for (int k = 0; k < len; k++) {
        const qss_q *qc = q + cols[k];
        double slope = qc->c[1];
        f += c[k] * (qc->c[0] + (t - qc->tq) * slope);
        slope_sum += c[k] * slope;
    }
    *fdot = slope_sum;
    return f;
}

/* linear_sum_of with the grids' row lengths unrolled (1D 3, 2D 5, 3D 7). */
static inline double linear_sum(const qss_q *restrict q, const int32_t *restrict cols,
                                const double *restrict c, int len, double t, double f,
                                double *fdot) {
    switch (len) {
    case 3:
        return linear_sum_of(q, cols, c, 3, t, f, fdot);
    case 5:
        return linear_sum_of(q, cols, c, 5, t, f, fdot);
    case 7:
        return linear_sum_of(q, cols, c, 7, t, f, fdot);
    default:
        return linear_sum_of(q, cols, c, len, t, f, fdot);
    }
}

/* Order 2, row j of a linear shape (linear_rows.h): f, its slope along q
 * and its Jacobian row from the shape's b and c, and own_term. */
static double linear_row(qss_engine *e, int32_t j, double t, uint16_t sh) {
    int32_t base;
    int len = 0;
    const int32_t *restrict cols = eng_row(e, j, &len, &base);
    const double *restrict c = e->linear.coef + e->shapes.start[sh];
    const qss_q *restrict q = e->q + base;
    int own = e->shapes.own[sh];
    double fdot = 0.0;
    double f = linear_sum(q, cols, c, len, t, e->linear.constant[sh], &fdot);
    const qss_q *qo = q + cols[own];
    double dg = 0.0, slope = qo->c[1];
    f += e->p->own_term(e->p->data, model_gid(e->m, j), qo->c[0] + (t - qo->tq) * slope, &dg);
    fdot += dg * slope;
    e->x[j].c[2] = 0.5 * fdot;
    e->x[j].c[3] = 0.0;
    if (e->entry) {
        double *entry = e->entry + eng_entry_pos(e, j, 0);
        for (int k = 0; k < len; k++)
            entry[k] = c[k];
        entry[own] += dg;
    } else if (e->has_diag) {
        e->x[j].diag = c[own] + dg;
    }
    return f;
}

/* A derivative that is not finite stops the run. */
static void derivative_failed(qss_engine *e, int32_t j, double t, double f) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    eng_fail(e,
             "state %lld (rank %d): derivative is %g at t=%.17g (method %s); the solution "
             "blew up or the problem is undefined there",
             (long long)model_gid(e->m, j), rank, f, t, e->method->name);
}

void eng_eval_derivs(qss_engine *e, int32_t j, double t) {
    /* (linear shapes are found only where the rows are fused: eng_alloc) */
    uint16_t sh = e->linear.linear ? e->shapes.row[j] : 0;
    if (e->linear.linear && e->linear.linear[sh]) {
        e->stats->row_evals++;
        e->stats->jac_rows++;
        double f = linear_row(e, j, t, sh);
        if (!isfinite(f)) {
            derivative_failed(e, j, t, f);
            return;
        }
        e->x[j].c[1] = f;
        return;
    }
    int fused = fused_rows(e);
    int len = gather_row(e, j, t);
    double f;
    if (fused) {
        e->stats->row_evals++;
        e->stats->jac_rows++;
        f = model_rhs_jac(e->m, j, t, e->vals, e->dfdv, e->listed);
    } else {
        f = eval_rhs(e, j, t, e->vals);
    }
    if (!isfinite(f)) {
        derivative_failed(e, j, t, f);
        return;
    }
    e->x[j].c[1] = f;
    e->x[j].c[2] = 0.0;
    e->x[j].c[3] = 0.0;
    if (e->order < 2) {
        if (e->analytic_jac && e->entry) {
            e->stats->jac_rows++;
            model_jac(e->m, j, t, e->vals, e->dfdv, e->listed);
            store_estimates(e, j, len);
        }
        return;
    }
    if (fused) {
        /* exact: d f_j / dt = sum_k df/dv_k * dq_k/dt */
        double fdot = 0.0;
        for (int k = 0; k < len; k++)
            fdot += e->dfdv[k] * e->slopes[k];
        e->x[j].c[2] = 0.5 * fdot;
        store_estimates(e, j, len);
        return;
    }
    double scale = eng_time_scale(e, e->m->row_col + e->m->row_ptr[j], e->vals, e->slopes,
                                  e->order >= 3 ? e->curv : NULL, len, t);
    if (!isfinite(scale)) return; /* inputs constant in time: f is constant */
    double tau = (e->order == 2 ? 6e-6 : 1e-4) * scale;
    double fp = rhs_along(e, j, t, tau, len);
    double fm = rhs_along(e, j, t, -tau, len);
    e->x[j].c[2] = 0.5 * (fp - fm) / (2.0 * tau);
    if (e->order >= 3) e->x[j].c[3] = (fp - 2.0 * f + fm) / (tau * tau) / 6.0;
    if (e->analytic_jac && e->entry) {
        e->stats->jac_rows++;
        model_jac(e->m, j, t, e->vals, e->dfdv, e->listed);
        store_estimates(e, j, len);
    }
}

/* ---- next times -------------------------------------------------------- */

/* difference_at at order 2 (x quadratic, q linear), inlined where every
 * reader of an event is scheduled. */
static inline __attribute__((always_inline)) void difference2_at(const qss_engine *e, int32_t j,
                                                                 double t, double *d) {
    double hx = t - e->x[j].tx, hq = t - e->q[j].tq;
    double a0 = e->x[j].c[0], a1 = e->x[j].c[1], a2 = e->x[j].c[2];
    d[0] = (a0 + hx * (a1 + hx * a2)) - (e->q[j].c[0] + hq * e->q[j].c[1]);
    d[1] = (a1 + 2.0 * hx * a2) - e->q[j].c[1];
    d[2] = a2;
    d[3] = 0.0;
}

/* Coefficients of x_j(t + s) - q_j(t + s) in s. */
static void difference_at(const qss_engine *e, int32_t j, double t, double *d) {
    if (e->order == 2) {
        difference2_at(e, j, t, d);
        return;
    }
    double hx = t - e->x[j].tx, hq = t - e->q[j].tq;
    double a0 = e->x[j].c[0], a1 = e->x[j].c[1], a2 = e->x[j].c[2], a3 = e->x[j].c[3];
    double b0 = e->q[j].c[0], b1 = e->q[j].c[1], b2 = e->q[j].c[2];
    d[0] = (a0 + hx * (a1 + hx * (a2 + hx * a3))) - (b0 + hq * (b1 + hq * b2));
    d[1] = (a1 + hx * (2.0 * a2 + 3.0 * hx * a3)) - (b1 + 2.0 * hq * b2);
    d[2] = (a2 + 3.0 * hx * a3) - b2;
    d[3] = a3;
}

/* A next time s after t that is infinite although x moves: x - q has no
 * term that grows (x's top coefficient exactly 0 at the re-evaluation, as
 * u' = -(1 + t) u at t = 0, where df/dt and f_u f cancel), so x is q itself
 * and nothing would move a state that reads only itself again. The event
 * comes instead when x has moved one quantum; there eng_unseen_cap sees
 * what the polynomial left out. */
static inline double unless_frozen(const qss_engine *e, int32_t j, double t, double s) {
    if (!isinf(s)) return s;
    double slope = eng_xdot_at(e, j, t);
    if (slope == 0.0) return s;
    return fmax(e->x[j].dq / fabs(slope), shortest_interval(e));
}

/* The interval s to j's next event, no longer than unless_frozen allows
 * and than x_j's polynomial may age (age_limit, counted from tx). */
static inline double next_interval(const qss_engine *e, int32_t j, double t, double s) {
    s = unless_frozen(e, j, t, s);
    if (e->order < 2) return s;
    double room = e->x[j].tx + age_limit(e, j) - t;
    return room < s ? (room > 0.0 ? room : 0.0) : s;
}

void eng_schedule_qss(qss_engine *e, int32_t j, double t) {
    double d[4];
    difference_at(e, j, t, d);
    double s = poly_first_exit(d, e->order, e->x[j].dq);
    heap_update(&e->heap, j, t + next_interval(e, j, t, s));
}

/* How far x may move from q, in quanta, before a second-order state has its
 * next event. The thesis (and ALGORITHMS.md 2.4) lets |q - x| reach 2 dQ;
 * qmol, as the public QSS Solver's LIQSS2, fires as soon as x leaves the
 * distance dQ at which the choice put q (a hair more, so that the choice
 * itself, at exactly dQ, is not an exit). With 2 dQ, when q still met x
 * tangentially (liqss.c: CROSS_REACH), a near miss of the meeting let q's
 * slope carry it past the equilibrium while x drifted a second quantum,
 * and every state behind adr1d's front cycled so forever (N = 10000,
 * tol = abstol = 1e-3: 4.3e7 events, 1,300 per unit time per state after
 * the front had passed). The hair matters too: each exit moves q by about
 * it, and on a grid whose couplings almost cancel the diagonal (adr1d
 * N = 20000) that move starts the neighbours' exits: LIQSS2 events there
 * with 1.3, 1.1, 1.01, 1.001, 1.0001: 2.1e8, 1.1e8, 2.6e7, 4.6e6, 2.6e6
 * (N = 1000: 34,750 .. 30,680; adr2d 100 x 100 within 5%). */
#define AWAY_LIMIT2 (1.0001 * eng_exit_quanta(2))

/* Order 2: the exit only. The choice aims q - x through 0 to a turn inside
 * the quantum (liqss.c: CROSS_REACH), so x meeting q is no reason for an
 * event. Keeping the meeting event (within 0.003 dQ) for the states whose q
 * is an equilibrium or a pair step's changed adr1d N = 1000 LIQSS2 by 14
 * events in 25,779, mLIQSS2 by 9 in 24,317 (a reach of 0.9). Where the
 * states settle to an equilibrium they now do so where an exit left x, up
 * to a quantum from q: offdiag-stiff LIQSS2 e_rr 1.6e-5 -> 9.2e-4 (the
 * same with a tangential q, CROSS_REACH 0), unless their own relaxation
 * puts x on q at the equilibrium's event (liqss2_settle). */
static void schedule_liqss2(qss_engine *e, int32_t j, double t) {
    double d[4];
    difference2_at(e, j, t, d);
    double next = poly2_first_exit(d[0], d[1], d[2], AWAY_LIMIT2 * e->x[j].dq);
    if (eng_settled(e, j)) next = fmin(next, liqss2_settled_exit(e, j, t, d));
    heap_update(&e->heap, j, t + next_interval(e, j, t, next));
}

void eng_schedule_liqss(qss_engine *e, int32_t j, double t) {
    if (e->order == 2) {
        schedule_liqss2(e, j, t);
        return;
    }
    double d[4];
    difference_at(e, j, t, d);
    double meet = poly_min_positive_root(d, e->order);
    double away = poly_first_exit(d, e->order, eng_exit_quanta(e->order) * e->x[j].dq);
    heap_update(&e->heap, j, t + next_interval(e, j, t, meet < away ? meet : away));
}

void eng_free(qss_engine *e) {
    if (e->method && e->method->destroy) e->method->destroy(e);
    if (e->disc) {
        discrete_free(e->disc);
        free(e->disc);
        e->disc = NULL;
    }
    free(e->disc_vars);
    e->disc_vars = NULL;
    free(e->x);
    free(e->q);
    free(e->entry);
    free(e->io_column);
    free(e->vals);
    free(e->vals2);
    free(e->slopes);
    free(e->curv);
    free(e->dfdv);
    free(e->saved);
    free(e->saved2);
    free(e->listed);
    free(e->boundary);
    free(e->changed);
    free(e->stale);
    free(e->stale_area);
    free(e->change_slot);
    row_shapes_free(&e->shapes);
    linear_rows_free(&e->linear);
    heap_free(&e->heap);
}

/* Above this size of the q records an event prefetches (eng_prefetch_deps,
 * eng_prefetch_next; qss_run.c). LIQSS2 on adr2d, wall_integrate, median
 * of 5 runs in turns: at 1000 x 1000 (32 MB of q; tf 0.5) 3.42 s with the
 * inputs' q's prefetched against 3.85 s without; at 316 x 316 (3.2 MB)
 * even; at 100 x 100 (0.3 MB, in cache) the prefetches of the inputs were
 * 236 of an event's 4,850 instructions, and those of the dependents'
 * records and the next event's 205 of 3,240 (callgrind, 2026-12-01; best
 * of 5, three times in turns: 3.64-3.74 M events per second with them,
 * 3.71-3.88 without). */
#define PREFETCH_INPUTS_BYTES ((size_t)2 << 20)

int eng_alloc(qss_engine *e) {
    size_t n = (size_t)e->n_cols;
    e->shortest = UNSEEN_FLOOR * fabs(e->tf - e->o->t0);
    e->prefetch_inputs = n * sizeof *e->q > PREFETCH_INPUTS_BYTES;
    int ok = 1;
    /* one record a cache line */
    ok &= (e->x = big_alloc(n, sizeof *e->x, 0)) != NULL;
    if (e->x) {
        memset(e->x, 0, (n ? n : 1) * sizeof *e->x);
        for (size_t i = 0; i < n; i++)
            e->x[i].checked_age = INFINITY;
    }
    ok &= (e->q = big_alloc(n, sizeof *e->q, 1)) != NULL;
    size_t row = (size_t)e->m->max_row + 1;
    ok &= (e->vals = malloc(row * sizeof(double))) != NULL;
    ok &= (e->vals2 = malloc(row * sizeof(double))) != NULL;
    ok &= (e->slopes = malloc(row * sizeof(double))) != NULL;
    ok &= (e->curv = malloc(row * sizeof(double))) != NULL;
    ok &= (e->dfdv = malloc(row * sizeof(double))) != NULL;
    ok &= (e->listed = malloc((model_scratch_size(e->m) + 1) * sizeof(double))) != NULL;
    int32_t max_deps = 0;
    for (int32_t i = 0; i < e->n_cols; i++) {
        int32_t d = (int32_t)(e->m->dep_ptr[i + 1] - e->m->dep_ptr[i]);
        if (d > max_deps) max_deps = d;
    }
    e->max_deps = max_deps;
    ok &= (e->saved = malloc(((size_t)max_deps + 1) * sizeof(double))) != NULL;
    ok &= (e->saved2 = malloc(((size_t)max_deps + 1) * sizeof(double))) != NULL;
    ok &= heap_init(&e->heap, e->n) == 0;
    /* (1: shapes not worth it, the CSR serves) */
    if (ok) ok &= row_shapes_build(&e->shapes, e->m) >= 0;
    e->prefetch_row_start = !e->shapes.row;
    /* (only where the rows would be read from them: order 2 with the
     * problem's Jacobian) */
    if (ok && fused_rows(e)) ok &= linear_rows_build(&e->linear, &e->shapes, e->m) == 0;
    return ok ? 0 : -1;
}

int eng_alloc_estimates(qss_engine *e) {
    /* by row slot where that costs at most a quarter more than the CSR's
     * entries (adr2d: the edges' shorter rows, 0.1% more) */
    const model *m = e->m;
    int64_t slots = (int64_t)e->n * m->max_row;
    e->entry_stride = e->shapes.row && slots <= m->nnz + m->nnz / 4 ? m->max_row : 0;
    e->prefetch_row_start = !e->shapes.row || !e->entry_stride || !fused_rows(e);
    int64_t len = e->entry_stride ? slots : m->nnz;
    e->entry = big_alloc((size_t)len, sizeof *e->entry, 1);
    return e->entry ? 0 : -1;
}

/* q = x at t0 (ghosts too, from the problem); slopes (and curvatures) of q
 * from the initial derivatives, sent to the ghosts after each pass. */
void eng_initial_state(qss_engine *e) {
    const qmol_problem *p = e->p;
    double t0 = e->o->t0;
    for (int32_t i = 0; i < e->n_cols; i++) {
        double x0 = initial_value(e->o->start, p, model_gid(e->m, i));
        e->x[i].c[0] = x0;
        e->q[i].c[0] = x0;
        e->x[i].tx = e->q[i].tq = t0;
        eng_update_quantum(e, i);
    }
    /* every rank makes every pass: the exchanges are collective */
    for (int pass = 0; pass < e->order; pass++) {
        for (int32_t j = 0; j < e->n && !e->failed; j++)
            eng_eval_derivs(e, j, t0);
        if (pass + 1 < e->order) {
            for (int32_t j = 0; j < e->n; j++) {
                e->q[j].c[1] = e->x[j].c[1];
                if (pass >= 1) e->q[j].c[2] = e->x[j].c[2];
            }
            if (e->halo) {
                halo_exchange_strided(e->halo, &e->q[0].c[1], QSS_Q_DOUBLES);
                if (pass >= 1) halo_exchange_strided(e->halo, &e->q[0].c[2], QSS_Q_DOUBLES);
            }
        }
    }
}
