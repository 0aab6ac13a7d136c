/* cvode_integrate.c: the model integrated by SUNDIALS CVODE (BDF, Newton).
 *
 * One CVODE block (cvode_block.c) run alone from t0 to tf. The right-hand
 * side loops over the local rows (cvode_rows.c), so the same problem code
 * serves QSS and BDF; the linear solvers are in cvode_linsol.c. Samples come
 * from CVODE's dense output (CVodeGetDky) of the owned states; the
 * integration never stops on the output grid.
 *
 * On P ranks CVODE makes the same calls on every rank (its norms are
 * global) and our callbacks agree on their results, so every rank takes the
 * same path. Errors found on one rank only (set-up, a sample callback) are
 * agreed with comm_agree before the next collective step; all ranks return
 * the same rc and message.
 */
#include "comm/agree.h"
#include "cvode/cvode_block.h"
#include "cvode/cvode_internal.h"
#include "core/progress.h"
#include "qss/discrete.h"

#include <cvode/cvode.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Consecutive steps that leave t unchanged before the run is declared stalled. */
#define CV_MAX_STALLED 100

/* Zero crossings and time events under CVODE: CVODE's root finding on the
 * crossing functions, its stop time at the next time event, and a restart
 * (CVodeReInit) after every handler. On P ranks every rank evaluates every
 * crossing function from all their inputs' values (one sum over ranks: each
 * input comes from its owner) and runs every handler on its own copy of the
 * discrete variables, so all ranks take the same path. */
typedef struct cv_discrete {
    const qmol_problem *p;
    MPI_Comm comm; /* MPI_COMM_NULL on one rank */
    int64_t nc;
    int64_t *ptr, *cols; /* crossing inputs (global ids), entry by entry */
    int32_t *owned;      /* per entry: its local row here, or -1 */
    double *inputs;      /* per entry: its value, from its owner */
    int *roots;
    signed char *sign;
    double next_event; /* the next time event (INFINITY: none) */
} cv_discrete;

static void disc_free(cv_discrete *d) {
    free(d->ptr), free(d->cols), free(d->owned), free(d->inputs), free(d->roots), free(d->sign);
}

/* Every crossing input's value from y (collective on P ranks). */
static void refresh_inputs(cv_discrete *d, const double *y) {
    int64_t total = d->ptr[d->nc];
    for (int64_t k = 0; k < total; k++)
        d->inputs[k] = d->owned[k] >= 0 ? y[d->owned[k]] : 0.0;
    if (d->comm != MPI_COMM_NULL)
        MPI_Allreduce(MPI_IN_PLACE, d->inputs, (int)total, MPI_DOUBLE, MPI_SUM, d->comm);
}

static double crossing_at(cv_discrete *d, int64_t c, double t) {
    return d->p->crossing(d->p->data, c, t, d->inputs + d->ptr[c]);
}

static int g_fn(sunrealtype t, N_Vector y, sunrealtype *gout, void *user_data) {
    cv_run *r = user_data;
    cv_discrete *d = r->disc;
    refresh_inputs(d, N_VGetArrayPointer(y));
    for (int64_t c = 0; c < d->nc; c++)
        gout[c] = crossing_at(d, c, t);
    return 0;
}

static int disc_setup(cvode_block *b, cv_discrete *d, char *err, size_t errlen) {
    const qmol_problem *p = b->r.p;
    memset(d, 0, sizeof *d);
    if (discrete_check(p, err, errlen) != 0) return -1;
    d->p = p;
    d->nc = p->n_crossings;
    d->next_event = p->next_time_event ? p->next_time_event(p->data, b->o.t0) : INFINITY;
    d->comm = b->r.halo ? b->r.comm : MPI_COMM_NULL;
    if (d->nc == 0) return 0;
    d->ptr = calloc((size_t)d->nc + 1, sizeof *d->ptr);
    d->roots = calloc((size_t)d->nc, sizeof *d->roots);
    d->sign = calloc((size_t)d->nc, 1);
    if (!d->ptr || !d->roots || !d->sign) goto oom;
    for (int64_t c = 0; c < d->nc; c++) {
        d->ptr[c + 1] = d->ptr[c] + p->crossing_size(p->data, c); /* sizes: discrete_check */
    }
    if (d->ptr[d->nc] > INT32_MAX) {
        snprintf(err, errlen, "crossing functions read %lld states in all (at most %d)",
                 (long long)d->ptr[d->nc], INT32_MAX);
        return -1;
    }
    size_t total = (size_t)d->ptr[d->nc] + 1;
    d->cols = malloc(total * sizeof *d->cols);
    d->owned = malloc(total * sizeof *d->owned);
    d->inputs = malloc(total * sizeof *d->inputs);
    if (!d->cols || !d->owned || !d->inputs) goto oom;
    for (int64_t c = 0; c < d->nc; c++) {
        if (d->ptr[c + 1] > d->ptr[c]) p->crossing_row(p->data, c, d->cols + d->ptr[c]);
        for (int64_t k = d->ptr[c]; k < d->ptr[c + 1]; k++)
            if (d->cols[k] < 0 || d->cols[k] >= p->n) {
                snprintf(err, errlen, "crossing function %lld reads state %lld, outside [0, %lld)",
                         (long long)c, (long long)d->cols[k], (long long)p->n);
                return -1;
            }
    }
    for (int64_t k = 0; k < d->ptr[d->nc]; k++)
        d->owned[k] = model_row_of(b->r.m, d->cols[k]);
    return 0;
oom:
    snprintf(err, errlen, "out of memory for %lld crossing functions", (long long)d->nc);
    return -1;
}

/* The initial signs and CVODE's root finding (collective). */
static int disc_start(cvode_block *b, cv_discrete *d, char *err, size_t errlen) {
    if (d->nc == 0) return 0;
    refresh_inputs(d, cvode_block_state(b));
    for (int64_t c = 0; c < d->nc; c++)
        d->sign[c] = discrete_sign(crossing_at(d, c, b->o.t0));
    b->r.disc = d;
    int flag = CVodeRootInit(b->mem, (int)d->nc, g_fn);
    return cvl_check(flag, "CVodeRootInit", &b->r, err, errlen);
}

/* After handlers at t: crossings whose sign a handler flipped fire too, until
 * none does; then CVODE restarts at t. */
static int disc_settle(cvode_block *b, cv_discrete *d, double t, qmol_stats *stats, char *err,
                       size_t errlen) {
    const integrator_options *o = &b->o;
    if (d->nc > 0) refresh_inputs(d, cvode_block_state(b));
    for (int round = 0;; round++) {
        int fired = 0;
        for (int64_t c = 0; c < d->nc; c++) {
            signed char s = discrete_sign(crossing_at(d, c, t));
            if (s == 0 || s == d->sign[c]) continue;
            int direction = s > d->sign[c] ? 1 : -1;
            d->sign[c] = s;
            d->p->on_crossing(d->p->data, c, direction, t);
            if (stats) stats->crossings++;
            if (o->on_discrete) o->on_discrete(o->discrete_ctx, t, c, direction);
            fired = 1;
        }
        if (!fired) break;
        if (round >= 100) {
            snprintf(err, errlen,
                     "discontinuity handlers do not settle at t=%.17g: crossings keep flipping "
                     "each other",
                     t);
            return -1;
        }
    }
    return cvode_block_reinit(b, t, err, errlen);
}

/* The stop time: tf or the next time event, whichever is first. */
static int set_stop(cvode_block *b, cv_discrete *d, char *err, size_t errlen) {
    double stop = d->next_event < b->o.tf ? d->next_event : b->o.tf;
    int flag = CVodeSetStopTime(cvode_block_mem(b), stop);
    return cvl_check(flag, "CVodeSetStopTime", &b->r, err, errlen);
}

/* Handles a root or time-event return at tret. Returns 0 or -1 with err. */
static int disc_handle(cvode_block *b, cv_discrete *d, int flag, double tret, qmol_stats *stats,
                       char *err, size_t errlen) {
    const integrator_options *o = &b->o;
    if (flag == CV_ROOT_RETURN) {
        int rf = CVodeGetRootInfo(b->mem, d->roots);
        if (rf < 0) return cvl_check(rf, "CVodeGetRootInfo", &b->r, err, errlen);
        for (int64_t c = 0; c < d->nc; c++) {
            if (!d->roots[c]) continue;
            d->sign[c] = (signed char)(d->roots[c] > 0 ? 1 : -1);
            d->p->on_crossing(d->p->data, c, d->roots[c], tret);
            if (stats) stats->crossings++;
            if (o->on_discrete) o->on_discrete(o->discrete_ctx, tret, c, d->roots[c]);
        }
    } else { /* the time event */
        d->p->on_time_event(d->p->data, tret);
        if (stats) stats->time_events++;
        if (o->on_discrete) o->on_discrete(o->discrete_ctx, tret, -1, 0);
        double next = d->p->next_time_event(d->p->data, tret);
        if (!(next > tret)) {
            snprintf(err, errlen, "next_time_event(t=%.17g) returned %.17g: must be later than t",
                     tret, next);
            return -1;
        }
        d->next_event = next;
    }
    if (disc_settle(b, d, tret, stats, err, errlen)) return -1;
    return set_stop(b, d, err, errlen);
}

/* Delivers the samples at or before tret (all remaining ones at the stop
 * time). Returns 0 or the run's rc with err set (agreed on P ranks). */
static int deliver(cvode_block *b, double tret, int at_stop, int64_t *k, sample_fn sample,
                   void *ctx, double *sample_wall, char *err, size_t errlen) {
    const integrator_options *o = &b->o;
    cv_run *r = &b->r;
    while (*k <= o->samples) {
        double tk = sample_at(o, *k);
        if (!(tk <= tret || at_stop)) break;
        int flag = CVodeGetDky(b->mem, tk, 0, b->yk);
        if (flag < 0) {
            char name[64];
            cvl_flag_name(flag, name, sizeof name);
            snprintf(err, errlen, "CVodeGetDky failed for sample %lld at t=%.17g: %s%s%s",
                     (long long)*k, tk, name, r->cvmsg[0] ? ": " : "", r->cvmsg);
            return -1;
        }
        double s0 = MPI_Wtime();
        int src = sample(ctx, *k, tk, N_VGetArrayPointer(b->yk));
        *sample_wall += MPI_Wtime() - s0;
        if (src != 0 && !err[0]) sample_stopped(err, errlen, *k, tk, src);
        src = cvk_agree(r, src, err, errlen);
        if (src != 0) return src;
        (*k)++;
    }
    return 0;
}

/* What a CVODE checkpoint holds besides y: the discontinuities' state. */
typedef struct cv_state {
    cvode_block *b;
    cv_discrete *d;
} cv_state;

/* integrator_state's states: y at the last step (t is its time). */
static void cv_states(void *ictx, double t, double *x) {
    cvode_block *b = ((cv_state *)ictx)->b;
    (void)t;
    const double *y = N_VGetArrayPointer(b->y);
    sunindextype n = (sunindextype)b->r.m->n;
    for (sunindextype j = 0; j < n; j++)
        x[j] = y[j];
}

/* integrator_state's local_errors. */
static void cv_local_errors(void *ictx, double *we) {
    cvode_block_local_errors(((cv_state *)ictx)->b, we);
}

/* integrator_state's stats: CVODE's counters so far. */
static void cv_stats(void *ictx, qmol_stats *s) {
    char err[256];
    cvode_block_add_stats(((cv_state *)ictx)->b, s, 1, err, sizeof err);
}

/* integrator_state's save, and a restart's load: the next time event and
 * each crossing's last sign (at a root the crossing is near 0, so its sign
 * cannot be read again from the states). */
static int cv_state_io(void *ictx, state_io *io) {
    cv_state *s = ictx;
    cv_discrete *d = s->d;
    if (!problem_has_discontinuities(s->b->r.p)) return 0;
    double *sign = calloc((size_t)d->nc + 1, sizeof *sign);
    if (cvk_agree(&s->b->r, sign ? 0 : -1, NULL, 0)) {
        free(sign);
        io->why = "out of memory for the checkpoint's crossing signs";
        return -1;
    }
    for (int64_t c = 0; !io->loading && c < d->nc; c++)
        sign[c] = d->sign[c];
    int rc = io->scalar(io, "next_time_event", &d->next_event) ||
             (d->nc > 0 && io->vector(io, "crossing_sign", d->nc, sign));
    for (int64_t c = 0; rc == 0 && io->loading && c < d->nc; c++)
        d->sign[c] = (signed char)sign[c];
    free(sign);
    return rc ? -1 : 0;
}

/* One step at a time; after each, deliver every sample it passed. */
static int integrate(cvode_block *b, cv_discrete *d, sample_fn sample, void *ctx,
                     double *sample_wall, qmol_stats *stats, char *err, size_t errlen) {
    const integrator_options *o = &b->o;
    cv_run *r = &b->r;
    int64_t k = o->first_sample > 0 ? o->first_sample : 1;
    double tret = o->t0;
    long nsteps = 0, stalled = 0;
    uint64_t steps = 0; /* for progress reports (nsteps restarts at discontinuities) */
    /* y is CVODE's saved state (with the discontinuities', cv_state_io):
     * SUNDIALS 6 has no public way to set its step history (the Nordsieck
     * array, order, step size), so a resumed run starts at order 1 again.
     * Its first step from the saved step size took more steps than CVODE's
     * own estimate (heat2d: 59 and 56, 52 without a stop): not saved. */
    cv_state cs = {b, d};
    integrator_state state = {cv_states, cv_state_io, cv_stats, &cs, 0, 0.0, 0, cv_local_errors};
    if (o->resume && cv_state_io(&cs, o->resume)) {
        snprintf(err, errlen, "%s", o->resume->why ? o->resume->why : "cannot load the checkpoint");
        return -1;
    }
    if (set_stop(b, d, err, errlen)) return -1;
    while (k <= o->samples) {
        if (++nsteps > CV_MAX_STEPS) {
            snprintf(err, errlen,
                     "CVODE took %ld steps without reaching tf=%.17g or a discontinuity and "
                     "stopped at t=%.17g",
                     CV_MAX_STEPS, o->tf, tret);
            return -1;
        }
        double tprev = tret;
        int flag = CVode(b->mem, o->tf, b->y, &tret, CV_ONE_STEP);
        /* CVODE only warns when t + h == t and then keeps going; so can a run
         * whose right-hand side fails (recoverably) beyond some time. */
        stalled = tret > tprev ? 0 : stalled + 1;
        if (flag >= 0 && stalled >= CV_MAX_STALLED) {
            snprintf(err, errlen,
                     "CVODE stalled at t=%.17g: %ld steps without progress (step size below "
                     "roundoff, or the right-hand side fails just beyond t)",
                     tret, stalled);
            return -1;
        }
        if (flag < 0) {
            char name[64];
            cvl_flag_name(flag, name, sizeof name);
            snprintf(err, errlen, "CVODE failed at t=%.17g: %s%s%s%s%s", tret, name,
                     r->cvmsg[0] ? ": " : "", r->cvmsg, r->cbmsg[0] ? ": " : "", r->cbmsg);
            return -1;
        }
        int at_end = flag == CV_TSTOP_RETURN && !(tret < o->tf);
        int rc = deliver(b, tret, at_end, &k, sample, ctx, sample_wall, err, errlen);
        if (rc) return rc;
        steps++;
        /* steps are the same on every rank: rank 0 reports alone */
        if (o->progress && progress_due(o->progress)) progress_local(o->progress, tret, steps, 0.0);
        if (flag == CV_ROOT_RETURN || (flag == CV_TSTOP_RETURN && !at_end)) {
            if (disc_handle(b, d, flag, tret, stats, err, errlen)) return -1;
            stalled = 0;
            nsteps = 0;
        }
        state.next_step = cvode_block_next_step(b);
        if (k <= o->samples && o->at_window_end &&
            (rc = o->at_window_end(o->window_ctx, tret, &state)) != 0)
            return rc;
    }
    return 0;
}

int cvode_integrate(const model *m, const integrator_options *o, sample_fn sample, void *ctx,
                    qmol_stats *stats, char *err, size_t errlen) {
    double wall0 = MPI_Wtime();
    if (errlen) err[0] = '\0';
    if (!sample) {
        snprintf(err, errlen, "cvode_integrate: a sample callback is required");
        return -1;
    }
    if (o && o->samples < 1) {
        snprintf(err, errlen, "samples=%lld: at least 1 sample is needed", (long long)o->samples);
        return -1;
    }
    cvode_block *b = cvode_block_open(m, o, NULL, err, errlen);
    if (!b) return -1;
    cv_discrete d;
    memset(&d, 0, sizeof d);
    d.next_event = INFINITY;
    int rc = 0;
    if (problem_has_discontinuities(m->problem)) rc = disc_setup(b, &d, err, errlen);
    rc = cvk_agree(&b->r, rc, err, errlen);
    if (rc == 0 && problem_has_discontinuities(m->problem))
        rc = cvk_agree(&b->r, disc_start(b, &d, err, errlen), err, errlen);
    double wall1 = MPI_Wtime(), sample_wall = 0.0;
    if (stats) stats->wall_setup += wall1 - wall0;
    if (rc == 0) rc = integrate(b, &d, sample, ctx, &sample_wall, stats, err, errlen);
    /* Statistics also on failure: they help to explain it. */
    char serr[512] = "";
    if (cvode_block_add_stats(b, stats, 1, serr, sizeof serr) && rc == 0) {
        snprintf(err, errlen, "%s", serr);
        rc = -1;
    }
    if (stats) {
        stats->wall_integrate += MPI_Wtime() - wall1 - sample_wall;
        stats->wall_output += sample_wall;
    }
    rc = cvk_agree(&b->r, rc, err, errlen);
    if (o->last_step) *o->last_step = cvode_block_next_step(b);
    cvode_block_close(b);
    disc_free(&d);
    return rc;
}
