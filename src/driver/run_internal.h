/* run_internal.h: what the phases of `qmol run` share (run.c runs them in
 * order; each lives in the file of its concern).
 *
 *   run_problem.c    resolve the problem, check it against the ranks and method
 *   run_files.c      plan the output and look at the file system first
 *   run_partition.c  partition and lay out the states, assign the mixed method's
 *   run_output.c     open the output, take the samples, finish the file
 *   run_resume.c     checkpoints and the restart from one
 *   run_report.c     the summary
 *
 * Every phase is collective and returns 0, or the exit code (run.h) after
 * saying why on rank 0 (run_say); every rank reaches the same verdict. */
#ifndef QMOL_RUN_INTERNAL_H
#define QMOL_RUN_INTERNAL_H

#include "checkpoint/checkpoint.h"
#include "driver/config.h"
#include "io/h5out.h"
#include "core/integrator.h"
#include "core/layout.h"
#include "core/method_log.h"
#include "driver/output_plan.h"
#include "partition/partition.h"
#include "core/progress.h"
#include "problems/registry.h"

#include <mpi.h>

/* The sample callback's context: the writer takes each rank's directory
 * block, so on several ranks the owned values move there first. */
typedef struct sample_sink {
    h5out *out;
    run_layout *layout;
    /* --activity samples: the owned states' event counts so far (updated by
     * the integrator), at the previous sample, and scratch for the change */
    const double *activity;
    double *previous, *delta;
} sample_sink;

/* The zero crossings of a run, kept for /events (17 bytes each). */
typedef struct event_log {
    double *time;
    int64_t *crossing;
    int8_t *direction;
    int64_t count, cap;
    int failed; /* out of memory: the run fails rather than drop events */
} event_log;

typedef struct run_ctx {
    run_config c; /* the options, resolved as the phases go (tf, method, solver) */
    MPI_Comm comm;
    int rank, size;
    double w0; /* wall clock at the start */
    char err[1024];
    const qmol_problem_def *def;
    double *values; /* the problem's parameters */
    qmol_problem prob;
    output_plan plan;
    char *path, *xmf, *stale_xmf; /* the output, its XDMF file, an old one to remove */
    int can_checkpoint;           /* all but problems whose discrete variables qmol cannot set */
    partition_options po;
    run_layout layout;
    int8_t *classes;           /* METIS's vertex classes (mixed, several ranks) */
    unsigned char *assignment; /* the mixed method's per owned state, or NULL */
    integrator_options o;
    h5out *out;
    h5out_grid grid;
    sample_sink sink;
    event_log events;
    double *activity; /* events per owned state (QSS engines) */
    qmol_stats stats;
    checkpointer ck;
    int have_ck, keep_partial; /* keep_partial: OUTPUT.partial outlives a failure */
    method_log methods;        /* what --method auto chose (integrator_options.methods) */
} run_ctx;

/* Errors and the summary come from rank 0. */
void run_say(const run_ctx *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* run_problem.c: the problem from --problem and --set (exit 2 on failure),
 * then whether it can run as asked: checkpoints, ranks, discontinuities,
 * the method's rank and solver limits. */
int run_resolve_problem(run_ctx *r);
int run_check_problem(run_ctx *r);

/* run_files.c: the sample times, the output's and XDMF file's names, and
 * rank 0's look at the file system (agreed). */
int run_plan_output(run_ctx *r);

/* run_partition.c: the partition, the memory check, the layout, and the
 * mixed method's assignment (a split with an empty block runs the other
 * method alone). */
int run_lay_out(run_ctx *r);
/* The methods of this rank's output block of states (several ranks: moved
 * there from the owners as the samples are). Returns NULL when out of
 * memory. Collective on several ranks. */
int8_t *run_methods_of_block(run_layout *l, int64_t n, const unsigned char *assignment);

/* run_output.c: the output file opened (or reopened on a restart) with the
 * partition and the event counts' storage; the sample callback; the
 * output finished after the integration (activity, events, /stats, XDMF). */
int run_open_output(run_ctx *r, const h5out_meta *meta);
int run_sample(void *ctx, int64_t k, double t, const double *x);
void run_log_event(void *ctx, double t, int64_t c, int direction);
int run_finish_output(run_ctx *r, qmol_stats *total);
/* Closes an output that will not be finished: removed, or kept as
 * PATH.partial for a restart when a checkpoint refers to it. */
void run_drop_output(run_ctx *r);

/* run_resume.c: the checkpoint's size, time and next sample (run_config's
 * restart_*) checked against the run (--restart), then checkpoints set up
 * and the integrator's state loaded. */
int run_check_resume(run_ctx *r);
int run_setup_checkpoints(run_ctx *r);

/* run_report.c: the summary of a finished run (rank 0), total the stats
 * over ranks. Collective (the memory figure). */
void run_report(run_ctx *r, const qmol_stats *total);

#endif
