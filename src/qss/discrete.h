/* discrete.h: zero crossings and time events of a problem (qmol.h) under the
 * QSS engine, and what CVODE shares with it.
 *
 * Under QSS a crossing function g_c is evaluated along the q trajectories of
 * the states it reads (the thesis's choice, ALGORITHMS.md 1.5). Its next zero
 * is the smallest positive root of g's quadratic Taylor polynomial along q
 * (exact for g linear in the states), re-predicted whenever one of its
 * inputs' q changes, and
 * confirmed by the sign of g at the predicted time. Crossings and time events share one small heap;
 * the engine's loop takes them before state events at equal times. A handler changes discrete
 * variables; then the affected states' derivatives are re-evaluated (no
 * restart) and every crossing is looked at again: one whose sign the handler
 * flipped fires at once. That re-check is a scan of the crossings, so a
 * problem is expected to have few crossing functions (not one per cell).
 */
#ifndef QMOL_DISCRETE_H
#define QMOL_DISCRETE_H

#include "core/discontinuities.h"
#include "qss/discrete_undo.h"
#include "qss/heap.h"
#include "core/integrator.h"
#include "core/model.h"

#include <mpi.h>

struct qss_engine;

typedef struct discrete {
    const qmol_problem *p;
    int64_t nc;                           /* crossing functions */
    int64_t *in_ptr;                      /* nc + 1 */
    int32_t *in_col;                      /* their inputs (engine columns) */
    int64_t *reader_ptr;                  /* n_cols + 1: crossings reading each column */
    int32_t *reader;                      /* crossing ids */
    int32_t *affected, naffected;         /* engine rows whose f reads discrete variables */
    int affects_outside;                  /* a handler changes rows outside this engine (BDF) */
    signed char *sign;                    /* g_c's last sign, +1 or -1 (0 before the first) */
    double *vals, *vals2, *slopes, *curv; /* scratch: longest crossing row */
    event_heap heap;                      /* nc crossings, then index nc: the next time event */
    double handled_at;                    /* time of the last handler that affects_outside */
    uint64_t handled;                     /* handler rounds run here so far (after_handler) */
    unsigned char *watched_own;           /* the engine's WATCH_ bits, when allocated here */
    /* Several ranks (collective): discrete events are handled at window
     * ends by every rank together (discrete_at_window_end); each crossing is
     * evaluated by the owner of its first input (mine), and every rank runs
     * every handler on its copy of the discrete variables. When one rank
     * owns every crossing input and affected state, it alone handles them
     * in its event loop as on one rank, and the others have no e->disc. */
    int collective, rank;
    MPI_Comm comm;
    unsigned char *mine;
    int *fired;         /* scratch: direction per crossing */
    discrete_undo undo; /* taking a rejected window back (several ranks) */
} discrete;

/* Builds e->disc when the problem has discontinuities (else does nothing) and
 * marks the crossings' inputs WATCH_CROSSING in `watched` (the engine's array
 * of n_cols, or NULL: allocated here). outside_ok as for discrete_build.
 * Returns 0, or -1 with the engine's err set. */
int discrete_attach(struct qss_engine *e, unsigned char *watched,
                    int (*outside_ok)(void *ctx, int64_t gid), void *ctx);

/* Builds the crossing structure for an engine over model m (columns m->gid,
 * or global ids when NULL). A crossing reading a state that is not a column of
 * m, or an affected state that is neither a row of m nor in `outside_ok`
 * (NULL: none allowed), is an error naming it. Returns 0, or -1 with err. */
int discrete_build(discrete *d, const model *m, MPI_Comm comm,
                   int (*outside_ok)(void *ctx, int64_t gid), void *ctx, char *err, size_t errlen);
void discrete_free(discrete *d);

/* Engine side (qss_engine.c calls these). */
/* First predictions and the first time event at t0. */
void discrete_start(struct qss_engine *e, double t0);
/* Input i's q changed at t: re-predict the crossings reading it. */
void discrete_input_changed(struct qss_engine *e, int32_t i, double t);
/* Handles the earliest discrete event (at t); one rank. */
void discrete_event(struct qss_engine *e, double t);
/* Several ranks handling the discontinuities together (collective): the
 * earliest discrete time this rank knows (its crossings' predictions, the
 * next time event), for the window agreement; otherwise infinity. */
double discrete_next_time(const struct qss_engine *e);
/* Several ranks, collective at the window end T (after the ghost exchange):
 * the time event due at T and the crossings whose sign changed, handled by
 * every rank, until none fires. Returns 0 or -1 (the engine failed). */
int discrete_at_window_end(struct qss_engine *e, double T);

/* Several ranks, collective at a window end after window_agree, where one
 * rank handles the discontinuities alone (e->disc_root) and its handlers
 * ran since the last share (e->disc_changed, as agreed): its values of the
 * problem's discrete variables (get_discrete) become every rank's
 * (set_discrete), for what evaluates the problem on every rank from there:
 * a checkpoint, --method auto's probes and segments (CVODE's crossings on
 * every rank). Otherwise does nothing (no collective). */
void discrete_share(struct qss_engine *e);

/* A checkpoint's discontinuity state (problems with discontinuities only;
 * collective over comm, which may hold ranks without e->disc): the next
 * time event, which may be due at the window end itself, and each
 * crossing's last sign. Loading sets them and predicts every crossing again
 * at e->o->t0. Returns 0, or -1 (agreed) with io->why. */
int discrete_state_io(struct qss_engine *e, MPI_Comm comm, state_io *io);

/* Shared with CVODE: the sign of v as stored (+1 / -1; 0 stays 0). */
static inline signed char discrete_sign(double v) {
    return v > 0.0 ? 1 : v < 0.0 ? -1 : 0;
}

#endif
