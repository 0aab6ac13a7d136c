/* run_support.h: runs an integrator on a built-in problem in-process and keeps
 * what the tests check (event trace per state, samples, stats). */
#ifndef QMOL_RUN_SUPPORT_H
#define QMOL_RUN_SUPPORT_H

#include "core/integrator.h"
#include "core/model.h"
#include "qmol.h"
#include "core/stats.h"

#include <stdint.h>

typedef struct trace_event {
    double t;
    int32_t i;
    double q[4]; /* q of the first (up to) 4 states after the event */
} trace_event;

/* Longest event trace kept (48 bytes per event). */
#define TRACE_MAX 1000000

typedef struct test_run {
    qmol_problem prob;
    model m;
    integrator_options opt;
    qmol_stats stats;
    int64_t n, K;
    double *times;   /* K */
    double *samples; /* K x n */
    trace_event *trace;
    int64_t ntrace, trace_cap;
    int trace_truncated;        /* more than TRACE_MAX events: trace holds the first ones */
    uint64_t *events_per_state; /* n */
    unsigned char *assignment;  /* mixed runs: ASSIGN_QSS / ASSIGN_BDF per state */
    /* zero crossings handled (time events are only counted in stats) */
    double *cross_t;
    int64_t *cross_c;
    int *cross_dir;
    int64_t ncross, cross_cap;
    char err[512];
    int rc;
} test_run;

/* Builds problem `name` with "key=value" overrides, runs `method` with
 * reltol/abstol to tf (tf <= t0 keeps the problem's default), K samples.
 * trace: record every event. Returns the run (rc = integrator result). */
test_run *run_problem(const char *name, const char *const *sets, int nsets, const char *method,
                      double reltol, double abstol, double tf, int64_t K, int trace,
                      int use_jacobian);
/* As run_problem without running it (the Jacobian used where the problem
 * has one): the caller may set more of r->opt, then run_integrate. */
test_run *run_prepare(const char *name, const char *const *sets, int nsets, const char *method,
                      double reltol, double abstol, double tf, int64_t K);
/* Runs a prepared run (r->rc: the integrator's result); returns r->rc. */
int run_integrate(test_run *r);
/* As run_problem (with the problem's Jacobian), started at t0 from x0 (n
 * values, by state id) as a resumed run or a hand-over is: K samples over
 * (t0, tf]. */
test_run *run_problem_from(const char *name, const char *const *sets, int nsets, const char *method,
                           double reltol, double abstol, double t0, const double *x0, double tf,
                           int64_t K);
/* The mixed method: QSS block by qss_method, BDF states by the --bdf rule
 * (or "auto", "auto:THRESHOLD" for the automatic assignment), coupling
 * COUPLING_*. */
test_run *run_mixed(const char *name, const char *const *sets, int nsets, const char *qss_method,
                    const char *bdf_rule, int coupling, double reltol, double abstol, double tf,
                    int64_t K);
void run_free(test_run *r);

/* max over samples and states of |x - exact| (problem must have exact). */
double run_max_error(const test_run *r);
/* max over samples of |x_i - exact_i| for one state. */
double run_max_error_state(const test_run *r, int64_t i);
/* e_rr of thesis eq. 4.11 between two runs' samples (same shape). */
double run_relative_error(const test_run *r, const test_run *ref);

#endif
