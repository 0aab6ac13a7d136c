/* directory.h: the distributed owner map of a partition.
 *
 * No rank holds an array of all n states. The owner of state g (its rank) is
 * stored on the directory rank of g: rank r keeps the owners of the block of
 * ids [dir_first(n, P, r), dir_first(n, P, r + 1)), the usual block
 * distribution (the HDF5 writer uses the same blocks for its rows).
 */
#ifndef QMOL_DIRECTORY_H
#define QMOL_DIRECTORY_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* First id of rank r's block: floor(r * n / P), r in [0, P]. */
int64_t dir_first(int64_t n, int P, int r);
/* The rank whose block holds id g (0 <= g < n). */
int dir_rank_of(int64_t n, int P, int64_t g);

/* Collective: the ids rank r owns according to owner_block (this rank's
 * directory block of owners), ascending. *ids is malloc'd. Returns 0, or -1
 * with err set (out of memory, an owner outside [0, P), more than 2^31 - 1
 * states on one rank); the verdict is agreed on all ranks. */
int directory_owned_ids(int64_t n, const int32_t *owner_block, MPI_Comm comm, int64_t **ids,
                        int32_t *count, char *err, size_t errlen);

/* Collective: owners[k] = owner of ids[k] for count ids (any order, any
 * rank). Returns 0, or -1 with err set (agreed on all ranks). */
int directory_lookup(int64_t n, const int32_t *owner_block, MPI_Comm comm, const int64_t *ids,
                     int64_t count, int32_t *owners, char *err, size_t errlen);

#endif
