/* liqss.h: the linearly implicit single-state steps shared by LIQSS1/2 and
 * mLIQSS1/2 (thesis Algorithms 3.3 and 5.1, ALGORITHMS.md 2.3-2.4). */
#ifndef QMOL_LIQSS_H
#define QMOL_LIQSS_H

#include "qss/qss_engine.h"

/* The new q_i (first order) from x_i at t, its derivative and A_ii. */
double liqss1_choose(const qss_engine *e, int32_t i, double t);

/* The new q_i and slope from x_i at t and the current q_i: the equilibrium
 * of the scalar linear model where it is within a quantum (improved LIQSS2,
 * closed form of Eq. 5.1), else q a quantum from x with the slope that
 * carries q - x across 0 to its turn at h, where q's slope is x's (liqss.c:
 * CROSS_REACH). Returns h (INFINITY at equilibrium). */
double liqss2_choose(const qss_engine *e, int32_t i, double t, double *q, double *qdot);

/* Where liqss2_choose found x_i within a quantum of its equilibrium q
 * (moving at qdot): puts x_i on q when the state relaxes on its own faster
 * than q moves by a quantum, -A_ii (1 - s) > |qdot| / dQ_i, with s the
 * weight of row i's other inputs (eng_coupling_share): a state that relaxes
 * only as fast as its neighbours (diffusion alone, s = 1) is never moved.
 * Marks the state settled (eng_settled) when it does; the event clears the
 * mark before. Call before eng_set_q; docs/methods.md, "A stiff state
 * settles". */
void liqss2_settle(qss_engine *e, int32_t i, double t, double q, double qdot);

/* A settled state j's next event from its equilibrium's side: the interval
 * after t at which x_j strays SETTLED_BAND quanta from the equilibrium of
 * the scalar linear model along q's (the point liqss2_choose would take),
 * INFINITY when it does not, or is that far already. d: x_j - q_j about t
 * (order 2: d[0] + d[1] s + d[2] s^2). */
double liqss2_settled_exit(const qss_engine *e, int32_t j, double t, const double *d);

/* Diagonal Jacobian estimate used by the choice (0 when f_i does not read x_i;
 * LIQSS2 clamps positive estimates to 0). */
double liqss_diag(const qss_engine *e, int32_t i);

/* After q_i changed from q_old (its value at t): re-evaluates every f_j that
 * reads q_i, reschedules j, and updates the secant estimates of column i;
 * schedules i (among its dependents or, if f_i does not read x_i, last). */
void liqss_propagate(qss_engine *e, int32_t i, double t, double q_old);

/* Allocates the estimates: diag always, entry when `all_entries`; with an
 * analytic Jacobian fills them at t0. Schedules every state. */
int liqss_setup(qss_engine *e, int all_entries);

#endif
