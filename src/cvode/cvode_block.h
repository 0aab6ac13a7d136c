/* cvode_block.h: a CVODE-BDF block advanced step by step by another driver.
 *
 * The mixed method (mixed_run.c) integrates the BDF states of a run with one
 * CVODE instance over a model whose rows are those states and whose columns
 * [first_input, n_cols) are inputs owned by the QSS block: their values at
 * any time of the step come from a callback. The block advances to times
 * the driver chooses (CVODE stops exactly there) and offers its dense output
 * and its Jacobian estimates in between. cvode_integrate is the same block
 * run to tf alone.
 */
#ifndef QMOL_CVODE_BLOCK_H
#define QMOL_CVODE_BLOCK_H

#include "core/integrator.h"

#include <mpi.h>

typedef struct cvode_block cvode_block;

/* Columns [first, n_cols) of the model are inputs; values(ctx, t, y, product,
 * v) writes their values at t into v[0 .. n_cols - first), given the block's
 * own (local) values y. With product set, y is the vector of a Jacobian
 * product and v gets its components on the inputs: 0 for states outside the
 * block, y's on other ranks for the block's own (a distributed block).
 *
 * n_global > 0: the block is distributed over comm (n_global states in all,
 * a rank may hold none) without a halo of its own: the values callback, which
 * every rank calls at once, fills the other ranks' states too. */
typedef struct cvode_inputs {
    int32_t first;
    void (*values)(void *ctx, double t, const double *y, int product, double *v);
    void *ctx;
    MPI_Comm comm;
    int64_t n_global;
} cvode_inputs;

/* Creates the block at o->t0 from the problem's initial values (inputs may be
 * NULL: no inputs). Collective on the halo's ranks. Returns NULL with err. */
cvode_block *cvode_block_open(const model *m, const integrator_options *o,
                              const cvode_inputs *inputs, char *err, size_t errlen);
/* A block whose rows are an active set of the model's states, which can
 * change without a restart (issue 20; cvode_active.h): one rank, a model
 * without ghosts, SPGMR with the Jacobi preconditioner. The other states
 * are inputs: values(ctx, t, cols, ncols, v) writes the values at t of the
 * inactive states cols[0 .. ncols) (those the active rows read) into
 * v[cols[k]]. want: the first active set (n entries, nonzero: active). The
 * block's state, dense output and local errors hold the active states'
 * values alone. Returns NULL with err. */
typedef struct cvode_active_inputs {
    void (*values)(void *ctx, double t, const int32_t *cols, int32_t ncols, double *v);
    void *ctx;
} cvode_active_inputs;
cvode_block *cvode_block_open_active(const model *m, const integrator_options *o,
                                     const unsigned char *want, const cvode_active_inputs *inactive,
                                     char *err, size_t errlen);
/* Makes want the active set at the block's time (after its first step):
 * a state that enters gets its value, slope and second derivative there
 * from history(ctx, j, d) as CVODE's history; a state that leaves is an
 * input from then on. An empty block starts CVODE again there instead
 * (CVodeReInit: nothing to keep), from the entering states' values.
 * Returns 0, or -1 with err. */
int cvode_block_move(cvode_block *b, const unsigned char *want,
                     void (*history)(void *ctx, int32_t j, double d[3]), void *ctx, char *err,
                     size_t errlen);
/* An active block's inputs: the inactive states its rows read (n of them,
 * increasing; valid until the next move). */
const int32_t *cvode_block_inputs(const cvode_block *b, int32_t *n);
/* The states the block integrates (its active set's over all ranks, or all). */
int64_t cvode_block_active_count(const cvode_block *b);
/* Integrates to exactly T (> the block's time). Returns 0, or -1 with err. */
int cvode_block_advance(cvode_block *b, double T, char *err, size_t errlen);
/* The k-th derivative (k <= 2) of the dense output at t inside the last
 * step, into out[0 .. n) (zeros when k exceeds the last step's order).
 * Returns 0, or -1 with err. */
int cvode_block_dky(cvode_block *b, double t, int k, double *out, char *err, size_t errlen);
/* The block's states at its current time (valid until the next advance). */
const double *cvode_block_state(const cvode_block *b);
/* The step CVODE will try next (0 before the first step). */
double cvode_block_next_step(const cvode_block *b);
/* The block's weighted local error estimates of its last step, |e_i| w_i
 * (w_i: CVODE's error weights), into out[0 .. n); zeros before the first
 * step. Uses the block's dense-output scratch. */
void cvode_block_local_errors(cvode_block *b, double *out);
/* The Jacobian on the model's row entries (entry order, inputs included) as
 * of CVODE's last Jacobian evaluation, or NULL before the first one. */
const double *cvode_block_jacobian(const cvode_block *b);
/* Evaluates the Jacobian now at (t, y) with the inputs' values at t, so that
 * cvode_block_jacobian has one before the first step. Returns 0 or -1. */
int cvode_block_eval_jacobian(cvode_block *b, double t, const double *y);
/* Adds the block's counters to s: CVODE steps (also counted as events when
 * steps_are_events), Newton and linear iterations, evaluations. */
int cvode_block_add_stats(cvode_block *b, qmol_stats *s, int steps_are_events, char *err,
                          size_t errlen);
/* Restarts CVODE at t from its current states (after a discontinuity: the
 * history of the old right-hand side is dropped). Returns 0 or -1 with err. */
int cvode_block_reinit(cvode_block *b, double t, char *err, size_t errlen);
/* The CVODE instance, for drivers that add root finding (cvode_integrate.c). */
void *cvode_block_mem(cvode_block *b);
void cvode_block_close(cvode_block *b);

#endif
