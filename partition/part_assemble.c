/* part_assemble.c: a weighted graph from edge records held anywhere (see
 * part_graph_assemble in part_graph.h). The records travel to the directory
 * rank of their first end, are sorted by a counting sort on that end and a
 * small sort of each neighbour list, and equal edges are merged. */
#include "partition/part_graph.h"

#include "comm/agree.h"
#include "comm/directory.h"
#include "partition/part_exchange.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct neighbour {
    int64_t v, w;
} neighbour;

static int cmp_neighbour(const void *a, const void *b) {
    int64_t x = ((const neighbour *)a)->v, y = ((const neighbour *)b)->v;
    return (x > y) - (x < y);
}

/* Sorts one neighbour list by id: insertion sort for the short lists of
 * stencils, qsort for long ones. */
static void sort_neighbours(neighbour *list, int64_t len) {
    if (len > 16) {
        qsort(list, (size_t)len, sizeof *list, cmp_neighbour);
        return;
    }
    for (int64_t a = 1; a < len; a++) {
        neighbour x = list[a];
        int64_t b = a;
        for (; b > 0 && list[b - 1].v > x.v; b--)
            list[b] = list[b - 1];
        list[b] = x;
    }
}

/* g->xadj/adj/ewgt from the records (u, v, w) of this rank's vertices,
 * weights of equal edges summed. */
static int build_csr(part_graph *g, const int64_t *recs, int64_t nrec) {
    neighbour *list = malloc((size_t)(nrec ? nrec : 1) * sizeof *list);
    int64_t *fill = calloc((size_t)g->count + 1, sizeof *fill);
    g->xadj = calloc((size_t)g->count + 1, sizeof *g->xadj);
    if (!list || !fill || !g->xadj) {
        free(list), free(fill);
        return -1;
    }
    for (int64_t k = 0; k < nrec; k++)
        g->xadj[recs[3 * k] - g->first + 1]++;
    for (int64_t u = 0; u < g->count; u++)
        g->xadj[u + 1] += g->xadj[u];
    for (int64_t k = 0; k < nrec; k++) {
        int64_t u = recs[3 * k] - g->first;
        list[g->xadj[u] + fill[u]++] = (neighbour){recs[3 * k + 1], recs[3 * k + 2]};
    }
    free(fill);
    /* merge equal neighbours, compacting the lists towards the front */
    int64_t out = 0;
    for (int64_t u = 0; u < g->count; u++) {
        int64_t begin = g->xadj[u], end = g->xadj[u + 1];
        sort_neighbours(list + begin, end - begin);
        g->xadj[u] = out;
        for (int64_t k = begin; k < end; k++) {
            if (out > g->xadj[u] && list[out - 1].v == list[k].v)
                list[out - 1].w += list[k].w;
            else
                list[out++] = list[k];
        }
    }
    g->xadj[g->count] = out;
    g->adj = malloc((size_t)(out ? out : 1) * sizeof *g->adj);
    g->ewgt = malloc((size_t)(out ? out : 1) * sizeof *g->ewgt);
    if (!g->adj || !g->ewgt) {
        free(list);
        return -1;
    }
    for (int64_t k = 0; k < out; k++) {
        g->adj[k] = list[k].v;
        g->ewgt[k] = list[k].w;
    }
    free(list);
    return 0;
}

int part_graph_assemble(MPI_Comm comm, int64_t n, int ncon, const int64_t *edges, int64_t nedges,
                        const int64_t *verts, int64_t nverts, part_graph *g, char *err,
                        size_t errlen) {
    int P, rank;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &rank);
    memset(g, 0, sizeof *g);
    g->n = n;
    g->first = dir_first(n, P, rank);
    g->count = dir_first(n, P, rank + 1) - g->first;
    g->ncon = ncon;
    int64_t *recs, nrec;
    if (part_exchange_records(comm, n, 3, edges, nedges, &recs, &nrec, err, errlen)) return -1;
    int rc = build_csr(g, recs, nrec);
    free(recs);
    g->vwgt = calloc((size_t)(g->count ? g->count : 1) * (size_t)ncon, sizeof *g->vwgt);
    if (rc || !g->vwgt) {
        snprintf(err, errlen, "out of memory building a graph of %lld vertices on rank %d",
                 (long long)g->count, rank);
        rc = -1;
    }
    if (comm_agree(comm, rc, err, errlen) ||
        part_exchange_records(comm, n, 1 + ncon, verts, nverts, &recs, &nrec, err, errlen)) {
        part_graph_free(g);
        return -1;
    }
    for (int64_t k = 0; k < nrec; k++) {
        const int64_t *r = recs + (1 + ncon) * k;
        for (int c = 0; c < ncon; c++)
            g->vwgt[(r[0] - g->first) * ncon + c] += r[1 + c];
    }
    free(recs);
    return 0;
}
