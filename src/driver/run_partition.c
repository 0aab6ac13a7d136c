/* run_partition.c: the partition and layout of a run, its memory check,
 * and the mixed method's assignment (run_internal.h). */
#include "comm/agree.h"
#include "mixed/assign.h"
#include "core/discontinuities.h"
#include "core/integrator_registry.h"
#include "driver/memory_check.h"
#include "driver/run_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Start-up report of the partition's quality (collective; rank 0 prints). */
static void print_partition(run_layout *l) {
    int64_t v[3] = {l->halo.n_ghost, halo_boundary_count(&l->halo), l->n_owned};
    MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_INT64_T, MPI_MAX, l->comm);
    char pieces[48] = "", classes[64] = "";
    if (l->report.class_imbalance[0] > 0.0 || l->report.class_imbalance[1] > 0.0)
        snprintf(classes, sizeof classes, " (QSS %.3f, BDF %.3f)", l->report.class_imbalance[0],
                 l->report.class_imbalance[1]);
    if (l->report.pieces > l->size)
        snprintf(pieces, sizeof pieces, " in %d pieces", l->report.pieces);
    if (l->rank == 0)
        printf("qmol: partition %s over %d ranks%s: edge cut %lld, imbalance %.3f%s, max per "
               "rank: %lld owned, %lld ghosts, %lld boundary states%s%s\n",
               l->kind, l->size, pieces, (long long)l->report.edge_cut, l->report.imbalance,
               classes, (long long)v[2], (long long)v[0], (long long)v[1],
               l->report.coarsened ? " (METIS on a coarsened graph)" : "",
               l->report.gathered ? "; the discontinuities' states on one rank" : "");
}

/* The methods of this rank's output block of states (several ranks: moved
 * there from the owners as the samples are). Returns NULL when out of
 * memory. */
int8_t *run_methods_of_block(run_layout *l, int64_t n, const unsigned char *assignment) {
    int64_t count = l->size == 1 ? n : l->to_blocks.block_count;
    int8_t *block = malloc((size_t)count + 1);
    double *owned = l->size > 1 ? malloc(((size_t)l->n_owned + 1) * sizeof *owned) : NULL;
    if (block && l->size == 1) memcpy(block, assignment, (size_t)n);
    if (block && owned) {
        for (int32_t j = 0; j < l->n_owned; j++)
            owned[j] = assignment[j];
        redistribute(&l->to_blocks, owned, l->block);
        for (int64_t k = 0; k < count; k++)
            block[k] = (int8_t)l->block[k];
    }
    if (l->size > 1 && !owned) {
        free(block);
        block = NULL;
    }
    free(owned);
    return block;
}

/* The method of each owned state of a mixed run (collective); prints the
 * split. When every state went to one block, *out is NULL and *pure the
 * method that runs them alone (--qss-method, or the method's bdf_alone,
 * CVODE: a mixed run with an empty block is that method); else *pure is
 * NULL. Returns 0, or -1 with err (the same on every rank). */
static int assign_methods(const run_config *c, const qmol_problem *p, run_layout *l,
                          unsigned char **out, const integrator_def **pure, char *err,
                          size_t errlen) {
    *pure = NULL;
    const model *mp = &l->m;
    unsigned char *assignment = malloc((size_t)mp->n + 1);
    *out = assignment;
    if (comm_agree(l->comm, assignment ? 0 : -1, NULL, 0)) {
        snprintf(err, errlen, "out of memory for the method assignment");
        return -1;
    }
    assign_options ao = {.bdf_rule = c->bdf_rule,
                         .bdf_file = c->bdf_file,
                         .automatic = c->assign_auto,
                         .threshold = c->assign_threshold,
                         .depth = c->assign_depth < 0    ? 0
                                  : c->assign_depth == 0 ? -1
                                                         : c->assign_depth,
                         .t0 = p->t0,
                         .tf = c->tf};
    int rc = assign_states(mp, layout_halo(l), &ao, assignment, err, errlen);
    if (comm_agree(l->comm, rc, err, errlen)) return -1;
    /* totals, then the smallest and largest share of a rank */
    int64_t counts[2] = {0, 0};
    for (int32_t j = 0; j < mp->n; j++)
        counts[assignment[j] == ASSIGN_BDF]++;
    int64_t total[2], low[2], high[2];
    MPI_Allreduce(counts, total, 2, MPI_INT64_T, MPI_SUM, l->comm);
    MPI_Allreduce(counts, low, 2, MPI_INT64_T, MPI_MIN, l->comm);
    MPI_Allreduce(counts, high, 2, MPI_INT64_T, MPI_MAX, l->comm);
    if (total[0] == 0 || total[1] == 0) {
        *pure = total[1] == 0 ? c->qss_method : integrator_by_name(c->method->bdf_alone);
        free(assignment);
        *out = NULL;
        return 0;
    }
    if (!c->quiet && l->rank == 0) {
        printf("qmol: mixed: %lld states to %s, %lld to BDF (CVODE), coupling %s\n",
               (long long)total[0], c->qss_method->name, (long long)total[1],
               c->coupling == COUPLING_SAMPLE    ? "sample"
               : c->coupling == COUPLING_HISTORY ? "history"
                                                 : "interp");
        if (l->size > 1)
            printf("qmol: mixed: per rank %lld..%lld QSS and %lld..%lld BDF states\n",
                   (long long)low[0], (long long)high[0], (long long)low[1], (long long)high[1]);
    }
    return 0;
}

/* A mixed run whose states all went to one block runs that block's method
 * alone (said on rank 0), as if it had been asked for. */
static void run_alone(run_config *c, const integrator_def *pure, int64_t n, int rank) {
    if (!c->quiet && rank == 0)
        printf("qmol: mixed: all %lld states went to %s: %s runs them alone\n", (long long)n,
               integrator_is_qss(pure) ? "QSS" : "BDF", pure->name);
    c->method = pure;
}

/* How the method partitions the states (--partition applied). Returns 0, or
 * -1 with err (a bad --partition). */
static int partition_for(const run_config *c, const qmol_problem *p, int size,
                         partition_options *po, char *err, size_t errlen) {
    const integrator_def *m = c->method;
    *po = (partition_options){.kind = PARTITION_METIS,
                              .gather_discrete = integrator_has(m, INTEGRATOR_GATHER_DISCRETE) &&
                                                 problem_has_discontinuities(p),
                              /* the states --assign auto keeps on QSS with them */
                              .gather_hops = !integrator_has(m, INTEGRATOR_ASSIGNS) ? 0
                                             : c->assign_depth < 0                  ? ASSIGN_DEPTH
                                                                   : c->assign_depth,
                              .coarsen_above = c->coarsen_above,
                              .weight_by_row = integrator_has(m, INTEGRATOR_WEIGHT_BY_ROW),
                              .pieces_per_rank =
                                  c->pieces ? c->pieces : m->pieces_per_rank(p->n, size)};
    return c->partition ? partition_parse(c->partition, po, err, errlen) : 0;
}

/* Collective: whether the run fits in memory (memory_check.h). */
static int run_memory_check(const run_config *c, const qmol_problem *p, const partition_options *po,
                            int can_checkpoint, MPI_Comm comm, char *err, size_t errlen) {
    int size;
    MPI_Comm_size(comm, &size);
    memory_extra extra = {c->method->memory_state_bytes, c->method->memory_entry_bytes,
                          partition_metis_vertices(p, po, size), 0.0, 0.0};
    if (can_checkpoint && checkpoint_keeps_window(c)) {
        integrator_kept(c->method, &extra.kept_doubles, &extra.kept_entry_doubles);
    }
    return memory_check(p, &extra, comm, err, errlen);
}

/* Several ranks, METIS: each state's method as a vertex class, so that
 * METIS balances the QSS and the BDF work separately. The assignment is
 * computed on a block partition first (it does not depend on the partition)
 * and moved to the directory blocks po->vertex_class is read in. Collective;
 * returns 0, or -1 with err (agreed). */
static int mixed_vertex_classes(const run_config *c, const qmol_problem *p, partition_options *po,
                                MPI_Comm comm, int8_t **classes, const integrator_def **pure,
                                char *err, size_t errlen) {
    partition_options pb = {.kind = PARTITION_BLOCK};
    run_layout first;
    if (layout_build(&first, p, &pb, comm, err, errlen) != 0) return -1;
    run_config quiet = *c;
    quiet.quiet = 1;
    unsigned char *assignment = NULL;
    int rc = assign_methods(&quiet, p, &first, &assignment, pure, err, errlen);
    int64_t count[2] = {0, 0};
    for (int32_t j = 0; rc == 0 && assignment && j < first.m.n; j++)
        count[assignment[j] == ASSIGN_BDF]++;
    /* A class with fewer states than METIS's P K pieces cannot be spread over
     * them (buck-heatsink's 6 QSS states, 4 ranks: METIS complained and left
     * the BDF work 1.55x imbalanced), and one of at most a quarter of a
     * rank's share (n / 4P) weighs little next to the other: neither is a
     * constraint. Such a class is mostly the discontinuities' neighbourhood,
     * which the partition then moves to one rank (part_gather.h): balanced
     * first, its 6 states left one of 4 ranks with 7 of buck-heatsink's 96
     * BDF states. */
    int32_t parts = first.size * (po->pieces_per_rank > 1 ? po->pieces_per_rank : 1);
    int64_t small = p->n / (4 * (int64_t)first.size);
    if (small < parts) small = parts;
    if (rc == 0) MPI_Allreduce(MPI_IN_PLACE, count, 2, MPI_INT64_T, MPI_SUM, comm);
    if (rc == 0 && count[0] > small && count[1] > small) {
        *classes = run_methods_of_block(&first, p->n, assignment);
        rc = comm_agree(comm, *classes ? 0 : -1, NULL, 0);
        if (rc) snprintf(err, errlen, "out of memory for the states' methods");
    }
    po->vertex_class = (const unsigned char *)*classes;
    free(assignment);
    layout_free(&first);
    return rc;
}

int run_lay_out(run_ctx *r) {
    run_config *c = &r->c;
    const qmol_problem *p = &r->prob;
    if (partition_for(c, p, r->size, &r->po, r->err, sizeof r->err) != 0) {
        run_say(r, "qmol: error: --partition %s: %s\n", c->partition, r->err);
        return 2;
    }
    if (run_memory_check(c, p, &r->po, r->can_checkpoint, r->comm, r->err, sizeof r->err) != 0) {
        run_say(r, "qmol: error: problem %s: %s\n", r->def->name, r->err);
        return 2;
    }
    int assigns = integrator_has(c->method, INTEGRATOR_ASSIGNS);
    const integrator_def *pure = NULL;
    if (assigns && r->size > 1 && r->po.kind == PARTITION_METIS &&
        mixed_vertex_classes(c, p, &r->po, r->comm, &r->classes, &pure, r->err, sizeof r->err) !=
            0) {
        run_say(r, "qmol: error: %s\n", r->err);
        return 2;
    }
    int chooses = integrator_has(c->method, INTEGRATOR_CHOOSES); /* auto: keeps its own */
    if (pure && !chooses) { /* the partition and the memory of that method */
        run_alone(c, pure, p->n, r->rank);
        if (partition_for(c, p, r->size, &r->po, r->err, sizeof r->err) != 0 ||
            run_memory_check(c, p, &r->po, r->can_checkpoint, r->comm, r->err, sizeof r->err) !=
                0) {
            run_say(r, "qmol: error: problem %s: %s\n", r->def->name, r->err);
            return 2;
        }
    } else if (pure && !problem_has_discontinuities(p)) {
        /* auto without a split chooses between CVODE and the QSS method:
         * laid out as CVODE alone, so that where it runs CVODE the answer is
         * CVODE's own. With the mixed method's partition (rows weighed by
         * their length) CVODE's block ILU(0) differed, and so did its steps
         * and error: heat3d 40^3 at tol 1e-4 on 2 ranks, 36 steps and e_rr
         * 1.43e-3 against 26 and 2.0e-4 (METIS at 1-16 pieces a rank:
         * 26-29 steps, 1.9e-4 to 3.3e-4). */
        run_config as_bdf = *c;
        as_bdf.method = integrator_by_name(c->method->bdf_alone);
        if (partition_for(&as_bdf, p, r->size, &r->po, r->err, sizeof r->err) != 0) {
            run_say(r, "qmol: error: --partition %s: %s\n", c->partition, r->err);
            return 2;
        }
    }
    if (layout_build(&r->layout, p, &r->po, r->comm, r->err, sizeof r->err) != 0) {
        if (r->layout.partition_failed)
            run_say(r, "qmol: error: --partition %s: %s\n", c->partition ? c->partition : "metis",
                    r->err);
        else
            run_say(r, "qmol: error: problem %s: %s\n", r->def->name, r->err);
        return 2;
    }
    if (r->size > 1 && !c->quiet) print_partition(&r->layout);
    if (!integrator_has(c->method, INTEGRATOR_ASSIGNS)) return 0;
    if (assign_methods(c, p, &r->layout, &r->assignment, &pure, r->err, sizeof r->err) != 0) {
        run_say(r, "qmol: error: %s\n", r->err);
        return 2;
    }
    /* (the layout stays: on one rank or a block partition it is that
     * method's too; its memory is checked again) */
    if (pure && !chooses) {
        run_alone(c, pure, p->n, r->rank);
        if (run_memory_check(c, p, &r->po, r->can_checkpoint, r->comm, r->err, sizeof r->err) !=
            0) {
            run_say(r, "qmol: error: problem %s: %s\n", r->def->name, r->err);
            return 2;
        }
    }
    return 0;
}
