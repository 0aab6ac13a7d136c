/* part_gather.c: the discontinuity states onto one rank (see part_gather.h). */
#include "partition/part_gather.h"

#include "comm/agree.h"
#include "comm/directory.h"
#include "core/discontinuities.h"
#include "partition/part_graph.h"
#include "comm/sorted_ids.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Adds to the sorted set ids (count, room for limit) the graph neighbours of
 * its members, `hops` times (collective: each rank expands
 * the members in its block, the new ones are gathered everywhere). Returns
 * the new count, limit + 1 when the set outgrew limit, -1 when out of
 * memory (agreed). */
static int64_t add_neighbours(const part_graph *g, MPI_Comm comm, int hops, int64_t *ids,
                              int64_t count, int64_t limit) {
    int P;
    MPI_Comm_size(comm, &P);
    int *counts = malloc((size_t)P * sizeof *counts), *displs = malloc((size_t)P * sizeof *displs);
    int64_t *fresh = malloc(((size_t)limit + 1) * sizeof *fresh);
    int ok = counts && displs && fresh;
    for (int h = 0; h < hops && ok; h++) {
        int mine = 0, too_many = 0;
        for (int64_t k = 0; k < count && !too_many; k++) {
            int64_t v = ids[k] - g->first;
            if (v < 0 || v >= g->count) continue;
            for (int64_t a = g->xadj[v]; a < g->xadj[v + 1] && !too_many; a++) {
                int64_t u = g->adj[a];
                if (ids_find(ids, count, u) >= 0) continue;
                too_many = mine == limit - count;
                if (!too_many) fresh[mine++] = u;
            }
        }
        MPI_Allreduce(MPI_IN_PLACE, &too_many, 1, MPI_INT, MPI_MAX, comm);
        MPI_Allgather(&mine, 1, MPI_INT, counts, 1, MPI_INT, comm);
        int64_t total = 0;
        for (int r = 0; r < P; r++)
            displs[r] = (int)total, total += counts[r];
        if (too_many || count + total > limit) {
            count = limit + 1;
            break;
        }
        /* the new ones after the old, then the whole set sorted again */
        MPI_Allgatherv(fresh, mine, MPI_INT64_T, ids + count, counts, displs, MPI_INT64_T, comm);
        count += total;
        qsort(ids, (size_t)count, sizeof *ids, ids_compare);
        int64_t out = 0;
        for (int64_t k = 0; k < count; k++)
            if (out == 0 || ids[out - 1] != ids[k]) ids[out++] = ids[k];
        int grew = out > count - total;
        count = out;
        if (!grew) break;
    }
    free(counts), free(displs), free(fresh);
    return ok ? count : -1;
}

int part_gather_discrete(const qmol_problem *p, const part_graph *g, int hops, MPI_Comm comm,
                         int32_t *owner, char *err, size_t errlen) {
    int P, rank;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &rank);
    if (P == 1) return 0;
    int64_t count, first = dir_first(p->n, P, rank), len = dir_first(p->n, P, rank + 1) - first;
    int64_t limit = p->n / (PART_GATHER_SHARE * (int64_t)P);
    /* every rank computes the same list from the problem */
    int64_t *ids = discrete_states(p, limit, &count);
    int oom = count == -2;
    if (count < 0) count = 0;
    if (count > 0) {
        int64_t *room = realloc(ids, ((size_t)limit + 1) * sizeof *ids);
        if (room) ids = room;
        oom |= !room;
    }
    if (comm_agree(comm, oom ? -1 : 0, NULL, 0) == 0 && count > 0) {
        count = add_neighbours(g, comm, hops, ids, count, limit);
        oom = count < 0;
        if (count > limit) count = 0; /* too many: they stay where they are */
    }
    if (count < 0) count = 0;
    int32_t *before = malloc(((size_t)count + 1) * sizeof *before);
    int64_t *counts = calloc((size_t)P, sizeof *counts);
    if (comm_agree(comm, oom || !before || !counts ? -1 : 0, NULL, 0)) {
        free(ids), free(before), free(counts);
        snprintf(err, errlen, "out of memory gathering the discontinuity states");
        return -1;
    }
    int moved = 0;
    if (count > 0) {
        int root = dir_rank_of(p->n, P, ids[0]);
        int32_t target = rank == root ? owner[ids[0] - first] : 0;
        MPI_Bcast(&target, 1, MPI_INT32_T, root, comm);
        for (int64_t k = 0; k < count; k++) {
            int64_t local = ids[k] - first;
            before[k] = local >= 0 && local < len ? owner[local] : -1;
            if (before[k] >= 0) {
                moved |= before[k] != target;
                owner[local] = target;
            }
        }
        for (int64_t k = 0; k < len; k++)
            counts[owner[k]]++;
        MPI_Allreduce(MPI_IN_PLACE, counts, P, MPI_INT64_T, MPI_SUM, comm);
        MPI_Allreduce(MPI_IN_PLACE, &moved, 1, MPI_INT, MPI_MAX, comm);
        for (int r = 0; r < P && moved; r++)
            if (counts[r] == 0) { /* undo: a rank would be left empty */
                for (int64_t k = 0; k < count; k++)
                    if (before[k] >= 0) owner[ids[k] - first] = before[k];
                moved = 0;
            }
    }
    free(ids), free(before), free(counts);
    return moved;
}
