/* layout.c: partition, halo and local model of a run (see layout.h). */
#include "core/layout.h"

#include "comm/agree.h"
#include "comm/directory.h"
#include "partition/part_file.h"
#include "core/wallclock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void layout_free(run_layout *l) {
    if (l->size > 1) {
        halo_free(&l->halo);
        redistribute_free(&l->to_blocks);
    }
    model_free(&l->m);
    free(l->owner_block);
    free(l->owned);
    free(l->block);
    memset(l, 0, sizeof *l);
}

halo_plan *layout_halo(run_layout *l) {
    return l->size > 1 ? &l->halo : NULL;
}

static int check_partition_file(const qmol_problem *p, const partition_options *po, MPI_Comm comm,
                                char *err, size_t errlen) {
    int32_t *owner = malloc((size_t)p->n * sizeof *owner);
    if (!owner) {
        snprintf(err, errlen, "out of memory for the partition file's %lld entries",
                 (long long)p->n);
        return -1;
    }
    int rc = part_file_owners(po->file, p->n, comm, owner, err, errlen);
    free(owner);
    return rc < 0 ? -1 : 0;
}

int layout_build(run_layout *l, const qmol_problem *p, const partition_options *po, MPI_Comm comm,
                 char *err, size_t errlen) {
    memset(l, 0, sizeof *l);
    l->comm = comm;
    MPI_Comm_rank(comm, &l->rank);
    MPI_Comm_size(comm, &l->size);
    l->kind = "single";
    if (l->size == 1) {
        /* one rank owns everything, but a partition file is still read and
         * checked: a wrong or missing file is an error on any P */
        if (po->kind == PARTITION_FILE && check_partition_file(p, po, comm, err, errlen)) {
            l->partition_failed = 1;
            return -1;
        }
        return model_build(&l->m, p, err, errlen);
    }
    static const char *const kinds[] = {"metis", "block", "file"};
    l->kind = kinds[po->kind];
    double w0 = wallclock_seconds();
    int64_t first = dir_first(p->n, l->size, l->rank);
    int64_t len = dir_first(p->n, l->size, l->rank + 1) - first;
    l->owner_block = malloc((size_t)(len ? len : 1) * sizeof *l->owner_block);
    int rc = l->owner_block ? 0 : -1;
    if (comm_agree(comm, rc, NULL, 0)) {
        snprintf(err, errlen, "out of memory for the partition");
        layout_free(l);
        return -1;
    }
    if (partition_compute(p, po, comm, l->owner_block, &l->report, err, errlen)) {
        layout_free(l);
        l->partition_failed = 1;
        return -1;
    }
    if (l->report.fallback && po->kind == PARTITION_METIS) l->kind = "block";
    if (directory_owned_ids(p->n, l->owner_block, comm, &l->owned, &l->n_owned, err, errlen)) {
        layout_free(l);
        return -1;
    }
    l->wall_partition = wallclock_seconds() - w0;
    if (halo_build(&l->halo, p, l->owned, l->n_owned, l->owner_block, comm, err, errlen)) {
        layout_free(l);
        return -1;
    }
    rc = model_build_local(&l->m, p, l->halo.gid, l->n_owned, l->n_owned + l->halo.n_ghost, err,
                           errlen);
    if (comm_agree(comm, rc, err, errlen) ||
        redistribute_build(&l->to_blocks, p->n, l->owned, l->n_owned, comm, err, errlen)) {
        layout_free(l);
        return -1;
    }
    l->block = malloc((size_t)(l->to_blocks.block_count ? l->to_blocks.block_count : 1) *
                      sizeof *l->block);
    if (comm_agree(comm, l->block ? 0 : -1, NULL, 0)) {
        snprintf(err, errlen, "out of memory for the output block");
        layout_free(l);
        return -1;
    }
    return 0;
}

void layout_to_block(run_layout *l, const double *v, double *block) {
    if (l->size == 1)
        memcpy(block, v, (size_t)l->m.n * sizeof *block);
    else
        redistribute(&l->to_blocks, v, block);
}

void layout_from_block(run_layout *l, const double *block, double *v) {
    if (l->size == 1)
        memcpy(v, block, (size_t)l->m.n * sizeof *v);
    else
        redistribute_back(&l->to_blocks, block, v);
}
