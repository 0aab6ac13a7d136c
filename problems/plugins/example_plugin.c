/* example_plugin.c: a problem family as a plugin, the template for users'
 * own problems. It needs only qmol.h: build it as a shared object,
 *   cc -std=c11 -shared -fPIC -I<qmol>/include example_plugin.c -o libqmol_example.so
 * and run it with `qmol run --problem ./libqmol_example.so`.
 *
 * The problem: the 1D Brusselator reaction-diffusion system (Hairer & Wanner's
 * BRUSS), two species per grid node (components = 2), so it also shows how
 * interleaved multi-species states are numbered: state id = 2 i + c, with
 * c = 0 for u and c = 1 for v at node i. It uses no libm function, so the
 * plugin loads into any host without extra link flags. */
#include "qmol.h"

#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct bruss {
    int64_t nodes;
    double a, b;
    double coupling; /* alpha / dx^2 */
    double dx;
} bruss;

static int bruss_row_size(const void *data, int64_t id) {
    const bruss *p = data;
    int64_t i = id / 2;
    return 2 + (i > 0) + (i < p->nodes - 1);
}

/* Row of either species at node i: the same species at the left neighbour,
 * u_i, v_i, the same species at the right neighbour (ascending ids). */
static void bruss_row(const void *data, int64_t id, int64_t *cols) {
    const bruss *p = data;
    int64_t i = id / 2;
    int k = 0;
    if (i > 0) cols[k++] = id - 2;
    cols[k++] = 2 * i;
    cols[k++] = 2 * i + 1;
    if (i < p->nodes - 1) cols[k++] = id + 2;
}

/* The values a row reads, with the Dirichlet boundary values (u = a,
 * v = b/a, the homogeneous steady state) standing in for missing neighbours. */
typedef struct bruss_local {
    double left, u, v, right;
    int has_left, has_right;
} bruss_local;

static bruss_local bruss_gather(const bruss *p, int64_t id, const double *vals) {
    bruss_local s;
    int64_t i = id / 2;
    double boundary = id % 2 == 0 ? p->a : p->b / p->a;
    int k = 0;
    s.has_left = i > 0;
    s.has_right = i < p->nodes - 1;
    s.left = s.has_left ? vals[k++] : boundary;
    s.u = vals[k++];
    s.v = vals[k++];
    s.right = s.has_right ? vals[k] : boundary;
    return s;
}

static double bruss_rhs(const void *data, int64_t id, double t, const double *vals) {
    (void)t;
    const bruss *p = data;
    bruss_local s = bruss_gather(p, id, vals);
    double self = id % 2 == 0 ? s.u : s.v;
    double diffusion = p->coupling * (s.left - 2.0 * self + s.right);
    if (id % 2 == 0) return p->a + s.u * s.u * s.v - (p->b + 1.0) * s.u + diffusion;
    return p->b * s.u - s.u * s.u * s.v + diffusion;
}

static void bruss_jac(const void *data, int64_t id, double t, const double *vals, double *dfdv) {
    (void)t;
    const bruss *p = data;
    bruss_local s = bruss_gather(p, id, vals);
    int k = 0;
    if (s.has_left) dfdv[k++] = p->coupling;
    if (id % 2 == 0) {
        dfdv[k++] = 2.0 * s.u * s.v - (p->b + 1.0) - 2.0 * p->coupling; /* d/du */
        dfdv[k++] = s.u * s.u;                                          /* d/dv */
    } else {
        dfdv[k++] = p->b - 2.0 * s.u * s.v;         /* d/du */
        dfdv[k++] = -s.u * s.u - 2.0 * p->coupling; /* d/dv */
    }
    if (s.has_right) dfdv[k] = p->coupling;
}

/* u(x, 0) = a + 4 x (1 - x): a bump that meets the boundary values, in place
 * of BRUSS's 1 + sin(2 pi x), to stay free of libm. v(x, 0) = b/a. */
static double bruss_x0(const void *data, int64_t id) {
    const bruss *p = data;
    double x = p->dx * (double)(id / 2 + 1);
    return id % 2 == 0 ? p->a + 4.0 * x * (1.0 - x) : p->b / p->a;
}

/* values: N, A, B, alpha */
static int bruss_create(const double *values, qmol_problem *out, char *err, size_t errlen) {
    bruss *p = malloc(sizeof *p);
    if (!p) {
        snprintf(err, errlen, "example-brusselator: out of memory");
        return -1;
    }
    p->nodes = (int64_t)values[0];
    p->a = values[1];
    p->b = values[2];
    p->dx = 1.0 / (values[0] + 1.0);
    p->coupling = values[3] / (p->dx * p->dx);
    *out = (qmol_problem){.n = 2 * p->nodes,
                          .t0 = 0.0,
                          .tf = 10.0,
                          .data = p,
                          .row_size = bruss_row_size,
                          .row = bruss_row,
                          .rhs = bruss_rhs,
                          .jac = bruss_jac,
                          .x0 = bruss_x0,
                          .ndims = 1,
                          .dims = {p->nodes, 1, 1},
                          .origin = {p->dx, 0, 0},
                          .spacing = {p->dx, 0, 0},
                          .components = 2,
                          .destroy = free};
    return 0;
}

static const qmol_param_def bruss_params[] = {
    {"N", 100, 1, 1073741823, 1, "interior nodes (2N states)"},
    {"A", 1.0, DBL_MIN, DBL_MAX, 0, "feed rate A (> 0)"},
    {"B", 3.0, -DBL_MAX, DBL_MAX, 0, "rate B"},
    {"alpha", 0.02, 0.0, DBL_MAX, 0, "diffusion coefficient of both species"},
};

static const qmol_problem_def bruss_def = {
    QMOL_API_VERSION,
    "example-brusselator",
    "1D Brusselator, two species per node (example plugin)",
    "u_i' = A + u_i^2 v_i - (B+1) u_i + alpha (u_{i-1} - 2u_i + u_{i+1})/dx^2,\n"
    "v_i' = B u_i - u_i^2 v_i + alpha (v_{i-1} - 2v_i + v_{i+1})/dx^2,\n"
    "i = 0..N-1, node i at x = (i+1) dx, dx = 1/(N+1); Dirichlet u = A, v = B/A at\n"
    "x = 0 and x = 1; u(x,0) = A + 4x(1-x), v(x,0) = B/A. State id = 2i (u), 2i+1 (v).\n"
    "Defaults N = 100, A = 1, B = 3, alpha = 0.02; tf = 10.",
    bruss_params,
    (int)(sizeof bruss_params / sizeof bruss_params[0]),
    bruss_create,
};

const qmol_problem_def *qmol_plugin_problem(void) {
    return &bruss_def;
}
