/* buck.c: buck-heatsink, the thesis's multi-domain example (4.9, ALGORITHMS.md
 * 4.9): a buck converter whose switching losses heat a 1D aluminium rod.
 *
 * States: 0 i_L, 1 u_C, 2 .. N+1 the rod's sections u_1 .. u_N (K).
 * Discrete variables: the switch (closed on [k Ts, k Ts + DC Ts)), the diode
 * (conducting or not, by a zero crossing of its current) and the switching
 * loss P = Psw on [k Ts - toff, k Ts + ton] around each turn-on, 0 otherwise.
 *
 * Choices where the thesis is silent (docs/problems.md): Psw = 10 W, about
 * U i_L / 2 at the steady i_L = U DC / R = 0.84 A (the peak of the loss
 * during a transition); the heated end sees 298 K + P Rt (the thesis prints
 * P Rt alone, a 0 K boundary whenever P = 0); the diode turns on when its
 * current i_D = (i_L Rs - U) / (Rs + Rd) rises through 0 and off when it falls
 * through 0 (the s-variable logic of the public buck.mo).
 */
#include "problems/builtin.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct buck {
    int64_t sections;
    double U, C, L, R, Ts, duty, ron, roff, rt, ton, toff, psw, tamb;
    double k; /* sigma N^2 / l^2 */
    /* discrete variables */
    int sw, diode, loss;
} buck;

enum { IL = 0, UC = 1, ROD = 2 };

static int buck_row_size(const void *data, int64_t i) {
    const buck *p = data;
    if (i == IL || i == UC) return 2;
    int64_t s = i - ROD; /* section index 0 .. N-1 */
    return (s > 0) + 1 + (s < p->sections - 1);
}

static void buck_row(const void *data, int64_t i, int64_t *cols) {
    const buck *p = data;
    if (i == IL || i == UC) {
        cols[0] = IL;
        cols[1] = UC;
        return;
    }
    int64_t s = i - ROD;
    int n = 0;
    if (s > 0) cols[n++] = i - 1;
    cols[n++] = i;
    if (s < p->sections - 1) cols[n++] = i + 1;
}

static double rs(const buck *p) {
    return p->sw ? p->ron : p->roff;
}
static double rd(const buck *p) {
    return p->diode ? p->ron : p->roff;
}

/* The diode's current from i_L. */
static double diode_current(const buck *p, double il) {
    return (il * rs(p) - p->U) / (rs(p) + rd(p));
}

static double buck_rhs(const void *data, int64_t i, double t, const double *v) {
    (void)t;
    const buck *p = data;
    if (i == IL) return (-diode_current(p, v[0]) * rd(p) - v[1]) / p->L;
    if (i == UC) return (v[0] - v[1] / p->R) / p->C;
    int64_t s = i - ROD;
    double west = s > 0 ? v[0] : p->tamb + (p->loss ? p->psw * p->rt : 0.0);
    double self = s > 0 ? v[1] : v[0];
    double east = s < p->sections - 1 ? v[s > 0 ? 2 : 1] : p->tamb;
    return p->k * (west - 2.0 * self + east);
}

static void buck_jac(const void *data, int64_t i, double t, const double *v, double *d) {
    (void)t, (void)v;
    const buck *p = data;
    if (i == IL) {
        double a = rs(p), b = rd(p);
        d[0] = -a * b / ((a + b) * p->L);
        d[1] = -1.0 / p->L;
        return;
    }
    if (i == UC) {
        d[0] = 1.0 / p->C;
        d[1] = -1.0 / (p->R * p->C);
        return;
    }
    int64_t s = i - ROD;
    int n = 0;
    if (s > 0) d[n++] = p->k;
    d[n++] = -2.0 * p->k;
    if (s < p->sections - 1) d[n++] = p->k;
}

static double buck_x0(const void *data, int64_t i) {
    const buck *p = data;
    return i < ROD ? 0.0 : p->tamb;
}

/* Switch and loss just after t: t's phase in its period, read a quarter of
 * the shortest gap between events later, so an event time computed with
 * rounding still lands on the right side of its boundary. */
static void phase_state(const buck *p, double t, int *sw, int *loss) {
    double gap = fmin(fmin(p->ton, p->toff),
                      fmin(p->duty * p->Ts - p->ton, (1.0 - p->duty) * p->Ts - p->toff));
    double u = t + 0.25 * gap;
    double ph = u - floor(u / p->Ts) * p->Ts;
    *sw = ph < p->duty * p->Ts;
    *loss = ph < p->ton || ph >= p->Ts - p->toff;
}

static double buck_next_event(const void *data, double t) {
    const buck *p = data;
    const double offsets[4] = {0.0, p->ton, p->duty * p->Ts, p->Ts - p->toff};
    double k0 = floor(t / p->Ts), best = INFINITY;
    for (double k = k0 - 1.0; k <= k0 + 2.0; k += 1.0)
        for (int o = 0; o < 4; o++) {
            double te = k * p->Ts + offsets[o];
            if (te > t && te < best) best = te;
        }
    return best;
}

static void buck_time_event(void *data, double t) {
    buck *p = data;
    phase_state(p, t, &p->sw, &p->loss);
}

static int buck_crossing_size(const void *data, int64_t c) {
    (void)data, (void)c;
    return 1;
}

static void buck_crossing_row(const void *data, int64_t c, int64_t *cols) {
    (void)data, (void)c;
    cols[0] = IL;
}

static double buck_crossing(const void *data, int64_t c, double t, const double *v) {
    (void)c, (void)t;
    return diode_current(data, v[0]);
}

static void buck_get_discrete(const void *data, double *v) {
    const buck *b = data;
    v[0] = b->sw, v[1] = b->diode, v[2] = b->loss;
}

static void buck_set_discrete(void *data, const double *v) {
    buck *b = data;
    b->sw = v[0] != 0.0, b->diode = v[1] != 0.0, b->loss = v[2] != 0.0;
}

static void buck_on_crossing(void *data, int64_t c, int direction, double t) {
    (void)c, (void)t;
    ((buck *)data)->diode = direction > 0;
}

static void buck_affected(const void *data, int64_t *ids) {
    (void)data;
    ids[0] = IL;
    ids[1] = ROD; /* the heated end reads P */
}

/* values: N, U, C, L, R, f, DC, Ron, Roff, Rt, ton, toff, Psw, l */
static int buck_create(const double *v, qmol_problem *out, char *err, size_t errlen) {
    double Ts = 1.0 / v[5];
    if (!(v[10] < v[6] * Ts) || !(v[11] < (1.0 - v[6]) * Ts)) {
        snprintf(err, errlen,
                 "ton = %g s must be shorter than the on-time DC / f = %g s and toff = %g s "
                 "shorter than the off-time (1 - DC) / f = %g s",
                 v[10], v[6] * Ts, v[11], (1.0 - v[6]) * Ts);
        return -1;
    }
    buck *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errlen, "buck-heatsink: out of memory");
        return -1;
    }
    p->sections = (int64_t)v[0];
    p->U = v[1], p->C = v[2], p->L = v[3], p->R = v[4], p->Ts = Ts, p->duty = v[6];
    p->ron = v[7], p->roff = v[8], p->rt = v[9], p->ton = v[10], p->toff = v[11];
    p->psw = v[12];
    p->tamb = 298.0;
    /* aluminium: lambda 209.3 W/(m K), rho 2698.4 kg/m^3, c 900 J/(kg K) */
    double sigma = 209.3 / (2698.4 * 900.0), n = (double)p->sections;
    p->k = sigma * n * n / (v[13] * v[13]);
    phase_state(p, 0.0, &p->sw, &p->loss);
    p->diode = 0;
    *out = (qmol_problem){.n = p->sections + ROD,
                          .t0 = 0.0,
                          .tf = 60.0,
                          .data = p,
                          .row_size = buck_row_size,
                          .row = buck_row,
                          .rhs = buck_rhs,
                          .jac = buck_jac,
                          .x0 = buck_x0,
                          .components = 1,
                          .destroy = free,
                          .n_crossings = 1,
                          .crossing_size = buck_crossing_size,
                          .crossing_row = buck_crossing_row,
                          .crossing = buck_crossing,
                          .on_crossing = buck_on_crossing,
                          .next_time_event = buck_next_event,
                          .on_time_event = buck_time_event,
                          .n_discrete = 3,
                          .get_discrete = buck_get_discrete,
                          .set_discrete = buck_set_discrete,
                          .n_affected = 2,
                          .affected = buck_affected};
    return 0;
}

static const qmol_param_def buck_params[] = {
    {"N", 100, 2, 100000000, 1, "rod sections"},
    {"U", 24.0, 0.0, DBL_MAX, 0, "input voltage (V)"},
    {"C", 1e-2, DBL_MIN, DBL_MAX, 0, "capacitance (F)"},
    {"L", 1e-2, DBL_MIN, DBL_MAX, 0, "inductance (H)"},
    {"R", 10.0, DBL_MIN, DBL_MAX, 0, "load (ohm)"},
    {"f", 1e4, DBL_MIN, 1e9, 0, "switching frequency (Hz)"},
    {"DC", 0.35, DBL_MIN, 0.999, 0, "duty cycle"},
    {"Ron", 1e-5, DBL_MIN, DBL_MAX, 0, "switch/diode resistance when on (ohm)"},
    {"Roff", 1e5, DBL_MIN, DBL_MAX, 0, "switch/diode resistance when off (ohm)"},
    {"Rt", 7.5, 0.0, DBL_MAX, 0, "thermal resistance, loss to heated end (K/W)"},
    {"ton", 1.3e-6, DBL_MIN, DBL_MAX, 0, "loss lasts this long after turn-on (s)"},
    {"toff", 5.5e-6, DBL_MIN, DBL_MAX, 0, "loss starts this long before turn-on (s)"},
    {"Psw", 10.0, 0.0, DBL_MAX, 0, "switching loss while it lasts (W)"},
    {"l", 0.025, DBL_MIN, DBL_MAX, 0, "rod length (m)"},
};

const qmol_problem_def problem_buck_heatsink = {
    QMOL_API_VERSION,
    "buck-heatsink",
    "buck converter whose switching losses heat an aluminium rod (thesis 4.9)",
    "i_D = (i_L Rs - U)/(Rs + Rd); i_L' = (-i_D Rd - u_C)/L; u_C' = (i_L - u_C/R)/C;\n"
    "Rs = Ron while the switch is closed (t mod 1/f < DC/f), else Roff; Rd = Ron\n"
    "while the diode conducts (on when i_D rises through 0, off when it falls);\n"
    "u_1' = k (298 + P Rt - 2 u_1 + u_2), u_i' = k (u_{i-1} - 2 u_i + u_{i+1}),\n"
    "u_N' = k (u_{N-1} - 2 u_N + 298), k = sigma N^2 / l^2, sigma = 209.3 / (2698.4 *\n"
    "900) m^2/s (aluminium); P = Psw on [j/f - toff, j/f + ton], else 0. States: 0\n"
    "i_L, 1 u_C, 2.. u_1..u_N. i_L(0) = u_C(0) = 0, u_i(0) = 298. Default tf = 60.",
    buck_params,
    (int)(sizeof buck_params / sizeof buck_params[0]),
    buck_create,
};
