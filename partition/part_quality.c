/* part_quality.c: how good a partition is (see part_quality.h). */
#include "part_quality.h"

#include "agree.h"
#include "directory.h"

#include <stdio.h>
#include <stdlib.h>

/* Owners of the neighbours held on other ranks (directory_lookup); the
 * others are in owner already. far[k] pairs with the k-th remote entry of
 * adj in order. */
static int remote_owners(const part_graph *g, const int32_t *owner, MPI_Comm comm, int32_t **far,
                         char *err, size_t errlen) {
    int64_t nadj = g->xadj[g->count], nfar = 0;
    for (int64_t k = 0; k < nadj; k++)
        nfar += g->adj[k] < g->first || g->adj[k] >= g->first + g->count;
    int64_t *ids = malloc((size_t)(nfar ? nfar : 1) * sizeof *ids);
    *far = malloc((size_t)(nfar ? nfar : 1) * sizeof **far);
    int rc = ids && *far ? 0 : -1;
    if (rc) snprintf(err, errlen, "out of memory measuring the partition");
    nfar = 0;
    for (int64_t k = 0; rc == 0 && k < nadj; k++)
        if (g->adj[k] < g->first || g->adj[k] >= g->first + g->count) ids[nfar++] = g->adj[k];
    if (comm_agree(comm, rc, err, errlen) ||
        directory_lookup(g->n, owner, comm, ids, nfar, *far, err, errlen))
        rc = -1;
    free(ids);
    return rc;
}

int part_quality(const part_graph *g, const int32_t *owner, MPI_Comm comm, int64_t *edge_cut,
                 double *imbalance, int64_t *counts, char *err, size_t errlen) {
    int P, rc = 0;
    MPI_Comm_size(comm, &P);
    int64_t *weight = calloc((size_t)P, sizeof *weight);
    if (!weight) {
        snprintf(err, errlen, "out of memory measuring the partition");
        rc = -1;
    }
    for (int r = 0; r < P; r++)
        counts[r] = 0;
    for (int64_t u = 0; rc == 0 && u < g->count; u++) {
        if (owner[u] < 0 || owner[u] >= P) {
            snprintf(err, errlen, "state %lld has owner %d, outside [0, %d)",
                     (long long)(g->first + u), (int)owner[u], P);
            rc = -1;
        } else {
            counts[owner[u]]++;
            weight[owner[u]] += g->vwgt[u];
        }
    }
    int32_t *far = NULL;
    if (comm_agree(comm, rc, err, errlen) || remote_owners(g, owner, comm, &far, err, errlen)) {
        free(weight), free(far);
        return -1;
    }
    int64_t cut = 0, nfar = 0;
    for (int64_t u = 0; u < g->count; u++)
        for (int64_t k = g->xadj[u]; k < g->xadj[u + 1]; k++) {
            int64_t v = g->adj[k] - g->first;
            int32_t o = v >= 0 && v < g->count ? owner[v] : far[nfar++];
            if (o != owner[u]) cut += g->ewgt ? g->ewgt[k] : 1;
        }
    MPI_Allreduce(MPI_IN_PLACE, &cut, 1, MPI_INT64_T, MPI_SUM, comm);
    MPI_Allreduce(MPI_IN_PLACE, counts, P, MPI_INT64_T, MPI_SUM, comm);
    MPI_Allreduce(MPI_IN_PLACE, weight, P, MPI_INT64_T, MPI_SUM, comm);
    /* each undirected edge was seen from both ends */
    *edge_cut = cut / 2;
    int64_t total = 0, most = 0;
    for (int r = 0; r < P; r++) {
        total += weight[r];
        most = weight[r] > most ? weight[r] : most;
    }
    *imbalance = total > 0 ? (double)most * P / (double)total : 1.0;
    free(weight), free(far);
    return 0;
}
