/* heap.c: indexed binary min-heap (see heap.h). */
#include "heap.h"

#include <math.h>
#include <stdlib.h>

static inline int before(const event_heap *h, int32_t a, int32_t b) {
    double ta = h->time[a], tb = h->time[b];
    return ta < tb || (ta == tb && a < b);
}

static inline void place(event_heap *h, int32_t pos, int32_t i) {
    h->order[pos] = i;
    h->slot[i] = pos;
}

int heap_init(event_heap *h, int32_t n) {
    h->n = n;
    h->time = malloc((size_t)n * sizeof *h->time);
    h->slot = malloc((size_t)n * sizeof *h->slot);
    h->order = malloc((size_t)n * sizeof *h->order);
    if (!h->time || !h->slot || !h->order) {
        heap_free(h);
        return -1;
    }
    for (int32_t i = 0; i < n; i++) {
        h->time[i] = INFINITY;
        place(h, i, i); /* equal times ordered by id: a valid heap */
    }
    return 0;
}

void heap_free(event_heap *h) {
    free(h->time);
    free(h->slot);
    free(h->order);
    h->time = NULL;
    h->slot = h->order = NULL;
    h->n = 0;
}

static void sift_up(event_heap *h, int32_t pos) {
    int32_t i = h->order[pos];
    while (pos > 0) {
        int32_t parent = (pos - 1) / 2;
        if (!before(h, i, h->order[parent])) break;
        place(h, pos, h->order[parent]);
        pos = parent;
    }
    place(h, pos, i);
}

static void sift_down(event_heap *h, int32_t pos) {
    int32_t i = h->order[pos];
    for (;;) {
        int32_t child = 2 * pos + 1;
        if (child >= h->n) break;
        if (child + 1 < h->n && before(h, h->order[child + 1], h->order[child])) child++;
        if (!before(h, h->order[child], i)) break;
        place(h, pos, h->order[child]);
        pos = child;
    }
    place(h, pos, i);
}

void heap_update(event_heap *h, int32_t i, double t) {
    double old = h->time[i];
    h->time[i] = t;
    if (t < old)
        sift_up(h, h->slot[i]);
    else if (t > old)
        sift_down(h, h->slot[i]);
}
