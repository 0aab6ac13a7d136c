/* The integrator registry: lookups, the names lists, and entries whose
 * fields agree with each other (a QSS method's table, its kept window, the
 * capabilities the driver combines). */
#include "core/integrator_registry.h"
#include "qss/qss_engine.h"
#include "tests/support/test_support.h"

#include <string.h>

static void lookups(void **state) {
    (void)state;
    int count = 0;
    while (integrator_by_id(count))
        count++;
    assert_int_equal(count, 12);
    for (int id = 0; id < count; id++) {
        const integrator_def *d = integrator_by_id(id);
        assert_ptr_equal(integrator_by_name(d->name), d);
        assert_non_null(d->description);
        assert_non_null(d->integrate);
        assert_non_null(d->pieces_per_rank);
        for (int other = 0; other < id; other++)
            assert_string_not_equal(integrator_by_id(other)->name, d->name);
    }
    assert_null(integrator_by_id(-1));
    assert_null(integrator_by_id(count));
    assert_ptr_equal(integrator_by_name("MLIQSS2"), integrator_by_id(7));
    assert_ptr_equal(integrator_by_name("CVode"), integrator_by_id(8));
    assert_null(integrator_by_name("mliqss"));
    assert_null(integrator_by_name("mliqss22"));
    assert_null(integrator_by_name(""));
}

static void names(void **state) {
    (void)state;
    char buf[256];
    integrator_names(buf, sizeof buf, 0);
    assert_string_equal(buf,
                        "qss1 qss2 qss3 bqss liqss1 liqss2 mliqss1 mliqss2 cvode mixed auto moving");
    integrator_names(buf, sizeof buf, 1);
    assert_string_equal(buf, "qss1 qss2 qss3 bqss liqss1 liqss2 mliqss1 mliqss2");
    integrator_names(buf, 12, 0); /* cut, terminated */
    assert_string_equal(buf, "qss1 qss2 q");
    integrator_names_with(buf, sizeof buf, INTEGRATOR_BDF);
    assert_string_equal(buf, "cvode, mixed, auto, moving");
    integrator_names_with(buf, sizeof buf, INTEGRATOR_ASSIGNS);
    assert_string_equal(buf, "mixed, auto");
}

/* A method's kept doubles per state (per_entry 0) or per row entry (1). */
static double kept(const char *name, int per_entry) {
    double fixed, entry;
    integrator_kept(integrator_by_name(name), &fixed, &entry);
    return per_entry ? entry : fixed;
}

static void entries_agree(void **state) {
    (void)state;
    for (int id = 0; integrator_by_id(id); id++) {
        const integrator_def *d = integrator_by_id(id);
        if (integrator_is_qss(d)) {
            /* the engine's table of the same method, run by qss_integrate */
            assert_string_equal(d->qss->name, d->name);
            assert_ptr_equal(d->integrate, qss_integrate);
            assert_true(integrator_has(d, INTEGRATOR_QSS_ENGINE));
            assert_false(d->caps & (INTEGRATOR_BDF | INTEGRATOR_ASSIGNS));
            /* x and counts, the engine's 2 k + 5 polynomial and time fields
             * and eng_state_io's column, then the method's own */
            double fixed, per_entry;
            integrator_kept(d, &fixed, &per_entry);
            assert_true(fixed >= 2.0 + 2.0 * d->qss->order + 5.0 + 1.0 + d->qss->kept_fields);
            assert_true(per_entry == d->qss->kept_per_entry);
            assert_int_equal(d->pieces_per_rank(1000000, 2), 4);
            assert_int_equal(d->pieces_per_rank(100, 2), 1);
        } else {
            assert_int_equal(d->pieces_per_rank(1000000, 2), 1);
            double fixed, per_entry;
            integrator_kept(d, &fixed, &per_entry);
            assert_true(fixed == 2.0 && per_entry == 0.0);
        }
        if (integrator_has(d, INTEGRATOR_BDF_ALL)) {
            assert_true(integrator_has(d, INTEGRATOR_BDF));
            assert_false(d->caps & INTEGRATOR_QSS_ENGINE);
        }
        if (integrator_has(d, INTEGRATOR_ASSIGNS)) {
            assert_true(integrator_has(d, INTEGRATOR_BDF | INTEGRATOR_QSS_ENGINE));
            assert_non_null(integrator_by_name(d->bdf_alone));
            assert_true(integrator_has(integrator_by_name(d->bdf_alone), INTEGRATOR_BDF_ALL));
        } else {
            assert_null(d->bdf_alone);
        }
        /* what every QSS engine run needs of the partition */
        if (d->caps & INTEGRATOR_QSS_ENGINE)
            assert_true(integrator_has(d, INTEGRATOR_GATHER_DISCRETE | INTEGRATOR_WEIGHT_BY_ROW));
        assert_true(!d->one_rank_why == !d->one_rank_instead);
        /* a method that chooses (auto) runs the others: the mixed split
         * among them, so it assigns */
        if (d->caps & INTEGRATOR_CHOOSES) assert_true(integrator_has(d, INTEGRATOR_ASSIGNS));
        /* the balance check is a one-rank QSS run's (mass_check.h) */
        if (d->caps & INTEGRATOR_BALANCE_CHECK)
            assert_true(integrator_is_qss(d) && d->one_rank_why);
    }
    assert_true(integrator_has(integrator_by_name("bqss"), INTEGRATOR_BALANCE_CHECK));
    /* the per-method kept sizes checkpoint.c had, and from order 2 the
     * age the unseen check verified (checked_age) */
    assert_true(kept("qss1", 0) == 10.0);
    assert_true(kept("qss3", 0) == 15.0);
    assert_true(kept("bqss", 0) == 15.0);
    assert_true(kept("liqss2", 0) == 14.0);
    assert_true(kept("mliqss2", 0) == 13.0);
    assert_true(kept("mliqss2", 1) == 1.0);
    assert_non_null(integrator_by_name("bqss")->one_rank_why);
    assert_true(integrator_has(integrator_by_name("cvode"),
                               INTEGRATOR_GLOBAL_COUNTERS | INTEGRATOR_EVENTS_ON_EVERY_RANK));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(lookups),
    cmocka_unit_test(names),
    cmocka_unit_test(entries_agree),
};

int main(int argc, char **argv) {
    return QMOL_RUN_TESTS(argc, argv, tests);
}
