/* moving_plan.h: which states the moving block takes (--method moving,
 * moving_run.c), as a rule of the states and their slopes, so that auto can
 * ask it too (auto_run.c, moving_floor).
 *
 * A state's rate is |slope| / Q (Q its QSS quantum: max(reltol |x|, abstol
 * times the problem's abstol_scale)), counted over a plan's interval,
 * MOVING_PLAN_FRACTION of the span: the core is where that exceeds
 * MOVING_PLAN_RATE quanta (MOVING_PLAN_STAY for a state already on BDF),
 * and the block is the core widened by MOVING_PLAN_MARGIN hops of the
 * model's rows.
 */
#ifndef QMOL_MOVING_PLAN_H
#define QMOL_MOVING_PLAN_H

#include "core/model.h"

#define MOVING_PLAN_FRACTION (1.0 / 128.0)
#define MOVING_PLAN_RATE 1.0 /* quanta per plan interval that put a state in the core */
#define MOVING_PLAN_STAY 0.1 /* the same for a state already on BDF */
#define MOVING_PLAN_MARGIN 8 /* hops */

/* The block at the owned states' values x and slopes of m (reltol, abstol,
 * the run's span; bdf: 1 where a state is on BDF now, NULL: none is):
 * want[j] = 1 where state j belongs to it, 0 elsewhere; front (m->n
 * entries): the block's states, core first, in order of hops. Returns how
 * many states the block holds. */
int32_t moving_plan(const model *m, const double *x, const double *slope, double reltol,
                    double abstol, double span, const unsigned char *bdf, unsigned char *want,
                    int32_t *front);

#endif
