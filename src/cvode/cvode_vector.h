/* cvode_vector.h: the state vector of a CVODE block, on every core of a rank
 * when the block is large.
 *
 * Blocks of fewer than CV_THREADED_MIN_ROWS states per rank (on average over
 * the communicator, so that every rank decides alike) use NVECTOR_PARALLEL;
 * larger ones an NVECTOR_OPENMP local part under NVECTOR_MPIPLUSX, so that
 * CVODE's own vector operations (linear sums, norms, dot products: most of
 * a step on a large grid) run on the rank's OpenMP threads. Their sums are
 * taken in fixed parts of the vector added in order, so the result does not
 * depend on the thread count.
 */
#ifndef QMOL_CVODE_VECTOR_H
#define QMOL_CVODE_VECTOR_H

#include <mpi.h>
#include <stdint.h>
#include <sundials/sundials_context.h>
#include <sundials/sundials_nvector.h>

/* Threaded vectors from this many states per rank. */
#define CV_THREADED_MIN_ROWS 16384

typedef struct cv_vector {
    N_Vector v;     /* what CVODE integrates (NULL until created) */
    N_Vector local; /* the threaded local part, destroyed after v, or NULL */
} cv_vector;

/* The threads a vector of n_global states over nranks runs on, given
 * nthreads: 0 where it is NVECTOR_PARALLEL (a small block). */
int cvv_threads_for(int64_t n_global, int nranks, int nthreads);
/* Creates the vector of n_local owned states of n_global over comm, threaded
 * on nthreads threads where the block is large (collective: it asks the
 * communicator's size). Returns 0, or -1 (out of memory). */
int cvv_create(cv_vector *x, MPI_Comm comm, sunindextype n_local, sunindextype n_global,
               int nthreads, SUNContext sunctx);
/* Makes CVODE's weighted RMS norm of x (and of its clones) the largest
 * weighted component |x_i w_i| over all ranks (CVODE_NORM_MAX): CVODE's
 * error test, Newton convergence test and first step then hold every
 * state to its tolerance instead of the root mean square over all. */
void cvv_use_max_norm(cv_vector *x);
void cvv_destroy(cv_vector *x);

#endif
