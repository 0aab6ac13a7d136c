/* run.c: problem set-up, output file, integration, summary. */
#include "run.h"

#include "agree.h"
#include "assign.h"
#include "checkpoint.h"
#include "discrete.h"
#include "directory.h"
#include "h5out.h"
#include "initial.h"
#include "integrator_registry.h"
#include "layout.h"
#include "memory_check.h"
#include "model.h"
#include "output_plan.h"
#include "place.h"
#include "workfile.h"
#include "progress.h"
#include "registry.h"
#include "time_probe.h"
#include "wallclock.h"
#include "xdmf.h"

#include <errno.h>
#include <math.h>
#include <mpi.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* Characters of a directory's name limit that an output's base name leaves
 * for the suffixes qmol and Open MPI's MPI-IO add (".ckpt", ".partial",
 * "_cid-N-PID.sm"): with 255, names of 215 characters and less. */
#define OUTPUT_NAME_MARGIN 40

/* Resolves the problem parameters. Each assignment is first checked alone, so
 * that a bad one from an INI file is reported with its file, line and key as
 * written there rather than as a --set option. */
static int resolve_params(const qmol_problem_def *def, const run_config *c, double *values,
                          char *err, size_t errlen) {
    for (int k = 0; k < c->nsets; k++) {
        if (params_resolve(def, (const char *const *)&c->sets[k], 1, values, err, errlen) == 0)
            continue;
        const char *origin = c->set_origins ? c->set_origins[k] : NULL;
        if (origin) {
            /* params_resolve's messages start "--set key=value: " */
            char *why = strdup(err);
            size_t skip = strlen("--set ") + strlen(c->sets[k]);
            if (!why) return -1;
            if (!strncmp(why, "--set ", 6) && !strncmp(why + 6, c->sets[k], strlen(c->sets[k])))
                snprintf(err, errlen, "%s%s", origin, why + skip);
            else
                snprintf(err, errlen, "%s: %s", origin, why);
            free(why);
        }
        return -1;
    }
    return params_resolve(def, (const char *const *)c->sets, c->nsets, values, err, errlen);
}

/* The sample callback: the writer takes each rank's directory block, so on
 * several ranks the owned values move there first. */
typedef struct sample_sink {
    h5out *out;
    run_layout *layout;
    /* --activity samples: the owned states' event counts so far (updated by
     * the integrator), at the previous sample, and scratch for the change */
    const double *activity;
    double *previous, *delta;
} sample_sink;

/* The owned values v in the writer's block (several ranks: moved there). */
static const double *to_block(run_layout *l, const double *v) {
    if (l->size == 1) return v; /* no copy */
    layout_to_block(l, v, l->block);
    return l->block;
}

static int sample_to_file(void *ctx, int64_t k, double t, const double *x) {
    sample_sink *s = ctx;
    run_layout *l = s->layout;
    int rc = h5out_sample(s->out, k, t, to_block(l, x));
    if (rc || !s->previous) return rc;
    for (int32_t j = 0; j < l->m.n; j++) {
        s->delta[j] = s->activity[j] - s->previous[j];
        s->previous[j] = s->activity[j];
    }
    return h5out_activity_sample(s->out, k, to_block(l, s->delta));
}

/* The files a run writes must all differ: the output, the checkpoint, their
 * working files (NAME.partial) and the XDMF file. A checkpoint named like
 * the output's working file replaced the results with a checkpoint, exit 0
 * (issue 17). Returns 0, or 1 with a message naming the two in why. */
static int file_collision(const char *output, const char *xmf, const char *ckpt, int ckpt_given,
                          char *why, size_t whylen) {
    char names[6][PATH_MAX + 16];
    const char *what[6];
    int n = 0;
    const char *files[3][2] = {
        {output, "the output"}, {xmf, "the XDMF file"}, {ckpt, "the checkpoint"}};
    for (int f = 0; f < 3; f++) { /* each file and its working file */
        if (!files[f][0]) continue;
        snprintf(names[n], sizeof names[n], "%s", files[f][0]);
        what[n++] = files[f][1];
        snprintf(names[n], sizeof names[n], "%s.partial", files[f][0]);
        what[n++] = f == 0   ? "the output's working file"
                    : f == 1 ? "the XDMF file's working file"
                             : "the checkpoint's working file";
    }
    for (int a = 0; a < n; a++)
        for (int b = a + 1; b < n; b++) {
            if (!place_same_file(names[a], names[b])) continue;
            int by_ckpt = ckpt && ckpt_given && b >= n - 2;
            snprintf(why, whylen,
                     "%s %s: %s %s is also %s (the output, the checkpoint, their .partial working "
                     "files and the XDMF file must all differ)",
                     by_ckpt ? "--checkpoint-file" : "--output", by_ckpt ? ckpt : output, what[b],
                     names[b], what[a]);
            return 1;
        }
    return 0;
}

/* The zero crossings of a run, kept for /events (17 bytes each). */
typedef struct event_log {
    double *time;
    int64_t *crossing;
    int8_t *direction;
    int64_t count, cap;
    int failed; /* out of memory: the run fails rather than drop events */
} event_log;

static void log_event(void *ctx, double t, int64_t c, int direction) {
    event_log *l = ctx;
    if (c < 0 || l->failed) return; /* time events are only counted (/stats) */
    if (l->count == l->cap) {
        int64_t cap = l->cap ? 2 * l->cap : 1024;
        double *nt = realloc(l->time, (size_t)cap * sizeof *nt);
        if (nt) l->time = nt;
        int64_t *nc = nt ? realloc(l->crossing, (size_t)cap * sizeof *nc) : NULL;
        if (nc) l->crossing = nc;
        int8_t *nd = nc ? realloc(l->direction, (size_t)cap * sizeof *nd) : NULL;
        if (nd) l->direction = nd;
        if (!nd) {
            l->failed = 1;
            return;
        }
        l->cap = cap;
    }
    l->time[l->count] = t;
    l->crossing[l->count] = c;
    l->direction[l->count] = (int8_t)direction;
    l->count++;
}

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

/* What failed: the integrator's message, a write of the output (its message;
 * the integration itself did not fail), a checkpoint write (its reason,
 * write_err, follows), or a failure without a message. */
static const char *the_failure(const char *err, const char *write_err, const h5out *out, char *buf,
                               size_t len) {
    const char *out_err = out ? h5out_error(out) : NULL;
    if (!err[0] && out_err) snprintf(buf, len, "writing the output failed: %s", out_err);
    return err[0]         ? err
           : out_err      ? buf
           : write_err[0] ? "a checkpoint could not be written"
                          : "the integration failed";
}

/* Closes an output that will not be finished: removed, or kept as
 * PATH.partial for a restart when a checkpoint refers to it. */
static void drop_output(h5out *out, int keep) {
    if (!keep) {
        h5out_abort(out);
        return;
    }
    char err[256];
    h5out_suspend(out, err, sizeof err);
}

/* The methods of this rank's output block of states (several ranks: moved
 * there from the owners as the samples are). Returns NULL when out of
 * memory. */
static int8_t *methods_of_block(run_layout *l, int64_t n, const unsigned char *assignment) {
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

/* /partition: on one rank kind "single" (rank 0 owns everything); mixed runs
 * add each state's method. Collective. */
static int write_partition(h5out *out, run_layout *l, int64_t n, const unsigned char *assignment,
                           char *err, size_t errlen) {
    int32_t *single = l->size == 1 ? calloc((size_t)n, sizeof *single) : NULL;
    int8_t *methods = assignment ? methods_of_block(l, n, assignment) : NULL;
    int bad = (l->size == 1 && !single) || (assignment && !methods);
    if (comm_agree(l->comm, bad, NULL, 0)) {
        free(single), free(methods);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int64_t owned = l->size == 1 ? n : l->n_owned;
    /* the partitioner's work estimate, so that the stored imbalance is the
     * one printed at start-up */
    h5out_rank_info mine = {.owned = owned,
                            .weight = l->size > 1 ? l->report.owned_weight : (double)owned};
    if (l->size > 1) {
        mine.ghosts = l->halo.n_ghost;
        mine.boundary = halo_boundary_count(&l->halo);
    }
    if (assignment) {
        mine.has_methods = 1;
        mine.method_block = methods;
        for (int64_t i = 0; i < owned; i++)
            mine.bdf_owned += assignment[i] == ASSIGN_BDF;
    }
    int rc = l->size == 1 ? h5out_partition(out, single, &mine, 0, "single", err, errlen)
                          : h5out_partition(out, l->owner_block, &mine, l->report.edge_cut, l->kind,
                                            err, errlen);
    free(single), free(methods);
    return rc;
}

/* /activity/events from the owned states' counts (several ranks: moved to
 * the writer's blocks as the samples are). Collective. */
static int write_activity(h5out *out, run_layout *l, double *counts, char *err, size_t errlen) {
    return h5out_activity(out, to_block(l, counts), err, errlen);
}

/* Below this many owned states on a rank the peak memory is mostly fixed
 * costs (libraries, MPI and HDF5 buffers: 143,483 bytes "per state" at
 * n = 200), and a figure per state would mean nothing. */
#define MEMORY_PER_STATE_MIN 100000

/* Peak resident memory of this process per owned state, in bytes, the
 * largest over ranks, or 0 when some rank owns fewer than
 * MEMORY_PER_STATE_MIN states (collective). */
static double peak_bytes_per_state(const run_layout *l, int64_t n, double *peak_mb) {
    struct rusage ru;
    double rss = getrusage(RUSAGE_SELF, &ru) == 0 ? (double)ru.ru_maxrss * 1024.0 : 0.0;
    int64_t owned = l->size == 1 ? n : l->n_owned;
    double v[3] = {rss / (double)(owned > 0 ? owned : 1), rss / 1048576.0, -(double)owned};
    MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_DOUBLE, MPI_MAX, l->comm);
    *peak_mb = v[1];
    return -v[2] >= MEMORY_PER_STATE_MIN ? v[0] : 0.0;
}

/* One row of the summary table: a label, a count and a note. */
static void count_row(const char *label, uint64_t v, const char *note) {
    printf("    %-24s %13llu%s%s\n", label, (unsigned long long)v, *note ? "  " : "", note);
}

/* CVODE's counters after its steps, with SUNDIALS' names (stats.h); the
 * ones that are 0 for the linear solver that ran are left out. */
static void cvode_rows(const qmol_stats *s) {
    count_row("rhs evaluations (nfe)", s->nfe, "whole system");
    if (s->nfeLS) count_row("  for Jv (nfeLS)", s->nfeLS, "");
    count_row("newton iterations (nni)", s->nni, "");
    if (s->ncfn) count_row("  failed (ncfn)", s->ncfn, "");
    count_row("linear set-ups (nsetups)", s->nsetups, "");
    if (s->nli) count_row("linear iters (nli)", s->nli, "");
    if (s->ncfl) count_row("  failed (ncfl)", s->ncfl, "");
    count_row("jacobians (nje)", s->nje, "whole system");
    if (s->npe || s->nps) {
        count_row("precond evals (npe)", s->npe, "");
        count_row("precond solves (nps)", s->nps, "");
    }
    if (s->njvevals) count_row("J v products (njvevals)", s->njvevals, "");
    count_row("error test fails (netf)", s->netf, "");
}

/* The rejected windows (several ranks) and the events they redid. */
static void rejected_row(const qmol_stats *s) {
    char why[96];
    snprintf(why, sizeof why, "run again shorter; %llu events redone",
             (unsigned long long)s->events_rejected);
    count_row("  rejected", s->windows_rejected, why);
}

/* One wall-time row: seconds and share of the total. */
static void wall_row(const char *label, double v, double total, const char *note) {
    printf("    %-24s %11.3f s  %5.1f%%%s%s\n", label, v, total > 0 ? 100.0 * v / total : 0.0,
           *note ? "  " : "", note);
}

static void print_summary(const run_config *c, const qmol_problem *p, const char *path,
                          const char *xmf, const qmol_stats *s, int size, double bytes_per_state,
                          double peak_mb) {
    const integrator_def *m = c->method;
    const char *precond = precond_name(c->linsol, c->precond);
    char solver[96] = "";
    if (integrator_has(m, INTEGRATOR_BDF_ALL))
        snprintf(solver, sizeof solver, ", linear solver %s%s%s", linsol_name(c->linsol),
                 precond ? " with " : "", precond ? precond : "");
    printf("qmol: %s, n=%lld, %s, tol=%g abstol=%g, t in [%g, %g], %lld samples%s\n", c->problem,
           (long long)p->n, m->name, c->reltol, c->abstol, p->t0, c->tf, (long long)c->samples,
           solver);
    const char *max = size > 1 ? "(slowest rank)" : "";
    printf("  wall time\n");
    wall_row("set-up", s->wall_setup - s->wall_partition, s->wall_total, "problem, model, file");
    if (size > 1) wall_row("partition", s->wall_partition, s->wall_total, max);
    wall_row("integrate", s->wall_integrate, s->wall_total, max);
    if (size > 1) {
        wall_row("  of which exchange", s->wall_exchange, s->wall_total, max);
        wall_row("  of which waiting", s->wall_wait, s->wall_total, max);
    }
    wall_row("output", s->wall_output, s->wall_total, "samples written");
    wall_row("total", s->wall_total, s->wall_total, "");
    char rate[64];
    double per_s = s->wall_integrate > 0 ? (double)s->events / s->wall_integrate : 0.0;
    printf("  work%s\n", size > 1 ? " (totals over ranks)" : "");
    if (!integrator_has(m, INTEGRATOR_QSS_ENGINE)) { /* steps */
        per_s = s->wall_integrate > 0 ? (double)s->nst / s->wall_integrate : 0.0;
        snprintf(rate, sizeof rate, "%.3g per second", per_s);
        count_row("steps (nst)", s->nst, rate);
        cvode_rows(s);
    } else {
        snprintf(rate, sizeof rate, "%.3g per second", per_s);
        int bdf = integrator_has(m, INTEGRATOR_BDF); /* and a QSS block */
        count_row(bdf ? "QSS events" : "events", s->events, rate);
        if (bdf) {
            count_row("BDF steps (nst)", s->nst, "");
            count_row("windows", s->windows, size > 1 ? "agreed" : "");
            if (size > 1) rejected_row(s);
            count_row("  cut by the step limit", s->step_limits, "");
            count_row("  cut by extrapolation", s->extrap_limits, "");
            cvode_rows(s);
        }
        count_row("jacobian rows", s->jac_rows, "scalar rows, QSS and BDF");
        if (s->pair_steps) count_row("pair steps", s->pair_steps, "mLIQSS");
    }
    count_row("row evaluations", s->row_evals, "scalar f_i");
    if (s->crossings || s->time_events) {
        count_row("zero crossings", s->crossings, "/events");
        count_row("time events", s->time_events, "");
    }
    if (size > 1) {
        printf("  %d ranks\n", size);
        if (!integrator_has(m, INTEGRATOR_BDF)) { /* QSS alone: its windows */
            count_row("windows", s->windows, "agreed");
            rejected_row(s);
        }
        count_row("messages", s->messages, "");
        count_row("bytes sent", s->bytes_sent, "");
        count_row("late updates", s->late_updates, "ghost changes applied at window ends");
    }
    char per_state[64] = "";
    if (bytes_per_state > 0.0)
        snprintf(per_state, sizeof per_state, ", %.0f bytes per owned state", bytes_per_state);
    printf("  memory      peak RSS %.1f MiB%s%s\n", peak_mb, size > 1 ? " (largest rank)" : "",
           per_state);
    struct stat st;
    if (stat(path, &st) == 0)
        printf("  output      %s (%.3g MiB)\n", path, (double)st.st_size / 1048576.0);
    else
        printf("  output      %s\n", path);
    if (xmf) printf("  ParaView    %s (XDMF time series of the grid)\n", xmf);
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
        *pure = total[1] == 0 ? c->qss_method : c->method->bdf_alone;
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
    memory_extra extra = {partition_metis_vertices(p, po, size), 0.0, 0.0};
    if (can_checkpoint && checkpoint_keeps_window(c)) {
        extra.kept_doubles = c->method->kept_fixed;
        extra.kept_entry_doubles = c->method->kept_per_entry;
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
        *classes = methods_of_block(&first, p->n, assignment);
        rc = comm_agree(comm, *classes ? 0 : -1, NULL, 0);
        if (rc) snprintf(err, errlen, "out of memory for the states' methods");
    }
    po->vertex_class = (const unsigned char *)*classes;
    free(assignment);
    layout_free(&first);
    return rc;
}

/* Errors and the summary come from rank 0; every rank reaches the same
 * verdict (the inputs are the same everywhere, file checks are agreed). */
#define SAY(...)                                                                                   \
    do {                                                                                           \
        if (rank == 0) fprintf(stderr, __VA_ARGS__);                                               \
    } while (0)

/* Whether a checkpoint's time and sample cursor contradict each other or the
 * run (a damaged or edited checkpoint: an earlier next_sample rewrote samples
 * before it, exit 0): its time must lie in [t0, tf] and its next sample
 * follow the samples at or before that time. The reason goes to err. */
static int resume_mismatch(const ckpt_info *r, const output_plan *plan, double t0, double tf,
                           const char *file, char *err, size_t len) {
    if (!(r->t >= t0 && r->t <= tf)) {
        snprintf(err, len,
                 "--restart %s: the checkpoint's time t = %.17g is outside the run's "
                 "[%.17g, %.17g]: it is damaged",
                 file, r->t, t0, tf);
        return 1;
    }
    int64_t before = 0, at_or_before = 0; /* samples strictly before t, and at or before it */
    for (int64_t k = 0; k < plan->samples; k++) {
        before += plan->times[k] < r->t;
        at_or_before += plan->times[k] <= r->t;
    }
    if (r->next_sample - 1 >= before && r->next_sample - 1 <= at_or_before) return 0;
    snprintf(err, len,
             "--restart %s: the checkpoint's next sample (%lld) does not follow its time "
             "t = %.17g (sample %lld is next there): it is damaged",
             file, (long long)r->next_sample, r->t, (long long)before + 1);
    return 1;
}

int run_execute(const run_config *cin) {
    run_config c = *cin;
    MPI_Comm comm = MPI_COMM_WORLD;
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    double w0 = wallclock_seconds();
    char err[1024] = "";
    const qmol_problem_def *def = NULL;
    if (registry_resolve("--problem", c.problem, &def, err, sizeof err) != 0) {
        SAY("qmol: error: %s\n", err);
        return 2;
    }
    double *values = calloc((size_t)def->nparams + 1, sizeof *values);
    if (!values) {
        SAY("qmol: error: out of memory\n");
        return 2;
    }
    if (resolve_params(def, &c, values, err, sizeof err) != 0) {
        SAY("qmol: error: %s\n", err);
        free(values);
        return 2;
    }
    qmol_problem prob;
    memset(&prob, 0, sizeof prob);
    if (def->create(values, &prob, err, sizeof err) != 0) {
        SAY("qmol: error: problem %s: %s\n", def->name, err);
        free(values);
        return 2;
    }
    int rc = 2;
    run_layout layout;
    memset(&layout, 0, sizeof layout);
    sample_sink sink;
    memset(&sink, 0, sizeof sink);
    char *path = NULL, *xmf = NULL, *stale_xmf = NULL;
    output_plan plan;
    memset(&plan, 0, sizeof plan);
    checkpointer ck;
    int have_ck = 0, keep_partial = 0; /* keep_partial: OUTPUT.partial outlives a failure */
    h5out_grid grid;
    memset(&grid, 0, sizeof grid);
    h5out *out = NULL;
    unsigned char *assignment = NULL;
    int8_t *classes = NULL;
    double *activity = NULL;
    event_log events;
    memset(&events, 0, sizeof events);
    if (output_plan_build(&plan, &c, &prob, err, sizeof err) != 0) {
        SAY("qmol: error: %s\n", err);
        goto done;
    }
    c.tf = plan.tf;
    if (c.output) {
        path = strdup(c.output);
    } else {
        size_t len = strlen(def->name) + 4;
        path = malloc(len);
        if (path) snprintf(path, len, "%s.h5", def->name);
    }
    if (!path) {
        SAY("qmol: error: out of memory\n");
        goto done;
    }
    /* grid problems: FILE.xmf beside FILE.h5 for ParaView (io/xdmf.h) */
    xmf = prob.ndims > 0 ? xdmf_path(path) : NULL;
    if (prob.ndims > 0 && !xmf) {
        SAY("qmol: error: out of memory\n");
        goto done;
    }
    struct stat st;
    /* rank 0 looks at the file system; everyone follows its verdict */
    int bad = 0;
    /* runs that write checkpoints (all but problems whose discrete variables
     * qmol cannot read and set) */
    int can_checkpoint = !problem_has_discontinuities(&prob) || prob.n_discrete > 0;
    if (rank == 0) {
        /* where checkpoints go (also a failed run's last window, a stop's) */
        char *ck_path = can_checkpoint ? checkpoint_path(&c, path) : NULL, *ck_dir = NULL;
        const char *ck_why = NULL;
        /* the directory first: nothing is computed for a file that cannot be written */
        const char *slash = strrchr(path, '/');
        char *dir = NULL;
        const char *why = place_problem(path, &dir);
        /* the output's working file (workfile.h): a stopped run's goes on with
         * a restart; a new run refuses a link, a live run's, and without
         * --overwrite a stopped run's samples */
        size_t plen = strlen(path) + sizeof ".partial";
        char *partial = malloc(plen), why_partial[768];
        if (partial) snprintf(partial, plen, "%s.partial", path);
        /* the longest names made from it: FILE.ckpt.h5.partial, and the files
         * Open MPI's MPI-IO makes beside it (FILE.partial_cid-N-PID.sm; with a
         * longer name its lockedfile component overflows a buffer and aborts) */
        const char *base = slash ? slash + 1 : path;
        long name_max = dir && !why ? pathconf(dir, _PC_NAME_MAX) : -1;
        char too_long[160];
        if (!why && name_max > OUTPUT_NAME_MARGIN &&
            (long)strlen(base) > name_max - OUTPUT_NAME_MARGIN) {
            snprintf(too_long, sizeof too_long,
                     "the file name has %zu characters, at most %ld here (the directory allows "
                     "%ld, and the run adds suffixes)",
                     strlen(base), name_max - OUTPUT_NAME_MARGIN, name_max);
            why = too_long;
        }
        if (why) {
            snprintf(err, sizeof err, "--output %s: cannot write in directory %s: %s", path,
                     dir ? dir : "", why);
            bad = 1;
        } else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            snprintf(err, sizeof err,
                     "--output %s: is a directory (expected a file name such as %s.h5)", path,
                     def->name);
            bad = 1;
        } else if (!partial) {
            snprintf(err, sizeof err, "out of memory");
            bad = 1;
        } else if (c.restart && lstat(partial, &st) != 0) {
            snprintf(err, sizeof err,
                     "--restart %s: the stopped run's output %s is gone (it holds the samples "
                     "written before the checkpoint)",
                     c.restart, partial);
            bad = 1;
        } else if (workfile_check(partial,
                                  c.restart     ? WORKFILE_RESUME
                                  : c.overwrite ? WORKFILE_DISCARD
                                                : WORKFILE_NEW,
                                  why_partial, sizeof why_partial)) {
            snprintf(err, sizeof err, "%s %s: %s", c.restart ? "--restart" : "--output",
                     c.restart ? c.restart : path, why_partial);
            bad = 1;
        } else if (c.restart) {
            /* the stopped run's output goes on: the checks below are a new run's */
        } else if (c.overwrite && lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
            /* the finished file is renamed into place, which replaces a link */
            snprintf(err, sizeof err,
                     "--output %s: is a symbolic link; --overwrite would replace the link and "
                     "leave its target as it was: name the target itself, or remove the link",
                     path);
            bad = 1;
        } else if (!c.overwrite && lstat(path, &st) == 0) { /* a dangling link too */
            snprintf(err, sizeof err, "--output %s: file exists (pass --overwrite to replace it)",
                     path);
            bad = 1;
        } else if (xmf && !c.overwrite && access(xmf, F_OK) == 0) {
            snprintf(err, sizeof err,
                     "--output %s: its XDMF file %s exists (pass --overwrite to replace it)", path,
                     xmf);
            bad = 1;
        } else if (ck_path && c.checkpoint_file &&
                   (ck_why = place_problem(ck_path, &ck_dir)) != NULL) {
            /* found now, not at the first checkpoint, maybe hours later */
            snprintf(err, sizeof err, "--checkpoint-file %s: cannot write in directory %s: %s",
                     ck_path, ck_dir ? ck_dir : "", ck_why);
            bad = 1;
        } else if (file_collision(path, xmf, ck_path, c.checkpoint_file != NULL, err, sizeof err)) {
            bad = 1;
        } else if (ck_path && stat(ck_path, &st) == 0 && S_ISDIR(st.st_mode)) {
            snprintf(err, sizeof err, "--checkpoint-file %s: is a directory", ck_path);
            bad = 1;
        } else if (ck_path && !c.restart && !c.overwrite && access(ck_path, F_OK) == 0) {
            /* a stopped or failed run's checkpoint is not written over unasked */
            snprintf(err, sizeof err,
                     "--output %s: the checkpoint %s of a stopped or failed run exists: resume it "
                     "(qmol run --restart %s), or pass --overwrite to start anew",
                     path, ck_path, ck_path);
            bad = 1;
        }
        free(dir);
        free(partial);
        free(ck_path);
        free(ck_dir);
    }
    if (comm_agree(comm, bad, err, sizeof err)) {
        SAY("qmol: error: %s\n", err);
        goto done;
    }
    int checkpoints = c.restart || c.checkpoint_sim > 0.0 || c.checkpoint_wall > 0.0;
    if (checkpoints && !can_checkpoint) {
        SAY("qmol: error: %s: not available for %s (it does not expose its discrete "
            "variables: qmol_problem.n_discrete, get_discrete, set_discrete)\n",
            c.restart ? "--restart" : "--checkpoint-every", def->name);
        goto done;
    }
    if ((int64_t)size > prob.n) {
        SAY("qmol: error: problem %s: %d ranks for %lld state%s: use at most %lld rank%s\n",
            def->name, size, (long long)prob.n, prob.n == 1 ? "" : "s", (long long)prob.n,
            prob.n == 1 ? "" : "s");
        goto done;
    }
    if (discrete_check(&prob, err, sizeof err) != 0) {
        SAY("qmol: error: problem %s: %s\n", def->name, err);
        goto done;
    }
    int assigns = integrator_has(c.method, INTEGRATOR_ASSIGNS);
    if (assigns && mixed_check_coupling(c.coupling, size, err, sizeof err)) {
        SAY("qmol: error: %s\n", err);
        goto done;
    }
    /* the method, or the mixed method's QSS block */
    const integrator_def *one_rank = c.method->one_rank_why                  ? c.method
                                     : assigns && c.qss_method->one_rank_why ? c.qss_method
                                                                             : NULL;
    if (size > 1 && one_rank) {
        SAY("qmol: error: %s: %s runs on one rank only (started on %d ranks; %s); on several "
            "ranks use %s\n",
            one_rank == c.method ? "--method" : "--qss-method", one_rank->name, size,
            one_rank->one_rank_why, one_rank->one_rank_instead);
        goto done;
    }
    if (size > 1 && integrator_has(c.method, INTEGRATOR_BDF) &&
        (c.linsol == LINSOL_KLU || c.linsol == LINSOL_BAND)) {
        SAY("qmol: error: --linsol %s: needs all states on one rank; on %d ranks use spgmr "
            "(block-Jacobi KLU preconditioner)\n",
            c.linsol == LINSOL_KLU ? "klu" : "band", size);
        goto done;
    }
    partition_options po;
    if (partition_for(&c, &prob, size, &po, err, sizeof err) != 0) {
        SAY("qmol: error: --partition %s: %s\n", c.partition, err);
        goto done;
    }
    if (run_memory_check(&c, &prob, &po, can_checkpoint, comm, err, sizeof err) != 0) {
        SAY("qmol: error: problem %s: %s\n", def->name, err);
        goto done;
    }
    const integrator_def *pure = NULL;
    if (assigns && size > 1 && po.kind == PARTITION_METIS &&
        mixed_vertex_classes(&c, &prob, &po, comm, &classes, &pure, err, sizeof err) != 0) {
        SAY("qmol: error: %s\n", err);
        goto done;
    }
    if (pure) { /* the partition and the memory of that method */
        run_alone(&c, pure, prob.n, rank);
        if (partition_for(&c, &prob, size, &po, err, sizeof err) != 0 ||
            run_memory_check(&c, &prob, &po, can_checkpoint, comm, err, sizeof err) != 0) {
            SAY("qmol: error: problem %s: %s\n", def->name, err);
            goto done;
        }
    }
    if (layout_build(&layout, &prob, &po, comm, err, sizeof err) != 0) {
        if (layout.partition_failed)
            SAY("qmol: error: --partition %s: %s\n", c.partition ? c.partition : "metis", err);
        else
            SAY("qmol: error: problem %s: %s\n", def->name, err);
        goto done;
    }
    model *mp = &layout.m;
    if (size > 1 && !c.quiet) print_partition(&layout);
    if (integrator_has(c.method, INTEGRATOR_ASSIGNS)) {
        if (assign_methods(&c, &prob, &layout, &assignment, &pure, err, sizeof err) != 0) {
            SAY("qmol: error: %s\n", err);
            goto done;
        }
        /* (the layout stays: on one rank or a block partition it is that
         * method's too; its memory is checked again) */
        if (pure) {
            run_alone(&c, pure, prob.n, rank);
            if (run_memory_check(&c, &prob, &po, can_checkpoint, comm, err, sizeof err) != 0) {
                SAY("qmol: error: problem %s: %s\n", def->name, err);
                goto done;
            }
        }
    }
    /* what runs (said in the summary and stored): CVODE's block spans the
     * ranks (a mixed run's BDF block chooses its own) */
    int bdf_all = integrator_has(c.method, INTEGRATOR_BDF_ALL);
    if (c.linsol == LINSOL_AUTO && bdf_all)
        c.linsol = cvode_choose_linsol(mp, layout_halo(&layout));
    if (bdf_all && c.linsol == LINSOL_SPGMR) c.precond = precond_resolve(c.precond, size > 1);
    integrator_options o = {
        .method = c.method,
        .reltol = c.reltol,
        .abstol = c.abstol,
        .t0 = prob.t0,
        .tf = c.tf,
        .samples = c.samples,
        .sample_times = plan.times,
        .use_jacobian = c.use_jacobian,
        .linsol = c.linsol,
        .max_order = c.max_order,
        .precond = c.precond,
        .halo = layout_halo(&layout),
        .window = c.window,
        .window_min = c.window_min,
        .window_max = c.window_max,
        .qss_method = c.qss_method,
        .assignment = assignment,
        .coupling = c.coupling,
        /* CVODE handles every event on every rank:
         * rank 0 keeps the list */
        .on_discrete = integrator_has(c.method, INTEGRATOR_EVENTS_ON_EVERY_RANK) && rank > 0
                           ? NULL
                           : log_event,
        .discrete_ctx = &events};
    h5out_meta meta = {.problem = def->name,
                       .method = c.method->name,
                       .linsol = bdf_all ? linsol_name(c.linsol) : NULL,
                       .precond = bdf_all ? precond_name(c.linsol, c.precond) : NULL,
                       .reltol = c.reltol,
                       .abstol = c.abstol,
                       .t0 = prob.t0,
                       .tf = c.tf,
                       .samples = c.samples,
                       .def = def,
                       .param_values = values,
                       .prob = &prob,
                       .comm = comm,
                       .deflate = c.compress,
                       .replace = c.overwrite,
                       .keep = plan.has_rule ? output_plan_keep : NULL,
                       .keep_ctx = &plan,
                       .keep_rule = c.output_states};
    ckpt_info resume;
    memset(&resume, 0, sizeof resume);
    if (c.restart && ckpt_read_info(c.restart, &resume, err, sizeof err) == 0 &&
        resume.n != prob.n) {
        snprintf(err, sizeof err, "--restart %s: the checkpoint has %lld states, the problem %lld",
                 c.restart, (long long)resume.n, (long long)prob.n);
        resume.n = -1;
    }
    if (c.restart && resume.n == prob.n &&
        resume_mismatch(&resume, &plan, prob.t0, c.tf, c.restart, err, sizeof err))
        resume.n = -1;
    if (c.restart && comm_agree(comm, resume.n == prob.n ? 0 : 1, err, sizeof err)) {
        SAY("qmol: error: %s\n", err);
        ckpt_info_free(&resume);
        goto done;
    }
    free(resume.args), free(resume.output); /* its t and next_sample stay */
    resume.args = resume.output = NULL;
    keep_partial = c.restart != NULL; /* the stopped run's samples */
    out = c.restart ? h5out_reopen(path, &meta, resume.next_sample, err, sizeof err)
                    : h5out_create(path, &meta, err, sizeof err);
    if (!out) { /* about the file, or the --output-states selection */
        int selection = !strncmp(err, "--output-states", 15);
        SAY("qmol: error: %s%s%s%s\n", selection ? "" : "--output ", selection ? "" : path,
            selection ? "" : ": ", err);
        goto done;
    }
    if (h5out_get_grid(out, &grid) != 0) {
        SAY("qmol: error: out of memory\n");
        goto done;
    }
    if (xmf && grid.ndims == 0) { /* --output-states kept no box of cells */
        if (rank == 0 && !c.quiet)
            printf("qmol: note: --output-states \"%s\" keeps no box of grid cells: no /fields "
                   "views and no XDMF sidecar\n",
                   c.output_states);
        free(xmf);
        xmf = NULL;
        stale_xmf = xdmf_path(path); /* an old one (--overwrite) would not match */
    }
    sink.out = out;
    sink.layout = &layout;
    if (write_partition(out, &layout, prob.n, assignment, err, sizeof err) != 0) {
        SAY("qmol: error: --output %s: %s\n", path, err);
        goto done;
    }
    qmol_stats stats;
    memset(&stats, 0, sizeof stats);
    stats.wall_partition = layout.wall_partition;
    int qss_engine = integrator_has(c.method, INTEGRATOR_QSS_ENGINE);
    if (qss_engine) { /* /activity: events per state */
        activity = calloc((size_t)mp->n + 1, sizeof *activity);
        if (comm_agree(comm, activity ? 0 : -1, NULL, 0)) {
            SAY("qmol: error: out of memory for the event counts\n");
            goto done;
        }
        o.activity = activity;
        if (c.activity_per_sample) {
            sink.activity = activity;
            sink.previous = calloc((size_t)mp->n + 1, sizeof *sink.previous);
            sink.delta = calloc((size_t)mp->n + 1, sizeof *sink.delta);
            if (comm_agree(comm, sink.previous && sink.delta ? 0 : -1, NULL, 0)) {
                SAY("qmol: error: out of memory for the event counts\n");
                goto done;
            }
        }
    }
    /* checkpoints and SIGTERM/SIGINT */
    if (can_checkpoint) {
        if (!c.checkpoint_off && !(c.checkpoint_sim > 0.0) && !(c.checkpoint_wall > 0.0))
            c.checkpoint_wall = CHECKPOINT_DEFAULT_WALL;
        if (checkpointer_init(&ck, &c, path, &layout, plan.times, plan.samples, prob.t0,
                              activity) != 0) {
            SAY("qmol: error: out of memory for checkpoints\n");
            goto done;
        }
        have_ck = 1;
        ck.out = out;
        ck.stats = &stats;
        ck.global_once = integrator_has(c.method, INTEGRATOR_GLOBAL_COUNTERS);
        o.window_end = checkpoint_window_end;
        o.stop_requested = checkpoint_stop_requested;
        o.window_ctx = &ck;
        o.window_cap = c.checkpoint_sim > 0.0 ? c.checkpoint_sim : (c.tf - prob.t0) / 1000.0;
    }
    if (c.restart) {
        if (checkpoint_restore(&ck, c.restart, activity, err, sizeof err) != 0) {
            SAY("qmol: error: %s\n", err);
            goto done;
        }
        if (sink.previous) memcpy(sink.previous, activity, (size_t)mp->n * sizeof *activity);
        o.run_t0 = o.t0;
        o.t0 = resume.t;
        o.resume = &ck.loader.io;
        o.first_sample = resume.next_sample;
        ck.sim_base = resume.t;
        ck.next_sim = resume.t + c.checkpoint_sim;
        ck.t_last = resume.t; /* the checkpoint in place */
        if (rank == 0 && !c.quiet)
            printf("qmol: resuming from %s at t = %.17g (sample %lld of %lld next)\n", c.restart,
                   resume.t, (long long)resume.next_sample, (long long)c.samples);
    }
    /* a rate that follows t, left undeclared, costs QSS of order 2 many
     * events: say so (rank 0 alone: the rows are the problem's) */
    time_probe_hit hit;
    if (rank == 0 && qss_engine && time_probe(&prob, c.tf, &hit) == 1)
        fprintf(stderr,
                "qmol: warning: %s: f_%lld changes with t at fixed inputs (%.17g at t = %g, "
                "%.17g at t = %g) but the problem has explicit_time = 0: set explicit_time = 1 "
                "in its qmol_problem (qmol.h), or the QSS methods of order 2 miss df/dt and "
                "take many more events\n",
                def->name, (long long)hit.row, hit.f0, hit.t0, hit.f1, hit.t1);
    progress prog;
    progress_init(&prog, comm, prob.t0, o.t0, c.tf, c.quiet, c.verbose, c.progress,
                  qss_engine ? "events" : "steps");
    o.progress = &prog;
    stats.wall_setup = wallclock_seconds() - w0;
    int irc = c.method->integrate(mp, &o, sample_to_file, &sink, &stats, err, sizeof err);
    progress_end(&prog);
    if (have_ck) checkpoint_restore_end(&ck); /* the integrator has read it */
    if (irc == QMOL_STOPPED) { /* a signal: the output so far stays, the checkpoint says where */
        h5out_suspend(out, err, sizeof err);
        out = NULL;
        SAY("qmol: stopped by signal %d at t = %.17g: checkpoint %s, samples so far in %s.partial; "
            "resume with: qmol run --restart %s\n",
            ck.signal, ck.t_last, ck.path, path, ck.path);
        rc = QMOL_STOPPED;
        goto done;
    }
    if (irc == INTEGRATOR_UNSUITED) { /* the method cannot follow the problem */
        SAY("qmol: error: %s on %s: %s\n", c.method->name, def->name, err);
        /* (the partial output stays where a checkpoint refers to it) */
        drop_output(out, c.restart || (have_ck && !isnan(ck.t_last)));
        out = NULL;
        rc = INTEGRATOR_UNSUITED;
        goto done;
    }
    if (irc != 0 && c.restart && ck.loader.io.why) { /* the integrator's state is not there */
        /* the file's own errors name it; the integrator's checks do not */
        int named = !strncmp(err, c.restart, strlen(c.restart));
        SAY("qmol: error: --restart %s%s%s\n", named ? "" : c.restart, named ? "" : ": ", err);
        rc = 2;
        goto done;
    }
    /* a failure: the last window end kept in memory becomes the checkpoint;
     * a checkpoint that could not be written (the failure, or this one)
     * says why */
    char write_err[sizeof ck.err + 2] = "", kept_err[sizeof ck.err + 64] = "";
    char failure[1100];
    if (irc != 0 && have_ck && ck.err[0]) snprintf(write_err, sizeof write_err, ": %s", ck.err);
    /* (not after a failed write of the output: a checkpoint refers to it) */
    if (irc != 0 && have_ck && !h5out_error(out) && checkpoint_write_kept(&ck) != 0 &&
        strcmp(write_err + 2, ck.err))
        snprintf(kept_err, sizeof kept_err, "; the last window's could not be written: %s", ck.err);
    keep_partial = c.restart || (have_ck && !isnan(ck.t_last)); /* a checkpoint refers to it */
    if (irc != 0 && have_ck && !isnan(ck.t_last)) {             /* keep what a restart needs */
        SAY("qmol: error: %s on %s: %s%s (the last checkpoint, at t = %.17g, is %s: qmol run "
            "--restart %s%s)\n",
            c.method->name, def->name, the_failure(err, write_err, out, failure, sizeof failure),
            write_err, ck.t_last, ck.path, ck.path, kept_err);
        h5out_suspend(out, err, sizeof err);
        out = NULL;
        rc = 1;
        goto done;
    }
    if (irc != 0) {
        SAY("qmol: error: %s on %s: %s%s%s\n", c.method->name, def->name,
            the_failure(err, write_err, out, failure, sizeof failure), write_err, kept_err);
        drop_output(out, keep_partial);
        out = NULL;
        rc = 1;
        goto done;
    }
    if (events.failed) {
        SAY("qmol: error: out of memory keeping the zero crossings for /events\n");
        drop_output(out, keep_partial);
        out = NULL;
        rc = 1;
        goto done;
    }
    if (activity && write_activity(out, &layout, activity, err, sizeof err) != 0) {
        SAY("qmol: error: --output %s: %s\n", path, err);
        drop_output(out, keep_partial);
        out = NULL;
        rc = 1;
        goto done;
    }
    if (problem_has_discontinuities(&prob) &&
        h5out_events(out, events.count, events.time, events.crossing, events.direction, err,
                     sizeof err) != 0) {
        SAY("qmol: error: --output %s: %s\n", path, err);
        drop_output(out, keep_partial);
        out = NULL;
        rc = 1;
        goto done;
    }
    stats.wall_total = wallclock_seconds() - w0;
    if (integrator_has(c.method, INTEGRATOR_GLOBAL_COUNTERS)) stats_count_global_once(&stats, rank);
    if (c.restart) stats_carry_over(&stats, &ck.before, rank); /* /stats: the whole run */
    qmol_stats total = stats_reduce(&stats, comm);
    if (h5out_finish(out, &stats, err, sizeof err) != 0) {
        out = NULL;
        SAY("qmol: error: --output %s: %s\n", path, err);
        rc = 1;
        goto done;
    }
    out = NULL;
    if (stale_xmf && rank == 0) unlink(stale_xmf);
    if (have_ck && rank == 0) unlink(ck.path); /* the run is complete: nothing to resume */
    int bad_xmf = xmf && rank == 0 &&
                  xdmf_write(path, &prob, &grid, plan.times, c.samples, err, sizeof err) != 0;
    if (comm_agree(comm, bad_xmf, err, sizeof err)) {
        SAY("qmol: error: --output %s: %s (the HDF5 file is complete)\n", path, err);
        rc = 1;
        goto done;
    }
    double peak_mb = 0.0, per_state = peak_bytes_per_state(&layout, prob.n, &peak_mb);
    if (!c.quiet && rank == 0)
        print_summary(&c, &prob, path, xmf, &total, size, per_state, peak_mb);
    rc = 0;
done:
    if (out) drop_output(out, keep_partial);
    if (have_ck) checkpointer_free(&ck);
    initial_clear();
    layout_free(&layout);
    free(assignment), free(classes), free(activity), free(sink.previous), free(sink.delta);
    free(events.time), free(events.crossing), free(events.direction);
    if (prob.destroy) prob.destroy(prob.data);
    free(values);
    free(path), free(xmf), free(stale_xmf), free(grid.component);
    output_plan_free(&plan);
    return rc;
}
