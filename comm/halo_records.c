/* halo_records.c: records over a halo plan's neighbour graph
 * (halo_records.h). */
#include "comm/halo_records.h"

#include <stdlib.h>
#include <string.h>

int halo_records_init(halo_records *r, const halo_plan *h, int stride) {
    memset(r, 0, sizeof *r);
    r->stride = stride;
    int nd = h->ndests ? h->ndests : 1, ns = h->nsources ? h->nsources : 1;
    r->scount = calloc((size_t)nd, sizeof(int));
    r->sdispl = calloc((size_t)nd, sizeof(int));
    r->rcount = calloc((size_t)ns, sizeof(int));
    r->rdispl = calloc((size_t)ns, sizeof(int));
    return r->scount && r->sdispl && r->rcount && r->rdispl ? 0 : -1;
}

void halo_records_free(halo_records *r) {
    free(r->send), free(r->recv), free(r->scount), free(r->sdispl), free(r->rcount);
    free(r->rdispl);
    memset(r, 0, sizeof *r);
}

static int reserve(double **buf, size_t *cap, size_t need) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 1024;
    while (c < need)
        c *= 2;
    double *b = realloc(*buf, c * sizeof *b);
    if (!b) return -1;
    *buf = b;
    *cap = c;
    return 0;
}

int halo_records_room(halo_records *r, size_t records) {
    return reserve(&r->send, &r->send_cap, records * (size_t)r->stride + 1);
}

int halo_records_exchange(halo_records *r, const halo_plan *h, int failed, uint64_t *messages,
                          uint64_t *bytes) {
    int stride = r->stride, nd = h->ndests, ns = h->nsources;
    MPI_Neighbor_alltoall(r->scount, 1, MPI_INT, r->rcount, 1, MPI_INT, h->graph);
    size_t rtotal = 0;
    for (int s = 0; s < ns; s++) {
        r->rdispl[s] = (int)(rtotal * (size_t)stride);
        rtotal += (size_t)r->rcount[s];
        r->rcount[s] *= stride;
    }
    for (int d = 0; d < nd; d++) {
        *messages += r->scount[d] > 0;
        *bytes += (uint64_t)r->scount[d] * (uint64_t)stride * sizeof(double);
        r->sdispl[d] *= stride;
        r->scount[d] *= stride;
    }
    if (reserve(&r->recv, &r->recv_cap, rtotal * (size_t)stride + 1)) failed = 1;
    MPI_Neighbor_alltoallv(failed ? NULL : r->send, r->scount, r->sdispl, MPI_DOUBLE,
                           failed ? NULL : r->recv, r->rcount, r->rdispl, MPI_DOUBLE, h->graph);
    return failed ? -1 : 0;
}
