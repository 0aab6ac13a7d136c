/* part_metis.h: METIS k-way on a distributed graph (the only file calling
 * METIS). Rank 0 gathers the CSR graph (MPI_Gatherv), runs
 * METIS_PartGraphKway with a fixed seed (the result depends on the graph
 * only), and scatters the parts back by directory blocks (MPI_Scatterv).
 */
#ifndef QMOL_PART_METIS_H
#define QMOL_PART_METIS_H

#include "partition/part_graph.h"

/* Largest vertex count and adjacency count given to METIS: Debian's METIS has
 * a 32-bit idx_t, and MPI's int counts and displacements address the gathered
 * arrays. Edge weights, and each vertex weight constraint, are scaled down
 * (non-zero weights kept >= 1) when their total exceeds 2^29 (2^28 per
 * constraint with two), so no sum METIS forms overflows. */
#define PART_METIS_MAX ((int64_t)1 << 30)

/* Collective: METIS cuts the graph into `pieces` parts (>= P, P >= 2) and
 * owner[k] = the rank that the piece of vertex g->first + k is dealt to
 * (part_deal.h; piece = rank when pieces = P). With g->ncon = 2 METIS
 * balances each weight separately, or the other alone when one totals 0.
 * Ranks may be empty for tiny graphs. Returns 0, or -1 with err set (graph
 * beyond PART_METIS_MAX, out of memory on rank 0, METIS error); verdict
 * agreed. */
int part_metis(const part_graph *g, int pieces, MPI_Comm comm, int32_t *owner, char *err,
               size_t errlen);

#endif
