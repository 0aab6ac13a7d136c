/* part_metis.c: METIS on rank 0 (see part_metis.h). */
#include "partition/part_metis.h"

#include "comm/agree.h"
#include "comm/directory.h"
#include "partition/part_deal.h"

#include <metis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if IDXTYPEWIDTH == 32
#define MPI_IDX MPI_INT32_T
#else
#define MPI_IDX MPI_INT64_T
#endif

#define WEIGHT_TOTAL_MAX ((int64_t)1 << 29)

/* Collective: total[c] = the sum over all ranks of w[k ncon + c], k < count. */
static void weight_totals(const int64_t *w, int64_t count, int ncon, MPI_Comm comm,
                          int64_t *total) {
    for (int c = 0; c < ncon; c++)
        total[c] = 0;
    for (int64_t k = 0; k < count; k++)
        for (int c = 0; c < ncon; c++)
            total[c] += w[k * ncon + c];
    MPI_Allreduce(MPI_IN_PLACE, total, ncon, MPI_INT64_T, MPI_SUM, comm);
}

/* The divisor that brings total down to limit, as a fraction num / den (1 / 1
 * if none is needed). */
static void weight_scale(int64_t total, int64_t limit, int64_t *num, int64_t *den) {
    *num = total > limit ? limit : 1;
    *den = total > limit ? total : 1;
}

/* w num / den; a non-zero weight stays >= 1. */
static idx_t scaled(int64_t w, int64_t num, int64_t den) {
    int64_t s = (int64_t)((__int128)w * num / den);
    return (idx_t)(w == 0 ? 0 : s < 1 ? 1 : s);
}

static const char *metis_error(int rc) {
    switch (rc) {
    case METIS_ERROR_INPUT:
        return "erroneous input";
    case METIS_ERROR_MEMORY:
        return "out of memory";
    default:
        return "an error";
    }
}

/* The gathered graph on rank 0, and the per-rank counts to gather it. */
typedef struct gathered {
    idx_t ncon; /* vertex weights per vertex */
    idx_t *xadj, *adj, *ewgt, *vwgt, *part;
    int32_t *owner;
    int *vcount, *vdispl, *acount, *adispl;
} gathered;

static void gathered_free(gathered *h) {
    free(h->xadj), free(h->adj), free(h->ewgt), free(h->vwgt), free(h->part), free(h->owner);
    free(h->vcount), free(h->vdispl), free(h->acount), free(h->adispl);
}

/* Rank 0: room for the whole graph; other ranks: nothing. */
static int gathered_alloc(gathered *h, int P, int64_t nv, int64_t nadj, int ncon, int weighted) {
    memset(h, 0, sizeof *h);
    size_t v = (size_t)nv + 1, a = (size_t)(nadj ? nadj : 1);
    h->ncon = ncon;
    h->xadj = malloc(v * sizeof *h->xadj);
    h->adj = malloc(a * sizeof *h->adj);
    h->ewgt = weighted ? malloc(a * sizeof *h->ewgt) : NULL;
    h->vwgt = malloc(v * (size_t)ncon * sizeof *h->vwgt);
    h->part = malloc(v * sizeof *h->part);
    h->owner = malloc(v * sizeof *h->owner);
    h->vcount = malloc((size_t)P * sizeof *h->vcount);
    h->vdispl = malloc((size_t)P * sizeof *h->vdispl);
    h->acount = malloc((size_t)P * sizeof *h->acount);
    h->adispl = malloc((size_t)P * sizeof *h->adispl);
    return h->xadj && h->adj && (!weighted || h->ewgt) && h->vwgt && h->part && h->owner &&
                   h->vcount && h->vdispl && h->acount && h->adispl
               ? 0
               : -1;
}

/* This rank's part of the graph in METIS types: degrees, neighbours, edge
 * weights, and ncon vertex weights per vertex: g's constraints keep[0..ncon),
 * those with a positive total (one class without weight leaves one). Weights
 * are scaled, each constraint to a total of at most WEIGHT_TOTAL_MAX / ncon. */
typedef struct local_part {
    idx_t *deg, *adj, *ewgt, *vwgt;
    int ncon, keep[2];
} local_part;

/* Collective: l->ncon, l->keep and the scaling num[j] / den[j] of each kept
 * constraint. */
static void choose_constraints(const part_graph *g, MPI_Comm comm, local_part *l, int64_t num[2],
                               int64_t den[2]) {
    int64_t total[2];
    weight_totals(g->vwgt, g->count, g->ncon, comm, total);
    l->ncon = 0;
    for (int c = 0; c < g->ncon; c++)
        if (total[c] > 0) l->keep[l->ncon++] = c;
    for (int j = 0; j < l->ncon; j++)
        weight_scale(total[l->keep[j]], WEIGHT_TOTAL_MAX / l->ncon, &num[j], &den[j]);
}

static int local_alloc(local_part *l, const part_graph *g, MPI_Comm comm) {
    int64_t nadj = g->xadj[g->count], n = g->count ? g->count : 1, a = nadj ? nadj : 1;
    int64_t vnum[2], vden[2], etotal, anum, aden;
    choose_constraints(g, comm, l, vnum, vden);
    weight_totals(g->ewgt, g->ewgt ? nadj : 0, 1, comm, &etotal);
    weight_scale(etotal, WEIGHT_TOTAL_MAX, &anum, &aden);
    l->deg = malloc((size_t)n * sizeof *l->deg);
    l->adj = malloc((size_t)a * sizeof *l->adj);
    l->ewgt = g->ewgt ? malloc((size_t)a * sizeof *l->ewgt) : NULL;
    l->vwgt = malloc((size_t)n * (size_t)l->ncon * sizeof *l->vwgt);
    if (!l->deg || !l->adj || (g->ewgt && !l->ewgt) || !l->vwgt) return -1;
    for (int64_t u = 0; u < g->count; u++) {
        l->deg[u] = (idx_t)(g->xadj[u + 1] - g->xadj[u]);
        for (int j = 0; j < l->ncon; j++)
            l->vwgt[u * l->ncon + j] = scaled(g->vwgt[u * g->ncon + l->keep[j]], vnum[j], vden[j]);
    }
    for (int64_t k = 0; k < nadj; k++) {
        l->adj[k] = (idx_t)g->adj[k];
        if (l->ewgt) l->ewgt[k] = scaled(g->ewgt[k], anum, aden);
    }
    return 0;
}

static void local_free(local_part *l) {
    free(l->deg), free(l->adj), free(l->ewgt), free(l->vwgt);
}

static int copy_parts(gathered *h, int64_t nv) {
    for (int64_t u = 0; u < nv; u++)
        h->owner[u] = (int32_t)h->part[u];
    return 0;
}

/* h->owner from the pieces in h->part: part_deal on the pieces' adjacency. */
static int deal(gathered *h, int64_t nv, int pieces, int P, char *err, size_t errlen) {
    int64_t npairs = 0;
    for (int64_t u = 0; u < nv; u++)
        for (idx_t k = h->xadj[u]; k < h->xadj[u + 1]; k++)
            npairs += h->part[u] < h->part[h->adj[k]];
    int32_t *pairs = malloc((size_t)(2 * npairs + 2) * sizeof *pairs);
    int32_t *rank_of = malloc((size_t)pieces * sizeof *rank_of);
    int rc = pairs && rank_of ? 0 : -1;
    if (!rc) {
        int64_t m = 0;
        for (int64_t u = 0; u < nv; u++)
            for (idx_t k = h->xadj[u]; k < h->xadj[u + 1]; k++)
                if (h->part[u] < h->part[h->adj[k]]) {
                    pairs[2 * m] = (int32_t)h->part[u];
                    pairs[2 * m + 1] = (int32_t)h->part[h->adj[k]];
                    m++;
                }
        rc = part_deal(pieces, P, pairs, npairs, rank_of);
    }
    if (rc)
        snprintf(err, errlen, "out of memory dealing %d METIS pieces to %d ranks", pieces, P);
    else
        for (int64_t u = 0; u < nv; u++)
            h->owner[u] = rank_of[h->part[u]];
    free(pairs), free(rank_of);
    return rc;
}

/* Rank 0: METIS_PartGraphKway on the gathered graph into `pieces` parts;
 * h->owner gets the rank each piece is dealt to (part_deal). */
static int run_metis(gathered *h, int64_t nv, int pieces, int P, char *err, size_t errlen) {
    h->xadj[0] = 0;
    for (int64_t u = 0; u < nv; u++)
        h->xadj[u + 1] += h->xadj[u];
    idx_t nvtxs = (idx_t)nv, nparts = pieces, objval = 0;
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = 1;
    options[METIS_OPTION_CONTIG] = 0;
    options[METIS_OPTION_NUMBERING] = 0;
    int rc = METIS_PartGraphKway(&nvtxs, &h->ncon, h->xadj, h->adj, h->vwgt, NULL, h->ewgt, &nparts,
                                 NULL, NULL, options, &objval, h->part);
    if (rc != METIS_OK) {
        snprintf(err, errlen, "METIS_PartGraphKway returned %s (%d) on a graph of %lld vertices",
                 metis_error(rc), rc, (long long)nv);
        return -1;
    }
    return pieces > P ? deal(h, nv, pieces, P, err, errlen) : copy_parts(h, nv);
}

/* Collective: every rank's part l of g to h on rank 0. */
static void gather(const part_graph *g, const local_part *l, gathered *h, MPI_Comm comm) {
    int P, rank;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &rank);
    int vc = (int)g->count, ac = (int)g->xadj[g->count];
    MPI_Gather(&vc, 1, MPI_INT, h->vcount, 1, MPI_INT, 0, comm);
    MPI_Gather(&ac, 1, MPI_INT, h->acount, 1, MPI_INT, 0, comm);
    if (rank == 0) {
        h->vdispl[0] = h->adispl[0] = 0;
        for (int r = 1; r < P; r++) {
            h->vdispl[r] = h->vdispl[r - 1] + h->vcount[r - 1];
            h->adispl[r] = h->adispl[r - 1] + h->acount[r - 1];
        }
    }
    MPI_Datatype weights; /* the ncon weights of one vertex */
    MPI_Type_contiguous(l->ncon, MPI_IDX, &weights);
    MPI_Type_commit(&weights);
    /* degrees land in xadj[1..nv], summed into offsets by run_metis */
    MPI_Gatherv(l->deg, vc, MPI_IDX, h->xadj ? h->xadj + 1 : NULL, h->vcount, h->vdispl, MPI_IDX, 0,
                comm);
    MPI_Gatherv(l->vwgt, vc, weights, h->vwgt, h->vcount, h->vdispl, weights, 0, comm);
    MPI_Gatherv(l->adj, ac, MPI_IDX, h->adj, h->acount, h->adispl, MPI_IDX, 0, comm);
    if (g->ewgt) MPI_Gatherv(l->ewgt, ac, MPI_IDX, h->ewgt, h->acount, h->adispl, MPI_IDX, 0, comm);
    MPI_Type_free(&weights);
}

int part_metis(const part_graph *g, int pieces, MPI_Comm comm, int32_t *owner, char *err,
               size_t errlen) {
    int P, rank;
    MPI_Comm_size(comm, &P);
    MPI_Comm_rank(comm, &rank);
    int64_t nv = g->n, nadj = part_graph_adjacency(g, comm);
    if (nv > PART_METIS_MAX || nadj > PART_METIS_MAX) {
        snprintf(err, errlen,
                 "a graph of %lld vertices and %lld adjacency entries is too big for METIS "
                 "(at most %lld of each)",
                 (long long)nv, (long long)nadj, (long long)PART_METIS_MAX);
        return -1;
    }
    gathered h;
    local_part l = {0};
    int rc = local_alloc(&l, g, comm);
    if (rank == 0) {
        rc |= gathered_alloc(&h, P, nv, nadj, l.ncon, g->ewgt != NULL);
    } else {
        memset(&h, 0, sizeof h);
    }
    if (rc)
        snprintf(err, errlen, "out of memory gathering a graph of %lld vertices for METIS",
                 (long long)nv);
    if (comm_agree(comm, rc, err, errlen)) {
        local_free(&l), gathered_free(&h);
        return -1;
    }
    gather(g, &l, &h, comm);
    local_free(&l);
    rc = rank == 0 ? run_metis(&h, nv, pieces, P, err, errlen) : 0;
    if (comm_agree(comm, rc, err, errlen) == 0)
        MPI_Scatterv(h.owner, h.vcount, h.vdispl, MPI_INT32_T, owner, (int)g->count, MPI_INT32_T, 0,
                     comm);
    else
        rc = -1;
    gathered_free(&h);
    return rc;
}
