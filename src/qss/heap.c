/* heap.c: the event queue, blocks of states in groups under an indexed
 * 4-ary heap (see heap.h). */
#include "qss/heap.h"

#include "core/big_alloc.h"

#include <math.h>
#include <stdlib.h>
#if defined(__x86_64__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

/* earliest_of a whole block (HEAP_BLOCK times), the widest way the
 * processor has: chosen at the first queue made (heap_block_scan). */
static int32_t (*full_block_earliest)(const double *time);

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
    if (!full_block_earliest) heap_block_scan(1);
    h->n = n;
    h->nblocks = n > 0 ? (int32_t)(((int64_t)n + HEAP_BLOCK - 1) / HEAP_BLOCK) : 1;
    h->ngroups = (h->nblocks + HEAP_BLOCK - 1) / HEAP_BLOCK;
    size_t nb = (size_t)h->nblocks, ng = (size_t)h->ngroups;
    h->time = big_alloc((size_t)n, sizeof *h->time, 0);
    h->earliest = malloc(nb * sizeof *h->earliest);
    h->block_time = malloc(ng * HEAP_BLOCK * sizeof *h->block_time);
    h->group_earliest = malloc(ng * sizeof *h->group_earliest);
    h->node = malloc(ng * sizeof *h->node);
    h->slot = malloc(ng * sizeof *h->slot);
    h->nodes = ng > HEAP_BLOCK ? h->ngroups : 1;
    h->group_time = ng > HEAP_BLOCK ? NULL : malloc(HEAP_BLOCK * sizeof *h->group_time);
    if (!h->time || !h->earliest || !h->block_time || !h->group_earliest || !h->node || !h->slot ||
        (h->nodes == 1 && !h->group_time)) {
        heap_free(h);
        return -1;
    }
    for (int32_t i = 0; i < n; i++)
        h->time[i] = INFINITY;
    /* equal times ordered by group: a valid heap; a block's earliest is
     * its first state, a group's its first block */
    for (size_t b = 0; b < ng * HEAP_BLOCK; b++)
        h->block_time[b] = INFINITY;
    for (int32_t b = 0; b < h->nblocks; b++)
        h->earliest[b] = n > 0 ? b * HEAP_BLOCK : -1;
    for (int32_t g = 0; g < h->ngroups; g++) {
        h->group_earliest[g] = g * HEAP_BLOCK;
        if (h->nodes > 1) place(h, g, (heap_node){INFINITY, g});
    }
    if (h->nodes == 1) {
        for (int g = 0; g < HEAP_BLOCK; g++)
            h->group_time[g] = INFINITY;
        place(h, 0, (heap_node){INFINITY, 0});
    }
    return 0;
}

void heap_free(event_heap *h) {
    free(h->time);
    free(h->earliest);
    free(h->block_time);
    free(h->group_earliest);
    free(h->node);
    free(h->slot);
    free(h->group_time);
    h->time = h->block_time = h->group_time = NULL;
    h->earliest = h->group_earliest = h->slot = NULL;
    h->node = NULL;
    h->n = h->nblocks = h->ngroups = h->nodes = 0;
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
    if (first + ARITY <= h->nodes) {
        const heap_node *c = node + first;
        int32_t a = before(c[1], c[0]);
        int32_t b = 2 + before(c[3], c[2]);
        return first + a + (b - a) * before(c[b], c[a]);
    }
    int32_t best = first;
    for (int32_t c = first + 1; c < h->nodes; c++)
        if (before(node[c], node[best])) best = c;
    return best;
}

static void sift_down(event_heap *h, int32_t pos, heap_node v) {
    for (;;) {
        int32_t first = ARITY * pos + 1;
        if (first >= h->nodes) break;
        int32_t best = earliest_child(h, first);
        if (!before(h->node[best], v)) break;
        place(h, pos, h->node[best]);
        pos = best;
    }
    place(h, pos, v);
}

/* The first of the len times with the smallest value (strict <: the lower
 * id wins ties; times are never NaN). */
static int32_t earliest_of(const double *time, int32_t len) {
    int32_t best = 0;
    for (int32_t k = 1; k < len; k++)
        if (time[k] < time[best]) best = k;
    return best;
}

/* earliest_of a whole block, without a branch per time: the smallest value
 * by SSE2 minima in four independent chains, then the first position
 * holding it from the comparisons' bit masks (the same position). */
static int32_t block_earliest_sse2(const double *time) {
#if defined(__SSE2__) && HEAP_BLOCK == 32
    __m128d m[4];
    for (int c = 0; c < 4; c++)
        m[c] = _mm_loadu_pd(time + 2 * c);
    for (int k = 8; k < HEAP_BLOCK; k += 8)
        for (int c = 0; c < 4; c++)
            m[c] = _mm_min_pd(m[c], _mm_loadu_pd(time + k + 2 * c));
    __m128d low = _mm_min_pd(_mm_min_pd(m[0], m[1]), _mm_min_pd(m[2], m[3]));
    low = _mm_min_pd(low, _mm_unpackhi_pd(low, low));
    __m128d both = _mm_unpacklo_pd(low, low);
    uint32_t at = 0;
    for (int k = 0; k < HEAP_BLOCK; k += 2)
        at |= (uint32_t)_mm_movemask_pd(_mm_cmpeq_pd(_mm_loadu_pd(time + k), both)) << k;
    return (int32_t)__builtin_ctz(at);
#else
    return earliest_of(time, HEAP_BLOCK);
#endif
}

#if defined(__x86_64__) && defined(__GNUC__) && HEAP_BLOCK == 32
#define HAVE_AVX2_SCAN 1
/* The same with AVX2's four-wide minima and comparisons: about half the
 * instructions (a postponed earliest rescans its block and its group at
 * every event). Minima are exact, so the position is the same. */
__attribute__((target("avx2"))) static int32_t block_earliest_avx2(const double *time) {
    __m256d m0 = _mm256_min_pd(_mm256_loadu_pd(time), _mm256_loadu_pd(time + 16));
    __m256d m1 = _mm256_min_pd(_mm256_loadu_pd(time + 4), _mm256_loadu_pd(time + 20));
    __m256d m2 = _mm256_min_pd(_mm256_loadu_pd(time + 8), _mm256_loadu_pd(time + 24));
    __m256d m3 = _mm256_min_pd(_mm256_loadu_pd(time + 12), _mm256_loadu_pd(time + 28));
    __m256d low = _mm256_min_pd(_mm256_min_pd(m0, m1), _mm256_min_pd(m2, m3));
    low = _mm256_min_pd(low, _mm256_permute2f128_pd(low, low, 1));
    low = _mm256_min_pd(low, _mm256_permute_pd(low, 5));
    uint32_t at = 0;
    for (int k = 0; k < HEAP_BLOCK; k += 4)
        at |=
            (uint32_t)_mm256_movemask_pd(_mm256_cmp_pd(_mm256_loadu_pd(time + k), low, _CMP_EQ_OQ))
            << k;
    return (int32_t)__builtin_ctz(at);
}
#endif

void heap_block_scan(int widest) {
    full_block_earliest = block_earliest_sse2;
#ifdef HAVE_AVX2_SCAN
    __builtin_cpu_init();
    if (widest && __builtin_cpu_supports("avx2")) full_block_earliest = block_earliest_avx2;
#endif
    (void)widest;
}

/* Few groups (one queue node): group g's earliest time became t; the top
 * is the earliest group, found again by a scan of the group times when it
 * is postponed (cheaper than a heap's sift-down below HEAP_BLOCK groups). */
static void flat_group_moved(event_heap *h, int32_t g, double t) {
    double *gt = h->group_time;
    heap_node top = h->node[0];
    gt[g] = t;
    if (g != top.id) { /* g becomes the top only by coming before it */
        if (t < top.time || (t == top.time && g < top.id)) h->node[0] = (heap_node){t, g};
        return;
    }
    if (t <= top.time) { /* the top came earlier: it stays the top */
        h->node[0].time = t;
        return;
    }
    int32_t best = full_block_earliest(gt);
    h->node[0] = (heap_node){gt[best], best};
}

/* Group g's earliest time became t: moves g in the heap. */
static void group_moved(event_heap *h, int32_t g, double t) {
    if (h->nodes == 1) {
        flat_group_moved(h, g, t);
        return;
    }
    int32_t pos = h->slot[g];
    heap_node old = h->node[pos], v = {t, g};
    if (before(v, old))
        sift_up(h, pos, v);
    else if (before(old, v))
        sift_down(h, pos, v);
}

/* Block b's earliest time went from `was` to t (block_time[b] holds t):
 * its group's earliest block, as heap_update does a block's earliest
 * state. */
static void block_moved(event_heap *h, int32_t b, double was, double t) {
    int32_t g = (int32_t)((uint32_t)b / HEAP_BLOCK); /* (ids are >= 0: a shift) */
    int32_t first = h->group_earliest[g];
    if (first != b) { /* b becomes the earliest only by coming before it */
        double tf = h->block_time[first];
        if (t < tf || (t == tf && b < first)) {
            h->group_earliest[g] = b;
            group_moved(h, g, t);
        }
        return;
    }
    if (t <= was) { /* the earliest came earlier: it stays the earliest */
        if (t < was) group_moved(h, g, t);
        return;
    }
    /* the earliest was postponed: scan the group (padded to a whole one) */
    int32_t best = g * HEAP_BLOCK + full_block_earliest(h->block_time + g * HEAP_BLOCK);
    h->group_earliest[g] = best;
    group_moved(h, g, h->block_time[best]);
}

/* Block b's earliest state is now `at`, at time t. */
static void block_earliest(event_heap *h, int32_t b, int32_t at, double t) {
    double was = h->block_time[b];
    h->earliest[b] = at;
    h->block_time[b] = t;
    if (t != was) block_moved(h, b, was, t); /* (else its group's order stands) */
}

void heap_reorder(event_heap *h, int32_t i, double t) {
    if (isnan(t)) t = INFINITY; /* ordered: a NaN would hide its block's other states */
    int32_t b = (int32_t)((uint32_t)i / HEAP_BLOCK); /* (ids are >= 0: a shift) */
    int32_t first = h->earliest[b];
    double was = h->time[i];
    h->time[i] = t;
    if (first != i) { /* i becomes the earliest only by coming before it */
        double tf = h->block_time[b];
        if (t < tf || (t == tf && i < first)) block_earliest(h, b, i, t);
        return;
    }
    if (t <= was) { /* the earliest came earlier: it stays the earliest */
        if (t < was) block_earliest(h, b, i, t);
        return;
    }
    /* the earliest was postponed: scan the block */
    int32_t lo = b * HEAP_BLOCK, hi = h->n - lo > HEAP_BLOCK ? lo + HEAP_BLOCK : h->n;
    int32_t best = hi - lo == HEAP_BLOCK ? lo + full_block_earliest(h->time + lo)
                                         : lo + earliest_of(h->time + lo, hi - lo);
    block_earliest(h, b, best, h->time[best]);
}
