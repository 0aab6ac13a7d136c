/* heap.h: indexed 4-ary min-heap of next event times.
 *
 * Holds every state's next time; update(i, t) moves i in O(log n); the top is
 * the earliest time, ties broken by the lower state id, so runs are
 * deterministic. No linear scans. The (time, id) pairs live in heap order, so
 * a comparison reads no per-state array, and the four children of a node are
 * adjacent (one or two cache lines): at 10^6 states the heap, not the
 * arithmetic, bounded the event rate.
 */
#ifndef QMOL_HEAP_H
#define QMOL_HEAP_H

#include <stdint.h>

typedef struct heap_node {
    double time;
    int32_t id;
} heap_node;

typedef struct event_heap {
    int32_t n;
    heap_node *node; /* heap order */
    int32_t *slot;   /* slot[i]: position of state i in node */
} event_heap;

/* All times start at +infinity. Returns 0 or -1 (out of memory). */
int heap_init(event_heap *h, int32_t n);
void heap_free(event_heap *h);
void heap_update(event_heap *h, int32_t i, double t);
static inline int32_t heap_top(const event_heap *h) {
    return h->node[0].id;
}
static inline double heap_top_time(const event_heap *h) {
    return h->node[0].time;
}
/* State i's next time. */
static inline double heap_time(const event_heap *h, int32_t i) {
    return h->node[h->slot[i]].time;
}

#endif
