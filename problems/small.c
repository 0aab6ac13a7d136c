/* small.c: the small linear method tests, x' = A x + b with one or two states:
 * liqss-pair, relax, bqss-a1 and offdiag-stiff. They share one implementation,
 * including the exact solution x(t) = xeq + e^{At} (x0 - xeq), xeq = -A^{-1} b,
 * so method tests can measure errors against the true trajectory. */
#include "problems/builtin.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct linear {
    int n; /* 1 or 2 */
    double A[2][2], b[2], x0[2];
    double xeq[2]; /* equilibrium, when A is invertible */
    int len[2];    /* each row lists the states with a non-zero A entry */
    int64_t cols[2][2];
} linear;

static int linear_row_size(const void *data, int64_t i) {
    const linear *p = data;
    return p->len[i];
}

static void linear_row(const void *data, int64_t i, int64_t *cols) {
    const linear *p = data;
    for (int k = 0; k < p->len[i]; k++)
        cols[k] = p->cols[i][k];
}

static double linear_rhs(const void *data, int64_t i, double t, const double *vals) {
    (void)t;
    const linear *p = data;
    double f = p->b[i];
    for (int k = 0; k < p->len[i]; k++)
        f += p->A[i][p->cols[i][k]] * vals[k];
    return f;
}

static void linear_jac(const void *data, int64_t i, double t, const double *vals, double *dfdv) {
    (void)t;
    (void)vals;
    const linear *p = data;
    for (int k = 0; k < p->len[i]; k++)
        dfdv[k] = p->A[i][p->cols[i][k]];
}

static double linear_x0(const void *data, int64_t i) {
    const linear *p = data;
    return p->x0[i];
}

/* e^{At} = c_id I + c_a A for a 2x2 A, from its eigenvalues (Cayley-Hamilton):
 * Sylvester's formula when they are real and distinct, the rotation form when
 * complex, the Jordan form when equal. Only exponentials of single eigenvalues
 * appear, so a stiff A over a long t (bqss-a1: -100 over 1000) neither
 * overflows nor cancels, as cosh/sinh forms of the same formula would. */
static void expm2(const double A[2][2], double t, double E[2][2]) {
    double tau = 0.5 * (A[0][0] + A[1][1]);
    double half_gap = 0.5 * (A[0][0] - A[1][1]);
    double det = A[0][0] * A[1][1] - A[0][1] * A[1][0];
    /* tau^2 - det written without the cancellation of that difference. */
    double disc = half_gap * half_gap + A[0][1] * A[1][0];
    double c_id, c_a; /* E = c_id I + c_a A */
    if (disc > 0) {
        double s = sqrt(disc);
        double fast = tau + copysign(s, tau);
        /* The small eigenvalue from the product, not from tau - s, which
         * cancels when stiff (bqss-a1: -50 + 49.99). */
        double slow = det / fast;
        /* Sylvester's (e_fast - e_slow)/gap with expm1, which stays exact as
         * the eigenvalues merge (gap -> 0 gives the Jordan form below). */
        double gap = fast - slow, e_slow = exp(slow * t);
        c_a = e_slow * expm1(gap * t) / gap;
        c_id = e_slow - slow * c_a;
    } else if (disc < 0) {
        double w = sqrt(-disc), decay = exp(tau * t);
        c_a = decay * sin(w * t) / w;
        c_id = decay * cos(w * t) - tau * c_a;
    } else {
        double decay = exp(tau * t);
        c_a = decay * t;
        c_id = decay - tau * c_a;
    }
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 2; c++)
            E[r][c] = c_a * A[r][c] + (r == c ? c_id : 0.0);
}

static double linear_exact(const void *data, int64_t i, double t) {
    const linear *p = data;
    if (p->n == 1) return p->xeq[0] + exp(p->A[0][0] * t) * (p->x0[0] - p->xeq[0]);
    double E[2][2];
    expm2(p->A, t, E);
    return p->xeq[i] + E[i][0] * (p->x0[0] - p->xeq[0]) + E[i][1] * (p->x0[1] - p->xeq[1]);
}

/* Builds x' = A x + b from the leading n x n block of A. The exact solution
 * is offered when A is invertible (then the equilibrium exists). */
static int linear_create(const char *name, int n, const double A[2][2], const double b[2],
                         const double x0[2], double tf, qmol_problem *out, char *err,
                         size_t errlen) {
    linear *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "%s: out of memory", name);
        return -1;
    }
    p->n = n;
    for (int r = 0; r < n; r++) {
        p->b[r] = b[r];
        p->x0[r] = x0[r];
        for (int c = 0; c < n; c++) {
            p->A[r][c] = A[r][c];
            if (A[r][c] != 0.0) p->cols[r][p->len[r]++] = c;
        }
    }
    double det = n == 1 ? p->A[0][0] : p->A[0][0] * p->A[1][1] - p->A[0][1] * p->A[1][0];
    if (n == 1 && det != 0.0) {
        p->xeq[0] = -p->b[0] / det;
    } else if (det != 0.0) {
        p->xeq[0] = -(p->A[1][1] * p->b[0] - p->A[0][1] * p->b[1]) / det;
        p->xeq[1] = -(p->A[0][0] * p->b[1] - p->A[1][0] * p->b[0]) / det;
    }
    *out = (qmol_problem){.n = n,
                          .t0 = 0.0,
                          .tf = tf,
                          .data = p,
                          .row_size = linear_row_size,
                          .row = linear_row,
                          .rhs = linear_rhs,
                          .jac = linear_jac,
                          .x0 = linear_x0,
                          .exact = det != 0.0 ? linear_exact : NULL,
                          .components = 1,
                          .destroy = free};
    return 0;
}

/* ---- liqss-pair: thesis eq. (4.1), the LIQSS/mLIQSS worked example ---- */

/* values: x1_0, x2_0 */
static int liqss_pair_create(const double *v, qmol_problem *out, char *err, size_t errlen) {
    const double A[2][2] = {{-1.0, -1.0}, {1.0, -1.0}}, b[2] = {0.2, 1.2};
    return linear_create("liqss-pair", 2, A, b, v, 10.0, out, err, errlen);
}

static const qmol_param_def liqss_pair_params[] = {
    {"x1_0", -4.0, -DBL_MAX, DBL_MAX, 0, "initial x1"},
    {"x2_0", 4.0, -DBL_MAX, DBL_MAX, 0, "initial x2"},
};

const qmol_problem_def problem_liqss_pair = {
    QMOL_API_VERSION,
    "liqss-pair",
    "2x2 pair where LIQSS1 cycles and mLIQSS1 settles (thesis eq. 4.1, table 4.1)",
    "x1' = -x1 - x2 + 0.2, x2' = x1 - x2 + 1.2; x(0) = (x1_0, x2_0) = (-4, 4).\n"
    "Equilibrium (-0.5, 0.7), eigenvalues -1 +- i; exact solution provided. tf = 10.",
    liqss_pair_params,
    (int)(sizeof liqss_pair_params / sizeof liqss_pair_params[0]),
    liqss_pair_create,
};

/* ---- relax: thesis eq. (3.22), QSS1's spurious oscillation ---- */

/* values: k, xeq, x0 */
static int relax_create(const double *v, qmol_problem *out, char *err, size_t errlen) {
    const double A[2][2] = {{-v[0], 0.0}, {0.0, 0.0}}, b[2] = {v[0] * v[1], 0.0};
    const double x0[2] = {v[2], 0.0};
    return linear_create("relax", 1, A, b, x0, 100.0, out, err, errlen);
}

static const qmol_param_def relax_params[] = {
    {"k", 0.1, -DBL_MAX, DBL_MAX, 0, "relaxation rate"},
    {"xeq", 10.5, -DBL_MAX, DBL_MAX, 0, "equilibrium value"},
    {"x0", 0.0, -DBL_MAX, DBL_MAX, 0, "initial value"},
};

const qmol_problem_def problem_relax = {
    QMOL_API_VERSION,
    "relax",
    "Scalar relaxation where QSS1 oscillates around the equilibrium (thesis eq. 3.22)",
    "x' = -k (x - xeq) = -0.1 (x - 10.5), x(0) = 0. Exact solution\n"
    "x(t) = xeq + (x0 - xeq) exp(-k t) (for k != 0). tf = 100.",
    relax_params,
    (int)(sizeof relax_params / sizeof relax_params[0]),
    relax_create,
};

/* ---- bqss-a1: BQSS paper problem A1, a linear stiff system ---- */

/* values: x1_0, x2_0 */
static int bqss_a1_create(const double *v, qmol_problem *out, char *err, size_t errlen) {
    const double A[2][2] = {{0.0, 0.01}, {-100.0, -100.0}}, b[2] = {0.0, 2020.0};
    return linear_create("bqss-a1", 2, A, b, v, 1000.0, out, err, errlen);
}

static const qmol_param_def bqss_a1_params[] = {
    {"x1_0", 0.0, -DBL_MAX, DBL_MAX, 0, "initial x1"},
    {"x2_0", 20.0, -DBL_MAX, DBL_MAX, 0, "initial x2"},
};

const qmol_problem_def problem_bqss_a1 = {
    QMOL_API_VERSION,
    "bqss-a1",
    "Linear stiff 2x2 system, BQSS paper problem A1 (stiffness ratio ~1e4)",
    "x1' = 0.01 x2, x2' = -100 x1 - 100 x2 + 2020; x(0) = (0, 20). Eigenvalues\n"
    "-0.0100010 and -99.989999, equilibrium (20.2, 0); exact solution provided\n"
    "(eigen-decomposition). f1 does not read x1. tf = 1000.",
    bqss_a1_params,
    (int)(sizeof bqss_a1_params / sizeof bqss_a1_params[0]),
    bqss_a1_create,
};

/* ---- offdiag-stiff: stiffness carried by the coupling of two states ----
 *
 * A = [[-(k1+e), k1], [k2, -(k2+e)]] = -e I + (k1, -k2)-mode coupling, so the
 * eigenvalues are -e and -(k1+k2+e) for any k1, k2 >= 0. The literal wish
 * "|b|, |c| >> |a|, |d|" for A = [[-a, b], [c, -d]] is not possible with two
 * real negative eigenvalues: det = ad - bc > 0 forces bc < 0, and then real
 * eigenvalues need (a - d)^2 >= 4|bc|, i.e. large diagonals again (otherwise
 * the pair is a lightly damped fast oscillator). What makes the buck L/Ls
 * pair hard is that off-diagonals are as large as diagonals, so the fast
 * mode mixes both states; that is what this problem has. */

/* values: k1, k2, e, s1, s2, x1_0, x2_0 */
static int offdiag_stiff_create(const double *v, qmol_problem *out, char *err, size_t errlen) {
    double k1 = v[0], k2 = v[1], e = v[2];
    const double A[2][2] = {{-(k1 + e), k1}, {k2, -(k2 + e)}}, b[2] = {v[3], v[4]};
    const double x0[2] = {v[5], v[6]};
    return linear_create("offdiag-stiff", 2, A, b, x0, 10.0, out, err, errlen);
}

static const qmol_param_def offdiag_stiff_params[] = {
    {"k1", 1e3, 0.0, DBL_MAX, 0, "coupling of x1 to x2 (R/L in the buck analogy)"},
    {"k2", 1e4, 0.0, DBL_MAX, 0, "coupling of x2 to x1 (R/Ls in the buck analogy)"},
    {"e", 1.0, DBL_MIN, DBL_MAX, 0, "leak of each state (the slow rate)"},
    {"s1", 1.0, -DBL_MAX, DBL_MAX, 0, "source of x1"},
    {"s2", 0.0, -DBL_MAX, DBL_MAX, 0, "source of x2"},
    {"x1_0", 0.0, -DBL_MAX, DBL_MAX, 0, "initial x1"},
    {"x2_0", 0.0, -DBL_MAX, DBL_MAX, 0, "initial x2"},
};

const qmol_problem_def problem_offdiag_stiff = {
    QMOL_API_VERSION,
    "offdiag-stiff",
    "2x2 linear system whose fast mode is the coupling x1 - x2 (buck L/Ls pair analogue)",
    "x1' = -k1 (x1 - x2) - e x1 + s1, x2' = k2 (x1 - x2) - e x2 + s2, x(0) = (0, 0);\n"
    "defaults k1 = 1e3, k2 = 1e4, e = 1, s1 = 1, s2 = 0. Eigenvalues -e (mode x1 = x2)\n"
    "and -(k1 + k2 + e) (mode (k1, -k2)): each row's off-diagonal entry is as large as\n"
    "its diagonal one, so the fast mode is not aligned with any single state and the\n"
    "limit k -> inf is the two-state constraint x1 = x2 (where LIQSS fails and mLIQSS\n"
    "is needed). (Off-diagonals much larger than the diagonals cannot give two real\n"
    "negative eigenvalues: see docs/problems.md.) Exact solution provided. tf = 10.",
    offdiag_stiff_params,
    (int)(sizeof offdiag_stiff_params / sizeof offdiag_stiff_params[0]),
    offdiag_stiff_create,
};
