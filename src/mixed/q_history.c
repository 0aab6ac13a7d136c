/* q_history.c: the pieces of q a BDF block reads (q_history.h). */
#include "mixed/q_history.h"

#include <stdlib.h>

int qh_push(q_history *h, int32_t *last, double t, const double c[3]) {
    if (h->n == h->cap) {
        int32_t cap = h->cap ? 2 * h->cap : 1024;
        q_piece *grown = realloc(h->piece, (size_t)cap * sizeof *grown);
        if (!grown) return -1;
        h->piece = grown;
        h->cap = cap;
    }
    q_piece *q = &h->piece[h->n];
    q->t = t;
    q->c[0] = c[0], q->c[1] = c[1], q->c[2] = c[2];
    q->prev = *last;
    *last = h->n++;
    return 0;
}

double qh_value(const q_history *h, int32_t last, double t) {
    int32_t p = last;
    while (h->piece[p].t > t && h->piece[p].prev >= 0)
        p = h->piece[p].prev;
    const q_piece *q = &h->piece[p];
    double dt = t - q->t;
    return q->c[0] + dt * (q->c[1] + dt * q->c[2]);
}

void qh_free(q_history *h) {
    free(h->piece);
    h->piece = NULL;
    h->n = h->cap = 0;
}
