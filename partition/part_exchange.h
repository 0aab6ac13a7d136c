/* part_exchange.h: records to the directory rank of their first id. */
#ifndef QMOL_PART_EXCHANGE_H
#define QMOL_PART_EXCHANGE_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* Collective: each of the nrec records recs[width k .. width k + width - 1]
 * (int64s, width >= 1) goes to the directory rank (comm/directory.h, n ids)
 * of its first id, in one MPI_Alltoallv; *out (malloc'd) gets the *nout
 * records arriving here, grouped by source rank. Returns 0, or -1 with err
 * set (out of memory, more than INT_MAX records sent or received by a rank);
 * the verdict is agreed on all ranks. */
int part_exchange_records(MPI_Comm comm, int64_t n, int width, const int64_t *recs, int64_t nrec,
                          int64_t **out, int64_t *nout, char *err, size_t errlen);

#endif
