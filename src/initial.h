/* initial.h: the values a run starts from: the problem's x0, or those of a
 * checkpoint when the run resumes (`qmol run --restart`). Every integrator
 * reads its starting states through initial_value.
 */
#ifndef QMOL_INITIAL_H
#define QMOL_INITIAL_H

#include "qmol.h"

#include <stdint.h>

/* State gid's starting value: the restart table's when set, else p->x0. A
 * gid missing from a set table gives NaN (the run then fails loudly). */
double initial_value(const qmol_problem *p, int64_t gid);
/* Sets the table of count (gid, value) pairs: a rank's owned and ghost
 * states. Copies them. Returns 0, or -1 (out of memory). */
int initial_set(const int64_t *gids, const double *values, int64_t count);
void initial_clear(void);

#endif
