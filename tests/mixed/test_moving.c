/* --method moving (moving_run.c): the mixed method whose BDF block follows
 * the activity, against a tight CVODE reference and the single methods.
 *
 *   - adr2d 100 x 100 (a front crossing the grid), tf 2, and adr1d
 *     N = 1000, tf 10, 10 samples, tol 1e-3 and 1e-4: e_rr over the samples
 *     against CVODE at 1e-9 at most 1.5 times the worse of CVODE's and
 *     LIQSS2's at the same tol (the errors of the two methods it joins);
 *     states move both ways (into the BDF block ahead of the front, back to
 *     QSS behind it); on adr1d the QSS engine has events beside CVODE's
 *     steps (on adr2d 100 x 100 the states it holds stay at rest);
 *   - diurnal (stiff kinetics, per-state absolute tolerances), all on BDF:
 *     the same bound;
 *   - what it refuses: a problem with discontinuities (heat2d-thermostat);
 *   - a stop request ends the window where the QSS events stopped.
 */
#include "tests/support/run_support.h"
#include "tests/support/test_support.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* One problem at tol 1e-3 and 1e-4 against CVODE at 1e-9; qss_work: the
 * QSS engine must have events there (the coupling in use); both_ways:
 * states must move into the block and back. */
static void against_single_methods(const char *problem, const char *const *sets, int nsets,
                                   double tf, int qss_work, int both_ways) {
    test_run *ref = run_problem(problem, sets, nsets, "cvode", 1e-9, 1e-10, tf, 10, 0, 1);
    assert_int_equal(ref->rc, 0);
    const double tols[] = {1e-3, 1e-4};
    for (int k = 0; k < 2; k++) {
        double tol = tols[k];
        test_run *cv = run_problem(problem, sets, nsets, "cvode", tol, 0.1 * tol, tf, 10, 0, 1);
        test_run *lq = run_problem(problem, sets, nsets, "liqss2", tol, 0.1 * tol, tf, 10, 0, 1);
        test_run *mv = run_problem(problem, sets, nsets, "moving", tol, 0.1 * tol, tf, 10, 0, 1);
        assert_int_equal(cv->rc, 0);
        assert_int_equal(lq->rc, 0);
        if (mv->rc) print_message("moving: %s\n", mv->err);
        assert_int_equal(mv->rc, 0);
        double ecv = run_relative_error(cv, ref), elq = run_relative_error(lq, ref),
               emv = run_relative_error(mv, ref);
        print_message("%s tol %g: e_rr cvode %.3g, liqss2 %.3g, moving %.3g (%llu events, %llu "
                      "BDF steps, %llu states to BDF, %llu back to QSS)\n",
                      problem, tol, ecv, elq, emv, (unsigned long long)mv->stats.events,
                      (unsigned long long)mv->stats.nst, (unsigned long long)mv->stats.to_bdf,
                      (unsigned long long)mv->stats.to_qss);
        assert_true(emv <= 1.5 * fmax(ecv, elq));
        assert_true(mv->stats.to_bdf > 0 && (mv->stats.to_qss > 0 || !both_ways));
        assert_true(mv->stats.nst > 0);
        if (qss_work) assert_true(mv->stats.events > 0);
        run_free(cv), run_free(lq), run_free(mv);
    }
    run_free(ref);
}

static void follows_the_front(void **state) {
    (void)state;
    static const char *const grid[] = {"nx=100", "ny=100"};
    against_single_methods("adr2d", grid, 2, 2.0, 0, 1);
    against_single_methods("adr1d", NULL, 0, 10.0, 1, 1);
}

/* diurnal: every state on BDF from t0 (CVODE's copies of y0 and of the
 * per-state absolute tolerances made over every state: over the first
 * active set they stopped the run with CV_TOO_MUCH_ACC at t = 118) */
static void diurnal_on_bdf(void **state) {
    (void)state;
    against_single_methods("diurnal", NULL, 0, 0.0, 0, 0);
}

static void refuses_discontinuities(void **state) {
    (void)state;
    test_run *r = run_problem("heat2d-thermostat", NULL, 0, "moving", 1e-3, 1e-4, 0.0, 4, 0, 1);
    assert_int_not_equal(r->rc, 0);
    print_message("%s\n", r->err);
    assert_non_null(strstr(r->err, "discontinuities"));
    run_free(r);
}

/* A stop request (a signal, auto's budget: integrator_options.stop_requested)
 * polled by the QSS events ends the window where they stopped: the window
 * end is that event's time, where CVODE's block is too (it once went on to
 * the window's planned end, past the QSS states' last events). */
typedef struct stop_watch {
    double stop_from, asked_at, ended_at;
} stop_watch;

static int stop_after(void *ctx, double t) {
    stop_watch *w = ctx;
    if (t < w->stop_from) return 0;
    if (isnan(w->asked_at)) w->asked_at = t;
    return 1;
}

static int window_end(void *ctx, double t, const integrator_state *s) {
    (void)s;
    stop_watch *w = ctx;
    if (isnan(w->asked_at)) return 0;
    w->ended_at = t;
    return INTEGRATOR_STOPPED;
}

static void stops_where_asked(void **state) {
    (void)state;
    test_run *r = run_prepare("adr1d", NULL, 0, "moving", 1e-3, 1e-4, 10.0, 10);
    stop_watch w = {.stop_from = 2.0, .asked_at = NAN, .ended_at = NAN};
    r->opt.stop_requested = stop_after, r->opt.stop_ctx = &w;
    r->opt.at_window_end = window_end, r->opt.window_ctx = &w;
    assert_int_equal(run_integrate(r), INTEGRATOR_STOPPED);
    print_message("stop asked at t = %.17g, the window ended at %.17g\n", w.asked_at, w.ended_at);
    assert_true(w.asked_at >= 2.0 && w.asked_at < 3.0);
    assert_true(w.ended_at == w.asked_at);
    run_free(r);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(stops_where_asked),
    cmocka_unit_test(follows_the_front),
    cmocka_unit_test(diurnal_on_bdf),
    cmocka_unit_test(refuses_discontinuities),
};

int main(int argc, char **argv) {
    return QMOL_RUN_TESTS(argc, argv, tests);
}
