/* test_last_window.c: a checkpoint's content kept in memory (last_window.h)
 * comes back in the order and with the values it was recorded with. */
#include "checkpoint/last_window.h"
#include "tests/support/test_support.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* A replay target: what it received, as text, and the values. */
typedef struct {
    state_io io;
    char log[512];
    double got[64];
    int ngot;
    int fail_at; /* the call that returns -1 (1-based), 0: none */
    int calls;
    int32_t n;
} sink;

static int sink_note(sink *k, const char *what, const char *name, int64_t len, const double *v) {
    size_t used = strlen(k->log);
    snprintf(k->log + used, sizeof k->log - used, "%s %s %lld;", what, name, (long long)len);
    for (int64_t i = 0; v && i < len; i++)
        k->got[k->ngot++] = v[i];
    return ++k->calls == k->fail_at ? -1 : 0;
}

static int sink_field(state_io *io, const char *name, double *owned) {
    sink *k = (sink *)io;
    return sink_note(k, owned ? "field" : "zeros", name, owned ? k->n : 0, owned);
}

static int sink_vector(state_io *io, const char *name, int64_t len, double *values) {
    return sink_note((sink *)io, "vector", name, len, values);
}

static int sink_scalar(state_io *io, const char *name, double *value) {
    return sink_note((sink *)io, "scalar", name, 1, value);
}

static sink new_sink(int32_t n) {
    sink k;
    memset(&k, 0, sizeof k);
    k.io = (state_io){.field = sink_field, .vector = sink_vector, .scalar = sink_scalar};
    k.n = n;
    return k;
}

/* Records x = {1, 2, 3}, no activity, an integrator field, a vector of 2
 * and a scalar, with values offset by `shift`. */
static void record(last_window *w, double shift) {
    double x[3] = {1 + shift, 2 + shift, 3 + shift}, tx[3] = {4 + shift, 5 + shift, 6 + shift};
    double v[2] = {7 + shift, 8 + shift}, s = 9 + shift;
    last_window_begin(w);
    assert_int_equal(w->io.field(&w->io, "x", x), 0);
    assert_int_equal(w->io.field(&w->io, "activity", NULL), 0);
    assert_int_equal(w->io.field(&w->io, "integrator/tx", tx), 0);
    assert_int_equal(w->io.vector(&w->io, "integrator/crossing_sign", 2, v), 0);
    assert_int_equal(w->io.scalar(&w->io, "stats.events", &s), 0);
    x[0] = tx[0] = v[0] = s = -1.0; /* the record holds copies */
}

/* A record of 3 states made by record(w, 0) at window end 0.25, sample 4 next. */
static void recorded(last_window *w) {
    last_window_init(w, 3);
    record(w, 0.0);
    assert_int_equal(last_window_finish(w, 1, 0.25, 4), 0);
}

static const char *const LOG = "field x 3;zeros activity 0;field integrator/tx 3;"
                               "vector integrator/crossing_sign 2;scalar stats.events 1;";

static void replays_in_order(void **state) {
    (void)state;
    last_window w;
    last_window_init(&w, 3);
    assert_true(isnan(w.t));
    record(&w, 0.0);
    assert_int_equal(last_window_finish(&w, 1, 0.25, 4), 0);
    assert_true(w.t == 0.25);
    assert_int_equal(w.next_sample, 4);
    sink k = new_sink(3);
    assert_int_equal(last_window_replay(&w, &k.io), 0);
    assert_string_equal(k.log, LOG);
    assert_int_equal(k.ngot, 9);
    for (int i = 0; i < 9; i++)
        assert_true(k.got[i] == (double)(i + 1));
    last_window_free(&w);
}

static void a_new_record_replaces_the_last_in_the_same_buffers(void **state) {
    (void)state;
    last_window w;
    recorded(&w);
    const double *values = w.values;
    record(&w, 100.0);
    last_window_finish(&w, 1, 0.5, 5);
    assert_ptr_equal(w.values, values); /* no allocation for a record of the same size */
    sink k = new_sink(3);
    assert_int_equal(last_window_replay(&w, &k.io), 0);
    assert_string_equal(k.log, LOG);
    for (int i = 0; i < 9; i++)
        assert_true(k.got[i] == 101.0 + i);
    assert_true(w.t == 0.5);
    last_window_free(&w);
}

static void a_failed_record_leaves_none(void **state) {
    (void)state;
    last_window w;
    last_window_init(&w, 3);
    record(&w, 0.0);
    assert_int_equal(last_window_finish(&w, 0, 0.25, 4), -1);
    assert_true(isnan(w.t));
    /* a name too long to keep: the io call still returns 0 (collective steps
     * go on), the record is dropped at the end */
    last_window_begin(&w);
    char name[200];
    memset(name, 'a', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    double s = 1.0;
    assert_int_equal(w.io.scalar(&w.io, name, &s), 0);
    assert_non_null(w.io.why);
    assert_int_equal(last_window_finish(&w, 1, 0.5, 5), -1);
    assert_true(isnan(w.t));
    last_window_free(&w);
}

static void a_nan_drops_the_record(void **state) {
    (void)state;
    last_window w;
    last_window_init(&w, 3);
    double x[3] = {1.0, NAN, 3.0}, s = 2.0;
    last_window_begin(&w);
    assert_int_equal(w.io.field(&w.io, "x", x), 0); /* the collective steps go on */
    assert_int_equal(w.io.scalar(&w.io, "stats.events", &s), 0);
    assert_non_null(w.io.why);
    assert_int_equal(last_window_finish(&w, 1, 0.25, 4), -1);
    assert_true(isnan(w.t));
    double inf = INFINITY; /* an infinite next event time is a state, not a failure */
    last_window_begin(&w);
    assert_int_equal(w.io.scalar(&w.io, "integrator/next", &inf), 0);
    assert_int_equal(last_window_finish(&w, 1, 0.5, 5), 0);
    last_window_free(&w);
}

static void a_reservation_holds_records_without_growing(void **state) {
    (void)state;
    last_window w;
    last_window_init(&w, 3);
    assert_int_equal(last_window_reserve(&w, 12), 0);
    const double *values = w.values;
    for (int k = 0; k < 3; k++) {
        record(&w, k);
        assert_int_equal(last_window_finish(&w, 1, k, 1), 0);
        assert_ptr_equal(w.values, values); /* 12 >= 3 + 3 + 2 + 1 values */
    }
    assert_int_equal(last_window_reserve(&w, SIZE_MAX), -1); /* too large: refused */
    last_window_free(&w);
}

static void replay_stops_at_the_first_failure(void **state) {
    (void)state;
    last_window w;
    recorded(&w);
    sink k = new_sink(3);
    k.fail_at = 3;
    assert_int_equal(last_window_replay(&w, &k.io), -1);
    assert_int_equal(k.calls, 3);
    last_window_free(&w);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(replays_in_order),
        cmocka_unit_test(a_new_record_replaces_the_last_in_the_same_buffers),
        cmocka_unit_test(a_failed_record_leaves_none),
        cmocka_unit_test(a_nan_drops_the_record),
        cmocka_unit_test(a_reservation_holds_records_without_growing),
        cmocka_unit_test(replay_stops_at_the_first_failure),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
