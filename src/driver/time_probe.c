/* time_probe.c: rows that change with t at fixed inputs (time_probe.h). */
#include "driver/time_probe.h"

#include <math.h>
#include <stdlib.h>

int time_probe(const qmol_problem *p, double tf, time_probe_hit *hit) {
    if (p->explicit_time || p->n <= 0 || !(tf > p->t0)) return 0;
    static const double at[] = {1e-3, 0.37, 0.71, 1.0}; /* fractions of the span */
    int64_t step = p->n > TIME_PROBE_ROWS ? p->n / TIME_PROBE_ROWS : 1;
    int found = 0;
    for (int64_t i = 0; i < p->n && !found; i += step) {
        int len = p->row_size(p->data, i);
        if (len < 0) continue; /* the model's checks say so */
        int64_t *cols = malloc(((size_t)len + 1) * sizeof *cols);
        double *vals = malloc(((size_t)len + 1) * sizeof *vals);
        if (!cols || !vals) {
            free(cols), free(vals);
            return -1;
        }
        if (len > 0) p->row(p->data, i, cols);
        int ok = 1;
        for (int k = 0; k < len && ok; k++) {
            ok = cols[k] >= 0 && cols[k] < p->n;
            if (ok) vals[k] = p->x0(p->data, cols[k]);
        }
        double f0 = ok ? p->rhs(p->data, i, p->t0, vals) : 0.0;
        for (size_t k = 0; ok && k < sizeof at / sizeof at[0] && !found; k++) {
            double t = p->t0 + at[k] * (tf - p->t0);
            double f = p->rhs(p->data, i, t, vals);
            if (isfinite(f0) && isfinite(f) && f != f0) {
                *hit = (time_probe_hit){i, p->t0, t, f0, f};
                found = 1;
            }
        }
        free(cols), free(vals);
    }
    return found;
}
