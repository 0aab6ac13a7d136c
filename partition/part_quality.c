/* part_quality.c: how good a partition is (see part_quality.h). */
#include "partition/part_quality.h"

#include "comm/agree.h"
#include "comm/directory.h"

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

/* The largest of the P values w[r stride] over their mean; 0 when they total
 * 0. */
static double max_over_mean(const int64_t *w, int P, int stride) {
    int64_t total = 0, most = 0;
    for (int r = 0; r < P; r++) {
        total += w[r * stride];
        most = w[r * stride] > most ? w[r * stride] : most;
    }
    return total > 0 ? (double)most * P / (double)total : 0.0;
}

/* weight[3 r]: rank r's owned vertex weight; weight[3 r + 1 + c]: that of
 * constraint c when g has two. -1 with err on an owner outside [0, P). */
static int owned_weights(const part_graph *g, const int32_t *owner, int P, int64_t *weight,
                         int64_t *counts, char *err, size_t errlen) {
    for (int64_t u = 0; u < g->count; u++) {
        int32_t o = owner[u];
        if (o < 0 || o >= P) {
            snprintf(err, errlen, "state %lld has owner %d, outside [0, %d)",
                     (long long)(g->first + u), (int)o, P);
            return -1;
        }
        counts[o]++;
        for (int c = 0; c < g->ncon; c++) {
            int64_t w = g->vwgt[u * g->ncon + c];
            weight[3 * o] += w;
            if (g->ncon == 2) weight[3 * o + 1 + c] += w;
        }
    }
    return 0;
}

int part_quality(const part_graph *g, const int32_t *owner, MPI_Comm comm, partition_report *rep,
                 int64_t *counts, char *err, size_t errlen) {
    int P, rc = 0;
    MPI_Comm_size(comm, &P);
    int64_t *weight = calloc((size_t)P * 3, sizeof *weight);
    for (int r = 0; r < P; r++)
        counts[r] = 0;
    if (!weight) {
        snprintf(err, errlen, "out of memory measuring the partition");
        rc = -1;
    } else {
        rc = owned_weights(g, owner, P, weight, counts, err, errlen);
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
    MPI_Allreduce(MPI_IN_PLACE, weight, 3 * P, MPI_INT64_T, MPI_SUM, comm);
    /* each undirected edge was seen from both ends */
    rep->edge_cut = cut / 2;
    rep->imbalance = max_over_mean(weight, P, 3);
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    rep->owned_weight = (double)weight[3 * rank];
    for (int c = 0; c < 2; c++)
        rep->class_imbalance[c] = max_over_mean(weight + 1 + c, P, 3);
    free(weight), free(far);
    return 0;
}
