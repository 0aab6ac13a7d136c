/* layout.h: where a run's states live: the partition, this rank's owned and
 * ghost states, its local model, and the move of samples to the output
 * blocks. On one rank the model is the whole problem and nothing else is
 * built.
 */
#ifndef QMOL_LAYOUT_H
#define QMOL_LAYOUT_H

#include "comm/halo.h"
#include "core/model.h"
#include "partition/partition.h"
#include "comm/redistribute.h"

#include <mpi.h>

typedef struct run_layout {
    MPI_Comm comm;
    int rank, size;
    int32_t *owner_block; /* this rank's directory block of owners */
    int64_t *owned;       /* owned ids, ascending (NULL on one rank) */
    int32_t n_owned;
    halo_plan halo;              /* size > 1 only */
    redistribute_plan to_blocks; /* size > 1 only */
    double *block;               /* size > 1: this rank's output block */
    model m;                     /* the (local) model */
    partition_report report;     /* size > 1 */
    const char *kind;            /* "single", "metis", "block" or "file" */
    double wall_partition;
    int partition_failed; /* layout_build failed in the partitioner (set after freeing) */
} run_layout;

/* Collective. Partitions p over comm as po says, builds the halo and the
 * local model. Returns 0, or -1 with err set (the same message on every
 * rank). */
int layout_build(run_layout *l, const qmol_problem *p, const partition_options *po, MPI_Comm comm,
                 char *err, size_t errlen);
void layout_free(run_layout *l);

/* The halo plan for the integrators, or NULL on one rank. */
halo_plan *layout_halo(run_layout *l);
/* Collective: the owned values v (m.n) into block, this rank's directory
 * block (the output's and the checkpoint's; on one rank a copy), and back. */
void layout_to_block(run_layout *l, const double *v, double *block);
void layout_from_block(run_layout *l, const double *block, double *v);

#endif
