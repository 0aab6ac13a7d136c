/* cvode_integrate.c: the model integrated by SUNDIALS CVODE (BDF, Newton).
 *
 * One CVODE instance on an NVECTOR_PARALLEL vector over MPI_COMM_WORLD. The
 * right-hand side is a loop over the local rows, each gathering its values
 * through the model's CSR rows, so the same problem code serves QSS and BDF.
 * The Newton systems I - gamma J are solved by KLU (sparse CSR on the row
 * pattern plus the diagonal), a band LU (half-bandwidths from the pattern) or
 * SPGMR with a Jacobi preconditioner and products with a Jacobian stored on
 * the row pattern. Jacobian rows come from the problem's jac or from row-wise
 * finite differences. Samples come from CVODE's dense output (CVodeGetDky);
 * the integration never stops on the output grid.
 *
 * This version owns all of the model's states on every rank: rows read local
 * states only, and KLU/band factor the local block.
 */
#include "integrator.h"

#include <cvode/cvode.h>
#include <mpi.h>
#include <nvector/nvector_parallel.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_band.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunlinsol/sunlinsol_spgmr.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunmatrix/sunmatrix_sparse.h>

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CV_ONE_STEP makes CVODE's mxstep apply per call, so the total is capped here. */
#define CV_MAX_STEPS 10000000L
/* Consecutive steps that leave t unchanged before the run is declared stalled. */
#define CV_MAX_STALLED 100

typedef struct cv_run {
    const model *m;
    const qmol_problem *p;
    int analytic_jac;
    double *vals; /* gather buffer, longest row */
    double *dfdv; /* one Jacobian row */
    /* KLU: the CSR pattern (row entries sorted by column, diagonal added) and
     * where each model entry lands in it. */
    sunindextype *sp_ptr, *sp_col;
    int64_t *sp_pos;
    int64_t sp_nnz;
    /* SPGMR: the Jacobian on the row pattern (entry order), refreshed when the
     * preconditioner is, and 1 / (1 - gamma J_jj) per row */
    double *jval, *pinv;
    int jval_ready;
    /* counters */
    uint64_t rhs_calls, fd_evals, jac_rows, jac_setups;
    char cvmsg[256]; /* CVODE's last error message */
    char cbmsg[128]; /* why one of our callbacks failed, if it did */
} cv_run;

/* ---------------------------------------------------------------- rows --- */

static void gather(const cv_run *r, int32_t j, const double *x) {
    const model *m = r->m;
    int64_t start = m->row_ptr[j], len = m->row_ptr[j + 1] - start;
    for (int64_t k = 0; k < len; k++)
        r->vals[k] = x[m->row_col[start + k]];
}

/* dfdv[k] = d f_j / d vals[k], from the problem's jac or finite differences
 * about fj = f_j(t, x). Returns 0, or 1 if a value is not finite. */
static int row_jacobian(cv_run *r, int32_t j, double t, const double *x, double fj) {
    const model *m = r->m;
    const qmol_problem *p = r->p;
    int64_t len = m->row_ptr[j + 1] - m->row_ptr[j];
    gather(r, j, x);
    if (r->analytic_jac) {
        p->jac(p->data, (int64_t)j, t, r->vals, r->dfdv);
        r->jac_rows++;
    } else {
        /* The row's own magnitude is the typical scale of a zero entry. */
        double typical = 0.0;
        for (int64_t k = 0; k < len; k++)
            typical = fmax(typical, fabs(r->vals[k]));
        if (typical == 0.0) typical = 1.0;
        double srur = sqrt(DBL_EPSILON);
        for (int64_t k = 0; k < len; k++) {
            double v = r->vals[k];
            r->vals[k] = v + srur * fmax(fabs(v), typical);
            double inc = r->vals[k] - v; /* the step actually taken */
            double f1 = p->rhs(p->data, (int64_t)j, t, r->vals);
            r->dfdv[k] = (f1 - fj) / inc;
            r->vals[k] = v;
        }
        r->fd_evals += (uint64_t)len;
    }
    for (int64_t k = 0; k < len; k++)
        if (!isfinite(r->dfdv[k])) return 1;
    return 0;
}

/* ----------------------------------------------------- CVODE callbacks --- */

static int rhs_fn(sunrealtype t, N_Vector y, N_Vector ydot, void *user_data) {
    cv_run *r = user_data;
    const qmol_problem *p = r->p;
    const double *x = N_VGetArrayPointer(y);
    double *f = N_VGetArrayPointer(ydot);
    int bad = 0;
    for (int32_t j = 0; j < r->m->n; j++) {
        gather(r, j, x);
        f[j] = p->rhs(p->data, (int64_t)j, t, r->vals);
        if (!isfinite(f[j])) bad = 1;
    }
    r->rhs_calls++;
    return bad; /* 1: recoverable, CVODE retries with a smaller step */
}

static int jac_sparse(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *user_data,
                      N_Vector tmp1, N_Vector tmp2, N_Vector tmp3) {
    (void)tmp1, (void)tmp2, (void)tmp3;
    cv_run *r = user_data;
    const model *m = r->m;
    if (SUNSparseMatrix_NNZ(J) < r->sp_nnz) {
        snprintf(r->cbmsg, sizeof r->cbmsg, "sparse Jacobian storage shrank below the pattern");
        return -1;
    }
    /* SUNMatZero clears the pattern too, so it is written on every call. */
    sunindextype *ptr = SUNSparseMatrix_IndexPointers(J);
    sunindextype *col = SUNSparseMatrix_IndexValues(J);
    double *a = SUNSparseMatrix_Data(J);
    memcpy(ptr, r->sp_ptr, ((size_t)m->n + 1) * sizeof *ptr);
    memcpy(col, r->sp_col, (size_t)r->sp_nnz * sizeof *col);
    memset(a, 0, (size_t)r->sp_nnz * sizeof *a);
    const double *x = N_VGetArrayPointer(y);
    const double *f = N_VGetArrayPointer(fy);
    for (int32_t j = 0; j < m->n; j++) {
        if (row_jacobian(r, j, t, x, f[j])) return 1;
        for (int64_t e = m->row_ptr[j]; e < m->row_ptr[j + 1]; e++)
            a[r->sp_pos[e]] = r->dfdv[e - m->row_ptr[j]];
    }
    r->jac_setups++;
    return 0;
}

static int jac_band(sunrealtype t, N_Vector y, N_Vector fy, SUNMatrix J, void *user_data,
                    N_Vector tmp1, N_Vector tmp2, N_Vector tmp3) {
    (void)tmp1, (void)tmp2, (void)tmp3;
    cv_run *r = user_data;
    const model *m = r->m;
    if (SUNMatZero(J) != 0) {
        snprintf(r->cbmsg, sizeof r->cbmsg, "SUNMatZero failed on the band Jacobian");
        return -1;
    }
    const double *x = N_VGetArrayPointer(y);
    const double *f = N_VGetArrayPointer(fy);
    for (int32_t j = 0; j < m->n; j++) {
        if (row_jacobian(r, j, t, x, f[j])) return 1;
        for (int64_t e = m->row_ptr[j]; e < m->row_ptr[j + 1]; e++)
            SM_ELEMENT_B(J, j, m->row_col[e]) = r->dfdv[e - m->row_ptr[j]];
    }
    r->jac_setups++;
    return 0;
}

/* Evaluates every Jacobian row into jval (SPGMR). */
static int store_jacobian(cv_run *r, double t, N_Vector y, N_Vector fy) {
    const model *m = r->m;
    const double *x = N_VGetArrayPointer(y);
    const double *f = N_VGetArrayPointer(fy);
    for (int32_t j = 0; j < m->n; j++) {
        if (row_jacobian(r, j, t, x, f[j])) return 1;
        memcpy(r->jval + m->row_ptr[j], r->dfdv,
               (size_t)(m->row_ptr[j + 1] - m->row_ptr[j]) * sizeof *r->jval);
    }
    r->jval_ready = 1;
    r->jac_setups++;
    return 0;
}

static int prec_setup(sunrealtype t, N_Vector y, N_Vector fy, sunbooleantype jok,
                      sunbooleantype *jcur, sunrealtype gamma, void *user_data) {
    cv_run *r = user_data;
    const model *m = r->m;
    if (!jok || !r->jval_ready) {
        if (store_jacobian(r, t, y, fy)) return 1;
        *jcur = SUNTRUE;
    } else {
        *jcur = SUNFALSE;
    }
    for (int32_t j = 0; j < m->n; j++) {
        double jjj = m->diag_entry[j] >= 0 ? r->jval[m->diag_entry[j]] : 0.0;
        double d = 1.0 - gamma * jjj;
        if (d == 0.0 || !isfinite(d)) return 1; /* recoverable: CVODE cuts the step */
        r->pinv[j] = 1.0 / d;
    }
    return 0;
}

static int prec_solve(sunrealtype t, N_Vector y, N_Vector fy, N_Vector rv, N_Vector z,
                      sunrealtype gamma, sunrealtype delta, int lr, void *user_data) {
    (void)t, (void)y, (void)fy, (void)gamma, (void)delta, (void)lr;
    cv_run *r = user_data;
    const double *in = N_VGetArrayPointer(rv);
    double *out = N_VGetArrayPointer(z);
    for (int32_t j = 0; j < r->m->n; j++)
        out[j] = in[j] * r->pinv[j];
    return 0;
}

/* Jv from the stored Jacobian: the same modified-Newton matrix as KLU/band.
 * CVODE's default difference quotient perturbs y by about the tolerance,
 * which is lost in rounding when a row sums large cancelling terms. */
static int jac_times(N_Vector v, N_Vector Jv, sunrealtype t, N_Vector y, N_Vector fy,
                     void *user_data, N_Vector tmp) {
    (void)tmp;
    cv_run *r = user_data;
    const model *m = r->m;
    if (!r->jval_ready && store_jacobian(r, t, y, fy)) return 1;
    const double *in = N_VGetArrayPointer(v);
    double *out = N_VGetArrayPointer(Jv);
    for (int32_t j = 0; j < m->n; j++) {
        double sum = 0.0;
        for (int64_t e = m->row_ptr[j]; e < m->row_ptr[j + 1]; e++)
            sum += r->jval[e] * in[m->row_col[e]];
        out[j] = sum;
    }
    return 0;
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

/* ---------------------------------------------------------------- setup --- */

/* CSR pattern of the rows with the diagonal added where a row lacks it (CVODE
 * factors I - gamma J, whose diagonal is never structurally zero). Entries are
 * sorted by column; sp_pos maps each model entry to its slot. */
static int build_sparse_pattern(cv_run *r) {
    const model *m = r->m;
    int32_t n = m->n;
    int64_t missing = 0;
    for (int32_t j = 0; j < n; j++)
        missing += m->diag_entry[j] < 0;
    r->sp_nnz = m->nnz + missing;
    r->sp_ptr = malloc(((size_t)n + 1) * sizeof *r->sp_ptr);
    r->sp_col = malloc((size_t)(r->sp_nnz > 0 ? r->sp_nnz : 1) * sizeof *r->sp_col);
    r->sp_pos = malloc((size_t)(m->nnz > 0 ? m->nnz : 1) * sizeof *r->sp_pos);
    int64_t *fill = malloc(((size_t)n + 1) * sizeof *fill);
    if (!r->sp_ptr || !r->sp_col || !r->sp_pos || !fill) {
        free(fill);
        return -1;
    }
    r->sp_ptr[0] = 0;
    for (int32_t j = 0; j < n; j++)
        r->sp_ptr[j + 1] =
            r->sp_ptr[j] + (m->row_ptr[j + 1] - m->row_ptr[j]) + (m->diag_entry[j] < 0);
    for (int32_t j = 0; j < n; j++)
        fill[j] = r->sp_ptr[j];
    /* Walking columns in order through the dependents lists (a counting sort)
     * leaves every row sorted by column. */
    for (int32_t i = 0; i < n; i++) {
        if (m->diag_entry[i] < 0) r->sp_col[fill[i]++] = i;
        for (int64_t d = m->dep_ptr[i]; d < m->dep_ptr[i + 1]; d++) {
            int32_t j = m->dep_row[d];
            int64_t slot = fill[j]++;
            r->sp_col[slot] = i;
            r->sp_pos[m->dep_entry[d]] = slot;
        }
    }
    free(fill);
    return 0;
}

static void band_widths(const model *m, sunindextype *mu, sunindextype *ml) {
    *mu = 0;
    *ml = 0;
    for (int32_t j = 0; j < m->n; j++) {
        for (int64_t e = m->row_ptr[j]; e < m->row_ptr[j + 1]; e++) {
            sunindextype off = (sunindextype)m->row_col[e] - j;
            if (off > *mu) *mu = off;
            if (-off > *ml) *ml = -off;
        }
    }
}

/* "CV_TOO_MUCH_WORK"-style name of a CVODE flag. */
static void flag_name(int flag, char *buf, size_t len) {
    char *name = CVodeGetReturnFlagName(flag); /* malloc'd by SUNDIALS */
    if (name) {
        snprintf(buf, len, "%s", name);
        free(name);
    } else {
        snprintf(buf, len, "flag %d", flag);
    }
}

static int check_flag(int flag, const char *call, const cv_run *r, char *err, size_t errlen) {
    if (flag >= 0) return 0;
    char name[64];
    flag_name(flag, name, sizeof name);
    snprintf(err, errlen, "CVODE setup failed: %s returned %s%s%s", call, name,
             r->cvmsg[0] ? ": " : "", r->cvmsg);
    return -1;
}

const char *linsol_name(linsol_id l) {
    switch (l) {
    case LINSOL_KLU:
        return "KLU";
    case LINSOL_BAND:
        return "band";
    case LINSOL_SPGMR:
        return "SPGMR";
    case LINSOL_AUTO:
        return "auto";
    }
    return "?";
}

linsol_id cvode_choose_linsol(const model *m) {
    sunindextype mu, ml;
    band_widths(m, &mu, &ml);
    if (mu <= LINSOL_AUTO_BAND && ml <= LINSOL_AUTO_BAND) return LINSOL_BAND;
    if (m->problem && m->problem->ndims >= 2) return LINSOL_SPGMR;
    return LINSOL_KLU;
}

/* Attaches the linear solver; returns 0 or -1 with err set. */
static int setup_linsol(cv_run *r, void *mem, linsol_id which, N_Vector y, SUNContext sunctx,
                        SUNMatrix *A, SUNLinearSolver *LS, char *err, size_t errlen) {
    int32_t n = r->m->n;
    int flag;
    if (which == LINSOL_SPGMR) {
        r->jval = malloc((size_t)(r->m->nnz > 0 ? r->m->nnz : 1) * sizeof *r->jval);
        r->pinv = malloc((size_t)n * sizeof *r->pinv);
        if (!r->jval || !r->pinv) {
            snprintf(err, errlen, "out of memory for the CVODE preconditioner (n=%d)", (int)n);
            return -1;
        }
        *LS = SUNLinSol_SPGMR(y, SUN_PREC_LEFT, 0, sunctx);
        if (!*LS) {
            snprintf(err, errlen, "SUNLinSol_SPGMR failed to create the SPGMR solver");
            return -1;
        }
        flag = CVodeSetLinearSolver(mem, *LS, NULL);
        if (check_flag(flag, "CVodeSetLinearSolver", r, err, errlen)) return -1;
        flag = CVodeSetPreconditioner(mem, prec_setup, prec_solve);
        if (check_flag(flag, "CVodeSetPreconditioner", r, err, errlen)) return -1;
        flag = CVodeSetJacTimes(mem, NULL, jac_times);
        return check_flag(flag, "CVodeSetJacTimes", r, err, errlen);
    }

    /* KLU and band accept only serial-like vectors at creation (they use the
     * local array at solve time, which the parallel vector has): hand them an
     * empty serial vector of the local length. */
    N_Vector tmpl = N_VNewEmpty_Serial((sunindextype)n, sunctx);
    if (!tmpl) {
        snprintf(err, errlen, "N_VNewEmpty_Serial failed (n=%d)", (int)n);
        return -1;
    }
    if (which == LINSOL_KLU) {
        if (build_sparse_pattern(r)) {
            N_VDestroy(tmpl);
            snprintf(err, errlen, "out of memory for the sparse Jacobian pattern (nnz=%lld)",
                     (long long)r->m->nnz);
            return -1;
        }
        *A = SUNSparseMatrix(n, n, r->sp_nnz, CSR_MAT, sunctx);
        if (*A) *LS = SUNLinSol_KLU(tmpl, *A, sunctx);
    } else {
        sunindextype mu, ml;
        band_widths(r->m, &mu, &ml);
        *A = SUNBandMatrix(n, mu, ml, sunctx);
        if (*A) *LS = SUNLinSol_Band(tmpl, *A, sunctx);
    }
    N_VDestroy(tmpl);
    if (!*A || !*LS) {
        snprintf(err, errlen, "failed to create the %s %s (n=%d, nnz=%lld)", linsol_name(which),
                 *A ? "linear solver" : "matrix", (int)n, (long long)r->m->nnz);
        return -1;
    }
    flag = CVodeSetLinearSolver(mem, *LS, *A);
    if (check_flag(flag, "CVodeSetLinearSolver", r, err, errlen)) return -1;
    flag = CVodeSetJacFn(mem, which == LINSOL_KLU ? jac_sparse : jac_band);
    return check_flag(flag, "CVodeSetJacFn", r, err, errlen);
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
    return 0;
}

static int add_stats(void *mem, const cv_run *r, qmol_stats *stats, char *err, size_t errlen) {
    long steps = 0, nni = 0, nli = 0, netf = 0, ncf = 0;
    int flag = CVodeGetNumSteps(mem, &steps);
    if (flag >= 0) flag = CVodeGetNumNonlinSolvIters(mem, &nni);
    if (flag >= 0) flag = CVodeGetNumLinIters(mem, &nli);
    if (flag >= 0) flag = CVodeGetNumErrTestFails(mem, &netf);
    if (flag >= 0) flag = CVodeGetNumNonlinSolvConvFails(mem, &ncf);
    if (flag < 0) return check_flag(flag, "a CVodeGetNum* statistics call", r, err, errlen);
    if (!stats) return 0;
    stats->steps += (uint64_t)steps;
    stats->events += (uint64_t)steps;
    stats->newton_iters += (uint64_t)nni;
    stats->lin_iters += (uint64_t)nli;
    stats->err_test_fails += (uint64_t)netf;
    stats->conv_fails += (uint64_t)ncf;
    stats->jac_setups += r->jac_setups;
    stats->rhs_evals += (uint64_t)r->m->n * r->rhs_calls + r->fd_evals;
    stats->jac_evals += r->jac_rows;
    return 0;
}

/* ------------------------------------------------------------ integrate --- */

int cvode_integrate(const model *m, const integrator_options *o, sample_fn sample, void *ctx,
                    qmol_stats *stats, char *err, size_t errlen) {
    double wall0 = MPI_Wtime();
    if (errlen) err[0] = '\0';
    if (check_options(m, o, sample, err, errlen)) return -1;

    cv_run r;
    memset(&r, 0, sizeof r);
    r.m = m;
    r.p = m->problem;
    r.analytic_jac = o->use_jacobian && r.p->jac != NULL;
    MPI_Comm comm = MPI_COMM_WORLD;
    SUNContext sunctx = NULL;
    N_Vector y = NULL, yk = NULL;
    SUNMatrix A = NULL;
    SUNLinearSolver LS = NULL;
    void *mem = NULL;
    int rc = -1, flag;
    double sample_wall = 0.0, wall1 = wall0;
    int integrating = 0;
    int32_t n = m->n;

    r.vals = malloc(((size_t)m->max_row + 1) * sizeof *r.vals);
    r.dfdv = malloc(((size_t)m->max_row + 1) * sizeof *r.dfdv);
    if (!r.vals || !r.dfdv) {
        snprintf(err, errlen, "out of memory for CVODE row buffers (longest row %d)",
                 (int)m->max_row);
        goto done;
    }
    if (SUNContext_Create(&comm, &sunctx) != 0 || !sunctx) {
        snprintf(err, errlen, "SUNContext_Create failed");
        goto done;
    }
    long long local = n, global = 0;
    if (MPI_Allreduce(&local, &global, 1, MPI_LONG_LONG, MPI_SUM, comm) != MPI_SUCCESS) {
        snprintf(err, errlen, "MPI_Allreduce of the CVODE vector length failed");
        goto done;
    }
    y = N_VNew_Parallel(comm, (sunindextype)n, (sunindextype)global, sunctx);
    if (y) yk = N_VClone(y);
    if (!y || !yk) {
        snprintf(err, errlen, "failed to create the CVODE parallel vectors (n=%d)", (int)n);
        goto done;
    }
    double *x = N_VGetArrayPointer(y);
    for (int32_t j = 0; j < n; j++)
        x[j] = r.p->x0(r.p->data, (int64_t)j);

    mem = CVodeCreate(CV_BDF, sunctx);
    if (!mem) {
        snprintf(err, errlen, "CVodeCreate failed (out of memory?)");
        goto done;
    }
    flag = CVodeSetErrHandlerFn(mem, err_handler, &r);
    if (check_flag(flag, "CVodeSetErrHandlerFn", &r, err, errlen)) goto done;
    flag = CVodeInit(mem, rhs_fn, o->t0, y);
    if (check_flag(flag, "CVodeInit", &r, err, errlen)) goto done;
    flag = CVodeSetUserData(mem, &r);
    if (check_flag(flag, "CVodeSetUserData", &r, err, errlen)) goto done;
    if (r.p->abstol_scale) { /* per-state absolute tolerances, as the QSS quanta */
        N_Vector atol = N_VClone(y);
        if (!atol) {
            snprintf(err, errlen, "out of memory for the CVODE tolerance vector");
            goto done;
        }
        double *a = N_VGetArrayPointer(atol);
        for (int32_t j = 0; j < n; j++)
            a[j] = o->abstol * r.p->abstol_scale(r.p->data, j);
        flag = CVodeSVtolerances(mem, o->reltol, atol);
        N_VDestroy(atol);
        if (check_flag(flag, "CVodeSVtolerances", &r, err, errlen)) goto done;
    } else {
        flag = CVodeSStolerances(mem, o->reltol, o->abstol);
        if (check_flag(flag, "CVodeSStolerances", &r, err, errlen)) goto done;
    }
    flag = CVodeSetMaxOrd(mem, o->max_order ? o->max_order : 5);
    if (check_flag(flag, "CVodeSetMaxOrd", &r, err, errlen)) goto done;
    flag = CVodeSetMaxNumSteps(mem, CV_MAX_STEPS);
    if (check_flag(flag, "CVodeSetMaxNumSteps", &r, err, errlen)) goto done;
    flag = CVodeSetStopTime(mem, o->tf);
    if (check_flag(flag, "CVodeSetStopTime", &r, err, errlen)) goto done;
    linsol_id which = o->linsol == LINSOL_AUTO ? cvode_choose_linsol(m) : o->linsol;
    if (setup_linsol(&r, mem, which, y, sunctx, &A, &LS, err, errlen)) goto done;

    wall1 = MPI_Wtime();
    if (stats) stats->wall_setup += wall1 - wall0;
    integrating = 1;

    /* One step at a time; after each, deliver every sample it passed. */
    int64_t k = 1;
    double tk = sample_time(o->t0, o->tf, k, o->samples), tret = o->t0;
    long nsteps = 0, stalled = 0;
    while (k <= o->samples) {
        if (++nsteps > CV_MAX_STEPS) {
            snprintf(err, errlen, "CVODE took %ld steps and stopped at t=%.17g before tf=%.17g",
                     CV_MAX_STEPS, tret, o->tf);
            goto done;
        }
        double tprev = tret;
        flag = CVode(mem, o->tf, y, &tret, CV_ONE_STEP);
        /* CVODE only warns when t + h == t and then keeps going; so can a run
         * whose right-hand side fails (recoverably) beyond some time. */
        stalled = tret > tprev ? 0 : stalled + 1;
        if (flag >= 0 && stalled >= CV_MAX_STALLED) {
            snprintf(err, errlen,
                     "CVODE stalled at t=%.17g: %ld steps without progress (step size below "
                     "roundoff, or the right-hand side fails just beyond t)",
                     tret, stalled);
            goto done;
        }
        if (flag < 0) {
            char name[64];
            flag_name(flag, name, sizeof name);
            snprintf(err, errlen, "CVODE failed at t=%.17g: %s%s%s%s%s", tret, name,
                     r.cvmsg[0] ? ": " : "", r.cvmsg, r.cbmsg[0] ? ": " : "", r.cbmsg);
            goto done;
        }
        int at_stop = flag == CV_TSTOP_RETURN;
        while (k <= o->samples && (tk <= tret || at_stop)) {
            flag = CVodeGetDky(mem, tk, 0, yk);
            if (flag < 0) {
                char name[64];
                flag_name(flag, name, sizeof name);
                snprintf(err, errlen, "CVodeGetDky failed for sample %lld at t=%.17g: %s%s%s",
                         (long long)k, tk, name, r.cvmsg[0] ? ": " : "", r.cvmsg);
                goto done;
            }
            double s0 = MPI_Wtime();
            int src = sample(ctx, k, tk, N_VGetArrayPointer(yk));
            sample_wall += MPI_Wtime() - s0;
            if (src != 0) {
                if (!err[0])
                    snprintf(err, errlen, "sample %lld at t=%.17g stopped the run (code %d)",
                             (long long)k, tk, src);
                rc = src;
                goto done;
            }
            k++;
            if (k <= o->samples) tk = sample_time(o->t0, o->tf, k, o->samples);
        }
    }
    rc = 0;

done:
    if (mem) {
        /* Statistics also on failure: they help to explain it. */
        char serr[512] = "";
        if (add_stats(mem, &r, stats, serr, sizeof serr) && rc == 0) {
            snprintf(err, errlen, "%s", serr);
            rc = -1;
        }
        if (stats && integrating) {
            stats->wall_integrate += MPI_Wtime() - wall1 - sample_wall;
            stats->wall_output += sample_wall;
        }
    }
    CVodeFree(&mem);
    if (LS) SUNLinSolFree(LS);
    if (A) SUNMatDestroy(A);
    if (yk) N_VDestroy(yk);
    if (y) N_VDestroy(y);
    if (sunctx) SUNContext_Free(&sunctx);
    free(r.vals);
    free(r.dfdv);
    free(r.sp_ptr);
    free(r.sp_col);
    free(r.sp_pos);
    free(r.jval);
    free(r.pinv);
    return rc;
}
