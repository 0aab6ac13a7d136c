/* discrete.c: zero crossings and time events under the QSS engine
 * (discrete.h). */
#include "qss/discrete.h"

#include "comm/agree.h"
#include "comm/halo.h"
#include "qss/poly2.h"
#include "qss/qss_engine.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Local column of global id g in m, or -1: owned rows ascend; the other
 * columns are searched linearly (a crossing reads few states, set-up only). */
static int32_t column_of(const model *m, int64_t g) {
    if (!m->gid) return g >= 0 && g < m->n_cols ? (int32_t)g : -1;
    int32_t row = model_row_of(m, g);
    if (row >= 0) return row;
    for (int32_t c = m->n; c < m->n_cols; c++)
        if (m->gid[c] == g) return c;
    return -1;
}

void discrete_free(discrete *d) {
    free(d->in_ptr), free(d->in_col), free(d->reader_ptr), free(d->reader), free(d->affected);
    free(d->sign), free(d->mine), free(d->fired), free(d->vals), free(d->vals2), free(d->curv),
        free(d->slopes), free(d->watched_own);
    heap_free(&d->heap);
    discrete_undo_free(d);
    memset(d, 0, sizeof *d);
}

/* The crossings' input lists' pointers (in_ptr) and the per-crossing and
 * scratch storage. Returns 0, or -1 (out of memory). *maxlen: the longest
 * list. */
static int alloc_crossings(discrete *d, const model *m, int *maxlen) {
    const qmol_problem *p = d->p;
    int64_t nc = d->nc, total = 0; /* nc and the sizes checked by discrete_check */
    *maxlen = 0;
    d->in_ptr = calloc((size_t)nc + 1, sizeof *d->in_ptr);
    d->sign = calloc((size_t)nc + 1, 1);
    d->mine = calloc((size_t)nc + 1, 1);
    d->fired = calloc((size_t)nc + 1, sizeof *d->fired);
    if (!d->in_ptr || !d->sign || !d->mine || !d->fired) return -1;
    for (int64_t c = 0; c < nc; c++) {
        int len = p->crossing_size(p->data, c);
        total += len;
        d->in_ptr[c + 1] = total;
        if (len > *maxlen) *maxlen = len;
    }
    size_t longest = (size_t)*maxlen + 1;
    d->in_col = malloc(((size_t)total + 1) * sizeof *d->in_col);
    d->vals = malloc(longest * sizeof *d->vals);
    d->slopes = malloc(longest * sizeof *d->slopes);
    d->vals2 = malloc(longest * sizeof *d->vals2);
    d->curv = malloc(longest * sizeof *d->curv);
    d->reader_ptr = calloc((size_t)m->n_cols + 2, sizeof *d->reader_ptr);
    d->reader = malloc(((size_t)total + 1) * sizeof *d->reader);
    return d->in_col && d->vals && d->slopes && d->vals2 && d->curv && d->reader_ptr && d->reader
               ? 0
               : -1;
}

/* Crossing c's inputs as local columns (in_col; -1 where another rank
 * evaluates it), counted per column in reader_ptr. ids: scratch of the
 * longest list. Returns 0, or -1 with err (an input outside the problem or
 * not read here). */
static int map_inputs(discrete *d, const model *m, int64_t c, int64_t *ids, char *err,
                      size_t errlen) {
    const qmol_problem *p = d->p;
    int len = (int)(d->in_ptr[c + 1] - d->in_ptr[c]);
    if (len > 0) p->crossing_row(p->data, c, ids);
    /* on several ranks the owner of the first input evaluates it */
    int32_t first = len > 0 && ids[0] >= 0 && ids[0] < p->n ? column_of(m, ids[0]) : -1;
    d->mine[c] =
        !d->collective || (len > 0 && first >= 0 && first < m->n) || (len == 0 && d->rank == 0);
    for (int k = 0; k < len; k++) {
        if (ids[k] < 0 || ids[k] >= p->n) {
            snprintf(err, errlen, "crossing function %lld reads state %lld, outside [0, %lld)",
                     (long long)c, (long long)ids[k], (long long)p->n);
            return -1;
        }
        int32_t col = d->mine[c] ? column_of(m, ids[k]) : -1;
        if (!d->mine[c]) {
            d->in_col[d->in_ptr[c] + k] = -1;
            continue;
        }
        if (col < 0 || (!d->collective && col >= m->n)) {
            snprintf(err, errlen,
                     d->collective
                         ? "crossing function %lld reads state %lld, which the rank owning "
                           "its first input does not read: on several ranks a crossing's "
                           "states must be read by rows of that rank"
                         : "crossing function %lld reads state %lld, which this block "
                           "does not integrate (under --method mixed crossings must read "
                           "QSS states)",
                     (long long)c, (long long)ids[k]);
            return -1;
        }
        d->in_col[d->in_ptr[c] + k] = col;
        d->reader_ptr[col + 1]++;
    }
    return 0;
}

/* The crossings each column feeds (reader, from reader_ptr's counts).
 * Returns 0, or -1 (out of memory). */
static int list_readers(discrete *d, const model *m) {
    for (int32_t col = 0; col < m->n_cols; col++)
        d->reader_ptr[col + 1] += d->reader_ptr[col];
    int64_t *fill = malloc(((size_t)m->n_cols + 1) * sizeof *fill);
    if (!fill) return -1;
    memcpy(fill, d->reader_ptr, (size_t)m->n_cols * sizeof *fill);
    for (int64_t c = 0; c < d->nc; c++)
        for (int64_t k = d->in_ptr[c]; k < d->in_ptr[c + 1]; k++)
            if (d->in_col[k] >= 0) d->reader[fill[d->in_col[k]]++] = (int32_t)c;
    free(fill);
    return 0;
}

/* The affected states: rows here, or (mixed) rows of the other block.
 * Returns 0, 1 (out of memory), or -1 with err. */
static int affected_states(discrete *d, const model *m, int (*outside_ok)(void *, int64_t),
                           void *ctx, char *err, size_t errlen) {
    const qmol_problem *p = d->p;
    if (p->n_affected <= 0) return 0;
    int64_t *aff = malloc((size_t)p->n_affected * sizeof *aff);
    d->affected = malloc((size_t)p->n_affected * sizeof *d->affected);
    if (!aff || !d->affected) {
        free(aff);
        return 1;
    }
    p->affected(p->data, aff);
    for (int64_t k = 0; k < p->n_affected; k++) {
        int32_t col = aff[k] >= 0 && aff[k] < p->n ? column_of(m, aff[k]) : -1;
        if (col >= 0 && col < m->n) {
            d->affected[d->naffected++] = col;
        } else if (aff[k] >= 0 && aff[k] < p->n && outside_ok && outside_ok(ctx, aff[k])) {
            d->affects_outside = 1;
        } else if (d->collective && aff[k] >= 0 && aff[k] < p->n) {
            continue; /* another rank's */
        } else {
            snprintf(err, errlen, "affected state %lld (index %lld) is not a state of %s",
                     (long long)aff[k], (long long)k,
                     aff[k] >= 0 && aff[k] < p->n ? "this block" : "the problem");
            free(aff);
            return -1;
        }
    }
    free(aff);
    return 0;
}

int discrete_build(discrete *d, const model *m, MPI_Comm comm,
                   int (*outside_ok)(void *ctx, int64_t gid), void *ctx, char *err, size_t errlen) {
    const qmol_problem *p = m->problem;
    memset(d, 0, sizeof *d);
    d->p = p;
    d->comm = comm;
    d->collective = comm != MPI_COMM_NULL;
    if (d->collective) MPI_Comm_rank(comm, &d->rank);
    d->nc = p->n_crossings;
    d->handled_at = -INFINITY;
    int maxlen = 0, rc = 0;
    int64_t *ids = NULL;
    if (alloc_crossings(d, m, &maxlen) != 0 ||
        !(ids = malloc(((size_t)maxlen + 1) * sizeof *ids))) {
        rc = 1;
    } else {
        for (int64_t c = 0; rc == 0 && c < d->nc; c++)
            rc = map_inputs(d, m, c, ids, err, errlen);
    }
    free(ids);
    if (rc == 0 && list_readers(d, m) != 0) rc = 1;
    if (rc == 0) rc = affected_states(d, m, outside_ok, ctx, err, errlen);
    if (rc == 0 && heap_init(&d->heap, (int32_t)d->nc + 1) != 0) rc = 1;
    if (rc == 1)
        snprintf(err, errlen, "out of memory for %lld crossing functions", (long long)d->nc);
    return rc == 0 ? 0 : -1;
}

/* 1 when every state the discontinuities touch is a row of m, 0 when not,
 * -1 when out of memory. */
static int all_here(const model *m, const qmol_problem *p) {
    int64_t count;
    int64_t *ids = discrete_states(p, INT64_MAX, &count);
    if (count == -2) return -1;
    int here = 1;
    for (int64_t k = 0; k < count && here; k++)
        here = model_row_of(m, ids[k]) >= 0;
    free(ids);
    return here;
}

/* Several ranks, one handling the discontinuities alone (here on it): which
 * rank, for discrete_share, and room for the problem's discrete variables.
 * Collective; returns 0, or -1 (agreed) with the engine failed. */
static int share_setup(qss_engine *e, int here, MPI_Comm comm) {
    int rank, root;
    MPI_Comm_rank(comm, &rank);
    root = here ? rank : -1;
    MPI_Allreduce(MPI_IN_PLACE, &root, 1, MPI_INT, MPI_MAX, comm);
    int n = e->p->n_discrete;
    if (n <= 0) return 0;
    e->disc_vars = malloc((size_t)n * sizeof *e->disc_vars);
    if (comm_agree(comm, e->disc_vars ? 0 : -1, NULL, 0)) {
        eng_fail(e, "out of memory for the discontinuities");
        return -1;
    }
    e->disc_root = root;
    return 0;
}

void discrete_share(qss_engine *e) {
    const qmol_problem *p = e->p;
    if (!e->halo || e->disc_root < 0 || !e->disc_vars || !e->disc_changed) return;
    e->disc_changed = 0;
    int rank;
    MPI_Comm_rank(e->halo->comm, &rank);
    if (rank == e->disc_root) p->get_discrete(p->data, e->disc_vars);
    MPI_Bcast(e->disc_vars, p->n_discrete, MPI_DOUBLE, e->disc_root, e->halo->comm);
    if (rank != e->disc_root) p->set_discrete(p->data, e->disc_vars);
}

int discrete_attach(qss_engine *e, unsigned char *watched,
                    int (*outside_ok)(void *ctx, int64_t gid), void *ctx) {
    if (!problem_has_discontinuities(e->p)) return 0;
    char why[256];
    if (discrete_check(e->p, why, sizeof why) != 0) {
        eng_fail(e, "problem: %s", why);
        return -1;
    }
    discrete *d = calloc(1, sizeof *d);
    if (!d) {
        eng_fail(e, "out of memory for the discontinuities");
        return -1;
    }
    MPI_Comm comm = e->halo ? e->halo->comm : MPI_COMM_NULL;
    if (e->halo) {
        /* one rank owning every state the discontinuities touch handles
         * them alone, as on one rank (partition/part_gather.h) */
        int here = all_here(e->m, e->p), ranks = here;
        if (here < 0) {
            free(d);
            eng_fail(e, "out of memory for the discontinuities");
            here = ranks = 0;
        }
        MPI_Allreduce(MPI_IN_PLACE, &ranks, 1, MPI_INT, MPI_SUM, comm);
        if (ranks == 1 && share_setup(e, here, comm) != 0) {
            free(d);
            return -1;
        }
        if (ranks == 1 && !here) {
            free(d);
            return 0;
        }
        if (ranks == 1) comm = MPI_COMM_NULL;
    }
    if (e->failed) return -1;
    e->disc = d;
    if (discrete_build(d, e->m, comm, outside_ok, ctx, e->err, e->errlen) != 0) {
        e->failed = 1;
        return -1;
    }
    if (!watched) {
        watched = d->watched_own = calloc((size_t)e->n_cols + 1, 1);
        if (!watched) {
            eng_fail(e, "out of memory for the discontinuities");
            return -1;
        }
    }
    for (int64_t k = 0; k < d->in_ptr[d->nc]; k++)
        if (d->in_col[k] >= 0) watched[d->in_col[k]] |= WATCH_CROSSING;
    e->watched_q = watched;
    return 0;
}

/* g_c along the inputs' q at t + tau (gathered at t). */
static double g_along(discrete *d, int64_t c, double t, double tau, int len) {
    for (int k = 0; k < len; k++)
        d->vals2[k] = d->vals[k] + tau * (d->slopes[k] + tau * d->curv[k]);
    return d->p->crossing(d->p->data, c, t + tau, d->vals2);
}

/* Gathers crossing c's inputs at t: q's value, slope and half curvature.
 * Along x instead (the thesis's footnote: x "could be used" for accuracy)
 * the thermostat's switching times were no better: heat2d-thermostat max
 * |dt| at tol 1e-3 / 1e-4, q vs x: LIQSS2 3.2e-4 / 5.2e-5 vs 7.2e-4 / 3.3e-5,
 * QSS2 4.8e-4 / 1.6e-5 vs 2.4e-4 / 2.8e-5, QSS3 8.1e-5 / 7.8e-6 vs 1.4e-5 /
 * 6.9e-6; and x changes at every input's event, q only at its own. Returns
 * their count. */
static int gather(const qss_engine *e, const discrete *d, int64_t c, double t) {
    int len = 0;
    for (int64_t k = d->in_ptr[c]; k < d->in_ptr[c + 1]; k++, len++) {
        int32_t col = d->in_col[k];
        d->vals[len] = eng_q_at(e, col, t);
        d->slopes[len] = eng_qdot_at(e, col, t);
        d->curv[len] = e->q[col].c[2];
    }
    return len;
}

/* Roots closer to t than this fraction of the inputs' time scale are taken
 * as happening at t: at a predicted zero g evaluates to a few ulps on either
 * side of 0 (g = q - 1.1 gave -2.2e-15), and waiting for the sign to settle
 * delayed a thermostat switch until the sensor's next q change (5.5e-4 s
 * late in heat2d-thermostat under QSS2, tol 1e-4). */
#define ROOT_NOW 1e-12

/* Crossing c at t along q: the sign g has now, counting a zero within
 * ROOT_NOW of t as passed (then the sign g takes after it), and the time of
 * its next zero after that (INFINITY if none). */
static signed char sign_and_next(qss_engine *e, discrete *d, int64_t c, double t, double *next) {
    int len = gather(e, d, c, t);
    double g0 = d->p->crossing(d->p->data, c, t, d->vals);
    *next = INFINITY;
    /* time scale of the inputs' motion: differences over a small part of it */
    double scale = eng_time_scale(e, d->in_col + d->in_ptr[c], d->vals, d->slopes, NULL, len, t);
    if (!isfinite(scale)) return discrete_sign(g0); /* q constant: g too */
    double tau = 1e-4 * scale;
    double gp = g_along(d, c, t, tau, len), gm = g_along(d, c, t, -tau, len);
    double g1 = (gp - gm) / (2.0 * tau), g2 = (gp - 2.0 * g0 + gm) / (2.0 * tau * tau);
    double root = poly2_min_positive_root(g0, g1, g2);
    if (g0 == 0.0 || root <= ROOT_NOW * scale) {
        /* at or within rounding of a zero: the sign just after it, and the
         * next zero beyond */
        signed char after = g1 != 0.0 ? discrete_sign(g1) : discrete_sign(g0);
        double s_far = root <= ROOT_NOW * scale
                           ? poly2_min_positive_root(g0 + g1 * (2.0 * ROOT_NOW * scale), g1, g2)
                           : root;
        *next = t + 2.0 * ROOT_NOW * scale + s_far;
        return after;
    }
    *next = t + root;
    return discrete_sign(g0);
}

/* Crossing c's next time from t: t itself if its sign differs from the
 * stored one, else its next zero. */
static void predict(qss_engine *e, discrete *d, int64_t c, double t) {
    if (!d->mine[c]) return; /* another rank evaluates it (heap time stays infinite) */
    double next;
    signed char s = sign_and_next(e, d, c, t, &next);
    discrete_undo_keep(d, c);
    if (d->sign[c] == 0) d->sign[c] = s;
    if (s != 0 && s != d->sign[c]) next = t;
    if (next < t || (next == t && s == d->sign[c])) next = nextafter(t, INFINITY);
    heap_update(&d->heap, (int32_t)c, next);
}

void discrete_start(qss_engine *e, double t0) {
    discrete *d = e->disc;
    for (int64_t c = 0; c < d->nc; c++) {
        d->sign[c] = 0;
        predict(e, d, c, t0);
    }
    const qmol_problem *p = d->p;
    double te = p->next_time_event ? p->next_time_event(p->data, t0) : INFINITY;
    heap_update(&d->heap, (int32_t)d->nc, te);
}

int discrete_state_io(qss_engine *e, MPI_Comm comm, state_io *io) {
    const qmol_problem *p = e->p;
    if (!problem_has_discontinuities(p)) return 0;
    discrete *d = e->disc;
    int64_t nc = p->n_crossings;
    int size = 1;
    MPI_Comm_size(comm, &size);
    double te = d ? heap_time(&d->heap, (int32_t)nc) : INFINITY;
    double *sign = calloc((size_t)nc + 1, sizeof *sign);
    if (comm_agree(comm, sign ? 0 : -1, NULL, 0)) {
        free(sign);
        io->why = "out of memory for the checkpoint's crossing signs";
        return -1;
    }
    if (!io->loading) { /* each crossing's sign from the rank that evaluates it */
        for (int64_t c = 0; d && c < nc; c++)
            sign[c] = d->mine[c] ? d->sign[c] : 0;
        if (size > 1) {
            MPI_Allreduce(MPI_IN_PLACE, &te, 1, MPI_DOUBLE, MPI_MIN, comm);
            MPI_Allreduce(MPI_IN_PLACE, sign, (int)nc, MPI_DOUBLE, MPI_SUM, comm);
        }
    }
    int rc = io->scalar(io, "next_time_event", &te) ||
             (nc > 0 && io->vector(io, "crossing_sign", nc, sign));
    if (rc == 0 && io->loading && d) {
        double t = e->o->t0;
        for (int64_t c = 0; c < nc; c++)
            d->sign[c] = (signed char)sign[c];
        for (int64_t c = 0; c < nc; c++)
            predict(e, d, c, t);
        heap_update(&d->heap, (int32_t)nc, te);
    }
    free(sign);
    return rc ? -1 : 0;
}

void discrete_input_changed(qss_engine *e, int32_t i, double t) {
    discrete *d = e->disc;
    for (int64_t r = d->reader_ptr[i]; r < d->reader_ptr[i + 1]; r++)
        predict(e, d, d->reader[r], t);
}

/* After a handler at t: the affected derivatives, then every crossing again
 * (a handler may flip another crossing's sign: it then fires at t). */
static void after_handler(qss_engine *e, discrete *d, double t) {
    /* the affected states whose derivative changed also requantize at once:
     * their q was chosen for the old right-hand side (LIQSS2 aims q's slope at where x was
     * heading), and left alone it keeps heading there for up to 2 dQ. The public QSS Solver
     * restarts them likewise (ALGORITHMS.md 1.5, "flag2"). */
    for (int32_t k = 0; k < d->naffected && !e->failed; k++) {
        int32_t j = d->affected[k];
        double before1 = e->x[j].c[1], before2 = e->x[j].c[2];
        eng_advance_x(e, j, t);
        eng_eval_derivs(e, j, t);
        /* a handler that left f_j alone (the buck's loss pulse and its
         * inductor) leaves x_j's trajectory and next time as they were:
         * only the changed ones requantize, at once (their scheduled time,
         * computed for the old x, is replaced, not recomputed) */
        if (e->x[j].c[1] != before1 || e->x[j].c[2] != before2) heap_update(&e->heap, j, t);
    }
    for (int64_t c = 0; c < d->nc; c++)
        predict(e, d, c, t);
    if (d->affects_outside) d->handled_at = t;
    d->handled++;
}

double discrete_next_time(const qss_engine *e) {
    return e->disc && e->disc->collective ? heap_top_time(&e->disc->heap) : INFINITY;
}

int discrete_at_window_end(qss_engine *e, double T) {
    discrete *d = e->disc;
    const qmol_problem *p = d->p;
    int time_due = heap_time(&d->heap, (int32_t)d->nc) <= T;
    for (int round = 0;; round++) {
        /* each crossing's owner looks at its sign; every rank learns */
        int any = 0;
        for (int64_t c = 0; c < d->nc; c++) {
            d->fired[c] = 0;
            if (!d->mine[c] || heap_time(&d->heap, (int32_t)c) > T) continue;
            double next;
            signed char s = sign_and_next(e, d, c, T, &next);
            if (s != 0 && s != d->sign[c])
                d->fired[c] = s > d->sign[c] ? 1 : -1;
            else
                heap_update(&d->heap, (int32_t)c, next > T ? next : nextafter(T, INFINITY));
        }
        if (d->nc > 0) MPI_Allreduce(MPI_IN_PLACE, d->fired, (int)d->nc, MPI_INT, MPI_SUM, d->comm);
        for (int64_t c = 0; c < d->nc; c++)
            any |= d->fired[c] != 0;
        if (!any && !time_due) return 0;
        if (round >= 100) {
            eng_fail(e,
                     "discontinuity handlers do not settle at t=%.17g: crossings keep "
                     "flipping each other",
                     T);
            return -1;
        }
        if (time_due) {
            p->on_time_event(p->data, T);
            if (d->rank == 0) {
                e->stats->time_events++;
                discrete_report(e, T, -1, 0);
            }
            double next = p->next_time_event(p->data, T);
            if (!(next > T)) {
                eng_fail(e, "next_time_event(t=%.17g) returned %.17g: must be later than t", T,
                         next);
                return -1;
            }
            heap_update(&d->heap, (int32_t)d->nc, next);
            time_due = 0;
        }
        for (int64_t c = 0; c < d->nc; c++) {
            if (!d->fired[c]) continue;
            d->sign[c] = (signed char)d->fired[c];
            p->on_crossing(p->data, c, d->fired[c], T);
            if (d->rank == 0) {
                e->stats->crossings++;
                discrete_report(e, T, c, d->fired[c]);
            }
        }
        after_handler(e, d, T);
    }
}

void discrete_event(qss_engine *e, double t) {
    discrete *d = e->disc;
    const qmol_problem *p = d->p;
    int32_t c = heap_top(&d->heap);
    /* (discrete_share) */
    e->disc_changed = 1;
    if (c == d->nc) { /* a time event */
        p->on_time_event(p->data, t);
        e->stats->time_events++;
        discrete_report(e, t, -1, 0);
        double next = p->next_time_event(p->data, t);
        if (!(next > t)) {
            eng_fail(e, "next_time_event(t=%.17g) returned %.17g: must be later than t", t, next);
            return;
        }
        discrete_undo_keep(d, d->nc);
        heap_update(&d->heap, (int32_t)d->nc, next);
        after_handler(e, d, t);
        return;
    }
    double next;
    signed char s = sign_and_next(e, d, c, t, &next);
    discrete_undo_keep(d, c);
    if (s == 0 || s == d->sign[c]) { /* not crossed yet: predict again */
        heap_update(&d->heap, c, next > t ? next : nextafter(t, INFINITY));
        return;
    }
    int direction = s > d->sign[c] ? 1 : -1;
    d->sign[c] = s;
    p->on_crossing(p->data, c, direction, t);
    e->stats->crossings++;
    discrete_report(e, t, c, direction);
    after_handler(e, d, t);
}
