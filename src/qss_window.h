/* qss_window.h: what QSS runs on several ranks do at window ends.
 *
 * The window-end exchange sends the current q polynomial of every owned
 * boundary state that changed in the window to the ranks that read it and
 * re-evaluates the readers of what arrives. The window watch proposes the
 * next window's length from how soon activity can reach the rank boundary.
 * Used by qss_run.c and, for the QSS block, by mixed_run.c (docs/parallel.md).
 */
#ifndef QMOL_QSS_WINDOW_H
#define QMOL_QSS_WINDOW_H

#include "qss_engine.h"

#include <stdint.h>

/* Buffers of the window-end exchange, grown as needed (never per event). */
/* Buffers of the window-end exchange, grown as needed (never per event). */
typedef struct qss_exchange {
    int stride;                /* doubles per record: position, time, q coefficients */
    double *send, *recv;       /* records */
    size_t send_cap, recv_cap; /* in doubles */
    int *scount, *sdispl, *rcount, *rdispl;
    int32_t *slot_dest;   /* send-list position -> destination index */
    unsigned char *dirty; /* n: reader to re-evaluate */
    int32_t *dirty_list;
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

/* Adaptive windows are this fraction of the time scale of window_watch below:
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
/* Window length bounds: window_min defaults to 1e-6 of the run, window_max
 * to the sample interval. */
void window_bounds(const integrator_options *o, double *wmin, double *wmax);

#endif
