/* poly2.h: the degree-2 root solves of poly.h, inlined where every
 * second-order QSS schedule ends (the readers of an event: callgrind,
 * adr2d 100 x 100 LIQSS2, one call of 72 instructions a reader). */
#ifndef QMOL_POLY2_H
#define QMOL_POLY2_H

#include "qss/poly.h"

#include <math.h>

/* Smallest s > 0 with c0 + c1 s = 0, or +INFINITY. */
static inline double linear_root(double c0, double c1) {
    if (c1 == 0.0) return INFINITY;
    double s = -c0 / c1;
    return s > 0.0 ? s : INFINITY;
}

/* Smallest s > 0 with c0 + c1 s + c2 s^2 = 0, or +INFINITY. */
static inline __attribute__((always_inline)) double quadratic_root(double c0, double c1,
                                                                   double c2) {
    if ((c0 < 0.0 && c2 > 0.0) || (c0 > 0.0 && c2 < 0.0)) {
        /* one positive root, the other negative (the usual exit: x - q
         * inside the band, bending out of it): the same formulas as below,
         * one division instead of two. With c1 >= 0, qq < 0 and qq / c2 has
         * the sign of -c2; with c1 < 0, qq > 0 and qq / c2 that of c2. */
        double sq = sqrt(c1 * c1 - 4.0 * c2 * c0);
        double qq = -0.5 * (c1 + (c1 >= 0.0 ? sq : -sq));
        if (qq == 0.0) return INFINITY; /* (c1 = 0 and c2 c0 below the smallest double) */
        double r = (c1 >= 0.0) == (c2 < 0.0) ? qq / c2 : c0 / qq;
        return r > 0.0 ? r : INFINITY;
    }
    if (c2 == 0.0) return linear_root(c0, c1);
    double disc = c1 * c1 - 4.0 * c2 * c0;
    if (disc < 0.0) return INFINITY;
    double sq = sqrt(disc);
    double qq = -0.5 * (c1 + (c1 >= 0.0 ? sq : -sq));
    double r1 = qq / c2;
    double r2 = qq != 0.0 ? c0 / qq : r1;
    double best = INFINITY;
    if (r1 > 0.0 && r1 < best) best = r1;
    if (r2 > 0.0 && r2 < best) best = r2;
    return best;
}

/* Degree-2 versions of poly_first_exit and poly_min_positive_root, for the
 * hot second-order schedules: the same results, with one root solve per
 * call. */
static inline double poly2_first_exit(double d0, double d1, double d2, double bound) {
    if (fabs(d0) >= bound) {
        double d[4] = {d0, d1, d2, 0.0};
        return poly_first_exit(d, 2, bound);
    }
    /* only one side can be reached first: a convex d leaves through +bound
     * unless its minimum (at s > 0) is already below -bound; mirrored for a
     * concave one; a straight line leaves on its slope's side */
    int upper;
    if (d2 == 0.0) {
        if (d1 == 0.0) return INFINITY;
        upper = d1 > 0.0;
    } else if ((d1 < 0.0) != (d2 < 0.0)) { /* the extreme at s > 0 (or s = 0 on underflow) */
        double s = -d1 / (2.0 * d2), extreme = d0 + s * (d1 + s * d2);
        if (d2 > 0.0)
            upper = !(s > 0.0 && extreme <= -bound);
        else
            upper = s > 0.0 && extreme >= bound;
    } else { /* the extreme is behind: d leaves on its bend's side */
        upper = d2 > 0.0;
    }
    return quadratic_root(upper ? d0 - bound : d0 + bound, d1, d2);
}

static inline double poly2_min_positive_root(double c0, double c1, double c2) {
    return quadratic_root(c0, c1, c2);
}

#endif
