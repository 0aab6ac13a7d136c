/* bqss.c: Backward QSS (seed 001; ALGORITHMS.md A.3-A.5), in direct event-loop
 * form of its DEVS quantized integrator.
 *
 * Each state keeps a lower and an upper level one quantum apart around x; q is
 * the level in the direction x moves. When no direction is consistent (the
 * sign of f_i flips with the choice) x_i is frozen (slope 0), which is how
 * BQSS settles at an equilibrium without oscillating. Hysteresis width
 * eps = dQ/100, as in PowerDEVS. "Already transitioned at this instant" is
 * t == last transition time, compared exactly.
 *
 * The seed freezes x at once when an input at an instant where x already
 * transitioned points away from q (A.5, e = 0). Here it freezes only when the
 * level in the direction of the input is not ahead of x either (both levels
 * inconsistent, the seed's own condition for a freeze); otherwise q moves to
 * that level, at most twice per instant. Without this, one re-choice on a
 * grid flipped every neighbour in turn within one instant, each was then
 * frozen by the next one's flip, and with every state frozen nothing ever
 * moved again (docs/methods.md, BQSS).
 */
#include "qss/qss_engine.h"

#include <math.h>
#include <stdlib.h>

typedef struct bqss_data {
    double *lower, *upper, *last;
    double *changed_at, *nchange; /* time of q's last change, changes at that time */
    /* within one event: f of the state just re-chosen at the level it left
     * (its inputs cannot change before its own feedback arrives) */
    int32_t left_i;
    double left_level, left_f;
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

/* f_i with q_i at `level`, the other q as they are (one scalar evaluation; the
 * stored slope when f_i does not read q_i). x_i's polynomial is kept. */
static double f_at_level(qss_engine *e, int32_t i, double t, double level) {
    double q = e->q[i].c[0], dx = e->x[i].c[1];
    if (!eng_reads_self(e, i)) return dx;
    e->q[i].c[0] = level;
    eng_eval_derivs(e, i, t);
    double f = e->x[i].c[1];
    e->q[i].c[0] = q;
    e->x[i].c[1] = dx;
    return f;
}

/* Internal transition: x reached q (a crossing, t > last or x == q), or a
 * re-choice at sigma = 0 scheduled by an external transition. */
static double internal(qss_engine *e, bqss_data *b, int32_t i, double t) {
    eng_advance_x(e, i, t);
    double q = e->q[i].c[0], dx = e->x[i].c[1];
    if (t > b->last[i] || at_level(e->x[i].c[0], q, e->x[i].dq)) {
        e->x[i].c[0] = q; /* x reached q exactly; no drift from rounding */
        eng_update_quantum(e, i);
        double dq = e->x[i].dq;
        b->lower[i] = q - dq;
        b->upper[i] = q + dq;
        q = dx > 0.0 ? b->upper[i] : b->lower[i];
    } else {
        eng_update_quantum(e, i);
        b->left_i = i;
        b->left_level = q;
        b->left_f = dx;
        q = dx > 0.0 ? b->upper[i] : b->lower[i];
    }
    eng_set_q(e, i, t, q, 0.0, 0.0);
    if (b->changed_at[i] == t) {
        b->nchange[i] += 1.0;
    } else {
        b->changed_at[i] = t;
        b->nchange[i] = 1.0;
    }
    b->last[i] = t;
    return dx != 0.0 ? (q - e->x[i].c[0]) / dx : INFINITY;
}

/* External transition of j: its derivative became u at time t. */
static double external(qss_engine *e, bqss_data *b, int32_t j, double t, double u) {
    int same_instant = b->last[j] == t;
    double x = e->x[j].c[0], q = e->q[j].c[0], dq = e->x[j].dq, eps = 0.01 * dq;
    b->last[j] = t;
    if (at_level(x, q, dq)) {
        /* its crossing is due at this very instant: let it happen now */
        e->x[j].c[0] = q;
        e->x[j].c[1] = u;
        return 0.0;
    }
    double toward = u * (q - x);
    if (x - b->lower[j] >= dq + eps) b->lower[j] += dq;
    if (b->upper[j] - x >= dq + eps) b->upper[j] -= dq;
    if (toward < 0.0 && same_instant && (b->changed_at[j] != t || b->nchange[j] < 2.0)) {
        /* moving away from q at an instant where x already transitioned: the
         * level in the direction of u, if ahead of x, is taken now (a
         * re-choice at sigma = 0); only when it is not is x frozen */
        double level = u > 0.0 ? b->upper[j] : b->lower[j];
        double f =
            j == b->left_i && level == b->left_level ? b->left_f : f_at_level(e, j, t, level);
        if (f * (level - x) > 0.0) {
            e->x[j].c[1] = u;
            return 0.0;
        }
    }
    e->x[j].c[1] = (toward < 0.0 && same_instant) ? 0.0 : u;
    if (u != 0.0 && toward >= 0.0) return (q - x) / u;
    return (toward < 0.0 && !same_instant) ? 0.0 : INFINITY;
}

static void bqss_event(qss_engine *e, int32_t i, double t) {
    bqss_data *b = e->method_data;
    const model *m = e->m;
    b->left_i = -1;
    double sigma_i = internal(e, b, i, t);
    int self = 0;
    for (int64_t p = m->dep_ptr[i]; p < m->dep_ptr[i + 1]; p++) {
        int32_t j = m->dep_row[p];
        eng_advance_x(e, j, t);
        eng_eval_derivs(e, j, t);
        double sigma = external(e, b, j, t, e->x[j].c[1]);
        schedule(e, j, t, sigma);
        self |= j == i;
    }
    if (!self) schedule(e, i, t, sigma_i);
    b->left_i = -1;
}

static void bqss_reschedule(qss_engine *e, int32_t j, double t) {
    schedule(e, j, t, external(e, e->method_data, j, t, e->x[j].c[1]));
}

static int bqss_init(qss_engine *e) {
    bqss_data *b = calloc(1, sizeof *b);
    if (!b) return -1;
    e->method_data = b;
    b->left_i = -1;
    size_t n = (size_t)e->n;
    b->lower = malloc(n * sizeof(double));
    b->upper = malloc(n * sizeof(double));
    b->last = malloc(n * sizeof(double));
    b->changed_at = malloc(n * sizeof(double));
    b->nchange = calloc(n, sizeof(double));
    if (!b->lower || !b->upper || !b->last || !b->changed_at || !b->nchange) return -1;
    double t0 = e->o->t0;
    for (int32_t i = 0; i < e->n; i++) {
        double x = e->x[i].c[0], dq = e->x[i].dq;
        b->lower[i] = x - dq;
        b->upper[i] = x + dq;
        b->last[i] = t0;
        b->changed_at[i] = -INFINITY;
        schedule(e, i, t0, e->x[i].c[1] != 0.0 ? 0.0 : INFINITY);
    }
    return 0;
}

static void bqss_destroy(qss_engine *e) {
    bqss_data *b = e->method_data;
    if (!b) return;
    free(b->lower);
    free(b->upper);
    free(b->last);
    free(b->changed_at);
    free(b->nchange);
    free(b);
    e->method_data = NULL;
}

/* The levels, the last transition time and q's changes in its last instant of
 * every owned state (a stop request may end a window inside an instant). */
static int bqss_state_io(qss_engine *e, state_io *io) {
    bqss_data *b = e->method_data;
    return io->field(io, "bqss_lower", b->lower) || io->field(io, "bqss_upper", b->upper) ||
                   io->field(io, "bqss_last", b->last) ||
                   io->field(io, "bqss_changed_at", b->changed_at) ||
                   io->field(io, "bqss_nchange", b->nchange)
               ? -1
               : 0;
}

/* (kept: levels, last transition and q's last change, bqss_state_io) */
const qss_method bqss_method = {.name = "bqss",
                                .order = 1,
                                .init = bqss_init,
                                .event = bqss_event,
                                .reschedule = bqss_reschedule,
                                .destroy = bqss_destroy,
                                .state_io = bqss_state_io,
                                .kept_fields = 5.0};
