/* part_block.c: boxes of a grid or ranges of ids (see part_block.h). */
#include "partition/part_block.h"

#include "comm/directory.h"
#include "partition/part_grid.h"

#include <stdio.h>

int part_block_owners(const qmol_problem *p, MPI_Comm comm, const int want[3], int32_t *owner,
                      int boxes[3], char *err, size_t errlen) {
    int P, rank;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &rank);
    int64_t first = dir_first(p->n, P, rank), count = dir_first(p->n, P, rank + 1) - first;
    part_grid g;
    int64_t parts[3];
    int grid = part_grid_of(p, &g);
    boxes[0] = boxes[1] = boxes[2] = 0;
    if (want && want[0]) {
        int64_t product = 1;
        for (int d = 0; d < 3; d++) {
            parts[d] = want[d] ? want[d] : 1;
            product *= parts[d];
        }
        int fits = grid && product == P;
        for (int d = 0; fits && d < 3; d++)
            fits = parts[d] <= g.dims[d] && (d < g.ndims || parts[d] == 1);
        if (!fits) {
            snprintf(err, errlen,
                     "--partition block:%dx%dx%d: needs a grid problem, a product of %d ranks "
                     "and at most one box per cell in each dimension",
                     (int)parts[0], (int)parts[1], (int)parts[2], P);
            return -1;
        }
        for (int d = 0; d < 3; d++)
            boxes[d] = (int)parts[d];
        for (int64_t k = 0; k < count; k++)
            owner[k] = (int32_t)part_grid_box(&g, parts, first + k);
        return 0;
    }
    if (grid && part_grid_split(&g, P, parts) == 0) {
        for (int d = 0; d < 3; d++)
            boxes[d] = (int)parts[d];
        /* box numbering (x fastest) is the rank numbering */
        for (int64_t k = 0; k < count; k++)
            owner[k] = (int32_t)part_grid_box(&g, parts, first + k);
        return 0;
    }
    for (int64_t k = 0; k < count; k++)
        owner[k] = (int32_t)rank;
    return grid;
}
