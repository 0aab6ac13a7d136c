/* heat.c: heat1d, heat2d, heat3d. x' = d * (standard 3/5/7-point Laplacian of
 * x) on the interior nodes of [0, L]^dim, zero Dirichlet values outside the
 * grid, started on one sine mode. A sine mode is an eigenvector of the
 * discrete Laplacian, so the semi-discrete system has a known exact solution:
 * method tests measure the time-integration error alone, with no spatial
 * error mixed in. One implementation serves all three dimensions. */
#include "problems/builtin.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Not M_PI: strict C11 headers do not define it. */
static const double pi = 3.14159265358979323846;

typedef struct heat {
    int ndims;
    int64_t dims[3];    /* nodes per dimension; 1 for unused dimensions */
    double h[3];        /* node spacing L / (dims + 1) */
    double coupling[3]; /* d / h^2: the weight of each neighbour */
    double centre;      /* -2 * sum of coupling: the weight of the node itself */
    double kpi_over_L[3];
    double amplitude;
    double lambda; /* decay rate of the mode */
} heat;

/* Fills the stencil of node i: itself first, then its lower and upper
 * neighbour in each dimension when they are inside the grid (a neighbour
 * outside holds the Dirichlet value 0 and contributes nothing). cols or coef
 * may be NULL. Returns the number of entries. */
static int stencil(const heat *p, int64_t i, int64_t *cols, double *coef) {
    int n = 0;
    if (cols) cols[n] = i;
    if (coef) coef[n] = p->centre;
    n++;
    int64_t stride = 1, rest = i;
    for (int dim = 0; dim < p->ndims; dim++) {
        int64_t pos = rest % p->dims[dim];
        rest /= p->dims[dim];
        if (pos > 0) {
            if (cols) cols[n] = i - stride;
            if (coef) coef[n] = p->coupling[dim];
            n++;
        }
        if (pos < p->dims[dim] - 1) {
            if (cols) cols[n] = i + stride;
            if (coef) coef[n] = p->coupling[dim];
            n++;
        }
        stride *= p->dims[dim];
    }
    return n;
}

static int heat_row_size(const void *data, int64_t i) {
    return stencil(data, i, NULL, NULL);
}

static void heat_row(const void *data, int64_t i, int64_t *cols) {
    stencil(data, i, cols, NULL);
}

/* f and its Jacobian row: the row's coefficients are its Jacobian row */
static double heat_rhs_jac(const void *data, int64_t i, double t, const double *vals,
                           double *dfdv) {
    (void)t;
    double f = 0.0;
    int n = stencil(data, i, NULL, dfdv);
    for (int k = 0; k < n; k++)
        f += dfdv[k] * vals[k];
    return f;
}

static double heat_rhs(const void *data, int64_t i, double t, const double *vals) {
    double coef[7];
    return heat_rhs_jac(data, i, t, vals, coef);
}

static void heat_jac(const void *data, int64_t i, double t, const double *vals, double *dfdv) {
    (void)t;
    (void)vals;
    stencil(data, i, NULL, dfdv);
}

/* Every row is linear (qmol.h own_term): no term of its own. */
static double heat_own_term(const void *data, int64_t i, double v, double *dgdv) {
    (void)data, (void)i, (void)v;
    *dgdv = 0.0;
    return 0.0;
}

static double heat_x0(const void *data, int64_t i) {
    const heat *p = data;
    double x = p->amplitude;
    int64_t rest = i;
    for (int dim = 0; dim < p->ndims; dim++) {
        int64_t pos = rest % p->dims[dim];
        rest /= p->dims[dim];
        x *= sin(p->kpi_over_L[dim] * p->h[dim] * (double)(pos + 1));
    }
    return x;
}

static double heat_exact(const void *data, int64_t i, double t) {
    const heat *p = data;
    return heat_x0(data, i) * exp(-p->lambda * t);
}

/* values: the grid sizes (ndims of them), d, L, the mode numbers (ndims), A. */
static int heat_create(int ndims, const double *values, qmol_problem *out, char *err,
                       size_t errlen) {
    const double *sizes = values, d = values[ndims], L = values[ndims + 1];
    const double *modes = values + ndims + 2, amplitude = values[2 * ndims + 2];
    double total = 1.0;
    for (int dim = 0; dim < ndims; dim++)
        total *= sizes[dim];
    if (total > (double)BUILTIN_MAX_STATES) {
        snprintf(err, errlen, "heat%dd: grid of %.0f nodes is too large (at most 2^53)", ndims,
                 total);
        return -1;
    }
    heat *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "heat%dd: out of memory", ndims);
        return -1;
    }
    p->ndims = ndims;
    p->amplitude = amplitude;
    *out = (qmol_problem){
        .n = 1, .t0 = 0.0, .tf = 0.1, .data = p, .ndims = ndims, .components = 1, .destroy = free};
    for (int dim = 0; dim < 3; dim++) {
        int used = dim < ndims;
        p->dims[dim] = used ? (int64_t)sizes[dim] : 1;
        out->dims[dim] = p->dims[dim];
        if (!used) continue;
        p->h[dim] = L / (double)(p->dims[dim] + 1);
        p->coupling[dim] = d / (p->h[dim] * p->h[dim]);
        p->centre -= 2.0 * p->coupling[dim];
        p->kpi_over_L[dim] = modes[dim] * pi / L;
        double s = sin(0.5 * p->kpi_over_L[dim] * p->h[dim]);
        /* The discrete Laplacian's eigenvalue for this mode, not the continuous
         * k^2 pi^2 / L^2: the exact solution is the semi-discrete one. */
        p->lambda += 4.0 * p->coupling[dim] * s * s;
        out->origin[dim] = p->h[dim];
        out->spacing[dim] = p->h[dim];
        out->n *= p->dims[dim];
    }
    out->row_size = heat_row_size;
    out->row = heat_row;
    out->rhs = heat_rhs;
    out->jac = heat_jac;
    out->rhs_jac = heat_rhs_jac;
    out->own_term = heat_own_term;
    out->x0 = heat_x0;
    out->exact = heat_exact;
    return 0;
}

static int heat1d_create(const double *v, qmol_problem *out, char *err, size_t errlen) {
    return heat_create(1, v, out, err, errlen);
}
static int heat2d_create(const double *v, qmol_problem *out, char *err, size_t errlen) {
    return heat_create(2, v, out, err, errlen);
}
static int heat3d_create(const double *v, qmol_problem *out, char *err, size_t errlen) {
    return heat_create(3, v, out, err, errlen);
}

#define GRID(name, value, doc)                                                                     \
    { name, value, 1, INT32_MAX, 1, doc }
#define D_PARAM                                                                                    \
    { "d", 1.0, 0.0, DBL_MAX, 0, "diffusivity" }
#define L_PARAM                                                                                    \
    { "L", 1.0, DBL_MIN, DBL_MAX, 0, "side of the domain [0, L]^dim" }
#define MODE(name, doc)                                                                            \
    { name, 1, 1, INT32_MAX, 1, doc }
#define A_PARAM                                                                                    \
    { "A", 1.0, -DBL_MAX, DBL_MAX, 0, "amplitude of the initial mode" }

static const qmol_param_def heat1d_params[] = {GRID("N", 100, "interior nodes"), D_PARAM, L_PARAM,
                                               MODE("kx", "mode number (half-waves across [0, L])"),
                                               A_PARAM};
static const qmol_param_def heat2d_params[] = {
    GRID("nx", 50, "interior nodes in x"), GRID("ny", 50, "interior nodes in y"), D_PARAM, L_PARAM,
    MODE("kx", "mode number in x"),        MODE("ky", "mode number in y"),        A_PARAM};
static const qmol_param_def heat3d_params[] = {GRID("nx", 20, "interior nodes in x"),
                                               GRID("ny", 20, "interior nodes in y"),
                                               GRID("nz", 20, "interior nodes in z"),
                                               D_PARAM,
                                               L_PARAM,
                                               MODE("kx", "mode number in x"),
                                               MODE("ky", "mode number in y"),
                                               MODE("kz", "mode number in z"),
                                               A_PARAM};

#define HEAT_COMMON                                                                                \
    "Zero Dirichlet values outside the grid. Semi-discrete exact solution\n"                       \
    "  x(t) = x(0) exp(-lambda t), lambda = d sum_dims (4/h^2) sin^2(k pi h / (2L)),\n"            \
    "so errors measure time integration only. Default tf = 0.1 (the default mode\n"                \
    "decays by about e^-1, e^-2, e^-3 in 1D, 2D, 3D)."

const qmol_problem_def problem_heat1d = {
    QMOL_API_VERSION,
    "heat1d",
    "1D heat equation, 3-point Laplacian, exact semi-discrete solution",
    "x_i' = d (x_{i-1} - 2 x_i + x_{i+1}) / h^2, i = 0..N-1, h = L/(N+1),\n"
    "node i at x = (i+1) h; x_i(0) = A sin(kx pi x / L).\n" HEAT_COMMON,
    heat1d_params,
    (int)(sizeof heat1d_params / sizeof heat1d_params[0]),
    heat1d_create,
};

const qmol_problem_def problem_heat2d = {
    QMOL_API_VERSION,
    "heat2d",
    "2D heat equation, 5-point Laplacian, exact semi-discrete solution",
    "x' = d [(x_W - 2x + x_E)/hx^2 + (x_S - 2x + x_N)/hy^2] on nx x ny interior nodes,\n"
    "hx = L/(nx+1), hy = L/(ny+1), node (i,j) at ((i+1) hx, (j+1) hy), id = i + nx j;\n"
    "x(0) = A sin(kx pi x / L) sin(ky pi y / L).\n" HEAT_COMMON,
    heat2d_params,
    (int)(sizeof heat2d_params / sizeof heat2d_params[0]),
    heat2d_create,
};

const qmol_problem_def problem_heat3d = {
    QMOL_API_VERSION,
    "heat3d",
    "3D heat equation, 7-point Laplacian, exact semi-discrete solution",
    "x' = d sum over x, y, z of (x_lo - 2x + x_hi)/h^2 on nx x ny x nz interior nodes,\n"
    "h = L/(n+1) per dimension, node (i,j,k) at ((i+1) hx, (j+1) hy, (k+1) hz),\n"
    "id = i + nx (j + ny k); x(0) = A sin(kx pi x/L) sin(ky pi y/L) sin(kz pi z/L).\n" HEAT_COMMON,
    heat3d_params,
    (int)(sizeof heat3d_params / sizeof heat3d_params[0]),
    heat3d_create,
};
