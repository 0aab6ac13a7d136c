/* The thesis's worked examples and seed 001's BQSS results, as exact tests. */
#include "tests/support/run_support.h"
#include "tests/support/test_support.h"

#include <math.h>
#include <stdio.h>

static test_run *must_run(const char *name, const char *method, double reltol, double abstol,
                          double tf, int64_t K, int use_jac) {
    test_run *r = run_problem(name, NULL, 0, method, reltol, abstol, tf, K, 1, use_jac);
    if (r->rc != 0) fail_msg("%s on %s: %s", method, name, r->err);
    if (r->trace_truncated) fail_msg("%s on %s: more than %d events", method, name, TRACE_MAX);
    return r;
}

/* Events after time t0 (in the trace). */
static int64_t events_after(const test_run *r, double t0) {
    int64_t count = 0;
    for (int64_t k = 0; k < r->ntrace; k++)
        count += r->trace[k].t > t0;
    return count;
}

/* Thesis Table 4.1 (ALGORITHMS.md 2.9): LIQSS1 on eq. 4.1 with dQ = 1. */
static void check_table_4_1(int use_jac) {
    test_run *r = must_run("liqss-pair", "liqss1", 0.0, 1.0, 10.0, 10, use_jac);
    const double times[] = {0.294, 0.557, 0.819, 1.652, 2.957, 4.218, 5.018, 6.018, 7.018, 8.018};
    /* q after the events t1..t6 (Table 4.1 rows) */
    const struct {
        double t, q1, q2;
    } rows[] = {{1.652, 0, 0},    {2.957, 0, 1.2}, {4.218, -1, 1.2},
                {5.018, -1, 0.2}, {6.018, 0, 0.2}, {7.018, 0, 1.2}};
    assert_true(r->ntrace >= 10);
    for (int k = 0; k < 10; k++) {
        if (fabs(r->trace[k].t - times[k]) > 1e-3)
            fail_msg("event %d at t=%.4f, Table 4.1 has %.3f", k + 1, r->trace[k].t, times[k]);
    }
    for (size_t row = 0; row < sizeof rows / sizeof rows[0]; row++) {
        int found = 0;
        for (int64_t k = 0; k < r->ntrace && !found; k++) {
            if (fabs(r->trace[k].t - rows[row].t) < 1e-3) {
                found = 1;
                if (fabs(r->trace[k].q[0] - rows[row].q1) > 1e-9 ||
                    fabs(r->trace[k].q[1] - rows[row].q2) > 1e-9)
                    fail_msg("t=%.3f: q=(%g, %g), Table 4.1 has (%g, %g)", rows[row].t,
                             r->trace[k].q[0], r->trace[k].q[1], rows[row].q1, rows[row].q2);
            }
        }
        assert_true(found);
    }
    run_free(r);
}

static void table_4_1_secant(void **state) {
    (void)state;
    check_table_4_1(0);
}

static void table_4_1_analytic(void **state) {
    (void)state;
    check_table_4_1(1);
}

/* mLIQSS1 on eq. 4.1 stops oscillating after t ~ 2.957 (Fig. 4.2): the pair
 * step lands within 2 dQ of the equilibrium (-0.5, 0.7) and no more than 2
 * events follow, where LIQSS1 keeps cycling (one event per time unit). */
static void mliqss1_stops_oscillating(void **state) {
    (void)state;
    test_run *m = must_run("liqss-pair", "mliqss1", 0.0, 1.0, 10.0, 10, 0);
    test_run *l = must_run("liqss-pair", "liqss1", 0.0, 1.0, 10.0, 10, 0);
    assert_true(m->stats.pair_steps >= 1);
    int64_t late_m = events_after(m, 3.0), late_l = events_after(l, 3.0);
    if (late_m > 2) fail_msg("mLIQSS1: %lld events after t=3", (long long)late_m);
    assert_true(late_l >= 6);
    const trace_event *last = &m->trace[m->ntrace - 1];
    assert_true(fabs(last->q[0] + 0.5) <= 2.0 && fabs(last->q[1] - 0.7) <= 2.0);
    /* final state near the equilibrium: within 2 dQ */
    double x1 = m->samples[(m->K - 1) * 2], x2 = m->samples[(m->K - 1) * 2 + 1];
    assert_true(fabs(x1 + 0.5) <= 2.0 && fabs(x2 - 0.7) <= 2.0);
    run_free(m);
    run_free(l);
}

/* x' = -0.1 (x - 10.5), dQ = 1: QSS1 keeps switching q between 10 and 11
 * (every 20 time units, since |x'| <= 0.05 there); LIQSS1 settles at the
 * equilibrium (thesis Figs. 3.6 and 3.8). */
static void qss1_oscillates_liqss1_settles(void **state) {
    (void)state;
    test_run *q = must_run("relax", "qss1", 0.0, 1.0, 100.0, 10, 0);
    test_run *l = must_run("relax", "liqss1", 0.0, 1.0, 100.0, 10, 0);
    int64_t late_q = events_after(q, 30.0), late_l = events_after(l, 50.0);
    assert_true(late_q >= 3);
    assert_true(q->trace[q->ntrace - 1].t > 80.0);
    for (int64_t k = 0; k < q->ntrace; k++)
        if (q->trace[k].t > 30.0) assert_true(q->trace[k].q[0] == 10.0 || q->trace[k].q[0] == 11.0);
    if (late_l != 0) fail_msg("LIQSS1: %lld events after t=50", (long long)late_l);
    assert_true(fabs(l->trace[l->ntrace - 1].q[0] - 10.5) < 1e-12);
    run_free(q);
    run_free(l);
}

/* Seed 001 A1 with BQSS: steps per state within 10% of (20, 22), (201, 201),
 * (2006, 2024); max errors within the global bound (3.0004, 5.001) * dQ. */
static void bqss_a1(void **state) {
    (void)state;
    const double dq[] = {1.0, 0.1, 0.01};
    const double steps[][2] = {{20, 22}, {201, 201}, {2006, 2024}};
    for (int c = 0; c < 3; c++) {
        test_run *r = must_run("bqss-a1", "bqss", 0.0, dq[c], 1000.0, 200, 0);
        printf("BQSS A1 dQ=%g: steps (%llu, %llu)\n", dq[c],
               (unsigned long long)r->events_per_state[0],
               (unsigned long long)r->events_per_state[1]);
        for (int s = 0; s < 2; s++) {
            double got = (double)r->events_per_state[s];
            if (fabs(got - steps[c][s]) > 0.1 * steps[c][s])
                fail_msg("dQ=%g x%d: %g steps, paper %g", dq[c], s + 1, got, steps[c][s]);
        }
        assert_true(run_max_error_state(r, 0) <= 3.0004 * dq[c]);
        assert_true(run_max_error_state(r, 1) <= 5.001 * dq[c]);
        run_free(r);
    }
}

/* Seed 001 A2 with quanta (0.01, 0.01, 1e-7): 456 steps in total (within
 * 10%), no events after t = 420 (the paper: stable at 419.66), and errors of
 * the order of the quantum against the reference values at t = 1000
 * (ALGORITHMS.md A.7). */
static void bqss_a2(void **state) {
    (void)state;
    test_run *r = must_run("bqss-a2", "bqss", 0.0, 0.01, 1000.0, 10, 0);
    uint64_t total = r->events_per_state[0] + r->events_per_state[1] + r->events_per_state[2];
    printf("BQSS A2: steps (%llu, %llu, %llu)\n", (unsigned long long)r->events_per_state[0],
           (unsigned long long)r->events_per_state[1], (unsigned long long)r->events_per_state[2]);
    if (fabs((double)total - 456.0) > 45.6)
        fail_msg("A2: %llu steps (%llu, %llu, %llu), paper 456", (unsigned long long)total,
                 (unsigned long long)r->events_per_state[0],
                 (unsigned long long)r->events_per_state[1],
                 (unsigned long long)r->events_per_state[2]);
    assert_int_equal(events_after(r, 420.0), 0);
    const double ref[3] = {2.98252075e-06, 1.99999702, -7.75458105e-12};
    const double quantum[3] = {0.01, 0.01, 1e-7};
    for (int s = 0; s < 3; s++)
        assert_true(fabs(r->samples[(r->K - 1) * 3 + s] - ref[s]) <= 2.0 * quantum[s]);
    run_free(r);
}

/* A 2x2 system whose stiffness is off the diagonal (offdiag-stiff): the pair
 * step removes LIQSS's oscillation, at least 10x fewer steps. */
static void mliqss_offdiag_stiffness(void **state) {
    (void)state;
    const char *pairs[][2] = {{"liqss1", "mliqss1"}, {"liqss2", "mliqss2"}};
    for (int k = 0; k < 2; k++) {
        test_run *l = must_run("offdiag-stiff", pairs[k][0], 1e-3, 1e-3, 0.0, 10, 0);
        test_run *m = must_run("offdiag-stiff", pairs[k][1], 1e-3, 1e-3, 0.0, 10, 0);
        if (m->stats.events * 10 > l->stats.events)
            fail_msg("%s %llu events, %s %llu: less than 10x fewer", pairs[k][1],
                     (unsigned long long)m->stats.events, pairs[k][0],
                     (unsigned long long)l->stats.events);
        /* both stay accurate: within 2 dQ (LIQSS bound) times a small factor */
        assert_true(run_max_error(m) < 0.05);
        run_free(l);
        run_free(m);
    }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(table_4_1_secant),
    cmocka_unit_test(table_4_1_analytic),
    cmocka_unit_test(mliqss1_stops_oscillating),
    cmocka_unit_test(qss1_oscillates_liqss1_settles),
    cmocka_unit_test(bqss_a1),
    cmocka_unit_test(bqss_a2),
    cmocka_unit_test(mliqss_offdiag_stiffness),
};

int main(int argc, char **argv) {
    return QMOL_RUN_TESTS(argc, argv, tests);
}
