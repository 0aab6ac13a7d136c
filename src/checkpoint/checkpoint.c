/* checkpoint.c: checkpoints, graceful stops and restarts (checkpoint.h). */
#include "checkpoint/checkpoint.h"

#include "comm/agree.h"
#include "io/h5out.h"
#include "comm/halo.h"
#include "core/initial.h"
#include "core/wallclock.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t received;

/* SIGTERM / SIGINT: stop at the next agreed window end with a checkpoint.
 * Schedulers and tools send the signal more than once (GNU timeout signals
 * the child, then its process group; Slurm repeats it; Open MPI's mpirun
 * sends SIGTERM to the other ranks as soon as one has exited with the stop's
 * code 3), so repeats are ignored while the stop goes on; SIGQUIT and
 * SIGKILL end the process at once. Before, the handler went back to SIG_DFL
 * after the first signal and 3 of 10 `timeout 3 qmol run ...` died with 143
 * and no checkpoint. */
static void on_signal(int sig) {
    received = sig;
}

/* sigaction, not signal(): under _POSIX_C_SOURCE glibc's signal() has System V
 * semantics (SA_RESETHAND), so the first SIGTERM put SIG_DFL back and the
 * second killed the rank (143 in 2 of 8 double-SIGTERM runs on 2 ranks).
 * SA_RESTART: a signal during a write or an MPI wait does not fail it. */
static void set_handler(int sig, void (*handler)(int)) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = handler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigaction(sig, &action, NULL);
}

int checkpoint_stop_requested(void *unused, double t) {
    (void)unused, (void)t;
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
    k->sim_base = t0;
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
    if (ok) { /* touched now, not in the first checkpoint or kept window */
        memset(k->x, 0, ((size_t)layout->m.n_cols + 1) * sizeof *k->x);
        memset(k->xblock, 0, ((size_t)k->block_count + 1) * sizeof *k->xblock);
        memset(k->ablock, 0, ((size_t)k->block_count + 1) * sizeof *k->ablock);
    }
    if (comm_agree(k->comm, ok ? 0 : -1, NULL, 0)) {
        checkpointer_free(k);
        return -1;
    }
    last_window_init(&k->kept, layout->m.n);
    k->keep = checkpoint_keeps_window(c);
    if (k->keep) {
        double fixed, per_entry;
        integrator_kept(c->method, &fixed, &per_entry);
        /* mLIQSS: one field per entry of the longest row of all ranks */
        int row = layout->m.max_row;
        if (k->size > 1) MPI_Allreduce(MPI_IN_PLACE, &row, 1, MPI_INT, MPI_MAX, k->comm);
        last_window_reserve(&k->kept, (size_t)((fixed + per_entry * row) * layout->m.n) + 1024);
    }
    /* until a check has timed a keep and knows the windows' pace */
    k->keep_every = CHECKPOINT_POLL_WINDOWS;
    k->poll_wall = k->wall0;
    received = 0;
    set_handler(SIGTERM, on_signal);
    set_handler(SIGINT, on_signal);
    return 0;
}

void checkpointer_free(checkpointer *k) {
    checkpoint_restore_end(k);
    /* after a stop the process only exits: a late repeat of the signal
     * (timeout's to the process group) must not turn exit 3 into 143 */
    set_handler(SIGTERM, received ? SIG_IGN : SIG_DFL);
    set_handler(SIGINT, received ? SIG_IGN : SIG_DFL);
    free(k->path), free(k->x), free(k->xblock), free(k->ablock);
    initial_values_free(&k->start);
    last_window_free(&k->kept);
    free(k->info.args), free(k->info.output);
    memset(k, 0, sizeof *k);
}

/* A checkpoint file as a state_io: fields are owned values (NULL: zeros),
 * moved to and from this rank's directory block. */
typedef struct checkpoint_io field_io;

/* rc of a step on f; a failure's reason goes to io->why. */
static int noted(state_io *io, ckpt_file *f, int rc) {
    if (rc == 0) return 0;
    io->why = ckpt_error(f);
    return -1;
}

static int file_field(state_io *io, const char *name, double *owned) {
    field_io *f = (field_io *)io;
    if (!io->loading) {
        if (owned)
            layout_to_block(f->k->layout, owned, f->k->ablock);
        else
            memset(f->k->ablock, 0, (size_t)f->k->block_count * sizeof *f->k->ablock);
    }
    if (noted(io, f->file, ckpt_block(f->file, name, f->k->ablock))) return -1;
    if (io->loading) layout_from_block(f->k->layout, f->k->ablock, owned);
    return 0;
}

static int file_vector(state_io *io, const char *name, int64_t len, double *values) {
    field_io *f = (field_io *)io;
    return noted(io, f->file, ckpt_vector(f->file, name, len, values));
}

static int file_scalar(state_io *io, const char *name, double *value) {
    field_io *f = (field_io *)io;
    return noted(io, f->file, ckpt_scalar(f->file, name, value));
}

static int file_has_field(state_io *io, const char *name) {
    return ckpt_has_block(((field_io *)io)->file, name);
}

static int file_has_scalar(state_io *io, const char *name) {
    return ckpt_has_scalar(((field_io *)io)->file, name);
}

static field_io file_io(checkpointer *k, ckpt_file *f, int loading) {
    return (field_io){{.loading = loading,
                       .field = file_field,
                       .scalar = file_scalar,
                       .vector = file_vector,
                       .has_field = file_has_field,
                       .has_scalar = file_has_scalar},
                      k,
                      f};
}

/* The integrator's state as it goes to and comes from a checkpoint's
 * content (to): fields and vectors in group CKPT_INTEGRATOR, scalars as
 * they are. */
typedef struct checkpoint_group integrator_io;

/* prefix then name into out (cut to cap - 1 characters, as snprintf would;
 * the names are short). Kept windows make names at every window end, where
 * snprintf's cost showed. */
static void join_name(char *out, size_t cap, const char *prefix, const char *name) {
    size_t a = strlen(prefix), b = strlen(name);
    if (a > cap - 1) a = cap - 1;
    if (b > cap - 1 - a) b = cap - 1 - a;
    memcpy(out, prefix, a);
    memcpy(out + a, name, b);
    out[a + b] = '\0';
}

static int integrator_field(state_io *io, const char *name, double *owned) {
    state_io *to = ((integrator_io *)io)->to;
    char path[128];
    join_name(path, sizeof path, CKPT_INTEGRATOR "/", name);
    int rc = to->field(to, path, owned);
    io->why = to->why;
    return rc;
}

static int integrator_vector(state_io *io, const char *name, int64_t len, double *values) {
    state_io *to = ((integrator_io *)io)->to;
    char path[128];
    join_name(path, sizeof path, CKPT_INTEGRATOR "/", name);
    int rc = to->vector(to, path, len, values);
    io->why = to->why;
    return rc;
}

static int integrator_scalar(state_io *io, const char *name, double *value) {
    state_io *to = ((integrator_io *)io)->to;
    int rc = to->scalar(to, name, value);
    io->why = to->why;
    return rc;
}

static int integrator_has_field(state_io *io, const char *name) {
    state_io *to = ((integrator_io *)io)->to;
    char path[128];
    join_name(path, sizeof path, CKPT_INTEGRATOR "/", name);
    return !to->has_field || to->has_field(to, path);
}

static int integrator_has_scalar(state_io *io, const char *name) {
    state_io *to = ((integrator_io *)io)->to;
    return !to->has_scalar || to->has_scalar(to, name);
}

static double *integrator_field_room(state_io *io, int ahead) {
    state_io *to = ((integrator_io *)io)->to;
    return to->field_room ? to->field_room(to, ahead) : NULL;
}

static integrator_io integrator_view(state_io *to) {
    return (integrator_io){{.loading = to->loading,
                            .field = integrator_field,
                            .scalar = integrator_scalar,
                            .vector = integrator_vector,
                            .has_field = integrator_has_field,
                            .has_scalar = integrator_has_scalar,
                            .field_room = integrator_field_room},
                           to};
}

/* The problem's discrete variables (qmol.h: get_discrete, set_discrete),
 * the same on every rank, as vector problem_discrete. */
static int problem_discrete(checkpointer *k, state_io *io) {
    const qmol_problem *p = k->layout->m.problem;
    if (p->n_discrete <= 0) return 0;
    double *v = malloc((size_t)p->n_discrete * sizeof *v);
    if (comm_agree(k->comm, v ? 0 : -1, NULL, 0)) {
        free(v);
        io->why = "out of memory for the problem's discrete variables";
        return -1;
    }
    if (!io->loading) p->get_discrete(p->data, v);
    int rc = io->vector(io, "problem_discrete", p->n_discrete, v);
    if (rc == 0 && io->loading) p->set_discrete(p->data, v);
    free(v);
    return rc;
}

/* The statistics as scalars stats.NAME: totals over ranks, windows as rank
 * 0 counts them (stats.h, stats_carry_over). Loading (from reader), a field
 * is also read under its former name, and one added since is 0 when absent
 * (the stopped run's part of it is not known). */
static int stats_io(state_io *io, qmol_stats *s, ckpt_file *reader) {
    char name[64];
    for (size_t i = 0; i < stats_nfields; i++) {
        join_name(name, sizeof name, "stats.", stats_fields[i].name);
        if (reader && !ckpt_has_scalar(reader, name)) {
            if (stats_fields[i].added) continue;
            if (stats_fields[i].former)
                join_name(name, sizeof name, "stats.", stats_fields[i].former);
        }
        double v = stats_fields[i].is_double ? *stats_wall(s, i) : (double)*stats_counter(s, i);
        if (io->scalar(io, name, &v)) return -1;
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
    qmol_stats all = k->size > 1 ? stats_reduce(&mine, k->comm) : mine;
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

/* The states at t in k->x; 0 when they are finite and no rank failed in
 * the window (collective), 1 otherwise (the integrator reports it). */
static int states_at(checkpointer *k, double t, const integrator_state *s) {
    s->states(s->ictx, t, k->x);
    int finite = !s->failed;
    for (int32_t j = 0; j < k->layout->m.n && finite; j++)
        finite = isfinite(k->x[j]);
    return comm_agree(k->comm, finite ? 0 : 1, NULL, 0) ? 1 : 0;
}

/* A checkpoint's content at a window end, to io (saving): the states (in
 * k->x), the event counts, the integrator's own state, the statistics so
 * far and the problem's discrete variables. Collective. */
static int content(checkpointer *k, const integrator_state *s, state_io *io) {
    qmol_stats so_far = stats_so_far(k, s);
    integrator_io own = integrator_view(io);
    int rc = io->field(io, "x", k->x) || io->field(io, "activity", (double *)k->activity) ||
             (s->save && s->save(s->ictx, &own.io)) || stats_io(io, &so_far, NULL) ||
             problem_discrete(k, io);
    if (rc && !io->why) io->why = own.io.why;
    return rc;
}

/* Writes a checkpoint at info t and next_sample whose content write(k, io)
 * passes to io (collective). The output is flushed first: the samples the
 * checkpoint counts as written must be on disk. */
static int write_file(checkpointer *k, double t, int64_t next_sample,
                      int (*write)(checkpointer *k, const integrator_state *s, state_io *io),
                      const integrator_state *s) {
    checkpoint_restore_end(k);
    if (k->out && h5out_flush(k->out, k->err, sizeof k->err)) return -1;
    k->info.t = t;
    k->info.next_sample = next_sample;
    ckpt_file *f = ckpt_create(k->path, k->comm, &k->info, k->block_first, k->block_count, k->err,
                               sizeof k->err);
    if (!f) return -1;
    field_io io = file_io(k, f, 0);
    int rc = write(k, s, &io.io);
    char why[sizeof k->err];
    snprintf(why, sizeof why, "%s", io.io.why ? io.io.why : ""); /* f is freed by the close */
    if (ckpt_close(f, !rc, k->err, sizeof k->err) || rc) {
        if (rc && why[0]) snprintf(k->err, sizeof k->err, "%s", why);
        return -1;
    }
    k->t_last = t;
    return 0;
}

/* Writes the checkpoint at t (collective). States that are not finite are
 * not written over the last good checkpoint. */
static int write_at(checkpointer *k, double t, const integrator_state *s) {
    if (states_at(k, t, s)) return 0; /* the run reports it */
    return write_file(k, t, samples_done(k, t) + 1, content, s);
}

/* Keeps the checkpoint's content at t in memory (collective) in place of
 * the last kept, unless a rank failed in the window or a state is not
 * finite (the last kept stays). Running out of memory only means that no
 * window is kept (the checkpoints go on). */
static void keep_at(checkpointer *k, double t, const integrator_state *s) {
    double w0 = wallclock_seconds();
    if (states_at(k, t, s)) return; /* agreed: the integrator reports it */
    last_window_begin(&k->kept);
    int ok = content(k, s, &k->kept.io) == 0 && !k->kept.io.why;
    ok = comm_agree(k->comm, ok ? 0 : -1, NULL, 0) == 0;
    last_window_finish(&k->kept, ok, t, samples_done(k, t) + 1);
    k->kept_cost = wallclock_seconds() - w0;
    k->kept_total += k->kept_cost;
}

static int replay_kept(checkpointer *k, const integrator_state *s, state_io *io) {
    (void)s;
    return last_window_replay(&k->kept, io);
}

int checkpoint_keeps_window(const run_config *c) {
    return c->keep_last_window && !c->checkpoint_off;
}

int checkpoint_write_kept(checkpointer *k) {
    if (isnan(k->kept.t) || !(isnan(k->t_last) || k->kept.t > k->t_last)) return 0;
    return write_file(k, k->kept.t, k->kept.next_sample, replay_kept, NULL);
}

/* Rank 0: whether the records' budget allows one more now: all of them
 * within LAST_WINDOW_SHARE of the wall time so far plus
 * LAST_WINDOW_FREE_SECONDS (the last one's cost stands for the next's). */
static int keep_allowed(const checkpointer *k, double now) {
    return k->keep && k->kept_total + k->kept_cost <=
                          LAST_WINDOW_SHARE * (now - k->wall0) + LAST_WINDOW_FREE_SECONDS;
}

/* Several ranks, on rank 0: keep the last window every this many windows
 * until the next check (CHECKPOINT_POLL_WINDOWS: only at checks): every
 * window while the budget allows it up to the next check at the windows'
 * pace since the last one, else as often as LAST_WINDOW_SHARE allows. */
static int keep_every(const checkpointer *k, double now) {
    uint64_t windows = k->windows - k->poll_windows;
    double pace = windows > 0 ? (now - k->poll_wall) / (double)windows : 0.0;
    if (!k->keep || !(pace > 0.0) || !(k->kept_cost > 0.0)) return CHECKPOINT_POLL_WINDOWS;
    double ahead = CHECKPOINT_POLL_WINDOWS * pace;
    if (k->kept_total + CHECKPOINT_POLL_WINDOWS * k->kept_cost <=
        LAST_WINDOW_SHARE * (now + ahead - k->wall0) + LAST_WINDOW_FREE_SECONDS)
        return 1;
    double every = ceil(k->kept_cost / (LAST_WINDOW_SHARE * pace));
    return every < CHECKPOINT_POLL_WINDOWS ? (every > 1.0 ? (int)every : 1)
                                           : CHECKPOINT_POLL_WINDOWS;
}

/* The first base + k every after t (k whole), computed, not summed: far
 * from base a sum could stop moving. */
static double next_multiple(double base, double every, double t) {
    double next = base + every * (floor((t - base) / every) + 1.0);
    return next > t ? next : nextafter(t, INFINITY);
}

int checkpoint_at_window_end(void *ctx, double t, const integrator_state *s) {
    checkpointer *k = ctx;
    int sim_due = k->every_sim > 0.0 && t >= k->next_sim;
    int64_t done = samples_done(k, t);
    int at_sample = done > 0 && k->times[done - 1] == t;
    k->windows++;
    /* the same decision on every rank: where to check is known to all; in
     * between, the last window is kept every keep_every windows (agreed at
     * the last check) */
    if (k->size > 1 && !sim_due && !at_sample && k->windows % CHECKPOINT_POLL_WINDOWS != 0) {
        if (k->keep && !s->keep_not_here && k->windows % k->keep_every == 0) keep_at(k, t, s);
        return 0;
    }
    double now = k->rank == 0 ? wallclock_seconds() : 0.0;
    int flags[5] = {
        received, k->rank == 0 && k->every_wall > 0.0 && now - k->last_wall >= k->every_wall,
        s->failed, k->rank == 0 && keep_allowed(k, now), k->rank == 0 ? keep_every(k, now) : 0};
    if (k->size > 1) MPI_Allreduce(MPI_IN_PLACE, flags, 5, MPI_INT, MPI_MAX, k->comm);
    k->keep_every = flags[4];
    k->poll_wall = now;
    k->poll_windows = k->windows;
    if (flags[2]) return 0; /* the integrator reports it; the last checkpoint stays */
    if (!sim_due && !flags[0] && !flags[1]) {
        if (flags[3] && !s->keep_not_here) keep_at(k, t, s);
        return 0;
    }
    if (write_at(k, t, s)) return -1;
    if (sim_due) k->next_sim = next_multiple(k->sim_base, k->every_sim, t);
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
    k->reader_io = file_io(k, k->reader, 1);
    state_io *io = &k->reader_io.io;
    int rc = ckpt_block(k->reader, "x", k->xblock) ||
             ckpt_block(k->reader, "activity", k->ablock) || stats_io(io, &k->before, k->reader) ||
             problem_discrete(k, io);
    char msg[1024];
    if (rc && io->why && io->why != ckpt_error(k->reader)) /* not the file's: memory */
        snprintf(msg, sizeof msg, "--restart %s: %s", path, io->why);
    else
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
    ok = ok && initial_values_set(&k->start, gid, k->x, l->m.n_cols) == 0;
    free(gid);
    if (comm_agree(k->comm, ok ? 0 : -1, NULL, 0)) {
        snprintf(err, errlen, "out of memory for the restart's starting values");
        checkpoint_restore_end(k);
        return -1;
    }
    k->loader = integrator_view(&k->reader_io.io);
    return 0;
}

void checkpoint_restore_end(checkpointer *k) {
    if (!k->reader) return;
    char err[16];
    ckpt_close(k->reader, 0, err, sizeof err);
    k->reader = NULL;
}
