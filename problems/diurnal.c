/* diurnal.c: diurnal, the 2-species diurnal kinetics advection-diffusion
 * problem of SUNDIALS' CVODE example cvDiurnal_kry: two species in a 2D
 * vertical slab of atmosphere, carried by a horizontal wind, mixed by
 * diffusion, and reacting with rates q3, q4 that switch on at sunrise and off
 * at sunset. c1 relaxes at q1 c3 ~ 6 /s over a day of 86400 s: stiff.
 *
 *   c_s' = Kh d2c_s/dx2 + V dc_s/dx + d/dy (Kv(y) dc_s/dy) + R_s(c1, c2, t),
 *   R_1 = -q1 c3 c1 - q2 c1 c2 + 2 q3(t) c3 + q4(t) c2,
 *   R_2 =  q1 c3 c1 - q2 c1 c2 - q4(t) c2,
 *   Kv(y) = kv0 exp(y / 5), q_j(t) = exp(-a_j / sin(w t)) if sin(w t) > 0
 *   else 0 (night), w = pi / 43200 s,
 *
 * on 0 <= x <= 20, 30 <= y <= 50 (km), homogeneous Neumann boundaries,
 * central differences on mx x my nodes including the boundaries: node
 * (jx, jy) at x = jx dx, y = 30 + jy dy, dx = 20/(mx-1), dy = 20/(my-1).
 * The Neumann condition is a mirror ghost: the missing neighbour takes the
 * value of the one on the other side. The vertical flux between jy and jy+1
 * uses Kv at the midpoint y = 30 + (jy + 1/2) dy (also outside the domain at
 * the mirrored edges, as the example does). State id = 2 (jx + mx jy) + s,
 * s = 0 for c1, 1 for c2. */
#include "problems/builtin.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define DIURNAL_XMAX 20.0 /* x in [0, 20] km */
#define DIURNAL_YMIN 30.0 /* y in [30, 50] km */
#define DIURNAL_YMAX 50.0
#define DIURNAL_C1_SCALE 1e6 /* initial profiles: c_s(x, y, 0) = scale_s a(x) b(y) */
#define DIURNAL_C2_SCALE 1e12

/* The sun: the rates q3, q4 follow sin(w t), w = pi / (half a day). */
static const double diurnal_omega = 3.14159265358979323846 / 43200.0;

typedef struct diurnal {
    int64_t mx, my;
    double dx, dy;
    double hdiff;    /* Kh / dx^2 */
    double hadv;     /* V / (2 dx) */
    double vdiff;    /* kv0 / dy^2 */
    double q1c3;     /* q1 c3 */
    double q2, c3x2; /* q2, 2 c3 */
    double a3, a4;   /* q3 = exp(-a3 / sin(w t)), q4 = exp(-a4 / sin(w t)) by day */
} diurnal;

/* The node of state id and its position on the grid. */
typedef struct diurnal_node {
    int64_t node, jx, jy;
    int species;                  /* 0: c1, 1: c2 */
    int south, west, east, north; /* which neighbours are grid nodes */
} diurnal_node;

static diurnal_node node_of(const diurnal *p, int64_t id) {
    diurnal_node n;
    n.node = id / 2;
    n.species = (int)(id % 2);
    n.jx = n.node % p->mx;
    n.jy = n.node / p->mx;
    n.south = n.jy > 0;
    n.west = n.jx > 0;
    n.east = n.jx < p->mx - 1;
    n.north = n.jy < p->my - 1;
    return n;
}

/* Kv / dy^2 on the interfaces below (jy - 1/2) and above (jy + 1/2) node jy. */
static void vertical_coefficients(const diurnal *p, int64_t jy, double *down, double *up) {
    double ydown = DIURNAL_YMIN + ((double)jy - 0.5) * p->dy;
    *down = p->vdiff * exp(0.2 * ydown);
    *up = p->vdiff * exp(0.2 * (ydown + p->dy));
}

/* A diurnal rate exp(-a / sun), sun = sin(w t): 0 at night (sun <= 0). */
static double diurnal_rate(double a, double sun) {
    return sun > 0.0 ? exp(-a / sun) : 0.0;
}

/* Every node has at least one neighbour in x and one in y (mx, my >= 2). */
static int diurnal_row_size(const void *data, int64_t id) {
    diurnal_node n = node_of(data, id);
    return 2 + n.south + n.west + n.east + n.north;
}

/* Row order (ascending ids): the species at the south and west neighbours,
 * c1 and c2 at the node, the species at the east and north neighbours. */
static void diurnal_row(const void *data, int64_t id, int64_t *cols) {
    const diurnal *p = data;
    diurnal_node n = node_of(p, id);
    int k = 0;
    if (n.south) cols[k++] = id - 2 * p->mx;
    if (n.west) cols[k++] = id - 2;
    cols[k++] = 2 * n.node;
    cols[k++] = 2 * n.node + 1;
    if (n.east) cols[k++] = id + 2;
    if (n.north) cols[k++] = id + 2 * p->mx;
}

/* The values of a row, with the mirror ghosts filled in. */
typedef struct diurnal_local {
    double south, west, c1, c2, east, north;
} diurnal_local;

static diurnal_local local_values(const diurnal_node *n, const double *vals) {
    diurnal_local v;
    int k = 0;
    v.south = n->south ? vals[k++] : 0.0;
    v.west = n->west ? vals[k++] : 0.0;
    v.c1 = vals[k++];
    v.c2 = vals[k++];
    v.east = n->east ? vals[k++] : 0.0;
    v.north = n->north ? vals[k++] : 0.0;
    if (!n->south) v.south = v.north;
    if (!n->north) v.north = v.south;
    if (!n->west) v.west = v.east;
    if (!n->east) v.east = v.west;
    return v;
}

static double diurnal_rhs(const void *data, int64_t id, double t, const double *vals) {
    const diurnal *p = data;
    diurnal_node n = node_of(p, id);
    diurnal_local v = local_values(&n, vals);
    double down, up;
    vertical_coefficients(p, n.jy, &down, &up);
    double c = n.species == 0 ? v.c1 : v.c2;
    double transport = up * (v.north - c) - down * (c - v.south) +
                       p->hdiff * (v.east - 2.0 * c + v.west) + p->hadv * (v.east - v.west);
    double sun = sin(diurnal_omega * t), q4 = diurnal_rate(p->a4, sun);
    double r1 = p->q1c3 * v.c1, r2 = p->q2 * v.c1 * v.c2;
    if (n.species == 0) return transport - r1 - r2 + p->c3x2 * diurnal_rate(p->a3, sun) + q4 * v.c2;
    return transport + r1 - r2 - q4 * v.c2;
}

/* The neighbour entries: a mirrored neighbour stands for both sides, so it
 * gets both coefficients. */
static void diurnal_jac(const void *data, int64_t id, double t, const double *vals, double *dfdv) {
    const diurnal *p = data;
    diurnal_node n = node_of(p, id);
    diurnal_local v = local_values(&n, vals);
    double down, up;
    vertical_coefficients(p, n.jy, &down, &up);
    double west = p->hdiff - p->hadv, east = p->hdiff + p->hadv;
    int k = 0;
    if (n.south) dfdv[k++] = n.north ? down : down + up;
    if (n.west) dfdv[k++] = n.east ? west : west + east;
    int i1 = k++, i2 = k++;
    if (n.east) dfdv[k++] = n.west ? east : west + east;
    if (n.north) dfdv[k++] = n.south ? up : down + up;
    double q4 = diurnal_rate(p->a4, sin(diurnal_omega * t));
    if (n.species == 0) {
        dfdv[i1] = -p->q1c3 - p->q2 * v.c2 - (down + up) - 2.0 * p->hdiff;
        dfdv[i2] = -p->q2 * v.c1 + q4;
    } else {
        dfdv[i1] = p->q1c3 - p->q2 * v.c2;
        dfdv[i2] = -p->q2 * v.c1 - q4 - (down + up) - 2.0 * p->hdiff;
    }
}

/* c_s(x, y, 0) = scale_s a(x) b(y), a(x) = 1 - u + u^2/2 with u = (0.1 (x - 10))^2,
 * b(y) the same with u = (0.1 (y - 40))^2: smooth bumps, 1 in the middle,
 * 1/2 at the edges. */
static double bump(double z) {
    double u = 0.01 * z * z;
    return 1.0 - u + 0.5 * u * u;
}

static double diurnal_x0(const void *data, int64_t id) {
    const diurnal *p = data;
    diurnal_node n = node_of(p, id);
    double x = (double)n.jx * p->dx, y = DIURNAL_YMIN + (double)n.jy * p->dy;
    double shape = bump(x - 0.5 * DIURNAL_XMAX) * bump(y - 0.5 * (DIURNAL_YMIN + DIURNAL_YMAX));
    return (n.species == 0 ? DIURNAL_C1_SCALE : DIURNAL_C2_SCALE) * shape;
}

/* The example's absolute tolerance is 100 x its relative one (ATOL = RTOL
 * FLOOR, FLOOR = 100: "the value of c1 or c2 at which tolerances change from
 * relative to absolute"). qmol's default abstol is tol / 10, so a scale of
 * 1000 gives the same rule for any --tol: --tol 1e-5 alone runs with the
 * example's tolerances. Both species get it, as in the example. */
#define DIURNAL_ABSTOL_SCALE 1000.0

static double diurnal_abstol_scale(const void *data, int64_t id) {
    (void)data, (void)id;
    return DIURNAL_ABSTOL_SCALE;
}

static const char *const diurnal_names[2] = {"c1", "c2"};

/* values: mx, my, kh, vel, kv0, q1, q2, c3, a3, a4 */
static int diurnal_create(const double *v, qmol_problem *out, char *err, size_t errlen) {
    double mx = v[0], my = v[1];
    if (2.0 * mx * my > (double)BUILTIN_MAX_STATES) {
        snprintf(err, errlen,
                 "grid of %.0f x %.0f nodes has too many states (2 per node, at most 2^53)", mx,
                 my);
        return -1;
    }
    diurnal p = {.mx = (int64_t)mx,
                 .my = (int64_t)my,
                 .dx = DIURNAL_XMAX / (mx - 1.0),
                 .dy = (DIURNAL_YMAX - DIURNAL_YMIN) / (my - 1.0),
                 .q1c3 = v[5] * v[7],
                 .q2 = v[6],
                 .c3x2 = 2.0 * v[7],
                 .a3 = v[8],
                 .a4 = v[9]};
    p.hdiff = v[2] / (p.dx * p.dx);
    p.hadv = v[3] / (2.0 * p.dx);
    p.vdiff = v[4] / (p.dy * p.dy);
    /* Coefficients that overflow would make every right-hand side inf or nan. */
    double kv_top = p.vdiff * exp(0.2 * (DIURNAL_YMAX + 0.5 * p.dy));
    if (!isfinite(p.hdiff)) {
        snprintf(err, errlen, "kh = %g is too large for dx = %g km (mx = %.0f): kh/dx^2 overflows",
                 v[2], p.dx, mx);
        return -1;
    }
    if (!isfinite(p.hadv)) {
        snprintf(err, errlen,
                 "vel = %g is too large for dx = %g km (mx = %.0f): vel/(2 dx) overflows", v[3],
                 p.dx, mx);
        return -1;
    }
    if (!isfinite(kv_top)) {
        snprintf(err, errlen,
                 "kv0 = %g is too large for dy = %g km (my = %.0f): Kv(y)/dy^2 overflows at "
                 "the top edge",
                 v[4], p.dy, my);
        return -1;
    }
    if (!isfinite(p.c3x2)) {
        snprintf(err, errlen, "c3 = %g is too large: 2 c3 (in the source 2 q3 c3) overflows", v[7]);
        return -1;
    }
    if (!isfinite(p.q1c3)) {
        snprintf(err, errlen, "q1 = %g, c3 = %g: their product q1 c3 overflows", v[5], v[7]);
        return -1;
    }
    diurnal *data = malloc(sizeof *data);
    if (!data) {
        snprintf(err, errlen, "diurnal: out of memory");
        return -1;
    }
    *data = p;
    *out = (qmol_problem){.n = 2 * p.mx * p.my,
                          .t0 = 0.0,
                          .tf = 86400.0,
                          .data = data,
                          .row_size = diurnal_row_size,
                          .row = diurnal_row,
                          .rhs = diurnal_rhs,
                          .jac = diurnal_jac,
                          .x0 = diurnal_x0,
                          .abstol_scale = diurnal_abstol_scale,
                          .explicit_time = 1,
                          .ndims = 2,
                          .dims = {p.mx, p.my, 1},
                          .origin = {0.0, DIURNAL_YMIN, 0},
                          .spacing = {p.dx, p.dy, 0},
                          .components = 2,
                          .component_names = diurnal_names,
                          .destroy = free};
    return 0;
}

static const qmol_param_def diurnal_params[] = {
    {"mx", 10, 2, INT32_MAX, 1, "nodes in x, edges included: dx = 20/(mx-1) km"},
    {"my", 10, 2, INT32_MAX, 1, "nodes in y, edges included: dy = 20/(my-1) km"},
    {"kh", 4e-6, 0.0, DBL_MAX, 0, "horizontal diffusivity Kh"},
    {"vel", 1e-3, -DBL_MAX, DBL_MAX, 0,
     "advection velocity V in x (either sign: central differences)"},
    {"kv0", 1e-8, 0.0, DBL_MAX, 0, "vertical diffusivity Kv(y) = kv0 exp(y / 5), y in km"},
    {"q1", 1.63e-16, 0.0, DBL_MAX, 0, "rate constant of the q1 c1 c3 terms"},
    {"q2", 4.66e-16, 0.0, DBL_MAX, 0, "rate constant of the q2 c1 c2 terms"},
    {"c3", 3.7e16, 0.0, DBL_MAX, 0, "concentration of the third species, held fixed"},
    {"a3", 22.62, DBL_MIN, DBL_MAX, 0, "q3(t) = exp(-a3 / sin(w t)) by day, 0 at night"},
    {"a4", 7.601, DBL_MIN, DBL_MAX, 0, "q4(t) = exp(-a4 / sin(w t)) by day, 0 at night"},
};

const qmol_problem_def problem_diurnal = {
    QMOL_API_VERSION,
    "diurnal",
    "2-species diurnal kinetics advection-diffusion (SUNDIALS cvDiurnal_kry), stiff",
    "c_s' = Kh (c_s)_xx + V (c_s)_x + (Kv(y) (c_s)_y)_y + R_s, s = 1, 2,\n"
    "  R_1 = -q1 c3 c1 - q2 c1 c2 + 2 q3(t) c3 + q4(t) c2,\n"
    "  R_2 =  q1 c3 c1 - q2 c1 c2 - q4(t) c2,  Kv(y) = kv0 exp(y/5),\n"
    "  q3,4(t) = exp(-a3,4 / sin(w t)) while sin(w t) > 0, else 0; w = pi/43200 s.\n"
    "0 <= x <= 20, 30 <= y <= 50 (km), zero-flux edges (mirror ghosts); central\n"
    "differences on mx x my nodes, boundaries included: node (jx, jy) at (jx dx,\n"
    "30 + jy dy), dx = 20/(mx-1), dy = 20/(my-1); Kv at the half nodes. State\n"
    "2 (jx + mx jy) is c1, the next c2. c_s(0) = (1e6, 1e12) a(x) b(y), a(x) =\n"
    "1 - u + u^2/2, u = (0.1 (x - 10))^2, b(y) likewise with y - 40. Default tf =\n"
    "86400 (a day; the example samples every 7200). abstol scaled by 1000 (both\n"
    "species): the default abstol tol/10 gives the example's abstol = 100 tol.",
    diurnal_params,
    (int)(sizeof diurnal_params / sizeof diurnal_params[0]),
    diurnal_create,
};
