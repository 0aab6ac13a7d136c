/* q_history.h: the QSS q polynomials a BDF block reads over a window, piece
 * by piece as they changed (the history coupling of mixed_run.c and
 * moving_run.c). Each state the block reads keeps the index of its newest
 * piece (`last`, -1: none); a piece links to the one before it. */
#ifndef QMOL_Q_HISTORY_H
#define QMOL_Q_HISTORY_H

#include <stdint.h>

/* q from t until the next piece of the same state: c about t. */
typedef struct q_piece {
    double t, c[3];
    int32_t prev;
} q_piece;

typedef struct q_history {
    q_piece *piece;
    int32_t n, cap;
} q_history;

/* Appends the piece (t, c) after *last, which becomes it. Returns 0, or -1
 * (out of memory). */
int qh_push(q_history *h, int32_t *last, double t, const double c[3]);
/* The value at t of the chain ending at last (>= 0): its newest piece that
 * starts at or before t (its oldest if none does). */
double qh_value(const q_history *h, int32_t last, double t);
void qh_free(q_history *h);

#endif
