/* adr2d.c: adr2d, a 2D advection-diffusion-reaction front on an nx x ny grid,
 * the 2D analogue of adr1d for partitioning and scaling runs (the thesis has
 * no 2D ADR). Advection is upwind in both directions, so ax, ay >= 0.
 *
 * Node (ix, iy), id = ix + nx iy, sits at x = (ix+1) dx, y = (iy+0.5) dy with
 * dx = Lx/nx, dy = Ly/ny: in x as in adr1d, so the west ghost column is x = 0
 * and holds the Dirichlet inflow u0; in y cell-centred. On the east, south and
 * north edges the ghost equals the node (zero flux), so those terms vanish.
 * With per-neighbour weights,
 *   f = wW (uW - u) + wE (uE - u) + wS (uS - u) + wN (uN - u) + r (u^2 - u^3),
 *   wW = ax/dx + d/dx^2, wE = d/dx^2, wS = ay/dy + d/dy^2, wN = d/dy^2. */
#include "problems/builtin.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct adr2d {
    int64_t nx, ny;
    double w_west, w_east, w_south, w_north;
    double r, u0;
    int64_t init_cols, init_rows; /* u(0) = 1 on ix < init_cols, iy < init_rows */
} adr2d;

/* Which neighbours are grid states (the others are ghosts). */
typedef struct adr2d_sides {
    int south, west, east, north;
} adr2d_sides;

static adr2d_sides sides_of(const adr2d *p, int64_t i) {
    int64_t ix = i % p->nx, iy = i / p->nx;
    return (adr2d_sides){iy > 0, ix > 0, ix < p->nx - 1, iy < p->ny - 1};
}

static int adr2d_row_size(const void *data, int64_t i) {
    adr2d_sides s = sides_of(data, i);
    return 1 + s.south + s.west + s.east + s.north;
}

/* Row order (ascending ids): south, west, the node, east, north. */
static void adr2d_row(const void *data, int64_t i, int64_t *cols) {
    const adr2d *p = data;
    adr2d_sides s = sides_of(p, i);
    int k = 0;
    if (s.south) cols[k++] = i - p->nx;
    if (s.west) cols[k++] = i - 1;
    cols[k++] = i;
    if (s.east) cols[k++] = i + 1;
    if (s.north) cols[k++] = i + p->nx;
}

static inline double adr2d_f(const adr2d *p, adr2d_sides s, const double *vals) {
    int k = 0;
    double south = s.south ? vals[k++] : 0.0;
    double west = s.west ? vals[k++] : p->u0;
    double u = vals[k++];
    double east = s.east ? vals[k++] : 0.0;
    double north = s.north ? vals[k++] : 0.0;
    double f = p->w_west * (west - u) + adr_reaction(p->r, u);
    /* A missing east/south/north neighbour is a zero-flux ghost: no term. */
    if (s.south) f += p->w_south * (south - u);
    if (s.east) f += p->w_east * (east - u);
    if (s.north) f += p->w_north * (north - u);
    return f;
}

static inline void adr2d_dfdv(const adr2d *p, adr2d_sides s, const double *vals, double *dfdv) {
    int k = 0, centre;
    if (s.south) dfdv[k++] = p->w_south;
    if (s.west) dfdv[k++] = p->w_west;
    centre = k++;
    if (s.east) dfdv[k++] = p->w_east;
    if (s.north) dfdv[k++] = p->w_north;
    double u = vals[centre];
    /* The west term stays on the diagonal even at the Dirichlet edge. */
    dfdv[centre] = -p->w_west - (s.south ? p->w_south : 0.0) - (s.east ? p->w_east : 0.0) -
                   (s.north ? p->w_north : 0.0) + adr_reaction_slope(p->r, u);
}

static double adr2d_rhs(const void *data, int64_t i, double t, const double *vals) {
    (void)t;
    return adr2d_f(data, sides_of(data, i), vals);
}

static void adr2d_jac(const void *data, int64_t i, double t, const double *vals, double *dfdv) {
    (void)t;
    adr2d_dfdv(data, sides_of(data, i), vals, dfdv);
}

static double adr2d_rhs_jac(const void *data, int64_t i, double t, const double *vals,
                            double *dfdv) {
    (void)t;
    adr2d_sides s = sides_of(data, i);
    adr2d_dfdv(data, s, vals, dfdv);
    return adr2d_f(data, s, vals);
}

/* The reaction, the one term not linear in the row's values (qmol.h). */
static double adr2d_own_term(const void *data, int64_t i, double u, double *dgdu) {
    (void)i;
    const adr2d *p = data;
    *dgdu = adr_reaction_slope(p->r, u);
    return adr_reaction(p->r, u);
}

static double adr2d_x0(const void *data, int64_t i) {
    const adr2d *p = data;
    return i % p->nx < p->init_cols && i / p->nx < p->init_rows ? 1.0 : 0.0;
}

/* values: nx, ny, Lx, Ly, ax, ay, d, r, u0, init_frac, init_yfrac */
static int adr2d_create(const double *v, qmol_problem *out, char *err, size_t errlen) {
    double nx = v[0], ny = v[1], Lx = v[2], Ly = v[3], ax = v[4], ay = v[5], d = v[6];
    if (nx * ny > (double)BUILTIN_MAX_STATES) {
        snprintf(err, errlen, "adr2d: grid of %.0f nodes is too large (at most 2^53)", nx * ny);
        return -1;
    }
    adr2d *p = malloc(sizeof *p);
    if (!p) {
        snprintf(err, errlen, "adr2d: out of memory");
        return -1;
    }
    double dx = Lx / nx, dy = Ly / ny;
    p->nx = (int64_t)nx;
    p->ny = (int64_t)ny;
    p->w_west = ax / dx + d / (dx * dx);
    p->w_east = d / (dx * dx);
    p->w_south = ay / dy + d / (dy * dy);
    p->w_north = d / (dy * dy);
    p->r = v[7];
    p->u0 = v[8];
    /* The slack keeps e.g. 100 * 0.2 = 20 from rounding down to 19. */
    p->init_cols = (int64_t)floor(nx * v[9] + 1e-9);
    p->init_rows = (int64_t)floor(ny * v[10] + 1e-9);
    *out = (qmol_problem){.n = p->nx * p->ny,
                          .t0 = 0.0,
                          .tf = 10.0,
                          .data = p,
                          .row_size = adr2d_row_size,
                          .row = adr2d_row,
                          .rhs = adr2d_rhs,
                          .jac = adr2d_jac,
                          .rhs_jac = adr2d_rhs_jac,
                          .own_term = adr2d_own_term,
                          .x0 = adr2d_x0,
                          .ndims = 2,
                          .dims = {p->nx, p->ny, 1},
                          .origin = {dx, 0.5 * dy, 0},
                          .spacing = {dx, dy, 0},
                          .components = 1,
                          .destroy = free};
    return 0;
}

static const qmol_param_def adr2d_params[] = {
    {"nx", 100, 1, INT32_MAX, 1, "nodes in x"},
    {"ny", 100, 1, INT32_MAX, 1, "nodes in y"},
    {"Lx", 10.0, DBL_MIN, DBL_MAX, 0, "domain length in x (dx = Lx/nx)"},
    {"Ly", 10.0, DBL_MIN, DBL_MAX, 0, "domain length in y (dy = Ly/ny)"},
    {"ax", 1.0, 0.0, DBL_MAX, 0, "advection velocity in x (upwind, so >= 0)"},
    {"ay", 0.5, 0.0, DBL_MAX, 0, "advection velocity in y (upwind, so >= 0)"},
    {"d", 1e-3, 0.0, DBL_MAX, 0, "diffusion coefficient"},
    {"r", 10.0, -DBL_MAX, DBL_MAX, 0, "reaction rate in r (u^2 - u^3)"},
    {"u0", 1.0, -DBL_MAX, DBL_MAX, 0, "Dirichlet inflow value on the west edge x = 0"},
    {"init_frac", 0.2, 0.0, 1.0, 0, "fraction of columns (in x) starting at u = 1"},
    {"init_yfrac", 0.5, 0.0, 1.0, 0, "fraction of rows (in y) starting at u = 1"},
};

const qmol_problem_def problem_adr2d = {
    QMOL_API_VERSION,
    "adr2d",
    "2D advection-diffusion-reaction front, upwind in x and y",
    "u' = -ax (u - uW)/dx - ay (u - uS)/dy + d [(uE - 2u + uW)/dx^2 + (uN - 2u + uS)/dy^2]\n"
    "  + r (u^2 - u^3) on nx x ny nodes, id = ix + nx iy, dx = Lx/nx, dy = Ly/ny,\n"
    "  node at x = (ix+1) dx, y = (iy+0.5) dy.\n"
    "West ghost (x = 0) = u0 (Dirichlet inflow); east, south and north ghosts equal\n"
    "the node (zero flux). u(0) = 1 on the rectangle ix < floor(nx init_frac),\n"
    "iy < floor(ny init_yfrac), else 0. With the defaults the fronts move at about\n"
    "1.5 in x (ax = 1 plus the reaction) and fill the band y > 5 from the inflow edge\n"
    "and from below (ay = 0.5): u > 0.5 everywhere by t ~ 7 < tf = 10.",
    adr2d_params,
    (int)(sizeof adr2d_params / sizeof adr2d_params[0]),
    adr2d_create,
};
