/* gray_scott.c: the tutorial's problem (docs/tutorial.md), written from
 * scratch as a qmol plugin: Gray-Scott reaction-diffusion on an nx x ny
 * periodic grid, two species per cell.
 *
 *   u' = Du lap(u) - u v^2 + F (1 - u)
 *   v' = Dv lap(v) + u v^2 - (F + k) v
 *
 * lap is the 5-point Laplacian with spacing h. State ids interleave the
 * species, as qmol's grid numbering asks: cell (ix, iy) holds u at
 * 2 (ix + nx iy) and v at 2 (ix + nx iy) + 1. At t = 0, u = 1 and v = 0
 * except a square of side nx/5 in the middle, where u = 1/2 and v = 1/4:
 * the seed from which spots grow.
 */
#include "qmol.h"

#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct gray_scott {
    int64_t nx, ny;
    double du, dv, f, k; /* Du / h^2, Dv / h^2, F, k */
} gray_scott;

/* A cell's neighbour (periodic): dx, dy in {-1, 0, 1}. */
static int64_t neighbour(const gray_scott *p, int64_t cell, int dx, int dy) {
    int64_t ix = cell % p->nx, iy = cell / p->nx;
    ix = (ix + dx + p->nx) % p->nx;
    iy = (iy + dy + p->ny) % p->ny;
    return ix + p->nx * iy;
}

/* Row of a state: its cell's u and v, then its species at the four
 * neighbours (west, east, south, north). Needs nx, ny >= 3, so that the
 * four neighbours are distinct cells. */
static int gs_row_size(const void *data, int64_t id) {
    (void)data, (void)id;
    return 6;
}

static void gs_row(const void *data, int64_t id, int64_t *cols) {
    const gray_scott *p = data;
    int64_t cell = id / 2, c = id % 2;
    cols[0] = 2 * cell;
    cols[1] = 2 * cell + 1;
    cols[2] = 2 * neighbour(p, cell, -1, 0) + c;
    cols[3] = 2 * neighbour(p, cell, 1, 0) + c;
    cols[4] = 2 * neighbour(p, cell, 0, -1) + c;
    cols[5] = 2 * neighbour(p, cell, 0, 1) + c;
}

/* vals: u, v, then the species' four neighbours, as gs_row lists them. */
static double gs_rhs(const void *data, int64_t id, double t, const double *vals) {
    (void)t;
    const gray_scott *p = data;
    double u = vals[0], v = vals[1], uvv = u * v * v;
    double self = id % 2 == 0 ? u : v;
    double lap = vals[2] + vals[3] + vals[4] + vals[5] - 4.0 * self;
    if (id % 2 == 0) return p->du * lap - uvv + p->f * (1.0 - u);
    return p->dv * lap + uvv - (p->f + p->k) * v;
}

/* The Jacobian row (optional: without it qmol differentiates numerically). */
static void gs_jac(const void *data, int64_t id, double t, const double *vals, double *dfdv) {
    (void)t;
    const gray_scott *p = data;
    double u = vals[0], v = vals[1], d = id % 2 == 0 ? p->du : p->dv;
    if (id % 2 == 0) {
        dfdv[0] = -v * v - p->f - 4.0 * d; /* d/du */
        dfdv[1] = -2.0 * u * v;            /* d/dv */
    } else {
        dfdv[0] = v * v;
        dfdv[1] = 2.0 * u * v - (p->f + p->k) - 4.0 * d;
    }
    for (int k = 2; k < 6; k++)
        dfdv[k] = d;
}

static double gs_x0(const void *data, int64_t id) {
    const gray_scott *p = data;
    int64_t cell = id / 2, ix = cell % p->nx, iy = cell / p->nx;
    int64_t lo_x = 2 * p->nx / 5, hi_x = 3 * p->nx / 5, lo_y = 2 * p->ny / 5, hi_y = 3 * p->ny / 5;
    int seed = ix >= lo_x && ix < hi_x && iy >= lo_y && iy < hi_y;
    if (id % 2 == 0) return seed ? 0.5 : 1.0;
    return seed ? 0.25 : 0.0;
}

/* values: nx, ny, Du, Dv, F, k, L (the side of the square domain) */
/* The components' names: /fields/u, /fields/v and the fields in ParaView. */
static const char *const gs_names[2] = {"u", "v"};

static int gs_create(const double *values, qmol_problem *out, char *err, size_t errlen) {
    gray_scott *p = malloc(sizeof *p);
    if (!p) {
        snprintf(err, errlen, "gray-scott: out of memory");
        return -1;
    }
    p->nx = (int64_t)values[0];
    p->ny = (int64_t)values[1];
    double h = values[6] / (double)p->nx;
    p->du = values[2] / (h * h);
    p->dv = values[3] / (h * h);
    p->f = values[4];
    p->k = values[5];
    *out = (qmol_problem){.n = 2 * p->nx * p->ny,
                          .t0 = 0.0,
                          .tf = 1000.0,
                          .data = p,
                          .row_size = gs_row_size,
                          .row = gs_row,
                          .rhs = gs_rhs,
                          .jac = gs_jac,
                          .x0 = gs_x0,
                          .ndims = 2,
                          .dims = {p->nx, p->ny, 1},
                          .origin = {0.5 * h, 0.5 * h, 0},
                          .spacing = {h, h, 0},
                          .components = 2,
                          .component_names = gs_names,
                          .destroy = free};
    return 0;
}

static const qmol_param_def gs_params[] = {
    {"nx", 64, 3, 1000000, 1, "cells in x"},
    {"ny", 64, 3, 1000000, 1, "cells in y"},
    {"Du", 2e-5, 0.0, DBL_MAX, 0, "diffusion coefficient of u"},
    {"Dv", 1e-5, 0.0, DBL_MAX, 0, "diffusion coefficient of v"},
    {"F", 0.03, 0.0, DBL_MAX, 0, "feed rate"},
    {"k", 0.06, 0.0, DBL_MAX, 0, "kill rate"},
    {"L", 1.0, DBL_MIN, DBL_MAX, 0, "side of the square domain"},
};

static const qmol_problem_def gs_def = {
    QMOL_API_VERSION,
    "gray-scott",
    "2D Gray-Scott reaction-diffusion, periodic, two species per cell (tutorial)",
    "u' = Du lap(u) - u v^2 + F (1 - u), v' = Dv lap(v) + u v^2 - (F + k) v on an\n"
    "nx x ny periodic grid of side L; u = 1, v = 0 but u = 1/2, v = 1/4 on the\n"
    "middle fifth; state 2 (ix + nx iy) is u, the next one v. tf = 1000.",
    gs_params,
    (int)(sizeof gs_params / sizeof gs_params[0]),
    gs_create,
};

/* The one symbol qmol looks for in a plugin. */
const qmol_problem_def *qmol_plugin_problem(void) {
    return &gs_def;
}
