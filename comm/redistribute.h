/* redistribute.h: moves values of owned states (any partition) to the
 * directory blocks (rank r gets ids [dir_first(r), dir_first(r+1)), the
 * blocks the HDF5 writer writes). Built once; each move is one
 * MPI_Alltoallv with no packing on the sending side: owned ids are
 * ascending, so the values bound for each block are already contiguous.
 */
#ifndef QMOL_REDISTRIBUTE_H
#define QMOL_REDISTRIBUTE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

typedef struct redistribute_plan {
    MPI_Comm comm;
    int size;
    int *scount, *sdispl, *rcount, *rdispl; /* P each */
    int64_t block_first, block_count;       /* this rank's block */
    int32_t *position;                      /* received value k goes to block[position[k]] */
    double *recv;                           /* received values, in arrival order */
} redistribute_plan;

/* Collective. owned: the n_owned owned ids, ascending. Returns 0 or -1 with
 * err set (agreed on all ranks). */
int redistribute_build(redistribute_plan *r, int64_t n, const int64_t *owned, int32_t n_owned,
                       MPI_Comm comm, char *err, size_t errlen);
/* Collective: block[0 .. block_count) receives the values x[0 .. n_owned)
 * of the owned states. */
void redistribute(redistribute_plan *r, const double *x, double *block);
/* Collective, the reverse move: x[0 .. n_owned) receives the owned states'
 * values from the blocks (a checkpoint read by blocks). */
void redistribute_back(redistribute_plan *r, const double *block, double *x);
void redistribute_free(redistribute_plan *r);

#endif
