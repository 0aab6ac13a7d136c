/* last_window.h: a checkpoint's content kept in memory.
 *
 * A run that fails (a state turns NaN, a solver gives up) should leave a
 * checkpoint from just before the failure, but writing a file at every
 * window end would cost far more than the windows. The checkpointer
 * (checkpoint.h) instead records what it would write to a checkpoint at
 * window ends, as often as a budget allows: all records together within
 * LAST_WINDOW_SHARE of the wall time so far plus LAST_WINDOW_FREE_SECONDS
 * (so a short run on one rank records every window, and a long one spends
 * at most 2 %; on several ranks records start at the first check, after 64
 * windows or at the first sample, which times one). On a small run those
 * records cost as much as the integration (docs/performance.md), but a
 * smaller free share left a failed run's checkpoint further back on a slow
 * machine.
 * After a failure it writes the last record out. The record is a state_io
 * in saving mode (integrator.h): each field (owned values), vector and
 * scalar passed to it is copied, in order, and last_window_replay passes
 * them to another state_io in the same order. Its buffers are kept between
 * records, so a record allocates only when one is larger than any before.
 */
#ifndef QMOL_LAST_WINDOW_H
#define QMOL_LAST_WINDOW_H

#include "core/integrator.h"

#include <stddef.h>
#include <stdint.h>

#define LAST_WINDOW_SHARE 0.02
#define LAST_WINDOW_FREE_SECONDS 0.05

typedef struct last_window {
    state_io io; /* records into this (saving); io.why says why a record failed */
    int32_t n;   /* values per field: the owned states */
    double t;    /* the recorded window end, NAN when there is no complete record */
    int64_t next_sample;
    struct kept_item *items;
    size_t count, items_cap;
    double *values;
    size_t used, values_cap;
} last_window;

/* An empty record of fields of n values. */
void last_window_init(last_window *w, int32_t n);
/* Makes room for records of up to `values` values and touches it, so that
 * the first record costs what the others do (a fresh page's first touch
 * costs more than its copy). Returns 0, or -1 when out of memory. */
int last_window_reserve(last_window *w, size_t values);
/* Starts a record (the previous one is gone); then pass &w->io to the
 * content's save functions and close it with last_window_finish. */
void last_window_begin(last_window *w);
/* Ends the record started at window end t with next_sample; ok = 0 (a save
 * failed) or a record that ran out of memory (io.why set: the io functions
 * return 0 regardless, so that every rank takes the same collective steps)
 * leaves no record. Returns 0, or -1 when no record is kept. */
int last_window_finish(last_window *w, int ok, double t, int64_t next_sample);
/* Passes the record to io (saving), in the order it was made. Returns 0,
 * or the first non-zero return of io. */
int last_window_replay(const last_window *w, state_io *io);
void last_window_free(last_window *w);

#endif
