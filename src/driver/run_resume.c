/* run_resume.c: checkpoints of a run and the restart from one
 * (run_internal.h). */
#include "comm/agree.h"
#include "core/integrator_registry.h"
#include "driver/run_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether a checkpoint's time and sample cursor contradict each other or the
 * run (a damaged or edited checkpoint: an earlier next_sample rewrote samples
 * before it, exit 0): its time must lie in [t0, tf] and its next sample
 * follow the samples at or before that time. The reason goes to err. */
static int resume_mismatch(const run_config *c, const output_plan *plan, double t0, char *err,
                           size_t len) {
    double t = c->restart_t;
    if (!(t >= t0 && t <= c->tf)) {
        snprintf(err, len,
                 "--restart %s: the checkpoint's time t = %.17g is outside the run's "
                 "[%.17g, %.17g]: it is damaged",
                 c->restart, t, t0, c->tf);
        return 1;
    }
    int64_t before = 0, at_or_before = 0; /* samples strictly before t, and at or before it */
    for (int64_t k = 0; k < plan->samples; k++) {
        before += plan->times[k] < t;
        at_or_before += plan->times[k] <= t;
    }
    int64_t next = c->restart_next_sample;
    if (next - 1 >= before && next - 1 <= at_or_before) return 0;
    snprintf(err, len,
             "--restart %s: the checkpoint's next sample (%lld) does not follow its time "
             "t = %.17g (sample %lld is next there): it is damaged",
             c->restart, (long long)next, t, (long long)before + 1);
    return 1;
}

int run_check_resume(run_ctx *r) {
    const run_config *c = &r->c;
    if (!c->restart) return 0;
    /* (its time, next sample and size were read with its arguments: cli.c) */
    int bad = c->restart_n != r->prob.n;
    if (bad)
        snprintf(r->err, sizeof r->err,
                 "--restart %s: the checkpoint has %lld states, the problem %lld", c->restart,
                 (long long)c->restart_n, (long long)r->prob.n);
    else
        bad = resume_mismatch(c, &r->plan, r->prob.t0, r->err, sizeof r->err);
    if (comm_agree(r->comm, bad, r->err, sizeof r->err)) {
        run_say(r, "qmol: error: %s\n", r->err);
        return 2;
    }
    return 0;
}

/* The integrator's state loaded from the checkpoint; the run goes on from
 * its time and next sample. */
static int resume_from(run_ctx *r) {
    const run_config *c = &r->c;
    if (checkpoint_restore(&r->ck, c->restart, r->activity, r->err, sizeof r->err) != 0) {
        run_say(r, "qmol: error: %s\n", r->err);
        return 2;
    }
    if (r->sink.previous)
        memcpy(r->sink.previous, r->activity, (size_t)r->layout.m.n * sizeof *r->activity);
    integrator_options *o = &r->o;
    o->run_t0 = o->t0;
    o->t0 = c->restart_t;
    o->start = &r->ck.start;
    o->resume = &r->ck.loader.io;
    o->first_sample = c->restart_next_sample;
    r->ck.sim_base = c->restart_t;
    r->ck.next_sim = c->restart_t + c->checkpoint_sim;
    r->ck.t_last = c->restart_t; /* the checkpoint in place */
    if (r->rank == 0 && !c->quiet)
        printf("qmol: resuming from %s at t = %.17g (sample %lld of %lld next)\n", c->restart,
               c->restart_t, (long long)c->restart_next_sample, (long long)c->samples);
    return 0;
}

int run_setup_checkpoints(run_ctx *r) {
    run_config *c = &r->c;
    if (r->can_checkpoint) { /* checkpoints and SIGTERM/SIGINT */
        if (!c->checkpoint_off && !(c->checkpoint_sim > 0.0) && !(c->checkpoint_wall > 0.0))
            c->checkpoint_wall = CHECKPOINT_DEFAULT_WALL;
        if (checkpointer_init(&r->ck, c, r->path, &r->layout, r->plan.times, r->plan.samples,
                              r->prob.t0, r->activity) != 0) {
            run_say(r, "qmol: error: out of memory for checkpoints\n");
            return 2;
        }
        r->have_ck = 1;
        r->ck.out = r->out;
        r->ck.stats = &r->stats;
        r->ck.global_once = integrator_has(c->method, INTEGRATOR_GLOBAL_COUNTERS);
        r->o.at_window_end = checkpoint_at_window_end;
        r->o.stop_requested = checkpoint_stop_requested;
        r->o.window_ctx = &r->ck;
        r->o.window_cap =
            c->checkpoint_sim > 0.0 ? c->checkpoint_sim : (c->tf - r->prob.t0) / 1000.0;
    }
    return c->restart ? resume_from(r) : 0;
}
