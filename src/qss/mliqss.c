/* mliqss.c: mLIQSS1 and mLIQSS2 (thesis Algorithms 4.1 and 5.2; ALGORITHMS.md
 * 2.5, 2.6, B.5, B.6).
 *
 * After the LIQSS choice of q_i, each structurally symmetric partner j
 * (f_i reads x_j and f_j reads x_i, with A_ij A_ji != 0) is tested: would
 * q_i's change flip x_j's direction, and would the resulting change of q_j
 * flip x_i back? If so an oscillation is predicted and q_i, q_j are computed
 * together by an implicit step of the 2x2 linear model. Decisions taken here
 * where the thesis is silent or inconsistent (documented in docs/methods.md):
 * - one partner per event, the one whose predicted derivative change is
 *   largest (as the public QSS Solver); the thesis loops over all;
 * - the pair step is accepted when |q - x| <= 2 dQ for both states in
 *   mLIQSS1 (the bound the worked example of Fig. 4.2 needs; Eq. 4.9 says
 *   dQ), dQ in mLIQSS2 (the distance its next event allows, AWAY_LIMIT2 in
 *   qss_engine.c);
 * - the partner's change is applied and propagated first, with q_i still at
 *   its old value, then q_i's: each secant Jacobian column then sees the
 *   change of one quantized state only;
 * - mLIQSS1 uses the thesis sign-flip tests (a start from rest counts as a
 *   flip, see flips()), mLIQSS2 the "significant change" tests of its
 *   footnote 2 on x' and x''.
 * Jacobian estimates live on the structural non-zeros only (e->entry).
 */
#include "qss/liqss.h"

#include <math.h>

/* Pair acceptance |q - x| <= pair_accept(order) dQ (see build_pair): just
 * inside the distance at which the state's next event would come. */
static double pair_accept(int order) {
    return eng_exit_quanta(order) * (1.0 - 1e-6);
}

typedef struct pair_model {
    double a[2][2];  /* [[A_ii, A_ij], [A_ji, A_jj]] */
    double u[2];     /* affine terms */
    double du[2];    /* their slopes (second order) */
    double x[2];     /* x_i, x_j at t */
    double bound[2]; /* acceptance |q - x| <= bound */
} pair_model;

typedef struct pair_candidate {
    int32_t j;
    int64_t e_ij, e_ji;
    double weight;
} pair_candidate;

/* The first-order test: the predicted derivative changes sign, or starts
 * moving from rest (Table 4.1: at t2, dx2 = 0 exactly and the proposed q1
 * sets it moving, which the thesis's narrative counts as a flip). */
static int flips(double v, double v_new) {
    return v_new != 0.0 && v * v_new <= 0.0;
}

static int significant(double v, double v_new) {
    return fabs(v - v_new) > 0.5 * fabs(v + v_new);
}

static double entry_or_zero(const qss_engine *e, int64_t pos) {
    return pos >= 0 ? e->entry[pos] : 0.0;
}

/* Position of (j, i) among the estimates, or -1. */
static int64_t find_entry(const qss_engine *e, int32_t j, int32_t i) {
    int32_t base;
    int len = 0;
    const int32_t *cols = eng_row(e, j, &len, &base);
    for (int k = 0; k < len; k++)
        if (base + cols[k] == i) return eng_entry_pos(e, j, k);
    return -1;
}

/* |q - x| <= bound for both states. */
static int within(const pair_model *pm, const double *q) {
    return fabs(q[0] - pm->x[0]) <= pm->bound[0] && fabs(q[1] - pm->x[1]) <= pm->bound[1];
}

/* Solves the 2x2 system M z = r; 0 if singular. */
static int solve2(const double mat[2][2], const double *r, double *z) {
    double det = mat[0][0] * mat[1][1] - mat[0][1] * mat[1][0];
    if (det == 0.0 || !isfinite(det)) return 0;
    z[0] = (mat[1][1] * r[0] - mat[0][1] * r[1]) / det;
    z[1] = (mat[0][0] * r[1] - mat[1][0] * r[0]) / det;
    return isfinite(z[0]) && isfinite(z[1]);
}

/* First order: (I - hA) q = x + h u; h = INFINITY gives A q = -u. */
static int pair_step1(const pair_model *pm, double h, double *q) {
    double mat[2][2], r[2];
    for (int r_ = 0; r_ < 2; r_++) {
        for (int c = 0; c < 2; c++)
            mat[r_][c] = isinf(h) ? pm->a[r_][c] : (r_ == c ? 1.0 : 0.0) - h * pm->a[r_][c];
        r[r_] = isinf(h) ? -pm->u[r_] : pm->x[r_] + h * pm->u[r_];
    }
    return solve2(mat, r, q);
}

/* Second order (Eq. 5.3, closed form of ALGORITHMS.md 2.6):
 *   (I - hA + h^2 A^2 / 2) q = (I - hA) x - h^2/2 (A u + du)
 *   (I - hA) qdot = A q + u + h du;  h = INFINITY: q = -A^-1 u - A^-2 du, qdot = -A^-1 du. */
static int pair_step2(const pair_model *pm, double h, double *q, double *qdot) {
    const double(*a)[2] = pm->a;
    if (isinf(h)) {
        double w[2];
        if (!solve2(a, pm->du, qdot)) return 0; /* A qdot = du -> qdot = A^-1 du */
        qdot[0] = -qdot[0];
        qdot[1] = -qdot[1];
        if (!solve2(a, pm->u, w)) return 0;
        double v[2]; /* A^-2 du = A^-1 (A^-1 du) = A^-1 (-qdot) */
        double mq[2] = {-qdot[0], -qdot[1]};
        if (!solve2(a, mq, v)) return 0;
        q[0] = -w[0] - v[0];
        q[1] = -w[1] - v[1];
        return 1;
    }
    double a2[2][2], d[2][2], g[2][2], rhs[2], au[2];
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 2; c++)
            a2[r][c] = a[r][0] * a[0][c] + a[r][1] * a[1][c];
    for (int r = 0; r < 2; r++) {
        for (int c = 0; c < 2; c++) {
            double id = r == c ? 1.0 : 0.0;
            g[r][c] = id - h * a[r][c];
            d[r][c] = g[r][c] + 0.5 * h * h * a2[r][c];
        }
        au[r] = a[r][0] * pm->u[0] + a[r][1] * pm->u[1];
    }
    for (int r = 0; r < 2; r++)
        rhs[r] = g[r][0] * pm->x[0] + g[r][1] * pm->x[1] - 0.5 * h * h * (au[r] + pm->du[r]);
    if (!solve2(d, rhs, q)) return 0;
    double r2[2];
    for (int r = 0; r < 2; r++)
        r2[r] = a[r][0] * q[0] + a[r][1] * q[1] + pm->u[r] + h * pm->du[r];
    return solve2(g, r2, qdot);
}

/* Tries steps from the equilibrium down to shorter ones (ALGORITHMS.md B.6,
 * "What qss-solver does"): returns 1 with an accepted (q, qdot). */
static int pair_solve(const pair_model *pm, int order, double horizon, double *q, double *qdot) {
    double h = INFINITY;
    qdot[0] = qdot[1] = 0.0;
    for (int attempt = 0; attempt < 10; attempt++) {
        int ok = order == 1 ? pair_step1(pm, h, q) : pair_step2(pm, h, q, qdot);
        if (ok && within(pm, q)) return 1;
        if (isinf(h)) {
            h = horizon;
            continue;
        }
        double excess = 1.0;
        if (ok) {
            for (int k = 0; k < 2; k++) {
                double ratio = fabs(q[k] - pm->x[k]) / pm->bound[k];
                if (ratio > excess) excess = ratio;
            }
        }
        double shrink = order == 1 ? 0.9 / excess : 0.9 / sqrt(excess);
        h *= ok ? shrink : 0.1;
        if (!(h > 0.0)) return 0;
    }
    return 0;
}

/* x_j's first and second derivatives at t from its polynomial. */
static void x_derivs_at(const qss_engine *e, int32_t j, double t, double *dx, double *ddx) {
    *dx = eng_xdot_at(e, j, t);
    *ddx = 2.0 * e->x[j].c[2] + 6.0 * (t - e->x[j].tx) * e->x[j].c[3];
}

/* The state of i before and after its own LIQSS choice. */
typedef struct own_change {
    int32_t i;
    double t, q_old, qd_old, q_new, qd_new, dx, ddx, h;
} own_change;

/* Finds the partner whose oscillation with i is predicted (see top). */
static int find_partner(const qss_engine *e, const own_change *c, pair_candidate *best) {
    int32_t i = c->i;
    double t = c->t;
    double a_ii = entry_or_zero(e, eng_diag_entry(e, i));
    double dqi = c->q_new - c->q_old, dqdi = c->qd_new - c->qd_old;
    int found = 0;
    int32_t base;
    int len = 0;
    const int32_t *cols = eng_row(e, i, &len, &base);
    for (int k = 0; k < len; k++) {
        int64_t e_ij = eng_entry_pos(e, i, k);
        int32_t j = base + cols[k];
        if (j == i || j >= e->n) continue; /* a ghost's q belongs to its owner */
        int64_t e_ji = find_entry(e, j, i);
        if (e_ji < 0) continue;
        double a_ij = e->entry[e_ij], a_ji = e->entry[e_ji];
        if (a_ij * a_ji == 0.0) continue;
        double dxj, ddxj;
        x_derivs_at(e, j, t, &dxj, &ddxj);
        double dxj_new = dxj + a_ji * dqi, ddxj_new = ddxj + a_ji * dqdi;
        /* the first test needs x_j's derivatives only (most candidates stop here) */
        if (e->order == 1 ? !flips(dxj, dxj_new)
                          : !significant(dxj, dxj_new) && !significant(ddxj, ddxj_new))
            continue;
        double a_jj = entry_or_zero(e, eng_diag_entry(e, j));
        double xj = eng_x_at(e, j, t), qj = eng_q_at(e, j, t), qdj = eng_qdot_at(e, j, t);
        double dqj_prop, dxi_after = c->dx + a_ii * dqi, dxi_new;
        if (e->order == 1) {
            dqj_prop = xj + (dxj_new > 0.0 ? 1.0 : -1.0) * eng_quantum(e, j, xj) - qj;
            dxi_new = dxi_after + a_ij * dqj_prop;
            if (!flips(dxi_after, dxi_new)) continue;
        } else {
            double u_ji = dxj - a_ji * c->q_old - a_jj * qj;
            double du_ji = ddxj - a_ji * c->qd_old - a_jj * qdj;
            double qj_prop = xj - (ddxj_new > 0.0 ? 1.0 : -1.0) * eng_quantum(e, j, xj);
            double hh = isfinite(c->h) ? c->h : (e->tf - t > 0.0 ? e->tf - t : 1.0);
            double qdj_prop =
                (a_ji * (c->q_new + hh * c->qd_new) + a_jj * qj_prop + u_ji + hh * du_ji) /
                (1.0 - hh * a_jj);
            dqj_prop = qj_prop - qj;
            dxi_new = dxi_after + a_ij * dqj_prop;
            double ddxi_after = c->ddx + a_ii * dqdi;
            double ddxi_new = ddxi_after + a_ij * (qdj_prop - qdj);
            if (!significant(dxi_after, dxi_new) && !significant(ddxi_after, ddxi_new)) continue;
        }
        double weight = fabs(dxj_new - dxj);
        if (!found || weight > best->weight) {
            best->j = j;
            best->e_ij = e_ij;
            best->e_ji = e_ji;
            best->weight = weight;
            found = 1;
        }
    }
    return found;
}

static void build_pair(const qss_engine *e, const own_change *c, const pair_candidate *pc,
                       pair_model *pm) {
    int32_t i = c->i, j = pc->j;
    double t = c->t;
    double a_ii = entry_or_zero(e, eng_diag_entry(e, i)),
           a_jj = entry_or_zero(e, eng_diag_entry(e, j));
    double a_ij = e->entry[pc->e_ij], a_ji = e->entry[pc->e_ji];
    double qj = eng_q_at(e, j, t), qdj = eng_qdot_at(e, j, t), dxj, ddxj;
    x_derivs_at(e, j, t, &dxj, &ddxj);
    pm->a[0][0] = a_ii;
    pm->a[0][1] = a_ij;
    pm->a[1][0] = a_ji;
    pm->a[1][1] = a_jj;
    pm->u[0] = c->dx - a_ii * c->q_old - a_ij * qj;
    pm->u[1] = dxj - a_ji * c->q_old - a_jj * qj;
    pm->du[0] = c->ddx - a_ii * c->qd_old - a_ij * qdj;
    pm->du[1] = ddxj - a_ji * c->qd_old - a_jj * qdj;
    pm->x[0] = e->x[i].c[0];
    pm->x[1] = eng_x_at(e, j, t);
    /* just inside the distance at which eng_schedule_liqss fires the next
     * event: accepted exactly there, a state whose x rests (f(q) = 0 at a
     * pair equilibrium) would be rescheduled at once, forever (adr1d
     * N=10000). In mLIQSS2 the pair equilibrium (h = INFINITY) and the
     * finite steps share the bound dQ: beyond it x would leave q at once. */
    pm->bound[0] = pair_accept(e->order) * e->x[i].dq;
    pm->bound[1] = pair_accept(e->order) * eng_quantum(e, j, pm->x[1]);
}

static void mliqss_event(qss_engine *e, int32_t i, double t) {
    own_change c = {.i = i, .t = t};
    eng_advance_x(e, i, t);
    eng_update_quantum(e, i);
    eng_set_settled(e, i, 0);
    c.q_old = eng_q_at(e, i, t);
    c.qd_old = eng_qdot_at(e, i, t);
    x_derivs_at(e, i, t, &c.dx, &c.ddx);
    if (e->analytic_jac && e->order == 1) eng_eval_jac_row(e, i, t);
    if (e->order == 1) {
        c.q_new = liqss1_choose(e, i, t);
        c.qd_new = 0.0;
        c.h = INFINITY;
    } else {
        c.h = liqss2_choose(e, i, t, &c.q_new, &c.qd_new);
    }
    pair_candidate pc = {0};
    if (find_partner(e, &c, &pc)) {
        pair_model pm;
        build_pair(e, &c, &pc, &pm);
        double q[2], qd[2];
        double horizon = e->tf - t > 0.0 ? e->tf - t : 1.0;
        if (pair_solve(&pm, e->order, horizon, q, qd)) {
            int32_t j = pc.j;
            e->stats->pair_steps++;
            eng_advance_x(e, j, t);
            eng_update_quantum(e, j);
            /* (a settled partner stays marked: its q moved to the pair's
             * equilibrium, and its x strays from there as from its own;
             * cleared, adr1d-vardiff N = 1000 took 1.61 M events, e_rr
             * 3.5e-4, against 1.36 M, 1.5e-4) */
            double qj_old = eng_q_at(e, j, t);
            eng_set_q(e, j, t, q[1], e->order >= 2 ? qd[1] : 0.0, 0.0);
            liqss_propagate(e, j, t, qj_old);
            c.q_new = q[0];
            c.qd_new = e->order >= 2 ? qd[0] : 0.0;
        }
    }
    /* settled on q as LIQSS2 does, the pair's q where a pair step refined it */
    if (e->order >= 2 && c.h == INFINITY) liqss2_settle(e, i, t, c.q_new, c.qd_new);
    eng_set_q(e, i, t, c.q_new, c.qd_new, 0.0);
    liqss_propagate(e, i, t, c.q_old);
}

static int mliqss_init(qss_engine *e) {
    return liqss_setup(e, 1);
}

/* (kept: the Jacobian estimates, one per row entry) */
const qss_method mliqss1_method = {.name = "mliqss1",
                                   .order = 1,
                                   .init = mliqss_init,
                                   .event = mliqss_event,
                                   .reschedule = eng_schedule_liqss,
                                   .kept_per_entry = 1.0};
const qss_method mliqss2_method = {.name = "mliqss2",
                                   .order = 2,
                                   .init = mliqss_init,
                                   .event = mliqss_event,
                                   .reschedule = eng_schedule_liqss,
                                   .kept_per_entry = 1.0};
