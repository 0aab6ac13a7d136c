/* initial.c: starting values, from the problem or a checkpoint (initial.h). */
#include "core/initial.h"

#include <math.h>
#include <stdlib.h>

struct initial_pair {
    int64_t gid;
    double value;
};

static int by_gid(const void *a, const void *b) {
    int64_t x = ((const struct initial_pair *)a)->gid, y = ((const struct initial_pair *)b)->gid;
    return (x > y) - (x < y);
}

int initial_values_set(initial_values *start, const int64_t *gids, const double *values,
                       int64_t count) {
    initial_values_free(start);
    start->pairs = malloc((size_t)(count > 0 ? count : 1) * sizeof *start->pairs);
    if (!start->pairs) return -1;
    int sorted = 1;
    for (int64_t k = 0; k < count; k++) {
        start->pairs[k] = (struct initial_pair){gids[k], values[k]};
        if (k > 0 && gids[k] < gids[k - 1]) sorted = 0;
    }
    if (!sorted) qsort(start->pairs, (size_t)count, sizeof *start->pairs, by_gid);
    start->count = count;
    return 0;
}

void initial_values_free(initial_values *start) {
    free(start->pairs);
    start->pairs = NULL;
    start->count = 0;
}

double initial_value(const initial_values *start, const qmol_problem *p, int64_t gid) {
    if (!start || !start->pairs) return p->x0(p->data, gid);
    struct initial_pair key = {gid, 0.0};
    const struct initial_pair *hit =
        bsearch(&key, start->pairs, (size_t)start->count, sizeof *start->pairs, by_gid);
    return hit ? hit->value : NAN;
}
