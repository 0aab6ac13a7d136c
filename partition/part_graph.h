/* part_graph.h: an undirected weighted graph distributed by directory blocks.
 *
 * Rank r holds the adjacency of vertices [dir_first(n, P, r),
 * dir_first(n, P, r + 1)) in CSR form. Used for the state dependency graph
 * (symmetrized rows, no self loops) and for its coarsened versions.
 */
#ifndef QMOL_PART_GRAPH_H
#define QMOL_PART_GRAPH_H

#include "qmol.h"
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

typedef struct part_graph {
    int64_t n;     /* vertices, all ranks together */
    int64_t first; /* this rank holds vertices [first, first + count) */
    int64_t count;
    int64_t *xadj; /* count + 1 offsets into adj */
    int64_t *adj;  /* neighbours (global ids), ascending for each vertex, no self loops */
    int64_t *ewgt; /* edge weights parallel to adj; NULL when every weight is 1 */
    int ncon;      /* weights per vertex: 1, or 2 (one per vertex class) */
    int64_t *vwgt; /* count * ncon vertex weights, vertex after vertex (METIS layout);
                      each vertex's sum >= 1 */
} part_graph;

/* Collective: the symmetrized dependency graph of p. Each rank reads the rows
 * of its own block only; edge (i, j) for j in row(i), j != i, and its reverse
 * go to the directory ranks of i and j, duplicates merged (weight 1). Vertex
 * weight w: the row length (at least 1) when weight_by_row, else 1. Without
 * vertex_class one weight per vertex (ncon = 1); with it (this rank's block,
 * 0 or 1 each) two: (w, 0) for class 0, (0, w) for class 1. Returns 0, or -1
 * with err set (a row reading a state outside [0, n), a class other than 0
 * or 1, out of memory, too many edges for MPI's int counts); the verdict is
 * agreed on all ranks. */
int part_graph_of_problem(const qmol_problem *p, int weight_by_row,
                          const unsigned char *vertex_class, MPI_Comm comm, part_graph *g,
                          char *err, size_t errlen);

/* Collective: a graph of n vertices with ncon weights per vertex from nedges
 * weighted edge records edges[3k..3k+2] = (u, v, w) and nverts weight records
 * verts[(1 + ncon) k..] = (v, w_0, ..., w_{ncon-1}), held on any rank. Each
 * record goes to the directory rank of its first id; weights of equal edges
 * and of equal vertices are summed (a vertex without a record weighs 0).
 * Symmetry is the caller's business; u != v. */
int part_graph_assemble(MPI_Comm comm, int64_t n, int ncon, const int64_t *edges, int64_t nedges,
                        const int64_t *verts, int64_t nverts, part_graph *g, char *err,
                        size_t errlen);

/* Collective: adjacency entries of all ranks (twice the undirected edges). */
int64_t part_graph_adjacency(const part_graph *g, MPI_Comm comm);

void part_graph_free(part_graph *g);

#endif
