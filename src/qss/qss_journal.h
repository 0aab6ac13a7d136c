/* qss_journal.h: undo log of a QSS window, so that a rejected window can be
 * run again from its start (several ranks, docs/parallel.md "Window
 * length").
 *
 * The first time a window touches a state (eng_advance_x, which every
 * change of a state's fields starts with, and the ghosts the window-end
 * exchange installs) its fields are copied to the log: x's and q's
 * polynomials, times, quantum, next event time, the Jacobian estimates,
 * the age the unseen check verified,
 * the activity count and the method's own per-state
 * fields (found through its state_io). Restoring writes them back. The cost
 * follows the states a window touches, never n.
 */
#ifndef QMOL_QSS_JOURNAL_H
#define QMOL_QSS_JOURNAL_H

#include "qss/qss_engine.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#define JOURNAL_MAX_FIELDS 8

typedef struct qss_journal {
    uint32_t window; /* the current window's stamp (never 0) */
    uint32_t *stamp; /* per column: the window in which a state was last saved */
    size_t nstamps;
    double *log; /* records: id, then the state's fields */
    size_t used, cap;
    double *method_field[JOURNAL_MAX_FIELDS]; /* the method's per-owned-state fields */
    int nmethod;
    int overflow; /* out of memory: the window cannot be undone */
} qss_journal;

/* Sets up the journal of e (e->journal = j). Returns 0, or -1 (out of
 * memory, or a method whose state cannot be logged). */
int journal_init(qss_journal *j, qss_engine *e);
void journal_free(qss_journal *j);
/* A new window starts at e->window_start: nothing logged (no-op without a
 * journal). */
void journal_begin(qss_engine *e);
/* The window is accepted: the discontinuities it handled are reported. */
void journal_accept(qss_engine *e);
/* Saves state i's fields unless this window did already. */
void journal_save(qss_engine *e, int32_t i);
static inline void journal_touch(qss_engine *e, int32_t i) {
    qss_journal *j = e->journal;
    if (j && j->stamp[i] != j->window) journal_save(e, i);
}
/* Puts back every logged state as the window found it. Returns 0, or -1
 * when the log is incomplete (overflow). */
int journal_restore(qss_engine *e);

/* Several ranks, collective over comm: sets up j as e's journal when every
 * rank can (adaptive windows, memory, and discontinuities that can be
 * taken back: discrete_undo.h); otherwise none has one (e->journal NULL).
 * Returns whether windows can be run again. */
int journal_setup_agreed(qss_journal *j, qss_engine *e, int adaptive, MPI_Comm comm);

/* Where a window started, to take it back. */
typedef struct window_mark {
    double last_t;
    uint64_t same_time, events;
} window_mark;

/* A rejected (or stopped) window: its states and discontinuities put back
 * (journal_restore, discrete_undo_restore), the event loop's clock and
 * counters as they were; events count the solution's, the redone ones go
 * to events_rejected, and *windows (the stats' windows_rejected or
 * windows_stopped) counts the window. */
void journal_take_back(qss_engine *e, const window_mark *m, double *last_t, uint64_t *same_time,
                       uint64_t *windows);

#endif
