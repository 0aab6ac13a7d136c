/* heap.c: indexed 4-ary min-heap (see heap.h). */
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
    h->node = malloc((size_t)(n ? n : 1) * sizeof *h->node);
    h->slot = malloc((size_t)(n ? n : 1) * sizeof *h->slot);
    if (!h->node || !h->slot) {
        heap_free(h);
        return -1;
    }
    for (int32_t i = 0; i < n; i++) /* equal times ordered by id: a valid heap */
        place(h, i, (heap_node){INFINITY, i});
    if (n == 0) h->node[0] = (heap_node){INFINITY, -1}; /* an empty heap's top: never due */
    return 0;
}

void heap_free(event_heap *h) {
    free(h->node);
    free(h->slot);
    h->node = NULL;
    h->slot = NULL;
    h->n = 0;
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
 * at the end of the heap). (time, id) pairs are distinct, so the pairwise
 * tournament of a full family finds the same child as a scan. */
static inline int32_t earliest_child(const event_heap *h, int32_t first) {
    const heap_node *node = h->node;
    if (first + ARITY <= h->n) {
        const heap_node *c = node + first;
        int32_t a = before(c[1], c[0]);
        int32_t b = 2 + before(c[3], c[2]);
        return first + a + (b - a) * before(c[b], c[a]);
    }
    int32_t best = first;
    for (int32_t c = first + 1; c < h->n; c++)
        if (before(node[c], node[best])) best = c;
    return best;
}

static void sift_down(event_heap *h, int32_t pos, heap_node v) {
    for (;;) {
        int32_t first = ARITY * pos + 1;
        if (first >= h->n) break;
        int32_t best = earliest_child(h, first);
        if (!before(h->node[best], v)) break;
        place(h, pos, h->node[best]);
        pos = best;
    }
    place(h, pos, v);
}

void heap_update(event_heap *h, int32_t i, double t) {
    int32_t pos = h->slot[i];
    heap_node old = h->node[pos], v = {t, i};
    if (before(v, old))
        sift_up(h, pos, v);
    else if (before(old, v))
        sift_down(h, pos, v);
}
