/* big_alloc and big_calloc: alignment, the whole length writable and zero,
 * overflow refused. Whether the kernel granted huge pages is its choice
 * (transparent_hugepage settings, fragmentation) and not asserted; nor can
 * a test here tell zeroing from memory that came zero from the system
 * (a half-length memset passed it). */
#include "core/big_alloc.h"
#include "tests/support/test_support.h"

#include <stdint.h>
#include <stdlib.h>

static int all_zero(const unsigned char *p, size_t bytes) {
    for (size_t k = 0; k < bytes; k++)
        if (p[k]) return 0;
    return 1;
}

static void aligned_and_zeroed(void **state) {
    (void)state;
    /* below a huge page, exactly one, and a little over three */
    const size_t counts[] = {1, 1000, BIG_ALLOC_HUGE / 8, 3 * BIG_ALLOC_HUGE / 8 + 5};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        size_t bytes = counts[c] * 8;
        unsigned char *p = big_alloc(counts[c], 8, 1);
        assert_non_null(p);
        uintptr_t align = bytes >= BIG_ALLOC_HUGE ? BIG_ALLOC_HUGE : 64;
        assert_int_equal((uintptr_t)p % align, 0);
        assert_true(all_zero(p, bytes));
        for (size_t k = 0; k < bytes; k++) /* (ASan: every byte is ours) */
            p[k] = (unsigned char)k;
        assert_int_equal(p[bytes - 1], (unsigned char)(bytes - 1));
        free(p);
        unsigned char *z = big_calloc(counts[c], 8);
        assert_non_null(z);
        assert_int_equal((uintptr_t)z % 16, 0);
        assert_true(all_zero(z, bytes));
        z[bytes - 1] = 1;
        free(z);
    }
}

static void empty_and_overflow(void **state) {
    (void)state;
    void *p = big_alloc(0, 64, 1); /* at least one byte: a pointer to free */
    assert_non_null(p);
    free(p);
    p = big_calloc(0, 8);
    assert_non_null(p);
    free(p);
    assert_null(big_alloc(SIZE_MAX / 4 + 1, 8, 0));
    assert_null(big_alloc(SIZE_MAX - 100, 1, 0)); /* (rounding up to a huge page overflows) */
    assert_null(big_calloc(SIZE_MAX / 4 + 1, 8));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(aligned_and_zeroed),
    cmocka_unit_test(empty_and_overflow),
};

int main(int argc, char **argv) {
    return QMOL_RUN_TESTS(argc, argv, tests);
}
