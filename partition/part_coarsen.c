/* part_coarsen.c: boxes or id blocks as super-vertices (see part_coarsen.h). */
#include "partition/part_coarsen.h"

#include "comm/agree.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The dimension (below ndims) with the thinnest (thin = 1) or thickest slabs
 * among those that can lose (thin) or gain a slab, or -1. */
static int pick_dimension(const part_grid *g, const int64_t parts[3], int thin) {
    int best = -1;
    double best_extent = 0.0;
    for (int d = 0; d < g->ndims; d++) {
        if (thin ? parts[d] <= 1 : parts[d] >= g->dims[d]) continue;
        double extent = (double)g->dims[d] / (double)parts[d];
        if (best < 0 || (thin ? extent < best_extent : extent > best_extent)) {
            best = d;
            best_extent = extent;
        }
    }
    return best;
}

/* Slabs per dimension for at most target near-cubic boxes. */
static void choose_parts(const part_grid *g, int64_t target, int64_t parts[3]) {
    double cells = (double)g->dims[0] * (double)g->dims[1] * (double)g->dims[2];
    double b = pow(cells / (double)target, 1.0 / g->ndims);
    if (b < 1.0) b = 1.0;
    int64_t prod = 1;
    for (int d = 0; d < 3; d++) {
        int64_t m = d < g->ndims ? (int64_t)((double)g->dims[d] / b) : 1;
        parts[d] = m < 1 ? 1 : m > g->dims[d] ? g->dims[d] : m;
        prod *= parts[d];
    }
    while (prod > target) {
        int d = pick_dimension(g, parts, 1);
        prod = prod / parts[d] * (parts[d] - 1);
        parts[d]--;
    }
    for (;;) {
        int d = pick_dimension(g, parts, 0);
        if (d < 0 || prod / parts[d] * (parts[d] + 1) > target) break;
        prod = prod / parts[d] * (parts[d] + 1);
        parts[d]++;
    }
}

void part_coarse_map_init(const qmol_problem *p, int64_t target, part_coarse_map *m) {
    memset(m, 0, sizeof *m);
    if (target < 1) target = 1;
    if (part_grid_of(p, &m->g)) {
        m->grid = 1;
        choose_parts(&m->g, target, m->parts);
        m->nc = m->parts[0] * m->parts[1] * m->parts[2];
    } else {
        m->block = (p->n + target - 1) / target;
        m->nc = (p->n + m->block - 1) / m->block;
    }
}

int64_t part_coarse_of(const part_coarse_map *m, int64_t id) {
    return m->grid ? part_grid_box(&m->g, m->parts, id) : id / m->block;
}

/* Adds the weights of fine vertex u to super-vertex cu's record (cu, w_0, ..,
 * w_{ncon-1}): the last record when it is cu's (a run of ids in one
 * super-vertex), else a new one. */
static void add_vertex_record(const part_graph *fine, int64_t u, int64_t cu, int64_t *verts,
                              int64_t *nv) {
    int ncon = fine->ncon;
    int64_t *rec = *nv > 0 ? verts + (*nv - 1) * (1 + ncon) : NULL;
    if (!rec || rec[0] != cu) {
        rec = verts + (*nv)++ * (1 + ncon);
        rec[0] = cu;
        for (int c = 0; c < ncon; c++)
            rec[1 + c] = 0;
    }
    for (int c = 0; c < ncon; c++)
        rec[1 + c] += fine->vwgt[u * ncon + c];
}

int part_coarsen(const part_graph *fine, const part_coarse_map *m, MPI_Comm comm,
                 part_graph *coarse, char *err, size_t errlen) {
    int64_t nadj = fine->xadj[fine->count];
    int64_t *edges = malloc((size_t)(nadj ? nadj : 1) * 3 * sizeof *edges);
    int64_t *verts =
        malloc((size_t)(fine->count ? fine->count : 1) * (size_t)(1 + fine->ncon) * sizeof *verts);
    int rc = 0;
    if (!edges || !verts) {
        snprintf(err, errlen, "out of memory coarsening a graph of %lld vertices",
                 (long long)fine->count);
        rc = -1;
    }
    if (comm_agree(comm, rc, err, errlen)) {
        free(edges), free(verts);
        return -1;
    }
    /* consecutive equal records (runs of ids in one super-vertex) are merged
     * here; the rest on the receiving rank */
    int64_t ne = 0, nv = 0;
    for (int64_t u = 0; u < fine->count; u++) {
        int64_t cu = part_coarse_of(m, fine->first + u);
        add_vertex_record(fine, u, cu, verts, &nv);
        for (int64_t k = fine->xadj[u]; k < fine->xadj[u + 1]; k++) {
            int64_t cv = part_coarse_of(m, fine->adj[k]), w = fine->ewgt ? fine->ewgt[k] : 1;
            if (cv == cu) continue;
            if (ne > 0 && edges[3 * ne - 3] == cu && edges[3 * ne - 2] == cv) {
                edges[3 * ne - 1] += w;
            } else {
                edges[3 * ne] = cu, edges[3 * ne + 1] = cv, edges[3 * ne + 2] = w;
                ne++;
            }
        }
    }
    rc = part_graph_assemble(comm, m->nc, fine->ncon, edges, ne, verts, nv, coarse, err, errlen);
    free(edges), free(verts);
    return rc;
}
