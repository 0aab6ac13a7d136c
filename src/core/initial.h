/* initial.h: the values a run starts from: the problem's x0, or those of a
 * checkpoint when the run resumes (`qmol run --restart`). Every integrator
 * reads its starting states through initial_value with the table its
 * options carry (integrator_options.start).
 */
#ifndef QMOL_INITIAL_H
#define QMOL_INITIAL_H

#include "qmol.h"

#include <stdint.h>

/* A restart's starting values: (gid, value) pairs of a rank's owned and
 * ghost states, sorted by gid. Zero-initialized: none. */
typedef struct initial_values {
    struct initial_pair *pairs;
    int64_t count;
} initial_values;

/* State gid's starting value: start's when it holds values, else p->x0
 * (start NULL or empty). A gid missing from a table gives NaN (the run then
 * fails loudly). */
double initial_value(const initial_values *start, const qmol_problem *p, int64_t gid);
/* Sets start to count (gid, value) pairs (copied). Returns 0, or -1 (out of
 * memory). */
int initial_values_set(initial_values *start, const int64_t *gids, const double *values,
                       int64_t count);
void initial_values_free(initial_values *start);

#endif
