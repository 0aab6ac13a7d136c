/* part_deal.c: pieces to ranks (see part_deal.h). */
#include "partition/part_deal.h"

#include <stdlib.h>
#include <string.h>

static int cmp_pair(const void *a, const void *b) {
    const int32_t *x = a, *y = b;
    if (x[0] != y[0]) return (x[0] > y[0]) - (x[0] < y[0]);
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Piece adjacency in CSR form from the pairs (both directions, no repeats). */
static int adjacency(int32_t pieces, int32_t *pairs, int64_t npairs, int64_t **ptr_out,
                     int32_t **nbr_out) {
    int64_t m = 0;
    for (int64_t k = 0; k < npairs; k++) { /* both directions, no self pairs */
        int32_t a = pairs[2 * k], b = pairs[2 * k + 1];
        if (a == b) continue;
        pairs[2 * m] = a < b ? a : b;
        pairs[2 * m + 1] = a < b ? b : a;
        m++;
    }
    qsort(pairs, (size_t)m, 2 * sizeof *pairs, cmp_pair);
    int64_t u = 0;
    for (int64_t k = 0; k < m; k++)
        if (k == 0 || pairs[2 * k] != pairs[2 * u - 2] || pairs[2 * k + 1] != pairs[2 * u - 1]) {
            pairs[2 * u] = pairs[2 * k];
            pairs[2 * u + 1] = pairs[2 * k + 1];
            u++;
        }
    int64_t *ptr = calloc((size_t)pieces + 1, sizeof *ptr);
    int32_t *nbr = malloc((size_t)(2 * u + 1) * sizeof *nbr);
    if (!ptr || !nbr) {
        free(ptr), free(nbr);
        return -1;
    }
    for (int64_t k = 0; k < u; k++) {
        ptr[pairs[2 * k] + 1]++;
        ptr[pairs[2 * k + 1] + 1]++;
    }
    for (int32_t p = 0; p < pieces; p++)
        ptr[p + 1] += ptr[p];
    int64_t *fill = malloc((size_t)(pieces ? pieces : 1) * sizeof *fill);
    if (!fill) {
        free(ptr), free(nbr);
        return -1;
    }
    memcpy(fill, ptr, (size_t)pieces * sizeof *fill);
    for (int64_t k = 0; k < u; k++) {
        nbr[fill[pairs[2 * k]]++] = pairs[2 * k + 1];
        nbr[fill[pairs[2 * k + 1]]++] = pairs[2 * k];
    }
    free(fill);
    *ptr_out = ptr;
    *nbr_out = nbr;
    return 0;
}

int part_deal(int32_t pieces, int P, int32_t *pairs, int64_t npairs, int32_t *rank_of) {
    int64_t *ptr = NULL;
    int32_t *nbr = NULL;
    int32_t *order = malloc((size_t)pieces * sizeof *order);
    int32_t *count = calloc((size_t)P, sizeof *count);
    int32_t *mark = malloc((size_t)P * sizeof *mark); /* mark[r] == p: r next to piece p */
    if (!order || !count || !mark || adjacency(pieces, pairs, npairs, &ptr, &nbr)) {
        free(order), free(count), free(mark), free(ptr), free(nbr);
        return -1;
    }
    for (int32_t p = 0; p < pieces; p++)
        rank_of[p] = -1;
    for (int r = 0; r < P; r++)
        mark[r] = -1;
    int32_t cap = (int32_t)((pieces + P - 1) / P), len = 0, head = 0;
    int next = 0; /* round-robin position */
    for (int32_t start = 0; start < pieces; start++) {
        if (rank_of[start] >= 0) continue;
        order[len++] = start;
        rank_of[start] = -2; /* queued */
        while (head < len) {
            int32_t p = order[head++];
            for (int64_t k = ptr[p]; k < ptr[p + 1]; k++)
                if (rank_of[nbr[k]] >= 0) mark[rank_of[nbr[k]]] = p;
            int chosen = -1;
            for (int t = 0; t < P && chosen < 0; t++) { /* a free rank not next to p */
                int r = (next + t) % P;
                if (count[r] < cap && mark[r] != p) chosen = r;
            }
            for (int t = 0; t < P && chosen < 0; t++) { /* any rank with room */
                int r = (next + t) % P;
                if (count[r] < cap) chosen = r;
            }
            rank_of[p] = chosen;
            count[chosen]++;
            next = (chosen + 1) % P;
            for (int64_t k = ptr[p]; k < ptr[p + 1]; k++)
                if (rank_of[nbr[k]] == -1) {
                    rank_of[nbr[k]] = -2;
                    order[len++] = nbr[k];
                }
        }
    }
    free(order), free(count), free(mark), free(ptr), free(nbr);
    return 0;
}
