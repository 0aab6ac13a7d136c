/* heap.h: the event queue: every state's next time, earliest first.
 *
 * The top is the earliest time, ties broken by the lower state id, so runs
 * are deterministic. No linear scans over the states, and few cache lines
 * per update (issue 21: with one indexed heap node per state, a QSS event
 * at 1e5 states spent a quarter of its time in cache misses of sift-downs).
 *
 * States are grouped in blocks of HEAP_BLOCK consecutive ids. Each block
 * keeps its earliest (time, id); an indexed 4-ary min-heap orders the
 * blocks (n / HEAP_BLOCK of them: at 1e6 states 0.5 MB, in cache). An
 * update writes the state's time and touches the block heap only when the
 * block's earliest changes; when the block's earliest state is postponed
 * the block's HEAP_BLOCK times (four cache lines, next to each other) are
 * scanned again. A QSS event's dependents are mostly near it in id, so
 * they share blocks. Blocks hold consecutive ids, so ordering blocks by
 * (earliest time, block) is ordering their earliest states by (time, id).
 */
#ifndef QMOL_HEAP_H
#define QMOL_HEAP_H

#include <stdint.h>

#define HEAP_BLOCK 32

typedef struct heap_node {
    double time; /* the block's earliest time */
    int32_t id;  /* the block */
} heap_node;

typedef struct event_heap {
    int32_t n;         /* states */
    int32_t nblocks;   /* ceil(n / HEAP_BLOCK), at least 1 */
    double *time;      /* time[i]: state i's next time */
    int32_t *earliest; /* earliest[b]: block b's state with the earliest (time, id) */
    heap_node *node;   /* the blocks in heap order */
    int32_t *slot;     /* slot[b]: position of block b in node */
} event_heap;

/* All times start at +infinity. Returns 0 or -1 (out of memory). */
int heap_init(event_heap *h, int32_t n);
void heap_free(event_heap *h);
void heap_update(event_heap *h, int32_t i, double t);
/* The state with the earliest (time, id) (-1 when n is 0), and its time. */
static inline int32_t heap_top(const event_heap *h) {
    return h->earliest[h->node[0].id];
}
static inline double heap_top_time(const event_heap *h) {
    return h->node[0].time;
}
/* A guess at the state after the top (the earliest state of the top
 * block's earliest child block; -1 when there is none): what to prefetch. */
static inline int32_t heap_next_guess(const event_heap *h) {
    int32_t n = h->nblocks, best = -1;
    for (int32_t c = 1; c <= 4 && c < n; c++)
        if (best < 0 || h->node[c].time < h->node[best].time) best = c;
    return best < 0 ? -1 : h->earliest[h->node[best].id];
}
/* State i's next time. */
static inline double heap_time(const event_heap *h, int32_t i) {
    return h->time[i];
}

#endif
