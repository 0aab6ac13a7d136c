/* cvode_rows.c: the model's rows under CVODE: right-hand side, Jacobian rows
 * and products with the stored Jacobian, over OpenMP threads.
 *
 * A row gathers its values through the model's CSR row (local ids) and calls
 * the problem with the global id of its state. Rows are independent and each
 * is computed the same way on any thread, so results do not depend on the
 * thread count. On P ranks the owned values are first copied to a work array
 * whose ghosts halo_exchange fills.
 */
#include "cvode/cvode_active.h"
#include "cvode/cvode_internal.h"

#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Fewer rows than this run on one thread (a parallel region costs more). */
#define CVR_OMP_MIN_ROWS 512
/* Per-thread buffers start on their own cache line (doubles). */
#define CVR_LINE 8

int cvr_alloc(cv_run *r) {
    const model *m = r->m;
    r->nthreads = omp_get_max_threads();
    if (r->nthreads < 1) r->nthreads = 1;
    /* a row's values, then model_rhs's scratch */
    r->stride = ((size_t)m->max_row + model_scratch_size(m) + CVR_LINE) / CVR_LINE * CVR_LINE;
    r->vals =
        aligned_alloc(CVR_LINE * sizeof(double), (size_t)r->nthreads * r->stride * sizeof *r->vals);
    r->jval = malloc((size_t)(m->nnz > 0 ? m->nnz : 1) * sizeof *r->jval);
    if (!r->vals || !r->jval) return -1;
    if (r->halo || r->inputs || m->n_cols > m->n) {
        r->xloc = malloc((size_t)m->n_cols * sizeof *r->xloc);
        r->vloc = malloc((size_t)m->n_cols * sizeof *r->vloc);
        if (!r->xloc || !r->vloc) return -1;
    }
    return 0;
}

int cvr_agree(const cv_run *r, int rc) {
    if (!r->distributed) return rc;
    int v[2] = {rc<0, rc> 0};
    MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_INT, MPI_MAX, r->comm);
    return v[0] ? -1 : v[1];
}

const int64_t *cvr_rows(const cv_run *r, int32_t *count) {
    if (!r->active) {
        *count = r->m->n;
        return NULL;
    }
    *count = (int32_t)cva_active_local(r->active);
    return cva_active_index(r->active);
}

/* Row k of the loop over rows (NULL: every row). */
static inline int32_t row_at(const int64_t *rows, int32_t k) {
    return rows ? (int32_t)rows[k] : k;
}

/* y's local values at t: on P ranks copied to work with the ghosts filled in
 * (collective), and in a mixed run followed by the inputs' values at t from
 * the driver (collective when the block is distributed), or their components
 * when y is the vector of a Jacobian product (`product`). An active block
 * writes its inputs, the inactive states its rows read, into y itself. */
static const double *with_ghosts(cv_run *r, N_Vector y, double *work, double t, int product) {
    double *x = N_VGetArrayPointer(y);
    const model *m = r->m;
    if (r->active) {
        if (product)
            for (int32_t k = 0; k < r->nring; k++)
                x[r->ring[k]] = 0.0;
        else if (r->nring > 0)
            r->inactive_values(r->inactive_ctx, t, r->ring, r->nring, x);
        return x;
    }
    if (!r->halo && !r->inputs) return x;
    if (m->n > 0) memcpy(work, x, (size_t)m->n * sizeof *work);
    if (r->halo) {
        double w0 = MPI_Wtime();
        halo_exchange(r->halo, work);
        r->wall_exchange += MPI_Wtime() - w0;
        r->exchanges++;
    }
    if (r->inputs) r->inputs(r->inputs_ctx, t, x, product, work + r->first_input);
    return work;
}

static double *thread_vals(const cv_run *r) {
    return r->vals + (size_t)omp_get_thread_num() * r->stride;
}

/* model_rhs's scratch of the thread whose row values are vals. */
static double *listed_of(const cv_run *r, double *vals) {
    return vals + r->m->max_row;
}

int cvr_rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user_data) {
    cv_run *r = user_data;
    const model *m = r->m;
    const double *x = with_ghosts(r, y, r->xloc, t, 0);
    double *f = N_VGetArrayPointer(ydot);
    int32_t n;
    const int64_t *rows = cvr_rows(r, &n);
    int bad = 0;
#pragma omp parallel for num_threads(r->nthreads) if (n >= CVR_OMP_MIN_ROWS) reduction(| : bad)
    for (int32_t k = 0; k < n; k++) {
        int32_t j = row_at(rows, k);
        double *vals = thread_vals(r);
        model_gather(m, j, x, vals);
        f[j] = model_rhs(m, j, t, vals, listed_of(r, vals));
        bad |= !isfinite(f[j]);
    }
    r->rhs_calls++;
    r->rhs_rows += (uint64_t)n;
    for (int32_t k = 0; bad && k < n; k++) /* name the first bad state in a failure */
        if (!isfinite(f[row_at(rows, k)])) {
            int32_t j = row_at(rows, k);
            int rank = 0;
            MPI_Comm_rank(MPI_COMM_WORLD, &rank);
            snprintf(r->cbmsg, sizeof r->cbmsg, "state %lld (rank %d): derivative is %g at t=%.17g",
                     (long long)model_gid(m, j), rank, f[j], t);
            break;
        }
    return cvr_agree(r, bad); /* 1: recoverable, CVODE retries with a smaller step */
}

/* Row j's Jacobian into dfdv, from the problem's jac or finite differences
 * about fj = f_j(t, x) (fd counts the evaluations). Ghost columns are
 * perturbed locally like any other: a row only needs the values. Returns 1
 * if a value is not finite. */
static int row_jacobian(const cv_run *r, int32_t j, double t, const double *x, double fj,
                        double *vals, double *dfdv, uint64_t *fd) {
    const model *m = r->m;
    double *listed = listed_of(r, vals);
    int64_t len = model_row_length(m, j);
    model_gather(m, j, x, vals);
    if (r->analytic_jac) {
        model_jac(m, j, t, vals, dfdv, listed);
    } else {
        /* The row's own magnitude is the typical scale of a zero entry. */
        double typical = 0.0;
        for (int64_t k = 0; k < len; k++)
            typical = fmax(typical, fabs(vals[k]));
        if (typical == 0.0) typical = 1.0;
        double srur = sqrt(DBL_EPSILON);
        for (int64_t k = 0; k < len; k++) {
            double v = vals[k];
            vals[k] = v + srur * fmax(fabs(v), typical);
            double inc = vals[k] - v; /* the step actually taken */
            double f1 = model_rhs(m, j, t, vals, listed);
            dfdv[k] = (f1 - fj) / inc;
            vals[k] = v;
        }
        *fd += (uint64_t)len;
    }
    for (int64_t k = 0; k < len; k++)
        if (!isfinite(dfdv[k])) return 1;
    return 0;
}

/* Rows rows[0 .. n) (NULL: 0 .. n) at (t, x) into jval; fy: f(t, x) on
 * them, or NULL (evaluated here where finite differences need it). */
static int jacobian_rows(cv_run *r, double t, const double *x, const double *fy,
                         const int64_t *rows, int32_t n) {
    const model *m = r->m;
    int bad = 0;
    uint64_t fd = 0;
#pragma omp parallel for num_threads(r->nthreads) if (n >= CVR_OMP_MIN_ROWS)                      \
    reduction(| : bad) reduction(+ : fd)
    for (int32_t k = 0; k < n; k++) {
        int32_t j = row_at(rows, k);
        double *vals = thread_vals(r), fj = 0.0;
        if (fy)
            fj = fy[j];
        else if (!r->analytic_jac) {
            model_gather(m, j, x, vals);
            fj = model_rhs(m, j, t, vals, listed_of(r, vals));
        }
        bad |= row_jacobian(r, j, t, x, fj, vals, r->jval + m->row_ptr[j], &fd);
    }
    r->fd_evals += fd;
    if (r->analytic_jac) r->jac_rows += (uint64_t)n;
    return bad;
}

int cvr_jacobian_rows(cv_run *r, double t, N_Vector y, const int64_t *rows, int32_t count) {
    return jacobian_rows(r, t, with_ghosts(r, y, r->xloc, t, 0), NULL, rows, count);
}

int cvr_jacobian(cv_run *r, double t, N_Vector y, N_Vector fy) {
    const double *x = with_ghosts(r, y, r->xloc, t, 0);
    int32_t n;
    const int64_t *rows = cvr_rows(r, &n);
    int bad = jacobian_rows(r, t, x, N_VGetArrayPointer(fy), rows, n);
    int rc = cvr_agree(r, bad);
    r->jval_ready = rc == 0;
    if (rc == 0) r->jac_evals++;
    return rc;
}

/* Jv from the stored Jacobian: the same modified-Newton matrix as KLU/band.
 * CVODE's default difference quotient perturbs y by about the tolerance,
 * which is lost in rounding when a row sums large cancelling terms. */
int cvr_jac_times(N_Vector v, N_Vector Jv, sunrealtype t, N_Vector y, N_Vector fy, void *user_data,
                  N_Vector tmp) {
    (void)tmp;
    cv_run *r = user_data;
    const model *m = r->m;
    if (!r->jval_ready) { /* the same on every rank */
        int rc = cvr_jacobian(r, t, y, fy);
        if (rc) return rc;
    }
    const double *in = with_ghosts(r, v, r->vloc, t, 1);
    double *out = N_VGetArrayPointer(Jv);
    int32_t n;
    const int64_t *rows = cvr_rows(r, &n);
#pragma omp parallel for num_threads(r->nthreads) if (n >= CVR_OMP_MIN_ROWS)
    for (int32_t k = 0; k < n; k++) {
        int32_t j = row_at(rows, k);
        double sum = 0.0;
        for (int64_t e = m->row_ptr[j]; e < m->row_ptr[j + 1]; e++)
            sum += r->jval[e] * in[m->row_col[e]];
        out[j] = sum;
    }
    return 0;
}
