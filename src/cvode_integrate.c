/* cvode_integrate.c: the model integrated by SUNDIALS CVODE (BDF, Newton).
 *
 * One CVODE instance on an NVECTOR_PARALLEL vector: over MPI_COMM_SELF on one
 * rank, over the halo's communicator on P ranks, each rank holding its owned
 * states. The right-hand side loops over the local rows (cvode_rows.c), so
 * the same problem code serves QSS and BDF; the linear solvers are in
 * cvode_linsol.c. Samples come from CVODE's dense output (CVodeGetDky) of the
 * owned states; the integration never stops on the output grid.
 *
 * On P ranks CVODE makes the same calls on every rank (its norms are
 * global) and our callbacks agree on their results, so every rank takes the
 * same path. Errors found on one rank only (set-up, a sample callback) are
 * agreed with comm_agree before the next collective step; all ranks return
 * the same rc and message.
 */
#include "agree.h"
#include "cvode_internal.h"

#include <cvode/cvode.h>
#include <nvector/nvector_parallel.h>
#include <sundials/sundials_context.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CV_ONE_STEP makes CVODE's mxstep apply per call, so the total is capped here. */
#define CV_MAX_STEPS 10000000L
/* Consecutive steps that leave t unchanged before the run is declared stalled. */
#define CV_MAX_STALLED 100

/* What the integration owns; freed by release(). */
typedef struct cv_objects {
    SUNContext sunctx;
    N_Vector y, yk, atol; /* atol: per-state absolute tolerances, or NULL */
    SUNMatrix A;
    SUNLinearSolver LS;
    void *mem;
} cv_objects;

/* Keeps CVODE's last error (not its warnings) for our one-line message. */
static void err_handler(int code, const char *module, const char *function, char *msg,
                        void *user_data) {
    cv_run *r = user_data;
    if (code >= 0) return;
    snprintf(r->cvmsg, sizeof r->cvmsg, "%s/%s: %s", module, function, msg);
    for (char *c = r->cvmsg; *c; c++)
        if (*c == '\n' || *c == '\r') *c = ' ';
}

static int check_options(const model *m, const integrator_options *o, sample_fn sample, char *err,
                         size_t errlen) {
    if (!m || !m->problem || !o || !sample) {
        snprintf(err, errlen, "cvode_integrate: model, options and sample callback are required");
        return -1;
    }
    if (m->n < 1) {
        snprintf(err, errlen, "cvode_integrate: the model has no states");
        return -1;
    }
    if (o->samples < 1) {
        snprintf(err, errlen, "samples=%lld: at least 1 sample is needed", (long long)o->samples);
        return -1;
    }
    if (!(o->tf > o->t0) || !isfinite(o->t0) || !isfinite(o->tf)) {
        snprintf(err, errlen, "final time %g must be finite and after the initial time %g", o->tf,
                 o->t0);
        return -1;
    }
    if (!(o->reltol >= 0.0) || !(o->abstol >= 0.0) || (o->reltol == 0.0 && o->abstol == 0.0)) {
        snprintf(err, errlen,
                 "CVODE tolerances reltol=%g, abstol=%g: both must be >= 0, not both 0", o->reltol,
                 o->abstol);
        return -1;
    }
    if (o->max_order < 0 || o->max_order > 5) {
        snprintf(err, errlen, "CVODE max order %d outside 1..5 (0: default 5)", o->max_order);
        return -1;
    }
    if (o->linsol != LINSOL_KLU && o->linsol != LINSOL_BAND && o->linsol != LINSOL_SPGMR &&
        o->linsol != LINSOL_AUTO) {
        snprintf(err, errlen, "unknown CVODE linear solver %d (KLU, band, SPGMR or auto)",
                 (int)o->linsol);
        return -1;
    }
    if (o->halo && (o->linsol == LINSOL_KLU || o->linsol == LINSOL_BAND)) {
        snprintf(err, errlen,
                 "CVODE linear solver %s: needs all states on one rank; on %d ranks use SPGMR "
                 "(block-Jacobi KLU preconditioner)",
                 linsol_name(o->linsol), o->halo->size);
        return -1;
    }
    if (o->halo && (o->halo->n_owned != m->n || o->halo->n_owned + o->halo->n_ghost != m->n_cols)) {
        snprintf(err, errlen,
                 "cvode_integrate: the halo plan (%d owned, %d ghosts) does not match "
                 "the model (%d rows, %d columns)",
                 (int)o->halo->n_owned, (int)o->halo->n_ghost, (int)m->n, (int)m->n_cols);
        return -1;
    }
    return 0;
}

/* Local set-up: buffers, vectors, the linear solver and its preconditioner
 * (no communication, so a failure here can be agreed on afterwards). */
static int create_local(cv_run *r, const integrator_options *o, linsol_id which, cv_objects *c,
                        char *err, size_t errlen) {
    const model *m = r->m;
    const qmol_problem *p = r->p;
    if (cvr_alloc(r)) {
        snprintf(err, errlen, "out of memory for CVODE row buffers (n=%d, nnz=%lld)", (int)m->n,
                 (long long)m->nnz);
        return -1;
    }
    if (SUNContext_Create(&r->comm, &c->sunctx) != 0 || !c->sunctx) {
        snprintf(err, errlen, "SUNContext_Create failed");
        return -1;
    }
    sunindextype global = r->halo ? (sunindextype)r->halo->n_global : (sunindextype)m->n;
    c->y = N_VNew_Parallel(r->comm, (sunindextype)m->n, global, c->sunctx);
    if (c->y) c->yk = N_VClone(c->y);
    if (!c->y || !c->yk) {
        snprintf(err, errlen, "failed to create the CVODE parallel vectors (n=%d)", (int)m->n);
        return -1;
    }
    double *x = N_VGetArrayPointer(c->y);
    for (int32_t j = 0; j < m->n; j++)
        x[j] = p->x0(p->data, model_gid(m, j));
    if (p->abstol_scale) { /* per-state absolute tolerances, as the QSS quanta */
        c->atol = N_VClone(c->y);
        if (!c->atol) {
            snprintf(err, errlen, "out of memory for the CVODE tolerance vector");
            return -1;
        }
        double *a = N_VGetArrayPointer(c->atol);
        for (int32_t j = 0; j < m->n; j++)
            a[j] = o->abstol * p->abstol_scale(p->data, model_gid(m, j));
    }
    return cvl_create(r, which, c->y, c->sunctx, &c->A, &c->LS, err, errlen);
}

/* The CVODE instance (local work). */
static int create_cvode(cv_run *r, const integrator_options *o, cv_objects *c, char *err,
                        size_t errlen) {
    c->mem = CVodeCreate(CV_BDF, c->sunctx);
    if (!c->mem) {
        snprintf(err, errlen, "CVodeCreate failed (out of memory?)");
        return -1;
    }
    int flag = CVodeSetErrHandlerFn(c->mem, err_handler, r);
    if (cvl_check(flag, "CVodeSetErrHandlerFn", r, err, errlen)) return -1;
    flag = CVodeInit(c->mem, cvr_rhs, o->t0, c->y);
    if (cvl_check(flag, "CVodeInit", r, err, errlen)) return -1;
    flag = CVodeSetUserData(c->mem, r);
    return cvl_check(flag, "CVodeSetUserData", r, err, errlen);
}

/* Tolerances, options and the linear solver (collective: the check of the
 * tolerance vector takes a global minimum). */
static int configure_cvode(cv_run *r, const integrator_options *o, linsol_id which, cv_objects *c,
                           char *err, size_t errlen) {
    void *mem = c->mem;
    int flag;
    if (c->atol) {
        flag = CVodeSVtolerances(mem, o->reltol, c->atol);
        if (cvl_check(flag, "CVodeSVtolerances", r, err, errlen)) return -1;
    } else {
        flag = CVodeSStolerances(mem, o->reltol, o->abstol);
        if (cvl_check(flag, "CVodeSStolerances", r, err, errlen)) return -1;
    }
    flag = CVodeSetMaxOrd(mem, o->max_order ? o->max_order : 5);
    if (cvl_check(flag, "CVodeSetMaxOrd", r, err, errlen)) return -1;
    flag = CVodeSetMaxNumSteps(mem, CV_MAX_STEPS);
    if (cvl_check(flag, "CVodeSetMaxNumSteps", r, err, errlen)) return -1;
    flag = CVodeSetStopTime(mem, o->tf);
    if (cvl_check(flag, "CVodeSetStopTime", r, err, errlen)) return -1;
    return cvl_attach(r, mem, which, c->A, c->LS, err, errlen);
}

/* On P ranks every rank returns the lowest failing rank's rc and message. */
static int agree(const cv_run *r, int rc, char *err, size_t errlen) {
    return r->halo ? comm_agree(r->comm, rc, err, errlen) : rc;
}

static int add_stats(void *mem, const cv_run *r, qmol_stats *stats, char *err, size_t errlen) {
    long steps = 0, nni = 0, nli = 0, netf = 0, ncf = 0;
    int flag = CVodeGetNumSteps(mem, &steps);
    if (flag >= 0) flag = CVodeGetNumNonlinSolvIters(mem, &nni);
    if (flag >= 0) flag = CVodeGetNumLinIters(mem, &nli);
    if (flag >= 0) flag = CVodeGetNumErrTestFails(mem, &netf);
    if (flag >= 0) flag = CVodeGetNumNonlinSolvConvFails(mem, &ncf);
    if (flag < 0) return cvl_check(flag, "a CVodeGetNum* statistics call", r, err, errlen);
    if (!stats) return 0;
    /* CVODE's counters are global (the same on every rank); the row
     * evaluations are this rank's, so they add up over ranks */
    stats->steps += (uint64_t)steps;
    stats->events += (uint64_t)steps;
    stats->newton_iters += (uint64_t)nni;
    stats->lin_iters += (uint64_t)nli;
    stats->err_test_fails += (uint64_t)netf;
    stats->conv_fails += (uint64_t)ncf;
    stats->jac_setups += r->jac_setups;
    stats->rhs_evals += (uint64_t)r->m->n * r->rhs_calls + r->fd_evals;
    stats->jac_evals += r->jac_rows;
    const halo_plan *h = r->halo;
    if (h) { /* each exchange sends the same lists */
        uint64_t dests = 0;
        for (int d = 0; d < h->ndests; d++)
            dests += h->send_ptr[d + 1] > h->send_ptr[d];
        stats->messages += r->exchanges * dests;
        stats->bytes_sent += r->exchanges * (uint64_t)h->send_ptr[h->ndests] * sizeof(double);
        stats->wall_exchange += r->wall_exchange;
    }
    return 0;
}

/* Delivers the samples at or before tret (all remaining ones at the stop
 * time). Returns 0 or the run's rc with err set (agreed on P ranks). */
static int deliver(cv_run *r, const integrator_options *o, cv_objects *c, double tret, int at_stop,
                   int64_t *k, sample_fn sample, void *ctx, double *sample_wall, char *err,
                   size_t errlen) {
    while (*k <= o->samples) {
        double tk = sample_time(o->t0, o->tf, *k, o->samples);
        if (!(tk <= tret || at_stop)) break;
        int flag = CVodeGetDky(c->mem, tk, 0, c->yk);
        if (flag < 0) {
            char name[64];
            cvl_flag_name(flag, name, sizeof name);
            snprintf(err, errlen, "CVodeGetDky failed for sample %lld at t=%.17g: %s%s%s",
                     (long long)*k, tk, name, r->cvmsg[0] ? ": " : "", r->cvmsg);
            return -1;
        }
        double s0 = MPI_Wtime();
        int src = sample(ctx, *k, tk, N_VGetArrayPointer(c->yk));
        *sample_wall += MPI_Wtime() - s0;
        if (src != 0 && !err[0])
            snprintf(err, errlen, "sample %lld at t=%.17g stopped the run (code %d)", (long long)*k,
                     tk, src);
        src = agree(r, src, err, errlen);
        if (src != 0) return src;
        (*k)++;
    }
    return 0;
}

/* One step at a time; after each, deliver every sample it passed. */
static int integrate(cv_run *r, const integrator_options *o, cv_objects *c, sample_fn sample,
                     void *ctx, double *sample_wall, char *err, size_t errlen) {
    int64_t k = 1;
    double tret = o->t0;
    long nsteps = 0, stalled = 0;
    while (k <= o->samples) {
        if (++nsteps > CV_MAX_STEPS) {
            snprintf(err, errlen, "CVODE took %ld steps and stopped at t=%.17g before tf=%.17g",
                     CV_MAX_STEPS, tret, o->tf);
            return -1;
        }
        double tprev = tret;
        int flag = CVode(c->mem, o->tf, c->y, &tret, CV_ONE_STEP);
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
        int rc = deliver(r, o, c, tret, flag == CV_TSTOP_RETURN, &k, sample, ctx, sample_wall, err,
                         errlen);
        if (rc) return rc;
    }
    return 0;
}

static void release(cv_run *r, cv_objects *c) {
    CVodeFree(&c->mem);
    if (c->LS) SUNLinSolFree(c->LS);
    if (c->A) SUNMatDestroy(c->A);
    if (c->atol) N_VDestroy(c->atol);
    if (c->yk) N_VDestroy(c->yk);
    if (c->y) N_VDestroy(c->y);
    cvb_free(r);
    if (c->sunctx) SUNContext_Free(&c->sunctx);
    free(r->vals);
    free(r->xloc);
    free(r->vloc);
    free(r->jval);
    free(r->sp_ptr);
    free(r->sp_col);
    free(r->sp_pos);
    free(r->sp_diag);
    free(r->pinv);
}

int cvode_integrate(const model *m, const integrator_options *o, sample_fn sample, void *ctx,
                    qmol_stats *stats, char *err, size_t errlen) {
    double wall0 = MPI_Wtime();
    if (errlen) err[0] = '\0';
    cv_run r;
    memset(&r, 0, sizeof r);
    cv_objects c;
    memset(&c, 0, sizeof c);
    r.halo = o ? o->halo : NULL;
    r.comm = r.halo ? r.halo->comm : MPI_COMM_SELF;

    int rc = check_options(m, o, sample, err, errlen);
    linsol_id which = LINSOL_AUTO;
    if (rc == 0) {
        r.m = m;
        r.p = m->problem;
        r.analytic_jac = o->use_jacobian && r.p->jac != NULL;
        r.block_jacobi = o->precond == PRECOND_BLOCK || (o->precond == PRECOND_AUTO && r.halo);
        which = o->linsol == LINSOL_AUTO ? cvode_choose_linsol(m, r.halo) : o->linsol;
        rc = create_local(&r, o, which, &c, err, errlen);
    }
    /* every rank reaches the collective set-up, or none does */
    if (agree(&r, rc, err, errlen)) {
        release(&r, &c);
        return -1;
    }
    rc = agree(&r, create_cvode(&r, o, &c, err, errlen), err, errlen);
    if (rc == 0) rc = agree(&r, configure_cvode(&r, o, which, &c, err, errlen), err, errlen);
    double wall1 = MPI_Wtime(), sample_wall = 0.0;
    if (stats) stats->wall_setup += wall1 - wall0;
    int integrating = rc == 0;
    if (integrating) rc = integrate(&r, o, &c, sample, ctx, &sample_wall, err, errlen);
    if (c.mem) {
        /* Statistics also on failure: they help to explain it. */
        char serr[512] = "";
        if (add_stats(c.mem, &r, stats, serr, sizeof serr) && rc == 0) {
            snprintf(err, errlen, "%s", serr);
            rc = -1;
        }
        if (stats && integrating) {
            stats->wall_integrate += MPI_Wtime() - wall1 - sample_wall;
            stats->wall_output += sample_wall;
        }
    }
    rc = agree(&r, rc, err, errlen);
    release(&r, &c);
    return rc;
}
