#include "tests/support/run_support.h"

#include "mixed/assign.h"
#include "core/initial.h"
#include "core/integrator_registry.h"

#include "problems/registry.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int keep_sample(void *ctx, int64_t k, double t, const double *x) {
    test_run *r = ctx;
    r->times[k - 1] = t;
    memcpy(r->samples + (k - 1) * r->n, x, (size_t)r->n * sizeof(double));
    return 0;
}

static void keep_event(void *ctx, double t, int32_t i, const double *q) {
    test_run *r = ctx;
    r->events_per_state[i]++;
    /* the trace is for the small worked examples: a runaway run must not
     * eat the machine (one once grew it to 24 GB); counts above stay exact */
    if (r->ntrace >= TRACE_MAX) {
        r->trace_truncated = 1;
        return;
    }
    if (r->ntrace == r->trace_cap) {
        r->trace_cap = r->trace_cap ? 2 * r->trace_cap : 1024;
        r->trace = realloc(r->trace, (size_t)r->trace_cap * sizeof *r->trace);
        if (!r->trace) abort();
    }
    trace_event *ev = &r->trace[r->ntrace++];
    ev->t = t;
    ev->i = i;
    for (int k = 0; k < 4; k++)
        ev->q[k] = k < r->n ? q[k] : 0.0;
}

static void keep_crossing(void *ctx, double t, int64_t c, int direction) {
    test_run *r = ctx;
    if (c < 0) return;
    if (r->ncross == r->cross_cap) {
        r->cross_cap = r->cross_cap ? 2 * r->cross_cap : 64;
        r->cross_t = realloc(r->cross_t, (size_t)r->cross_cap * sizeof *r->cross_t);
        r->cross_c = realloc(r->cross_c, (size_t)r->cross_cap * sizeof *r->cross_c);
        r->cross_dir = realloc(r->cross_dir, (size_t)r->cross_cap * sizeof *r->cross_dir);
        if (!r->cross_t || !r->cross_c || !r->cross_dir) abort();
    }
    r->cross_t[r->ncross] = t;
    r->cross_c[r->ncross] = c;
    r->cross_dir[r->ncross] = direction;
    r->ncross++;
}

/* The problem, its model, options and sample storage; rc = -1 on failure. */
static test_run *prepare(const char *name, const char *const *sets, int nsets, const char *method,
                         double reltol, double abstol, double tf, int64_t K, int use_jacobian) {
    test_run *r = calloc(1, sizeof *r);
    if (!r) abort();
    const qmol_problem_def *def = registry_find(name);
    if (!def) {
        snprintf(r->err, sizeof r->err, "no problem %s", name);
        r->rc = -1;
        return r;
    }
    double values[64];
    if (params_resolve(def, sets, nsets, values, r->err, sizeof r->err) != 0 ||
        def->create(values, &r->prob, r->err, sizeof r->err) != 0 ||
        model_build(&r->m, &r->prob, r->err, sizeof r->err) != 0) {
        r->rc = -1;
        return r;
    }
    r->n = r->prob.n;
    r->K = K;
    r->opt.method = integrator_by_name(method);
    if (!r->opt.method) {
        snprintf(r->err, sizeof r->err, "no method %s", method);
        r->rc = -1;
        return r;
    }
    r->opt.reltol = reltol;
    r->opt.abstol = abstol;
    r->opt.t0 = r->prob.t0;
    r->opt.tf = tf > r->prob.t0 ? tf : r->prob.tf;
    r->opt.samples = K;
    r->opt.use_jacobian = use_jacobian;
    r->opt.linsol = LINSOL_AUTO; /* as the CLI */
    r->times = calloc((size_t)K, sizeof(double));
    r->samples = calloc((size_t)(K * r->n), sizeof(double));
    r->events_per_state = calloc((size_t)r->n, sizeof(uint64_t));
    if (!r->times || !r->samples || !r->events_per_state) abort();
    r->opt.on_discrete = keep_crossing;
    r->opt.discrete_ctx = r;
    return r;
}

test_run *run_problem(const char *name, const char *const *sets, int nsets, const char *method,
                      double reltol, double abstol, double tf, int64_t K, int trace,
                      int use_jacobian) {
    test_run *r = prepare(name, sets, nsets, method, reltol, abstol, tf, K, use_jacobian);
    if (r->rc) return r;
    if (trace) {
        r->opt.trace = keep_event;
        r->opt.trace_ctx = r;
    }
    run_integrate(r);
    return r;
}

test_run *run_prepare(const char *name, const char *const *sets, int nsets, const char *method,
                      double reltol, double abstol, double tf, int64_t K) {
    return prepare(name, sets, nsets, method, reltol, abstol, tf, K, 1);
}

int run_integrate(test_run *r) {
    if (r->rc) return r->rc;
    r->rc =
        r->opt.method->integrate(&r->m, &r->opt, keep_sample, r, &r->stats, r->err, sizeof r->err);
    return r->rc;
}

test_run *run_problem_from(const char *name, const char *const *sets, int nsets, const char *method,
                           double reltol, double abstol, double t0, const double *x0, double tf,
                           int64_t K) {
    test_run *r = prepare(name, sets, nsets, method, reltol, abstol, tf, K, 1);
    if (r->rc) return r;
    int64_t *gids = malloc((size_t)r->n * sizeof *gids);
    initial_values start = {0};
    if (!gids) abort();
    for (int64_t i = 0; i < r->n; i++)
        gids[i] = i;
    if (initial_values_set(&start, gids, x0, r->n) != 0) abort();
    free(gids);
    r->opt.t0 = t0;
    r->opt.start = &start;
    run_integrate(r);
    r->opt.start = NULL;
    initial_values_free(&start);
    return r;
}

test_run *run_mixed(const char *name, const char *const *sets, int nsets, const char *qss_method,
                    const char *bdf_rule, int coupling, double reltol, double abstol, double tf,
                    int64_t K) {
    test_run *r = prepare(name, sets, nsets, "mixed", reltol, abstol, tf, K, 1);
    if (r->rc) return r;
    r->assignment = malloc((size_t)r->n + 1);
    if (!r->assignment) abort();
    assign_options ao = {.bdf_rule = bdf_rule, .t0 = r->opt.t0, .tf = r->opt.tf};
    if (!strncmp(bdf_rule, "auto", 4)) { /* "auto" or "auto:THRESHOLD" */
        ao.bdf_rule = NULL;
        ao.automatic = 1;
        if (bdf_rule[4] == ':') ao.threshold = atof(bdf_rule + 5);
    }
    if (assign_states(&r->m, NULL, &ao, r->assignment, r->err, sizeof r->err) != 0) {
        r->rc = -1;
        return r;
    }
    r->opt.qss_method = integrator_by_name(qss_method);
    r->opt.assignment = r->assignment;
    r->opt.coupling = coupling;
    r->rc = mixed_integrate(&r->m, &r->opt, keep_sample, r, &r->stats, r->err, sizeof r->err);
    return r;
}

void run_free(test_run *r) {
    if (!r) return;
    free(r->assignment);
    free(r->cross_t), free(r->cross_c), free(r->cross_dir);
    model_free(&r->m);
    if (r->prob.destroy) r->prob.destroy(r->prob.data);
    free(r->times);
    free(r->samples);
    free(r->trace);
    free(r->events_per_state);
    free(r);
}

double run_max_error_state(const test_run *r, int64_t i) {
    double worst = 0.0;
    for (int64_t k = 0; k < r->K; k++) {
        double ex = r->prob.exact(r->prob.data, i, r->times[k]);
        double d = fabs(r->samples[k * r->n + i] - ex);
        if (d > worst || isnan(d)) worst = isnan(d) ? INFINITY : d;
    }
    return worst;
}

double run_max_error(const test_run *r) {
    double worst = 0.0;
    for (int64_t i = 0; i < r->n; i++) {
        double d = run_max_error_state(r, i);
        if (d > worst) worst = d;
    }
    return worst;
}

double run_relative_error(const test_run *r, const test_run *ref) {
    double num = 0.0, den = 0.0;
    for (int64_t k = 0; k < r->K * r->n; k++) {
        double d = r->samples[k] - ref->samples[k];
        num += d * d;
        den += ref->samples[k] * ref->samples[k];
    }
    return den > 0.0 ? sqrt(num / den) : sqrt(num);
}
