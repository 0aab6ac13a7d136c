/* cvode_block.c: creating, advancing and releasing one CVODE-BDF instance.
 *
 * One CVODE instance on a distributed vector (cvode_vector.c: NVECTOR_PARALLEL,
 * or threaded for large blocks): over MPI_COMM_SELF on one rank, over the
 * halo's communicator on P ranks, each rank holding its owned states.
 * Set-up that fails on one rank only is agreed on before the next collective
 * call, so that all ranks return the same rc and message.
 */
#include "comm/agree.h"
#include "core/initial.h"
#include "cvode/cvode_block.h"
#include "cvode/cvode_internal.h"

#include <cvode/cvode.h>
#include <sundials/sundials_context.h>

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cvk_agree(const cv_run *r, int rc, char *err, size_t errlen) {
    return r->distributed ? comm_agree(r->comm, rc, err, errlen) : rc;
}

/* Keeps CVODE's last error (not its warnings) for our one-line message. */
static void err_handler(int code, const char *module, const char *function, char *msg,
                        void *user_data) {
    cv_run *r = user_data;
    if (code >= 0) return;
    snprintf(r->cvmsg, sizeof r->cvmsg, "%s/%s: %s", module, function, msg);
    for (char *c = r->cvmsg; *c; c++)
        if (*c == '\n' || *c == '\r') *c = ' ';
}

static int check_options(const model *m, const integrator_options *o, int distributed, char *err,
                         size_t errlen) {
    if (!m || !m->problem || !o) {
        snprintf(err, errlen, "cvode: model and options are required");
        return -1;
    }
    if (m->n < (distributed ? 0 : 1)) {
        snprintf(err, errlen, "cvode: the model has no states");
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
    if (distributed && (o->linsol == LINSOL_KLU || o->linsol == LINSOL_BAND)) {
        snprintf(err, errlen,
                 "CVODE linear solver %s: needs all states on one rank; on several ranks use "
                 "SPGMR (ILU(0) preconditioner per rank)",
                 linsol_name(o->linsol));
        return -1;
    }
    if (o->halo && (o->halo->n_owned != m->n || o->halo->n_owned + o->halo->n_ghost != m->n_cols)) {
        snprintf(err, errlen,
                 "cvode: the halo plan (%d owned, %d ghosts) does not match "
                 "the model (%d rows, %d columns)",
                 (int)o->halo->n_owned, (int)o->halo->n_ghost, (int)m->n, (int)m->n_cols);
        return -1;
    }
    return 0;
}

/* Local set-up: buffers, vectors, the linear solver and its preconditioner
 * (no communication, so a failure here can be agreed on afterwards). */
static int create_local(cvode_block *b, linsol_id which, char *err, size_t errlen) {
    cv_run *r = &b->r;
    const model *m = r->m;
    const qmol_problem *p = r->p;
    const integrator_options *o = &b->o;
    if (cvr_alloc(r)) {
        snprintf(err, errlen, "out of memory for CVODE row buffers (n=%d, nnz=%lld)", (int)m->n,
                 (long long)m->nnz);
        return -1;
    }
    if (SUNContext_Create(&r->comm, &b->sunctx) != 0 || !b->sunctx) {
        snprintf(err, errlen, "SUNContext_Create failed");
        return -1;
    }
    sunindextype global = (sunindextype)r->n_global;
    if (r->active) {
        b->y = cva_vector_new(r->active, b->sunctx);
        if (o->cvode_norm == CVODE_NORM_MAX) cva_set_use_max_norm(r->active);
    } else if (cvv_create(&b->state, r->comm, (sunindextype)m->n, global, r->nthreads, b->sunctx) ==
               0) {
        b->y = b->state.v;
        if (o->cvode_norm == CVODE_NORM_MAX) cvv_use_max_norm(&b->state);
    }
    if (b->y) b->yk = N_VClone(b->y);
    if (!b->y || !b->yk) {
        snprintf(err, errlen, "failed to create the CVODE vectors (n=%d)", (int)m->n);
        return -1;
    }
    double *x = N_VGetArrayPointer(b->y); /* NULL when this rank holds no state */
    for (int32_t j = 0; j < m->n; j++)
        x[j] = initial_value(o->start, p, model_gid(m, j));
    if (p->abstol_scale) { /* per-state absolute tolerances, as the QSS quanta */
        b->atol = N_VClone(b->y);
        if (!b->atol) {
            snprintf(err, errlen, "out of memory for the CVODE tolerance vector");
            return -1;
        }
        double *a = N_VGetArrayPointer(b->atol);
        for (int32_t j = 0; j < m->n; j++)
            a[j] = o->abstol * p->abstol_scale(p->data, model_gid(m, j));
    }
    return cvl_create(r, which, b->y, b->sunctx, &b->A, &b->LS, err, errlen);
}

/* The CVODE instance (local work). */
static int create_cvode(cvode_block *b, char *err, size_t errlen) {
    cv_run *r = &b->r;
    b->mem = CVodeCreate(CV_BDF, b->sunctx);
    if (!b->mem) {
        snprintf(err, errlen, "CVodeCreate failed (out of memory?)");
        return -1;
    }
    int flag = CVodeSetErrHandlerFn(b->mem, err_handler, r);
    if (cvl_check(flag, "CVodeSetErrHandlerFn", r, err, errlen)) return -1;
    flag = CVodeInit(b->mem, cvr_rhs, b->o.t0, b->y);
    if (cvl_check(flag, "CVodeInit", r, err, errlen)) return -1;
    flag = CVodeSetUserData(b->mem, r);
    return cvl_check(flag, "CVodeSetUserData", r, err, errlen);
}

/* Tolerances, options and the linear solver (collective: the check of the
 * tolerance vector takes a global minimum). */
static int configure_cvode(cvode_block *b, linsol_id which, char *err, size_t errlen) {
    cv_run *r = &b->r;
    const integrator_options *o = &b->o;
    void *mem = b->mem;
    int flag;
    if (b->atol) {
        flag = CVodeSVtolerances(mem, o->reltol, b->atol);
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
    if (cvl_attach(r, mem, which, b->A, b->LS, err, errlen)) return -1;
    /* SPGMR's residual bound is a 2-norm, CVODE's tolerance a norm of the
     * weighted errors: for the RMS norm CVODE scales by sqrt(n); a bound on
     * the largest component needs the 2-norm itself (it is at least that) */
    if (which == LINSOL_SPGMR && o->cvode_norm == CVODE_NORM_MAX) {
        flag = CVodeSetLSNormFactor(mem, 1.0);
        if (cvl_check(flag, "CVodeSetLSNormFactor", r, err, errlen)) return -1;
    }
    return 0;
}

void cvode_block_close(cvode_block *b) {
    if (!b) return;
    cv_run *r = &b->r;
    CVodeFree(&b->mem);
    if (b->LS) SUNLinSolFree(b->LS);
    if (b->A) SUNMatDestroy(b->A);
    if (b->atol) N_VDestroy(b->atol);
    if (b->yk) N_VDestroy(b->yk);
    if (r->active && b->y) N_VDestroy(b->y);
    cvv_destroy(&b->state);
    cva_set_free(r->active); /* after every vector of the set */
    free(r->ring);
    free(b->entering);
    cvpre_free(r);
    if (b->sunctx) SUNContext_Free(&b->sunctx);
    free(r->vals);
    free(r->xloc);
    free(r->vloc);
    free(r->jval);
    free(r->sp_ptr);
    free(r->sp_col);
    free(r->sp_pos);
    free(r->sp_diag);
    free(b);
}

/* The inactive states that active rows read (r->ring, room for n). */
static void build_ring(cv_run *r) {
    const model *m = r->m;
    int32_t n;
    const int64_t *rows = cvr_rows(r, &n);
    r->nring = 0;
    for (int32_t k = 0; k < n; k++) {
        int32_t j = (int32_t)rows[k];
        for (int64_t e = m->row_ptr[j]; e < m->row_ptr[j + 1]; e++) {
            int32_t c = m->row_col[e];
            if (!cva_active(r->active, c)) r->ring[r->nring++] = c;
        }
    }
    /* each once, increasing: sort and drop repeats (small: the set's edge) */
    int32_t *ring = r->ring, len = r->nring;
    for (int32_t a = 1; a < len; a++) { /* insertion sort: nearly sorted already */
        int32_t v = ring[a], p = a;
        while (p > 0 && ring[p - 1] > v) {
            ring[p] = ring[p - 1];
            p--;
        }
        ring[p] = v;
    }
    int32_t kept = 0;
    for (int32_t a = 0; a < len; a++)
        if (kept == 0 || ring[kept - 1] != ring[a]) ring[kept++] = ring[a];
    r->nring = kept;
}

/* SPGMR's norm factor for the active states' RMS norm (1 for the max norm:
 * configure_cvode). */
static int set_norm_factor(cvode_block *b, char *err, size_t errlen) {
    if (b->o.cvode_norm == CVODE_NORM_MAX) return 0;
    int64_t n = cva_active_global(b->r.active);
    int flag = CVodeSetLSNormFactor(b->mem, sqrt((double)(n > 0 ? n : 1)));
    return cvl_check(flag, "CVodeSetLSNormFactor", &b->r, err, errlen);
}

/* The set becomes want's states: its inputs (the ring) and norm follow. */
static int take_set(cvode_block *b, const unsigned char *want, char *err, size_t errlen) {
    cva_set_take(b->r.active, want);
    build_ring(&b->r);
    return set_norm_factor(b, err, errlen);
}

static cvode_block *open_block(const model *m, const integrator_options *o,
                               const cvode_inputs *inputs, const unsigned char *want,
                               const cvode_active_inputs *inactive, char *err, size_t errlen);

cvode_block *cvode_block_open(const model *m, const integrator_options *o,
                              const cvode_inputs *inputs, char *err, size_t errlen) {
    return open_block(m, o, inputs, NULL, NULL, err, errlen);
}

cvode_block *cvode_block_open_active(const model *m, const integrator_options *o,
                                     const unsigned char *want, const cvode_active_inputs *inactive,
                                     char *err, size_t errlen) {
    if (errlen) err[0] = '\0';
    const char *why = !m || !o || !want || !inactive || !inactive->values ? "arguments missing"
                      : o->halo || m->n_cols != m->n ? "one rank only, without ghosts"
                      : o->linsol != LINSOL_AUTO && o->linsol != LINSOL_SPGMR
                          ? "SPGMR only (the linear solver)"
                      : o->precond != PRECOND_AUTO && o->precond != PRECOND_JACOBI
                          ? "the Jacobi preconditioner only"
                          : NULL;
    if (why) {
        snprintf(err, errlen, "a BDF block over an active set: %s", why);
        return NULL;
    }
    integrator_options own = *o;
    own.linsol = LINSOL_SPGMR;
    own.precond = PRECOND_JACOBI;
    return open_block(m, &own, NULL, want, inactive, err, errlen);
}

static cvode_block *open_block(const model *m, const integrator_options *o,
                               const cvode_inputs *inputs, const unsigned char *want,
                               const cvode_active_inputs *inactive, char *err, size_t errlen) {
    if (errlen) err[0] = '\0';
    cvode_block *b = calloc(1, sizeof *b);
    halo_plan *halo = o ? o->halo : NULL;
    int shared = inputs && inputs->n_global > 0; /* distributed without a halo */
    MPI_Comm comm = shared ? inputs->comm : halo ? halo->comm : MPI_COMM_SELF;
    int size = 1;
    MPI_Comm_size(comm, &size);
    int distributed = size > 1;
    int rc = b ? check_options(m, o, distributed, err, errlen) : -1;
    if (!b) snprintf(err, errlen, "out of memory for the CVODE block");
    if (b) {
        b->r.halo = shared ? NULL : halo;
        b->r.comm = comm;
        b->r.distributed = distributed;
        b->r.n_global = shared ? inputs->n_global : halo ? halo->n_global : m ? m->n : 0;
    }
    linsol_id which = LINSOL_AUTO;
    if (rc == 0) {
        cv_run *r = &b->r;
        b->o = *o;
        r->m = m;
        r->p = m->problem;
        r->first_input = inputs ? inputs->first : m->n_cols;
        r->inputs = inputs ? inputs->values : NULL;
        r->inputs_ctx = inputs ? inputs->ctx : NULL;
        r->analytic_jac = o->use_jacobian && r->p->jac != NULL;
        r->precond = precond_resolve(o->precond);
        if (want) {
            r->active = cva_set_new(MPI_COMM_NULL, m->n);
            r->ring = malloc(((size_t)m->nnz + 1) * sizeof *r->ring);
            b->entering = malloc(((size_t)m->n + 1) * sizeof *b->entering);
            r->inactive_values = inactive->values;
            r->inactive_ctx = inactive->ctx;
            if (!r->active || !r->ring || !b->entering) {
                snprintf(err, errlen, "out of memory for the active set (n=%d)", (int)m->n);
                rc = -1;
            } else { /* every state until CVODE is set up (below) */
                memset(b->entering, 1, (size_t)m->n); /* (as bytes: scratch) */
                cva_set_take(r->active, (const unsigned char *)b->entering);
            }
        }
    }
    if (rc == 0) {
        cv_run *r = &b->r;
        which = o->linsol != LINSOL_AUTO ? o->linsol
                : r->distributed         ? LINSOL_SPGMR
                                         : cvode_choose_linsol(m, NULL);
        rc = create_local(b, which, err, errlen);
    }
    /* every rank reaches the collective set-up, or none does */
    if (distributed) rc = comm_agree(comm, rc, err, errlen);
    if (rc == 0) rc = cvk_agree(&b->r, create_cvode(b, err, errlen), err, errlen);
    if (rc == 0) rc = cvk_agree(&b->r, configure_cvode(b, which, err, errlen), err, errlen);
    /* CVODE copied what it keeps of its inputs (y0 into its history, the
     * absolute tolerances) over every state; from here on the set's */
    if (rc == 0 && want) {
        rc = take_set(b, want, err, errlen);
    }
    if (rc != 0) {
        cvode_block_close(b);
        return NULL;
    }
    return b;
}

int cvode_block_advance(cvode_block *b, double T, char *err, size_t errlen) {
    cv_run *r = &b->r;
    int flag = CVodeSetStopTime(b->mem, T);
    double tret = T;
    if (flag >= 0) flag = CVode(b->mem, T, b->y, &tret, CV_NORMAL);
    if (flag < 0) {
        char name[64];
        cvl_flag_name(flag, name, sizeof name);
        snprintf(err, errlen, "CVODE failed at t=%.17g on its way to %.17g: %s%s%s%s%s", tret, T,
                 name, r->cvmsg[0] ? ": " : "", r->cvmsg, r->cbmsg[0] ? ": " : "", r->cbmsg);
        return -1;
    }
    return 0;
}

int cvode_block_dky(cvode_block *b, double t, int k, double *out, char *err, size_t errlen) {
    int order = 0;
    if (CVodeGetLastOrder(b->mem, &order) >= 0 && k > order) { /* the polynomial's is 0 */
        if (b->r.m->n > 0) memset(out, 0, (size_t)b->r.m->n * sizeof *out);
        return 0;
    }
    int flag = CVodeGetDky(b->mem, t, k, b->yk);
    if (flag < 0) {
        char name[64];
        cvl_flag_name(flag, name, sizeof name);
        snprintf(err, errlen, "CVodeGetDky(t=%.17g, k=%d) failed: %s%s%s", t, k, name,
                 b->r.cvmsg[0] ? ": " : "", b->r.cvmsg);
        return -1;
    }
    if (b->r.m->n > 0) memcpy(out, N_VGetArrayPointer(b->yk), (size_t)b->r.m->n * sizeof *out);
    return 0;
}

/* CVODE's counters since its last (re)start, and the field of qmol_stats
 * each adds to (SUNDIALS' names: stats.h). */
static const struct {
    int (*get)(void *mem, long *value);
    size_t field;
} cv_counters[CV_NCOUNTERS] = {
    {CVodeGetNumSteps, offsetof(qmol_stats, nst)},
    {CVodeGetNumRhsEvals, offsetof(qmol_stats, nfe)},
    {CVodeGetNumLinRhsEvals, offsetof(qmol_stats, nfeLS)},
    {CVodeGetNumNonlinSolvIters, offsetof(qmol_stats, nni)},
    {CVodeGetNumNonlinSolvConvFails, offsetof(qmol_stats, ncfn)},
    {CVodeGetNumErrTestFails, offsetof(qmol_stats, netf)},
    {CVodeGetNumLinSolvSetups, offsetof(qmol_stats, nsetups)},
    {CVodeGetNumLinIters, offsetof(qmol_stats, nli)},
    {CVodeGetNumLinConvFails, offsetof(qmol_stats, ncfl)},
    {CVodeGetNumPrecEvals, offsetof(qmol_stats, npe)},
    {CVodeGetNumPrecSolves, offsetof(qmol_stats, nps)},
    {CVodeGetNumJtimesEvals, offsetof(qmol_stats, njvevals)},
};

static int counters(void *mem, long v[CV_NCOUNTERS]) {
    int flag = 0;
    for (int k = 0; k < CV_NCOUNTERS && flag >= 0; k++)
        flag = cv_counters[k].get(mem, &v[k]);
    return flag;
}

int cvode_block_reinit(cvode_block *b, double t, char *err, size_t errlen) {
    long v[CV_NCOUNTERS];
    int flag = counters(b->mem, v);
    if (flag < 0) return cvl_check(flag, "a CVodeGetNum* statistics call", &b->r, err, errlen);
    for (int k = 0; k < CV_NCOUNTERS; k++)
        b->before_restart[k] += v[k];
    flag = CVodeReInit(b->mem, t, b->y);
    if (flag < 0) return cvl_check(flag, "CVodeReInit", &b->r, err, errlen);
    return 0;
}

/* An empty block's CVODE has no history for entering states to join (its
 * order and step grew on nothing): it starts again at t with them. */
static int restart_with(cvode_block *b, const unsigned char *want,
                        void (*history)(void *ctx, int32_t j, double d[3]), void *ctx, char *err,
                        size_t errlen) {
    cv_run *r = &b->r;
    double t = b->o.t0;
    if (CVodeGetCurrentTime(b->mem, &t) < 0) t = b->o.t0;
    double *y = N_VGetArrayPointer(b->y);
    for (int32_t j = 0; j < r->m->n; j++)
        if (want[j]) {
            double d[3] = {0.0, 0.0, 0.0};
            history(ctx, j, d);
            y[j] = d[0];
        }
    r->jval_ready = 0;
    if (take_set(b, want, err, errlen) != 0) return -1;
    return cvode_block_reinit(b, t, err, errlen);
}

int cvode_block_move(cvode_block *b, const unsigned char *want,
                     void (*history)(void *ctx, int32_t j, double d[3]), void *ctx, char *err,
                     size_t errlen) {
    cv_run *r = &b->r;
    if (r->active && cva_active_global(r->active) == 0)
        return restart_with(b, want, history, ctx, err, errlen);
    long steps = 0;
    double h_last = 0.0, tn = 0.0;
    if (!r->active || CVodeGetNumSteps(b->mem, &steps) < 0 || steps == 0 ||
        CVodeGetLastStep(b->mem, &h_last) < 0 || CVodeGetCurrentTime(b->mem, &tn) < 0) {
        snprintf(err, errlen, "the BDF block's states can move only after its first step");
        return -1;
    }
    if (!b->history_found) {
        int qmax = b->o.max_order ? b->o.max_order : 5;
        if (cva_history_find(&b->history, b->mem, b->y, qmax, err, errlen) != 0) return -1;
        b->history_found = 1;
    } else if (cva_history_check(&b->history, b->mem, b->yk, err, errlen) != 0) {
        return -1; /* (checked at every move: a few vector operations) */
    }
    const model *m = r->m;
    double *y = N_VGetArrayPointer(b->y);
    int32_t ne = 0;
    for (int32_t j = 0; j < m->n; j++)
        if (want[j] && !cva_active(r->active, j)) {
            double d[3] = {0.0, 0.0, 0.0};
            history(ctx, j, d);
            cva_history_write(&b->history, j, h_last, d);
            y[j] = d[0];
            b->entering[ne++] = j;
        }
    if (take_set(b, want, err, errlen) != 0) return -1;
    /* the entering rows' Jacobian (at t_n, the ring's values at t_n) and
     * preconditioner, as the others' stand */
    if (ne > 0 && r->jval_ready &&
        (cvr_jacobian_rows(r, tn, b->y, b->entering, ne) != 0 ||
         cvpre_jacobi_rows(r, r->gamma, b->entering, ne) != 0)) {
        snprintf(err, errlen,
                 "the Jacobian or preconditioner of a state entering the BDF block at t=%.17g is "
                 "not finite",
                 tn);
        return -1;
    }
    return 0;
}

const int32_t *cvode_block_inputs(const cvode_block *b, int32_t *n) {
    *n = b->r.active ? b->r.nring : 0;
    return b->r.ring;
}

int64_t cvode_block_active_count(const cvode_block *b) {
    return b->r.active ? cva_active_global(b->r.active) : b->r.n_global;
}

void *cvode_block_mem(cvode_block *b) {
    return b->mem;
}

const double *cvode_block_state(const cvode_block *b) {
    return N_VGetArrayPointer(b->y);
}

double cvode_block_next_step(const cvode_block *b) {
    double h = 0.0;
    if (CVodeGetCurrentStep(b->mem, &h) < 0) return 0.0;
    return h;
}

void cvode_block_local_errors(cvode_block *b, double *out) {
    sunindextype n = (sunindextype)b->r.m->n;
    double *v = N_VGetArrayPointer(b->yk);
    long steps = 0;
    /* (before the first step CVODE's correction vector holds nothing yet) */
    if (CVodeGetNumSteps(b->mem, &steps) < 0 || steps == 0 ||
        CVodeGetEstLocalErrors(b->mem, b->yk) < 0) {
        for (sunindextype j = 0; j < n; j++)
            out[j] = 0.0;
        return;
    }
    for (sunindextype j = 0; j < n; j++)
        out[j] = fabs(v[j]);
    int weighed = CVodeGetErrWeights(b->mem, b->yk) >= 0;
    for (sunindextype j = 0; j < n; j++)
        out[j] = weighed ? out[j] * v[j] : 0.0;
}

const double *cvode_block_jacobian(const cvode_block *b) {
    return b->r.jval_ready ? b->r.jval : NULL;
}

int cvode_block_eval_jacobian(cvode_block *b, double t, const double *y) {
    cv_run *r = &b->r;
    double *x = N_VGetArrayPointer(b->yk);
    if (r->m->n > 0) memcpy(x, y, (size_t)r->m->n * sizeof *x);
    N_Vector f = N_VClone(b->yk);
    if (!f) return -1;
    int rc = cvr_rhs(t, b->yk, f, r);
    if (rc == 0) rc = cvr_jacobian(r, t, b->yk, f);
    N_VDestroy(f);
    return rc ? -1 : 0;
}

int cvode_block_add_stats(cvode_block *b, qmol_stats *stats, int steps_are_events, char *err,
                          size_t errlen) {
    const cv_run *r = &b->r;
    void *mem = b->mem;
    long v[CV_NCOUNTERS];
    int flag = counters(mem, v);
    if (flag < 0) return cvl_check(flag, "a CVodeGetNum* statistics call", r, err, errlen);
    if (!stats) return 0;
    /* CVODE's counters are global (the same on every rank); the row
     * evaluations are this rank's, so they add up over ranks */
    for (int k = 0; k < CV_NCOUNTERS; k++)
        *(uint64_t *)((char *)stats + cv_counters[k].field) +=
            (uint64_t)(v[k] + b->before_restart[k]);
    if (steps_are_events) stats->events += (uint64_t)(v[0] + b->before_restart[0]);
    stats->nje += r->jac_evals;
    stats->row_evals += r->rhs_rows + r->fd_evals;
    stats->jac_rows += r->jac_rows;
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
