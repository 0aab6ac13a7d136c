/* memory_check.h: refuse, before allocating, a run that cannot fit.
 *
 * The estimate per rank is MEMORY_BASE_BYTES plus, per owned state (n / P),
 * the method's bytes per state and per entry of its Jacobian row
 * (integrator_def.memory_state_bytes and memory_entry_bytes, measured:
 * integrator_registry.h), the row size the mean of up to MEMORY_SAMPLE_ROWS
 * rows spread over the problem. It is about what a run takes (a little
 * more, for the rest of the process), not a bound. Until 2026-11-29 one
 * figure (240 bytes a state, 10 an entry) stood for every method: CVODE
 * (since ILU(0)) took 1.6 times it, --method auto 2.3 times.
 *
 * On rank 0 partitioning can take more: while METIS runs there
 * (metis_vertices vertices, partition.h) it holds
 * MEMORY_PARTITION_STATE_BYTES per owned state plus
 * MEMORY_METIS_VERTEX_BYTES and MEMORY_METIS_ENTRY_BYTES per row entry per
 * vertex, freed before the states are allocated; rank 0's estimate is the
 * larger of the two phases. Measured peak RSS of rank 0 with n = 9e6:
 * heat2d 1182 MB at P = 8 and 1314 MB at P = 2 (39 bytes more per owned
 * state); at P = 8, less 27 MB and 39 bytes per owned state, heat1d 90,
 * heat2d 123, heat3d 174 bytes per vertex (the model: 90, 132, 174); heat2d
 * at P = 4: 1274 MB (the model: 1276; rank 1 677 MB). At P = 2 the states'
 * phase is the larger (1337 MB).
 *
 * A last window kept in memory (last_window.h) adds its doubles per state;
 * measured: LIQSS2 on adr2d 500 x 500, 120 bytes per state (13 doubles
 * and the record's slack); mLIQSS2 on heat3d 100^3, peak RSS 507 bytes per
 * state with it (the estimate: 503) and 320 without (343).
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
#define MEMORY_SAMPLE_ROWS 1000
#define MEMORY_PARTITION_STATE_BYTES 39.0
#define MEMORY_METIS_VERTEX_BYTES 27.0
#define MEMORY_METIS_ENTRY_BYTES 21.0

/* What a run needs: the method's bytes per owned state and per row entry
 * (integrator_def), the vertices METIS partitions on rank 0
 * (partition_metis_vertices; 0: none), and the doubles per owned state,
 * fixed and per row entry, of the last window kept in memory (the method's
 * integrator_kept, integrator_registry.h; 0: none). */
typedef struct memory_extra {
    double state_bytes, entry_bytes;
    int64_t metis_vertices;
    double kept_doubles, kept_entry_doubles;
} memory_extra;

/* Collective over comm. Returns 0, or -1 (on every rank) with a message
 * giving the estimate and the memory it exceeds. */
int memory_check(const qmol_problem *p, const memory_extra *extra, MPI_Comm comm, char *err,
                 size_t errlen);

#endif
