/* heap.c: the event queue, blocks of states under an indexed 4-ary heap
 * (see heap.h). */
#include "qss/heap.h"

#include <math.h>
#include <stdlib.h>

#define ARITY 4 /* earliest_child's tournament is written for 4 */

/* Bitwise, not short-circuit: no branch to mispredict in the child choice. */
static inline int before(heap_node a, heap_node b) {
    return (a.time < b.time) | ((a.time == b.time) & (a.id < b.id));
}

static inline void place(event_heap *h, int32_t pos, heap_node v) {
    h->node[pos] = v;
    h->slot[v.id] = pos;
}

int heap_init(event_heap *h, int32_t n) {
    h->n = n;
    h->nblocks = n > 0 ? (int32_t)(((int64_t)n + HEAP_BLOCK - 1) / HEAP_BLOCK) : 1;
    size_t nb = (size_t)h->nblocks;
    h->time = malloc((size_t)(n ? n : 1) * sizeof *h->time);
    h->earliest = malloc(nb * sizeof *h->earliest);
    h->node = malloc(nb * sizeof *h->node);
    h->slot = malloc(nb * sizeof *h->slot);
    if (!h->time || !h->earliest || !h->node || !h->slot) {
        heap_free(h);
        return -1;
    }
    for (int32_t i = 0; i < n; i++)
        h->time[i] = INFINITY;
    /* equal times ordered by block: a valid heap; a block's earliest is
     * its first state */
    for (int32_t b = 0; b < h->nblocks; b++) {
        h->earliest[b] = n > 0 ? b * HEAP_BLOCK : -1;
        place(h, b, (heap_node){INFINITY, b});
    }
    return 0;
}

void heap_free(event_heap *h) {
    free(h->time);
    free(h->earliest);
    free(h->node);
    free(h->slot);
    h->time = NULL;
    h->earliest = NULL;
    h->node = NULL;
    h->slot = NULL;
    h->n = h->nblocks = 0;
}

static void sift_up(event_heap *h, int32_t pos, heap_node v) {
    while (pos > 0) {
        int32_t parent = (pos - 1) / ARITY;
        if (!before(v, h->node[parent])) break;
        place(h, pos, h->node[parent]);
        pos = parent;
    }
    place(h, pos, v);
}

/* The earliest of the children first, first + 1, ... (at most ARITY, fewer
 * at the end of the heap). (time, block) pairs are distinct, so the
 * pairwise tournament of a full family finds the same child as a scan. */
static inline int32_t earliest_child(const event_heap *h, int32_t first) {
    const heap_node *node = h->node;
    if (first + ARITY <= h->nblocks) {
        const heap_node *c = node + first;
        int32_t a = before(c[1], c[0]);
        int32_t b = 2 + before(c[3], c[2]);
        return first + a + (b - a) * before(c[b], c[a]);
    }
    int32_t best = first;
    for (int32_t c = first + 1; c < h->nblocks; c++)
        if (before(node[c], node[best])) best = c;
    return best;
}

static void sift_down(event_heap *h, int32_t pos, heap_node v) {
    for (;;) {
        int32_t first = ARITY * pos + 1;
        if (first >= h->nblocks) break;
        int32_t best = earliest_child(h, first);
        if (!before(h->node[best], v)) break;
        place(h, pos, h->node[best]);
        pos = best;
    }
    place(h, pos, v);
}

/* Block b's earliest became (t, at): moves b in the block heap. */
static void block_moved(event_heap *h, int32_t b, int32_t at, double t) {
    h->earliest[b] = at;
    int32_t pos = h->slot[b];
    heap_node old = h->node[pos], v = {t, b};
    if (before(v, old))
        sift_up(h, pos, v);
    else if (before(old, v))
        sift_down(h, pos, v);
}

void heap_update(event_heap *h, int32_t i, double t) {
    if (isnan(t)) t = INFINITY; /* ordered: a NaN would hide its block's other states */
    int32_t b = i / HEAP_BLOCK;
    int32_t first = h->earliest[b];
    double was = h->time[i];
    h->time[i] = t;
    if (first != i) { /* i becomes the earliest only by coming before it */
        double tf = h->time[first];
        if (t < tf || (t == tf && i < first)) block_moved(h, b, i, t);
        return;
    }
    if (t <= was) { /* the earliest came earlier: it stays the earliest */
        if (t < was) block_moved(h, b, i, t);
        return;
    }
    /* the earliest was postponed: scan the block (strict <: the lower id
     * wins ties) */
    int32_t lo = b * HEAP_BLOCK, hi = h->n - lo > HEAP_BLOCK ? lo + HEAP_BLOCK : h->n;
    int32_t best = lo;
    double best_t = h->time[lo];
    for (int32_t k = lo + 1; k < hi; k++)
        if (h->time[k] < best_t) {
            best_t = h->time[k];
            best = k;
        }
    block_moved(h, b, best, best_t);
}
