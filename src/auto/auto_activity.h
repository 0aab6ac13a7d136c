/* auto_activity.h: how many events an order-2 QSS method would need on the
 * solution another method computes (--method auto, auto_run.c).
 *
 * While CVODE runs, the QSS method's cost is known only from its last probe,
 * and CVODE's own cost does not show activity dying out: its steps stay
 * short on the stiff modes when the fronts have gone (adr2d 300 x 300 at
 * t = 6.9: CVODE 0.46 s per unit of t, LIQSS2 0.012). An order-2 QSS state
 * with curvature x'' leaves the line q by its quantum Q about every
 * sqrt(2 Q / |x''|), so the run's states at three looks say how many events
 * per unit of t the QSS method would need now:
 *
 *     sum over the states of sqrt(|x''| / (2 Q)),
 *
 * x'' the divided difference of the three looks, Q the QSS method's quantum
 * there (max(reltol |x|, abstol times the problem's abstol_scale)). This is
 * a measure of activity, not a prediction of the count (stiff states, the
 * fronts' steepness between looks): auto uses only its ratio to what it was
 * when the QSS method's cost was last measured. The sum is made when asked
 * for, and only as far as the question needs (activity_level's limit).
 */
#ifndef QMOL_AUTO_ACTIVITY_H
#define QMOL_AUTO_ACTIVITY_H

#include "core/model.h"

#include <mpi.h>

typedef struct activity_watch {
    double *x[3]; /* owned states at the last three looks, oldest first */
    double t[3];  /* their times */
    int32_t n;    /* owned states */
    int looks;    /* looks held (0..3) */
    double level; /* the sum at the last look, over all ranks (NAN: not made) */
    double limit; /* ... made up to this: exact below it, at least it above */
} activity_watch;

/* n owned states. Returns 0, or -1 out of memory (nothing to free). */
int activity_init(activity_watch *W, int32_t n);
void activity_free(activity_watch *W);
/* Forgets the looks (a new segment: its states are another integration's). */
void activity_restart(activity_watch *W);
/* The sum above over the n states of m (m NULL: abstol_scale 1) at x2, from
 * x0, x1, x2 at t[0] < t[1] < t[2], stopped once it reaches limit. */
double activity_events(const model *m, int32_t n, const double *const x[3], const double t[3],
                       double reltol, double abstol, double limit);
/* A look at t (after the last), x the n owned states. */
void activity_look(activity_watch *W, double t, const double *x);
/* When the last look was taken (-INFINITY: fewer than three looks). */
double activity_time(const activity_watch *W);
/* The sum at the last look over all ranks (collective when several: every
 * rank asks with the same limit), exact when below limit, else a value not
 * below it; NAN with fewer than three looks. */
double activity_level(activity_watch *W, const model *m, double reltol, double abstol, double limit,
                      MPI_Comm comm, int several);

#endif
