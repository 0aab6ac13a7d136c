/* discrete_undo.h: taking back what a rejected window did to the
 * discontinuities (several ranks, adaptive windows; qss_journal.h does the
 * states).
 *
 * A window changes the crossings' predicted times (every input's q change
 * predicts its crossings again) and, where one rank handles the
 * discontinuities in its own event loop, the crossings' signs, the time
 * event's time, the problem's discrete variables and the event counters.
 * Each crossing's time and sign are logged the first time the window
 * changes them (the cost follows the crossings touched), the rest at the
 * window's start. The window's crossing reports (the /events log) wait until
 * the window is accepted, so a rejected window reports nothing.
 */
#ifndef QMOL_DISCRETE_UNDO_H
#define QMOL_DISCRETE_UNDO_H

#include <stddef.h>
#include <stdint.h>

struct qss_engine;
struct discrete;

typedef struct discrete_undo {
    int open;        /* a window is running: changes are logged */
    uint32_t window; /* the current window's stamp (never 0) */
    uint32_t *stamp; /* nc + 1: the window that last logged each entry */
    struct undo_entry *log;
    size_t used, cap;
    double *vars;      /* n_discrete: the problem's discrete variables */
    double handled_at; /* discrete.handled_at */
    uint64_t crossings, time_events;
    struct undo_report *report; /* the window's reports, in order */
    size_t nreport, report_cap;
    int overflow; /* out of memory: the window cannot be taken back */
} discrete_undo;

/* Sets up d's undo. A rank handling crossings in its own loop must be able to
 * save the problem's discrete variables (get_discrete and set_discrete).
 * Returns 1 (windows can be taken back), 0 (they cannot) or -1 (out of
 * memory). */
int discrete_undo_init(struct discrete *d);
void discrete_undo_free(struct discrete *d);
/* A window starts at the engine's window_start. */
void discrete_undo_begin(struct qss_engine *e);
/* Crossing c's time and sign (c = nc: the time event's time) are about to
 * change. */
void discrete_undo_keep(struct discrete *d, int64_t c);
/* A crossing (c >= 0, direction +-1) or time event (c = -1) was handled at
 * t: reported to the run (integrator_options.on_discrete) now, or when the
 * window is accepted. */
void discrete_report(struct qss_engine *e, double t, int64_t c, int direction);
/* The window is accepted: its reports go out. */
void discrete_undo_accept(struct qss_engine *e);
/* The window is rejected: everything as it started; its reports dropped.
 * Returns 0, or -1 when the log is incomplete (out of memory). */
int discrete_undo_restore(struct qss_engine *e);

#endif
