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

char *checkpoint_path(const run_config *c, const char *output) {
    return c->checkpoint_file ? strdup(c->checkpoint_file) : h5out_sibling_path(output, ".ckpt.h5");
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
    k->wall0 = wallclock_seconds();
    k->path = checkpoint_path(c, output);
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
    checkpoint_restore_end(k);
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    free(k->path), free(k->x), free(k->xblock), free(k->ablock);
    free(k->info.args), free(k->info.output);
    memset(k, 0, sizeof *k);
}

/* The integrator's fields and scalars go to and come from group
 * CKPT_INTEGRATOR of the file in io->ctx. */
typedef struct checkpoint_io field_io;

/* rc of a step on f; a failure's reason goes to io->why. */
static int noted(state_io *io, ckpt_file *f, int rc) {
    if (rc == 0) return 0;
    io->why = ckpt_error(f);
    return -1;
}

static int integrator_field(state_io *io, const char *name, double *owned) {
    field_io *f = (field_io *)io;
    char path[128];
    snprintf(path, sizeof path, "%s/%s", CKPT_INTEGRATOR, name);
    if (!io->loading) layout_to_block(f->k->layout, owned, f->k->ablock);
    if (noted(io, f->file, ckpt_block(f->file, path, f->k->ablock))) return -1;
    if (io->loading) layout_from_block(f->k->layout, f->k->ablock, owned);
    return 0;
}

static int integrator_vector(state_io *io, const char *name, int64_t len, double *values) {
    field_io *f = (field_io *)io;
    char path[128];
    snprintf(path, sizeof path, "%s/%s", CKPT_INTEGRATOR, name);
    return noted(io, f->file, ckpt_vector(f->file, path, len, values));
}

static int integrator_scalar(state_io *io, const char *name, double *value) {
    field_io *f = (field_io *)io;
    return noted(io, f->file, ckpt_scalar(f->file, name, value));
}

/* The problem's discrete variables (qmol.h: get_discrete, set_discrete),
 * the same on every rank, as dataset problem_discrete. */
static int problem_discrete(checkpointer *k, ckpt_file *f, int loading) {
    const qmol_problem *p = k->layout->m.problem;
    if (p->n_discrete <= 0) return 0;
    double *v = malloc((size_t)p->n_discrete * sizeof *v);
    if (comm_agree(k->comm, v ? 0 : -1, NULL, 0)) {
        free(v);
        snprintf(k->err, sizeof k->err, "out of memory for %lld discrete variables",
                 (long long)p->n_discrete);
        return -1;
    }
    if (!loading) p->get_discrete(p->data, v);
    int rc = ckpt_vector(f, "problem_discrete", p->n_discrete, v);
    if (rc == 0 && loading) p->set_discrete(p->data, v);
    free(v);
    return rc;
}

/* The statistics as scalars stats.NAME: totals over ranks, windows as rank
 * 0 counts them (stats.h, stats_carry_over). */
static int stats_io(ckpt_file *f, qmol_stats *s) {
    char name[64];
    for (size_t i = 0; i < stats_nfields; i++) {
        snprintf(name, sizeof name, "stats.%s", stats_fields[i].name);
        double v = stats_fields[i].is_double ? *stats_wall(s, i) : (double)*stats_counter(s, i);
        if (ckpt_scalar(f, name, &v)) return -1;
        if (stats_fields[i].is_double)
            *stats_wall(s, i) = v;
        else
            *stats_counter(s, i) = (uint64_t)v;
    }
    return 0;
}

/* The statistics of the run so far, over all ranks (collective). */
static qmol_stats stats_so_far(checkpointer *k, const integrator_state *s) {
    qmol_stats mine = k->stats ? *k->stats : (qmol_stats){0};
    if (s->stats) s->stats(s->ictx, &mine);
    if (k->global_once) stats_count_global_once(&mine, k->rank);
    mine.wall_total = wallclock_seconds() - k->wall0;
    uint64_t windows = mine.windows;
    qmol_stats all = k->size > 1 ? stats_reduce(&mine, k->comm) : mine;
    all.windows = windows; /* the same on every rank */
    stats_carry_over(&all, &k->before, 0);
    return all;
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
static int write_at(checkpointer *k, double t, const integrator_state *s) {
    run_layout *l = k->layout;
    s->states(s->ictx, t, k->x);
    int finite = 1;
    for (int32_t j = 0; j < l->m.n && finite; j++)
        finite = isfinite(k->x[j]);
    if (comm_agree(k->comm, finite ? 0 : 1, NULL, 0)) return 0; /* the run reports it */
    checkpoint_restore_end(k);
    qmol_stats so_far = stats_so_far(k, s);
    /* the samples the checkpoint counts as written must be on disk */
    if (k->out && h5out_flush(k->out, k->err, sizeof k->err)) return -1;
    k->info.t = t;
    k->info.next_sample = samples_done(k, t) + 1;
    ckpt_file *f = ckpt_create(k->path, k->comm, &k->info, k->block_first, k->block_count, k->err,
                               sizeof k->err);
    if (!f) return -1;
    layout_to_block(k->layout, k->x, k->xblock);
    int rc = ckpt_block(f, "x", k->xblock);
    if (k->activity)
        layout_to_block(k->layout, k->activity, k->ablock);
    else
        memset(k->ablock, 0, (size_t)k->block_count * sizeof *k->ablock);
    rc = rc || ckpt_block(f, "activity", k->ablock);
    field_io io = {
        {.field = integrator_field, .scalar = integrator_scalar, .vector = integrator_vector},
        k,
        f};
    rc = rc || (s->save && s->save(s->ictx, &io.io)) || stats_io(f, &so_far) ||
         problem_discrete(k, f, 0);
    char why[sizeof k->err];
    snprintf(why, sizeof why, "%s", ckpt_error(f)); /* f is freed by the close */
    if (ckpt_close(f, !rc, k->err, sizeof k->err) || rc) {
        if (rc && why[0]) snprintf(k->err, sizeof k->err, "%s", why);
        return -1;
    }
    k->t_last = t;
    return 0;
}

int checkpoint_window_end(void *ctx, double t, const integrator_state *s) {
    checkpointer *k = ctx;
    int sim_due = k->every_sim > 0.0 && t >= k->next_sim;
    int64_t done = samples_done(k, t);
    int at_sample = done > 0 && k->times[done - 1] == t;
    k->windows++;
    /* the same decision on every rank: where to check is known to all */
    if (k->size > 1 && !sim_due && !at_sample && k->windows % CHECKPOINT_POLL_WINDOWS != 0)
        return 0;
    int flags[3] = {received,
                    k->rank == 0 && k->every_wall > 0.0 &&
                        wallclock_seconds() - k->last_wall >= k->every_wall,
                    s->failed};
    if (k->size > 1) MPI_Allreduce(MPI_IN_PLACE, flags, 3, MPI_INT, MPI_MAX, k->comm);
    if (flags[2]) return 0; /* the integrator reports it; the last checkpoint stays */
    if (!sim_due && !flags[0] && !flags[1]) return 0;
    if (write_at(k, t, s)) return -1;
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
    k->reader = ckpt_open(path, k->comm, k->info.n, k->block_first, k->block_count, err, errlen);
    if (!k->reader) return -1;
    int rc = ckpt_block(k->reader, "x", k->xblock) ||
             ckpt_block(k->reader, "activity", k->ablock) || stats_io(k->reader, &k->before) ||
             problem_discrete(k, k->reader, 1);
    char msg[1024];
    snprintf(msg, sizeof msg, "--restart %s", ckpt_error(k->reader));
    int finite = 1;
    for (int64_t j = 0; !rc && finite && j < k->block_count; j++)
        finite = isfinite(k->xblock[j]);
    if (!rc && !finite)
        snprintf(msg, sizeof msg, "--restart %s: dataset x holds a value that is not finite", path);
    if (rc || comm_agree(k->comm, finite ? 0 : 1, msg, sizeof msg)) {
        snprintf(err, errlen, "%s", msg);
        checkpoint_restore_end(k);
        return -1;
    }
    layout_from_block(k->layout, k->xblock, k->x);
    if (activity) layout_from_block(k->layout, k->ablock, activity);
    if (l->size > 1) halo_exchange(&l->halo, k->x); /* the ghosts' values */
    int64_t *gid = malloc(((size_t)l->m.n_cols + 1) * sizeof *gid);
    int ok = gid != NULL;
    for (int32_t j = 0; ok && j < l->m.n_cols; j++)
        gid[j] = model_gid(&l->m, j);
    ok = ok && initial_set(gid, k->x, l->m.n_cols) == 0;
    free(gid);
    if (comm_agree(k->comm, ok ? 0 : -1, NULL, 0)) {
        snprintf(err, errlen, "out of memory for the restart's starting values");
        checkpoint_restore_end(k);
        return -1;
    }
    k->loader = (field_io){{.loading = 1,
                            .field = integrator_field,
                            .scalar = integrator_scalar,
                            .vector = integrator_vector},
                           k,
                           k->reader};
    return 0;
}

void checkpoint_restore_end(checkpointer *k) {
    if (!k->reader) return;
    char err[16];
    ckpt_close(k->reader, 0, err, sizeof err);
    k->reader = NULL;
}
