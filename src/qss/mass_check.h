/* mass_check.h: a run-time check that a one-rank BQSS run still follows its
 * ODE, through the balance of the states' sum M = sum_i x_i.
 *
 * The exact solution has M' = sum_i f_i(x). A QSS trajectory has
 * x_i' = f_i(q), so the rate at which it leaves that balance,
 *   D = sum_i x_i' - sum_i f_i(x) = sum_j c_j (q_j - x_j),
 * c = the column sums of the Jacobian, is at most B = sum_j |c_j| 2 dQ_j.
 * On a conservative discretization (diffusion, advection) c vanishes but at
 * the boundaries, so the bound is sharp. A BQSS state frozen (x_i' = 0)
 * away from where its ODE goes (docs/methods.md, BQSS) breaks it: the
 * check integrates D and B over the windows (trapezoid at the window ends,
 * at most (tf - t0) / 1000 apart on one rank) and stops the run when
 * |int D| - int B passes MASS_CHECK_LIMIT times the summed quantum
 * sum_i dQ_i. Measured (docs/methods.md): heat1d runs that ended beyond
 * 10 tol reached 35 to 500, every BQSS run of the accuracy matrix and heat1d
 * runs within 5 tol at most 4.1. D itself is smooth where the method works;
 * sum_i f_i(x) alone is not (adr1d-vardiff's front ignites node after node
 * every 0.01, a window's length, and a trapezoid of it alone was aliased). */
#ifndef QMOL_MASS_CHECK_H
#define QMOL_MASS_CHECK_H

#include "qss/qss_engine.h"

/* |int D| - int B, in units of sum_i dQ_i, that stops the run (the accuracy
 * matrix's C for the QSS family is 10). */
#define MASS_CHECK_LIMIT 10.0

typedef struct mass_check {
    double *x;             /* the states at the window end */
    double *colsum;        /* c_j at the window end */
    double t, rate, bound; /* the last window end, D and B there */
    double drift, allowed; /* int D, int B since the start */
} mass_check;

/* Sets c up at t (the run's start or a restart: the integrals start there).
 * Returns 0, or -1 when out of memory. One rank only (e->halo NULL). */
int mass_check_init(mass_check *c, qss_engine *e, double t);
/* At the end T of a window: adds its part of the integrals. Returns 0, or 1
 * with the reason in err when the drift passed MASS_CHECK_LIMIT. */
int mass_check_window(mass_check *c, qss_engine *e, double T, char *err, size_t errlen);
void mass_check_free(mass_check *c);

#endif
