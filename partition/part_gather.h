/* part_gather.h: keeping a problem's discontinuities on one rank.
 *
 * The states that crossing functions read and that handlers affect (qmol.h)
 * are the only ones whose rows see the discrete variables. When one rank
 * owns them all, that rank handles every zero crossing and time event inside
 * its own event loop, as on one rank, instead of all ranks handling each at
 * a window end they agree on (discrete.h): buck-heatsink on 2 ranks spent
 * 3e6 windows that way, one per switching event. A partition computed
 * without regard to them moves them to the owner of the first, when they
 * are few: at most n / (4 P) states (PART_GATHER_SHARE), a quarter of a
 * rank's share, so the balance changes little.
 */
#ifndef QMOL_PART_GATHER_H
#define QMOL_PART_GATHER_H

#include "partition/part_graph.h"
#include "qmol.h"
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#define PART_GATHER_SHARE 4

/* Collective. owner holds this rank's directory block of owners; moves the
 * discontinuity states and their neighbours up to `hops` edges of g away
 * (the states the mixed method's --assign auto keeps on QSS with them) as
 * above unless that would leave a rank without states. Returns 1 when they
 * moved, 0 when not (none, too many, already together), -1 with err set
 * (out of memory; agreed). */
int part_gather_discrete(const qmol_problem *p, const part_graph *g, int hops, MPI_Comm comm,
                         int32_t *owner, char *err, size_t errlen);

#endif
