/* cvode_active.h: a CVODE vector whose operations run over an active part of
 * a rank's states, and the hand-over of CVODE's history to a state that
 * becomes active, so that the states of one CVODE can change without a
 * restart (issue 20; measured in docs/methods.md, "A BDF block whose states
 * move without a restart").
 *
 * Every vector of a set holds all n_local values; its operations (CVODE's
 * and SPGMR's) read and write the active ones alone, in increasing order,
 * and its sums run over the communicator (the weighted RMS norm counts the
 * active states of all ranks). What an inactive component holds is never
 * read. When the set changes, the caller also sets CVODE's linear-solver
 * norm factor (CVodeSetLSNormFactor) to sqrt(cva_active_global).
 *
 * CVODE 6.4 has no call that writes its history (the Nordsieck array
 * z_j = h^j / j! y^(j) at t_n): cva_history_find finds z_0 ... z_qmax among
 * the set's vectors (CVODE clones them one after another; it checks what it
 * found against CVodeGetNonlinearSystemData and CVodeGetDky) and
 * cva_history_write writes an entering state's entries.
 */
#ifndef QMOL_CVODE_ACTIVE_H
#define QMOL_CVODE_ACTIVE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <sundials/sundials_context.h>
#include <sundials/sundials_nvector.h>

#define CVA_QMAX 5 /* CVODE's BDF orders */

typedef struct cva_set cva_set;

/* A set over n_local states on comm (MPI_COMM_NULL: this rank alone), none
 * active. NULL when out of memory. */
cva_set *cva_set_new(MPI_Comm comm, int64_t n_local);
/* Frees the set; its vectors must be destroyed first. */
void cva_set_free(cva_set *s);
/* Makes the vectors' weighted RMS norm the largest weighted component
 * (qmol's --cvode-norm max, as cvv_use_max_norm does). */
void cva_set_use_max_norm(cva_set *s);
/* The active states become those with want[i] != 0 (collective). Returns 0. */
int cva_set_take(cva_set *s, const unsigned char *want);
/* Whether local state i is active; the active count here and over comm. */
int cva_active(const cva_set *s, int64_t i);
int64_t cva_active_local(const cva_set *s);
int64_t cva_active_global(const cva_set *s);
/* The active local indices, increasing (cva_active_local of them). */
const int64_t *cva_active_index(const cva_set *s);

/* A vector of the set (its values zero). NULL when out of memory. */
N_Vector cva_vector_new(cva_set *s, SUNContext ctx);

/* CVODE's history arrays z_0 ... z_qmax (qmax: CVodeSetMaxOrd's). */
typedef struct cva_history {
    N_Vector z[CVA_QMAX + 1];
    int qmax;
} cva_history;

/* Finds the history of the CVODE instance mem, whose vectors were cloned
 * from y (a vector of the set), after its first step; checks it at t_n
 * (cva_history_check). Returns 0, or -1 with err. */
int cva_history_find(cva_history *h, void *mem, N_Vector y, int qmax, char *err, size_t errlen);
/* Checks that CVodeGetDky at t_n gives z_0 and z_1 / h_last on every active
 * state (within rounding), with scratch, a vector of the set. Returns 0, or
 * -1 with err. */
int cva_history_check(const cva_history *h, void *mem, N_Vector scratch, char *err, size_t errlen);
/* Writes local state i's history at CVODE's t_n from its value, slope and
 * second derivative there (d[0 .. 2]); h_last is CVodeGetLastStep's. */
void cva_history_write(const cva_history *h, int64_t i, double h_last, const double d[3]);

#endif
