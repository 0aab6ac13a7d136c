/* auto_floor.c: the wall time of one evaluation of every row, and the
 * moving block's size (auto_floor.h). */
#include "auto/auto_floor.h"

#include "core/wallclock.h"
#include "mixed/moving_plan.h"

#include <math.h>
#include <stdlib.h>

/* Evaluations timed; the least counts. */
#define TIMINGS 3

double rows_wall(const model *m, double t, const double *x, int jacobian, uint64_t *evaluated) {
    size_t row = (size_t)m->max_row, scratch_len = model_scratch_size(m);
    double *vals = malloc((2 * row + scratch_len + 1) * sizeof *vals);
    if (!vals) return 0.0;
    double *dfdv = vals + row, *scratch = dfdv + row, least = INFINITY;
    volatile double sink = 0.0; /* (the results are used: no evaluation is dropped) */
    for (int k = 0; k < TIMINGS; k++) {
        double w0 = wallclock_seconds(), sum = 0.0;
        for (int32_t j = 0; j < m->n; j++) {
            model_gather(m, j, x, vals);
            if (jacobian) {
                model_jac(m, j, t, vals, dfdv, scratch);
                sum += dfdv[0];
            } else {
                sum += model_rhs(m, j, t, vals, scratch);
            }
        }
        double w = wallclock_seconds() - w0;
        sink = sink + sum;
        if (w < least) least = w;
        *evaluated += (uint64_t)m->n;
    }
    (void)sink;
    free(vals);
    return least;
}

int32_t moving_block_size(const model *m, double t, const double *x, double reltol, double abstol,
                          double span, uint64_t *evaluated) {
    size_t n = (size_t)m->n + 1, row = (size_t)m->max_row + 1;
    double *slope = malloc((n + row + model_scratch_size(m) + 1) * sizeof *slope);
    unsigned char *want = malloc(n);
    int32_t *front = malloc(n * sizeof *front), size = -1;
    if (slope && want && front) {
        double *vals = slope + n, *scratch = vals + row;
        for (int32_t j = 0; j < m->n; j++) {
            model_gather(m, j, x, vals);
            slope[j] = model_rhs(m, j, t, vals, scratch);
        }
        *evaluated += (uint64_t)m->n;
        size = moving_plan(m, x, slope, reltol, abstol, span, NULL, want, front);
    }
    free(slope), free(want), free(front);
    return size;
}
