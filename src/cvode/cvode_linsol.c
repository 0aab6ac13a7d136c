/* cvode_linsol.c: the linear solver of CVODE's Newton iteration.
 *
 * KLU (sparse CSR on the row pattern plus the diagonal) and band LU factor
 * the whole I - gamma J and so need all states on one rank. SPGMR works on
 * the distributed vector with products by the stored Jacobian rows and a
 * preconditioner (cvode_precond.c; by default ILU(0) of each rank's rows).
 */
#include "cvode/cvode_internal.h"

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sunlinsol/sunlinsol_band.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunlinsol/sunlinsol_spgmr.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunmatrix/sunmatrix_sparse.h>

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

int precond_resolve(int precond) {
    return precond == PRECOND_AUTO ? PRECOND_ILU : precond;
}

const char *precond_name(linsol_id l, int precond) {
    if (l != LINSOL_SPGMR) return NULL;
    return precond == PRECOND_JACOBI  ? "Jacobi"
           : precond == PRECOND_BLOCK ? "block-Jacobi (KLU per piece of rows)"
           : precond == PRECOND_ILU   ? "ILU(0) (per rank)"
                                      : NULL;
}

const char *cvode_norm_name(int norm) {
    return norm == CVODE_NORM_MAX ? "max" : "rms";
}

linsol_id cvode_choose_linsol(const model *m, const struct halo_plan *halo) {
    if (halo) return LINSOL_SPGMR;
    sunindextype mu, ml;
    cvp_band_widths(m, &mu, &ml);
    if (mu <= LINSOL_AUTO_BAND && ml <= LINSOL_AUTO_BAND) return LINSOL_BAND;
    if (m->problem && m->problem->ndims >= 2) return LINSOL_SPGMR;
    return LINSOL_KLU;
}

void cvl_flag_name(int flag, char *buf, size_t len) {
    char *name = CVodeGetReturnFlagName(flag); /* malloc'd by SUNDIALS */
    if (name) {
        snprintf(buf, len, "%s", name);
        free(name);
    } else {
        snprintf(buf, len, "flag %d", flag);
    }
}

int cvl_check(int flag, const char *call, const cv_run *r, char *err, size_t errlen) {
    if (flag >= 0) return 0;
    char name[64];
    cvl_flag_name(flag, name, sizeof name);
    snprintf(err, errlen, "CVODE setup failed: %s returned %s%s%s", call, name,
             r->cvmsg[0] ? ": " : "", r->cvmsg);
    return -1;
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
    int rc = cvr_jacobian(r, t, y, fy);
    if (rc) return rc;
    for (int64_t e = 0; e < m->nnz; e++)
        if (r->sp_pos[e] >= 0) a[r->sp_pos[e]] = r->jval[e]; /* inputs are dropped */
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
    int rc = cvr_jacobian(r, t, y, fy);
    if (rc) return rc;
    for (int32_t j = 0; j < m->n; j++)
        for (int64_t e = m->row_ptr[j]; e < m->row_ptr[j + 1]; e++)
            if (m->row_col[e] < m->n) SM_ELEMENT_B(J, j, m->row_col[e]) = r->jval[e];
    return 0;
}

/* SPGMR's Krylov dimension and restarts (SUNDIALS' defaults: 5, none), and
 * right preconditioning, so that its convergence test is on the linear
 * system's own residual. CVODE accepts an unconverged solve on a step's first
 * Newton iteration, and with left preconditioning the test is on the
 * preconditioned residual, which a Jacobi preconditioner shrinks by the
 * stiffness ratio of the smooth modes: stiff diffusion then "converged" at
 * once, with a near-zero correction, and the steps grew unchecked (heat2d
 * 200 x 200, tol 1e-3, Jacobi: e_rr 0.10 in 62 steps; heat1d N = 1000: 0.30
 * in 2 steps, exit 0). Right preconditioning alone left heat1d N = 1000 at
 * 0.26 (five Krylov vectors could not reduce its residual); with 20 and 5
 * restarts both are at 1.5-1.8e-3 (docs/methods.md "CVODE's linear solver"). */
#define SPGMR_KRYLOV_DIM 20
#define SPGMR_RESTARTS 5

static int create_spgmr(cv_run *r, N_Vector y, SUNContext sunctx, SUNLinearSolver *LS, char *err,
                        size_t errlen) {
    if (cvpre_create(r, sunctx, err, errlen)) return -1;
    *LS = SUNLinSol_SPGMR(y, SUN_PREC_RIGHT, SPGMR_KRYLOV_DIM, sunctx);
    if (!*LS) {
        snprintf(err, errlen, "SUNLinSol_SPGMR failed to create the SPGMR solver");
        return -1;
    }
    if (SUNLinSol_SPGMRSetMaxRestarts(*LS, SPGMR_RESTARTS) != SUNLS_SUCCESS) {
        snprintf(err, errlen, "SUNLinSol_SPGMRSetMaxRestarts failed");
        return -1;
    }
    return 0;
}

int cvl_create(cv_run *r, linsol_id which, N_Vector y, SUNContext sunctx, SUNMatrix *A,
               SUNLinearSolver *LS, char *err, size_t errlen) {
    int32_t n = r->m->n;
    if (which == LINSOL_SPGMR) return create_spgmr(r, y, sunctx, LS, err, errlen);
    /* KLU and band accept only serial-like vectors at creation (they use the
     * local array at solve time, which the parallel vector has): hand them an
     * empty serial vector of the local length. */
    N_Vector tmpl = N_VNewEmpty_Serial((sunindextype)n, sunctx);
    if (!tmpl) {
        snprintf(err, errlen, "N_VNewEmpty_Serial failed (n=%d)", (int)n);
        return -1;
    }
    if (which == LINSOL_KLU) {
        if (cvp_build(r, r->m->n)) {
            N_VDestroy(tmpl);
            snprintf(err, errlen, "out of memory for the sparse Jacobian pattern (nnz=%lld)",
                     (long long)r->m->nnz);
            return -1;
        }
        *A = SUNSparseMatrix(n, n, (sunindextype)r->sp_nnz, CSR_MAT, sunctx);
        if (*A) *LS = SUNLinSol_KLU(tmpl, *A, sunctx);
    } else {
        sunindextype mu, ml;
        cvp_band_widths(r->m, &mu, &ml);
        *A = SUNBandMatrix(n, mu, ml, sunctx);
        if (*A) *LS = SUNLinSol_Band(tmpl, *A, sunctx);
    }
    N_VDestroy(tmpl);
    if (!*A || !*LS) {
        snprintf(err, errlen, "failed to create the %s %s (n=%d, nnz=%lld)", linsol_name(which),
                 *A ? "linear solver" : "matrix", (int)n, (long long)r->m->nnz);
        return -1;
    }
    return 0;
}

int cvl_attach(cv_run *r, void *mem, linsol_id which, SUNMatrix A, SUNLinearSolver LS, char *err,
               size_t errlen) {
    int flag = CVodeSetLinearSolver(mem, LS, A);
    if (cvl_check(flag, "CVodeSetLinearSolver", r, err, errlen)) return -1;
    if (which != LINSOL_SPGMR) {
        flag = CVodeSetJacFn(mem, which == LINSOL_KLU ? jac_sparse : jac_band);
        return cvl_check(flag, "CVodeSetJacFn", r, err, errlen);
    }
    flag = CVodeSetPreconditioner(mem, cvpre_setup, cvpre_solve);
    if (cvl_check(flag, "CVodeSetPreconditioner", r, err, errlen)) return -1;
    flag = CVodeSetJacTimes(mem, NULL, cvr_jac_times);
    return cvl_check(flag, "CVodeSetJacTimes", r, err, errlen);
}
