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

/* Fills owner for this rank's directory block (no communication). want: the
 * ranks per dimension asked for (all 0: the smallest cut surface). boxes gets
 * the ranks per dimension of the box split, or zeros for id ranges. Returns
 * 1 when a grid had to fall back to id ranges, else 0, or -1 with err set
 * when `want` does not fit (not a grid, product not P, more boxes than cells). */
int part_block_owners(const qmol_problem *p, MPI_Comm comm, const int want[3], int32_t *owner,
                      int boxes[3], char *err, size_t errlen);

#endif
