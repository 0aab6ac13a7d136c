/* moving_plan.c: the moving block's states (moving_plan.h). */
#include "mixed/moving_plan.h"

#include <math.h>

int32_t moving_plan(const model *m, const double *x, const double *slope, double reltol,
                    double abstol, double span, const unsigned char *bdf, unsigned char *want,
                    int32_t *front) {
    double every = MOVING_PLAN_FRACTION * span;
    int32_t n = m->n, count = 0;
    for (int32_t j = 0; j < n; j++) {
        double quanta = fabs(slope[j]) * every / model_quantum(m, j, x[j], reltol, abstol);
        want[j] = quanta > (bdf && bdf[j] ? MOVING_PLAN_STAY : MOVING_PLAN_RATE);
        if (want[j]) front[count++] = j;
    }
    /* widened by MOVING_PLAN_MARGIN hops, a frontier at a time */
    int32_t lo = 0;
    for (int hop = 0; hop < MOVING_PLAN_MARGIN; hop++) {
        int32_t hi = count;
        for (int32_t k = lo; k < hi; k++) {
            int32_t j = front[k];
            for (int64_t q = m->row_ptr[j]; q < m->row_ptr[j + 1]; q++) {
                int32_t c = m->row_col[q];
                if (c < n && !want[c]) want[c] = 1, front[count++] = c;
            }
        }
        lo = hi;
    }
    return count;
}
