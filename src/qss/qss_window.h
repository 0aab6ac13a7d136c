/* qss_window.h: what QSS runs on several ranks do at window ends.
 *
 * The window-end exchange sends the current q polynomial of every owned
 * boundary state that changed in the window to the ranks that read it and
 * re-evaluates the readers of what arrives, correcting them for the time they
 * read the stale q's; the window controller sets the next window's length
 * from that correction's size.
 * Used by qss_run.c and, for the QSS block, by mixed_run.c (docs/parallel.md).
 */
#ifndef QMOL_QSS_WINDOW_H
#define QMOL_QSS_WINDOW_H

#include "comm/halo_records.h"
#include "qss/qss_engine.h"

#include <stdint.h>

/* Buffers of the window-end exchange, grown as needed (never per event). */
typedef struct qss_exchange {
    /* a record: position in the send list, tq, q's coefficients, stale area */
    halo_records rec;
    int32_t *slot_dest;   /* send-list position -> destination index */
    unsigned char *dirty; /* n: reader to re-evaluate */
    int32_t *dirty_list;
    double *ghost_area; /* per ghost: the received stale area (0 between exchanges) */
    double drift;       /* the last exchange's largest reader drift, in quanta */
} qss_exchange;

/* Allocates the buffers for e (e->halo set). Returns 0 or -1. */
int qssx_init(qss_exchange *x, const qss_engine *e);
void qssx_free(qss_exchange *x);
/* Marks e's owned states that other ranks read (e->boundary, e->changed).
 * Returns 0 or -1 (out of memory). */
int qssx_setup_boundary(qss_engine *e);
/* Sends the changed boundary q's, applies the received ghost q's and
 * re-evaluates their readers at T. Collective over the halo graph. Returns 0
 * or -1 (out of memory: the caller fails the run at its next agreement). */
int qssx_window(qss_engine *e, qss_exchange *x, double T);

/* The mixed method's windows (several ranks) are also at most this fraction
 * of the time scale of window_watch below:
 * a ghost is stale for up to a window, so windows as long as the period
 * itself doubled to quadrupled the np > 1 error on heat2d (docs/parallel.md);
 * a quarter keeps it at the np = 1 level. */
#define WINDOW_FRACTION 0.25

/* What the adaptive window length looks at (several ranks). The boundary
 * states' periods alone let windows grow while the boundary is quiet, and a
 * front then crossed it up to a whole window late (adr2d 150^2 split by one
 * cut: P = 2 3.3e-3 from P = 1, whose e_rr is 8e-4). Activity travels one
 * hop (f_b reads s) per event at least, so a state `hops` hops from the
 * boundary whose events come every p cannot change a boundary state sooner
 * than about (hops + 1) p: every event of the window offers that bound
 * ("reach"), and the window is the fraction above of the smallest. */
typedef struct window_watch {
    int32_t *boundary; /* owned states read by other ranks */
    int32_t nboundary;
    uint16_t *hops; /* per owned state: hops to the nearest boundary state */
    double reach;   /* min over this window's events of (hops + 1) period */
} window_watch;

/* hops[] saturates here; unreached states (no path to a boundary) too. */
#define HOPS_FAR 65535

/* Boundary list and hop distances (breadth first from the boundary states;
 * e->boundary set). Returns 0 or -1 (out of memory). */
int watch_init(const qss_engine *e, window_watch *w);
void watch_free(window_watch *w);
/* After state i's event at t: its next time bounds when it can reach the
 * boundary. */
static inline void watch_event(window_watch *w, const qss_engine *e, int32_t i, double t) {
    if (w->hops[i] == HOPS_FAR) return;
    double r = (w->hops[i] + 1.0) * (heap_time(&e->heap, i) - t);
    if (r < w->reach) w->reach = r;
}

/* Before the first window: every state's first event offers its reach. */
void watch_start(window_watch *w, const qss_engine *e, double t0);
/* The window proposal's time scale (resets the window's reach). */
double watch_scale(const qss_engine *e, window_watch *w);
/* The window length controller of QSS runs on several ranks (docs/parallel.md
 * "Window length"). A window's error is the drift of the readers of ghosts
 * that changed in it: the window-end exchange corrects it to first order
 * and measures it in the reader's quanta (qss_exchange.drift). Windows are
 * rejected above `reject` quanta and aimed at `target`; the drift grows
 * with the window's length. Pure QSS runs use QSS_DRIFT_*; the mixed
 * method, whose windows are also CVODE's steps, MIXED_DRIFT_* (the
 * constants and their measurements: docs/parallel.md "Window length"). A
 * window that cannot be run again (--window, at window_min, or without an
 * undo log) stops the run when it is the WINDOW_FAIL_RUN-th in a row to
 * drift more than WINDOW_DRIFT_FAIL quanta: the correction is unstable
 * there, and the drift grows from window to window (one window of a
 * thermostat switch drifted 22 quanta, the next ones less, and that run is
 * within the accuracy rules). */
#define QSS_DRIFT_TARGET 0.1
#define QSS_DRIFT_REJECT 0.3
#define MIXED_DRIFT_TARGET 0.5
#define MIXED_DRIFT_REJECT 1.0
#define WINDOW_DRIFT_FAIL 10.0
#define WINDOW_FAIL_RUN 3
/* The ceiling after a rejection of pure QSS runs (docs/parallel.md "Window
 * length"): without it the controller doubled back past the rejected
 * length within a few windows and was rejected again (adr1d N = 1e4
 * mLIQSS2 on 2 ranks: 885 windows rejected, 337 with it). The
 * mixed method's windows are CVODE's steps: a ceiling there quadrupled
 * them (adr1d-vardiff N = 1e4, 123 -> 486) and cost more than the
 * rejections it saved. */
#define WINDOW_CEILING_CUT 0.7
#define WINDOW_CEILING_LIFT 1.05

typedef struct window_control {
    int adaptive;          /* 0: --window fixes the length */
    double wmin, wmax;     /* bounds of adaptive windows */
    double target, reject; /* the drift aimed at and the drift run again (quanta) */
    int rejected;          /* the last window was rejected: the next may not grow */
    int over_fail;         /* windows in a row that drifted beyond WINDOW_DRIFT_FAIL */
    /* after a rejection, windows stay below ceiling_cut times the rejected
     * length (0: no ceiling), a bound that rises by WINDOW_CEILING_LIFT per
     * accepted window and is dropped once it reaches wmax (0: none now) */
    double ceiling_cut, ceiling;
} window_control;

enum { WINDOW_ACCEPTED = 0, WINDOW_REJECTED = 1, WINDOW_STOPPED = 2 };

/* The next window's length *W after an accepted window of `length` whose
 * drift (agreed, in quanta) was `drift`. */
void window_next(window_control *c, double drift, double length, double *W);
/* Collective over e->halo->comm (one MPI_Allreduce): agrees on failure, on
 * the window's drift (this rank's largest, in quanta), on the earliest time
 * a rank stopped (*stop: this rank's, INFINITY when it did not; NULL: none
 * can), on whether a progress report is due (*report) and on whether a
 * rank's discontinuity handlers ran (e->disc_changed); the next length
 * is at most the smallest rank's cap (INFINITY: none) and, with
 * c->ceiling_cut > 0, the ceiling a rejection left. Returns -1 when a
 * rank failed, WINDOW_STOPPED when one stopped (*stop: the earliest; the
 * window must run again up to there; failures that came only at the
 * window end's exchange, e->failed_in_exchange, are cleared),
 * WINDOW_REJECTED when the window (of `length`) must run again from its
 * start (adaptive, e->journal set, drift above c->reject, longer than
 * wmin), else WINDOW_ACCEPTED; *W becomes the next window's length. The WINDOW_FAIL_RUN-th window
 * in a row that cannot be run again and drifted more than WINDOW_DRIFT_FAIL quanta fails the run on
 * every rank (eng_fail, the same message) and returns -1. */
int window_agree(window_control *c, qss_engine *e, double drift, double cap, double length,
                 double *W, double *stop, int *report);

/* Window length bounds: window_min defaults to 1e-6 of the run, window_max
 * to the sample interval. */
void window_bounds(const integrator_options *o, double *wmin, double *wmax);

#endif
