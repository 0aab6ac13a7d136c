/* part_block.h: the block partition.
 *
 * Grid problems: the Cartesian box split of part_grid_split, rank
 * rx + px * (ry + py * rz) owning box (rx, ry, rz), all components of a cell
 * together. Other problems, and grids no factorization of P fits: contiguous
 * id ranges, rank r owning its own directory block.
 */
#ifndef QMOL_PART_BLOCK_H
#define QMOL_PART_BLOCK_H

#include "qmol.h"
#include <mpi.h>
#include <stdint.h>

/* Fills owner for this rank's directory block (no communication). boxes gets
 * the ranks per dimension of a box split, or zeros for id ranges. Returns 1
 * when a grid had to fall back to id ranges, else 0. */
int part_block_owners(const qmol_problem *p, MPI_Comm comm, int32_t *owner, int boxes[3]);

#endif
