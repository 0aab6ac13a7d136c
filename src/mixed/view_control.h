/* view_control.h: how long a window may be while a QSS block reads BDF
 * states as Taylor polynomials about the window start (the "views" of the
 * mixed method, mixed_run.c, and of --method moving, moving_run.c): the
 * a-priori extrapolation limit and the view drift controller. */
#ifndef QMOL_VIEW_CONTROL_H
#define QMOL_VIEW_CONTROL_H

#include <math.h>

/* The part of a quantum the QSS block's view of a BDF state may drift from
 * the truth over a window. The drift has one sign over a whole smooth
 * stretch (a linear view of a decaying, convex y lies below it), so unlike
 * a QSS state's own |q - x|, which changes sides, it acts on the readers as
 * a steady source: heat1d N = 100, `--bdf "x>0.5"`, mLIQSS2, tol 1e-4, max
 * error with 4 / 5 / 6 / 10 / 20 samples: a whole quantum 7.7e-4 / 1.1e-3 /
 * 1.2e-3 / 6.0e-4 / 4.1e-4 (43-54 BDF steps), a half 3.1e-4 / 3.0e-4 /
 * 3.8e-4 / 3.0e-4 / 2.4e-4 (55-67 steps), a quarter 1.7e-4 .. 1.1e-4
 * (78-88 steps); CVODE alone 3.4e-4. Where the view is not what limits
 * the error the windows only cost: adr1d-vardiff N = 400 (tests/mixed/test_mixed.c)
 * keeps e_rr 7.6e-4 and 178 BDF steps under the default history coupling
 * whatever the fraction, but the interp coupling takes 469 steps with a
 * whole quantum, 589 with a half, 738 with a quarter (CVODE alone 1,340).
 * The constant view of first-order methods keeps the whole quantum: its
 * windows are linear in the fraction, and a quarter took mixed LIQSS1 on
 * the heat1d run from 4,937 BDF steps to 19,738 (max error 4.2e-4 to
 * 1.3e-4, both within the rules). */
#define VIEW_DRIFT 0.5

/* The longest window over which one view stays within its drift: within dQ
 * for a constant view (first-order methods, dQ / |y'|), within VIEW_DRIFT
 * dQ for a linear one (sqrt(2 VIEW_DRIFT dQ / |y''|)). INFINITY where the
 * view does not move. */
static inline double view_extrapolation_limit(int order, double dq, double slope, double curv) {
    double a = order >= 2 ? fabs(curv) : fabs(slope);
    if (!(a > 0.0)) return INFINITY;
    return order >= 2 ? sqrt(2.0 * VIEW_DRIFT * dq / a) : dq / a;
}

/* The view drift controller (ours; docs/methods.md "Extrapolation limit").
 * The extrapolation limit predicts from the curvature the slopes have
 * shown; where they have shown none yet (a BDF region the heat has not
 * reached: y = 0, y' = 0) it allows any window, and CVODE, whose error is
 * small there, grows its steps tenfold: heat2d-thermostat 16 x 16, `--bdf
 * "x>0.6"`, tol 1e-2 went from a 2e-3 window to a 2e-2 one while heat came
 * into the BDF region; its QSS neighbours read it as cold all that window,
 * and the first switch came 3.2e-4 s late (-0.8e-4 s with short windows).
 * So each window end also measures the drift the view had (the old
 * polynomial at T against y(T), in quanta of the column), and the next
 * window is at most the last one times VIEW_SAFETY / drift^(1/p) (p = 2
 * for a linear view, 1 for a constant one), within [VIEW_SHRINK,
 * VIEW_GROWTH]: a window grows at most VIEW_GROWTH-fold over one whose
 * view was measured. A window cut short (a sample, a discontinuity, the
 * step limit) with its drift within a quantum keeps the controller's
 * length of before. The measured drift is held to a whole quantum, not to
 * the a-priori limit's VIEW_DRIFT: on diurnal (`--bdf "c==0"`, tol 1e-4)
 * the fast species' views drift past half a quantum whenever a QSS input
 * moves them, and holding them to it took 19,582 windows instead of
 * 10,290 for the same e_rr (3.2e-4); a whole quantum and growth 4 take
 * 11,800. Under `--coupling interp` and `sample` only the growth limit
 * applies: there the BDF block integrates an approximation of q, its stiff
 * rows relax within a window to each new input, and the view's drift does
 * not shrink with the window (adr1d-vardiff N = 400, LIQSS2, sample: a
 * quantum at windows of 1e-4 and of 1e-5; shrinking took 1,262 BDF steps
 * instead of 563 for the same e_rr); the step limit (Eq. 7.35) governs
 * those couplings. The readers' drift (measure_readers) is held to a
 * quantum the same way, with the power p + 1: it grows as the view's drift
 * times the window. */
#define VIEW_SAFETY 0.9
#define VIEW_SHRINK 0.2
#define VIEW_GROWTH 4.0

/* The factor VIEW_SAFETY / drift^(1/p) by which the next window may grow
 * over one whose view drifted by `drift` quanta (VIEW_GROWTH for none),
 * before view_next_window's bounds. */
static inline double view_drift_factor(double drift, double p) {
    return drift > 0.0 ? VIEW_SAFETY * pow(drift, -1.0 / p) : VIEW_GROWTH;
}

/* The next window after one of `length`, at the factor held to
 * [VIEW_SHRINK, VIEW_GROWTH]. */
static inline double view_next_window(double length, double factor) {
    return length * fmin(VIEW_GROWTH, fmax(VIEW_SHRINK, factor));
}

#endif
