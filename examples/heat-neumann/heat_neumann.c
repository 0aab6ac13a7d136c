/* heat_neumann.c: the tutorial's second problem (docs/tutorial.md), a qmol
 * plugin: 1D heat with insulated (reflecting, Neumann) ends and a
 * diffusivity that follows the time,
 *
 *   u_t = d(t) u_xx on [0, L],  u_x = 0 at x = 0 and x = L,
 *   d(t) = d0 (1 + a sin(w t)),
 *
 * on N nodes x_i = i h, h = L / (N - 1). The end nodes' ghosts mirror their
 * inner neighbours (u_{-1} = u_1, u_N = u_{N-2}), so row 0 lists u_1 twice,
 * (1, 0, 1), and row N-1 lists (N-2, N-1, N-2): every row is (left, self,
 * right) and f_i = d(t) (left - 2 self + right) / h^2. f reads t itself:
 * explicit_time = 1.
 *
 * From u_i(0) = cos(pi k x_i / L), a mode of the discrete Laplacian (its
 * eigenvalue mu_k = -(4 / h^2) sin^2(pi k h / (2 L)), also at the mirrored
 * ends), the semi-discrete solution is exactly
 *
 *   u_i(t) = cos(pi k x_i / L) exp(mu_k D(t)),
 *   D(t) = int_0^t d(s) ds = d0 (t + a (1 - cos(w t)) / w).
 */
#include "qmol.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define PI 3.14159265358979323846

typedef struct heat_neumann {
    int64_t n;
    double d0, a, w, k, len, h;
} heat_neumann;

static double diffusivity(const heat_neumann *p, double t) {
    return p->d0 * (1.0 + p->a * sin(p->w * t));
}

static int hn_row_size(const void *data, int64_t i) {
    (void)data, (void)i;
    return 3;
}

/* (left, self, right); at an end the mirrored neighbour stands for the
 * missing one: (1, 0, 1) and (N-2, N-1, N-2). */
static void hn_row(const void *data, int64_t i, int64_t *cols) {
    const heat_neumann *p = data;
    cols[0] = i == 0 ? 1 : i - 1;
    cols[1] = i;
    cols[2] = i == p->n - 1 ? p->n - 2 : i + 1;
}

static double hn_rhs(const void *data, int64_t i, double t, const double *vals) {
    (void)i;
    const heat_neumann *p = data;
    return diffusivity(p, t) * (vals[0] - 2.0 * vals[1] + vals[2]) / (p->h * p->h);
}

/* One partial per listed position; qmol adds up the two of a mirrored end. */
static void hn_jac(const void *data, int64_t i, double t, const double *vals, double *dfdv) {
    (void)i, (void)vals;
    const heat_neumann *p = data;
    double c = diffusivity(p, t) / (p->h * p->h);
    dfdv[0] = c;
    dfdv[1] = -2.0 * c;
    dfdv[2] = c;
}

static double mode(const heat_neumann *p, int64_t i) {
    return cos(PI * p->k * (double)i * p->h / p->len);
}

static double hn_x0(const void *data, int64_t i) {
    return mode(data, i);
}

static double hn_exact(const void *data, int64_t i, double t) {
    const heat_neumann *p = data;
    double s = sin(PI * p->k * p->h / (2.0 * p->len));
    double mu = -4.0 / (p->h * p->h) * s * s;
    double integral = p->d0 * (t + p->a * (1.0 - cos(p->w * t)) / p->w);
    return mode(p, i) * exp(mu * integral);
}

static int hn_create(const double *values, qmol_problem *out, char *err, size_t errlen) {
    heat_neumann *p = malloc(sizeof *p);
    if (!p) {
        snprintf(err, errlen, "heat-neumann: out of memory");
        return -1;
    }
    *p = (heat_neumann){.n = (int64_t)values[0],
                        .d0 = values[1],
                        .a = values[2],
                        .w = values[3],
                        .k = values[4],
                        .len = values[5]};
    p->h = p->len / (double)(p->n - 1);
    *out = (qmol_problem){.n = p->n,
                          .t0 = 0.0,
                          .tf = 4.0,
                          .data = p,
                          .row_size = hn_row_size,
                          .row = hn_row,
                          .rhs = hn_rhs,
                          .jac = hn_jac,
                          .x0 = hn_x0,
                          .exact = hn_exact,
                          .explicit_time = 1, /* d(t): f changes with t at fixed u */
                          .ndims = 1,
                          .dims = {p->n, 1, 1},
                          .spacing = {p->h, 0, 0},
                          .components = 1,
                          .destroy = free};
    return 0;
}

static const qmol_param_def hn_params[] = {
    {"N", 50, 3, 1000000, 1, "nodes, the two ends included"},
    {"d0", 0.05, 0.0, 1e6, 0, "mean diffusivity"},
    {"a", 0.9, 0.0, 1.0, 0, "relative amplitude of its oscillation"},
    {"w", 2.0 * PI, DBL_MIN, 1e6, 0, "its angular frequency"},
    {"k", 1, 0, 1000000, 1, "mode of the initial cosine"},
    {"L", 1.0, DBL_MIN, DBL_MAX, 0, "length of the rod"},
};

static const qmol_problem_def hn_def = {
    QMOL_API_VERSION,
    "heat-neumann",
    "1D heat, insulated ends, diffusivity d0 (1 + a sin(w t)) (tutorial)",
    "u_t = d(t) u_xx on [0, L], u_x = 0 at both ends, d(t) = d0 (1 + a sin(w t));\n"
    "N nodes x_i = i L/(N-1), the ends mirroring their neighbours;\n"
    "u(x, 0) = cos(pi k x / L): u_i(t) = u_i(0) exp(mu_k int_0^t d),\n"
    "mu_k = -(4/h^2) sin^2(pi k h / (2L))",
    hn_params,
    (int)(sizeof hn_params / sizeof hn_params[0]),
    hn_create,
};

/* The one symbol qmol looks for in a plugin. */
const qmol_problem_def *qmol_plugin_problem(void) {
    return &hn_def;
}
