/* mixed_run.c: the mixed QSS / CVODE-BDF method (thesis chapter 7,
 * ALGORITHMS.md section 3).
 *
 * The states are split by o->assignment into a QSS block (any QSS method)
 * and a BDF block (one CVODE instance over all ranks' BDF states); see
 * mixed_internal.h for how their models are numbered.
 *
 *  - The BDF step [t_k, T] is the synchronization window. QSS runs first:
 *    its events up to T read a BDF state as its Taylor polynomial about t_k,
 *    of the order of q (value, and the slope f_b at t_k for second-order
 *    methods).
 *  - CVODE then catches up to T exactly; its right-hand side reads a QSS
 *    state as q itself over the window (COUPLING_HISTORY: every q of the
 *    window is logged), as the line from q(t_k) to q(T) (COUPLING_INTERP) or
 *    as q(t_k) (COUPLING_SAMPLE).
 *  - At T the BDF states' polynomials are renewed from y(T), f(T) and the QSS
 *    rows reading them re-evaluated.
 *  - T is t_k plus the step CVODE proposes, cut at sample times, by the
 *    extrapolation limit and the view drift controller below and, for
 *    interp and sample, by the thesis's
 *    step limit (Eq. 7.35) whenever a QSS state the BDF block reads changes
 *    inside the window.
 *
 * On several ranks each rank owns a share of each block. CVODE's vector is
 * distributed; its right-hand side takes the other ranks' states (BDF values,
 * QSS q at the time asked) through the layout's halo, each owner filling in
 * its own. The QSS block exchanges changed boundary q's over its halo at
 * window ends as a pure QSS run does; BDF values and slopes at T go to the
 * QSS readers on other ranks through the layout's halo. Windows are agreed:
 * every rank's extrapolation limit, the next discontinuity any rank knows
 * of and the window controller of pure QSS runs (docs/parallel.md "Window
 * length"), which judges the QSS block's late updates after its events and
 * before CVODE moves, so that a rejected window is run again from the undo
 * log; with discontinuities (no undo) the window watch caps windows too.
 * See docs/methods.md.
 */
#include "comm/agree.h"
#include "core/initial.h"
#include "qss/discrete.h"
#include "mixed/mixed_internal.h"
#include "mixed/view_control.h"
#include "core/progress.h"
#include "qss/qss_journal.h"
#include "core/wallclock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first window, as a fraction of the run (CVODE has no step yet). */
#define FIRST_WINDOW 1e-6

/* ---- coupling ------------------------------------------------------------ */

/* Export k's q as the BDF block sees it at t inside [tk, T]. */
static double export_value(const mixed *x, int32_t k, double t) {
    if (x->coupling == COUPLING_HISTORY) return qh_value(&x->history, x->history_last[k], t);
    double q0 = x->q_start[k];
    if (x->coupling == COUPLING_SAMPLE) return q0;
    double span = x->T - x->tk, frac = span > 0.0 ? (t - x->tk) / span : 1.0;
    frac = fmin(fmax(frac, 0.0), 1.0);
    return q0 + (eng_q_at(&x->e, x->export_q[k], x->T) - q0) * frac;
}

enum { INPUTS_COUPLED, INPUTS_CURRENT, INPUTS_PRODUCT };

/* The BDF block's inputs at t into v: the owned BDF values y and the
 * exports' values go into the layout's array, whose ghosts the halo fills
 * (collective), then each input is read off it. CURRENT: the exports' q at t
 * (window ends); PRODUCT: y is a Jacobian product's vector, exports are 0. */
static void fill_inputs(mixed *x, double t, const double *y, int mode, double *v) {
    double *lay = x->lay_vals;
    for (int32_t b = 0; b < x->nb; b++)
        lay[x->lay_b[b]] = y[b];
    for (int32_t k = 0; k < x->nexports; k++) {
        int32_t i = x->export_q[k];
        lay[x->lay_q[i]] = mode == INPUTS_PRODUCT   ? 0.0
                           : mode == INPUTS_CURRENT ? eng_q_at(&x->e, i, t)
                                                    : export_value(x, k, t);
    }
    if (x->halo) {
        double w0 = wallclock_seconds();
        halo_exchange((halo_plan *)x->halo, lay);
        x->e.stats->wall_exchange += wallclock_seconds() - w0;
        x->exchanges++;
    }
    for (int32_t k = 0; k < x->ninputs; k++)
        v[k] = lay[x->input_lay[k]];
}

void mixed_bdf_inputs(void *ctx, double t, const double *y, int product, double *v) {
    fill_inputs(ctx, t, y, product ? INPUTS_PRODUCT : INPUTS_COUPLED, v);
}

/* Integral of the polynomial c (about tq, degree <= 2) over [a, b]. */
static double integral(const double *c, double tq, double a, double b) {
    double ha = a - tq, hb = b - tq;
    return c[0] * (hb - ha) + c[1] * (hb * hb - ha * ha) / 2.0 +
           c[2] * (hb * hb * hb - ha * ha * ha) / 3.0;
}

/* An exported QSS state changed at t (old: its previous q). History: logged.
 * interp, sample: the thesis's step limit (Eq. 7.35). Linearized, the BDF
 * state p reading input i drifts from the truth by A_pi [D1 (t' - t) + D2]
 * at t' > t; the window ends before that reaches E = reltol |y_p| +
 * abstol_p. */
void mixed_on_export_change(qss_engine *e, int32_t i, double t, const double *old, double old_tq) {
    mixed *x = e->driver;
    int32_t k = x->export_of[i];
    if (x->coupling == COUPLING_HISTORY) { /* the BDF block sees q exactly */
        if (qh_push(&x->history, &x->history_last[k], t, e->q[i].c) != 0)
            eng_fail(e, "out of memory for the QSS inputs' history");
        return;
    }
    x->q_integral[k] += integral(old, old_tq, x->q_upto[k], t);
    x->q_upto[k] = t;
    const double *jac = x->bdf ? cvode_block_jacobian(x->bdf) : NULL;
    if (!jac) return;
    double dt = t - x->tk, qs = x->q_start[k], qj = e->q[i].c[0], qdot = e->q[i].c[1];
    double d1, d2;
    if (x->coupling == COUPLING_SAMPLE) {
        d1 = qs - qj;
        d2 = qs * dt - x->q_integral[k];
    } else { /* the interpolation the BDF block sees, thesis Eq. 7.34 */
        d1 = 0.5 * (qs - qj + qdot * dt);
        d2 = 0.5 * (qs + qj) * dt - x->q_integral[k];
    }
    double hmax = INFINITY;
    for (int64_t r = x->reader_ptr[k]; r < x->reader_ptr[k + 1]; r++) {
        int32_t p = x->reader_row[r];
        double a = jac[x->reader_entry[r]];
        double E = x->o->reltol * fabs(x->y[p]) + x->abstol_b[p];
        double a1 = fabs(a * d1), a2 = fabs(a * d2);
        double h = a2 >= E ? dt : a1 > 0.0 ? dt + (E - a2) / a1 : INFINITY;
        if (h < hmax) hmax = h;
    }
    double end = fmax(x->tk + hmax, t);
    if (end < e->events_until && end > x->tk) {
        e->events_until = end;
        if (!x->limited) e->stats->step_limits++; /* windows cut, not cuts */
        x->limited = 1;
    }
}

/* ---- window ends ----------------------------------------------------------- */

/* The BDF states as the QSS block sees them from t on, from y(t) and the
 * slopes f_b(t, y, q(t)) of the rows QSS may read (collective on several
 * ranks: the other ranks' values come through the layout's halo): y + y' s
 * to the order of q (constant for first-order methods; QSS3 gets no
 * curvature). The curvature of the extrapolation limit is the slopes' change
 * since anchor_t, measured again once at least `span` has passed. A
 * q that jumps by dq makes f_b jump by A dq: over a window much shorter than
 * CVODE's step (several ranks, cut by the QSS window watch) that read as a
 * curvature A dq / dt, the limit shortened the windows further and vardiff
 * on 2 ranks took 9990 windows instead of 26; CVODE's dense output y'' is no
 * such ratio but left buck-heatsink's rod error 2x larger (tol 1e-3: 5.8 K
 * vs 2.1 K). span: the window as CVODE, the extrapolation limit, samples and
 * discontinuities would have had it (one rank: the window). */
static void renew_bdf_columns(mixed *x, double t, double span, int measure_drift) {
    qss_engine *e = &x->e;
    const model *mb = &x->mb;
    double *w = x->bdf_work;
    if (x->nb > 0) memcpy(w, x->y, (size_t)x->nb * sizeof *w);
    /* this also leaves every BDF value at t, owned or another rank's, in
     * lay_vals */
    fill_inputs(x, t, x->y, INPUTS_CURRENT, w + x->nb);
    for (int32_t s = 0; s < x->nslope_rows; s++) {
        int32_t b = x->slope_rows[s];
        model_gather(mb, b, w, x->vals);
        x->ydot[b] = model_rhs(mb, b, t, x->vals, x->listed);
        e->stats->row_evals++;
    }
    for (int32_t b = 0; b < x->nb; b++)
        x->lay_slope[x->lay_b[b]] = x->ydot[b];
    if (x->halo) {
        double w0 = wallclock_seconds();
        halo_exchange((halo_plan *)x->halo, x->lay_slope);
        e->stats->wall_exchange += wallclock_seconds() - w0;
        x->exchanges++;
    }
    int measure = t - x->anchor_t >= span;
    x->view_drift = 0.0;
    double W = t - x->tk;
    for (int32_t c = x->first_bdf_col; c < x->mq.n_cols; c++) {
        int32_t k = c - x->first_bdf_col, L = x->bdf_col_lay[k];
        double value = x->lay_vals[L], slope = x->lay_slope[L];
        if (measure_drift) { /* the old view at t against the truth */
            double d1 = value - eng_q_at(e, c, t), r = fabs(d1) / e->x[c].dq;
            if (r > x->view_drift) x->view_drift = r;
            x->view_area[c - x->nq] = 0.5 * W * d1; /* (measure_readers) */
        }
        if (measure) {
            if (t > x->anchor_t) x->col_curv[k] = (slope - x->col_anchor[k]) / (t - x->anchor_t);
            x->col_anchor[k] = slope;
        }
        x->col_slope[k] = slope;
        e->q[c].c[0] = value;
        if (e->order >= 2) e->q[c].c[1] = slope;
        e->x[c].c[0] = value;
        e->q[c].tq = e->x[c].tx = t;
        e->x[c].dq = eng_quantum(e, c, value);
    }
    if (measure) x->anchor_t = t;
}

/* The longest window over which the QSS block's view of the BDF states it
 * reads stays close to the truth (view_extrapolation_limit). CVODE sizes
 * its steps for its own error, not for this extrapolation: without the
 * limit heat1d's error under mixed QSS2 stopped shrinking with the
 * tolerance (2.0e-3 at 1e-3, 9.5e-4 at 1e-4) and under QSS1 reached 20
 * tol. This rank's columns only. */
static double extrapolation_limit(const mixed *x) {
    const qss_engine *e = &x->e;
    double h = INFINITY;
    for (int32_t c = x->first_bdf_col; c < x->mq.n_cols; c++) {
        int32_t k = c - x->first_bdf_col;
        double lim =
            view_extrapolation_limit(e->order, e->x[c].dq, x->col_slope[k], x->col_curv[k]);
        if (lim < h) h = lim;
    }
    return h;
}

static void control_view(mixed *x, double length, double planned) {
    double r = x->coupling == COUPLING_HISTORY ? x->view_drift : 0.0;
    double p = x->e.order >= 2 ? 2.0 : 1.0;
    double factor = view_drift_factor(r, p);
    /* (the readers' drift grows as the view's times the window) */
    double rr = x->read_drift; /* (0 under the other couplings) */
    if (rr > 0.0) factor = fmin(factor, view_drift_factor(rr, p + 1.0));
    if (rr > r) r = rr;
    double next = view_next_window(length, factor);
    if (length < planned && r <= 1.0) next = fmax(next, fmin(x->view_window, planned));
    x->view_window = next;
}

/* A new window from tk: the exports' starting values and integrals. */
static void start_window(mixed *x, double tk) {
    x->tk = tk;
    x->limited = 0;
    x->history.n = 0;
    for (int32_t k = 0; k < x->nexports && x->coupling == COUPLING_HISTORY; k++) {
        int32_t i = x->export_q[k];
        x->history_last[k] = -1;
        double q[3] = {eng_q_at(&x->e, i, tk), eng_qdot_at(&x->e, i, tk), x->e.q[i].c[2]};
        if (qh_push(&x->history, &x->history_last[k], tk, q) != 0)
            eng_fail(&x->e, "out of memory for the QSS inputs' history");
    }
    for (int32_t k = 0; k < x->nexports; k++) {
        x->q_start[k] = eng_q_at(&x->e, x->export_q[k], tk);
        x->q_integral[k] = 0.0;
        x->q_upto[k] = tk;
    }
}

/* Every owned state at T into buf: QSS rows from their x, BDF rows from
 * y(T), in the layout's order (global ids on one rank); the QSS rows' event
 * counts into o->activity. */
static void owned_at(mixed *x, double T, double *buf) {
    if (x->o->activity) /* the QSS rows' events so far, in the layout's order */
        for (int32_t j = 0; j < x->nq; j++)
            x->o->activity[x->lay_q[j]] = x->e.activity[j];
    for (int32_t j = 0; j < x->nq; j++)
        buf[x->lay_q[j]] = eng_x_at(&x->e, j, T);
    for (int32_t b = 0; b < x->nb; b++)
        buf[x->lay_b[b]] = x->y[b];
}

static int emit(mixed *x, int64_t k, double T, double *buf, sample_fn sample, void *ctx) {
    double w0 = wallclock_seconds();
    owned_at(x, T, buf);
    int rc = sample(ctx, k, T, buf);
    x->e.stats->wall_output += wallclock_seconds() - w0;
    return rc;
}

/* integrator_state's states (a checkpoint is written: the event counts go
 * with them) and stats (the BDF block's counters so far, as add_bdf_stats
 * adds them at the end). A mixed run saves no more than the discontinuities
 * (checkpoint_save): a restart starts both blocks anew from the states, as
 * at t0. */
static void checkpoint_states(void *ictx, double t, double *x) {
    owned_at(ictx, t, x);
}

static int add_bdf_stats(mixed *x, qmol_stats *stats, char *err, size_t errlen);

/* integrator_state's save, and a restart's load: the discontinuities' state
 * (a time event due at the window end waits there for the next window). */
static int checkpoint_save(void *ictx, state_io *io) {
    mixed *x = ictx;
    return discrete_state_io(&x->e, x->distributed ? x->comm : MPI_COMM_SELF, io);
}

static void checkpoint_stats(void *ictx, qmol_stats *s) {
    char err[256];
    add_bdf_stats(ictx, s, err, sizeof err);
}

/* The readers' drift of the window [x->tk, T] (x->read_drift, control_view;
 * history coupling): for each QSS row reading a BDF state, how far f would
 * have moved its x with the truth in place of the view (its own response
 * left out: a stiff row would relax part of it), in its quanta, the
 * largest. That is f's change along the area between the truth and the
 * view over the window (view_area, trapezoidal: exact where the view's
 * error grows linearly, 1.5 times it where quadratically), as for stale
 * ghosts between ranks (qssx_window), bounded here by the sum over the
 * row's BDF columns of |df / dcolumn| |area|, the partials measured (a
 * secant over the column's quantum) every READ_REFRESH windows and after
 * windows whose handlers ran: measured at every window, diurnal (`--bdf
 * "c==0"`, tol 1e-4: every QSS row reads a BDF state, 7,900 windows) took
 * 0.75-1.03 s against 0.52-0.76 s. A partial that is not finite keeps its
 * last value. The view's own drift, within a quantum of the BDF state,
 * says nothing of this where a stiff row reads it: heat1d N = 1000 (1 / h^2
 * = 1e6), `--bdf "x>0.5"`, tol 1e-3, one rank, mLIQSS2, 10 samples: views
 * within 0.06 to 0.4 of a quantum moved the interface's reader by 100 to
 * 700 of its quanta a window, one-signed (a linear view of a decaying,
 * convex y lies below it): heat left the rod there, and e_rr was 6.6e-3
 * (1.7e-2 with `--precond jacobi`; CVODE alone 2.0e-3, mLIQSS2 alone
 * 4.5e-4). Windows capped at 1e-4 kept the readers within 0.6 quanta and
 * e_rr at 4.8e-4; held to a quantum by the controller, 5.3e-4 and 8.6e-4.
 * Moving the readers' x by that change instead (qssx_window's correction)
 * made it worse, 1.5e-2: a stiff reader does not keep what it is given,
 * and the views then overshot window after window. */
#define READ_REFRESH 16

static void measure_readers(mixed *x, double T) {
    qss_engine *e = &x->e;
    double *unit = x->unit_area;
    x->read_drift = 0.0;
    if (x->coupling != COUPLING_HISTORY) return;
    if (e->disc && e->disc->handled != x->read_handled) { /* rows may have changed */
        x->read_handled = e->disc->handled;
        x->read_age = 0;
    }
    if (x->read_age-- <= 0) {
        x->read_age = READ_REFRESH - 1;
        for (int32_t r = 0; r < x->nbdf_readers && !e->failed; r++)
            for (int64_t k = x->read_ptr[r]; k < x->read_ptr[r + 1]; k++) {
                int32_t c = x->read_col[k] - x->nq;
                unit[c] = 1.0;
                double s = fabs(eng_stale_drift(e, x->bdf_readers[r], T, unit));
                unit[c] = 0.0;
                if (isfinite(s)) x->read_sens[k] = s;
            }
    }
    for (int32_t r = 0; r < x->nbdf_readers; r++) {
        double dx = 0.0;
        for (int64_t k = x->read_ptr[r]; k < x->read_ptr[r + 1]; k++)
            dx += x->read_sens[k] * fabs(x->view_area[x->read_col[k] - x->nq]);
        double drift = dx / e->x[x->bdf_readers[r]].dq;
        if (drift > x->read_drift && isfinite(drift)) x->read_drift = drift;
    }
}

/* CVODE to T, then the BDF states' new polynomials and their QSS readers
 * (collective on several ranks). */
static int catch_up(mixed *x, double T, double span, char *err, size_t errlen) {
    if (cvode_block_advance(x->bdf, T, err, errlen)) return -1;
    x->y = cvode_block_state(x->bdf);
    renew_bdf_columns(x, T, span, 1);
    measure_readers(x, T);
    for (int32_t r = 0; r < x->nbdf_readers && !x->e.failed; r++)
        eng_input_changed(&x->e, x->bdf_readers[r], T);
    return 0;
}

/* ---- the run ------------------------------------------------------------- */

/* Several ranks, before a window: its length h (CVODE's proposal on entry)
 * and the next discontinuity, agreed; h_free: the length without the window
 * controller (x->W, set by window_agree after each window) and the window
 * watch. Returns -1 when a rank failed (every rank stops). */
static int agree_window(mixed *x, double *h, double *h_free, double *t_discrete, int *extrap) {
    qss_engine *e = &x->e;
    double watch = x->use_watch ? WINDOW_FRACTION * watch_scale(e, &x->watch) : INFINITY;
    double v[4] = {fmin(extrapolation_limit(x), x->view_window), watch, e->failed ? -1.0 : 0.0,
                   discrete_next_time(e)};
    double wt = wallclock_seconds();
    MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_DOUBLE, MPI_MIN, x->comm);
    e->stats->wall_wait += wallclock_seconds() - wt;
    if (v[2] < 0.0) return -1;
    double cap = x->o->window > 0.0 ? x->o->window : fmin(x->W, fmax(v[1], x->ctl.wmin));
    *extrap = v[0] < *h;
    *h_free = fmin(*h, v[0]);
    *h = fmin(*h_free, cap);
    *t_discrete = v[3];
    return 0;
}

/* The end of a window of length h from T: cut at the sample time ts (no
 * sliver before it) and at the next discontinuity. */
static double window_stop_time(double T, double h, double ts, double t_discrete) {
    double T_end = T + h;
    if (!(T_end < ts - 1e-9 * h)) T_end = ts;
    if (t_discrete > T && t_discrete < T_end) T_end = t_discrete;
    return T_end;
}

/* Several ranks, after the window's exchanges at T: the discontinuities due
 * at T, handled by every rank; CVODE restarts when a handler changed BDF
 * rows anywhere. Returns 0 or -1 with err. */
static int window_discontinuities(mixed *x, double T, char *err, size_t errlen) {
    discrete *d = x->e.disc;
    if (!d || !d->collective) return 0; /* none, or one rank handles them in its loop */
    discrete_at_window_end(&x->e, T);
    int restart = d->handled_at == T;
    MPI_Allreduce(MPI_IN_PLACE, &restart, 1, MPI_INT, MPI_MAX, x->comm);
    return restart ? cvode_block_reinit(x->bdf, T, err, errlen) : 0;
}

/* The next window's length h from T (CVODE's next step, or a first guess),
 * bounded by the extrapolation limit, and h_free without the step limit;
 * several ranks agree on it and on the next discrete event (t_discrete).
 * Returns 0, or -1 (a rank failed). */
static int window_length(mixed *x, double T, double *h, double *h_free, double *t_discrete) {
    const integrator_options *o = x->o;
    qss_engine *e = &x->e;
    *h = cvode_block_next_step(x->bdf);
    if (!(*h > 0.0)) *h = FIRST_WINDOW * (o->tf - o->t0);
    int extrap = 0;
    *h_free = *h;
    if (x->distributed) {
        if (agree_window(x, h, h_free, t_discrete, &extrap)) return -1;
    } else {
        double h_ext = fmin(extrapolation_limit(x), x->view_window);
        extrap = h_ext < *h;
        *h = *h_free = fmin(*h, h_ext);
        if (o->progress && progress_due(o->progress))
            progress_local(o->progress, T, e->stats->events, *h);
    }
    if (extrap && x->rank == 0) e->stats->extrap_limits++;
    return 0;
}

/* Several ranks, at T_end: the QSS block's window-end exchange and the
 * agreed verdict on its window [T, T_end), judged before CVODE moves (a
 * rejected one is put back and run again shorter, CVODE never having left
 * T). Returns window_agree's verdict. */
static int qss_window_verdict(mixed *x, double T, double T_end) {
    qss_engine *e = &x->e;
    double wx = wallclock_seconds();
    if (qssx_window(e, &x->qx, T_end) != 0)
        eng_fail(e, "out of memory for the window-end exchange");
    e->stats->wall_exchange += wallclock_seconds() - wx;
    int report = 0;
    int verdict = window_agree(&x->ctl, e, x->qx.drift, INFINITY, T_end - T, &x->W, NULL, &report);
    if (report)
        progress_collect(x->o->progress, T_end, e->stats->events, e->stats->wall_wait, x->W);
    return verdict;
}

static int run(mixed *x, sample_fn sample, void *ctx, double *buf, char *err, size_t errlen) {
    const integrator_options *o = x->o;
    qss_engine *e = &x->e;
    double T = o->t0, last_t = o->t0;
    uint64_t same_time = 0;
    int64_t next_k = o->first_sample > 0 ? o->first_sample : 1;
    integrator_state state = {
        checkpoint_states, checkpoint_save, checkpoint_stats, x, 0, 0.0, 0, NULL};
    if (o->resume && checkpoint_save(x, o->resume)) {
        snprintf(err, errlen, "%s", o->resume->why ? o->resume->why : "cannot load the checkpoint");
        return -1;
    }
    while (next_k <= o->samples) {
        double ts = sample_at(o, next_k);
        double h, h_free, t_discrete = INFINITY;
        if (window_length(x, T, &h, &h_free, &t_discrete)) return -1;
        double T_end = window_stop_time(T, h, ts, t_discrete);
        double free_end = window_stop_time(T, h_free, ts, t_discrete);
        start_window(x, T);
        x->T = T_end;
        e->window_start = T;
        window_mark mark = {last_t, same_time, e->stats->events};
        journal_begin(e);
        eng_run_events(e, T_end, x->use_watch ? &x->watch : NULL, &last_t, &same_time);
        if (e->failed && !x->distributed) return -1;
        /* one rank: a handler at the window start changed BDF rows, so
         * CVODE restarts (several ranks handle them at window ends) */
        if (!x->distributed && e->disc && e->disc->handled_at == T &&
            cvode_block_reinit(x->bdf, T, err, errlen))
            return -1;
        if (e->events_until < T_end) free_end = e->events_until; /* the step limit (one rank) */
        T_end = e->events_until;
        x->T = T_end;
        e->stats->windows++;
        if (x->distributed) {
            int verdict = qss_window_verdict(x, T, T_end);
            if (verdict < 0) return -1;
            if (verdict == WINDOW_REJECTED) {
                e->stats->windows--; /* counted above, before the verdict */
                journal_take_back(e, &mark, &last_t, &same_time, &e->stats->windows_rejected);
                continue;
            }
            journal_accept(e);
        }
        if (catch_up(x, T_end, free_end - T, err, errlen)) return -1;
        control_view(x, T_end - T, h);
        if (x->distributed && window_discontinuities(x, T_end, err, errlen)) return -1;
        if (x->distributed) discrete_share(e); /* (before a checkpoint or a probe) */
        if (e->failed && !x->distributed) return -1;
        T = T_end;
        if (T == ts) {
            int rc = emit(x, next_k, ts, buf, sample, ctx);
            if (rc) return sample_stopped(err, errlen, next_k, ts, rc);
            next_k++;
        }
        state.failed = e->failed;
        int rc = next_k <= o->samples && o->at_window_end
                     ? o->at_window_end(o->window_ctx, T, &state)
                     : 0;
        if (rc) return rc;
    }
    return 0;
}

/* The starting state: the BDF columns' polynomials from x0 (the QSS q's are
 * x0 until eng_initial_state, which keeps the BDF columns' slopes), then the
 * QSS block's q's and the first Jacobian for the step limit. */
static void start(mixed *x) {
    const qmol_problem *p = x->m->problem;
    const integrator_options *o = x->o;
    for (int32_t b = 0; b < x->nb; b++)
        x->y0[b] = initial_value(o->start, p, x->gid_b[b]);
    for (int32_t j = 0; j < x->nq; j++) {
        x->e.q[j].c[0] = initial_value(o->start, p, x->gid_q[j]), x->e.q[j].tq = o->t0;
        x->e.q[j].c[1] = x->e.q[j].c[2] = 0.0;
    }
    for (int32_t j = 0; o->activity && x->e.activity && j < x->nq; j++)
        x->e.activity[j] = o->activity[x->lay_q[j]]; /* a resumed run's counts so far */
    x->y = x->y0;
    x->T = o->t0;
    start_window(x, o->t0);
    x->anchor_t = o->t0;
    renew_bdf_columns(x, o->t0, 0.0, 0);
    x->view_window = INFINITY;
    eng_initial_state(&x->e);
    if (!x->e.failed && x->e.method->init(&x->e) != 0 && !x->e.failed)
        eng_fail(&x->e, "out of memory allocating %s storage", x->e.method->name);
    if (!x->e.failed && x->e.disc) discrete_start(&x->e, o->t0);
    x->e.nchanged = 0; /* the initial q's are everywhere already */
    for (int32_t i = 0; x->e.boundary && i < x->nq; i++)
        if (x->e.boundary[i]) x->e.boundary[i] = BOUNDARY_QUIET;
    if (x->distributed) {
        /* the window controller starts from the shortest window; a window
         * can be run again when the journal holds all it changes (the
         * discontinuities' too: discrete_undo.h); without, the window watch
         * bounds windows beforehand, as in pure QSS runs */
        double wmin, wmax;
        window_bounds(o, &wmin, &wmax);
        x->ctl = (window_control){.adaptive = !(o->window > 0.0),
                                  .wmin = wmin,
                                  .wmax = wmax,
                                  .target = MIXED_DRIFT_TARGET,
                                  .reject = MIXED_DRIFT_REJECT};
        x->W = wmin;
        int undo = journal_setup_agreed(&x->journal, &x->e, x->ctl.adaptive, x->comm);
        x->use_watch = x->ctl.adaptive && (!undo || problem_has_discontinuities(x->e.p));
    }
    if (x->use_watch) watch_start(&x->watch, &x->e, o->t0);
    start_window(x, o->t0);
    /* the step limit needs A_pi before CVODE's first Jacobian (collective) */
    if (cvode_block_eval_jacobian(x->bdf, o->t0, x->y) != 0 && !x->e.failed)
        eng_fail(&x->e, "mixed: the BDF block's Jacobian at t0 is not finite");
}

/* Adds the BDF block's counters: the solver's (global) on rank 0 only. */
static int add_bdf_stats(mixed *x, qmol_stats *stats, char *err, size_t errlen) {
    qmol_stats s;
    memset(&s, 0, sizeof s);
    if (cvode_block_add_stats(x->bdf, &s, 0, err, errlen)) return -1;
    stats->row_evals += s.row_evals;
    stats->jac_rows += s.jac_rows;
    if (x->rank == 0) stats_add_solver(stats, &s);
    const halo_plan *h = x->halo;
    if (h) { /* each layout exchange sends the same lists */
        uint64_t dests = 0;
        for (int d = 0; d < h->ndests; d++)
            dests += h->send_ptr[d + 1] > h->send_ptr[d];
        stats->messages += x->exchanges * dests;
        stats->bytes_sent += x->exchanges * (uint64_t)h->send_ptr[h->ndests] * sizeof(double);
    }
    return 0;
}

int mixed_integrate(const model *m, const integrator_options *o, sample_fn sample, void *ctx,
                    qmol_stats *stats, char *err, size_t errlen) {
    double w0 = wallclock_seconds();
    if (errlen) err[0] = '\0';
    mixed x;
    memset(&x, 0, sizeof x);
    double *buf = malloc(((size_t)m->n + 1) * sizeof *buf);
    int rc = buf ? mixed_setup(&x, m, o, stats, err, errlen) : -1;
    if (!buf) snprintf(err, errlen, "out of memory for the sample buffer");
    if (rc == 0) {
        start(&x);
        stats->wall_setup += wallclock_seconds() - w0;
        double w1 = wallclock_seconds(), out0 = stats->wall_output;
        rc = x.e.failed && !x.distributed ? -1 : run(&x, sample, ctx, buf, err, errlen);
        stats->wall_integrate += wallclock_seconds() - w1 - (stats->wall_output - out0);
        char serr[512] = "";
        if (add_bdf_stats(&x, stats, serr, sizeof serr) && rc == 0) {
            snprintf(err, errlen, "%s", serr);
            rc = -1;
        }
    }
    if (rc == 0 && o->activity && x.e.activity) /* the QSS rows' events, in the layout's order */
        for (int32_t j = 0; j < x.nq; j++)
            o->activity[x.lay_q[j]] = x.e.activity[j];
    /* the engine's message (a QSS failure) wins over a generic one */
    if (x.e.failed) rc = -1;
    /* a stop is agreed already (at_window_end is collective) */
    if (x.distributed && rc != INTEGRATOR_STOPPED)
        rc = comm_agree(x.comm, rc ? -1 : 0, err, errlen);
    mixed_free(&x);
    free(buf);
    return rc;
}
