/* bqss_a2.c: bqss-a2, the BQSS paper's nonlinear stiff chemistry problem A2
 * (Enright & Pryce, stiff DETEST D4). Three states, rows of different
 * lengths, a fast eigenvalue near -(k2 x1 + k3 x2) = -3500 at the start. */
#include "problems/builtin.h"

#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct chem {
    double k1, k2, k3;
} chem;

/* Rows: f1 reads (x1, x3), f2 reads (x2, x3), f3 reads (x1, x2, x3). */
static int chem_row_size(const void *data, int64_t i) {
    (void)data;
    return i == 2 ? 3 : 2;
}

static void chem_row(const void *data, int64_t i, int64_t *cols) {
    (void)data;
    int k = 0;
    if (i != 1) cols[k++] = 0;
    if (i != 0) cols[k++] = 1;
    cols[k++] = 2;
}

static double chem_rhs(const void *data, int64_t i, double t, const double *vals) {
    (void)t;
    const chem *p = data;
    switch (i) {
    case 0: /* vals: x1, x3 */
        return -p->k1 * vals[0] - p->k2 * vals[0] * vals[1];
    case 1: /* vals: x2, x3 */
        return -p->k3 * vals[0] * vals[1];
    default: /* vals: x1, x2, x3 */
        return -p->k1 * vals[0] - p->k2 * vals[0] * vals[2] - p->k3 * vals[1] * vals[2];
    }
}

static void chem_jac(const void *data, int64_t i, double t, const double *vals, double *dfdv) {
    (void)t;
    const chem *p = data;
    switch (i) {
    case 0:
        dfdv[0] = -p->k1 - p->k2 * vals[1];
        dfdv[1] = -p->k2 * vals[0];
        break;
    case 1:
        dfdv[0] = -p->k3 * vals[1];
        dfdv[1] = -p->k3 * vals[0];
        break;
    default:
        dfdv[0] = -p->k1 - p->k2 * vals[2];
        dfdv[1] = -p->k3 * vals[2];
        dfdv[2] = -p->k2 * vals[0] - p->k3 * vals[1];
        break;
    }
}

static double chem_x0(const void *data, int64_t i) {
    (void)data;
    return i == 2 ? 0.0 : 1.0;
}

/* x3 lives near 1e-6: the paper's quanta are (0.01, 0.01, 1e-7), i.e. abstol
 * 0.01 with x3 scaled by 1e-5. */
static double chem_abstol_scale(const void *data, int64_t i) {
    (void)data;
    return i == 2 ? 1e-5 : 1.0;
}

/* values: k1, k2, k3 */
static int bqss_a2_create(const double *v, qmol_problem *out, char *err, size_t errlen) {
    chem *p = malloc(sizeof *p);
    if (!p) {
        snprintf(err, errlen, "bqss-a2: out of memory");
        return -1;
    }
    *p = (chem){v[0], v[1], v[2]};
    *out = (qmol_problem){.n = 3,
                          .t0 = 0.0,
                          .tf = 1000.0,
                          .data = p,
                          .row_size = chem_row_size,
                          .row = chem_row,
                          .rhs = chem_rhs,
                          .jac = chem_jac,
                          .x0 = chem_x0,
                          .abstol_scale = chem_abstol_scale,
                          .components = 1,
                          .destroy = free};
    return 0;
}

static const qmol_param_def bqss_a2_params[] = {
    {"k1", 0.013, -DBL_MAX, DBL_MAX, 0, "linear decay rate of x1"},
    {"k2", 1000.0, -DBL_MAX, DBL_MAX, 0, "rate of the x1 x3 reaction"},
    {"k3", 2500.0, -DBL_MAX, DBL_MAX, 0, "rate of the x2 x3 reaction"},
};

const qmol_problem_def problem_bqss_a2 = {
    QMOL_API_VERSION,
    "bqss-a2",
    "Nonlinear stiff chemistry, BQSS paper problem A2 (stiff DETEST D4)",
    "x1' = -k1 x1 - k2 x1 x3, x2' = -k3 x2 x3, x3' = -k1 x1 - k2 x1 x3 - k3 x2 x3,\n"
    "k1 = 0.013, k2 = 1000, k3 = 2500; x(0) = (1, 1, 0). Invariant x1 + x2 - x3 = 2.\n"
    "Reference at t = 1000: (2.98252075e-06, 1.99999702, -7.75458105e-12). tf = 1000.\n"
    "Absolute tolerance of x3 scaled by 1e-5 (the paper's quanta: 0.01, 0.01, 1e-7).",
    bqss_a2_params,
    (int)(sizeof bqss_a2_params / sizeof bqss_a2_params[0]),
    bqss_a2_create,
};
