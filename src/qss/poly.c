/* poly.c: smallest positive polynomial roots (see poly.h).
 *
 * Quadratics use the cancellation-free formula; cubics are split at their
 * critical points into monotone pieces, each searched by safeguarded Newton.
 */
#include "qss/poly.h"
#include "qss/poly2.h"

#include <math.h>

static double cubic_eval(const double *c, double s) {
    return c[0] + s * (c[1] + s * (c[2] + s * c[3]));
}

/* Root of a cubic monotone on [a, b] with a sign change; bisection steps
 * guard Newton so it always converges. */
static double cubic_refine(const double *c, double a, double b) {
    double fa = cubic_eval(c, a);
    double s = 0.5 * (a + b);
    for (int it = 0; it < 200; it++) {
        double f = cubic_eval(c, s);
        if (f == 0.0) return s;
        if ((f < 0.0) == (fa < 0.0)) {
            a = s;
            fa = f;
        } else {
            b = s;
        }
        double df = c[1] + s * (2.0 * c[2] + 3.0 * s * c[3]);
        double next = df != 0.0 ? s - f / df : 0.5 * (a + b);
        if (!(next > a && next < b)) next = 0.5 * (a + b);
        if (fabs(next - s) <= 4.0 * 2.2e-16 * fabs(next)) return next;
        s = next;
    }
    return s;
}

static double cubic_root(const double *c) {
    if (c[3] == 0.0) return quadratic_root(c[0], c[1], c[2]);
    /* break points: 0, the positive critical points, then +infinity */
    double pts[4];
    int np = 0;
    pts[np++] = 0.0;
    double dc0 = c[1], dc1 = 2.0 * c[2], dc2 = 3.0 * c[3];
    double disc = dc1 * dc1 - 4.0 * dc2 * dc0;
    if (disc > 0.0) {
        double sq = sqrt(disc);
        double qq = -0.5 * (dc1 + (dc1 >= 0.0 ? sq : -sq));
        double r1 = qq / dc2, r2 = qq != 0.0 ? dc0 / qq : r1;
        if (r1 > r2) {
            double tmp = r1;
            r1 = r2;
            r2 = tmp;
        }
        if (r1 > 0.0) pts[np++] = r1;
        if (r2 > 0.0 && r2 != r1) pts[np++] = r2;
    }
    for (int k = 0; k < np; k++) {
        double a = pts[k];
        double fa = cubic_eval(c, a);
        if (k > 0 && fa == 0.0) return a;
        double b;
        if (k + 1 < np) {
            b = pts[k + 1];
        } else { /* last, unbounded piece: grow until the sign is the leading one */
            b = a > 0.0 ? 2.0 * a : 1.0;
            double lead = c[3] > 0.0 ? 1.0 : -1.0;
            int guard = 0;
            while (cubic_eval(c, b) * lead <= 0.0 && guard++ < 2100)
                b *= 2.0;
        }
        double fb = cubic_eval(c, b);
        if (fb == 0.0) return b;
        if ((fa < 0.0) != (fb < 0.0) && fa != 0.0) return cubic_refine(c, a, b);
    }
    return INFINITY;
}

double poly_min_positive_root(const double *c, int deg) {
    while (deg > 0 && c[deg] == 0.0)
        deg--;
    switch (deg) {
    case 0:
        return INFINITY;
    case 1:
        return linear_root(c[0], c[1]);
    case 2:
        return quadratic_root(c[0], c[1], c[2]);
    default:
        return cubic_root(c);
    }
}

double poly_first_exit(const double *d, int deg, double bound) {
    if (fabs(d[0]) >= bound) {
        /* already outside: leaving further means now; coming back is not an exit */
        double slope = 0.0;
        for (int k = 1; k <= deg && slope == 0.0; k++)
            slope = d[k];
        if (slope == 0.0 || (slope > 0.0) == (d[0] > 0.0)) return 0.0;
    }
    double c[4] = {0, 0, 0, 0};
    for (int k = 0; k <= deg; k++)
        c[k] = d[k];
    c[0] = d[0] - bound;
    double s1 = poly_min_positive_root(c, deg);
    c[0] = d[0] + bound;
    double s2 = poly_min_positive_root(c, deg);
    return s1 < s2 ? s1 : s2;
}
