/* redistribute.c: owned values to directory blocks (see redistribute.h). */
#include "comm/redistribute.h"

#include "comm/agree.h"
#include "comm/directory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void redistribute_free(redistribute_plan *r) {
    free(r->scount), free(r->sdispl), free(r->rcount), free(r->rdispl);
    free(r->position), free(r->recv);
    memset(r, 0, sizeof *r);
}

int redistribute_build(redistribute_plan *r, int64_t n, const int64_t *owned, int32_t n_owned,
                       MPI_Comm comm, char *err, size_t errlen) {
    memset(r, 0, sizeof *r);
    r->comm = comm;
    int P, rank;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &rank);
    r->size = P;
    r->block_first = dir_first(n, P, rank);
    r->block_count = dir_first(n, P, rank + 1) - r->block_first;
    size_t bc = (size_t)(r->block_count ? r->block_count : 1);
    r->scount = calloc((size_t)P, sizeof(int));
    r->sdispl = calloc((size_t)P, sizeof(int));
    r->rcount = calloc((size_t)P, sizeof(int));
    r->rdispl = calloc((size_t)P, sizeof(int));
    r->position = malloc(bc * sizeof *r->position);
    r->recv = malloc(bc * sizeof *r->recv);
    int64_t *ids = malloc(bc * sizeof *ids);
    int rc = (r->scount && r->sdispl && r->rcount && r->rdispl && r->position && r->recv && ids)
                 ? 0
                 : -1;
    if (comm_agree(comm, rc, NULL, 0)) {
        free(ids);
        redistribute_free(r);
        snprintf(err, errlen, "out of memory planning the output redistribution");
        return -1;
    }
    for (int32_t k = 0; k < n_owned; k++)
        r->scount[dir_rank_of(n, P, owned[k])]++;
    for (int q = 1; q < P; q++)
        r->sdispl[q] = r->sdispl[q - 1] + r->scount[q - 1];
    MPI_Alltoall(r->scount, 1, MPI_INT, r->rcount, 1, MPI_INT, comm);
    int64_t total = 0;
    for (int q = 0; q < P; q++) {
        r->rdispl[q] = (int)total;
        total += r->rcount[q];
    }
    if (total != r->block_count) rc = -1;
    if (comm_agree(comm, rc, NULL, 0)) {
        free(ids);
        redistribute_free(r);
        snprintf(err, errlen, "the partition does not cover every state exactly once");
        return -1;
    }
    MPI_Alltoallv(owned, r->scount, r->sdispl, MPI_INT64_T, ids, r->rcount, r->rdispl, MPI_INT64_T,
                  comm);
    for (int64_t k = 0; k < total; k++)
        r->position[k] = (int32_t)(ids[k] - r->block_first);
    free(ids);
    return 0;
}

void redistribute(redistribute_plan *r, const double *x, double *block) {
    MPI_Alltoallv(x, r->scount, r->sdispl, MPI_DOUBLE, r->recv, r->rcount, r->rdispl, MPI_DOUBLE,
                  r->comm);
    for (int64_t k = 0; k < r->block_count; k++)
        block[r->position[k]] = r->recv[k];
}

void redistribute_back(redistribute_plan *r, const double *block, double *x) {
    for (int64_t k = 0; k < r->block_count; k++)
        r->recv[k] = block[r->position[k]];
    MPI_Alltoallv(r->recv, r->rcount, r->rdispl, MPI_DOUBLE, x, r->scount, r->sdispl, MPI_DOUBLE,
                  r->comm);
}
