/* directory.c: the distributed owner map (see directory.h). */
#include "comm/directory.h"

#include "comm/agree.h"
#include "comm/sorted_ids.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t dir_first(int64_t n, int P, int r) {
    /* r * n / P without overflow for n up to 2^62 / P */
    return (int64_t)(((__int128)n * r) / P);
}

int dir_rank_of(int64_t n, int P, int64_t g) {
    /* the largest r with dir_first(r) <= g */
    int r = (int)(((__int128)g * P) / n);
    while (r + 1 < P && dir_first(n, P, r + 1) <= g)
        r++;
    while (r > 0 && dir_first(n, P, r) > g)
        r--;
    return r;
}

/* Sends count[k] int64 items to each rank k (items grouped by destination in
 * send) and returns what arrives, grouped by source, in *recv (malloc'd). */
static int exchange_i64(MPI_Comm comm, const int64_t *send, const int *scount, int64_t **recv,
                        int **rcount_out, int **rdispl_out, int64_t *total) {
    int P;
    MPI_Comm_size(comm, &P);
    int *rcount = malloc((size_t)P * sizeof *rcount);
    int *sdispl = malloc((size_t)P * sizeof *sdispl);
    int *rdispl = malloc((size_t)P * sizeof *rdispl);
    if (!rcount || !sdispl || !rdispl) {
        free(rcount), free(sdispl), free(rdispl);
        return -1;
    }
    MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, comm);
    int64_t s = 0, r = 0;
    for (int k = 0; k < P; k++) {
        sdispl[k] = (int)s;
        rdispl[k] = (int)r;
        s += scount[k];
        r += rcount[k];
    }
    *recv = malloc((size_t)(r ? r : 1) * sizeof **recv);
    if (!*recv) {
        free(rcount), free(sdispl), free(rdispl);
        return -1;
    }
    MPI_Alltoallv(send, scount, sdispl, MPI_INT64_T, *recv, rcount, rdispl, MPI_INT64_T, comm);
    free(sdispl);
    *total = r;
    *rcount_out = rcount;
    *rdispl_out = rdispl;
    return 0;
}

int directory_owned_ids(int64_t n, const int32_t *owner_block, MPI_Comm comm, int64_t **ids,
                        int32_t *count, char *err, size_t errlen) {
    int P, rank;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &rank);
    int64_t first = dir_first(n, P, rank), len = dir_first(n, P, rank + 1) - first;
    int rc = 0;
    *ids = NULL;
    *count = 0;
    int *scount = calloc((size_t)P, sizeof *scount);
    int *fill = calloc((size_t)P, sizeof *fill);
    int64_t *send = malloc((size_t)(len ? len : 1) * sizeof *send);
    if (!scount || !fill || !send) {
        snprintf(err, errlen, "out of memory inverting the partition (%lld ids)", (long long)len);
        rc = -1;
    }
    for (int64_t k = 0; rc == 0 && k < len; k++) {
        int32_t o = owner_block[k];
        if (o < 0 || o >= P) {
            snprintf(err, errlen, "state %lld has owner %d, outside [0, %d)",
                     (long long)(first + k), (int)o, P);
            rc = -1;
        } else {
            scount[o]++;
        }
    }
    if (comm_agree(comm, rc, err, errlen)) {
        free(scount), free(fill), free(send);
        return -1;
    }
    int *sdispl = malloc((size_t)P * sizeof *sdispl);
    if (sdispl) {
        int64_t s = 0;
        for (int k = 0; k < P; k++) {
            sdispl[k] = (int)s;
            s += scount[k];
        }
        for (int64_t k = 0; k < len; k++) {
            int32_t o = owner_block[k];
            send[sdispl[o] + fill[o]++] = first + k;
        }
    }
    int64_t *recv = NULL, total = 0;
    int *rcount = NULL, *rdispl = NULL;
    rc = sdispl ? 0 : -1;
    if (comm_agree(comm, rc, NULL, 0) == 0 &&
        exchange_i64(comm, send, scount, &recv, &rcount, &rdispl, &total) == 0) {
        if (total > INT32_MAX - 1) {
            snprintf(err, errlen, "rank %d would own %lld states, more than %d: use more ranks",
                     rank, (long long)total, INT32_MAX - 1);
            rc = -1;
        } else {
            /* blocks arrive from ascending source ranks, each ascending: sort
             * anyway, the cost is small next to building the rows */
            qsort(recv, (size_t)total, sizeof *recv, ids_compare);
            *ids = recv;
            *count = (int32_t)total;
            recv = NULL;
        }
    } else {
        snprintf(err, errlen, "out of memory inverting the partition");
        rc = -1;
    }
    free(recv), free(rcount), free(rdispl), free(scount), free(fill), free(send), free(sdispl);
    if (comm_agree(comm, rc, err, errlen)) {
        free(*ids);
        *ids = NULL;
        *count = 0;
        return -1;
    }
    return 0;
}

int directory_lookup(int64_t n, const int32_t *owner_block, MPI_Comm comm, const int64_t *ids,
                     int64_t count, int32_t *owners, char *err, size_t errlen) {
    int P, rank;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &rank);
    int rc = 0;
    int *scount = calloc((size_t)P, sizeof *scount);
    int *sdispl = calloc((size_t)P, sizeof *sdispl);
    int *fill = calloc((size_t)P, sizeof *fill);
    int64_t *send = malloc((size_t)(count ? count : 1) * sizeof *send);
    int64_t *where = malloc((size_t)(count ? count : 1) * sizeof *where);
    if (!scount || !sdispl || !fill || !send || !where) rc = -1;
    for (int64_t k = 0; rc == 0 && k < count; k++)
        scount[dir_rank_of(n, P, ids[k])]++;
    if (rc == 0) {
        int64_t s = 0;
        for (int k = 0; k < P; k++) {
            sdispl[k] = (int)s;
            s += scount[k];
        }
        for (int64_t k = 0; k < count; k++) {
            int d = dir_rank_of(n, P, ids[k]);
            int64_t pos = sdispl[d] + fill[d]++;
            send[pos] = ids[k];
            where[pos] = k;
        }
    }
    int64_t *query = NULL, total = 0, *answer = NULL;
    int *rcount = NULL, *rdispl = NULL;
    if (comm_agree(comm, rc, NULL, 0) == 0 &&
        exchange_i64(comm, send, scount, &query, &rcount, &rdispl, &total) == 0) {
        answer = malloc((size_t)(total ? total : 1) * sizeof *answer);
        int64_t first = dir_first(n, P, rank);
        for (int64_t k = 0; answer && k < total; k++)
            answer[k] = owner_block[query[k] - first];
        if (!answer) rc = -1;
        if (comm_agree(comm, rc, NULL, 0) == 0) {
            /* the answers go back the way the queries came */
            MPI_Alltoallv(answer, rcount, rdispl, MPI_INT64_T, send, scount, sdispl, MPI_INT64_T,
                          comm);
            for (int64_t k = 0; k < count; k++)
                owners[where[k]] = (int32_t)send[k];
        }
    } else {
        rc = -1;
    }
    free(query), free(answer), free(rcount), free(rdispl);
    free(scount), free(sdispl), free(fill), free(send), free(where);
    if (rc) snprintf(err, errlen, "out of memory looking up %lld owners", (long long)count);
    return comm_agree(comm, rc, err, errlen) ? -1 : 0;
}
