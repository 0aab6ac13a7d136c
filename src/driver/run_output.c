/* run_output.c: a run's output file, from its opening to its last write
 * (run_internal.h). */
#include "comm/agree.h"
#include "mixed/assign.h"
#include "core/big_alloc.h"
#include "core/discontinuities.h"
#include "core/integrator_registry.h"
#include "driver/run_internal.h"
#include "core/wallclock.h"
#include "io/xdmf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The owned values v in the writer's block (several ranks: moved there). */
static const double *to_block(run_layout *l, const double *v) {
    if (l->size == 1) return v; /* no copy */
    layout_to_block(l, v, l->block);
    return l->block;
}

int run_sample(void *ctx, int64_t k, double t, const double *x) {
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

void run_log_event(void *ctx, double t, int64_t c, int direction) {
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

void run_drop_output(run_ctx *r) {
    if (!r->out) return;
    if (!r->keep_partial) {
        h5out_abort(r->out);
    } else {
        char err[256];
        h5out_suspend(r->out, err, sizeof err);
    }
    r->out = NULL;
}

/* /partition: on one rank kind "single" (rank 0 owns everything); mixed runs
 * add each state's method. Collective. */
static int write_partition(h5out *out, run_layout *l, int64_t n, const unsigned char *assignment,
                           char *err, size_t errlen) {
    int32_t *single = l->size == 1 ? calloc((size_t)n, sizeof *single) : NULL;
    int8_t *methods = assignment ? run_methods_of_block(l, n, assignment) : NULL;
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

/* QSS engines: /activity's event counts per state, and with --activity
 * per sample the counts at the previous sample and their change. */
static int event_counts(run_ctx *r) {
    int32_t n = r->layout.m.n;
    r->activity = big_calloc((size_t)n + 1, sizeof *r->activity);
    if (comm_agree(r->comm, r->activity ? 0 : -1, NULL, 0)) return -1;
    r->o.activity = r->activity;
    if (!r->c.activity_per_sample) return 0;
    r->sink.activity = r->activity;
    r->sink.previous = calloc((size_t)n + 1, sizeof *r->sink.previous);
    r->sink.delta = calloc((size_t)n + 1, sizeof *r->sink.delta);
    return comm_agree(r->comm, r->sink.previous && r->sink.delta ? 0 : -1, NULL, 0);
}

int run_open_output(run_ctx *r, const h5out_meta *meta) {
    const run_config *c = &r->c;
    r->keep_partial = c->restart != NULL; /* the stopped run's samples */
    r->out = c->restart ? h5out_reopen(r->path, meta, c->restart_next_sample, r->err, sizeof r->err)
                        : h5out_create(r->path, meta, r->err, sizeof r->err);
    if (!r->out) { /* about the file, or the --output-states selection */
        int selection = !strncmp(r->err, "--output-states", 15);
        run_say(r, "qmol: error: %s%s%s%s\n", selection ? "" : "--output ",
                selection ? "" : r->path, selection ? "" : ": ", r->err);
        return 2;
    }
    if (h5out_get_grid(r->out, &r->grid) != 0) {
        run_say(r, "qmol: error: out of memory\n");
        return 2;
    }
    if (r->xmf && r->grid.ndims == 0) { /* --output-states kept no box of cells */
        if (r->rank == 0 && !c->quiet)
            printf("qmol: note: --output-states \"%s\" keeps no box of grid cells: no /fields "
                   "views and no XDMF sidecar\n",
                   c->output_states);
        free(r->xmf);
        r->xmf = NULL;
        r->stale_xmf = xdmf_path(r->path); /* an old one (--overwrite) would not match */
    }
    r->sink.out = r->out;
    r->sink.layout = &r->layout;
    /* (auto: the mixed method's split, which holds while /methods says
     * the mixed method runs) */
    if (write_partition(r->out, &r->layout, r->prob.n, r->assignment, r->err, sizeof r->err)) {
        run_say(r, "qmol: error: --output %s: %s\n", r->path, r->err);
        return 2;
    }
    r->stats.wall_partition = r->layout.wall_partition;
    if (integrator_has(c->method, INTEGRATOR_QSS_ENGINE) && event_counts(r) != 0) {
        run_say(r, "qmol: error: out of memory for the event counts\n");
        return 2;
    }
    return 0;
}

/* /activity and /events after the integration. Returns 0, or 1 (said, the
 * output dropped). */
/* /methods, for a run whose method changed as it ran (every rank holds the
 * same segments). Returns 0, or 1 with the output dropped. */
static int write_methods(run_ctx *r) {
    const method_log *ml = &r->methods;
    if (ml->count == 0) return 0;
    const char **name = malloc((size_t)ml->count * sizeof *name);
    for (int k = 0; name && k < ml->count; k++)
        name[k] = ml->method[k]->name;
    int bad = comm_agree(r->comm, name ? 0 : -1, NULL, 0) != 0;
    if (bad)
        snprintf(r->err, sizeof r->err, "out of memory listing the methods");
    else
        bad = h5out_methods(r->out, ml->count, ml->t, name, ml->bdf_states, !ml->failed,
                            ml->dropped ? ml->dropped_to : NAN, r->err, sizeof r->err) != 0;
    free(name);
    if (!bad) return 0;
    run_say(r, "qmol: error: --output %s: %s\n", r->path, r->err);
    run_drop_output(r);
    return 1;
}

static int write_activity_and_events(run_ctx *r) {
    event_log *ev = &r->events;
    if (ev->failed) {
        run_say(r, "qmol: error: out of memory keeping the zero crossings for /events\n");
        run_drop_output(r);
        return 1;
    }
    if (write_methods(r)) return 1;
    if ((r->activity &&
         h5out_activity(r->out, to_block(&r->layout, r->activity), r->err, sizeof r->err) != 0) ||
        (problem_has_discontinuities(&r->prob) &&
         h5out_events(r->out, ev->count, ev->time, ev->crossing, ev->direction, r->err,
                      sizeof r->err) != 0)) {
        run_say(r, "qmol: error: --output %s: %s\n", r->path, r->err);
        run_drop_output(r);
        return 1;
    }
    return 0;
}

int run_finish_output(run_ctx *r, qmol_stats *total) {
    if (write_activity_and_events(r)) return 1;
    qmol_stats *s = &r->stats;
    s->wall_total = wallclock_seconds() - r->w0;
    if (integrator_has(r->c.method, INTEGRATOR_GLOBAL_COUNTERS))
        stats_count_global_once(s, r->rank);
    if (r->c.restart) stats_carry_over(s, &r->ck.before, r->rank); /* /stats: the whole run */
    *total = stats_reduce(s, r->comm);
    h5out *out = r->out;
    r->out = NULL;
    if (h5out_finish(out, s, r->err, sizeof r->err) != 0) {
        run_say(r, "qmol: error: --output %s: %s\n", r->path, r->err);
        return 1;
    }
    if (r->stale_xmf && r->rank == 0) unlink(r->stale_xmf);
    if (r->have_ck && r->rank == 0) unlink(r->ck.path); /* complete: nothing to resume */
    int bad_xmf = r->xmf && r->rank == 0 &&
                  xdmf_write(r->path, &r->prob, &r->grid, r->plan.times, r->c.samples, r->err,
                             sizeof r->err) != 0;
    if (comm_agree(r->comm, bad_xmf, r->err, sizeof r->err)) {
        run_say(r, "qmol: error: --output %s: %s (the HDF5 file is complete)\n", r->path, r->err);
        return 1;
    }
    return 0;
}
