/* part_coarsen.h: super-vertices for partitioning graphs too big for METIS.
 *
 * A coarse map sends every state to one of nc <= target super-vertices:
 *   grid problems: boxes of cells, all components of a cell together.
 *     Dimension d is cut into parts[d] near-equal slabs (part_grid.h) with
 *     parts[d] about dims[d] / b, b = (cells / target)^(1 / ndims), so boxes
 *     are near-cubes of about cells / target cells; then slabs are removed
 *     from the dimension with the thinnest slabs while the product exceeds
 *     target, and added to the one with the thickest slabs while it fits.
 *   other problems: blocks of ceil(n / target) consecutive ids.
 * The coarse graph sums the vertex weights of each super-vertex (each
 * constraint separately), and joins two super-vertices with the number (total
 * weight) of fine edges between them.
 */
#ifndef QMOL_PART_COARSEN_H
#define QMOL_PART_COARSEN_H

#include "partition/part_graph.h"
#include "partition/part_grid.h"

typedef struct part_coarse_map {
    int64_t nc;       /* super-vertices */
    int grid;         /* 1: boxes of grid cells; 0: blocks of ids */
    part_grid g;      /* the grid, when grid */
    int64_t parts[3]; /* slabs per dimension, when grid */
    int64_t block;    /* ids per block, when not grid */
} part_coarse_map;

/* The map of p's states to at most target (>= 1) super-vertices. */
void part_coarse_map_init(const qmol_problem *p, int64_t target, part_coarse_map *m);

/* The super-vertex of state id. */
int64_t part_coarse_of(const part_coarse_map *m, int64_t id);

/* Collective: the coarse graph of fine under m, distributed by directory
 * blocks of the super-vertex ids. Returns 0, or -1 with err set (agreed). */
int part_coarsen(const part_graph *fine, const part_coarse_map *m, MPI_Comm comm,
                 part_graph *coarse, char *err, size_t errlen);

#endif
