/* partition.h: which rank owns which state.
 *
 * The partition is computed collectively and stored distributed, like the
 * owner directory (comm/directory.h): each rank gets the owners of its
 * directory block of ids. Three kinds:
 *   metis  METIS k-way on the symmetrized state dependency graph (j in row(i)
 *          or i in row(j) joins i and j), gathered to rank 0, into K P
 *          pieces (K = pieces_per_rank) dealt to the ranks K each, with
 *          neighbouring pieces on different ranks (part_deal.h): each rank's
 *          pieces are spread over the domain, so a front crossing it is
 *          shared by all ranks instead of sweeping one rank after another. Above
 *          coarsen_above states METIS partitions a coarsened graph whose
 *          super-vertices are boxes of grid cells (grid problems) or blocks of
 *          ids, at most max(min(coarsen_above, 2^30) / 4, P) of them. With
 *          vertex_class (mixed runs: QSS and BDF states) METIS balances the
 *          weight of each class separately (two constraints, summed by
 *          super-vertex when coarsened), so no rank gets all of one class's
 *          work; with all states in one class, the same as without.
 *   block  grid problems: a Cartesian split of the grid into px x py x pz
 *          near-equal boxes, the factorization of P with the smallest cut
 *          surface, or the one given as "block:PXxPY[xPZ]"; other problems:
 *          contiguous id ranges (the directory blocks).
 *   file   one owner rank per line, n lines in state id order; blank lines and
 *          comments are not allowed. Rank 0 reads it in chunks and sends each
 *          chunk to its directory rank (O(chunk) memory on rank 0).
 * Every rank must own at least one state. A METIS result with an empty part
 * (tiny graphs) is replaced by the block partition (report.fallback = 1); a
 * file that leaves a rank empty is refused.
 *
 * Limits: METIS (Debian's 32-bit idx_t) and MPI's int counts take graphs of at
 * most 2^30 vertices and 2^30 adjacency entries: bigger graphs are always
 * coarsened, and a coarsened graph still too big is refused (lower
 * coarsen_above). Vertex and edge weight totals are scaled to stay below 2^31.
 */
#ifndef QMOL_PARTITION_H
#define QMOL_PARTITION_H

#include "qmol.h"
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

typedef enum partition_kind { PARTITION_METIS, PARTITION_BLOCK, PARTITION_FILE } partition_kind;

typedef struct partition_options {
    partition_kind kind;
    const char *file;      /* PARTITION_FILE: text file, one owner rank per line, n lines */
    int64_t coarsen_above; /* METIS partitions a coarsened graph above this many states;
                              0 means the default 20,000,000 */
    int weight_by_row;     /* 1: vertex weight = row length of the state (at least 1); 0: all 1 */
    int boxes[3];          /* PARTITION_BLOCK on a grid: ranks per dimension ("block:2x1");
                              all 0: the split with the smallest cut surface */
    int pieces_per_rank;   /* PARTITION_METIS: METIS cuts K P pieces, dealt K to each rank
                              (0 means 1) */
    const unsigned char *vertex_class; /* NULL, or for each state of this rank's directory
                              block (ids dir_first(n, P, rank) + k) its class, 0 or 1: METIS
                              then balances the vertex weight of each class separately (two
                              constraints; mixed runs: QSS and BDF work). Ignored by block
                              and file partitions. */
    int gather_discrete; /* metis, block: the states of the problem's discontinuities, and
                            their neighbours up to gather_hops edges away, go to one rank
                            when few (part_gather.h) */
    int gather_hops;
} partition_options;

typedef struct partition_report {
    int64_t edge_cut;          /* undirected edges of the symmetrized graph whose ends have
                                  different owners */
    double imbalance;          /* max over ranks of owned vertex weight / mean */
    double owned_weight;       /* this rank's owned vertex weight (all constraints) */
    double class_imbalance[2]; /* with vertex_class: max over ranks of the class's owned
                                  weight / its mean (0 for a class with no weight); else
                                  both 0 */
    int coarsened;             /* 1 when METIS ran on a coarsened graph */
    int64_t coarse_vertices;   /* vertices of that graph (0 when not coarsened) */
    double wall_seconds;       /* slowest rank */
    int fallback;              /* 1: the block partition replaced a METIS result with an empty
                                  part, or no box split of the grid fits and block used ids */
    int boxes[3];              /* block on a grid: ranks per dimension (px, py, pz); else 0 */
    int pieces;                /* METIS: the pieces cut (K P, fewer on tiny graphs); else 0 */
    int gathered;              /* 1: the discontinuity states were moved to one rank */
} partition_report;

/* Collective over comm. Fills owner_block[k] = owner rank of state
 * dir_first(n, P, rank) + k for this rank's directory block (the caller
 * allocates dir_first(n, P, rank + 1) - dir_first(n, P, rank) entries).
 * Returns 0, or -1 with a one-line message in err, the same verdict and
 * message on every rank (also for a vertex_class entry other than 0 or 1). */
int partition_compute(const qmol_problem *p, const partition_options *o, MPI_Comm comm,
                      int32_t *owner_block, partition_report *rep, char *err, size_t errlen);

/* Parses a --partition value: "metis", "block", "block:PXxPY[xPZ]" or
 * "file:PATH" (o->file then points into value). Sets o->kind, o->file and
 * o->boxes only. Returns 0, or -1 with err
 * naming what is allowed. */
int partition_parse(const char *value, partition_options *o, char *err, size_t errlen);

/* The vertices of the graph METIS gets on rank 0 on P ranks: n, or above
 * coarsen_above at most max(min(coarsen_above, 2^30) / 4, P) super-vertices;
 * 0 on one rank or without METIS. For memory estimates (memory_check.h). */
int64_t partition_metis_vertices(const qmol_problem *p, const partition_options *o, int P);

#endif
