/* thermostat.c: heat2d-thermostat, a heated plate whose heater a thermostat
 * switches on and off by zero crossings on a sensor node.
 *
 * u' = d (5-point Laplacian of u) + H Q on the heater nodes (x, y < hfrac L),
 * zero Dirichlet values around the plate (u is the rise over ambient). The
 * sensor is the node nearest the plate's centre. Two crossing functions give
 * the thermostat its hysteresis: g_0 = u_s - Toff (rising: heater off),
 * g_1 = u_s - Ton (falling: heater on). H starts at 1, u at 0.
 */
#include "problems/builtin.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct thermostat {
    int64_t nx, ny;
    double cx, cy, centre; /* neighbour weights d/h^2 and the node's own */
    double q, t_on, t_off;
    int64_t hx, hy; /* heater nodes: ix < hx and iy < hy */
    int64_t sensor;
    int heater_on; /* the discrete variable */
} thermostat;

static int stencil(const thermostat *p, int64_t i, int64_t *cols, double *coef) {
    int64_t ix = i % p->nx, iy = i / p->nx;
    int n = 0;
#define ADD(id, w)                                                                                 \
    do {                                                                                           \
        if (cols) cols[n] = (id);                                                                  \
        if (coef) coef[n] = (w);                                                                   \
        n++;                                                                                       \
    } while (0)
    ADD(i, p->centre);
    if (ix > 0) ADD(i - 1, p->cx);
    if (ix < p->nx - 1) ADD(i + 1, p->cx);
    if (iy > 0) ADD(i - p->nx, p->cy);
    if (iy < p->ny - 1) ADD(i + p->nx, p->cy);
#undef ADD
    return n;
}

static int is_heater(const thermostat *p, int64_t i) {
    return i % p->nx < p->hx && i / p->nx < p->hy;
}

static int th_row_size(const void *data, int64_t i) {
    return stencil(data, i, NULL, NULL);
}

static void th_row(const void *data, int64_t i, int64_t *cols) {
    stencil(data, i, cols, NULL);
}

static double th_rhs(const void *data, int64_t i, double t, const double *vals) {
    (void)t;
    const thermostat *p = data;
    double coef[5];
    int n = stencil(p, i, NULL, coef);
    double f = 0.0;
    for (int k = 0; k < n; k++)
        f += coef[k] * vals[k];
    if (p->heater_on && is_heater(p, i)) f += p->q;
    return f;
}

static void th_jac(const void *data, int64_t i, double t, const double *vals, double *dfdv) {
    (void)t, (void)vals;
    stencil(data, i, NULL, dfdv);
}

static double th_x0(const void *data, int64_t i) {
    (void)data, (void)i;
    return 0.0;
}

static int th_crossing_size(const void *data, int64_t c) {
    (void)data, (void)c;
    return 1;
}

static void th_crossing_row(const void *data, int64_t c, int64_t *cols) {
    (void)c;
    cols[0] = ((const thermostat *)data)->sensor;
}

static double th_crossing(const void *data, int64_t c, double t, const double *vals) {
    (void)t;
    const thermostat *p = data;
    return vals[0] - (c == 0 ? p->t_off : p->t_on);
}

static void th_get_discrete(const void *data, double *v) {
    v[0] = ((const thermostat *)data)->heater_on;
}

static void th_set_discrete(void *data, const double *v) {
    ((thermostat *)data)->heater_on = v[0] != 0.0;
}

static void th_on_crossing(void *data, int64_t c, int direction, double t) {
    (void)t;
    thermostat *p = data;
    if (c == 0 && direction > 0) p->heater_on = 0;
    if (c == 1 && direction < 0) p->heater_on = 1;
}

static void th_affected(const void *data, int64_t *ids) {
    const thermostat *p = data;
    int64_t k = 0;
    for (int64_t iy = 0; iy < p->hy; iy++)
        for (int64_t ix = 0; ix < p->hx; ix++)
            ids[k++] = ix + p->nx * iy;
}

/* values: nx, ny, d, L, Q, Ton, Toff, hfrac */
static int th_create(const double *v, qmol_problem *out, char *err, size_t errlen) {
    if (!(v[5] < v[6])) {
        snprintf(err, errlen, "Ton = %g must be below Toff = %g (the thermostat's hysteresis)",
                 v[5], v[6]);
        return -1;
    }
    thermostat *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "heat2d-thermostat: out of memory");
        return -1;
    }
    p->nx = (int64_t)v[0];
    p->ny = (int64_t)v[1];
    double d = v[2], L = v[3], hx = L / (double)(p->nx + 1), hy = L / (double)(p->ny + 1);
    p->cx = d / (hx * hx);
    p->cy = d / (hy * hy);
    p->centre = -2.0 * (p->cx + p->cy);
    p->q = v[4];
    p->t_on = v[5];
    p->t_off = v[6];
    /* heater nodes: (ix + 1) hx < hfrac L, at least one in each direction */
    p->hx = (int64_t)ceil(v[7] * L / hx - 1.0 - 1e-9);
    p->hy = (int64_t)ceil(v[7] * L / hy - 1.0 - 1e-9);
    if (p->hx < 1) p->hx = 1;
    if (p->hy < 1) p->hy = 1;
    if (p->hx > p->nx) p->hx = p->nx;
    if (p->hy > p->ny) p->hy = p->ny;
    p->sensor = (p->nx / 2) + p->nx * (p->ny / 2);
    p->heater_on = 1;
    *out = (qmol_problem){.n = p->nx * p->ny,
                          .t0 = 0.0,
                          .tf = 1.0,
                          .data = p,
                          .row_size = th_row_size,
                          .row = th_row,
                          .rhs = th_rhs,
                          .jac = th_jac,
                          .x0 = th_x0,
                          .ndims = 2,
                          .dims = {p->nx, p->ny, 1},
                          .origin = {hx, hy, 0},
                          .spacing = {hx, hy, 0},
                          .components = 1,
                          .destroy = free,
                          .n_crossings = 2,
                          .crossing_size = th_crossing_size,
                          .crossing_row = th_crossing_row,
                          .crossing = th_crossing,
                          .on_crossing = th_on_crossing,
                          .n_discrete = 1,
                          .get_discrete = th_get_discrete,
                          .set_discrete = th_set_discrete,
                          .n_affected = p->hx * p->hy,
                          .affected = th_affected};
    return 0;
}

static const qmol_param_def th_params[] = {
    {"nx", 20, 3, 100000, 1, "interior nodes in x"},
    {"ny", 20, 3, 100000, 1, "interior nodes in y"},
    {"d", 1.0, DBL_MIN, DBL_MAX, 0, "diffusivity"},
    {"L", 1.0, DBL_MIN, DBL_MAX, 0, "side of the plate [0, L]^2"},
    {"Q", 2000.0, 0.0, DBL_MAX, 0, "heating rate of a heater node while on"},
    {"Ton", 0.9, -DBL_MAX, DBL_MAX, 0, "sensor value below which the heater switches on"},
    {"Toff", 1.1, -DBL_MAX, DBL_MAX, 0, "sensor value above which the heater switches off"},
    {"hfrac", 0.3, DBL_MIN, 1.0, 0, "heater: nodes with x and y below hfrac L"},
};

const qmol_problem_def problem_heat2d_thermostat = {
    QMOL_API_VERSION,
    "heat2d-thermostat",
    "2D heated plate, heater switched by a thermostat (zero crossings on a sensor)",
    "u' = d [(u_W - 2u + u_E)/hx^2 + (u_S - 2u + u_N)/hy^2] + H Q [heater node],\n"
    "nx x ny interior nodes, hx = L/(nx+1), hy = L/(ny+1), node (i,j) at ((i+1) hx,\n"
    "(j+1) hy), id = i + nx j; u = 0 outside (ambient). Heater nodes: x, y < hfrac L.\n"
    "Sensor: node (nx/2, ny/2). Crossings: g0 = u_s - Toff (rising: H = 0), g1 = u_s -\n"
    "Ton (falling: H = 1). u(0) = 0, H(0) = 1. Default tf = 1.",
    th_params,
    (int)(sizeof th_params / sizeof th_params[0]),
    th_create,
};
