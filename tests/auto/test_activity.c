/* auto's activity watch (src/auto/auto_activity.h): the events per unit of
 * t an order-2 QSS method would need on states seen at three looks,
 * sum sqrt(|x''| / (2 Q)), with x'' the divided difference of the looks. */
#include "auto/auto_activity.h"
#include "tests/support/test_support.h"

#include <math.h>

/* x_j(t) = a_j t^2 + b_j t + c_j: the divided difference is a_j's 2 a_j
 * exactly, at looks unevenly spaced; Q = max(reltol |x(t2)|, abstol). */
static void exact_on_quadratics(void **state) {
    (void)state;
    enum { N = 7 };
    /* (dyadic numbers: the looks and their differences are exact, so is a
     * line's x'' of 0; elsewhere, a few roundings in x'' and the square root) */
    const double a[N] = {0.0, 1.0, -3.0, 256.0, 0.0009765625, -0.03125, 40.0};
    const double b[N] = {1.0, -2.0, 0.5, 0.0, 3.0, 7.0, -1.0};
    const double c[N] = {0.0, 5.0, -1.0, 2048.0, 0.0, 0.5, 0.25};
    const double t[3] = {0.125, 0.25, 0.75};
    double x[3][N];
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < N; j++)
            x[k][j] = (a[j] * t[k] + b[j]) * t[k] + c[j];
    double reltol = 1e-3, abstol = 1e-4, expected = 0.0;
    for (int j = 0; j < N; j++)
        expected += sqrt(fabs(2.0 * a[j]) / (2.0 * fmax(reltol * fabs(x[2][j]), abstol)));
    const double *const looks[3] = {x[0], x[1], x[2]};
    double got = activity_events(NULL, N, looks, t, reltol, abstol, INFINITY);
    if (!(fabs(got - expected) <= 1e-12 * expected))
        fail_msg("activity %.17g, expected %.17g", got, expected);
}

/* With a limit the sum stops past it, in blocks of states: not below the
 * limit, below the whole sum. */
static void stops_at_the_limit(void **state) {
    (void)state;
    enum { N = 5000 };
    static double x0[N], x1[N], x2[N];
    const double t[3] = {0.0, 1.0, 2.0};
    for (int j = 0; j < N; j++) /* x'' = 2: one event per unit of t at Q = 1 */
        x0[j] = 0.0, x1[j] = 1.0, x2[j] = 4.0;
    const double *const looks[3] = {x0, x1, x2};
    /* Q = max(0.25 * 4, 1e-9) = 1 */
    double whole = activity_events(NULL, N, looks, t, 0.25, 1e-9, INFINITY);
    assert_true(fabs(whole - N) < 1e-9 * N);
    double part = activity_events(NULL, N, looks, t, 0.25, 1e-9, 10.0);
    if (!(part >= 10.0 && part < whole)) fail_msg("limited sum %g (whole %g)", part, whole);
}

/* The watch keeps the last three looks: x = t^3 has divided difference
 * t0 + t1 + t2, so x'' = 2 (t0 + t1 + t2) from the looks taken. */
static void keeps_the_last_three_looks(void **state) {
    (void)state;
    activity_watch W;
    assert_int_equal(activity_init(&W, 1), 0);
    double reltol = 0.0, abstol = 0.5; /* Q = 0.5: events sqrt(|x''|) */
    for (int look = 1; look <= 5; look++) {
        double t = look, x = t * t * t;
        activity_look(&W, t, &x);
        double level = activity_level(&W, NULL, reltol, abstol, INFINITY, MPI_COMM_SELF, 0);
        if (look < 3) {
            assert_true(isnan(level));
            assert_true(activity_time(&W) == -INFINITY);
            continue;
        }
        double expected = sqrt(2.0 * (3.0 * t - 3.0)); /* t0 + t1 + t2 = 3 t - 3 */
        if (!(fabs(level - expected) < 1e-9 * expected))
            fail_msg("look %d: level %.17g, expected %.17g", look, level, expected);
        assert_true(activity_time(&W) == t);
        /* a limit below it: asked again, the exact value stands */
        assert_true(activity_level(&W, NULL, reltol, abstol, 0.1, MPI_COMM_SELF, 0) == level);
    }
    activity_restart(&W);
    double x = 1.0;
    activity_look(&W, 6.0, &x);
    assert_true(isnan(activity_level(&W, NULL, reltol, abstol, INFINITY, MPI_COMM_SELF, 0)));
    activity_free(&W);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(exact_on_quadratics),
    cmocka_unit_test(stops_at_the_limit),
    cmocka_unit_test(keeps_the_last_three_looks),
};

int main(int argc, char **argv) {
    return QMOL_RUN_TESTS(argc, argv, tests);
}
