/* heap.h: indexed binary min-heap of next event times.
 *
 * Holds every state's next time; update(i, t) moves i in O(log n); the top is
 * the earliest time, ties broken by the lower state id, so runs are
 * deterministic. No linear scans.
 */
#ifndef QMOL_HEAP_H
#define QMOL_HEAP_H

#include <stdint.h>

typedef struct event_heap {
    int32_t n;
    double *time;   /* time[i]: next time of state i */
    int32_t *slot;  /* slot[i]: position of i in order */
    int32_t *order; /* heap order of state ids */
} event_heap;

/* All times start at +infinity. Returns 0 or -1 (out of memory). */
int heap_init(event_heap *h, int32_t n);
void heap_free(event_heap *h);
void heap_update(event_heap *h, int32_t i, double t);
static inline int32_t heap_top(const event_heap *h) {
    return h->order[0];
}
static inline double heap_top_time(const event_heap *h) {
    return h->time[h->order[0]];
}

#endif
