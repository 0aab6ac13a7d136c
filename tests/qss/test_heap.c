/* The event heap against a linear-scan reference: after every update the top
 * is the earliest (time, id) pair, ties going to the lower id. */
#include "qss/heap.h"
#include "tests/support/test_support.h"

#include <math.h>
#include <stdlib.h>

static int32_t reference_top(const double *t, int32_t n) {
    int32_t best = 0;
    for (int32_t i = 1; i < n; i++)
        if (t[i] < t[best]) best = i; /* strict: the lower id wins ties */
    return best;
}

/* A heap of n states and the reference's times, every one +infinity. */
static double *start_heap(event_heap *h, int32_t n) {
    assert_int_equal(heap_init(h, n), 0);
    double *t = malloc((size_t)n * sizeof *t);
    assert_non_null(t);
    for (int32_t i = 0; i < n; i++)
        t[i] = INFINITY;
    return t;
}

static void random_updates(void **state) {
    (void)state;
    /* one block (HEAP_BLOCK 32), a partial second, one group of blocks
     * (HEAP_BLOCK of them) and a partial one, several groups scanned as a
     * block (32,768: 32, the most so kept), several
     * levels of groups in the heap (33,000: 32 groups and a partial) */
    const int32_t sizes[] = {1, 2, 5, 17, 33, 1000, 1025, 4129, 32768, 33000};
    unsigned seed = 12345;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int32_t n = sizes[s];
        event_heap h;
        double *t = start_heap(&h, n);
        assert_int_equal(heap_top(&h), 0);
        int steps = n > 10000 ? 4000 : 20000; /* (the reference scans all n) */
        for (int step = 0; step < steps; step++) {
            int32_t i = (int32_t)(test_random(&seed) % (unsigned)n);
            /* few distinct values: many ties; some infinities */
            unsigned r = test_random(&seed) % 50u;
            double v = r == 49 ? INFINITY : (double)(r % 16);
            heap_update(&h, i, v);
            t[i] = v;
            int32_t top = reference_top(t, n);
            assert_int_equal(heap_top(&h), top);
            assert_true(heap_top_time(&h) == t[top] || (isinf(heap_top_time(&h)) && isinf(t[top])));
            assert_true(heap_time(&h, i) == v || (isinf(v) && isinf(heap_time(&h, i))));
            /* the prefetch guess: another block's state, none with one block */
            int32_t guess = heap_next_guess(&h);
            assert_true(n <= HEAP_BLOCK
                            ? guess == -1
                            : guess >= 0 && guess < n && guess / HEAP_BLOCK != top / HEAP_BLOCK);
            assert_true(guess < 0 || !(t[guess] < t[top]));
        }
        free(t);
        heap_free(&h);
    }
}

/* Several updates between reads of the top, as an event's readers make
 * them: the same block several times, the same state twice, the earliest
 * postponed and then its successor, dozens in a row. */
static void batched_updates(void **state) {
    (void)state;
    const int32_t sizes[] = {3, 40, 1000};
    unsigned seed = 777;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int32_t n = sizes[s];
        event_heap h;
        double *t = start_heap(&h, n);
        for (int step = 0; step < 5000; step++) {
            int batch = 1 + (int)(test_random(&seed) % 40u);
            int32_t centre = heap_top(&h);
            for (int u = 0; u < batch; u++) {
                /* mostly near the top (its block and the next), some anywhere */
                unsigned pick = test_random(&seed);
                int32_t i = pick % 4u == 0 ? (int32_t)((pick >> 4) % (unsigned)n)
                                           : centre + (int32_t)((pick >> 4) % 5u) - 2;
                if (i < 0 || i >= n) i = centre;
                unsigned r = test_random(&seed) % 40u;
                double v = r == 39 ? INFINITY : r == 38 ? NAN : (double)(step / 8 + (int)(r % 12));
                heap_update(&h, i, v);
                t[i] = isnan(v) ? INFINITY : v;
                assert_true(heap_time(&h, i) == t[i]);
            }
            int32_t top = reference_top(t, n);
            assert_int_equal(heap_top(&h), top);
            assert_true(heap_top_time(&h) == t[top]);
        }
        free(t);
        heap_free(&h);
    }
}

/* Popping by pushing the top to infinity yields (time, id) order: every
 * pop postpones the earliest block and group (one block; groups scanned as
 * a block; groups in the heap). */
static void drains_in_order(void **state) {
    (void)state;
    const int32_t sizes[] = {300, 5000, 40000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        int32_t n = sizes[s];
        event_heap h;
        assert_int_equal(heap_init(&h, n), 0);
        for (int32_t i = 0; i < n; i++)
            heap_update(&h, i, (double)((i * 7919) % 13));
        double last_t = -1.0;
        int32_t last_id = -1;
        for (int32_t k = 0; k < n; k++) {
            int32_t i = heap_top(&h);
            double ti = heap_top_time(&h);
            assert_true(ti > last_t || (ti == last_t && i > last_id));
            last_t = ti;
            last_id = i;
            heap_update(&h, i, INFINITY);
        }
        assert_true(isinf(heap_top_time(&h)));
        heap_free(&h);
    }
}

/* The same with SSE2's scans of a block where AVX2's ran above. */
static void sse2_scans(void **state) {
    heap_block_scan(0);
    random_updates(state);
    batched_updates(state);
    drains_in_order(state);
    heap_block_scan(1);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(random_updates),
    cmocka_unit_test(batched_updates),
    cmocka_unit_test(drains_in_order),
    cmocka_unit_test(sse2_scans),
};

int main(int argc, char **argv) {
    return QMOL_RUN_TESTS(argc, argv, tests);
}
