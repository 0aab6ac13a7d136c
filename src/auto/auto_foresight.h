/* auto_foresight.h: when activity is about to reach the mixed candidate's
 * BDF states while the QSS method runs them (--method auto, auto_run.c).
 *
 * The mixed candidate's BDF block holds the stiff rows (--assign auto). While
 * the QSS method runs them they cost nothing until activity reaches them;
 * then QSS on them costs decades more (adr1d-vardiff N = 1e4 as its front
 * enters the diffusive half at t = 3.29: 26, then 290, then 1,100 s per unit
 * of t), and a mixed run started at that moment pays its BDF block's start
 * in the middle of the front (its first steps cut by the coupling: 0.14-0.19
 * s for 0.01 of t, where the static split crosses the same point in 31
 * steps). The measured costs cannot see this coming: before the front
 * arrives the mixed method costs about what the QSS method does.
 *
 * So the run looks ahead: the hops from every state to the nearest BDF
 * state of the split (a breadth-first search over the dependency graph,
 * once), and, every LOOK_EVERY of the span, the fewest hops from a state
 * that had events since the last look. When that distance shrinks at
 * APPROACH_LOOKS looks in a row (activity hovering a few hops away is not
 * coming), the speed since the approach began says when activity arrives;
 * arriving within `lead`, the run hands over to the mixed method before it
 * does. The search follows the dependents (who reads whom), so on a row
 * structure that is not symmetric (pure advection) it may see activity
 * arrive late or not at all: then nothing is predicted and the
 * measurements decide, as without it.
 */
#ifndef QMOL_AUTO_FORESIGHT_H
#define QMOL_AUTO_FORESIGHT_H

#include "core/model.h"

#include <mpi.h>

struct halo_plan;

/* Hops the search goes to: activity farther away is not seen coming. */
#define FORESIGHT_HOPS 4096
/* Looks at the activity, as a fraction of the span, and how many in a row
 * must find it nearer. */
#define LOOK_EVERY (1.0 / 256.0)
#define APPROACH_LOOKS 2

typedef struct foresight {
    int32_t *hops; /* owned states' hops to the nearest BDF state (-1: farther) */
    double *seen;  /* events per owned state at the last look */
    double look_t; /* the last look (-INFINITY: none since foresight_start) */
    int32_t near;  /* the fewest hops from an active state then (-1: none) */
    /* the look where the approach under way began (its time and near), and
     * the looks since, each nearer than the one before */
    double from_t;
    int32_t from_near;
    int approach;
} foresight;

/* The hops to the states assignment puts on BDF (collective over the halo's
 * ranks; halo NULL on one rank). Returns 0, or -1 out of memory (agreed). */
int foresight_init(foresight *F, const model *m, struct halo_plan *halo,
                   const unsigned char *assignment);
void foresight_free(foresight *F);
/* A QSS run starts counting events per state in `events` (n owned). */
void foresight_start(foresight *F, const double *events, int32_t n);
/* At a window end t of that run (collective over comm): 1 when activity,
 * not yet among the BDF states, will reach them within lead of simulated
 * time at the speed it approached since its approach began. Looks only
 * every LOOK_EVERY of the span. */
int foresight_look(foresight *F, MPI_Comm comm, const double *events, int32_t n, double t,
                   double span, double lead);

#endif
