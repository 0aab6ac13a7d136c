/* cvode_internal.h: the state shared by the pieces of the CVODE integrator.
 *
 * cvode_rows.c evaluates rows (right-hand side, Jacobian rows, products with
 * the stored Jacobian) over OpenMP threads; cvode_pattern.c builds the sparse
 * pattern of the owned columns; cvode_precond.c holds the SPGMR
 * preconditioners (Jacobi, block-Jacobi KLU, ILU(0) of cvode_ilu.c);
 * cvode_linsol.c attaches the
 * linear solver; cvode_integrate.c drives CVODE.
 *
 * On P ranks (halo set) the vector is distributed: a rank holds its n owned
 * states, and rows read ghosts through a local work array of n_cols values
 * refreshed by halo_exchange. Every callback that CVODE makes on all ranks at
 * once (it does, since its norms are global) agrees on its return value, so
 * that CVODE takes the same path everywhere.
 */
#ifndef QMOL_CVODE_INTERNAL_H
#define QMOL_CVODE_INTERNAL_H

#include "comm/halo.h"
#include "core/integrator.h"
#include "cvode/cvode_active.h"
#include "cvode/cvode_ilu.h"
#include "cvode/cvode_vector.h"

#include <mpi.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>
#include <sundials/sundials_nvector.h>

/* Block-Jacobi: a rank's owned rows are cut into equal runs of consecutive
 * local ids, at most this many each, and KLU factors each run's diagonal
 * block (one matrix: KLU's block triangular form separates them). KLU's
 * fill-in on 2D/3D grids makes whole blocks costly: on heat2d 200 x 200 one
 * block of 40000 took 3x the time of 40 blocks of 1000, on adr2d 200 x 200
 * 7x, and on heat3d 30^3 blocks of 10000 took 23x the time of 1000. */
#define CV_BLOCK_ROWS 1024

/* From this many owned rows ILU(0)'s set-up and substitutions run on the
 * row loops' threads on a 2D or 3D grid (cvode_ilu.h: slabs of x, each a
 * grid line behind the one before; the same arithmetic). Below it the
 * waits cost more than the threads bring: adr2d on 2 threads, medians of 3
 * to 5 runs, 300 x 300 4.41 s against 4.07 s on one thread's ILU(0),
 * 400 x 400 2.28 s against 2.26 s, 500 x 500 3.61 s against 4.27 s. */
#define CV_ILU_THREADED_ROWS 200000

/* CVODE's mxstep (per call) and, as CV_ONE_STEP makes it apply per call,
 * cvode_integrate's own cap: at most this many steps between two
 * discontinuities (or from t0 to tf without any). A whole-run cap stopped
 * buck-heatsink's 60 s at tol 1e-7 at t = 43: its 3.6 million handlers each
 * restart CVODE. A mixed run's advance is one call per window. */
#define CV_MAX_STEPS 10000000L
/* CVODE counters qmol reads (cvode_block.c, cv_counters) */
#define CV_NCOUNTERS 12

typedef struct cv_run {
    const model *m;
    const qmol_problem *p;
    halo_plan *halo; /* NULL on one rank and in distributed mixed runs */
    MPI_Comm comm;   /* the vector's communicator */
    int distributed; /* the vector spans several ranks: callbacks agree */
    int64_t n_global;
    /* Mixed runs: columns [first_input, n_cols) are inputs from outside the
     * block (QSS states), their values at t filled by `inputs`; constants of
     * a Jacobian product. first_input = n_cols when there are none. */
    int32_t first_input;
    void (*inputs)(void *ctx, double t, const double *y, int product, double *values);
    void *inputs_ctx;
    /* A block over an active set (cvode_block_open_active; one rank): the
     * row loops run over the active rows, and the inactive states they
     * read (ring, nring) are inputs whose values at t inactive_values
     * writes into CVODE's own vectors (whose inactive components CVODE
     * never reads); 0 in a product's vector. NULL: every row. */
    cva_set *active;
    int32_t *ring, nring;
    void (*inactive_values)(void *ctx, double t, const int32_t *cols, int32_t ncols, double *v);
    void *inactive_ctx;
    double gamma; /* of the last preconditioner set-up (rows that enter) */
    void *disc;   /* cvode_integrate.c's zero crossings, or NULL */
    int analytic_jac;
    int nthreads;  /* OpenMP threads for the row loops */
    size_t stride; /* doubles per thread in vals */
    double *vals;  /* nthreads gather buffers of the longest row */
    double *xloc;  /* halo or inputs: n_cols values, owned, ghosts, inputs */
    double *vloc;  /* the same for the vector of a product */
    /* The Jacobian on the row pattern (entry order), refreshed on setups. */
    double *jval;
    int jval_ready;
    /* CSR pattern of the whole matrix (KLU, ILU) or of the block-Jacobi blocks
     * (cvode_pattern.c; diagonal added, rows sorted by column): sp_pos[e] is
     * the slot of model entry e or -1 when dropped, sp_diag[j] that of (j, j). */
    sunindextype *sp_ptr, *sp_col;
    int64_t *sp_pos, *sp_diag;
    int64_t sp_nnz;
    /* Preconditioners (precond, resolved PRECOND_*): Jacobi
     * 1 / (1 - gamma J_jj), block-Jacobi with KLU on pieces of the owned
     * block of I - gamma J, or ILU(0) of the whole owned block. */
    int precond;
    double *pinv;
    ilu0 ilu;
    SUNMatrix bj_A;
    SUNLinearSolver bj_LS;
    N_Vector bj_x, bj_b; /* serial wrappers of the local arrays */
    /* counters (this rank) */
    uint64_t rhs_calls, rhs_rows, fd_evals, jac_rows, jac_evals;
    uint64_t exchanges;   /* halo exchanges (P ranks) */
    double wall_exchange; /* seconds in them */
    char cvmsg[256];      /* CVODE's last error message */
    char cbmsg[128];      /* why one of our callbacks failed, if it did */
} cv_run;

/* What a CVODE block owns (cvode_block.c); freed by cvode_block_close. */
typedef struct cvode_block {
    cv_run r;
    integrator_options o;
    SUNContext sunctx;
    cv_vector state;      /* the vector CVODE integrates (y is state.v) */
    N_Vector y, yk, atol; /* atol: per-state absolute tolerances, or NULL */
    SUNMatrix A;
    SUNLinearSolver LS;
    void *mem;
    /* CVODE's counters (cvode_block.c, cv_counters) before its last restart:
     * CVodeReInit zeroes them */
    long before_restart[CV_NCOUNTERS];
    /* an active block (r.active): CVODE's history, once found, and the rows
     * that entered at the last move (room for n) */
    cva_history history;
    int history_found;
    int64_t *entering;
} cvode_block;

/* On P ranks every rank returns the lowest failing rank's rc and message. */
int cvk_agree(const cv_run *r, int rc, char *err, size_t errlen);

/* cvode_rows.c */
/* Allocates the row buffers (nthreads from OpenMP). Returns 0 or -1. */
int cvr_alloc(cv_run *r);
/* The rows the loops run over: the active set's (count of them) or NULL
 * (every row, m->n). */
const int64_t *cvr_rows(const cv_run *r, int32_t *count);
/* Jacobian rows rows[0 .. count) at (t, y) into jval (an active block's
 * entering rows). Returns 1 if a value is not finite, else 0. */
int cvr_jacobian_rows(cv_run *r, double t, N_Vector y, const int64_t *rows, int32_t count);
/* The callback result every rank returns: -1 if any rank has a negative rc
 * (unrecoverable), else 1 if any has a positive one, else 0. Collective on
 * P ranks. */
int cvr_agree(const cv_run *r, int rc);
int cvr_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user_data);
/* Every Jacobian row at (t, y) into jval (fy = f(t, y)); collective on P
 * ranks. Returns the agreed result (1 when a value is not finite). */
int cvr_jacobian(cv_run *r, double t, N_Vector y, N_Vector fy);
/* Jv from jval; v's ghosts are exchanged on P ranks. */
int cvr_jac_times(N_Vector v, N_Vector Jv, sunrealtype t, N_Vector y, N_Vector fy, void *user_data,
                  N_Vector tmp);

/* cvode_pattern.c */
/* Builds sp_* from the model with blocks of at most block_rows rows.
 * Returns 0 or -1 (out of memory). */
int cvp_build(cv_run *r, int32_t block_rows);
void cvp_band_widths(const model *m, sunindextype *mu, sunindextype *ml);

/* cvode_precond.c */
/* Creates r->precond's storage (and the pattern it needs); returns 0 or -1
 * with err set. cvpre_free frees it (not the pattern). */
int cvpre_create(cv_run *r, SUNContext sunctx, char *err, size_t errlen);
void cvpre_free(cv_run *r);
/* Jacobi's 1 / (1 - gamma J_jj) on rows[0 .. n) (NULL: 0 .. n); 1 when one
 * is not finite (this rank alone). */
int cvpre_jacobi_rows(cv_run *r, double gamma, const int64_t *rows, int32_t n);
int cvpre_setup(sunrealtype t, N_Vector y, N_Vector fy, sunbooleantype jok, sunbooleantype *jcur,
                sunrealtype gamma, void *user_data);
int cvpre_solve(sunrealtype t, N_Vector y, N_Vector fy, N_Vector rv, N_Vector z, sunrealtype gamma,
                sunrealtype delta, int lr, void *user_data);

/* cvode_linsol.c */
/* Creates the linear solver `which` and what it needs (local work, no
 * communication); returns 0 or -1 with err set. */
int cvl_create(cv_run *r, linsol_id which, N_Vector y, SUNContext sunctx, SUNMatrix *A,
               SUNLinearSolver *LS, char *err, size_t errlen);
/* Attaches it to CVODE; returns 0 or -1 with err set. */
int cvl_attach(cv_run *r, void *mem, linsol_id which, SUNMatrix A, SUNLinearSolver LS, char *err,
               size_t errlen);
/* err = "<call> returned <flag name>[: CVODE's message]" when flag < 0. */
int cvl_check(int flag, const char *call, const cv_run *r, char *err, size_t errlen);
void cvl_flag_name(int flag, char *buf, size_t len);

#endif
