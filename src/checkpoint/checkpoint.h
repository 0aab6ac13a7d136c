/* checkpoint.h: checkpoints during a run, stopping on SIGTERM/SIGINT, and
 * resuming from a checkpoint (`qmol run --restart`).
 *
 * At window ends (integrator_options.at_window_end) the run writes a checkpoint
 * when --checkpoint-every says so (simulated time: when t passed the next
 * multiple; wall time: rank 0's clock) or when a rank received SIGTERM or
 * SIGINT, and then stops. On several ranks the decision is agreed: every
 * rank checks at the same window ends (each sample, each simulated-time
 * checkpoint, and every CHECKPOINT_POLL_WINDOWS windows) with one Allreduce.
 * A checkpoint holds the states and event counts at t, the integrator's own
 * state (integrator_state.save: for QSS methods every polynomial, quantum,
 * next time and Jacobian estimate, the window length; CVODE and mixed runs
 * save none) and the statistics so far (io/ckpt.h). A resumed run reads
 * them back, on any number of ranks. On the same number of ranks a QSS run
 * then goes on exactly as the uninterrupted run would have; CVODE starts its
 * step history anew (SUNDIALS cannot restore it) and a mixed run both of
 * its blocks, which changes the result within the tolerance. At window
 * ends where it is cheap (last_window.h) the content of a checkpoint is kept
 * in memory instead; a failed run writes it (checkpoint_write_kept), so its
 * checkpoint is its last good window. See docs/reliability.md.
 */
#ifndef QMOL_CHECKPOINT_H
#define QMOL_CHECKPOINT_H

#include "io/ckpt.h"
#include "driver/config.h"
#include "core/initial.h"
#include "core/integrator.h"
#include "checkpoint/last_window.h"
#include "core/layout.h"

/* Exit code and integrator return code of a run stopped by a signal. */
#define QMOL_STOPPED INTEGRATOR_STOPPED
#define CHECKPOINT_POLL_WINDOWS 64
/* --checkpoint-every when not given (seconds of wall time): a long run never
 * loses more than this, and a run shorter than it writes no checkpoint. */
#define CHECKPOINT_DEFAULT_WALL 1800.0

typedef struct checkpointer {
    run_layout *layout;
    MPI_Comm comm;
    int rank, size;
    char *path;
    double every_sim, every_wall;         /* 0: not set */
    double sim_base, next_sim, last_wall; /* simulated-time checkpoints: base + k every */
    uint64_t windows;
    const double *times; /* the sample times, to count the samples written */
    int64_t samples;
    const double *activity;  /* owned event counts, or NULL */
    struct h5out *out;       /* the output, flushed before each checkpoint (set by the caller) */
    const qmol_stats *stats; /* the run's (this rank's), saved as totals (set by the caller) */
    int global_once;         /* INTEGRATOR_GLOBAL_COUNTERS (CVODE): count them once (stats.h) */
    double wall0;            /* when the run started (wall_total of a checkpoint) */
    ckpt_file *reader;       /* a restart: its checkpoint, open while the integrator loads */
    /* a restart: reader as a state_io (reader_io), and the integrator's
     * view of it, its group CKPT_INTEGRATOR (&loader.io is
     * integrator_options.resume) */
    struct checkpoint_io {
        state_io io;
        struct checkpointer *k;
        ckpt_file *file;
    } reader_io;
    struct checkpoint_group {
        state_io io;
        state_io *to;
    } loader;
    /* the content of the last window end kept in memory (last_window.h),
     * written by checkpoint_write_kept when the run fails */
    last_window kept;
    int keep;                     /* 1: keep windows (not with --checkpoint-every off) */
    double kept_cost, kept_total; /* how long the last keep took, and all together */
    int keep_every;               /* several ranks: keep every this many windows between checks */
    double poll_wall;             /* rank 0's clock at the last check */
    uint64_t poll_windows;        /* windows at the last check */
    qmol_stats before;            /* a restart: what the stopped run counted */
    initial_values start;         /* a restart: its states (integrator_options.start) */
    double *x, *xblock, *ablock;
    int64_t block_first, block_count; /* this rank's block of the checkpoint's states */
    ckpt_info info;                   /* args, output, n; t and next_sample per checkpoint */
    double t_last;                    /* time of the last checkpoint written, or NAN */
    int signal;                       /* the signal that stopped the run, or 0 */
    char err[512];                    /* why a checkpoint failed */
} checkpointer;

/* The checkpoint file of run c writing output: --checkpoint-file, or
 * OUTPUT.ckpt.h5 (malloc'd; NULL when out of memory). */
char *checkpoint_path(const run_config *c, const char *output);
/* Sets up the checkpoints of run c (output path, sample times, layout) and
 * installs the SIGTERM and SIGINT handlers. Returns 0, or -1 (out of memory). */
int checkpointer_init(checkpointer *k, const run_config *c, const char *output, run_layout *layout,
                      const double *times, int64_t samples, double t0, const double *activity);
/* integrator_options.at_window_end (ctx: the checkpointer). */
int checkpoint_at_window_end(void *ctx, double t, const integrator_state *s);
/* Whether run c keeps its last window in memory: --keep-last-window on,
 * and checkpoints not turned off. */
int checkpoint_keeps_window(const run_config *c);
/* After a failed run (collective): writes the window end kept in memory as
 * the checkpoint when it is newer than the last one written. Returns 0
 * (also when there is none), or -1 with k->err. */
int checkpoint_write_kept(checkpointer *k);
/* Restores the states (as starting values k->start, initial.h), the owned event
 * counts when activity is set, and the statistics so far (k->before) from
 * the checkpoint at path, and leaves it open for the integrator to load its
 * own state through &k->loader.io (integrator_options.resume). Collective. Returns
 * 0, or -1 with err (agreed). */
int checkpoint_restore(checkpointer *k, const char *path, double *activity, char *err,
                       size_t errlen);
/* Collective: closes the checkpoint checkpoint_restore opened. */
void checkpoint_restore_end(checkpointer *k);
/* integrator_options.stop_requested: 1 once SIGTERM or SIGINT arrived. */
int checkpoint_stop_requested(void *unused, double t);
/* Restores the default signal handlers and frees k (collective when a
 * restart's checkpoint is still open). */
void checkpointer_free(checkpointer *k);

#endif
