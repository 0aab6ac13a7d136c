/* qss_run.c: the QSS event loop, in windows synchronized across ranks.
 *
 * Time advances in windows [T, T_end). Inside a window each rank runs its own
 * queue, reading ghosts as the polynomials last received. At a window end
 * every rank (1) samples if T_end is a sample time, (2) sends the current q
 * polynomial of each boundary state that changed in the window to the ranks
 * that read it, applies what it receives and reschedules the readers, and
 * (3) agrees on the next window length with one MPI_Allreduce, which also
 * carries failure. On one rank without --window, windows are the sample
 * intervals and nothing is exchanged: the event sequence is that of a plain
 * event loop. See docs/parallel.md.
 */
#include "agree.h"
#include "discrete.h"
#include "halo.h"
#include "qss_engine.h"
#include "wallclock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const qss_method *const method_table[METHOD_COUNT] = {
    [METHOD_QSS1] = &qss1_method,       [METHOD_QSS2] = &qss2_method,
    [METHOD_QSS3] = &qss3_method,       [METHOD_BQSS] = &bqss_method,
    [METHOD_LIQSS1] = &liqss1_method,   [METHOD_LIQSS2] = &liqss2_method,
    [METHOD_MLIQSS1] = &mliqss1_method, [METHOD_MLIQSS2] = &mliqss2_method,
};

/* Buffers of the window-end exchange, grown as needed (never per event). */
typedef struct exchange {
    int stride;                /* doubles per record: position, time, q coefficients */
    double *send, *recv;       /* records */
    size_t send_cap, recv_cap; /* in doubles */
    int *scount, *sdispl, *rcount, *rdispl;
    int32_t *slot_dest;   /* send-list position -> destination index */
    unsigned char *dirty; /* n: reader to re-evaluate */
    int32_t *dirty_list;
} exchange;

static void exchange_free(exchange *x) {
    free(x->send), free(x->recv), free(x->scount), free(x->sdispl), free(x->rcount);
    free(x->rdispl), free(x->slot_dest), free(x->dirty), free(x->dirty_list);
    memset(x, 0, sizeof *x);
}

static int exchange_init(exchange *x, const qss_engine *e) {
    const halo_plan *h = e->halo;
    memset(x, 0, sizeof *x);
    x->stride = 2 + e->order;
    int nd = h->ndests ? h->ndests : 1, ns = h->nsources ? h->nsources : 1;
    int32_t slots = h->send_ptr[h->ndests];
    x->scount = calloc((size_t)nd, sizeof(int));
    x->sdispl = calloc((size_t)nd, sizeof(int));
    x->rcount = calloc((size_t)ns, sizeof(int));
    x->rdispl = calloc((size_t)ns, sizeof(int));
    x->slot_dest = malloc((size_t)(slots ? slots : 1) * sizeof *x->slot_dest);
    x->dirty = calloc((size_t)e->n + 1, 1);
    x->dirty_list = malloc(((size_t)e->n + 1) * sizeof *x->dirty_list);
    if (!x->scount || !x->sdispl || !x->rcount || !x->rdispl || !x->slot_dest || !x->dirty ||
        !x->dirty_list)
        return -1;
    for (int d = 0; d < h->ndests; d++)
        for (int32_t p = h->send_ptr[d]; p < h->send_ptr[d + 1]; p++)
            x->slot_dest[p] = d;
    return 0;
}

static int reserve(double **buf, size_t *cap, size_t need) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 1024;
    while (c < need)
        c *= 2;
    double *b = realloc(*buf, c * sizeof *b);
    if (!b) return -1;
    *buf = b;
    *cap = c;
    return 0;
}

/* Sends the changed boundary q's, applies the received ghost q's and
 * re-evaluates their readers at T. Collective over the halo graph. */
static int exchange_window(qss_engine *e, exchange *x, double T) {
    halo_plan *h = e->halo;
    int stride = x->stride, nd = h->ndests, ns = h->nsources;
    for (int d = 0; d < nd; d++)
        x->scount[d] = 0;
    for (int32_t c = 0; c < e->nchanged; c++) {
        int32_t i = e->changed[c];
        for (int32_t r = h->reader_ptr[i]; r < h->reader_ptr[i + 1]; r++)
            x->scount[x->slot_dest[h->reader_slot[r]]]++;
    }
    size_t total = 0;
    for (int d = 0; d < nd; d++) {
        x->sdispl[d] = (int)total;
        total += (size_t)x->scount[d];
    }
    int rc = reserve(&x->send, &x->send_cap, total * (size_t)stride + 1);
    for (int d = 0; d < nd; d++)
        x->scount[d] = 0;
    for (int32_t c = 0; rc == 0 && c < e->nchanged; c++) {
        int32_t i = e->changed[c];
        for (int32_t r = h->reader_ptr[i]; r < h->reader_ptr[i + 1]; r++) {
            int32_t p = h->reader_slot[r];
            int d = x->slot_dest[p];
            double *rec = x->send + ((size_t)x->sdispl[d] + (size_t)x->scount[d]++) * stride;
            rec[0] = (double)(p - h->send_ptr[d]);
            rec[1] = e->tq[i];
            for (int k = 0; k < e->order; k++)
                rec[2 + k] = e->qc[k][i];
        }
        e->boundary[i] = BOUNDARY_QUIET;
    }
    e->nchanged = 0;
    MPI_Neighbor_alltoall(x->scount, 1, MPI_INT, x->rcount, 1, MPI_INT, h->graph);
    size_t rtotal = 0;
    for (int s = 0; s < ns; s++) {
        x->rdispl[s] = (int)(rtotal * (size_t)stride);
        rtotal += (size_t)x->rcount[s];
        x->rcount[s] *= stride;
    }
    for (int d = 0; d < nd; d++) {
        e->stats->messages += x->scount[d] > 0;
        e->stats->bytes_sent += (uint64_t)x->scount[d] * (uint64_t)stride * sizeof(double);
        x->sdispl[d] *= stride;
        x->scount[d] *= stride;
    }
    if (reserve(&x->recv, &x->recv_cap, rtotal * (size_t)stride + 1)) rc = -1;
    /* a failed allocation still takes part (sending nothing would desync
     * the counts), then fails the run at the window's agreement */
    MPI_Neighbor_alltoallv(rc ? NULL : x->send, x->scount, x->sdispl, MPI_DOUBLE,
                           rc ? NULL : x->recv, x->rcount, x->rdispl, MPI_DOUBLE, h->graph);
    if (rc) return -1;
    int32_t ndirty = 0;
    for (int s = 0; s < ns; s++) {
        const double *rec = x->recv + x->rdispl[s];
        int count = x->rcount[s] / stride;
        for (int r = 0; r < count; r++, rec += stride) {
            int32_t g = e->n + h->recv_ptr[s] + (int32_t)rec[0];
            for (int k = 0; k < e->order; k++)
                e->qc[k][g] = rec[2 + k];
            e->tq[g] = rec[1];
            e->dq[g] = eng_quantum(e, g, rec[2]);
            const model *m = e->m;
            for (int64_t q = m->dep_ptr[g]; q < m->dep_ptr[g + 1]; q++) {
                int32_t j = m->dep_row[q];
                if (!x->dirty[j]) {
                    x->dirty[j] = 1;
                    x->dirty_list[ndirty++] = j;
                }
            }
        }
        e->stats->late_updates += (uint64_t)count;
    }
    for (int32_t k = 0; k < ndirty; k++) {
        int32_t j = x->dirty_list[k];
        x->dirty[j] = 0;
        e->method->input_changed(e, j, T);
    }
    return 0;
}

/* Adaptive windows are this fraction of the time scale of window_watch below:
 * a ghost is stale for up to a window, so windows as long as the period
 * itself doubled to quadrupled the np > 1 error on heat2d (docs/parallel.md);
 * a quarter keeps it at the np = 1 level. */
#define WINDOW_FRACTION 0.25

/* What the adaptive window length looks at (several ranks). The boundary
 * states' periods alone let windows grow while the boundary is quiet, and a
 * front then crossed it up to a whole window late (adr2d 150^2 split by one
 * cut: P = 2 3.3e-3 from P = 1, whose e_rr is 8e-4). Activity travels one
 * hop (f_b reads s) per event at least, so a state `hops` hops from the
 * boundary whose events come every p cannot change a boundary state sooner
 * than about (hops + 1) p: every event of the window offers that bound
 * ("reach"), and the window is the fraction above of the smallest. */
typedef struct window_watch {
    int32_t *boundary; /* owned states read by other ranks */
    int32_t nboundary;
    uint16_t *hops; /* per owned state: hops to the nearest boundary state */
    double reach;   /* min over this window's events of (hops + 1) period */
} window_watch;

/* hops[] saturates here; unreached states (no path to a boundary) too. */
#define HOPS_FAR 65535

static void watch_free(window_watch *w) {
    free(w->boundary), free(w->hops);
}

/* Boundary list and hop distances by breadth-first search over the rows
 * from the boundary states. Returns 0 or -1 (out of memory). */
static int watch_init(const qss_engine *e, window_watch *w) {
    const model *m = e->m;
    int32_t n = e->n, len = 0;
    w->reach = INFINITY;
    w->nboundary = 0;
    w->hops = malloc(((size_t)n + 1) * sizeof *w->hops);
    int32_t *queue = malloc(((size_t)n + 1) * sizeof *queue);
    if (!w->hops || !queue) {
        free(queue);
        return -1;
    }
    for (int32_t i = 0; i < n; i++) {
        w->hops[i] = HOPS_FAR;
        if (e->boundary[i]) {
            w->hops[i] = 0;
            queue[len++] = i;
        }
    }
    w->nboundary = len;
    w->boundary = malloc(((size_t)len + 1) * sizeof *w->boundary);
    if (!w->boundary) {
        free(queue);
        return -1;
    }
    memcpy(w->boundary, queue, (size_t)len * sizeof *queue);
    for (int32_t k = 0; k < len; k++) {
        int32_t s = queue[k];
        if (w->hops[s] + 1 >= HOPS_FAR) continue;
        for (int64_t p = m->row_ptr[s]; p < m->row_ptr[s + 1]; p++) {
            int32_t c = m->row_col[p];
            if (c < n && w->hops[c] == HOPS_FAR) {
                w->hops[c] = (uint16_t)(w->hops[s] + 1);
                queue[len++] = c;
            }
        }
    }
    free(queue);
    return 0;
}

/* After state i's event at t: its next time bounds when it can reach the
 * boundary. */
static inline void watch_event(window_watch *w, const qss_engine *e, int32_t i, double t) {
    if (w->hops[i] == HOPS_FAR) return;
    double r = (w->hops[i] + 1.0) * (heap_time(&e->heap, i) - t);
    if (r < w->reach) w->reach = r;
}

/* Before the first window: every state's first event offers its reach (no
 * window has run yet to offer one). */
static void watch_start(window_watch *w, const qss_engine *e, double t0) {
    for (int32_t i = 0; i < e->n; i++)
        watch_event(w, e, i, t0);
}

/* The window proposal's time scale: the smallest reach of the window's
 * events and the shortest time from a boundary state's last change to its
 * next one (quiet boundary states' events are in the future); resets reach. */
static double watch_scale(const qss_engine *e, window_watch *w) {
    double scale = w->reach;
    for (int32_t k = 0; k < w->nboundary; k++) {
        int32_t i = w->boundary[k];
        double p = heap_time(&e->heap, i) - e->tq[i];
        if (p < scale) scale = p;
    }
    w->reach = INFINITY;
    return scale;
}

/* Every sample at T (T a sample time) from the x polynomials. */
static int emit_sample(qss_engine *e, int64_t k, double T, double *buf, sample_fn sample,
                       void *ctx) {
    double w0 = wallclock_seconds();
    for (int32_t j = 0; j < e->n; j++)
        buf[j] = eng_x_at(e, j, T);
    int rc = sample(ctx, k, T, buf);
    e->stats->wall_output += wallclock_seconds() - w0;
    return rc;
}

const qss_method *qss_method_of(method_id m) {
    return m >= 0 && m < METHOD_COUNT ? method_table[m] : NULL;
}

/* Counts events at the same time; returns 1 when more than `limit` ran
 * without time advancing (the caller fails the run with its own words). */
static int stalled(double t, double *last_t, uint64_t *same_time, uint64_t limit) {
    if (t == *last_t) return ++*same_time > limit;
    *same_time = 0;
    *last_t = t;
    return 0;
}

void eng_run_events(qss_engine *e, double T_end, window_watch *watch, double *last_t,
                    uint64_t *same_time) {
    const integrator_options *o = e->o;
    uint64_t stall_limit = 1000000 + 100 * (uint64_t)e->n;
    e->window_end = T_end;
    discrete *d = e->disc;
    for (;;) {
        double t = heap_top_time(&e->heap);
        if (d && !d->collective && heap_top_time(&d->heap) <= t) { /* discrete events first */
            double td = heap_top_time(&d->heap);
            if (e->failed || !(td < e->window_end)) break;
            /* a handler that changes BDF rows waits for the BDF block to
             * reach its time: the window ends there and it runs first in the
             * next (mixed_run.c) */
            if (d->affects_outside && td > e->window_start) {
                e->window_end = td;
                break;
            }
            discrete_event(e, td);
            if (stalled(td, last_t, same_time, stall_limit))
                eng_fail(e,
                         "discontinuity handlers made no progress at t=%.17g: %llu events "
                         "without time advancing (chattering crossing functions?)",
                         td, (unsigned long long)*same_time);
            continue;
        }
        if (e->failed || !(t < e->window_end)) break;
        int32_t i = heap_top(&e->heap);
        e->method->event(e, i, t);
        e->stats->events++;
        if (watch) watch_event(watch, e, i, t);
        if (o->trace) o->trace(o->trace_ctx, t, i, e->qc[0]);
        if (stalled(t, last_t, same_time, stall_limit))
            eng_fail(e,
                     "%s made no progress at t=%.17g: %llu events without time advancing "
                     "(last state %lld); try a larger tolerance or another method",
                     e->method->name, t, (unsigned long long)*same_time,
                     (long long)model_gid(e->m, i));
    }
}

static int setup_boundary(qss_engine *e) {
    const halo_plan *h = e->halo;
    int32_t nb = halo_boundary_count(h);
    e->boundary = calloc((size_t)e->n + 1, 1);
    e->changed = malloc(((size_t)nb + 1) * sizeof *e->changed);
    if (!e->boundary || !e->changed) return -1;
    for (int32_t i = 0; i < e->n; i++)
        if (h->reader_ptr[i + 1] > h->reader_ptr[i]) e->boundary[i] = BOUNDARY_QUIET;
    return 0;
}

/* Window length bounds: window_min defaults to 1e-6 of the run, window_max
 * to the sample interval. */
static void window_bounds(const integrator_options *o, double *wmin, double *wmax) {
    double span = o->tf - o->t0;
    *wmax = o->window_max > 0.0 ? o->window_max : span / (double)o->samples;
    *wmin = o->window_min > 0.0 ? o->window_min : 1e-6 * span;
    if (*wmin > *wmax) *wmin = *wmax;
}

int eng_setup(qss_engine *e, const model *m, const integrator_options *o, const qss_method *method,
              qmol_stats *stats, char *err, size_t errlen) {
    memset(e, 0, sizeof *e);
    e->m = m;
    e->p = m->problem;
    e->o = o;
    e->method = method;
    e->n = m->n;
    e->n_cols = m->n_cols;
    e->order = method->order;
    e->tf = o->tf;
    e->stats = stats;
    e->err = err;
    e->errlen = errlen;
    e->analytic_jac = o->use_jacobian && e->p->jac != NULL;
    e->halo = o->halo;
    e->window_end = o->t0;
    return eng_alloc(e);
}

int qss_integrate(const model *m, const integrator_options *o, sample_fn sample, void *ctx,
                  qmol_stats *stats, char *err, size_t errlen) {
    const qss_method *method = qss_method_of(o->method);
    if (!method) {
        snprintf(err, errlen, "qss_integrate: %s is not a QSS method", method_name(o->method));
        return -1;
    }
    double w0 = wallclock_seconds();
    qss_engine eng;
    qss_engine *e = &eng;
    int rc = eng_setup(e, m, o, method, stats, err, errlen);
    MPI_Comm comm = e->halo ? e->halo->comm : MPI_COMM_SELF;
    exchange x;
    memset(&x, 0, sizeof x);
    double *buf = malloc(((size_t)e->n + 1) * sizeof *buf);
    window_watch watch = {0};
    rc = rc || !buf ||
         (e->halo && (setup_boundary(e) || exchange_init(&x, e) || watch_init(e, &watch)));
    if (comm_agree(comm, rc ? -1 : 0, NULL, 0)) {
        free(buf);
        watch_free(&watch);
        eng_free(e);
        exchange_free(&x);
        snprintf(err, errlen, "out of memory allocating QSS storage for %lld states",
                 (long long)m->n_cols);
        return -1;
    }
    discrete_attach(e, NULL, NULL, NULL);
    eng_initial_state(e);
    if (!e->failed && e->method->init(e) != 0 && !e->failed)
        eng_fail(e, "out of memory allocating %s storage", e->method->name);
    if (!e->failed && e->disc) discrete_start(e, o->t0);
    e->nchanged = 0; /* initial q's are already everywhere */
    if (e->halo) watch_start(&watch, e, o->t0);
    for (int32_t i = 0; e->boundary && i < e->n; i++)
        if (e->boundary[i]) e->boundary[i] = BOUNDARY_QUIET;
    stats->wall_setup += wallclock_seconds() - w0;

    double w1 = wallclock_seconds(), out0 = stats->wall_output;
    double wmin, wmax, W = 0.0, T = o->t0, last_t = o->t0;
    window_bounds(o, &wmin, &wmax);
    int adaptive = e->halo && !(o->window > 0.0);
    uint64_t same_time = 0;
    int64_t next_k = 1;
    double t_discrete = INFINITY; /* several ranks: the agreed next discrete event */
    rc = 0;
    for (;;) {
        /* agree on failure and on the next window length */
        if (e->halo) {
            double wt = wallclock_seconds();
            double proposal = adaptive ? WINDOW_FRACTION * watch_scale(e, &watch) : o->window;
            double v[3] = {proposal, e->failed ? -1.0 : 0.0, discrete_next_time(e)};
            MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_DOUBLE, MPI_MIN, comm);
            t_discrete = v[2];
            stats->wall_wait += wallclock_seconds() - wt;
            if (v[1] < 0.0) break;
            if (adaptive) {
                double grow = W > 0.0 ? 2.0 * W : wmax;
                W = fmin(fmax(v[0], wmin), fmin(grow, wmax));
            } else {
                W = o->window;
            }
        } else if (e->failed) {
            break;
        } else {
            W = o->window > 0.0 ? o->window : INFINITY;
        }
        double ts = sample_time(o->t0, o->tf, next_k, o->samples);
        double T_end = T + W;
        if (!(T_end < ts - 1e-9 * W)) T_end = ts; /* no sliver before a sample */
        /* several ranks: windows end at the next discrete event any rank
         * knows of, where all ranks handle it together */
        if (t_discrete > T && t_discrete < T_end) T_end = t_discrete;
        eng_run_events(e, T_end, e->halo ? &watch : NULL, &last_t, &same_time);
        stats->windows++;
        if (e->halo) {
            double wx = wallclock_seconds();
            if (exchange_window(e, &x, T_end) != 0)
                eng_fail(e, "out of memory for the window-end exchange");
            stats->wall_exchange += wallclock_seconds() - wx;
            if (e->disc) discrete_window_end(e, T_end);
        }
        if (T_end == ts) {
            if (e->halo) {
                /* the write is collective: wait for the slowest rank here,
                 * so that output time is writing time */
                double wt = wallclock_seconds();
                MPI_Barrier(comm);
                stats->wall_wait += wallclock_seconds() - wt;
            }
            rc = emit_sample(e, next_k, ts, buf, sample, ctx);
            if (rc != 0) break;
            next_k++;
        }
        T = T_end;
        if (next_k > o->samples) break;
    }
    stats->wall_integrate += wallclock_seconds() - w1 - (stats->wall_output - out0);
    if (e->failed) rc = -1;
    if (e->halo) rc = comm_agree(comm, rc ? 1 : 0, err, errlen) ? -1 : 0;
    eng_free(e);
    exchange_free(&x);
    free(buf);
    watch_free(&watch);
    return rc;
}
