/* mixed_run.c: the mixed QSS / CVODE-BDF method (thesis chapter 7,
 * ALGORITHMS.md section 3).
 *
 * The states are split by o->assignment into a QSS block (any QSS method)
 * and a BDF block (one CVODE instance). Each block is a local model: its rows
 * are its own states, and the states of the other block that its rows read
 * are extra columns, fed from outside:
 *
 *  - The BDF step [t_k, T] is the synchronization window. QSS runs first:
 *    its events up to T read a BDF state as its Taylor polynomial about t_k,
 *    of the order of q (value, and slope from CVODE's dense output for
 *    second-order methods).
 *  - CVODE then catches up to T exactly; its right-hand side reads a QSS
 *    state as the line from q(t_k) to q(T) (COUPLING_INTERP) or as q(t_k)
 *    (COUPLING_SAMPLE).
 *  - At T the BDF states' polynomials are renewed from y(T), y'(T) and the
 *    QSS rows reading them re-evaluated (input_changed).
 *  - T is t_k plus the step CVODE proposes, cut at sample times, and cut
 *    further by the thesis's step limit (Eq. 7.35) whenever a QSS state the
 *    BDF block reads changes inside the window: the BDF sees the change only
 *    through the interpolation, and the limit bounds the error that costs.
 *
 * Runs on one rank (the distributed form is future work, docs/methods.md).
 */
#include "assign.h"
#include "cvode_block.h"
#include "discrete.h"
#include "qss_engine.h"
#include "sorted_ids.h"
#include "wallclock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first window, as a fraction of the run (CVODE has no step yet). */
#define FIRST_WINDOW 1e-6

typedef struct mixed {
    qss_engine e; /* the QSS block (first: the engine points back through driver) */
    const integrator_options *o;
    model mq, mb;           /* QSS and BDF block models */
    int64_t *gid_q, *gid_b; /* their columns' global ids */
    int32_t nq, nb;         /* rows of each */
    int32_t *ghost_b;       /* QSS columns nq.. (BDF states): their BDF row */
    int32_t *input_q;       /* BDF columns nb.. (QSS states): their QSS row */
    int32_t ninputs;
    int32_t *input_of; /* QSS row -> input index, -1 if the BDF block does not read it */
    unsigned char *watched;
    /* per input: q at the window start, the integral of q since then up to
     * q_upto (thesis Q_i), and the BDF rows reading it with their entries */
    double *q_start, *q_integral, *q_upto;
    int64_t *reader_ptr, *reader_entry;
    int32_t *reader_row;
    int32_t *bdf_readers, nbdf_readers; /* QSS rows reading a BDF state */
    /* COUPLING_HISTORY: every q of the inputs during the window, newest last;
     * an entry's polynomial holds from its time to the next entry of the
     * same input (prev links them backwards) */
    struct q_piece {
        double t, c[3];
        int32_t prev;
    } * history;
    int32_t nhistory, history_cap;
    int32_t *history_last; /* per input: its newest piece */
    cvode_block *bdf;
    const double *y;    /* BDF states at the window start (CVODE's vector) */
    double *y0;         /* the initial values, before CVODE exists */
    double *ydot;       /* derivatives of the BDF states the QSS block reads */
    double *ghost_curv; /* per such state: second derivative, from successive slopes */
    double slopes_t;    /* when ydot was last computed */
    double *vals;       /* scratch of the longest BDF row */
    double *abstol_b;   /* BDF states' absolute tolerances */
    double tk, T;       /* the window */
    int limited;        /* the step limit has cut this window */
    int coupling;
} mixed;

/* ---- coupling ------------------------------------------------------------ */

/* The BDF block's inputs at t inside [tk, T]. */
static void bdf_inputs(void *ctx, double t, double *v) {
    mixed *x = ctx;
    const qss_engine *e = &x->e;
    double span = x->T - x->tk, frac = span > 0.0 ? (t - x->tk) / span : 1.0;
    if (frac < 0.0) frac = 0.0;
    if (frac > 1.0) frac = 1.0;
    if (x->coupling == COUPLING_HISTORY) {
        for (int32_t k = 0; k < x->ninputs; k++) {
            int32_t p = x->history_last[k];
            while (x->history[p].t > t && x->history[p].prev >= 0)
                p = x->history[p].prev;
            const struct q_piece *q = &x->history[p];
            double h = t - q->t;
            v[k] = q->c[0] + h * (q->c[1] + h * q->c[2]);
        }
        return;
    }
    for (int32_t k = 0; k < x->ninputs; k++) {
        double q0 = x->q_start[k];
        v[k] = x->coupling == COUPLING_SAMPLE ? q0
                                              : q0 + (eng_q_at(e, x->input_q[k], x->T) - q0) * frac;
    }
}

/* Appends input k's polynomial from t (coefficients about t). Returns 0 or
 * -1 (out of memory). */
static int history_push(mixed *x, int32_t k, double t, double c0, double c1, double c2) {
    if (x->nhistory == x->history_cap) {
        int32_t cap = x->history_cap ? 2 * x->history_cap : 1024;
        struct q_piece *grown = realloc(x->history, (size_t)cap * sizeof *grown);
        if (!grown) return -1;
        x->history = grown;
        x->history_cap = cap;
    }
    struct q_piece *q = &x->history[x->nhistory];
    q->t = t;
    q->c[0] = c0, q->c[1] = c1, q->c[2] = c2;
    q->prev = x->history_last[k];
    x->history_last[k] = x->nhistory++;
    return 0;
}

/* Integral of the polynomial c (about tq, degree <= 2) over [a, b]. */
static double integral(const double *c, double tq, double a, double b) {
    double ha = a - tq, hb = b - tq;
    return c[0] * (hb - ha) + c[1] * (hb * hb - ha * ha) / 2.0 +
           c[2] * (hb * hb * hb - ha * ha * ha) / 3.0;
}

/* A QSS state the BDF block reads changed at t (old: its previous q): the
 * thesis's step limit (Eq. 7.35). Linearized, the BDF state p reading input
 * i drifts from the truth by A_pi [D1 (t' - t) + D2] at t' > t; the window
 * ends before that reaches E = reltol |y_p| + abstol_p. */
static void on_input_change(qss_engine *e, int32_t i, double t, const double *old, double old_tq) {
    mixed *x = e->driver;
    int32_t k = x->input_of[i];
    if (x->coupling == COUPLING_HISTORY) { /* the BDF block sees q exactly */
        if (history_push(x, k, t, e->qc[0][i], e->qc[1][i], e->qc[2][i]) != 0)
            eng_fail(e, "out of memory for the QSS inputs' history");
        return;
    }
    x->q_integral[k] += integral(old, old_tq, x->q_upto[k], t);
    x->q_upto[k] = t;
    const double *jac = x->bdf ? cvode_block_jacobian(x->bdf) : NULL;
    if (!jac) return;
    double dt = t - x->tk, qs = x->q_start[k], qj = e->qc[0][i], qdot = e->qc[1][i];
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
    if (end < e->window_end && end > x->tk) {
        e->window_end = end;
        if (!x->limited) e->stats->step_limits++; /* windows cut, not cuts */
        x->limited = 1;
    }
}

/* ---- set-up -------------------------------------------------------------- */

static void mixed_free(mixed *x) {
    eng_free(&x->e);
    if (x->bdf) cvode_block_close(x->bdf);
    model_free(&x->mq);
    model_free(&x->mb);
    free(x->gid_q), free(x->gid_b), free(x->ghost_b), free(x->input_q), free(x->input_of);
    free(x->history), free(x->history_last);
    free(x->watched), free(x->q_start), free(x->q_integral), free(x->q_upto);
    free(x->reader_ptr), free(x->reader_entry), free(x->reader_row), free(x->bdf_readers);
    free(x->y0), free(x->ydot), free(x->ghost_curv), free(x->vals), free(x->abstol_b);
}

/* gid[0 .. own) = the rows of `kind`, then the other block's states they
 * read (ascending). Returns the column count, or -1 (out of memory). */
static int32_t block_columns(const model *m, const unsigned char *method, unsigned char kind,
                             int64_t **gid_out, int32_t *own) {
    unsigned char *read = calloc((size_t)m->n + 1, 1);
    int64_t *gid = malloc(((size_t)m->n + 1) * sizeof *gid);
    if (!read || !gid) {
        free(read), free(gid);
        return -1;
    }
    int32_t count = 0;
    for (int32_t j = 0; j < m->n; j++) {
        if (method[j] != kind) continue;
        gid[count++] = model_gid(m, j);
        for (int64_t e = m->row_ptr[j]; e < m->row_ptr[j + 1]; e++)
            if (method[m->row_col[e]] != kind) read[m->row_col[e]] = 1;
    }
    *own = count;
    for (int32_t j = 0; j < m->n; j++)
        if (read[j]) gid[count++] = model_gid(m, j);
    free(read);
    *gid_out = gid;
    return count;
}

/* A handler may affect BDF rows: they restart at its time (run below). */
static int is_bdf_state(void *ctx, int64_t gid) {
    const mixed *x = ctx;
    return ids_find(x->gid_b, x->nb, gid) >= 0;
}

/* The couplings: which columns of each block are rows of the other, the BDF
 * readers of every input, the QSS readers of the BDF states. */
static int build_coupling(mixed *x) {
    int32_t ng = x->mq.n_cols - x->nq;
    x->ninputs = x->mb.n_cols - x->nb;
    x->ghost_b = malloc(((size_t)ng + 1) * sizeof *x->ghost_b);
    x->input_q = malloc(((size_t)x->ninputs + 1) * sizeof *x->input_q);
    x->input_of = malloc(((size_t)x->nq + 1) * sizeof *x->input_of);
    x->watched = calloc((size_t)x->nq + 1, 1);
    size_t ni = (size_t)x->ninputs + 1;
    x->q_start = calloc(ni, sizeof(double));
    x->q_integral = calloc(ni, sizeof(double));
    x->q_upto = calloc(ni, sizeof(double));
    x->reader_ptr = calloc(ni + 1, sizeof *x->reader_ptr);
    x->history_last = malloc(ni * sizeof *x->history_last);
    x->bdf_readers = malloc(((size_t)x->nq + 1) * sizeof *x->bdf_readers);
    size_t nb = (size_t)x->nb + 1;
    x->y0 = calloc(nb, sizeof(double));
    x->ydot = calloc(nb, sizeof(double));
    x->vals = malloc(((size_t)x->mb.max_row + 1) * sizeof(double));
    x->abstol_b = calloc(nb, sizeof(double));
    x->ghost_curv = calloc((size_t)ng + 1, sizeof(double));
    x->y = x->y0;
    if (!x->ghost_curv || !x->history_last || !x->ghost_b || !x->input_q || !x->input_of ||
        !x->watched || !x->q_start || !x->q_integral || !x->q_upto || !x->reader_ptr ||
        !x->bdf_readers || !x->y0 || !x->ydot || !x->vals || !x->abstol_b)
        return -1;
    for (int32_t c = 0; c < ng; c++)
        x->ghost_b[c] = ids_find(x->gid_b, x->nb, x->gid_q[x->nq + c]);
    for (int32_t j = 0; j < x->nq; j++)
        x->input_of[j] = -1;
    for (int32_t k = 0; k < x->ninputs; k++) {
        int32_t i = ids_find(x->gid_q, x->nq, x->gid_b[x->nb + k]);
        x->input_q[k] = i;
        x->input_of[i] = k;
        x->watched[i] = WATCH_BDF;
    }
    /* readers of input k: the BDF dependents of column nb + k */
    const model *mb = &x->mb;
    for (int32_t k = 0; k < x->ninputs; k++)
        x->reader_ptr[k + 1] =
            x->reader_ptr[k] + (mb->dep_ptr[x->nb + k + 1] - mb->dep_ptr[x->nb + k]);
    size_t nr = (size_t)x->reader_ptr[x->ninputs] + 1;
    x->reader_row = malloc(nr * sizeof *x->reader_row);
    x->reader_entry = malloc(nr * sizeof *x->reader_entry);
    if (!x->reader_row || !x->reader_entry) return -1;
    for (int32_t k = 0; k < x->ninputs; k++) {
        int64_t d0 = mb->dep_ptr[x->nb + k], r0 = x->reader_ptr[k];
        for (int64_t d = d0; d < mb->dep_ptr[x->nb + k + 1]; d++) {
            x->reader_row[r0 + d - d0] = mb->dep_row[d];
            x->reader_entry[r0 + d - d0] = mb->dep_entry[d];
        }
    }
    const model *mq = &x->mq;
    x->nbdf_readers = 0;
    for (int32_t j = 0; j < x->nq; j++) {
        int reads = 0;
        for (int64_t e = mq->row_ptr[j]; e < mq->row_ptr[j + 1]; e++)
            reads |= mq->row_col[e] >= x->nq;
        if (reads) x->bdf_readers[x->nbdf_readers++] = j;
    }
    const qmol_problem *p = mb->problem;
    for (int32_t b = 0; b < x->nb; b++) {
        double scale = p->abstol_scale ? p->abstol_scale(p->data, x->gid_b[b]) : 1.0;
        x->abstol_b[b] = x->o->abstol * scale;
    }
    return 0;
}

/* f_b(t, y, q(t)) for the BDF states the QSS block reads: their slopes as
 * QSS sees them from t on (the derivative at the step's end, where CVODE's
 * dense output would only interpolate it). */
static void bdf_slopes(mixed *x, double t) {
    const model *mb = &x->mb;
    const qmol_problem *p = mb->problem;
    for (int32_t c = x->nq; c < x->mq.n_cols; c++) {
        int32_t b = x->ghost_b[c - x->nq];
        int64_t start = mb->row_ptr[b];
        for (int64_t e = start; e < mb->row_ptr[b + 1]; e++) {
            int32_t col = mb->row_col[e];
            x->vals[e - start] =
                col < x->nb ? x->y[col] : eng_q_at(&x->e, x->input_q[col - x->nb], t);
        }
        double slope = p->rhs(p->data, x->gid_b[b], t, x->vals);
        x->e.stats->rhs_evals++;
        if (t > x->slopes_t) x->ghost_curv[c - x->nq] = (slope - x->ydot[b]) / (t - x->slopes_t);
        x->ydot[b] = slope;
    }
    x->slopes_t = t;
}

/* The longest window over which the QSS block's view of the BDF states it
 * reads, their Taylor polynomial about the window start, stays within one
 * quantum of the truth: dQ / |y'| for a constant view (first-order methods),
 * sqrt(2 dQ / |y''|) for a linear one. CVODE sizes its steps for its own
 * error, not for this extrapolation: without the limit heat1d's error under
 * mixed QSS2 stopped shrinking with the tolerance (2.0e-3 at 1e-3, 9.5e-4 at
 * 1e-4) and under QSS1 reached 20 tol. */
static double extrapolation_limit(const mixed *x) {
    const qss_engine *e = &x->e;
    double h = INFINITY;
    for (int32_t c = x->nq; c < x->mq.n_cols; c++) {
        double dq = e->dq[c], lim;
        if (e->order == 1) {
            double v = fabs(x->ydot[x->ghost_b[c - x->nq]]);
            lim = v > 0.0 ? dq / v : INFINITY;
        } else {
            double a = fabs(x->ghost_curv[c - x->nq]);
            lim = a > 0.0 ? sqrt(2.0 * dq / a) : INFINITY;
        }
        if (lim < h) h = lim;
    }
    return h;
}

/* The BDF states as the QSS block sees them from t on: y + y' s to the order
 * of q (constant for first-order methods; QSS3 gets no curvature). */
static void set_bdf_polynomials(mixed *x, double t) {
    qss_engine *e = &x->e;
    for (int32_t c = x->nq; c < x->mq.n_cols; c++) {
        int32_t b = x->ghost_b[c - x->nq];
        e->qc[0][c] = x->y[b];
        if (e->order >= 2) e->qc[1][c] = x->ydot[b];
        e->xc[0][c] = x->y[b];
        e->tq[c] = e->tx[c] = t;
        e->dq[c] = eng_quantum(e, c, x->y[b]);
    }
}

/* A new window from tk: the inputs' starting values and integrals. */
static void start_window(mixed *x, double tk) {
    x->tk = tk;
    x->limited = 0;
    x->nhistory = 0;
    for (int32_t k = 0; k < x->ninputs && x->coupling == COUPLING_HISTORY; k++) {
        int32_t i = x->input_q[k];
        x->history_last[k] = -1;
        if (history_push(x, k, tk, eng_q_at(&x->e, i, tk), eng_qdot_at(&x->e, i, tk),
                         x->e.qc[2][i]) != 0)
            eng_fail(&x->e, "out of memory for the QSS inputs' history");
    }
    for (int32_t k = 0; k < x->ninputs; k++) {
        x->q_start[k] = eng_q_at(&x->e, x->input_q[k], tk);
        x->q_integral[k] = 0.0;
        x->q_upto[k] = tk;
    }
}

static int setup(mixed *x, const model *m, const integrator_options *o, qmol_stats *stats,
                 char *err, size_t errlen) {
    const qss_method *method = qss_method_of(o->qss_method);
    if (!method) {
        snprintf(err, errlen, "mixed: the QSS block's method %s is not a QSS method",
                 method_name(o->qss_method));
        return -1;
    }
    if (o->halo || m->n_cols != m->n) {
        snprintf(err, errlen,
                 "the mixed method runs on one rank (distributed mixed runs are "
                 "not implemented yet)");
        return -1;
    }
    if (!o->assignment) {
        snprintf(err, errlen, "mixed: no QSS/BDF assignment given");
        return -1;
    }
    x->o = o;
    x->coupling = o->coupling;
    int32_t cq = block_columns(m, o->assignment, ASSIGN_QSS, &x->gid_q, &x->nq);
    int32_t cb = block_columns(m, o->assignment, ASSIGN_BDF, &x->gid_b, &x->nb);
    if (cq < 0 || cb < 0) {
        snprintf(err, errlen, "out of memory splitting the states");
        return -1;
    }
    if (x->nq == 0 || x->nb == 0) {
        snprintf(err, errlen,
                 "mixed: all %lld states went to %s (--bdf, --bdf-file or --assign auto "
                 "must give each block at least one state; use --method %s for a pure run)",
                 (long long)m->n, x->nq ? "QSS" : "BDF", x->nq ? "mliqss2" : "cvode");
        return -1;
    }
    if (model_build_local(&x->mq, m->problem, x->gid_q, x->nq, cq, err, errlen) ||
        model_build_local(&x->mb, m->problem, x->gid_b, x->nb, cb, err, errlen))
        return -1;
    if (eng_setup(&x->e, &x->mq, o, method, stats, err, errlen) || build_coupling(x)) {
        snprintf(err, errlen, "out of memory for the mixed method's storage");
        return -1;
    }
    x->e.driver = x;
    x->e.watched_q = x->watched;
    x->e.on_q_change = on_input_change;
    if (discrete_attach(&x->e, x->watched, is_bdf_state, x) != 0) return -1;
    cvode_inputs in = {.first = x->nb, .values = bdf_inputs, .ctx = x};
    x->bdf = cvode_block_open(&x->mb, o, &in, err, errlen);
    return x->bdf ? 0 : -1;
}

/* ---- the run ------------------------------------------------------------- */

/* The sample at T: QSS rows from their x, BDF rows from y(T). */
static int emit(mixed *x, int64_t k, double T, double *buf, sample_fn sample, void *ctx) {
    double w0 = wallclock_seconds();
    for (int32_t j = 0; j < x->nq; j++)
        buf[x->gid_q[j]] = eng_x_at(&x->e, j, T);
    for (int32_t b = 0; b < x->nb; b++)
        buf[x->gid_b[b]] = x->y[b];
    int rc = sample(ctx, k, T, buf);
    x->e.stats->wall_output += wallclock_seconds() - w0;
    return rc;
}

/* CVODE to T, then the BDF states' new polynomials and their QSS readers. */
static int catch_up(mixed *x, double T, char *err, size_t errlen) {
    if (cvode_block_advance(x->bdf, T, err, errlen)) return -1;
    x->y = cvode_block_state(x->bdf);
    bdf_slopes(x, T);
    set_bdf_polynomials(x, T);
    for (int32_t r = 0; r < x->nbdf_readers && !x->e.failed; r++)
        x->e.method->input_changed(&x->e, x->bdf_readers[r], T);
    return 0;
}

static int run(mixed *x, sample_fn sample, void *ctx, double *buf, char *err, size_t errlen) {
    const integrator_options *o = x->o;
    qss_engine *e = &x->e;
    double span = o->tf - o->t0, T = o->t0, last_t = o->t0;
    uint64_t same_time = 0;
    int64_t next_k = 1;
    while (next_k <= o->samples) {
        double ts = sample_time(o->t0, o->tf, next_k, o->samples);
        double h = cvode_block_next_step(x->bdf);
        if (!(h > 0.0)) h = FIRST_WINDOW * span;
        double h_ext = extrapolation_limit(x);
        if (h_ext < h) {
            h = h_ext;
            e->stats->extrap_limits++;
        }
        double T_end = T + h;
        if (!(T_end < ts - 1e-9 * h)) T_end = ts; /* no sliver before a sample */
        start_window(x, T);
        x->T = T_end;
        e->window_start = T;
        eng_run_events(e, T_end, NULL, &last_t, &same_time);
        if (e->failed) return -1;
        /* a handler at the window start changed BDF rows: CVODE restarts */
        if (e->disc && e->disc->handled_at == T && cvode_block_reinit(x->bdf, T, err, errlen))
            return -1;
        T_end = e->window_end; /* the step limit may have cut it */
        x->T = T_end;
        e->stats->windows++;
        if (catch_up(x, T_end, err, errlen)) return -1;
        if (e->failed) return -1;
        T = T_end;
        if (T == ts) {
            int rc = emit(x, next_k, ts, buf, sample, ctx);
            if (rc) {
                snprintf(err, errlen, "sample %lld at t=%.17g stopped the run (code %d)",
                         (long long)next_k, ts, rc);
                return rc;
            }
            next_k++;
        }
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
    int rc = buf ? setup(&x, m, o, stats, err, errlen) : -1;
    if (!buf) snprintf(err, errlen, "out of memory for the sample buffer");
    if (rc == 0) {
        /* the QSS block's q are x0 until eng_initial_state: the slopes of
         * the BDF states it reads come from x0 alone */
        for (int32_t b = 0; b < x.nb; b++)
            x.y0[b] = m->problem->x0(m->problem->data, x.gid_b[b]);
        for (int32_t j = 0; j < x.nq; j++)
            x.e.qc[0][j] = m->problem->x0(m->problem->data, x.gid_q[j]), x.e.tq[j] = o->t0;
        x.slopes_t = o->t0;
        bdf_slopes(&x, o->t0);
        set_bdf_polynomials(&x, o->t0); /* eng_initial_state keeps their slopes */
        eng_initial_state(&x.e);
        if (!x.e.failed && x.e.method->init(&x.e) != 0 && !x.e.failed)
            eng_fail(&x.e, "out of memory allocating %s storage", x.e.method->name);
        if (!x.e.failed && x.e.disc) discrete_start(&x.e, o->t0);
        /* the step limit needs A_pi before CVODE's first Jacobian */
        x.T = o->t0;
        start_window(&x, o->t0);
        if (!x.e.failed && cvode_block_eval_jacobian(x.bdf, o->t0, x.y) != 0 && !x.e.failed)
            eng_fail(&x.e, "mixed: the BDF block's Jacobian at t0 is not finite");
        stats->wall_setup += wallclock_seconds() - w0;
        double w1 = wallclock_seconds(), out0 = stats->wall_output;
        rc = x.e.failed ? -1 : run(&x, sample, ctx, buf, err, errlen);
        stats->wall_integrate += wallclock_seconds() - w1 - (stats->wall_output - out0);
        char serr[512] = "";
        if (cvode_block_add_stats(x.bdf, stats, 0, serr, sizeof serr) && rc == 0) {
            snprintf(err, errlen, "%s", serr);
            rc = -1;
        }
    }
    /* the engine's message (a QSS failure) wins over a generic one */
    if (x.e.failed) rc = -1;
    mixed_free(&x);
    free(buf);
    return rc;
}
