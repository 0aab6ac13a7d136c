/* part_exchange.c: records to their directory ranks (see part_exchange.h). */
#include "partition/part_exchange.h"

#include "comm/agree.h"
#include "comm/directory.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int part_exchange_records(MPI_Comm comm, int64_t n, int width, const int64_t *recs, int64_t nrec,
                          int64_t **out, int64_t *nout, char *err, size_t errlen) {
    int P, rank, rc = 0;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &rank);
    *out = NULL;
    *nout = 0;
    int *scount = calloc((size_t)P, sizeof *scount), *rcount = calloc((size_t)P, sizeof *rcount);
    int *sdispl = calloc((size_t)P, sizeof *sdispl), *rdispl = calloc((size_t)P, sizeof *rdispl);
    int64_t *send = malloc((size_t)(nrec ? nrec : 1) * (size_t)width * sizeof *send);
    if (!scount || !rcount || !sdispl || !rdispl || !send) {
        snprintf(err, errlen, "out of memory sending %lld graph records", (long long)nrec);
        rc = -1;
    } else if (nrec > INT_MAX) {
        snprintf(err, errlen,
                 "rank %d sends %lld graph records, more than MPI's int counts allow: "
                 "use more ranks",
                 rank, (long long)nrec);
        rc = -1;
    }
    if (rc == 0) {
        for (int64_t k = 0; k < nrec; k++)
            scount[dir_rank_of(n, P, recs[k * width])]++;
        for (int r = 1; r < P; r++)
            sdispl[r] = sdispl[r - 1] + scount[r - 1];
        memset(rcount, 0, (size_t)P * sizeof *rcount); /* reused as fill counters */
        for (int64_t k = 0; k < nrec; k++) {
            int d = dir_rank_of(n, P, recs[k * width]);
            memcpy(send + (int64_t)(sdispl[d] + rcount[d]++) * width, recs + k * width,
                   (size_t)width * sizeof *send);
        }
        MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, comm);
        int64_t total = 0;
        for (int r = 0; r < P; r++)
            total += rcount[r];
        if (total > INT_MAX) {
            snprintf(err, errlen,
                     "rank %d receives %lld graph records, more than MPI's int "
                     "counts allow: use more ranks",
                     rank, (long long)total);
            rc = -1;
        } else {
            for (int r = 1; r < P; r++)
                rdispl[r] = rdispl[r - 1] + rcount[r - 1];
            *out = malloc((size_t)(total ? total : 1) * (size_t)width * sizeof **out);
            *nout = total;
            if (!*out) {
                snprintf(err, errlen, "out of memory receiving %lld graph records",
                         (long long)total);
                rc = -1;
            }
        }
    }
    if (comm_agree(comm, rc, err, errlen) == 0) {
        MPI_Datatype rec;
        MPI_Type_contiguous(width, MPI_INT64_T, &rec);
        MPI_Type_commit(&rec);
        MPI_Alltoallv(send, scount, sdispl, rec, *out, rcount, rdispl, rec, comm);
        MPI_Type_free(&rec);
    } else {
        rc = -1;
        free(*out);
        *out = NULL;
        *nout = 0;
    }
    free(scount), free(rcount), free(sdispl), free(rdispl), free(send);
    return rc;
}
