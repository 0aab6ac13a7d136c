/* Zero crossings and time events: time events against an exact solution
 * (pulse), thermostat switching times of every method against a tight CVODE
 * reference (heat2d-thermostat), and bad discontinuity callbacks. */
#include "qss/discrete.h"
#include "tests/support/run_support.h"
#include "core/integrator.h"
#include "tests/support/test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const methods[] = {"qss1",    "qss2",    "qss3",  "liqss1", "liqss2",
                                      "mliqss1", "mliqss2", "cvode", "mixed",  "mixed-heater-bdf"};
#define NMETHODS (sizeof methods / sizeof methods[0])

/* pulse (three lags, square wave toggled at t = 0.25, 0.5, 0.75): max error
 * against the exact solution within 3 tol for QSS (their bound for these
 * decoupled lags, as in test_accuracy), 10 tol for CVODE, and exactly three
 * time events. */
static void pulse_exact(void **state) {
    (void)state;
    const double tol = 1e-4;
    for (size_t m = 0; m < NMETHODS; m++) {
        if (!strncmp(methods[m], "mixed", 5)) continue; /* one state per lag: no split */
        test_run *r = run_problem("pulse", NULL, 0, methods[m], tol, tol, 0.0, 40, 0, 1);
        if (r->rc != 0) fail_msg("%s: %s", methods[m], r->err);
        double err = run_max_error(r), bound = (strcmp(methods[m], "cvode") ? 3.0 : 10.0) * tol;
        printf("pulse %-8s max error %.2e (bound %.1e), %llu time events\n", methods[m], err, bound,
               (unsigned long long)r->stats.time_events);
        assert_int_equal(r->stats.time_events, 3);
        if (err > bound) fail_msg("%s: max error %g > %g", methods[m], err, bound);
        run_free(r);
    }
}

/* The thermostat's switching times: a switch is a crossing that changes the
 * heater (g0 rising while on, g1 falling while off). */
static int switches(const test_run *r, double *out, int cap) {
    int on = 1, n = 0;
    for (int64_t k = 0; k < r->ncross; k++) {
        int c = (int)r->cross_c[k], dir = r->cross_dir[k];
        if ((on && c == 0 && dir > 0) || (!on && c == 1 && dir < 0)) {
            on = !on;
            if (n < cap) out[n] = r->cross_t[k];
            n++;
        }
    }
    return n;
}

/* |du_s/dt| at t from the reference's samples (central difference). */
static double sensor_speed(const test_run *ref, int64_t sensor, double t) {
    double dt = ref->times[1] - ref->times[0];
    int64_t k = (int64_t)floor(t / dt);
    if (k < 1) k = 1;
    if (k > ref->K - 2) k = ref->K - 2;
    const double *x = ref->samples;
    return fabs(x[(k + 1) * ref->n + sensor] - x[(k - 1) * ref->n + sensor]) / (2.0 * dt);
}

/* Every method (and the mixed one twice: heater and sensor on QSS; heater
 * rows on BDF, which then restarts at every switch) switches the heater as often as the reference
 * (CVODE, tol 1e-9) and each switch lies within the tolerance's time equivalent of the reference's:
 * 10 (tol |u_s| + abstol) / |du_s/dt| (the time the sensor takes to move by the error bound
 * test_accuracy allows, 10 tol) plus 3 tol t (a relative tolerance on the time itself: the cycle's
 * period carries the whole plate's error, and the hot heater nodes, u ~ 25, have quanta 25 times
 * the sensor's; LIQSS2 at tol 1e-3 drifts by 8e-5 s per cycle, 1.5e-3 s after 17 switches, with a
 * max error of 0.027 on the plate even when the heater never switches). Both crossing directions
 * and both thresholds are exercised (hysteresis). */
static void thermostat_switching_times(void **state) {
    (void)state;
    const char *sets[] = {"nx=12", "ny=12"};
    const int64_t sensor = 6 + 12 * 6;
    test_run *ref =
        run_problem("heat2d-thermostat", sets, 2, "cvode", 1e-9, 1e-10, 0.0, 2000, 0, 1);
    assert_int_equal(ref->rc, 0);
    double tref[64], t[64];
    int nref = switches(ref, tref, 64);
    printf("heat2d-thermostat 12 x 12: %d switches in the reference\n", nref);
    assert_true(nref >= 10 && nref <= 64);
    const double tols[] = {1e-3, 1e-4};
    for (size_t m = 0; m < NMETHODS; m++) {
        if (!strcmp(methods[m], "qss1") || !strcmp(methods[m], "liqss1") ||
            !strcmp(methods[m], "mliqss1"))
            continue; /* first order: millions of events at 1e-4; pulse covers them */
        for (int k = 0; k < 2; k++) {
            double tol = tols[k], abstol = tol / 10.0;
            test_run *r;
            if (!strcmp(methods[m], "mixed")) /* right part BDF, heater and sensor QSS */
                r = run_mixed("heat2d-thermostat", sets, 2, "mliqss2", "x>0.6", COUPLING_INTERP,
                              tol, abstol, 0.0, 10);
            else if (!strcmp(methods[m], "mixed-heater-bdf")) /* heater rows on BDF */
                r = run_mixed("heat2d-thermostat", sets, 2, "liqss2", "y<0.2", COUPLING_INTERP, tol,
                              abstol, 0.0, 10);
            else
                r = run_problem("heat2d-thermostat", sets, 2, methods[m], tol, abstol, 0.0, 10, 0,
                                1);
            if (r->rc != 0) fail_msg("%s: %s", methods[m], r->err);
            int n = switches(r, t, 64);
            double worst = 0.0;
            for (int s = 0; s < n && s < nref; s++) {
                double speed = sensor_speed(ref, sensor, tref[s]);
                double allowed = 10.0 * (tol * 1.1 + abstol) / speed + 3.0 * tol * tref[s];
                double ratio = fabs(t[s] - tref[s]) / allowed;
                if (ratio > worst) worst = ratio;
            }
            printf("  %-8s tol %g: %d switches, worst |dt| / allowed = %.3f\n", methods[m], tol, n,
                   worst);
            assert_int_equal(n, nref);
            if (worst > 1.0)
                fail_msg("%s tol %g: a switch is %.2f allowed times off", methods[m], tol, worst);
            assert_int_equal(r->stats.crossings, (uint64_t)r->ncross);
            run_free(r);
        }
    }
    run_free(ref);
}

/* Max over samples of |x_i - ref_i| for states [lo, hi), and the bound
 * 5 (tol max |ref| + abstol) over them. */
static double group_error(const test_run *r, const test_run *ref, int64_t lo, int64_t hi,
                          double tol, double abstol, double *bound) {
    double err = 0.0, big = 0.0;
    for (int64_t k = 0; k < ref->K; k++)
        for (int64_t i = lo; i < hi; i++) {
            double a = r->samples[k * r->n + i], b = ref->samples[k * ref->n + i];
            err = fmax(err, fabs(a - b));
            big = fmax(big, fabs(b));
        }
    *bound = 5.0 * (tol * big + abstol);
    return err;
}

/* buck-heatsink, 200 switching periods of the start-up (i_L swings to 8 A):
 * every method handles the 799 time events (4 per period: loss on, switch
 * on, loss off, switch off) and as many diode crossings as the reference
 * (CVODE, tol 1e-8), and stays within 5 (tol max|x| + abstol) of it on the
 * circuit and on the rod. The mixed runs put the rod from section 4 (or, by
 * --assign auto with a low threshold, all sections but the heated one) on
 * BDF. */
static void buck_heatsink(void **state) {
    (void)state;
    const double tf = 0.02, tol = 1e-3, abstol = 1e-4;
    test_run *ref = run_problem("buck-heatsink", NULL, 0, "cvode", 1e-8, 1e-9, tf, 20, 0, 1);
    assert_int_equal(ref->rc, 0);
    assert_int_equal(ref->stats.time_events, 799);
    const char *runs[] = {"cvode", "qss2", "liqss2", "mliqss2", "mixed", "mixed-auto"};
    for (size_t m = 0; m < sizeof runs / sizeof runs[0]; m++) {
        test_run *r;
        if (!strcmp(runs[m], "mixed"))
            r = run_mixed("buck-heatsink", NULL, 0, "liqss2", "i>=6", COUPLING_INTERP, tol, abstol,
                          tf, 20);
        else if (!strcmp(runs[m], "mixed-auto")) {
            /* the rod's rate x span is 2758 x 0.02 = 55, the circuit's <= 4;
             * the discontinuity rule keeps i_L, u_C, u_1 and (depth 3) u_2..u_4 */
            r = run_mixed("buck-heatsink", NULL, 0, "liqss2", "auto:10", COUPLING_INTERP, tol,
                          abstol, tf, 20);
            for (int i = 0; i < 6; i++)
                assert_int_equal(r->assignment[i], 0);
            assert_int_equal(r->assignment[6], 1);
        } else
            r = run_problem("buck-heatsink", NULL, 0, runs[m], tol, abstol, tf, 20, 0, 1);
        if (r->rc != 0) fail_msg("%s: %s", runs[m], r->err);
        double bc, br;
        double ec = group_error(r, ref, 0, 2, tol, abstol, &bc);
        double er = group_error(r, ref, 2, r->n, tol, abstol, &br);
        printf("buck %-10s circuit error %.2e (bound %.2e), rod %.2e (bound %.2e); %llu "
               "crossings, %llu time events\n",
               runs[m], ec, bc, er, br, (unsigned long long)r->stats.crossings,
               (unsigned long long)r->stats.time_events);
        assert_int_equal(r->stats.time_events, 799);
        assert_int_equal(r->stats.crossings, ref->stats.crossings);
        if (ec > bc || er > br) fail_msg("%s: error above the bound", runs[m]);
        run_free(r);
    }
    run_free(ref);
}

static double g_zero(const void *data, int64_t c, double t, const double *vals) {
    (void)data, (void)c, (void)t, (void)vals;
    return 0.0;
}

static int size_minus_one(const void *data, int64_t c) {
    (void)data, (void)c;
    return -1;
}

static void on_any(void *data, int64_t c, int direction, double t) {
    (void)data, (void)c, (void)direction, (void)t;
}

static void row_none(const void *data, int64_t c, int64_t *cols) {
    (void)data, (void)c, (void)cols;
}

static double never(const void *data, double t) {
    (void)data, (void)t;
    return INFINITY;
}

/* Incomplete or out-of-range discontinuity fields are refused with a message
 * naming the field (run.c turns it into exit code 2). */
static void bad_discontinuity_fields(void **state) {
    (void)state;
    char err[256];
    qmol_problem p = {.n = 4};
    assert_int_equal(discrete_check(&p, err, sizeof err), 0);
    p.n_crossings = -1;
    assert_int_equal(discrete_check(&p, err, sizeof err), -1);
    assert_non_null(strstr(err, "n_crossings = -1"));
    p.n_crossings = 2;
    p.crossing = g_zero;
    assert_int_equal(discrete_check(&p, err, sizeof err), -1);
    assert_non_null(strstr(err, "on_crossing"));
    p.crossing_size = size_minus_one;
    p.crossing_row = row_none;
    p.on_crossing = on_any;
    assert_int_equal(discrete_check(&p, err, sizeof err), -1);
    assert_non_null(strstr(err, "crossing function 0: -1 inputs"));
    p.crossing_size = NULL;
    p.n_crossings = 0;
    p.next_time_event = never;
    assert_int_equal(discrete_check(&p, err, sizeof err), -1);
    assert_non_null(strstr(err, "on_time_event"));
    p.next_time_event = NULL;
    p.n_affected = 5;
    assert_int_equal(discrete_check(&p, err, sizeof err), -1);
    assert_non_null(strstr(err, "n_affected = 5"));
    /* discrete variables for checkpoints: both accessors, a count >= 0 */
    p.n_affected = 0;
    p.n_discrete = 1;
    assert_int_equal(discrete_check(&p, err, sizeof err), -1);
    assert_non_null(strstr(err, "n_discrete = 1"));
    assert_non_null(strstr(err, "get_discrete and set_discrete"));
    p.n_discrete = -1;
    assert_int_equal(discrete_check(&p, err, sizeof err), -1);
    assert_non_null(strstr(err, "n_discrete = -1"));
    p.n_discrete = 0;
    assert_int_equal(discrete_check(&p, err, sizeof err), 0);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pulse_exact),
        cmocka_unit_test(thermostat_switching_times),
        cmocka_unit_test(buck_heatsink),
        cmocka_unit_test(bad_discontinuity_fields),
    };
    return QMOL_RUN_TESTS(argc, argv, tests);
}
