/* time_probe.h: does a problem's right-hand side depend on t although it
 * says it does not (qmol_problem.explicit_time = 0)?
 *
 * QSS methods of order 2 take df_i/dt along the states only when
 * explicit_time is 0 (the chain rule through the analytic Jacobian); a row
 * that also changes with t itself then gets the wrong slope of its
 * derivative, and the run takes many more events (a time-dependent rate
 * left undeclared: 20x). A few rows, spread over the states, are evaluated
 * at their initial inputs at several times of the span: a row whose value
 * changes is reported.
 */
#ifndef QMOL_TIME_PROBE_H
#define QMOL_TIME_PROBE_H

#include "qmol.h"

#include <stdint.h>

/* Rows probed at most. */
#define TIME_PROBE_ROWS 64

typedef struct time_probe_hit {
    int64_t row;   /* a row whose f changes with t */
    double t0, t1; /* two times ... */
    double f0, f1; /* ... and its values there */
} time_probe_hit;

/* Returns 1 (a row changes with t: *hit), 0 (none of the probed rows does,
 * or the problem says explicit_time), or -1 (out of memory). */
int time_probe(const qmol_problem *p, double tf, time_probe_hit *hit);

#endif
