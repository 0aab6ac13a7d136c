/* pulse.c: a first-order lag driven by a square wave switched by time events,
 * with an exact solution: the smallest test of time events.
 *
 * x_i' = a_i (H - x_i), i = 0..N-1, a_i = a (1 + i), H toggling between 1 and
 * 0 at t = k period / 2 (H = 1 on [0, period / 2)), x(0) = 0.
 */
#include "problems/builtin.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct pulse {
    int64_t n;
    double a, half; /* rate, half period */
    int high;       /* H, the discrete variable */
} pulse;

static void pulse_get_discrete(const void *data, double *v) {
    v[0] = ((const pulse *)data)->high;
}

static void pulse_set_discrete(void *data, const double *v) {
    ((pulse *)data)->high = v[0] != 0.0;
}

static int pulse_row_size(const void *data, int64_t i) {
    (void)data, (void)i;
    return 1;
}

static void pulse_row(const void *data, int64_t i, int64_t *cols) {
    (void)data;
    cols[0] = i;
}

static double pulse_rhs(const void *data, int64_t i, double t, const double *vals) {
    (void)t;
    const pulse *p = data;
    return p->a * (double)(1 + i) * ((p->high ? 1.0 : 0.0) - vals[0]);
}

static void pulse_jac(const void *data, int64_t i, double t, const double *vals, double *dfdv) {
    (void)t, (void)vals;
    const pulse *p = data;
    dfdv[0] = -p->a * (double)(1 + i);
}

static double pulse_x0(const void *data, int64_t i) {
    (void)data, (void)i;
    return 0.0;
}

/* Exact: exponential relaxation towards H on each half period. */
static double pulse_exact(const void *data, int64_t i, double t) {
    const pulse *p = data;
    double rate = p->a * (double)(1 + i), x = 0.0, start = 0.0;
    for (int64_t k = 0; start < t; k++) {
        double end = fmin((double)(k + 1) * p->half, t);
        double h = (k % 2 == 0) ? 1.0 : 0.0;
        x = h + (x - h) * exp(-rate * (end - start));
        start = end;
    }
    return x;
}

/* The next toggle strictly after t: k half periods, computed from k so that
 * the times do not drift by accumulated rounding. */
static double pulse_next(const void *data, double t) {
    const pulse *p = data;
    double k = floor(t / p->half) + 1.0;
    double next = k * p->half;
    while (!(next > t))
        next = (k += 1.0) * p->half;
    return next;
}

static void pulse_toggle(void *data, double t) {
    (void)t;
    pulse *p = data;
    p->high = !p->high;
}

static void pulse_affected(const void *data, int64_t *ids) {
    const pulse *p = data;
    for (int64_t i = 0; i < p->n; i++)
        ids[i] = i;
}

/* values: N, a, period */
static int pulse_create(const double *v, qmol_problem *out, char *err, size_t errlen) {
    if (!isfinite(2.0 * v[2])) { /* the default tf, two periods */
        snprintf(err, errlen, "period = %g: two periods (the default tf) must be finite", v[2]);
        return -1;
    }
    pulse *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "pulse: out of memory");
        return -1;
    }
    p->n = (int64_t)v[0];
    p->a = v[1];
    p->half = 0.5 * v[2];
    p->high = 1;
    *out = (qmol_problem){.n = p->n,
                          .t0 = 0.0,
                          .tf = 2.0 * v[2],
                          .data = p,
                          .row_size = pulse_row_size,
                          .row = pulse_row,
                          .rhs = pulse_rhs,
                          .jac = pulse_jac,
                          .x0 = pulse_x0,
                          .exact = pulse_exact,
                          .components = 1,
                          .destroy = free,
                          .next_time_event = pulse_next,
                          .on_time_event = pulse_toggle,
                          .n_discrete = 1,
                          .get_discrete = pulse_get_discrete,
                          .set_discrete = pulse_set_discrete,
                          .n_affected = p->n,
                          .affected = pulse_affected};
    return 0;
}

static const qmol_param_def pulse_params[] = {
    {"N", 3, 1, 1000000, 1, "independent lags (rates a, 2a, ..., N a)"},
    {"a", 10.0, DBL_MIN, 1e12, 0, "rate of the first lag"},
    {"period", 0.5, DBL_MIN, DBL_MAX, 0, "period of the square wave"},
};

const qmol_problem_def problem_pulse = {
    QMOL_API_VERSION,
    "pulse",
    "first-order lags driven by a square wave (time events), exact solution",
    "x_i' = (i+1) a (H - x_i), i = 0..N-1, x(0) = 0; H = 1 on [k T, k T + T/2), 0 on\n"
    "[k T + T/2, (k+1) T), switched by time events at multiples of T/2 (T = period).\n"
    "Exact: relaxation towards H on each half period. Default tf = 2 T.",
    pulse_params,
    (int)(sizeof pulse_params / sizeof pulse_params[0]),
    pulse_create,
};
