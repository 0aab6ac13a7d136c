/* bqss.c: Backward QSS (seed 001; ALGORITHMS.md A.3-A.5), in direct event-loop
 * form of its DEVS quantized integrator.
 *
 * Each state keeps a lower and an upper level one quantum apart around x; q is
 * the level in the direction x moves. When no direction is consistent (the
 * sign of f_i flips with the choice) x_i is frozen (slope 0), which is how
 * BQSS settles at an equilibrium without oscillating. Hysteresis width
 * eps = dQ/100, as in PowerDEVS. "Already transitioned at this instant" is
 * t == last transition time, compared exactly.
 */
#include "qss_engine.h"

#include <math.h>
#include <stdlib.h>

typedef struct bqss_data {
    double *lower, *upper, *last;
} bqss_data;

static void schedule(qss_engine *e, int32_t i, double t, double sigma) {
    heap_update(&e->heap, i, isinf(sigma) ? INFINITY : t + sigma);
}

/* x_i is at its quantized value q_i up to rounding: the crossing is due now.
 * Exact equality fails when the crossing time t_last + (q - x)/dx is rounded,
 * and then a re-choice at sigma = 0 picks the same level again, forever. */
static int at_level(double x, double q, double dq) {
    return fabs(q - x) <= 1e-9 * dq;
}

/* Internal transition: x reached q (a crossing, t > last or x == q), or a
 * re-choice at sigma = 0 scheduled by an external transition. */
static double internal(qss_engine *e, bqss_data *b, int32_t i, double t) {
    eng_advance_x(e, i, t);
    double q = e->qc[0][i], dx = e->xc[1][i];
    if (t > b->last[i] || at_level(e->xc[0][i], q, e->dq[i])) {
        e->xc[0][i] = q; /* x reached q exactly; no drift from rounding */
        eng_update_quantum(e, i);
        double dq = e->dq[i];
        b->lower[i] = q - dq;
        b->upper[i] = q + dq;
        q = dx > 0.0 ? b->upper[i] : b->lower[i];
    } else {
        eng_update_quantum(e, i);
        q = dx > 0.0 ? b->upper[i] : b->lower[i];
    }
    eng_set_q(e, i, t, q, 0.0, 0.0);
    b->last[i] = t;
    return dx != 0.0 ? (q - e->xc[0][i]) / dx : INFINITY;
}

/* External transition of j: its derivative became u at time t. */
static double external(qss_engine *e, bqss_data *b, int32_t j, double t, double u) {
    int same_instant = b->last[j] == t;
    double x = e->xc[0][j], q = e->qc[0][j], dq = e->dq[j], eps = 0.01 * dq;
    b->last[j] = t;
    if (at_level(x, q, dq)) {
        /* its crossing is due at this very instant: let it happen now */
        e->xc[0][j] = q;
        e->xc[1][j] = u;
        return 0.0;
    }
    double toward = u * (q - x);
    e->xc[1][j] = (toward < 0.0 && same_instant) ? 0.0 : u;
    if (x - b->lower[j] >= dq + eps) b->lower[j] += dq;
    if (b->upper[j] - x >= dq + eps) b->upper[j] -= dq;
    if (u != 0.0 && toward >= 0.0) return (q - x) / u;
    return (toward < 0.0 && !same_instant) ? 0.0 : INFINITY;
}

static void bqss_event(qss_engine *e, int32_t i, double t) {
    bqss_data *b = e->method_data;
    const model *m = e->m;
    double sigma_i = internal(e, b, i, t);
    int self = 0;
    for (int64_t p = m->dep_ptr[i]; p < m->dep_ptr[i + 1]; p++) {
        int32_t j = m->dep_row[p];
        eng_advance_x(e, j, t);
        eng_eval_derivs(e, j, t);
        double sigma = external(e, b, j, t, e->xc[1][j]);
        schedule(e, j, t, sigma);
        self |= j == i;
    }
    if (!self) schedule(e, i, t, sigma_i);
}

static void bqss_input_changed(qss_engine *e, int32_t j, double t) {
    bqss_data *b = e->method_data;
    eng_advance_x(e, j, t);
    eng_eval_derivs(e, j, t);
    schedule(e, j, t, external(e, b, j, t, e->xc[1][j]));
}

static int bqss_init(qss_engine *e) {
    bqss_data *b = calloc(1, sizeof *b);
    if (!b) return -1;
    e->method_data = b;
    size_t n = (size_t)e->n;
    b->lower = malloc(n * sizeof(double));
    b->upper = malloc(n * sizeof(double));
    b->last = malloc(n * sizeof(double));
    if (!b->lower || !b->upper || !b->last) return -1;
    double t0 = e->o->t0;
    for (int32_t i = 0; i < e->n; i++) {
        double x = e->xc[0][i], dq = e->dq[i];
        b->lower[i] = x - dq;
        b->upper[i] = x + dq;
        b->last[i] = t0;
        schedule(e, i, t0, e->xc[1][i] != 0.0 ? 0.0 : INFINITY);
    }
    return 0;
}

static void bqss_destroy(qss_engine *e) {
    bqss_data *b = e->method_data;
    if (!b) return;
    free(b->lower);
    free(b->upper);
    free(b->last);
    free(b);
    e->method_data = NULL;
}

/* The levels and the last transition time of every owned state. */
static int bqss_state_io(qss_engine *e, state_io *io) {
    bqss_data *b = e->method_data;
    return io->field(io, "bqss_lower", b->lower) || io->field(io, "bqss_upper", b->upper) ||
                   io->field(io, "bqss_last", b->last)
               ? -1
               : 0;
}

const qss_method bqss_method = {
    "bqss", 1, bqss_init, bqss_event, bqss_input_changed, bqss_destroy, bqss_state_io};
