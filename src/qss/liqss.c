/* liqss.c: LIQSS1 and the improved LIQSS2 (see liqss.h). */
#include "qss/liqss.h"

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

void liqss2_settle(qss_engine *e, int32_t i, double t, double q, double qdot) {
    double a = liqss_diag(e, i), reach = fabs(qdot) / e->x[i].dq;
    if (!(-a > reach)) return; /* (the share costs a Jacobian row) */
    if (-a * (1.0 - eng_coupling_share(e, i, t)) > reach) e->x[i].c[0] = q;
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
