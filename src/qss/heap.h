/* heap.h: the event queue: every state's next time, earliest first.
 *
 * The top is the earliest time, ties broken by the lower state id, so runs
 * are deterministic. No linear scans over the states, and few cache lines
 * per update (issue 21: with one indexed heap node per state, a QSS event
 * at 1e5 states spent a quarter of its time in cache misses of sift-downs).
 *
 * States are grouped in blocks of HEAP_BLOCK consecutive ids, and blocks in
 * groups of HEAP_BLOCK consecutive blocks. Each block keeps its earliest
 * state and that state's time, each group its earliest block, and an
 * indexed 4-ary min-heap orders the groups (n / HEAP_BLOCK^2 of them: at
 * 1e6 states 977 groups, 16 KB, in the first-level cache); up to
 * HEAP_BLOCK groups (32,768 states) their times are scanned as a block's
 * are, and the heap holds only the earliest. An update writes
 * the state's time and goes up a level only when the block's earliest
 * changes, and to the heap only when the group's does; an earliest that is
 * postponed has its block's (or group's) HEAP_BLOCK times scanned again
 * (four cache lines, next to each other). A QSS event's dependents are
 * mostly near it in id, so they share blocks. Blocks and groups hold
 * consecutive ids, so ordering them by (earliest time, first id) is
 * ordering their earliest states by (time, id).
 */
#ifndef QMOL_HEAP_H
#define QMOL_HEAP_H

#include <stdint.h>

#define HEAP_BLOCK 32

typedef struct heap_node {
    double time; /* the group's earliest time */
    int32_t id;  /* the group */
} heap_node;

typedef struct event_heap {
    int32_t n;               /* states */
    int32_t nblocks;         /* ceil(n / HEAP_BLOCK), at least 1 */
    int32_t ngroups;         /* ceil(nblocks / HEAP_BLOCK) */
    double *time;            /* time[i]: state i's next time */
    int32_t *earliest;       /* earliest[b]: block b's state with the earliest (time, id) */
    double *block_time;      /* block_time[b]: its time (+infinity up to a whole group) */
    int32_t *group_earliest; /* group_earliest[g]: group g's block with the earliest state */
    heap_node *node;         /* the groups in heap order */
    int32_t *slot;           /* slot[g]: position of group g in node */
    int32_t nodes;           /* groups in node: ngroups, or 1 (the earliest) where few */
    double *group_time;      /* where few: every group's earliest time (HEAP_BLOCK), else NULL */
} event_heap;

/* All times start at +infinity. Returns 0 or -1 (out of memory). */
int heap_init(event_heap *h, int32_t n);
void heap_free(event_heap *h);
/* State i's next time is now t (NaN counts as +infinity), its block's and
 * group's earliest updated: heap_update where they may change. */
void heap_reorder(event_heap *h, int32_t i, double t);
/* (inlined: the common case, a state that stays behind its block's earliest,
 * writes its time only; callgrind, adr2d 100 x 100 LIQSS2: 3 of 4 updates) */
static inline void heap_update(event_heap *h, int32_t i, double t) {
    int32_t b = (int32_t)((uint32_t)i / HEAP_BLOCK); /* (ids are >= 0: a shift) */
    int32_t first = h->earliest[b];
    double tf = h->block_time[b];
    if (first != i && (t > tf || (t == tf && i > first))) { /* (a NaN goes on) */
        h->time[i] = t;
        return;
    }
    heap_reorder(h, i, t);
}
/* How a block's times are scanned: with the processor's widest vectors
 * (AVX2 where it has them; the default, chosen at the first heap_init) or,
 * widest 0, with SSE2 (tests run both). The same results either way. */
void heap_block_scan(int widest);
/* The state with the earliest (time, id) (-1 when n is 0), and its time. */
static inline int32_t heap_top(const event_heap *h) {
    return h->earliest[h->group_earliest[h->node[0].id]];
}
static inline double heap_top_time(const event_heap *h) {
    return h->node[0].time;
}
/* A guess at the state after the top, in another block (-1 when there is
 * one block): what to prefetch. With a heap of groups, the earliest state of
 * the top group's earliest child group; else of the block after the top's
 * (or before it, for the last). */
static inline int32_t heap_next_guess(const event_heap *h) {
    int32_t n = h->nodes, best = -1;
    for (int32_t c = 1; c <= 4 && c < n; c++)
        if (best < 0 || h->node[c].time < h->node[best].time) best = c;
    if (best >= 0) return h->earliest[h->group_earliest[h->node[best].id]];
    if (h->nblocks < 2) return -1;
    int32_t b = h->group_earliest[h->node[0].id];
    return h->earliest[b + 1 < h->nblocks ? b + 1 : b - 1];
}
/* Prefetches state i's block of times: what heap_update scans when i, its
 * block's earliest, is postponed (the array is 64-byte aligned: a block is
 * four lines). */
static inline void heap_prefetch_block(const event_heap *h, int32_t i) {
    int32_t lo = i - i % HEAP_BLOCK;
    for (int32_t k = lo; k < lo + HEAP_BLOCK && k < h->n; k += 8) /* (8 times a line) */
        __builtin_prefetch(&h->time[k]);
}
/* State i's next time. */
static inline double heap_time(const event_heap *h, int32_t i) {
    return h->time[i];
}

#endif
