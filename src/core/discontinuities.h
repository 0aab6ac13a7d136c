/* discontinuities.h: a problem's discontinuity fields (qmol.h: crossing
 * functions, time events, discrete variables, affected states) as the run
 * checks and partitions them; the QSS engine's handling of them is
 * discrete.h's. */
#ifndef QMOL_DISCONTINUITIES_H
#define QMOL_DISCONTINUITIES_H

#include "qmol.h"

#include <stddef.h>
#include <stdint.h>

/* Whether the problem has crossing functions or time events. */
static inline int problem_has_discontinuities(const qmol_problem *p) {
    return p->n_crossings > 0 || p->next_time_event != NULL;
}

/* The states the problem's discontinuities touch (every crossing function's
 * inputs and the affected states), sorted and distinct, ids outside [0, n)
 * left out (discrete_check refuses them). NULL with *count = 0 when there
 * are none, -1 when the lists hold more than `limit` ids in all, -2 when out
 * of memory. */
int64_t *discrete_states(const qmol_problem *p, int64_t limit, int64_t *count);

/* Checks the problem's discontinuity fields: counts in range, the callbacks
 * each kind needs present. Returns 0, or -1 with a message naming the field. */
int discrete_check(const qmol_problem *p, char *err, size_t errlen);

#endif
