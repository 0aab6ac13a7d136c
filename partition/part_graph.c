/* part_graph.c: the state dependency graph (see part_graph.h). Each rank
 * scans its rows twice: first to count degrees and collect the reverse edges
 * (j, i) whose j lives on another rank (sent there in one MPI_Alltoallv),
 * then to write its neighbour lists; reverse edges with a local j never leave
 * the rank. Lists are sorted and duplicates dropped (weight 1 per pair). */
#include "partition/part_graph.h"

#include "comm/agree.h"
#include "comm/directory.h"
#include "partition/part_exchange.h"
#include "comm/sorted_ids.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The reverse edges (j, i) of this rank's rows whose j lies on another
 * rank (a growing array), and in deg[u] the edges of local vertex u known
 * here: (i, j) for each j in row(i), and (j, i) for each local j. */
typedef struct row_scan {
    int64_t *remote; /* records (j, i) */
    int64_t nremote, cap;
} row_scan;

static int push_remote(row_scan *s, int64_t j, int64_t i) {
    if (s->nremote == s->cap) {
        int64_t cap = s->cap ? 2 * s->cap : 1024;
        int64_t *grown = realloc(s->remote, (size_t)cap * 2 * sizeof *grown);
        if (!grown) return -1;
        s->remote = grown;
        s->cap = cap;
    }
    s->remote[2 * s->nremote] = j;
    s->remote[2 * s->nremote + 1] = i;
    s->nremote++;
    return 0;
}

/* Calls row() for the local block: with adj NULL, counts degrees into deg
 * and collects the remote reverse edges (checking every id); with adj, writes
 * the local edges at adj[xadj[u] + fill[u]++] (deg is then fill). */
static int scan_rows(const qmol_problem *p, const part_graph *g, int64_t *cols, int64_t *deg,
                     row_scan *s, int64_t *adj, char *err, size_t errlen) {
    for (int64_t u = 0; u < g->count; u++) {
        int64_t i = g->first + u;
        int size = p->row_size(p->data, i);
        if (size < 0) {
            snprintf(err, errlen, "row %lld has negative size %d", (long long)i, size);
            return -1;
        }
        if (size > 0) p->row(p->data, i, cols);
        for (int c = 0; c < size; c++) {
            int64_t j = cols[c], v = j - g->first;
            if (j < 0 || j >= p->n) {
                snprintf(err, errlen, "row %lld reads state %lld, outside [0, %lld)", (long long)i,
                         (long long)j, (long long)p->n);
                return -1;
            }
            if (j == i) continue;
            int local = v >= 0 && v < g->count;
            if (adj) {
                adj[g->xadj[u] + deg[u]++] = j;
                if (local) adj[g->xadj[v] + deg[v]++] = i;
                continue;
            }
            deg[u]++;
            if (local) {
                deg[v]++;
            } else if (push_remote(s, j, i)) {
                snprintf(err, errlen, "out of memory collecting the edges of row %lld",
                         (long long)i);
                return -1;
            }
        }
    }
    return 0;
}

static void sort_ids(int64_t *list, int64_t len) {
    if (len > 16) {
        qsort(list, (size_t)len, sizeof *list, ids_compare);
        return;
    }
    for (int64_t a = 1; a < len; a++) {
        int64_t x = list[a], b = a;
        for (; b > 0 && list[b - 1] > x; b--)
            list[b] = list[b - 1];
        list[b] = x;
    }
}

/* Sorts each neighbour list, drops duplicates, compacts adj. */
static void merge_unit_lists(part_graph *g) {
    int64_t out = 0;
    for (int64_t u = 0; u < g->count; u++) {
        int64_t begin = g->xadj[u], end = g->xadj[u + 1];
        sort_ids(g->adj + begin, end - begin);
        g->xadj[u] = out;
        for (int64_t k = begin; k < end; k++)
            if (out == g->xadj[u] || g->adj[out - 1] != g->adj[k]) g->adj[out++] = g->adj[k];
    }
    g->xadj[g->count] = out;
    int64_t *shrunk = realloc(g->adj, (size_t)(out ? out : 1) * sizeof *g->adj);
    if (shrunk) g->adj = shrunk;
}

/* The CSR lists of g from this rank's rows and the reverse edges received
 * (recv, nrecv records (j, i) with j local). deg holds the counts from the
 * first scan. */
static int fill_lists(const qmol_problem *p, part_graph *g, int64_t *cols, int64_t *deg,
                      const int64_t *recv, int64_t nrecv, char *err, size_t errlen) {
    for (int64_t k = 0; k < nrecv; k++)
        deg[recv[2 * k] - g->first]++;
    g->xadj = malloc((size_t)(g->count + 1) * sizeof *g->xadj);
    if (!g->xadj) {
        snprintf(err, errlen, "out of memory for the dependency graph");
        return -1;
    }
    g->xadj[0] = 0;
    for (int64_t u = 0; u < g->count; u++) {
        g->xadj[u + 1] = g->xadj[u] + deg[u];
        deg[u] = 0; /* from here on: entries written */
    }
    g->adj = malloc((size_t)(g->xadj[g->count] ? g->xadj[g->count] : 1) * sizeof *g->adj);
    if (!g->adj) {
        snprintf(err, errlen, "out of memory for %lld graph edges", (long long)g->xadj[g->count]);
        return -1;
    }
    if (scan_rows(p, g, cols, deg, NULL, g->adj, err, errlen)) return -1;
    for (int64_t k = 0; k < nrecv; k++) {
        int64_t v = recv[2 * k] - g->first;
        g->adj[g->xadj[v] + deg[v]++] = recv[2 * k + 1];
    }
    merge_unit_lists(g);
    return 0;
}

/* g->vwgt (see part_graph_of_problem); -1 with err on a class other than 0
 * or 1. */
static int set_vertex_weights(const qmol_problem *p, int weight_by_row,
                              const unsigned char *vertex_class, part_graph *g, char *err,
                              size_t errlen) {
    for (int64_t u = 0; u < g->count; u++) {
        int size = weight_by_row ? p->row_size(p->data, g->first + u) : 1;
        int64_t w = size > 1 ? size : 1;
        if (!vertex_class) {
            g->vwgt[u] = w;
            continue;
        }
        int c = vertex_class[u];
        if (c > 1) {
            snprintf(err, errlen, "state %lld has vertex class %d: the classes are 0 and 1",
                     (long long)(g->first + u), c);
            return -1;
        }
        g->vwgt[2 * u + c] = w;
        g->vwgt[2 * u + 1 - c] = 0;
    }
    return 0;
}

int part_graph_of_problem(const qmol_problem *p, int weight_by_row,
                          const unsigned char *vertex_class, MPI_Comm comm, part_graph *g,
                          char *err, size_t errlen) {
    int P, rank;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &rank);
    memset(g, 0, sizeof *g);
    g->n = p->n;
    g->first = dir_first(p->n, P, rank);
    g->count = dir_first(p->n, P, rank + 1) - g->first;
    g->ncon = vertex_class ? 2 : 1;
    int maxrow = 0, rc = 0;
    for (int64_t u = 0; u < g->count; u++) {
        int s = p->row_size(p->data, g->first + u);
        maxrow = s > maxrow ? s : maxrow;
    }
    int64_t *cols = malloc((size_t)(maxrow ? maxrow : 1) * sizeof *cols);
    int64_t *deg = calloc((size_t)(g->count ? g->count : 1), sizeof *deg);
    g->vwgt = malloc((size_t)(g->count ? g->count : 1) * (size_t)g->ncon * sizeof *g->vwgt);
    row_scan s = {0};
    if (!cols || !deg || !g->vwgt) {
        snprintf(err, errlen, "out of memory for the dependency graph of %lld states",
                 (long long)g->count);
        rc = -1;
    } else {
        rc = scan_rows(p, g, cols, deg, &s, NULL, err, errlen);
        if (rc == 0) rc = set_vertex_weights(p, weight_by_row, vertex_class, g, err, errlen);
    }
    int64_t *recv = NULL, nrecv = 0;
    if (comm_agree(comm, rc, err, errlen) ||
        part_exchange_records(comm, p->n, 2, s.remote, s.nremote, &recv, &nrecv, err, errlen)) {
        rc = -1;
    } else {
        free(s.remote);
        s.remote = NULL;
        rc = fill_lists(p, g, cols, deg, recv, nrecv, err, errlen);
        rc = comm_agree(comm, rc, err, errlen);
    }
    free(cols), free(deg), free(s.remote), free(recv);
    if (rc) {
        part_graph_free(g);
        return -1;
    }
    return 0;
}

int64_t part_graph_adjacency(const part_graph *g, MPI_Comm comm) {
    int64_t total = g->xadj[g->count];
    MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_INT64_T, MPI_SUM, comm);
    return total;
}

void part_graph_free(part_graph *g) {
    free(g->xadj), free(g->adj), free(g->ewgt), free(g->vwgt);
    memset(g, 0, sizeof *g);
}
