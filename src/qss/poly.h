/* poly.h: smallest positive roots of low-degree polynomials, the core of every
 * QSS next-time computation. */
#ifndef QMOL_POLY_H
#define QMOL_POLY_H

/* Smallest s > 0 with c[0] + c[1] s + ... + c[deg] s^deg = 0 (deg <= 3), or
 * +INFINITY when there is none. Leading zero coefficients lower the degree. */
double poly_min_positive_root(const double *c, int deg);

/* Smallest s > 0 where the polynomial d(s) (degree <= 3) reaches +bound or
 * -bound; +INFINITY if never. 0 if |d(0)| >= bound and d moves outward. */
double poly_first_exit(const double *d, int deg, double bound);

#endif
