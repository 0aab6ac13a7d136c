/* Root finding: known roots, and the degree-2 fast paths against the general
 * functions (which try both bounds) on random quadratics. */
#include "qss/poly2.h"
#include "tests/support/test_support.h"

#include <math.h>
#include <stdlib.h>

static void known_roots(void **state) {
    (void)state;
    /* (s - 1)(s - 3) = s^2 - 4 s + 3 */
    double c[4] = {3.0, -4.0, 1.0, 0.0};
    assert_true(fabs(poly_min_positive_root(c, 2) - 1.0) < 1e-15);
    assert_true(fabs(poly2_min_positive_root(3.0, -4.0, 1.0) - 1.0) < 1e-15);
    /* (s + 1)(s - 2)(s - 5): smallest positive root 2 */
    double cubic[4] = {10.0, 3.0, -6.0, 1.0};
    assert_true(fabs(poly_min_positive_root(cubic, 3) - 2.0) < 1e-12);
    /* no positive root */
    assert_true(isinf(poly2_min_positive_root(1.0, 1.0, 1.0)));
    assert_true(isinf(poly2_min_positive_root(1.0, 0.0, 0.0)));
    /* x - q = 0.5 + 0.1 s leaves |d| <= 1 at s = 5 */
    assert_true(fabs(poly2_first_exit(0.5, 0.1, 0.0, 1.0) - 5.0) < 1e-12);
    /* already outside and moving out: now; moving back in: not an exit yet */
    assert_true(poly2_first_exit(1.5, 0.1, 0.0, 1.0) == 0.0);
    assert_true(poly2_first_exit(1.5, -1.0, 0.0, 1.0) > 0.0);
}

static double uniform(unsigned *seed) {
    return (test_random(seed) & 0xffff) / 32768.0 - 1.0;
}

static void fast_paths_agree(void **state) {
    (void)state;
    unsigned seed = 777;
    for (int k = 0; k < 200000; k++) {
        double d0 = uniform(&seed), d1 = 4.0 * uniform(&seed), d2 = 8.0 * uniform(&seed);
        if (k % 7 == 0) d2 = 0.0;
        if (k % 11 == 0) d1 = 0.0;
        double bound = 1.0 + 0.5 * uniform(&seed);
        double d[4] = {d0, d1, d2, 0.0};
        double general = poly_first_exit(d, 2, bound), fast = poly2_first_exit(d0, d1, d2, bound);
        if (!(general == fast || (isinf(general) && isinf(fast)) ||
              fabs(general - fast) <= 1e-12 * fabs(general)))
            fail_msg("d = (%g, %g, %g), bound %g: general %.17g, fast %.17g", d0, d1, d2, bound,
                     general, fast);
        double r = poly_min_positive_root(d, 2), r2 = poly2_min_positive_root(d0, d1, d2);
        assert_true(r == r2 || (isinf(r) && isinf(r2)));
    }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(known_roots),
    cmocka_unit_test(fast_paths_agree),
};

int main(int argc, char **argv) {
    return QMOL_RUN_TESTS(argc, argv, tests);
}
