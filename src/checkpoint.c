/* checkpoint.c: checkpoints, graceful stops and restarts (checkpoint.h). */
#include "checkpoint.h"

#include "agree.h"
#include "h5out.h"
#include "halo.h"
#include "initial.h"
#include "wallclock.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t received;

static void on_signal(int sig) {
    received = sig;
    signal(sig, SIG_DFL); /* a second one ends the process at once */
}

int checkpoint_stop_requested(void) {
    return received != 0;
}

int checkpointer_init(checkpointer *k, const run_config *c, const char *output, run_layout *layout,
                      const double *times, int64_t samples, double t0, const double *activity) {
    memset(k, 0, sizeof *k);
    k->layout = layout;
    k->comm = layout->comm;
    k->rank = layout->rank;
    k->size = layout->size;
    k->every_sim = c->checkpoint_sim;
    k->every_wall = c->checkpoint_wall;
    k->next_sim = t0 + c->checkpoint_sim;
    k->last_wall = wallclock_seconds();
    k->times = times;
    k->samples = samples;
    k->activity = activity;
    k->t_last = NAN;
    k->path =
        c->checkpoint_file ? strdup(c->checkpoint_file) : h5out_sibling_path(output, ".ckpt.h5");
    k->info.args = strdup(c->args_text ? c->args_text : "");
    k->info.output = strdup(output);
    k->info.n = layout->m.problem->n;
    k->block_first = layout->size == 1 ? 0 : layout->to_blocks.block_first;
    k->block_count = layout->size == 1 ? k->info.n : layout->to_blocks.block_count;
    k->x = malloc(((size_t)layout->m.n_cols + 1) * sizeof *k->x);
    k->xblock = malloc(((size_t)k->block_count + 1) * sizeof *k->xblock);
    k->ablock = malloc(((size_t)k->block_count + 1) * sizeof *k->ablock);
    int ok = k->path && k->info.args && k->info.output && k->x && k->xblock && k->ablock;
    if (comm_agree(k->comm, ok ? 0 : -1, NULL, 0)) {
        checkpointer_free(k);
        return -1;
    }
    received = 0;
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    return 0;
}

void checkpointer_free(checkpointer *k) {
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    free(k->path), free(k->x), free(k->xblock), free(k->ablock);
    free(k->info.args), free(k->info.output);
    memset(k, 0, sizeof *k);
}

/* v, owned values, into `block` (this rank's directory block). */
static void owned_to_block(checkpointer *k, const double *v, double *block) {
    run_layout *l = k->layout;
    if (l->size == 1)
        memcpy(block, v, (size_t)l->m.n * sizeof *block);
    else
        redistribute(&l->to_blocks, v, block);
}

/* The samples at or before t: the next one to write is this + 1. */
static int64_t samples_done(const checkpointer *k, double t) {
    int64_t lo = 0, hi = k->samples; /* first index with times > t */
    while (lo < hi) {
        int64_t mid = (lo + hi) / 2;
        if (k->times[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Writes the checkpoint at t (collective). States that are not finite are
 * not written over the last good checkpoint. */
static int write_at(checkpointer *k, double t, void (*states)(void *, double, double *),
                    void *ictx) {
    run_layout *l = k->layout;
    states(ictx, t, k->x);
    int finite = 1;
    for (int32_t j = 0; j < l->m.n && finite; j++)
        finite = isfinite(k->x[j]);
    if (comm_agree(k->comm, finite ? 0 : 1, NULL, 0)) return 0; /* the run reports it */
    owned_to_block(k, k->x, k->xblock);
    if (k->activity)
        owned_to_block(k, k->activity, k->ablock);
    else
        memset(k->ablock, 0, (size_t)k->block_count * sizeof *k->ablock);
    /* the samples the checkpoint counts as written must be on disk */
    if (k->out && h5out_flush(k->out, k->err, sizeof k->err)) return -1;
    k->info.t = t;
    k->info.next_sample = samples_done(k, t) + 1;
    if (ckpt_write(k->path, k->comm, &k->info, k->block_first, k->block_count, k->xblock, k->ablock,
                   k->err, sizeof k->err))
        return -1;
    k->t_last = t;
    return 0;
}

int checkpoint_window_end(void *ctx, double t, void (*states)(void *ictx, double t, double *x),
                          void *ictx) {
    checkpointer *k = ctx;
    int sim_due = k->every_sim > 0.0 && t >= k->next_sim;
    int64_t done = samples_done(k, t);
    int at_sample = done > 0 && k->times[done - 1] == t;
    k->windows++;
    /* the same decision on every rank: where to check is known to all */
    if (k->size > 1 && !sim_due && !at_sample && k->windows % CHECKPOINT_POLL_WINDOWS != 0)
        return 0;
    int flags[2] = {received, k->rank == 0 && k->every_wall > 0.0 &&
                                  wallclock_seconds() - k->last_wall >= k->every_wall};
    if (k->size > 1) MPI_Allreduce(MPI_IN_PLACE, flags, 2, MPI_INT, MPI_MAX, k->comm);
    if (!sim_due && !flags[0] && !flags[1]) return 0;
    if (write_at(k, t, states, ictx)) return -1;
    if (sim_due)
        while (k->next_sim <= t)
            k->next_sim += k->every_sim;
    k->last_wall = wallclock_seconds();
    if (flags[0]) {
        k->signal = flags[0];
        return QMOL_STOPPED;
    }
    return 0;
}

int checkpoint_restore(checkpointer *k, const char *path, double *activity, char *err,
                       size_t errlen) {
    run_layout *l = k->layout;
    if (ckpt_read_block(path, k->comm, k->info.n, k->block_first, k->block_count, k->xblock,
                        k->ablock, err, errlen))
        return -1;
    if (l->size == 1) {
        memcpy(k->x, k->xblock, (size_t)l->m.n * sizeof *k->x);
        if (activity) memcpy(activity, k->ablock, (size_t)l->m.n * sizeof *activity);
    } else {
        redistribute_back(&l->to_blocks, k->xblock, k->x);
        if (activity) redistribute_back(&l->to_blocks, k->ablock, activity);
        halo_exchange(&l->halo, k->x); /* the ghosts' values */
    }
    int64_t *gid = malloc(((size_t)l->m.n_cols + 1) * sizeof *gid);
    int ok = gid != NULL;
    for (int32_t j = 0; ok && j < l->m.n_cols; j++)
        gid[j] = model_gid(&l->m, j);
    ok = ok && initial_set(gid, k->x, l->m.n_cols) == 0;
    free(gid);
    if (comm_agree(k->comm, ok ? 0 : -1, NULL, 0)) {
        snprintf(err, errlen, "out of memory for the restart's starting values");
        return -1;
    }
    return 0;
}
