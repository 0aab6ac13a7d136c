/* memory_check.h: refuse, before allocating, a run that cannot fit.
 *
 * The estimate per rank is MEMORY_BASE_BYTES plus, per owned state (n / P),
 * MEMORY_STATE_BYTES and MEMORY_ENTRY_BYTES per entry of its Jacobian row
 * (the mean row size of up to MEMORY_SAMPLE_ROWS rows spread over the
 * problem). Measured peak RSS per state at n = 1e6 (adr2d 1000 x 1000,
 * 5 entries per row; heat3d 100^3, 7): mLIQSS2 255 and 290 bytes, QSS1 218,
 * CVODE 297; heat3d 150^3, mLIQSS2: 299. The estimate gives 290 and 310:
 * about what a run takes (a little more, for the rest of the process), not
 * a bound. Rank 0 also holds the graph METIS partitions (metis_vertices,
 * partition.h): MEMORY_METIS_VERTEX_BYTES plus MEMORY_METIS_ENTRY_BYTES per
 * row entry each (28 at 5 entries per row; measured on heat2d at P = 2,
 * rank 0 over rank 1: 23 bytes per vertex at n = 2.25e6, 15 at 9e6).
 * A node's ranks (MPI_COMM_TYPE_SHARED) together must fit in its
 * physical memory, and each rank in its own limits (RLIMIT_AS, RLIMIT_DATA).
 */
#ifndef QMOL_MEMORY_CHECK_H
#define QMOL_MEMORY_CHECK_H

#include "qmol.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#define MEMORY_BASE_BYTES (32.0 * 1024 * 1024)
#define MEMORY_STATE_BYTES 240.0
#define MEMORY_ENTRY_BYTES 10.0
#define MEMORY_SAMPLE_ROWS 1000
#define MEMORY_METIS_VERTEX_BYTES 8.0
#define MEMORY_METIS_ENTRY_BYTES 4.0

/* Collective over comm. Returns 0, or -1 (on every rank) with a message
 * giving the estimate and the memory it exceeds. */
int memory_check(const qmol_problem *p, int64_t metis_vertices, MPI_Comm comm, char *err,
                 size_t errlen);

#endif
