/* auto_activity.c: an order-2 QSS method's events on another method's
 * solution (auto_activity.h). */
#include "auto/auto_activity.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int activity_init(activity_watch *W, int32_t n) {
    *W = (activity_watch){.n = n, .level = NAN};
    size_t bytes = sizeof(double) * (size_t)(n > 0 ? n : 1);
    for (int k = 0; k < 3; k++)
        if (!(W->x[k] = malloc(bytes))) {
            activity_free(W);
            return -1;
        }
    return 0;
}

void activity_free(activity_watch *W) {
    for (int k = 0; k < 3; k++) {
        free(W->x[k]);
        W->x[k] = NULL;
    }
}

void activity_restart(activity_watch *W) {
    W->looks = 0;
    W->level = NAN;
}

/* (a block of states between checks of the limit) */
#define LIMIT_EVERY 1024

double activity_events(const model *m, int32_t n, const double *const x[3], const double t[3],
                       double reltol, double abstol, double limit) {
    /* x'' = 2 ((x2 - x1) / h2 - (x1 - x0) / h1) / (h1 + h2) */
    double h1 = t[1] - t[0], h2 = t[2] - t[1];
    double c2 = 2.0 / (h2 * (h1 + h2)), c1 = 2.0 / (h1 * (h1 + h2));
    double (*scale)(const void *, int64_t) = m ? m->problem->abstol_scale : NULL;
    const double *x0 = x[0], *x1 = x[1], *x2 = x[2];
    double sum = 0.0;
    for (int32_t lo = 0; lo < n && sum < limit; lo += LIMIT_EVERY) {
        int32_t hi = n - lo > LIMIT_EVERY ? lo + LIMIT_EVERY : n;
        for (int32_t j = lo; j < hi; j++) {
            double curvature = c2 * (x2[j] - x1[j]) - c1 * (x1[j] - x0[j]);
            double a = scale ? abstol * scale(m->problem->data, model_gid(m, j)) : abstol;
            /* (a quantum of 0, x and abstol 0: as the smallest) */
            double quantum = fmax(fmax(reltol * fabs(x2[j]), a), DBL_MIN);
            sum += sqrt(fabs(curvature) / (2.0 * quantum));
        }
    }
    return sum;
}

void activity_look(activity_watch *W, double t, const double *x) {
    if (W->looks == 3) { /* (the oldest look's storage takes this one) */
        double *oldest = W->x[0];
        W->x[0] = W->x[1], W->t[0] = W->t[1];
        W->x[1] = W->x[2], W->t[1] = W->t[2];
        W->x[2] = oldest;
        W->looks = 2;
    }
    memcpy(W->x[W->looks], x, sizeof(double) * (size_t)W->n);
    W->t[W->looks++] = t;
    W->level = NAN;
}

double activity_time(const activity_watch *W) {
    return W->looks == 3 ? W->t[2] : -INFINITY;
}

double activity_level(activity_watch *W, const model *m, double reltol, double abstol, double limit,
                      MPI_Comm comm, int several) {
    if (W->looks < 3) return NAN;
    if (!isnan(W->level) && (W->level < W->limit || limit <= W->limit)) return W->level;
    const double *const x[3] = {W->x[0], W->x[1], W->x[2]};
    double level = activity_events(m, W->n, x, W->t, reltol, abstol, limit);
    /* (a rank past the limit: the sum over all is past it too) */
    if (several) MPI_Allreduce(MPI_IN_PLACE, &level, 1, MPI_DOUBLE, MPI_SUM, comm);
    W->level = level, W->limit = limit;
    return level;
}
