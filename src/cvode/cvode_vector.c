/* cvode_vector.c: CVODE's state vector, NVECTOR_PARALLEL or an NVECTOR_OPENMP
 * local part under NVECTOR_MPIPLUSX (cvode_vector.h).
 *
 * NVECTOR_OPENMP's elementwise operations give the same values on any
 * number of threads; its sums (dot products, weighted squares) do not, each
 * thread adding its own share. The local sums MPIPLUSX asks of its part are
 * replaced here: the vector is cut into at most SUM_PARTS parts of at least
 * SUM_MIN_PART entries, a size that depends on the length alone; each part
 * is added by one thread and the parts in order by the caller.
 */
#include "cvode/cvode_vector.h"

#include <nvector/nvector_mpiplusx.h>
#include <nvector/nvector_openmp.h>
#include <nvector/nvector_parallel.h>

#include <math.h>

#define SUM_PARTS 4096
#define SUM_MIN_PART 2048

typedef struct sum_split {
    sunindextype part; /* entries per part (the last may have fewer) */
    int n_parts;
} sum_split;

static sum_split split_of(sunindextype n) {
    sunindextype parts = (n + SUM_MIN_PART - 1) / SUM_MIN_PART;
    if (parts > SUM_PARTS) parts = SUM_PARTS;
    if (parts < 1) parts = 1;
    sum_split s = {(n + parts - 1) / parts, (int)parts};
    if (s.part < 1) s.part = 1;
    return s;
}

static double add_parts(const double *partial, int n_parts) {
    double s = 0.0;
    for (int k = 0; k < n_parts; k++)
        s += partial[k];
    return s;
}

/* Four running sums per part: the same order on every thread count. */
#define PART_SUM(TERM)                                                                             \
    do {                                                                                           \
        sunindextype lo = (sunindextype)k * s.part;                                                \
        sunindextype hi = lo + s.part < n ? lo + s.part : n;                                       \
        double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;                                             \
        sunindextype i = lo;                                                                       \
        for (; i + 3 < hi; i += 4) {                                                               \
            a0 += TERM(i);                                                                         \
            a1 += TERM(i + 1);                                                                     \
            a2 += TERM(i + 2);                                                                     \
            a3 += TERM(i + 3);                                                                     \
        }                                                                                          \
        for (; i < hi; i++)                                                                        \
            a0 += TERM(i);                                                                         \
        partial[k] = (a0 + a1) + (a2 + a3);                                                        \
    } while (0)

static sunrealtype dot_local(N_Vector x, N_Vector y) {
    const sunindextype n = NV_LENGTH_OMP(x);
    const double *a = NV_DATA_OMP(x), *b = NV_DATA_OMP(y);
    const sum_split s = split_of(n);
    double partial[SUM_PARTS];
#define DOT_TERM(i) (a[i] * b[i])
#pragma omp parallel for num_threads(NV_NUM_THREADS_OMP(x)) schedule(static)
    for (int k = 0; k < s.n_parts; k++)
        PART_SUM(DOT_TERM);
#undef DOT_TERM
    return add_parts(partial, s.n_parts);
}

static sunrealtype wsqrsum_local(N_Vector x, N_Vector w) {
    const sunindextype n = NV_LENGTH_OMP(x);
    const double *a = NV_DATA_OMP(x), *b = NV_DATA_OMP(w);
    const sum_split s = split_of(n);
    double partial[SUM_PARTS];
#define WSQR_TERM(i) ((a[i] * b[i]) * (a[i] * b[i]))
#pragma omp parallel for num_threads(NV_NUM_THREADS_OMP(x)) schedule(static)
    for (int k = 0; k < s.n_parts; k++)
        PART_SUM(WSQR_TERM);
#undef WSQR_TERM
    return add_parts(partial, s.n_parts);
}

static sunrealtype wsqrsum_mask_local(N_Vector x, N_Vector w, N_Vector id) {
    const sunindextype n = NV_LENGTH_OMP(x);
    const double *a = NV_DATA_OMP(x), *b = NV_DATA_OMP(w), *m = NV_DATA_OMP(id);
    const sum_split s = split_of(n);
    double partial[SUM_PARTS];
#define MASK_TERM(i) (m[i] > 0.0 ? (a[i] * b[i]) * (a[i] * b[i]) : 0.0)
#pragma omp parallel for num_threads(NV_NUM_THREADS_OMP(x)) schedule(static)
    for (int k = 0; k < s.n_parts; k++)
        PART_SUM(MASK_TERM);
#undef MASK_TERM
    return add_parts(partial, s.n_parts);
}

/* The local sums MPIPLUSX asks of its part, in fixed parts; the fused
 * multi-vector sum (which would add by thread) is left out, so that callers
 * fall back to dot_local. */
static void order_sums(N_Vector local) {
    local->ops->nvdotprodlocal = dot_local;
    local->ops->nvwsqrsumlocal = wsqrsum_local;
    local->ops->nvwsqrsummasklocal = wsqrsum_mask_local;
    local->ops->nvdotprodmulti = NULL;
    local->ops->nvdotprodmultilocal = NULL;
}

int cvv_threads_for(int64_t n_global, int nranks, int nthreads) {
    if (nthreads < 1 || nranks < 1 || n_global / nranks < CV_THREADED_MIN_ROWS) return 0;
    return nthreads;
}

int cvv_create(cv_vector *x, MPI_Comm comm, sunindextype n_local, sunindextype n_global,
               int nthreads, SUNContext sunctx) {
    int nranks = 1;
    MPI_Comm_size(comm, &nranks);
    x->v = x->local = NULL;
    if (!cvv_threads_for(n_global, nranks, nthreads)) {
        x->v = N_VNew_Parallel(comm, n_local, n_global, sunctx);
        return x->v ? 0 : -1;
    }
    x->local = N_VNew_OpenMP(n_local, nthreads, sunctx);
    if (!x->local) return -1;
    order_sums(x->local);
    x->v = N_VMake_MPIPlusX(comm, x->local, sunctx);
    return x->v ? 0 : -1;
}

/* The largest |x_i w_i| over the communicator: every CVODE vector here is
 * NVECTOR_PARALLEL or MPIPLUSX, whose array pointer is the owned part. */
static sunrealtype max_weighted(N_Vector x, N_Vector w) {
    sunindextype n = N_VGetVectorID(x) == SUNDIALS_NVEC_PARALLEL ? N_VGetLocalLength_Parallel(x)
                                                                 : N_VGetLocalLength_MPIPlusX(x);
    const double *a = N_VGetArrayPointer(x), *b = N_VGetArrayPointer(w);
    double largest = 0.0;
    for (sunindextype i = 0; i < n; i++) {
        double v = fabs(a[i] * b[i]);
        if (!(v <= largest)) largest = isnan(v) ? INFINITY : v; /* a NaN fails the test */
    }
    void *comm = N_VGetCommunicator(x);
    if (comm) MPI_Allreduce(MPI_IN_PLACE, &largest, 1, MPI_DOUBLE, MPI_MAX, *(MPI_Comm *)comm);
    return largest;
}

void cvv_use_max_norm(cv_vector *x) {
    x->v->ops->nvwrmsnorm = max_weighted;
}

void cvv_destroy(cv_vector *x) {
    if (x->v) N_VDestroy(x->v);
    if (x->local) N_VDestroy(x->local);
    x->v = x->local = NULL;
}
