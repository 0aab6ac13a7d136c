/* part_grid.h: the grid geometry of a problem, as partitions use it.
 *
 * State id = (ix + nx * (iy + ny * iz)) * components + c (qmol.h). A box
 * split cuts dimension d into parts[d] near-equal slabs: slab k holds the
 * cells [floor(k * dims[d] / parts[d]), floor((k + 1) * dims[d] / parts[d])),
 * so slab sizes differ by at most one cell. Boxes are numbered with the x
 * slab varying fastest.
 */
#ifndef QMOL_PART_GRID_H
#define QMOL_PART_GRID_H

#include "qmol.h"
#include <stdint.h>

typedef struct part_grid {
    int ndims;          /* 1, 2 or 3 */
    int64_t dims[3];    /* cells per dimension; 1 beyond ndims */
    int64_t components; /* states per cell */
} part_grid;

/* Returns 1 and fills g when p has a usable grid (ndims in 1..3, dims >= 1,
 * dims product times components equal to n), else 0. */
int part_grid_of(const qmol_problem *p, part_grid *g);

/* The box holding state id in the split parts[0] x parts[1] x parts[2]. */
int64_t part_grid_box(const part_grid *g, const int64_t parts[3], int64_t id);

/* The Cartesian split of P ranks with the smallest cut surface (sum over d of
 * (parts[d] - 1) times the cross-section across d), among factorizations with
 * parts[d] <= dims[d]; ties go to cutting lower dimensions more. Returns 0,
 * or -1 when no factorization fits the grid. */
int part_grid_split(const part_grid *g, int P, int64_t parts[3]);

#endif
