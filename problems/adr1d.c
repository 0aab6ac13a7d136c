/* adr1d.c: adr1d and adr1d-vardiff, the thesis's 1D advection-diffusion-
 * reaction benchmarks (ALGORITHMS.md 4.5 and 4.10). Both are the same
 * discretization; adr1d-vardiff only makes the diffusion jump from dleft to
 * dright at the middle of the domain and starts from u = 0.
 *
 * Node i (0-based, the thesis's i+1) sits at x = (i+1) dx, dx = L/N. The
 * boundary value u0 sits at x = 0 (Dirichlet, read by node 0). The last node
 * is x = L, where the Neumann condition mirrors node N-2 (the thesis's
 * d (2u_{N-1} - 2u_N)/dx^2). Written with per-neighbour weights,
 *   f_i = wW (u_{i-1} - u_i) + wE (u_{i+1} - u_i) + r (u_i^2 - u_i^3),
 *   wW = a/dx + d_i/dx^2 (upwind advection + diffusion), wE = d_i/dx^2,
 * which is the thesis's formula regrouped. */
#include "problems/builtin.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct adr1d {
    int64_t n;
    double a_over_dx, inv_dx2;
    double d_left, d_right; /* d_i = d_left for i < split, d_right from split on */
    int64_t split;
    double r, u0;
    int64_t init_cells; /* u_i(0) = 1 for i < init_cells, else 0 */
} adr1d;

static int adr1d_row_size(const void *data, int64_t i) {
    const adr1d *p = data;
    return 1 + (i > 0) + (i < p->n - 1);
}

/* Row order: left neighbour (absent at node 0: u0 is a constant), the node,
 * right neighbour (absent at the last node: the mirror image is the left). */
static void adr1d_row(const void *data, int64_t i, int64_t *cols) {
    const adr1d *p = data;
    int k = 0;
    if (i > 0) cols[k++] = i - 1;
    cols[k++] = i;
    if (i < p->n - 1) cols[k++] = i + 1;
}

typedef struct adr1d_local {
    double west, centre, east; /* values, boundary conditions applied */
    double w_west, w_east;
    int has_west, is_last;
} adr1d_local;

static adr1d_local adr1d_gather(const adr1d *p, int64_t i, const double *vals) {
    adr1d_local s;
    double d = i < p->split ? p->d_left : p->d_right;
    s.has_west = i > 0;
    s.is_last = i == p->n - 1;
    s.west = s.has_west ? vals[0] : p->u0;
    s.centre = vals[s.has_west];
    s.east = s.is_last ? s.west : vals[s.has_west + 1];
    s.w_west = p->a_over_dx + d * p->inv_dx2;
    s.w_east = d * p->inv_dx2;
    return s;
}

static inline double adr1d_f(const adr1d *p, const adr1d_local *s) {
    double u = s->centre;
    return s->w_west * (s->west - u) + s->w_east * (s->east - u) + adr_reaction(p->r, u);
}

static inline void adr1d_dfdv(const adr1d *p, const adr1d_local *s, double *dfdv) {
    double u = s->centre;
    int k = 0;
    /* At the last node the mirrored east value is the west state too. */
    if (s->has_west) dfdv[k++] = s->w_west + (s->is_last ? s->w_east : 0.0);
    dfdv[k++] = -s->w_west - s->w_east + adr_reaction_slope(p->r, u);
    if (!s->is_last) dfdv[k++] = s->w_east;
}

static double adr1d_rhs(const void *data, int64_t i, double t, const double *vals) {
    (void)t;
    adr1d_local s = adr1d_gather(data, i, vals);
    return adr1d_f(data, &s);
}

static void adr1d_jac(const void *data, int64_t i, double t, const double *vals, double *dfdv) {
    (void)t;
    adr1d_local s = adr1d_gather(data, i, vals);
    adr1d_dfdv(data, &s, dfdv);
}

static double adr1d_rhs_jac(const void *data, int64_t i, double t, const double *vals,
                            double *dfdv) {
    (void)t;
    adr1d_local s = adr1d_gather(data, i, vals);
    adr1d_dfdv(data, &s, dfdv);
    return adr1d_f(data, &s);
}

static double adr1d_x0(const void *data, int64_t i) {
    const adr1d *p = data;
    return i < p->init_cells ? 1.0 : 0.0;
}

/* The reaction, the one term not linear in the row's values (qmol.h). */
static double adr1d_own_term(const void *data, int64_t i, double u, double *dgdu) {
    (void)i;
    const adr1d *p = data;
    *dgdu = adr_reaction_slope(p->r, u);
    return adr_reaction(p->r, u);
}

/* Shared by both families; init_frac = 0 starts from u = 0 everywhere. */
static int adr1d_build(const char *name, double n, double a, double d_left, double d_right,
                       int64_t split, double r, double L, double u0, double init_frac,
                       qmol_problem *out, char *err, size_t errlen) {
    adr1d *p = malloc(sizeof *p);
    if (!p) {
        snprintf(err, errlen, "%s: out of memory", name);
        return -1;
    }
    double dx = L / n;
    p->n = (int64_t)n;
    p->a_over_dx = a / dx;
    p->inv_dx2 = 1.0 / (dx * dx);
    p->d_left = d_left;
    p->d_right = d_right;
    p->split = split;
    p->r = r;
    p->u0 = u0;
    /* The slack keeps N * init_frac = 200 (N = 1000, 0.2) from rounding to 199. */
    p->init_cells = (int64_t)floor(n * init_frac + 1e-9);
    *out = (qmol_problem){.n = p->n,
                          .t0 = 0.0,
                          .tf = 10.0,
                          .data = p,
                          .row_size = adr1d_row_size,
                          .row = adr1d_row,
                          .rhs = adr1d_rhs,
                          .jac = adr1d_jac,
                          .rhs_jac = adr1d_rhs_jac,
                          .own_term = adr1d_own_term,
                          .x0 = adr1d_x0,
                          .ndims = 1,
                          .dims = {p->n, 1, 1},
                          .origin = {dx, 0, 0},
                          .spacing = {dx, 0, 0},
                          .components = 1,
                          .destroy = free};
    return 0;
}

/* values: N, a, d, r, L, u0, init_frac */
static int adr1d_create(const double *v, qmol_problem *out, char *err, size_t errlen) {
    return adr1d_build("adr1d", v[0], v[1], v[2], v[2], (int64_t)v[0], v[3], v[4], v[5], v[6], out,
                       err, errlen);
}

/* values: N, a, dleft, dright, r, L, u0 */
static int adr1d_vardiff_create(const double *v, qmol_problem *out, char *err, size_t errlen) {
    return adr1d_build("adr1d-vardiff", v[0], v[1], v[2], v[3], (int64_t)v[0] / 2, v[4], v[5], v[6],
                       0.0, out, err, errlen);
}

#define N_PARAM                                                                                    \
    { "N", 1000, 2, INT32_MAX, 1, "number of nodes" }
#define A_PARAM                                                                                    \
    { "a", 1.0, 0.0, DBL_MAX, 0, "advection velocity (upwind, so >= 0)" }
#define R_PARAM                                                                                    \
    { "r", 1000.0, -DBL_MAX, DBL_MAX, 0, "reaction rate in r (u^2 - u^3)" }
#define L_PARAM                                                                                    \
    { "L", 10.0, DBL_MIN, DBL_MAX, 0, "domain length (dx = L/N)" }
#define U0_PARAM                                                                                   \
    { "u0", 1.0, -DBL_MAX, DBL_MAX, 0, "Dirichlet value at x = 0" }

static const qmol_param_def adr1d_params[] = {
    N_PARAM,
    A_PARAM,
    {"d", 1e-3, 0.0, DBL_MAX, 0, "diffusion coefficient"},
    R_PARAM,
    L_PARAM,
    U0_PARAM,
    {"init_frac", 0.2, 0.0, 1.0, 0, "fraction of nodes starting at u = 1"},
};

static const qmol_param_def adr1d_vardiff_params[] = {
    N_PARAM,
    A_PARAM,
    {"dleft", 1e-6, 0.0, DBL_MAX, 0, "diffusion on nodes i < N/2"},
    {"dright", 10.0, 0.0, DBL_MAX, 0, "diffusion on nodes i >= N/2"},
    R_PARAM,
    L_PARAM,
    U0_PARAM,
};

#define ADR1D_EQUATIONS(d)                                                                         \
    "u_i' = -a (u_i - u_{i-1})/dx + " d " (u_{i+1} - 2u_i + u_{i-1})/dx^2 + r (u_i^2 - u_i^3),\n"  \
    "  i = 0..N-2, dx = L/N, node i at x = (i+1) dx, u_{-1} = u0 (Dirichlet at x = 0);\n"          \
    "u_{N-1}' = -a (u_{N-1} - u_{N-2})/dx + " d " (2u_{N-2} - 2u_{N-1})/dx^2\n"                    \
    "  + r (u_{N-1}^2 - u_{N-1}^3) (Neumann at x = L).\n"

const qmol_problem_def problem_adr1d = {
    QMOL_API_VERSION,
    "adr1d",
    "1D advection-diffusion-reaction front (thesis 5.5.1, LIQSS benchmark)",
    ADR1D_EQUATIONS("d") "u_i(0) = 1 for i < floor(N init_frac), else 0. Default tf = 10.",
    adr1d_params,
    (int)(sizeof adr1d_params / sizeof adr1d_params[0]),
    adr1d_create,
};

const qmol_problem_def problem_adr1d_vardiff = {
    QMOL_API_VERSION,
    "adr1d-vardiff",
    "1D ADR with diffusion jumping from dleft to dright at mid-domain (thesis 7.4.2)",
    ADR1D_EQUATIONS("d_i") "d_i = dleft for i < floor(N/2) (0-based), dright otherwise.\n"
                           "u_i(0) = 0; the front enters from u0 at x = 0. Default tf = 10.",
    adr1d_vardiff_params,
    (int)(sizeof adr1d_vardiff_params / sizeof adr1d_vardiff_params[0]),
    adr1d_vardiff_create,
};
