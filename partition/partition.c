/* partition.c: partition_compute. Checks the request, builds the state
 * dependency graph, computes owners by kind (METIS possibly on a coarsened
 * graph), replaces a METIS result that leaves a rank empty by the block
 * partition, refuses any other empty rank, and measures the result. */
#include "partition/partition.h"

#include "comm/agree.h"
#include "comm/directory.h"
#include "partition/part_block.h"
#include "partition/part_coarsen.h"
#include "partition/part_file.h"
#include "partition/part_gather.h"
#include "partition/part_graph.h"
#include "partition/part_metis.h"
#include "partition/part_quality.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_COARSEN_ABOVE 20000000

/* The same verdict on every rank: no communication needed. */
static int check_request(const qmol_problem *p, const partition_options *o, int P, char *err,
                         size_t errlen) {
    if (p->n < 1) {
        snprintf(err, errlen, "the problem has no states to partition");
        return -1;
    }
    if (P > p->n) {
        snprintf(err, errlen, "%d ranks for %lld states: use at most %lld ranks", P,
                 (long long)p->n, (long long)p->n);
        return -1;
    }
    if (o->kind != PARTITION_METIS && o->kind != PARTITION_BLOCK && o->kind != PARTITION_FILE) {
        snprintf(err, errlen, "unknown partition kind %d (metis, block or file)", (int)o->kind);
        return -1;
    }
    if (o->kind == PARTITION_FILE && (!o->file || !o->file[0])) {
        snprintf(err, errlen, "file partition without a file name (file:PATH)");
        return -1;
    }
    if (o->pieces_per_rank < 0) {
        snprintf(err, errlen, "pieces_per_rank is %d: it must be >= 0 (0: one piece per rank)",
                 o->pieces_per_rank);
        return -1;
    }
    if (o->coarsen_above < 0) {
        snprintf(err, errlen, "coarsen_above is %lld: it must be >= 0 (0: the default %d)",
                 (long long)o->coarsen_above, DEFAULT_COARSEN_ABOVE);
        return -1;
    }
    return 0;
}

/* Pieces for METIS on a graph of nv vertices: K P, at most nv, at least P. */
static int metis_pieces(const partition_options *o, int P, int64_t nv) {
    int64_t k = o->pieces_per_rank > 1 ? o->pieces_per_rank : 1;
    int64_t pieces = k * P < nv ? k * P : nv;
    return (int)(pieces > P ? pieces : P);
}

/* METIS on the coarse graph of g; every state gets its super-vertex's owner.
 * Returns 0, 1 when the coarse graph has fewer vertices than ranks (some
 * rank would get nothing), -1 on error (agreed). */
static int coarse_metis(const qmol_problem *p, const partition_options *o, int64_t limit,
                        const part_graph *g, MPI_Comm comm, int32_t *owner, partition_report *rep,
                        char *err, size_t errlen) {
    int P;
    MPI_Comm_size(comm, &P);
    int64_t least = (int64_t)metis_pieces(o, P, p->n);
    int64_t target = limit / 4 > least ? limit / 4 : least;
    part_coarse_map m;
    part_coarse_map_init(p, target, &m);
    part_graph c;
    if (part_coarsen(g, &m, comm, &c, err, errlen)) return -1;
    rep->coarsened = 1;
    rep->coarse_vertices = m.nc;
    int64_t cadj = part_graph_adjacency(&c, comm);
    if (m.nc > PART_METIS_MAX || cadj > PART_METIS_MAX) {
        snprintf(err, errlen,
                 "the coarsened graph (%lld vertices, %lld adjacency entries) is still too big "
                 "for METIS (at most %lld of each): lower coarsen_above",
                 (long long)m.nc, (long long)cadj, (long long)PART_METIS_MAX);
        part_graph_free(&c);
        return -1;
    }
    if (m.nc < P) {
        part_graph_free(&c);
        return 1;
    }
    int32_t *cowner = malloc((size_t)(c.count ? c.count : 1) * sizeof *cowner);
    int64_t *cid = malloc((size_t)(g->count ? g->count : 1) * sizeof *cid);
    int rc = cowner && cid ? 0 : -1;
    if (rc) snprintf(err, errlen, "out of memory mapping states to super-vertices");
    if (comm_agree(comm, rc, err, errlen) == 0) {
        for (int64_t k = 0; k < g->count; k++)
            cid[k] = part_coarse_of(&m, g->first + k);
        rep->pieces = metis_pieces(o, P, m.nc);
        rc = part_metis(&c, rep->pieces, comm, cowner, err, errlen);
        if (rc == 0) rc = directory_lookup(m.nc, cowner, comm, cid, g->count, owner, err, errlen);
    } else {
        rc = -1;
    }
    free(cowner), free(cid);
    part_graph_free(&c);
    return rc;
}

/* METIS owners: 0, 1 when METIS cannot serve every rank, -1 on error. */
static int metis_owners(const qmol_problem *p, const partition_options *o, const part_graph *g,
                        MPI_Comm comm, int32_t *owner, partition_report *rep, char *err,
                        size_t errlen) {
    int P;
    MPI_Comm_size(comm, &P);
    if (P == 1) {
        for (int64_t k = 0; k < g->count; k++)
            owner[k] = 0;
        return 0;
    }
    int64_t above = o->coarsen_above > 0 ? o->coarsen_above : DEFAULT_COARSEN_ABOVE;
    int64_t nadj = part_graph_adjacency(g, comm);
    /* METIS's own limits force coarsening too */
    if (p->n <= above && p->n <= PART_METIS_MAX && nadj <= PART_METIS_MAX) {
        rep->pieces = metis_pieces(o, P, p->n);
        return part_metis(g, rep->pieces, comm, owner, err, errlen);
    }
    return coarse_metis(p, o, above < PART_METIS_MAX ? above : PART_METIS_MAX, g, comm, owner, rep,
                        err, errlen);
}

int64_t partition_metis_vertices(const qmol_problem *p, const partition_options *o, int P) {
    if (P < 2 || o->kind != PARTITION_METIS) return 0;
    int64_t above = o->coarsen_above > 0 ? o->coarsen_above : DEFAULT_COARSEN_ABOVE;
    if (p->n <= above && p->n <= PART_METIS_MAX) return p->n;
    int64_t coarse = (above < PART_METIS_MAX ? above : PART_METIS_MAX) / 4;
    return coarse > P ? coarse : P;
}

/* The first rank owning no state, or -1. */
static int empty_rank(const int64_t *counts, int P) {
    for (int r = 0; r < P; r++)
        if (counts[r] == 0) return r;
    return -1;
}

/* Owners by kind, then quality; a METIS result leaving a rank empty is
 * replaced by the block partition. Returns 0 or -1 (agreed). */
static int owners_and_quality(const qmol_problem *p, const partition_options *o,
                              const part_graph *g, MPI_Comm comm, int32_t *owner,
                              partition_report *rep, int64_t *counts, char *err, size_t errlen) {
    int P, rc = 0;
    MPI_Comm_size(comm, &P);
    if (o->kind == PARTITION_BLOCK) {
        rc = part_block_owners(p, comm, o->boxes, owner, rep->boxes, err, errlen);
        if (rc == 1) rep->fallback = 1;
        rc = rc < 0 ? -1 : 0;
    } else if (o->kind == PARTITION_FILE)
        rc = part_file_owners(o->file, p->n, comm, owner, err, errlen);
    else
        rc = metis_owners(p, o, g, comm, owner, rep, err, errlen);
    if (rc < 0) return -1;
    if (rc == 0 && o->gather_discrete && o->kind != PARTITION_FILE) {
        int moved = part_gather_discrete(p, g, o->gather_hops, comm, owner, err, errlen);
        if (moved < 0) return -1;
        rep->gathered = moved;
    }
    if (rc == 0 && part_quality(g, owner, comm, rep, counts, err, errlen)) return -1;
    if (o->kind == PARTITION_METIS && (rc == 1 || empty_rank(counts, P) >= 0)) {
        part_block_owners(p, comm, NULL, owner, rep->boxes, err, errlen);
        rep->fallback = 1;
        if (part_quality(g, owner, comm, rep, counts, err, errlen)) return -1;
    }
    int empty = empty_rank(counts, P);
    if (empty < 0) return 0;
    /* counts are the same on every rank: so is this verdict */
    if (o->kind == PARTITION_FILE)
        snprintf(err, errlen, "partition in %s leaves rank %d without states", o->file, empty);
    else
        snprintf(err, errlen, "partition leaves rank %d without states", empty);
    return -1;
}

int partition_compute(const qmol_problem *p, const partition_options *o, MPI_Comm comm,
                      int32_t *owner_block, partition_report *rep, char *err, size_t errlen) {
    double start = MPI_Wtime();
    int P;
    MPI_Comm_size(comm, &P);
    memset(rep, 0, sizeof *rep);
    if (comm_agree(comm, check_request(p, o, P, err, errlen), err, errlen)) return -1;
    part_graph g;
    if (part_graph_of_problem(p, o->weight_by_row, o->vertex_class, comm, &g, err, errlen))
        return -1;
    int64_t *counts = malloc((size_t)P * sizeof *counts);
    int rc = counts ? 0 : -1;
    if (rc) snprintf(err, errlen, "out of memory for %d rank counts", P);
    if (comm_agree(comm, rc, err, errlen) == 0)
        rc = owners_and_quality(p, o, &g, comm, owner_block, rep, counts, err, errlen);
    else
        rc = -1;
    free(counts);
    part_graph_free(&g);
    rep->wall_seconds = MPI_Wtime() - start;
    MPI_Allreduce(MPI_IN_PLACE, &rep->wall_seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
    return rc;
}
