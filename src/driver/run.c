/* run.c: `qmol run` as a sequence of phases (run_internal.h says which file
 * holds each): resolve the problem, plan the output, check the problem,
 * partition and lay out, choose the solver, open the output, set up
 * checkpoints, integrate, finish and report. */
#include "driver/run.h"

#include "core/integrator_registry.h"
#include "driver/run_internal.h"
#include "driver/run_options.h"
#include "driver/time_probe.h"
#include "core/wallclock.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void run_say(const run_ctx *r, const char *fmt, ...) {
    if (r->rank != 0) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

/* What runs (said in the summary and stored): CVODE's block spans the ranks
 * (a mixed run's BDF block chooses its own); then the integrator's options. */
static void choose_solver(run_ctx *r) {
    run_config *c = &r->c;
    int bdf_all = integrator_has(c->method, INTEGRATOR_BDF_ALL);
    if (c->linsol == LINSOL_AUTO && bdf_all) {
        c->linsol = cvode_choose_linsol(&r->layout.m, layout_halo(&r->layout));
        const char *precond = run_option_given(c, "precond");
        if (precond && c->linsol != LINSOL_SPGMR && r->rank == 0 && !c->quiet)
            printf("qmol: note: %s: --linsol auto chose %s here, a direct solver: no "
                   "preconditioner (--linsol spgmr takes one)\n",
                   precond, linsol_name(c->linsol));
    }
    if (bdf_all && c->linsol == LINSOL_SPGMR) c->precond = precond_resolve(c->precond);
    r->o = (integrator_options){
        .method = c->method,
        .reltol = c->reltol,
        .abstol = c->abstol,
        .t0 = r->prob.t0,
        .tf = c->tf,
        .samples = c->samples,
        .sample_times = r->plan.times,
        .use_jacobian = c->use_jacobian,
        .linsol = c->linsol,
        .max_order = c->max_order,
        .precond = c->precond,
        .cvode_norm = c->cvode_norm,
        .halo = layout_halo(&r->layout),
        .window = c->window,
        .window_min = c->window_min,
        .window_max = c->window_max,
        .qss_method = c->qss_method,
        .assignment = r->assignment,
        .coupling = c->coupling,
        /* CVODE handles every event on every rank: rank 0 keeps the list */
        .on_discrete = integrator_has(c->method, INTEGRATOR_EVENTS_ON_EVERY_RANK) && r->rank > 0
                           ? NULL
                           : run_log_event,
        .discrete_ctx = &r->events,
        .methods = &r->methods};
}

/* What the output file says of the run (h5out.h). */
static h5out_meta output_meta(const run_ctx *r) {
    const run_config *c = &r->c;
    int bdf_all = integrator_has(c->method, INTEGRATOR_BDF_ALL);
    int assigns = integrator_has(c->method, INTEGRATOR_ASSIGNS); /* mixed, auto: a QSS method */
    return (h5out_meta){.problem = r->def->name,
                        .method = c->method->name,
                        .linsol = bdf_all ? linsol_name(c->linsol) : NULL,
                        .precond = bdf_all ? precond_name(c->linsol, c->precond) : NULL,
                        .cvode_norm = integrator_has(c->method, INTEGRATOR_BDF)
                                          ? cvode_norm_name(c->cvode_norm)
                                          : NULL,
                        .qss_method = assigns ? c->qss_method->name : NULL,
                        .reltol = c->reltol,
                        .abstol = c->abstol,
                        .t0 = r->prob.t0,
                        .tf = c->tf,
                        .samples = c->samples,
                        .def = r->def,
                        .param_values = r->values,
                        .prob = &r->prob,
                        .comm = r->comm,
                        .deflate = c->compress,
                        .replace = c->overwrite,
                        .keep = r->plan.has_rule ? output_plan_keep : NULL,
                        .keep_ctx = &r->plan,
                        .keep_rule = c->output_states};
}

/* Runs the integrator (the progress reports around it); returns its code. */
static int integrate(run_ctx *r) {
    const run_config *c = &r->c;
    int qss_engine = integrator_has(c->method, INTEGRATOR_QSS_ENGINE);
    /* a rate that follows t, left undeclared, costs QSS of order 2 many
     * events: say so (rank 0 alone: the rows are the problem's) */
    time_probe_hit hit;
    if (r->rank == 0 && qss_engine && time_probe(&r->prob, c->tf, &hit) == 1)
        fprintf(stderr,
                "qmol: warning: %s: f_%lld changes with t at fixed inputs (%.17g at t = %g, "
                "%.17g at t = %g) but the problem has explicit_time = 0: set explicit_time = 1 "
                "in its qmol_problem (qmol.h), or the QSS methods of order 2 miss df/dt and "
                "take many more events\n",
                r->def->name, (long long)hit.row, hit.f0, hit.t0, hit.f1, hit.t1);
    progress prog;
    progress_init(&prog, r->comm, r->prob.t0, r->o.t0, c->tf, c->quiet, c->verbose, c->progress,
                  qss_engine ? "events" : "steps");
    r->o.progress = &prog;
    r->stats.wall_setup = wallclock_seconds() - r->w0;
    int irc = c->method->integrate(&r->layout.m, &r->o, run_sample, &r->sink, &r->stats, r->err,
                                   sizeof r->err);
    progress_end(&prog);
    r->o.progress = NULL;
    if (r->have_ck) checkpoint_restore_end(&r->ck); /* the integrator has read it */
    return irc;
}

/* What failed: a write of the output (its message: the integration itself
 * did not fail, whatever the integrator said of the sample that stopped
 * it), the integrator's message, a checkpoint write (its reason, write_err,
 * follows), or a failure without a message. */
static const char *the_failure(const char *err, const char *write_err, const h5out *out, char *buf,
                               size_t len) {
    const char *out_err = out ? h5out_error(out) : NULL;
    if (out_err) snprintf(buf, len, "writing the output failed: %s", out_err);
    return out_err        ? buf
           : err[0]       ? err
           : write_err[0] ? "a checkpoint could not be written"
                          : "the integration failed";
}

/* Whether a checkpoint refers to the partial output (a restart's, or one
 * this run wrote): then OUTPUT.partial stays. */
static int checkpoint_refers(const run_ctx *r) {
    return r->c.restart || (r->have_ck && !isnan(r->ck.t_last));
}

/* A failed integration: the last window end kept in memory becomes the
 * checkpoint, and a checkpoint that could not be written (the failure, or
 * this one) says why. Returns the exit code, 1. */
static int failed(run_ctx *r) {
    checkpointer *ck = &r->ck;
    const char *name = r->c.method->name, *problem = r->def->name;
    char write_err[sizeof ck->err + 2] = "", kept_err[sizeof ck->err + 64] = "";
    char failure[1100];
    if (r->have_ck && ck->err[0]) snprintf(write_err, sizeof write_err, ": %s", ck->err);
    /* (not after a failed write of the output: a checkpoint refers to it) */
    if (r->have_ck && !h5out_error(r->out) && checkpoint_write_kept(ck) != 0 &&
        strcmp(write_err + 2, ck->err))
        snprintf(kept_err, sizeof kept_err, "; the last window's could not be written: %s",
                 ck->err);
    r->keep_partial = checkpoint_refers(r); /* the kept window may have been written now */
    const char *what = the_failure(r->err, write_err, r->out, failure, sizeof failure);
    if (r->have_ck && !isnan(ck->t_last)) /* keep what a restart needs */
        run_say(r,
                "qmol: error: %s on %s: %s%s (the last checkpoint, at t = %.17g, is %s: qmol run "
                "--restart %s%s)\n",
                name, problem, what, write_err, ck->t_last, ck->path, ck->path, kept_err);
    else
        run_say(r, "qmol: error: %s on %s: %s%s%s\n", name, problem, what, write_err, kept_err);
    run_drop_output(r);
    return 1;
}

/* The exit code of an integration that did not finish (irc != 0). */
static int not_finished(run_ctx *r, int irc) {
    const run_config *c = &r->c;
    if (irc == QMOL_STOPPED) { /* a signal: the output so far stays, the checkpoint says where */
        r->keep_partial = 1;
        run_drop_output(r);
        run_say(r,
                "qmol: stopped by signal %d at t = %.17g: checkpoint %s, samples so far in "
                "%s.partial; resume with: qmol run --restart %s\n",
                r->ck.signal, r->ck.t_last, r->ck.path, r->path, r->ck.path);
        return QMOL_STOPPED;
    }
    r->keep_partial = checkpoint_refers(r);
    if (irc == INTEGRATOR_UNSUITED) { /* the method cannot follow the problem */
        run_say(r, "qmol: error: %s on %s: %s\n", c->method->name, r->def->name, r->err);
        run_drop_output(r);
        return INTEGRATOR_UNSUITED;
    }
    if (c->restart && r->ck.loader.io.why) { /* the integrator's state is not there */
        /* the file's own errors name it; the integrator's checks do not */
        int named = !strncmp(r->err, c->restart, strlen(c->restart));
        run_say(r, "qmol: error: --restart %s%s%s\n", named ? "" : c->restart, named ? "" : ": ",
                r->err);
        return 2;
    }
    return failed(r);
}

/* Everything the phases allocated. */
static void run_free(run_ctx *r) {
    run_drop_output(r);
    if (r->have_ck) checkpointer_free(&r->ck);
    layout_free(&r->layout);
    free(r->assignment), free(r->classes), free(r->activity);
    free(r->sink.previous), free(r->sink.delta);
    free(r->events.time), free(r->events.crossing), free(r->events.direction);
    if (r->prob.destroy) r->prob.destroy(r->prob.data);
    free(r->values);
    method_log_free(&r->methods);
    free(r->path), free(r->xmf), free(r->stale_xmf), free(r->grid.component);
    output_plan_free(&r->plan);
}

/* The phases up to the integration. Returns 0, or the exit code. */
static int set_up(run_ctx *r) {
    int rc = run_resolve_problem(r);
    if (rc == 0) rc = run_plan_output(r);
    if (rc == 0) rc = run_check_problem(r);
    if (rc == 0) rc = run_lay_out(r);
    if (rc != 0) return rc;
    choose_solver(r);
    h5out_meta meta = output_meta(r);
    rc = run_check_resume(r);
    if (rc == 0) rc = run_open_output(r, &meta);
    if (rc == 0) rc = run_setup_checkpoints(r);
    return rc;
}

int run_execute(const run_config *cin) {
    run_ctx *r = calloc(1, sizeof *r);
    if (!r) {
        fprintf(stderr, "qmol: error: out of memory\n");
        return 2;
    }
    r->c = *cin;
    r->comm = MPI_COMM_WORLD;
    MPI_Comm_rank(r->comm, &r->rank);
    MPI_Comm_size(r->comm, &r->size);
    r->w0 = wallclock_seconds();
    int rc = set_up(r);
    if (rc == 0) {
        int irc = integrate(r);
        rc = irc != 0 ? not_finished(r, irc) : 0;
    }
    qmol_stats total;
    if (rc == 0) rc = run_finish_output(r, &total);
    if (rc == 0) run_report(r, &total);
    run_free(r);
    free(r);
    return rc;
}
