/* adr2d_problem.h: qmol's adr2d problem with its default parameters
 * (problems/adr2d.c), as the hand-written programs beside this file
 * (adr2d_cvode.c, adr2d_active.c) write it for themselves, and the two
 * programs' clock and number parsing.
 *
 *   f = wW (uW - u) + wE (uE - u) + wS (uS - u) + wN (uN - u) + r (u^2 - u^3),
 *   wW = ax/dx + d/dx^2, wE = d/dx^2, wS = ay/dy + d/dy^2, wN = d/dy^2,
 *
 * node (ix, iy), id = ix + N iy; the west ghost of column 0 is the inflow u0,
 * a missing east, south or north neighbour contributes nothing (zero flux).
 * u(0) = 1 on ix < floor(0.2 N), iy < floor(0.5 N), else 0.
 */
#ifndef ADR2D_PROBLEM_H
#define ADR2D_PROBLEM_H

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>

#define LX 10.0
#define LY 10.0
#define AX 1.0
#define AY 0.5
#define DIFF 1e-3
#define RATE 10.0
#define U0 1.0
#define INIT_FRAC 0.2
#define INIT_YFRAC 0.5

/* u(0) on an n x n grid into u */
static inline void adr2d_initial(long n, double *u) {
    /* the slack keeps e.g. 100 * 0.2 = 20 from rounding down to 19 */
    long cols = (long)floor((double)n * INIT_FRAC + 1e-9);
    long rows = (long)floor((double)n * INIT_YFRAC + 1e-9);
    for (long i = 0; i < n * n; i++)
        u[i] = i % n < cols && i / n < rows ? 1.0 : 0.0;
}

/* Monotonic seconds. */
static inline double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A whole string as a finite number into v: 1, else 0. */
static inline int parse_double(const char *s, double *v) {
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return end != s && *end == '\0' && errno == 0 && isfinite(*v);
}

#endif
