/* qss_window.c: the window-end exchange and the window length controller
 * (see qss_window.h). */
#include "qss/qss_window.h"

#include "comm/halo.h"
#include "core/progress.h"
#include "qss/qss_journal.h"

#include "core/wallclock.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void qssx_free(qss_exchange *x) {
    halo_records_free(&x->rec);
    free(x->slot_dest), free(x->dirty), free(x->dirty_list), free(x->ghost_area);
    memset(x, 0, sizeof *x);
}

int qssx_init(qss_exchange *x, const qss_engine *e) {
    const halo_plan *h = e->halo;
    memset(x, 0, sizeof *x);
    int32_t slots = h->send_ptr[h->ndests];
    int rc = halo_records_init(&x->rec, h, 3 + e->order);
    x->slot_dest = malloc((size_t)(slots ? slots : 1) * sizeof *x->slot_dest);
    x->dirty = calloc((size_t)e->n + 1, 1);
    x->dirty_list = malloc(((size_t)e->n + 1) * sizeof *x->dirty_list);
    x->ghost_area = calloc((size_t)(e->n_cols - e->n) + 1, sizeof *x->ghost_area);
    if (rc || !x->slot_dest || !x->dirty || !x->dirty_list || !x->ghost_area) return -1;
    for (int d = 0; d < h->ndests; d++)
        for (int32_t p = h->send_ptr[d]; p < h->send_ptr[d + 1]; p++)
            x->slot_dest[p] = d;
    return 0;
}

/* The send buffer: per destination, a record per changed boundary state
 * that a reader there reads (slot, tq, q's coefficients, stale area), the
 * changed states marked quiet again. Returns 0, or -1 (out of memory: the
 * counts are still set, so that the exchange keeps step). */
static int pack_changed(qss_engine *e, qss_exchange *x, double T) {
    halo_plan *h = e->halo;
    int stride = x->rec.stride, nd = h->ndests;
    for (int d = 0; d < nd; d++)
        x->rec.scount[d] = 0;
    for (int32_t c = 0; c < e->nchanged; c++) {
        int32_t i = e->changed[c];
        for (int32_t r = h->reader_ptr[i]; r < h->reader_ptr[i + 1]; r++)
            x->rec.scount[x->slot_dest[h->reader_slot[r]]]++;
    }
    size_t total = 0;
    for (int d = 0; d < nd; d++) {
        x->rec.sdispl[d] = (int)total;
        total += (size_t)x->rec.scount[d];
    }
    int rc = halo_records_room(&x->rec, total);
    for (int d = 0; d < nd; d++)
        x->rec.scount[d] = 0;
    for (int32_t c = 0; rc == 0 && c < e->nchanged; c++) {
        int32_t i = e->changed[c];
        double area = eng_stale_area(e, c, T);
        for (int32_t r = h->reader_ptr[i]; r < h->reader_ptr[i + 1]; r++) {
            int32_t p = h->reader_slot[r];
            int d = x->slot_dest[p];
            double *rec =
                x->rec.send + ((size_t)x->rec.sdispl[d] + (size_t)x->rec.scount[d]++) * stride;
            rec[0] = (double)(p - h->send_ptr[d]);
            rec[1] = e->q[i].tq;
            for (int k = 0; k < e->order; k++)
                rec[2 + k] = e->q[i].c[k];
            rec[2 + e->order] = area;
        }
        e->boundary[i] = BOUNDARY_QUIET;
    }
    e->nchanged = 0;
    return rc;
}

/* The received ghost q's installed; their readers listed once (dirty_list).
 * Returns how many. */
static int32_t install_ghosts(qss_engine *e, qss_exchange *x) {
    halo_plan *h = e->halo;
    const model *m = e->m;
    int stride = x->rec.stride;
    int32_t ndirty = 0;
    for (int s = 0; s < h->nsources; s++) {
        const double *rec = x->rec.recv + x->rec.rdispl[s];
        int count = x->rec.rcount[s] / stride;
        for (int r = 0; r < count; r++, rec += stride) {
            int32_t g = e->n + h->recv_ptr[s] + (int32_t)rec[0];
            journal_touch(e, g); /* a rejected window puts the stale q back */
            for (int k = 0; k < e->order; k++)
                e->q[g].c[k] = rec[2 + k];
            e->q[g].tq = rec[1];
            e->x[g].dq = eng_quantum(e, g, rec[2]);
            x->ghost_area[g - e->n] = rec[2 + e->order];
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
    return ndirty;
}

/* Sends the changed boundary q's, applies the received ghost q's and
 * re-evaluates their readers at T. Collective over the halo graph. */
int qssx_window(qss_engine *e, qss_exchange *x, double T) {
    halo_plan *h = e->halo;
    int stride = x->rec.stride;
    /* a failed allocation still takes part (sending nothing would desync
     * the counts), then fails the run at the window's agreement */
    if (halo_records_exchange(&x->rec, h, pack_changed(e, x, T) != 0, &e->stats->messages,
                              &e->stats->bytes_sent) != 0)
        return -1;
    int32_t ndirty = install_ghosts(e, x);
    /* the error of the late updates: how far each reader drifted while its
     * ghosts were stale, in quanta (before eng_input_changed moves x_j) */
    double worst = 0.0;
    for (int32_t k = 0; k < ndirty; k++) {
        int32_t j = x->dirty_list[k];
        double dx = eng_stale_drift(e, j, T, x->ghost_area);
        double drift = fabs(dx) / e->x[j].dq;
        if (drift > worst) worst = drift;
        /* first-order correction: x_j as if it had read the ghosts' q's
         * when they changed */
        eng_advance_x(e, j, T);
        e->x[j].c[0] += dx;
    }
    x->drift = worst;
    for (int s = 0; s < h->nsources; s++) {
        const double *rec = x->rec.recv + x->rec.rdispl[s];
        for (int r = 0; r < x->rec.rcount[s] / stride; r++, rec += stride)
            x->ghost_area[h->recv_ptr[s] + (int32_t)rec[0]] = 0.0;
    }
    for (int32_t k = 0; k < ndirty; k++) {
        int32_t j = x->dirty_list[k];
        x->dirty[j] = 0;
        eng_input_changed(e, j, T);
    }
    return 0;
}

void watch_free(window_watch *w) {
    free(w->boundary), free(w->hops);
}

/* Boundary list and hop distances by breadth-first search over the rows
 * from the boundary states. Returns 0 or -1 (out of memory). */
int watch_init(const qss_engine *e, window_watch *w) {
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

/* Before the first window: every state's first event offers its reach (no
 * window has run yet to offer one). */
void watch_start(window_watch *w, const qss_engine *e, double t0) {
    for (int32_t i = 0; i < e->n; i++)
        watch_event(w, e, i, t0);
}

/* The window proposal's time scale: the smallest reach of the window's
 * events and the shortest time from a boundary state's last change to its
 * next one (quiet boundary states' events are in the future); resets reach. */
double watch_scale(const qss_engine *e, window_watch *w) {
    double scale = w->reach;
    for (int32_t k = 0; k < w->nboundary; k++) {
        int32_t i = w->boundary[k];
        double p = heap_time(&e->heap, i) - e->q[i].tq;
        if (p < scale) scale = p;
    }
    w->reach = INFINITY;
    return scale;
}

int qssx_setup_boundary(qss_engine *e) {
    const halo_plan *h = e->halo;
    int32_t nb = halo_boundary_count(h);
    e->boundary = calloc((size_t)e->n + 1, 1);
    e->changed = malloc(((size_t)nb + 1) * sizeof *e->changed);
    e->stale = malloc(((size_t)nb + 1) * 4 * sizeof *e->stale);
    e->stale_area = malloc(((size_t)nb + 1) * sizeof *e->stale_area);
    e->change_slot = malloc(((size_t)e->n + 1) * sizeof *e->change_slot);
    if (!e->boundary || !e->changed || !e->stale || !e->stale_area || !e->change_slot) return -1;
    for (int32_t i = 0; i < e->n; i++)
        if (h->reader_ptr[i + 1] > h->reader_ptr[i]) e->boundary[i] = BOUNDARY_QUIET;
    return 0;
}

/* Window length bounds: window_min defaults to 1e-6 of the run, window_max
 * to the sample interval (of the whole run, also when it was resumed). */
void window_bounds(const integrator_options *o, double *wmin, double *wmax) {
    double span = o->tf - (o->resume ? o->run_t0 : o->t0);
    *wmax = o->window_max > 0.0 ? o->window_max : span / (double)o->samples;
    *wmin = o->window_min > 0.0 ? o->window_min : 1e-6 * span;
    if (*wmin > *wmax) *wmin = *wmax;
}

void window_next(window_control *c, double drift, double length, double *W) {
    /* the drift grows in proportion to the window: aim the next at the
     * target with a safety factor, growing at most twofold (not at all
     * right after a rejection) */
    double factor = drift > 0.0 ? 0.9 * c->target / drift : 2.0;
    factor = fmin(fmax(factor, 0.2), c->rejected ? 1.0 : 2.0);
    c->rejected = 0;
    /* a window cut short by a sample says little about a longer one */
    double base = length < *W && factor >= 1.0 ? *W : length;
    *W = fmin(fmax(base * factor, c->wmin), c->wmax);
}

int window_agree(window_control *c, qss_engine *e, double drift, double cap, double length,
                 double *W, double *stop, int *report) {
    const integrator_options *o = e->o;
    double wt = wallclock_seconds();
    /* (-2: failed in the window; -1: only in its end's exchange) */
    double v[6] = {-drift,
                   e->failed ? (e->failed_in_exchange ? -1.0 : -2.0) : 0.0,
                   o->progress && progress_due(o->progress) ? -1.0 : 0.0,
                   cap,
                   stop ? *stop : INFINITY,
                   e->disc_changed ? -1.0 : 0.0};
    MPI_Allreduce(MPI_IN_PLACE, v, 6, MPI_DOUBLE, MPI_MIN, e->halo->comm);
    e->stats->wall_wait += wallclock_seconds() - wt;
    e->disc_changed = v[5] < 0.0; /* (any rank's: discrete_share) */
    *report = v[2] < 0.0;
    if (v[1] < -1.5) return -1;
    if (stop && v[4] < INFINITY) { /* (the exchange's failure is taken back too) */
        if (e->failed) e->failed = 0, e->err[0] = '\0';
        e->failed_in_exchange = 0;
        *stop = v[4];
        return WINDOW_STOPPED;
    }
    if (v[1] < 0.0) return -1;
    drift = -v[0];
    int redo = c->adaptive && e->journal && length > c->wmin * (1.0 + 1e-9);
    c->over_fail = !redo && drift > WINDOW_DRIFT_FAIL ? c->over_fail + 1 : 0;
    if (c->over_fail >= WINDOW_FAIL_RUN) {
        const char *why = "windows of a problem with discontinuities whose discrete "
                          "variables cannot be saved (no get_discrete/set_discrete) are never "
                          "run again";
        const char *fix = "give a smaller --window-max";
        if (!c->adaptive) {
            why = "a window set by --window is never run again";
            fix = "give a shorter --window, or leave it out (windows set by their error)";
        } else if (e->journal) {
            why = "a window at --window-min is never run again";
            fix = "give a smaller --window-min";
        }
        eng_fail(e,
                 "%d windows in a row, the last [%.9g, %.9g], let late ghost updates move a "
                 "state by more than %g quanta (%.3g in the last), and %s: the result would "
                 "be wrong; %s",
                 c->over_fail, e->window_start, e->window_start + length, WINDOW_DRIFT_FAIL, drift,
                 why, fix);
        return -1;
    }
    if (!c->adaptive) return WINDOW_ACCEPTED;
    if (drift > c->reject && redo) {
        double factor = 0.9 * c->target / drift;
        *W = fmax(c->wmin, length * fmax(factor, 0.1));
        c->rejected = 1;
        if (c->ceiling_cut > 0.0) c->ceiling = c->ceiling_cut * length;
        return WINDOW_REJECTED;
    }
    window_next(c, drift, length, W);
    if (c->ceiling > 0.0) {
        c->ceiling *= WINDOW_CEILING_LIFT;
        if (c->ceiling < *W) *W = fmax(c->ceiling, c->wmin);
        if (c->ceiling >= c->wmax) c->ceiling = 0.0; /* (lifted past every window) */
    }
    if (v[3] < *W) *W = fmax(v[3], c->wmin);
    return WINDOW_ACCEPTED;
}
