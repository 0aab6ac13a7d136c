/* moving_run.c: the mixed QSS/BDF method with a BDF block that follows the
 * activity (--method moving; issue 20, docs/methods.md "A BDF block whose
 * states move without a restart"). One rank.
 *
 * One QSS engine over every state and one CVODE block over every state
 * (cvode_block_open_active); a state is on one of them at a time (bdf[j]):
 * CVODE integrates the active set, the engine the others (a BDF state is
 * passive in the engine: never handled, its q set here). The coupling is
 * the mixed method's (mixed_run.c) with its history coupling:
 *
 *  - The window [t_k, T]: T = t_k + CVODE's proposed step, cut at samples
 *    and by the view limit (below). QSS runs its events first,
 *    reading a BDF state as its Taylor polynomial about t_k (value, and
 *    slope for methods of order 2); CVODE then integrates to T exactly,
 *    reading a QSS state as its q piece by piece (every change of q of a
 *    state the BDF rows read is logged during the window).
 *  - At T the BDF states that QSS rows read get their polynomial from y(T)
 *    and their row's f(T), and their QSS readers are re-evaluated. The
 *    next window is at most sqrt(2 VIEW_DRIFT dQ / |y''|) over those
 *    states (y'' from the slopes' change), so that the QSS block's view
 *    stays within VIEW_DRIFT of a quantum, as mixed_run.c's extrapolation
 *    limit.
 *  - A plan at the first window end MOVING_PLAN_FRACTION of the span or
 *    more after the last: a state's rate is |f| / dQ (quanta per unit of t
 *    at its slope); the core is where the rate exceeds MOVING_PLAN_RATE /
 *    (MOVING_PLAN_FRACTION span) (a tenth of it for a state already on
 *    BDF), the BDF block the core widened by MOVING_PLAN_MARGIN hops of the
 *    model's rows (moving_plan.h). States that enter the block take
 *    CVODE's history from their x polynomial (value, slope, curvature);
 *    states that leave it take y and f as x and q and go back to the
 *    engine's queue.
 *
 * A checkpoint holds the states only (integrator_state.save NULL, as auto's):
 * a resumed run starts the method anew from them, its first plan at the
 * checkpoint's time, with the rhythm (plans, longest window) of the whole
 * run.
 */
#include "core/initial.h"
#include "core/integrator_registry.h"
#include "core/progress.h"
#include "core/wallclock.h"
#include "cvode/cvode_block.h"
#include "mixed/moving_plan.h"
#include "mixed/q_history.h"
#include "mixed/view_control.h"
#include "qss/qss_engine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_WINDOW 1e-6 /* the first window, as a fraction of the span */
#define MIN_WINDOW 1e-12  /* the shortest window, the same (a time step T can tell from T) */
/* The longest window, as a fraction of the span. With windows as long as
 * CVODE's steps (adr2d 300 x 300, tf 10, tol 1e-3: 499 steps) the set
 * churned, 639,259 states moved into the block and 601,629 back, 3.25 s;
 * capped at 1/128, 1/256, 1/512 of the span 565,564-642,627 moves, 2.9-3.1
 * s; at 1/1024, 1,058 steps, 83,343 moves, 1.1-1.7 s (e_rr 2.5e-4 to
 * 6.0e-4). The QSS states next to the block read it as a Taylor polynomial
 * over the window: over long windows their slopes stray and the plan takes
 * them in, then lets them go. Where no QSS row reads the block (all on
 * BDF, say), nothing strays and CVODE's steps are the windows. */
#define MAX_WINDOW (MOVING_PLAN_FRACTION / 8.0)

typedef struct moving {
    const model *m;
    const integrator_options *o;
    integrator_options oq; /* the QSS block's options (its method) */
    qss_engine e;
    cvode_block *b;
    int32_t n;
    unsigned char *bdf, *want, *watched;
    unsigned char *leaving; /* at a move: 1 where a state goes back to QSS */
    int32_t *front;         /* the plan's core and its widening, in order of hops */
    /* the window's history of the QSS states CVODE reads */
    q_history hist;
    int32_t *last;
    /* BDF states that QSS rows read: their slopes at the last two window
     * ends, and y'' */
    int32_t *view, nview;
    double *slope, *curv;
    double tk, span, view_limit;
    double *cur, *vals, *listed, *f;
} moving;

static void on_q_change(qss_engine *e, int32_t i, double t, const double *old, double old_tq) {
    (void)old, (void)old_tq;
    moving *x = e->driver;
    if (qh_push(&x->hist, &x->last[i], t, e->q[i].c) != 0)
        eng_fail(e, "out of memory for the QSS history");
}

/* CVODE's inputs: the QSS states' q at t, from the window's history. */
static void inactive_values(void *ctx, double t, const int32_t *cols, int32_t ncols, double *v) {
    const moving *x = ctx;
    for (int32_t k = 0; k < ncols; k++) {
        int32_t c = cols[k];
        v[c] = x->last[c] < 0 ? eng_q_at(&x->e, c, t) : qh_value(&x->hist, x->last[c], t);
    }
}

/* A new window from tk: the history starts with each input's q at tk. */
static void start_window(moving *x, double tk) {
    x->tk = tk;
    x->hist.n = 0;
    int32_t nring;
    const int32_t *ring = cvode_block_inputs(x->b, &nring);
    for (int32_t k = 0; k < nring; k++) {
        int32_t c = ring[k];
        x->last[c] = -1;
        double q[3] = {eng_q_at(&x->e, c, tk), eng_qdot_at(&x->e, c, tk), x->e.q[c].c[2]};
        if (qh_push(&x->hist, &x->last[c], tk, q) != 0)
            eng_fail(&x->e, "out of memory for the QSS history");
    }
}

/* The engine watches the q of the states CVODE reads (and only those). */
static void watch_inputs(moving *x) {
    memset(x->watched, 0, (size_t)x->n);
    int32_t nring;
    const int32_t *ring = cvode_block_inputs(x->b, &nring);
    for (int32_t k = 0; k < nring; k++)
        x->watched[ring[k]] = WATCH_BDF;
}

/* The BDF states that QSS rows read (view). */
static void find_views(moving *x) {
    const model *m = x->m;
    x->nview = 0;
    for (int32_t j = 0; j < x->n; j++) {
        if (!x->bdf[j]) continue;
        for (int64_t p = m->dep_ptr[j]; p < m->dep_ptr[j + 1]; p++)
            if (!x->bdf[m->dep_row[p]]) {
                x->view[x->nview++] = j;
                break;
            }
    }
}

/* f_j at t, reading BDF states from y and QSS states' x (use_x) or q. */
static double row_at(moving *x, int32_t j, double t, const double *y, int use_x) {
    const model *m = x->m;
    for (int64_t e = m->row_ptr[j]; e < m->row_ptr[j + 1]; e++) {
        int32_t c = m->row_col[e];
        x->cur[c] = x->bdf[c] ? y[c] : use_x ? eng_x_at(&x->e, c, t) : eng_q_at(&x->e, c, t);
    }
    model_gather(m, j, x->cur, x->vals);
    x->e.stats->row_evals++;
    return model_rhs(m, j, t, x->vals, x->listed);
}

/* At a window end T: the views' polynomials from y(T), f(T), their QSS
 * readers re-evaluated; the view limit of the next window. */
static void renew_views(moving *x, double T, const double *y, int measure) {
    qss_engine *e = &x->e;
    double W = T - x->tk, limit = INFINITY, drift = 0.0;
    for (int32_t k = 0; k < x->nview; k++) {
        int32_t j = x->view[k];
        if (measure) { /* the old view at T against y(T), in quanta */
            double r = fabs(y[j] - eng_q_at(e, j, T)) / e->x[j].dq;
            if (r > drift) drift = r;
        }
        double s = row_at(x, j, T, y, 0);
        if (measure && W > 0.0) x->curv[j] = (s - x->slope[j]) / W;
        x->slope[j] = s;
        e->q[j].c[0] = e->x[j].c[0] = y[j];
        e->q[j].c[1] = e->order >= 2 ? s : 0.0;
        e->q[j].c[2] = 0.0;
        e->x[j].c[1] = s;
        e->x[j].c[2] = e->x[j].c[3] = 0.0;
        e->q[j].tq = e->x[j].tx = T;
        e->x[j].dq = eng_quantum(e, j, y[j]);
        double lim = view_extrapolation_limit(e->order, e->x[j].dq, s, x->curv[j]);
        if (lim < limit) limit = lim;
    }
    for (int32_t k = 0; k < x->nview; k++)
        eng_readers_changed(e, x->view[k], T);
    /* the view drift controller (view_control.h) */
    if (measure && W > 0.0)
        limit =
            fmin(limit, view_next_window(W, view_drift_factor(drift, e->order >= 2 ? 2.0 : 1.0)));
    x->view_limit = limit;
}

/* CVODE's history of state j entering at T: its x polynomial's value,
 * slope and curvature there. */
static void entering_history(void *ctx, int32_t j, double d[3]) {
    const moving *x = ctx;
    const qss_x *r = &x->e.x[j];
    double h = x->tk - r->tx;
    const double *c = r->c;
    d[0] = c[0] + h * (c[1] + h * (c[2] + h * c[3]));
    d[1] = c[1] + h * (2.0 * c[2] + 3.0 * h * c[3]);
    d[2] = 2.0 * c[2] + 6.0 * h * c[3];
}

/* The plan at T (moving_plan.h): the states whose rate at their slope
 * exceeds the threshold, widened by MOVING_PLAN_MARGIN hops, go to BDF; the
 * move. */
static int plan_and_move(moving *x, double T, char *err, size_t errlen) {
    const model *m = x->m;
    qss_engine *e = &x->e;
    const double *y = cvode_block_state(x->b);
    /* slopes: CVODE's dense output on BDF, x's on QSS (values in cur, a
     * scratch: row_at refills what it reads) */
    if (cvode_block_active_count(x->b) > 0 && cvode_block_dky(x->b, T, 1, x->f, err, errlen) != 0)
        return -1;
    for (int32_t j = 0; j < x->n; j++)
        if (x->bdf[j])
            x->cur[j] = y[j];
        else
            x->cur[j] = eng_x_at(e, j, T), x->f[j] = eng_xdot_at(e, j, T);
    moving_plan(m, x->cur, x->f, e->o->reltol, e->o->abstol, x->span, x->bdf, x->want, x->front);
    int changes = 0;
    for (int32_t j = 0; j < x->n && !changes; j++)
        changes = x->want[j] != x->bdf[j];
    if (!changes) return 0;
    /* the window's history is over: the inputs read q itself from here on
     * (the history of the next window starts at start_window) */
    for (int32_t j = 0; j < x->n; j++)
        x->last[j] = -1;
    /* the states that go back to QSS: x = q = y + f (t - T), before the
     * move (from then on the block's vector holds their q as inputs) */
    for (int32_t j = 0; j < x->n; j++) {
        x->leaving[j] = !x->want[j] && x->bdf[j];
        if (!x->leaving[j]) continue;
        qss_x *r = &e->x[j];
        r->c[0] = y[j], r->c[1] = x->f[j], r->c[2] = r->c[3] = 0.0;
        r->tx = T;
        r->dq = eng_quantum(e, j, y[j]);
        r->checked_age = INFINITY;
        e->q[j].c[0] = y[j];
        e->q[j].c[1] = e->order >= 2 ? x->f[j] : 0.0;
        e->q[j].c[2] = 0.0;
        e->q[j].tq = T;
    }
    if (cvode_block_move(x->b, x->want, entering_history, x, err, errlen) != 0) return -1;
    for (int32_t j = 0; j < x->n; j++) {
        if (x->want[j] && !x->bdf[j]) { /* to BDF */
            e->stats->to_bdf++;
            heap_update(&e->heap, j, INFINITY);
            x->slope[j] = eng_xdot_at(e, j, T);
            x->curv[j] = 0.0;
        }
        e->stats->to_qss += x->leaving[j];
        x->bdf[j] = x->want[j];
    }
    /* the QSS states that came back: their derivatives, Jacobian row and
     * schedule, and their readers */
    for (int32_t j = 0; j < x->n; j++)
        if (x->leaving[j]) {
            if (e->analytic_jac) eng_eval_jac_row(e, j, T);
            eng_input_changed(e, j, T);
            eng_readers_changed(e, j, T);
        }
    watch_inputs(x);
    find_views(x);
    return 0;
}

static int emit(moving *x, int64_t k, double T, double *buf, sample_fn sample, void *ctx) {
    double w0 = wallclock_seconds();
    const double *y = cvode_block_state(x->b);
    for (int32_t j = 0; j < x->n; j++)
        buf[j] = x->bdf[j] ? y[j] : eng_x_at(&x->e, j, T);
    if (x->o->activity && x->e.activity)
        memcpy(x->o->activity, x->e.activity, (size_t)x->n * sizeof(double));
    int rc = sample(ctx, k, T, buf);
    x->e.stats->wall_output += wallclock_seconds() - w0;
    return rc;
}

static void states_at(void *ictx, double t, double *out) {
    moving *x = ictx;
    const double *y = cvode_block_state(x->b);
    for (int32_t j = 0; j < x->n; j++)
        out[j] = x->bdf[j] ? y[j] : eng_x_at(&x->e, j, t);
}

static int run(moving *x, sample_fn sample, void *ctx, double *buf, char *err, size_t errlen) {
    const integrator_options *o = x->o;
    qss_engine *e = &x->e;
    double T = o->t0, last_t = o->t0, next_plan = o->t0 + MOVING_PLAN_FRACTION * x->span;
    uint64_t same_time = 0;
    int64_t next_k = o->first_sample > 0 ? o->first_sample : 1;
    integrator_state state = {.states = states_at, .ictx = x};
    while (next_k <= o->samples) {
        double ts = sample_at(o, next_k);
        double h = cvode_block_next_step(x->b);
        if (!(h > 0.0)) h = FIRST_WINDOW * x->span;
        double W = h;
        if (x->view_limit < W) {
            W = x->view_limit;
            e->stats->extrap_limits++;
        }
        if (x->nview > 0) W = fmin(W, MAX_WINDOW * x->span); /* (no views: nothing strays) */
        W = fmax(W, MIN_WINDOW * x->span);
        double T_end = fmin(T + W, ts);
        if (!(T_end > T)) T_end = ts; /* (T + W rounded to T next to ts) */
        start_window(x, T);
        e->window_start = T;
        eng_run_events(e, T_end, NULL, &last_t, &same_time);
        if (e->failed) return -1;
        /* (a stop request, o->stop_requested, ended the QSS events early:
         * the window ends there) */
        T_end = fmin(T_end, e->events_until);
        e->stats->windows++;
        if (T_end > T) {
            if (cvode_block_advance(x->b, T_end, err, errlen) != 0) return -1;
            renew_views(x, T_end, cvode_block_state(x->b), 1);
        }
        T = T_end;
        if (o->progress && progress_due(o->progress))
            progress_local(o->progress, T, e->stats->events, W);
        if (T == ts) {
            int rc = emit(x, next_k, ts, buf, sample, ctx);
            if (rc) return sample_stopped(err, errlen, next_k, ts, rc);
            next_k++;
        }
        if (T >= next_plan && next_k <= o->samples) {
            next_plan = T + MOVING_PLAN_FRACTION * x->span;
            x->tk = T;
            if (plan_and_move(x, T, err, errlen) != 0) return -1;
            renew_views(x, T, cvode_block_state(x->b), 0);
        }
        int rc = next_k <= o->samples && o->at_window_end
                     ? o->at_window_end(o->window_ctx, T, &state)
                     : 0;
        if (rc) return rc;
    }
    return 0;
}

static void moving_free(moving *x) {
    free(x->e.activity);
    eng_free(&x->e);
    if (x->b) cvode_block_close(x->b);
    free(x->bdf), free(x->want), free(x->leaving), free(x->watched), qh_free(&x->hist),
        free(x->last);
    free(x->view), free(x->front), free(x->slope), free(x->curv), free(x->cur), free(x->vals),
        free(x->listed);
    free(x->f);
}

/* What this method does not run (yet): a clear error. */
static int unsupported(const model *m, const integrator_options *o, char *err, size_t errlen) {
    const qmol_problem *p = m->problem;
    const char *why = o->halo ? "runs on one rank only"
                      : p->n_crossings > 0 || p->next_time_event
                          ? "does not handle discontinuities (crossings, time events)"
                          : NULL;
    if (!why) return 0;
    snprintf(err, errlen, "--method moving %s; use --method mixed or auto", why);
    return -1;
}

static int setup(moving *x, const model *m, const integrator_options *o, qmol_stats *stats,
                 char *err, size_t errlen) {
    x->m = m;
    x->o = o;
    x->n = m->n;
    /* (a resumed run keeps the rhythm of the run it resumes) */
    x->span = o->rhythm_span > 0.0 ? o->rhythm_span : o->tf - (o->resume ? o->run_t0 : o->t0);
    x->oq = *o;
    x->oq.method = o->qss_method ? o->qss_method : integrator_by_name("liqss2");
    size_t n = (size_t)m->n + 1;
    x->bdf = calloc(n, 1), x->want = calloc(n, 1), x->leaving = calloc(n, 1);
    x->watched = calloc(n, 1);
    x->last = malloc(n * sizeof *x->last);
    x->view = malloc(n * sizeof *x->view);
    x->front = malloc(n * sizeof *x->front);
    x->slope = calloc(n, sizeof *x->slope), x->curv = calloc(n, sizeof *x->curv);
    x->cur = calloc(n, sizeof *x->cur), x->f = calloc(n, sizeof *x->f);
    x->vals = calloc((size_t)m->max_row + 1, sizeof *x->vals);
    x->listed = calloc(model_scratch_size(m) + 1, sizeof *x->listed);
    if (!x->bdf || !x->want || !x->leaving || !x->watched || !x->last || !x->view || !x->front ||
        !x->slope || !x->curv || !x->cur || !x->f || !x->vals || !x->listed) {
        snprintf(err, errlen, "out of memory for the moving block's storage (n=%d)", (int)m->n);
        return -1;
    }
    for (int32_t j = 0; j < m->n; j++)
        x->last[j] = -1;
    if (eng_setup(&x->e, m, &x->oq, x->oq.method->qss, stats, err, errlen) != 0) {
        snprintf(err, errlen, "out of memory allocating QSS storage for %d states", (int)m->n);
        return -1;
    }
    if (o->activity && !(x->e.activity = calloc(n, sizeof(double)))) {
        snprintf(err, errlen, "out of memory for the event counts");
        return -1;
    }
    x->e.driver = x;
    x->e.passive = x->bdf;
    x->e.watched_q = x->watched;
    x->e.on_q_change = on_q_change;
    cvode_active_inputs in = {inactive_values, x};
    x->b = cvode_block_open_active(m, o, x->bdf, &in, err, errlen); /* none active */
    return x->b ? 0 : -1;
}

/* The start: every state on QSS (its first events measure the activity);
 * the first plan comes after MOVING_PLAN_FRACTION of the span. */
static void start(moving *x) {
    qss_engine *e = &x->e;
    const integrator_options *o = x->o;
    for (int32_t j = 0; j < x->n; j++) {
        e->q[j].c[0] = initial_value(o->start, x->m->problem, model_gid(x->m, j));
        e->q[j].c[1] = e->q[j].c[2] = 0.0;
        e->q[j].tq = o->t0;
    }
    eng_initial_state(e);
    if (!e->failed && e->method->init(e) != 0 && !e->failed)
        eng_fail(e, "out of memory allocating %s storage", e->method->name);
    x->view_limit = INFINITY;
    x->tk = o->t0;
}

/* The first plan, at t0 from the initial slopes: CVODE starts on the states
 * already active (a state that enters later, ahead of the activity, brings
 * a quiet history; one entering where the front already is would bring a
 * made-up one). */
static int first_plan(moving *x, char *err, size_t errlen) {
    if (x->e.failed) return -1;
    if (plan_and_move(x, x->o->t0, err, errlen) != 0) return -1;
    renew_views(x, x->o->t0, cvode_block_state(x->b), 0);
    return 0;
}

int moving_integrate(const model *m, const integrator_options *o, sample_fn sample, void *ctx,
                     qmol_stats *stats, char *err, size_t errlen) {
    double w0 = wallclock_seconds();
    if (errlen) err[0] = '\0';
    if (unsupported(m, o, err, errlen)) return -1;
    moving x;
    memset(&x, 0, sizeof x);
    double *buf = malloc(((size_t)m->n + 1) * sizeof *buf);
    int rc = buf ? setup(&x, m, o, stats, err, errlen) : -1;
    if (!buf) snprintf(err, errlen, "out of memory for the sample buffer");
    if (rc == 0) {
        start(&x);
        rc = first_plan(&x, err, errlen);
        stats->wall_setup += wallclock_seconds() - w0;
        double w1 = wallclock_seconds(), out0 = stats->wall_output;
        if (rc == 0) rc = x.e.failed ? -1 : run(&x, sample, ctx, buf, err, errlen);
        stats->wall_integrate += wallclock_seconds() - w1 - (stats->wall_output - out0);
        qmol_stats s;
        memset(&s, 0, sizeof s);
        char serr[512] = "";
        if (cvode_block_add_stats(x.b, &s, 0, serr, sizeof serr) == 0) {
            stats->row_evals += s.row_evals;
            stats->jac_rows += s.jac_rows;
            stats_add_solver(stats, &s);
        }
    }
    if (rc == 0 && o->activity && x.e.activity)
        memcpy(o->activity, x.e.activity, (size_t)m->n * sizeof(double));
    if (x.e.failed) rc = -1;
    moving_free(&x);
    free(buf);
    return rc;
}
