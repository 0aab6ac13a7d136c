/* cvode_precond.c: the SPGMR preconditioners, right-applied to I - gamma J.
 *
 * Jacobi: 1 / (1 - gamma J_jj) per row. Block-Jacobi: each rank factors the
 * diagonal blocks of its owned rows (runs of at most CV_BLOCK_ROWS; ghost
 * columns and columns of other runs dropped) of I - gamma J with KLU and
 * solves with them. ILU(0) (cvode_ilu.c): each rank factors its whole owned
 * block (ghost columns dropped) without fill-in and solves by a forward and
 * a backward substitution. All work on any partition; the coupling between
 * blocks and ranks is left to the Krylov iteration. They are refreshed from
 * the stored Jacobian rows, which are re-evaluated only when CVODE says they
 * are stale (jok).
 */
#include "cvode/cvode_internal.h"

#include <math.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sunlinsol/sunlinsol_klu.h>
#include <sunmatrix/sunmatrix_sparse.h>

static int block_create(cv_run *r, SUNContext sunctx) {
    sunindextype n = r->m->n;
    if (cvp_build(r, CV_BLOCK_ROWS)) return -1;
    if (n == 0) return 0; /* a rank without states of a distributed block */
    r->bj_A = SUNSparseMatrix(n, n, (sunindextype)r->sp_nnz, CSR_MAT, sunctx);
    /* KLU works on the local arrays: serial vectors that wrap them per solve */
    r->bj_x = N_VNewEmpty_Serial(n, sunctx);
    r->bj_b = N_VNewEmpty_Serial(n, sunctx);
    if (!r->bj_A || !r->bj_x || !r->bj_b) return -1;
    memcpy(SUNSparseMatrix_IndexPointers(r->bj_A), r->sp_ptr, ((size_t)n + 1) * sizeof *r->sp_ptr);
    memcpy(SUNSparseMatrix_IndexValues(r->bj_A), r->sp_col, (size_t)r->sp_nnz * sizeof *r->sp_col);
    r->bj_LS = SUNLinSol_KLU(r->bj_x, r->bj_A, sunctx);
    return r->bj_LS ? 0 : -1;
}

/* ILU(0)'s key for threads (cvode_ilu.h): the x index of each owned row on
 * a grid of 2 or 3 dimensions (1D: the parts could only take turns), NULL
 * otherwise; *failed on out of memory. */
static int32_t *grid_x_keys(const cv_run *r, int *failed) {
    const qmol_problem *p = r->p;
    *failed = 0;
    if (r->nthreads < 2 || r->m->n < CV_ILU_THREADED_ROWS || p->ndims < 2 || p->dims[0] < 2 ||
        p->dims[0] > INT32_MAX)
        return NULL;
    int32_t *key = malloc((size_t)r->m->n * sizeof *key);
    if (!key) {
        *failed = 1;
        return NULL;
    }
    int64_t comps = p->components > 0 ? p->components : 1;
    for (int32_t j = 0; j < r->m->n; j++)
        key[j] = (int32_t)(model_gid(r->m, j) / comps % p->dims[0]);
    return key;
}

int cvpre_create(cv_run *r, SUNContext sunctx, char *err, size_t errlen) {
    int32_t n = r->m->n;
    int rc = 0;
    if (r->precond == PRECOND_BLOCK) {
        rc = block_create(r, sunctx);
    } else if (r->precond == PRECOND_ILU) {
        /* one block of all owned rows: the owned columns, ghosts dropped */
        rc = cvp_build(r, n > 0 ? n : 1);
        int32_t *key = NULL;
        if (!rc) key = grid_x_keys(r, &rc);
        if (!rc) rc = ilu0_init(&r->ilu, n, r->sp_ptr, r->sp_col, r->sp_diag, r->nthreads, key);
        free(key);
    } else {
        r->pinv = malloc(((size_t)n + 1) * sizeof *r->pinv);
        rc = r->pinv ? 0 : -1;
    }
    if (rc)
        snprintf(err, errlen, "failed to create the %s preconditioner (n=%d, nnz=%lld)",
                 precond_name(LINSOL_SPGMR, r->precond), (int)n, (long long)r->m->nnz);
    return rc;
}

void cvpre_free(cv_run *r) {
    if (r->bj_LS) SUNLinSolFree(r->bj_LS);
    if (r->bj_A) SUNMatDestroy(r->bj_A);
    if (r->bj_x) N_VDestroy(r->bj_x);
    if (r->bj_b) N_VDestroy(r->bj_b);
    r->bj_LS = NULL;
    r->bj_A = NULL;
    r->bj_x = r->bj_b = NULL;
    ilu0_free(&r->ilu);
    free(r->pinv);
    r->pinv = NULL;
}

int cvpre_jacobi_rows(cv_run *r, double gamma, const int64_t *rows, int32_t n) {
    const model *m = r->m;
    int bad = 0;
    for (int32_t k = 0; k < n && !bad; k++) {
        int32_t j = rows ? (int32_t)rows[k] : k;
        double jjj = m->diag_entry[j] >= 0 ? r->jval[m->diag_entry[j]] : 0.0;
        double d = 1.0 - gamma * jjj;
        bad = d == 0.0 || !isfinite(d);
        r->pinv[j] = 1.0 / d;
    }
    return bad;
}

static int jacobi_setup(cv_run *r, double gamma) {
    int32_t n;
    const int64_t *rows = cvr_rows(r, &n);
    return cvr_agree(r, cvpre_jacobi_rows(r, gamma, rows, n)); /* 1: CVODE cuts the step */
}

/* I - gamma J on the pattern sp_* into a, row by row on the row loops'
 * threads (a model row's entries land in the pattern's same row); 1 when
 * a value is not finite. */
static int newton_matrix(const cv_run *r, double gamma, double *a) {
    const model *m = r->m;
    int bad = 0;
#pragma omp parallel for num_threads(r->nthreads) if (m->n >= CV_ILU_THREADED_ROWS)                \
    reduction(|                                                                                    \
              : bad)
    for (int32_t j = 0; j < m->n; j++) {
        for (sunindextype k = r->sp_ptr[j]; k < r->sp_ptr[j + 1]; k++)
            a[k] = 0.0;
        for (int64_t e = m->row_ptr[j]; e < m->row_ptr[j + 1]; e++)
            if (r->sp_pos[e] >= 0) a[r->sp_pos[e]] = -gamma * r->jval[e];
        a[r->sp_diag[j]] += 1.0;
        for (sunindextype k = r->sp_ptr[j]; k < r->sp_ptr[j + 1]; k++)
            bad |= !isfinite(a[k]);
    }
    return bad;
}

/* I - gamma J on the blocks, factored (KLU refactors on the pattern it
 * analysed at the first setup). */
static int block_setup(cv_run *r, double gamma) {
    if (!r->bj_LS) return cvr_agree(r, 0); /* no states here */
    int rc = newton_matrix(r, gamma, SUNSparseMatrix_Data(r->bj_A));
    if (!rc) rc = SUNLinSolSetup(r->bj_LS, r->bj_A); /* > 0: singular, recoverable */
    return cvr_agree(r, rc > 0 ? 1 : rc < 0 ? -1 : 0);
}

/* I - gamma J on the owned block, factored without fill-in; a zero or
 * non-finite pivot is recoverable. */
static int ilu_setup(cv_run *r, double gamma) {
    int rc = newton_matrix(r, gamma, r->ilu.lu);
    if (!rc) rc = ilu0_factor(&r->ilu);
    return cvr_agree(r, rc);
}

int cvpre_setup(sunrealtype t, N_Vector y, N_Vector fy, sunbooleantype jok, sunbooleantype *jcur,
                sunrealtype gamma, void *user_data) {
    cv_run *r = user_data;
    if (!jok || !r->jval_ready) {
        int rc = cvr_jacobian(r, t, y, fy);
        if (rc) return rc;
        *jcur = SUNTRUE;
    } else {
        *jcur = SUNFALSE;
    }
    r->gamma = gamma;
    return r->precond == PRECOND_BLOCK ? block_setup(r, gamma)
           : r->precond == PRECOND_ILU ? ilu_setup(r, gamma)
                                       : jacobi_setup(r, gamma);
}

int cvpre_solve(sunrealtype t, N_Vector y, N_Vector fy, N_Vector rv, N_Vector z, sunrealtype gamma,
                sunrealtype delta, int lr, void *user_data) {
    (void)t, (void)y, (void)fy, (void)gamma, (void)delta, (void)lr;
    cv_run *r = user_data;
    double *in = N_VGetArrayPointer(rv);
    double *out = N_VGetArrayPointer(z);
    if (r->precond == PRECOND_ILU) {
        ilu0_solve(&r->ilu, in, out);
        return 0;
    }
    if (r->precond != PRECOND_BLOCK) {
        int32_t n;
        const int64_t *rows = cvr_rows(r, &n);
        for (int32_t k = 0; k < n; k++) {
            int32_t j = rows ? (int32_t)rows[k] : k;
            out[j] = in[j] * r->pinv[j];
        }
        return 0;
    }
    int rc = 0;
    if (r->bj_LS) {
        N_VSetArrayPointer(in, r->bj_b);
        N_VSetArrayPointer(out, r->bj_x);
        rc = SUNLinSolSolve(r->bj_LS, r->bj_A, r->bj_x, r->bj_b, 0.0);
    }
    return cvr_agree(r, rc > 0 ? 1 : rc < 0 ? -1 : 0);
}
