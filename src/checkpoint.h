/* checkpoint.h: checkpoints during a run, stopping on SIGTERM/SIGINT, and
 * resuming from a checkpoint (`qmol run --restart`).
 *
 * At window ends (integrator_options.window_end) the run writes a checkpoint
 * when --checkpoint-every says so (simulated time: when t passed the next
 * multiple; wall time: rank 0's clock) or when a rank received SIGTERM or
 * SIGINT, and then stops. On several ranks the decision is agreed: every
 * rank checks at the same window ends (each sample, each simulated-time
 * checkpoint, and every CHECKPOINT_POLL_WINDOWS windows) with one Allreduce.
 * A checkpoint holds the states and event counts at t (io/ckpt.h); the run
 * resumes from them, on any number of ranks, with fresh integrator state:
 * the result agrees with an uninterrupted run to the tolerance, not bit for
 * bit (QSS quanta and CVODE's step history start anew at t).
 */
#ifndef QMOL_CHECKPOINT_H
#define QMOL_CHECKPOINT_H

#include "ckpt.h"
#include "config.h"
#include "integrator.h"
#include "layout.h"

/* Exit code and integrator return code of a run stopped by a signal. */
#define QMOL_STOPPED INTEGRATOR_STOPPED
#define CHECKPOINT_POLL_WINDOWS 64

typedef struct checkpointer {
    run_layout *layout;
    MPI_Comm comm;
    int rank, size;
    char *path;
    double every_sim, every_wall; /* 0: not set */
    double next_sim, last_wall;
    uint64_t windows;
    const double *times; /* the sample times, to count the samples written */
    int64_t samples;
    const double *activity; /* owned event counts, or NULL */
    struct h5out *out;      /* the output, flushed before each checkpoint (set by the caller) */
    double *x, *xblock, *ablock;
    int64_t block_first, block_count; /* this rank's block of the checkpoint's states */
    ckpt_info info;                   /* args, output, n; t and next_sample per checkpoint */
    double t_last;                    /* time of the last checkpoint written, or NAN */
    int signal;                       /* the signal that stopped the run, or 0 */
    char err[512];                    /* why a checkpoint failed */
} checkpointer;

/* Sets up the checkpoints of run c (output path, sample times, layout) and
 * installs the SIGTERM and SIGINT handlers. Returns 0, or -1 (out of memory). */
int checkpointer_init(checkpointer *k, const run_config *c, const char *output, run_layout *layout,
                      const double *times, int64_t samples, double t0, const double *activity);
/* integrator_options.window_end (ctx: the checkpointer). */
int checkpoint_window_end(void *ctx, double t, void (*states)(void *ictx, double t, double *x),
                          void *ictx);
/* Restores the states (as starting values, initial.h) and, when activity is
 * set, the owned event counts from the checkpoint at path. Collective.
 * Returns 0, or -1 with err (agreed). */
int checkpoint_restore(checkpointer *k, const char *path, double *activity, char *err,
                       size_t errlen);
/* integrator_options.stop_requested: 1 once SIGTERM or SIGINT arrived. */
int checkpoint_stop_requested(void);
/* Restores the default signal handlers and frees k. */
void checkpointer_free(checkpointer *k);

#endif
