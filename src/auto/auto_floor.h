/* auto_floor.h: what a candidate costs at least, without a probe
 * (--method auto, auto_run.c): CVODE per time event (bdf_floor), and the
 * moving block's share of the states (moving_floor).
 *
 * CVODE stops at every time event and starts again after it (CVodeReInit:
 * src/cvode/cvode_integrate.c). A start evaluates f at its first point and
 * at least once more in its first step's Newton iteration, and its first
 * linear set-up evaluates the Jacobian afresh (SUNDIALS' CVLS re-evaluates
 * it at step 0): two evaluations of every row and, with the problem's
 * Jacobian, one of every Jacobian row (without, one more of f: a
 * difference quotient evaluates f at least once), per time event. Times
 * the time events per unit of t, a floor under CVODE's cost that needs no
 * probe of CVODE (buck-heatsink: 40,000 time events per unit of t, 6.1
 * evaluations of f and 1.08 Jacobians per event, measured; CVODE's first
 * probe beside the mixed method took 0.27 s of a 2 s run and lost by 50x).
 */
#ifndef QMOL_AUTO_FLOOR_H
#define QMOL_AUTO_FLOOR_H

#include "core/model.h"

/* Wall seconds of one evaluation of every row of m at t (jacobian: of every
 * Jacobian row; the problem's jac must be set), the values of the n_cols
 * local states in x: the least of a few, so that the floor stays under
 * what CVODE pays (a slow one is the machine's, not the rows'). Adds the
 * rows it evaluated to *evaluated. 0 when out of memory. */
double rows_wall(const model *m, double t, const double *x, int jacobian, uint64_t *evaluated);

/* How many of m's owned states the moving block would hold at t
 * (moving_plan.h, without states on BDF yet), the values of the n_cols
 * local states in x, their slopes f evaluated here (reltol, abstol: the QSS
 * quantum's; span: the run's). Adds the rows it evaluated to *evaluated.
 * -1 when out of memory. */
int32_t moving_block_size(const model *m, double t, const double *x, double reltol, double abstol,
                          double span, uint64_t *evaluated);

#endif
