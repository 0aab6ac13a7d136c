/* liqss.c: LIQSS1 and the improved LIQSS2 (see liqss.h). */
#include "qss/liqss.h"

#include "qss/poly2.h"

#include <math.h>
#include <stdlib.h>

double liqss_diag(const qss_engine *e, int32_t i) {
    double a = e->x[i].diag; /* LIQSS: 0 where row i does not read x_i */
    if (e->entry) {
        int64_t pos = eng_diag_entry(e, i);
        a = pos < 0 ? 0.0 : e->entry[pos];
    }
    return (e->order >= 2 && a > 0.0) ? 0.0 : a;
}

double liqss1_choose(const qss_engine *e, int32_t i, double t) {
    double x = e->x[i].c[0], dx = e->x[i].c[1], dq = e->x[i].dq;
    if (dx == 0.0) return x;
    double a = liqss_diag(e, i);
    double u = dx - a * eng_q_at(e, i, t);
    double sgn = dx > 0.0 ? 1.0 : -1.0;
    double dx_ahead = a * (x + sgn * dq) + u;
    if (dx * dx_ahead > 0.0 || a == 0.0) return x + sgn * dq;
    double q = -u / a; /* equilibrium of the scalar linear model (Eq. 3.24) */
    if (q > x + dq) q = x + dq;
    if (q < x - dq) q = x - dq;
    return q;
}

/* How far, in quanta, x_i is aimed to pass beyond q_i: the choice puts q a
 * quantum on one side of x and gives it the slope with which, under the
 * scalar linear model, q - x crosses 0 and turns at CROSS_REACH quanta on the
 * other side (at the returned h, where q's slope is x's), so that x leaves
 * the quantum (eng_schedule_liqss) near 2h. The thesis's improved LIQSS2
 * (ALGORITHMS.md 2.4) is CROSS_REACH 0: x meets q tangentially at h, and q
 * stays on one side of x. Aimed through x, q is centred on it, but x's
 * polynomials last longer and what they leave out (f along q beyond its
 * slope, eng_unseen_cap) grows. adr1d N = 1000, tol = abstol = 1e-3, LIQSS2
 * events and e_rr against CVODE 1e-9 (before: 32,534, 8.5e-3), and the
 * final error of cli.plugin's unseen_coupled star (u' = -(1 + t) u + u_0,
 * within 5 tol; before: 1.3 tol), with 0, 0.3, 0.4, 0.5, 0.6, 0.9: 29,510
 * / 27,855 / 26,842 / 26,924 / 26,001 / 25,779 events, e_rr 8.9e-3 /
 * 5.2e-3 / 4.4e-3 / 3.8e-3 / 3.1e-3 / 8.3e-4, star 1.3 / 4.0 / 4.7 / 5.4 /
 * 6.3 / 8.4 tol. */
#define CROSS_REACH 0.4

double liqss2_choose(const qss_engine *e, int32_t i, double t, double *q, double *qdot) {
    double x = e->x[i].c[0], dx = e->x[i].c[1], ddx = 2.0 * e->x[i].c[2], dq = e->x[i].dq;
    double a = liqss_diag(e, i);
    double u = dx - a * eng_q_at(e, i, t);
    double du = ddx - a * eng_qdot_at(e, i, t);
    double ddx_lin = a * a * x + a * u + du;
    if (a < 0.0 && fabs(ddx_lin) <= a * a * dq) {
        *q = -u / a - du / (a * a);
        *qdot = -du / a;
        return INFINITY;
    }
    if (ddx_lin == 0.0) { /* a == 0 and x is a straight line: follow it */
        *q = x;
        *qdot = dx;
        return INFINITY;
    }
    /* q = x - s dq; x'' at that q and q's slope x' is g = dq c; q - x turns
     * at h, reach = (1 + CROSS_REACH) dq from where it starts, when q's slope
     * exceeds x' by 2 reach / h, with h the tangential meeting of Eq. 5.1's
     * closed form for a quantum of `reach`: c scaled by dq / reach */
    double s = ddx_lin > 0.0 ? 1.0 : -1.0, reach = (1.0 + CROSS_REACH) * dq;
    double c = (fabs(ddx_lin) / dq - a * a) * (dq / reach);
    double h = (-a + sqrt(a * a + 2.0 * c)) / c;
    *q = x - s * dq;
    *qdot = a * (*q) + u + 2.0 * s * reach / h;
    return h;
}

/* Whether state i relaxes on its own faster than its equilibrium, moving at
 * qdot, moves by a quantum (liqss2_settle). */
static int relaxes_on_its_own(qss_engine *e, int32_t i, double t, double qdot) {
    double a = liqss_diag(e, i), reach = fabs(qdot) / e->x[i].dq;
    if (!(-a > reach)) return 0; /* (the share costs a Jacobian row) */
    return -a * (1.0 - eng_coupling_share(e, i, t)) > reach;
}

void liqss2_settle(qss_engine *e, int32_t i, double t, double q, double qdot) {
    if (relaxes_on_its_own(e, i, t, qdot)) {
        e->x[i].c[0] = q;
        eng_set_settled(e, i, 1);
    }
}

/* At the start (t0, or where auto or the mixed method hands states over),
 * a state within a quantum of an equilibrium it relaxes to is marked
 * settled as if an event had put it there, x left on its given value: else
 * it would stray unwatched until its first event. adr1d-vardiff N = 1000
 * under auto, handed to the split at t = 1.53 with the advective half
 * settled: that half then ended up to a quantum off u = 1 (e_rr 1.3e-4
 * against the split's 8.0e-5 from t0). */
static void mark_settled_at_start(qss_engine *e, int32_t i, double t) {
    double q, qdot;
    if (liqss2_choose(e, i, t, &q, &qdot) == INFINITY && relaxes_on_its_own(e, i, t, qdot))
        eng_set_settled(e, i, 1);
}

/* How far, in quanta, a settled state's x may stray from its equilibrium
 * before its next event. After settling, x' = f(q) no longer depends on x:
 * each change of an input (a neighbour's event) leaves f(q) a little off 0,
 * and x drifts at that rate until it leaves q by a quantum, while the state
 * itself, relaxing at -A_ii, would sit on its moved equilibrium. Behind
 * adr1d's front (N = 1000, tol = abstol = 1e-3) 32 of 1,000 states ended
 * 0.5-1 quantum below u = 1, drifting at 1e-4 per unit time from
 * neighbours' q's moved by 1e-6. Release, one rank, tol 1e-3, 20 samples,
 * LIQSS2 events and e_rr against CVODE 1e-9 with no band (before), 0.5 and
 * 0.25: adr1d N = 1000 43,883 / 43,374 / 42,993, 3.0e-4 / 1.05e-4 /
 * 1.07e-4; adr1d-vardiff N = 1000 2.17 M / 2.21 M / 2.24 M, 4.35e-4 /
 * 2.18e-4 / 1.25e-4; adr2d 100 x 100 474,064 / 477,030 / 479,025, 3.7e-4 /
 * 2.9e-4 / 2.7e-4; diurnal 356,156 / 432,924 / 538,752, 1.16e-3 / 1.10e-3
 * / 1.18e-3 (its fast species' equilibrium curves with the light: x there
 * strays in earnest, and a narrower band buys its accuracy with events). */
#define SETTLED_BAND 0.5

double liqss2_settled_exit(const qss_engine *e, int32_t j, double t, const double *d) {
    double a = liqss_diag(e, j);
    if (!(a < 0.0)) return INFINITY;
    /* the equilibrium of x' = a x + u(t) with u linear, x = -u/a - u'/a^2
     * (liqss2_choose's), with u = f - a q along the q's: x - x_eq is d plus
     * f/a + (f' - a q')/a^2, f = x' */
    double c2 = e->x[j].c[2], xdot = eng_xdot_at(e, j, t);
    double off = d[0] + xdot / a + (2.0 * c2 - a * e->q[j].c[1]) / (a * a);
    double band = SETTLED_BAND * e->x[j].dq;
    /* (already that far: the state's own exit serves, no event now that the
     * next choice might not settle) */
    if (!(fabs(off) < band)) return INFINITY;
    return poly2_first_exit(off, d[1] + 2.0 * c2 / a, d[2], band);
}

void liqss_propagate(qss_engine *e, int32_t i, double t, double q_old) {
    const model *m = e->m;
    double dqi = eng_q_at(e, i, t) - q_old;
    if (e->analytic_jac || dqi == 0.0) {
        eng_readers_changed(e, i, t);
    } else { /* the secant estimates of the readers' entries along the way */
        for (int64_t p = m->dep_ptr[i]; p < m->dep_ptr[i + 1]; p++) {
            int32_t j = m->dep_row[p];
            eng_advance_x(e, j, t);
            double before = e->x[j].c[1];
            eng_eval_derivs(e, j, t);
            eng_schedule_liqss(e, j, t);
            double est = (e->x[j].c[1] - before) / dqi;
            if (e->entry) /* (j, i), k from its CSR position; j == i: the diagonal */
                e->entry[eng_entry_pos(e, j, (int)(m->dep_entry[p] - m->row_ptr[j]))] = est;
            else if (j == i)
                e->x[i].diag = est;
        }
    }
    if (!eng_reads_self(e, i)) eng_schedule_liqss(e, i, t);
}

int liqss_setup(qss_engine *e, int all_entries) {
    if (!all_entries) {
        e->has_diag = 1; /* x[i].diag, 0 to start */
    }
    if (all_entries && eng_alloc_estimates(e) != 0) return -1;
    double t0 = e->o->t0;
    for (int32_t j = 0; j < e->n; j++) {
        if (e->analytic_jac) eng_eval_jac_row(e, j, t0);
        if (e->order == 2) mark_settled_at_start(e, j, t0);
        eng_schedule_liqss(e, j, t0);
    }
    return 0;
}

static int liqss_init(qss_engine *e) {
    return liqss_setup(e, 0);
}

static void liqss1_event(qss_engine *e, int32_t i, double t) {
    eng_advance_x(e, i, t);
    eng_update_quantum(e, i);
    double q_old = eng_q_at(e, i, t);
    if (e->analytic_jac) eng_eval_jac_row(e, i, t);
    eng_set_q(e, i, t, liqss1_choose(e, i, t), 0.0, 0.0);
    liqss_propagate(e, i, t, q_old);
}

static void liqss2_event(qss_engine *e, int32_t i, double t) {
    eng_advance_x(e, i, t);
    eng_update_quantum(e, i);
    eng_set_settled(e, i, 0);
    double q_old = eng_q_at(e, i, t), q, qdot;
    if (liqss2_choose(e, i, t, &q, &qdot) == INFINITY) liqss2_settle(e, i, t, q, qdot);
    eng_set_q(e, i, t, q, qdot, 0.0);
    liqss_propagate(e, i, t, q_old);
}

/* (kept: the diagonal estimates, one per state) */
const qss_method liqss1_method = {.name = "liqss1",
                                  .order = 1,
                                  .init = liqss_init,
                                  .event = liqss1_event,
                                  .reschedule = eng_schedule_liqss,
                                  .kept_fields = 1.0};
const qss_method liqss2_method = {.name = "liqss2",
                                  .order = 2,
                                  .init = liqss_init,
                                  .event = liqss2_event,
                                  .reschedule = eng_schedule_liqss,
                                  .kept_fields = 1.0};
