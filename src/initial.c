/* initial.c: starting values, from the problem or a checkpoint (initial.h). */
#include "initial.h"

#include <math.h>
#include <stdlib.h>

typedef struct pair {
    int64_t gid;
    double value;
} pair;

static pair *table; /* sorted by gid */
static int64_t ntable;

static int by_gid(const void *a, const void *b) {
    int64_t x = ((const pair *)a)->gid, y = ((const pair *)b)->gid;
    return (x > y) - (x < y);
}

int initial_set(const int64_t *gids, const double *values, int64_t count) {
    initial_clear();
    table = malloc((size_t)(count > 0 ? count : 1) * sizeof *table);
    if (!table) return -1;
    for (int64_t k = 0; k < count; k++)
        table[k] = (pair){gids[k], values[k]};
    qsort(table, (size_t)count, sizeof *table, by_gid);
    ntable = count;
    return 0;
}

void initial_clear(void) {
    free(table);
    table = NULL;
    ntable = 0;
}

double initial_value(const qmol_problem *p, int64_t gid) {
    if (!table) return p->x0(p->data, gid);
    pair key = {gid, 0.0};
    const pair *hit = bsearch(&key, table, (size_t)ntable, sizeof *table, by_gid);
    return hit ? hit->value : NAN;
}
