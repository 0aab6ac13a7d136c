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
#include "comm/agree.h"
#include "qss/discrete.h"
#include "comm/halo.h"
#include "core/integrator_registry.h"
#include "core/progress.h"
#include "qss/qss_engine.h"
#include "qss/qss_journal.h"
#include "qss/qss_window.h"
#include "qss/mass_check.h"
#include "core/wallclock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* One QSS integration: the engine and what the window loop keeps. A
 * checkpoint of it holds, besides the engine, the next window's length
 * (the controller's, the same on every rank) and, where the window watch
 * runs (discontinuities on several ranks), its reach (the smallest over the
 * ranks: the watch's proposal is a minimum too; infinity without). */
typedef struct qss_loop {
    qss_engine eng;
    const integrator_options *o;
    qmol_stats *stats;
    MPI_Comm comm;
    qss_exchange x;
    double *buf; /* a sample's owned values */
    window_watch watch;
    int use_watch;
    window_control ctl;
    qss_journal journal;
    mass_check mass;
    int check_mass, unsuited;
    int redo_to_stop; /* the window runs again up to where a rank stopped */
    /* the window [T, T + W), the last event time and how many ran at it,
     * the next sample and the agreed next discrete event (several ranks) */
    double T, W, last_t, t_discrete;
    uint64_t same_time;
    int64_t next_k;
    double w1, out0; /* the loop's start: wall clock, stats->wall_output */
} qss_loop;

/* integrator_state's states: the owned x's at t. */
static void owned_states(void *ictx, double t, double *x) {
    qss_loop *L = ictx;
    for (int32_t j = 0; j < L->eng.n; j++)
        x[j] = eng_x_at(&L->eng, j, t);
}

/* integrator_state's stats: the integration's wall time so far (the loop
 * adds it when it ends). */
static void run_stats(void *ictx, qmol_stats *st) {
    qss_loop *L = ictx;
    st->wall_integrate += wallclock_seconds() - L->w1 - (L->stats->wall_output - L->out0);
}

/* A scalar that checkpoints written before it lack: loading from one, the
 * value is left as it is (the controller's start). */
static int optional_scalar(state_io *io, const char *name, double *value) {
    if (io->loading && io->has_scalar && !io->has_scalar(io, name)) return 0;
    return io->scalar(io, name, value);
}

/* integrator_state's save, and a restart's load. */
static int run_state_io(void *ictx, state_io *io) {
    qss_loop *L = ictx;
    qss_engine *e = &L->eng;
    window_watch *watch = L->use_watch ? &L->watch : NULL;
    double reach = watch ? watch->reach : INFINITY;
    if (watch && !io->loading) MPI_Allreduce(MPI_IN_PLACE, &reach, 1, MPI_DOUBLE, MPI_MIN, L->comm);
    double over_fail = L->ctl.over_fail;
    if (eng_state_io(e, io) || discrete_state_io(e, L->comm, io) ||
        io->scalar(io, "window", &L->W) || io->scalar(io, "reach", &reach) ||
        optional_scalar(io, "window_ceiling", &L->ctl.ceiling) ||
        optional_scalar(io, "window_over_fail", &over_fail))
        return -1;
    if (watch && io->loading) watch->reach = reach;
    if (io->loading) L->ctl.over_fail = (int)over_fail;
    return 0;
}

/* Counts events at the same time; returns 1 when more than `limit` ran
 * without time advancing (the caller fails the run with its own words). */
/* The test trace: the first (at most 4) states' q0 after an event. */
static void trace_event(const qss_engine *e, const integrator_options *o, double t, int32_t i) {
    double q0[4] = {0.0, 0.0, 0.0, 0.0};
    for (int32_t k = 0; k < 4 && k < e->n_cols; k++)
        q0[k] = e->q[k].c[0];
    o->trace(o->trace_ctx, t, i, q0);
}

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
    e->events_until = T_end;
    discrete *d = e->disc;
    for (;;) {
        double t = heap_top_time(&e->heap);
        if (d && !d->collective && heap_top_time(&d->heap) <= t) { /* discrete events first */
            double td = heap_top_time(&d->heap);
            if (e->failed || !(td < e->events_until)) break;
            /* a handler that changes BDF rows waits for the BDF block to
             * reach its time: the window ends there and it runs first in the
             * next (mixed_run.c) */
            if (d->affects_outside && td > e->window_start) {
                e->events_until = td;
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
        if (e->failed || !(t < e->events_until)) break;
        int32_t i = heap_top(&e->heap);
        if (e->passive && e->passive[i]) { /* a BDF state: its readers scheduled it */
            heap_update(&e->heap, i, INFINITY);
            continue;
        }
        if (e->activity) __builtin_prefetch(&e->activity[i], 1); /* written at the end */
        if (e->prefetch_inputs) {    /* (beyond the caches: PREFETCH_INPUTS_BYTES) */
            eng_prefetch_deps(e, i); /* arrives while the method chooses q_i */
            eng_prefetch_next(e);
        }
        unseen_before before;
        if (e->order >= 2) {
            eng_unseen_before(e, i, t, &before);
            /* x_i as old as it may grow: its own event re-evaluates it only
             * where f_i reads x_i, so here first */
            if (before.aged && !eng_reads_self(e, i)) {
                eng_advance_x(e, i, t);
                eng_eval_derivs(e, i, t);
            }
        }
        e->method->event(e, i, t);
        double cap = e->order >= 2 ? eng_unseen_cap(e, i, t, &before) : INFINITY;
        if (cap < INFINITY && heap_time(&e->heap, i) > t + cap) heap_update(&e->heap, i, t + cap);
        e->stats->events++;
        if (e->activity) e->activity[i] += 1.0;
        /* one rank: a look at the clock every 2^16 events (several ranks
         * report at window ends, together) */
        if (!e->halo && o->progress && (e->stats->events & 0xFFFF) == 0 &&
            progress_due(o->progress))
            progress_local(o->progress, t, e->stats->events, 0.0);
        /* a stop request (a signal, auto's budget) ends the window here
         * (every 2^8 events: 2^12 let auto's probes of diurnal, 2.7 us an
         * event, run 0.011 s past a budget of 0.001); on several ranks
         * where stop_polled, the window is agreed to end there (end_window) */
        if ((!e->halo || e->stop_polled) && o->stop_requested && (e->stats->events & 0xFF) == 0 &&
            o->stop_requested(o->stop_ctx, t)) {
            e->events_until = e->stopped_at = t;
            break;
        }
        if (watch) watch_event(watch, e, i, t);
        if (o->trace) trace_event(e, o, t, i);
        if (stalled(t, last_t, same_time, stall_limit))
            eng_fail(e,
                     "%s made no progress at t=%.17g: %llu events without time advancing "
                     "(last state %lld); try a larger tolerance or another method",
                     e->method->name, t, (unsigned long long)*same_time,
                     (long long)model_gid(e->m, i));
    }
}

int eng_setup(qss_engine *e, const model *m, const integrator_options *o, const qss_method *method,
              qmol_stats *stats, char *err, size_t errlen) {
    memset(e, 0, sizeof *e);
    e->disc_root = -1;
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
    e->events_until = o->t0;
    return eng_alloc(e);
}

static void loop_free(qss_loop *L) {
    journal_free(&L->journal);
    mass_check_free(&L->mass);
    watch_free(&L->watch);
    eng_free(&L->eng);
    qssx_free(&L->x);
    free(L->buf);
}

/* The engine and its initial state; on one rank or several, the exchange.
 * Returns 0, or -1 (agreed) with err: out of memory. */
static int loop_setup(qss_loop *L, const model *m, const integrator_options *o, qmol_stats *stats,
                      char *err, size_t errlen) {
    double w0 = wallclock_seconds();
    qss_engine *e = &L->eng;
    L->o = o;
    L->stats = stats;
    int rc = eng_setup(e, m, o, o->method->qss, stats, err, errlen);
    L->comm = e->halo ? e->halo->comm : MPI_COMM_SELF;
    L->buf = malloc(((size_t)e->n + 1) * sizeof *L->buf);
    rc = rc || !L->buf || (e->halo && (qssx_setup_boundary(e) || qssx_init(&L->x, e)));
    if (comm_agree(L->comm, rc ? -1 : 0, NULL, 0)) {
        snprintf(err, errlen, "out of memory allocating QSS storage for %lld states",
                 (long long)m->n_cols);
        return -1;
    }
    e->activity = o->activity;
    discrete_attach(e, NULL, NULL, NULL);
    eng_initial_state(e);
    if (!e->failed && e->method->init(e) != 0 && !e->failed)
        eng_fail(e, "out of memory allocating %s storage", e->method->name);
    if (!e->failed && e->disc) discrete_start(e, o->t0);
    e->nchanged = 0; /* initial q's are already everywhere */
    for (int32_t i = 0; e->boundary && i < e->n; i++)
        if (e->boundary[i]) e->boundary[i] = BOUNDARY_QUIET;
    stats->wall_setup += wallclock_seconds() - w0;
    return 0;
}

/* The window length and its controller; on several ranks with adaptive
 * windows the journal that lets a window run again and, where it cannot
 * (or with discontinuities), the window watch. */
static void loop_controls(qss_loop *L) {
    const integrator_options *o = L->o;
    qss_engine *e = &L->eng;
    double wmin, wmax;
    window_bounds(o, &wmin, &wmax);
    L->T = L->last_t = o->t0;
    /* W: the next window's length (several ranks; adaptive: the
     * controller's, starting from window_min) */
    L->W = e->halo && o->window > 0.0 ? o->window : wmin;
    L->ctl = (window_control){.adaptive = e->halo && !(o->window > 0.0),
                              .wmin = wmin,
                              .wmax = wmax,
                              .target = QSS_DRIFT_TARGET,
                              .reject = QSS_DRIFT_REJECT,
                              .ceiling_cut = WINDOW_CEILING_CUT};
    if (!L->ctl.adaptive) return;
    /* a window can be run again when the journal holds all it changes (the
     * discontinuities' too: discrete_undo.h) */
    int undo = journal_setup_agreed(&L->journal, e, 1, L->comm);
    /* without undo (discontinuities whose discrete variables cannot be
     * saved) an over-long window cannot be taken back: the window watch
     * bounds it beforehand as well (qss1 on the thermostat at P = 3 had
     * e_rr 1.9e-2 without, 8.2e-3 with the watch alone) */
    L->use_watch = !undo || problem_has_discontinuities(e->p);
    /* a stop request cannot end a window that cannot be run again */
    if (!undo && o->stop_mid_window && o->window_cap > 0.0) {
        L->ctl.wmax = fmin(L->ctl.wmax, o->window_cap);
        L->ctl.wmin = fmin(L->ctl.wmin, L->ctl.wmax);
    }
    if (L->use_watch && watch_init(e, &L->watch) != 0)
        eng_fail(e, "out of memory for the window watch");
    if (L->use_watch) watch_start(&L->watch, e, o->t0);
}

/* Several ranks with collective discontinuities: the agreed next discrete
 * event, and whether a rank failed (then 1: the loop ends). */
static int agree_next_discrete(qss_loop *L) {
    qss_engine *e = &L->eng;
    if (!(e->halo && e->disc && e->disc->collective)) return e->failed;
    double wt = wallclock_seconds();
    double v[2] = {e->failed ? -1.0 : 0.0, discrete_next_time(e)};
    MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MIN, L->comm);
    L->stats->wall_wait += wallclock_seconds() - wt;
    L->t_discrete = v[1];
    return v[0] < 0.0;
}

/* Several ranks, at the window's end T_end: the exchange, the agreed
 * verdict and the next length. Returns 0 (accepted), WINDOW_REJECTED (put
 * back: run it again, shorter) or -1 (the loop ends). */
static int end_window(qss_loop *L, double T_end, const window_mark *mark) {
    qss_engine *e = &L->eng;
    qmol_stats *stats = L->stats;
    double wx = wallclock_seconds();
    int failed = e->failed;
    int rc = qssx_window(e, &L->x, T_end);
    /* (a rank that stopped ran its events to its stop only: its readers'
     * derivatives at T_end may fail, and a stop takes the window back) */
    e->failed_in_exchange = !failed && e->failed && rc == 0;
    if (rc != 0) eng_fail(e, "out of memory for the window-end exchange");
    stats->wall_exchange += wallclock_seconds() - wx;
    int report = 0;
    /* a window that cannot be run again also waits for the watch */
    double cap = L->use_watch ? WINDOW_FRACTION * watch_scale(e, &L->watch) : INFINITY;
    double stop = e->stopped_at;
    int verdict = window_agree(&L->ctl, e, L->x.drift, cap, T_end - L->T, &L->W, &stop, &report);
    if (report) progress_collect(L->o->progress, T_end, stats->events, stats->wall_wait, L->W);
    if (verdict < 0) return -1;
    if (verdict == WINDOW_STOPPED) {
        /* a rank's stop request came at `stop`: every rank puts the window
         * back and runs it again up to there, without stopping */
        journal_take_back(e, mark, &L->last_t, &L->same_time, &stats->windows_stopped);
        L->W = fmax(stop - L->T, L->ctl.wmin);
        L->redo_to_stop = 1;
        return WINDOW_REJECTED;
    }
    L->redo_to_stop = 0;
    if (verdict == WINDOW_REJECTED) {
        /* every rank puts its window back and runs it again, shorter */
        journal_take_back(e, mark, &L->last_t, &L->same_time, &stats->windows_rejected);
        return WINDOW_REJECTED;
    }
    journal_accept(e);
    if (e->disc && e->disc->collective) discrete_at_window_end(e, T_end);
    discrete_share(e);
    return 0;
}

/* Where the next window ends: T + W, or the next sample (no sliver before
 * it), or the next discrete event any rank knows of (several ranks: all
 * handle it together). */
static double window_end_time(const qss_loop *L, double ts) {
    double T_end = L->T + L->W;
    if (!(T_end < ts - 1e-9 * L->W)) T_end = ts;
    if (L->t_discrete > L->T && L->t_discrete < T_end) T_end = L->t_discrete;
    return T_end;
}

/* The sample at ts (several ranks: the write is collective, so the slowest
 * rank is waited for here and output time is writing time). */
static int write_sample(qss_loop *L, double ts, sample_fn sample, void *ctx) {
    if (L->eng.halo) {
        double wt = wallclock_seconds();
        MPI_Barrier(L->comm);
        L->stats->wall_wait += wallclock_seconds() - wt;
    }
    return emit_sample(&L->eng, L->next_k, ts, L->buf, sample, ctx);
}

/* The windows until the last sample, a failure, or a stop. Returns 0, the
 * first failing sample write's or at_window_end's code, or INTEGRATOR_STOPPED. */
static int run_windows(qss_loop *L, integrator_state *state, sample_fn sample, void *ctx) {
    const integrator_options *o = L->o;
    qss_engine *e = &L->eng;
    qmol_stats *stats = L->stats;
    int rc = 0;
    while (!agree_next_discrete(L)) {
        if (!e->halo)
            L->W = o->window > 0.0 ? o->window : o->window_cap > 0.0 ? o->window_cap : INFINITY;
        double ts = sample_at(o, L->next_k), T_end = window_end_time(L, ts);
        window_mark mark = {L->last_t, L->same_time, stats->events};
        e->window_start = L->T;
        e->stop_polled = e->halo && o->stop_mid_window && e->journal && !L->redo_to_stop;
        e->stopped_at = INFINITY;
        journal_begin(e);
        eng_run_events(e, T_end, L->use_watch ? &L->watch : NULL, &L->last_t, &L->same_time);
        if (!e->halo) T_end = e->events_until; /* earlier when a stop was requested */
        if (!e->halo && o->progress && progress_due(o->progress))
            progress_local(o->progress, T_end, stats->events, 0.0);
        int verdict = e->halo ? end_window(L, T_end, &mark) : 0;
        if (verdict < 0) break;
        if (verdict == WINDOW_REJECTED) continue;
        stats->windows++;
        char why[512];
        if (L->check_mass && !e->failed &&
            mass_check_window(&L->mass, e, T_end, why, sizeof why) != 0) {
            eng_fail(e, "%s", why);
            L->unsuited = 1;
            break;
        }
        if (T_end == ts) {
            if ((rc = write_sample(L, ts, sample, ctx)) != 0) break;
            L->next_k++;
        }
        L->T = T_end;
        if (L->next_k > o->samples) break;
        state->failed = e->failed;
        if (o->at_window_end && (rc = o->at_window_end(o->window_ctx, L->T, state)) != 0) break;
    }
    return rc;
}

int qss_integrate(const model *m, const integrator_options *o, sample_fn sample, void *ctx,
                  qmol_stats *stats, char *err, size_t errlen) {
    if (!integrator_is_qss(o->method)) {
        snprintf(err, errlen, "qss_integrate: %s is not a QSS method",
                 o->method ? o->method->name : "unknown");
        return -1;
    }
    qss_loop *L = calloc(1, sizeof *L);
    if (!L) {
        snprintf(err, errlen, "out of memory allocating QSS storage for %lld states",
                 (long long)m->n_cols);
        return -1;
    }
    if (loop_setup(L, m, o, stats, err, errlen) != 0) {
        loop_free(L);
        free(L);
        return -1;
    }
    qss_engine *e = &L->eng;
    L->w1 = wallclock_seconds();
    L->out0 = stats->wall_output;
    loop_controls(L);
    integrator_state state = {owned_states, run_state_io, run_stats, L, 0, 0.0, 0, NULL};
    if (o->resume && run_state_io(L, o->resume) != 0)
        eng_fail(e, "%s", o->resume->why ? o->resume->why : "cannot load the checkpoint");
    /* BQSS (one rank): the balance of the states' sum, from where the run
     * starts or resumes */
    L->check_mass = !e->halo && integrator_has(o->method, INTEGRATOR_BALANCE_CHECK) && !e->failed;
    if (L->check_mass && mass_check_init(&L->mass, e, L->T) != 0)
        eng_fail(e, "out of memory for the balance check");
    L->next_k = o->first_sample > 0 ? o->first_sample : 1;
    L->t_discrete = INFINITY;
    int rc = run_windows(L, &state, sample, ctx);
    stats->wall_integrate += wallclock_seconds() - L->w1 - (stats->wall_output - L->out0);
    if (e->failed) rc = L->unsuited ? INTEGRATOR_UNSUITED : -1;
    /* a stop is agreed already (at_window_end is collective) */
    if (e->halo && rc != INTEGRATOR_STOPPED)
        rc = comm_agree(L->comm, rc ? 1 : 0, err, errlen) ? -1 : 0;
    loop_free(L);
    free(L);
    return rc;
}
