/* The method log (--method auto's switches): segments in order, one that
 * starts where the last started replaces it, the moving block's moves
 * counted in its own segment, and the summary's table. */
#include "core/integrator_registry.h"
#include "core/method_log.h"
#include "tests/support/test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The summary's lines of l, in a buffer the caller frees. */
static char *printed(const method_log *l) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    method_log_print(l, f);
    fclose(f);
    return text;
}

static void moves_counted_in_their_segment(void **state) {
    (void)state;
    const integrator_def *cvode = integrator_by_name("cvode");
    const integrator_def *moving = integrator_by_name("moving");
    const integrator_def *liqss2 = integrator_by_name("liqss2");
    method_log l;
    memset(&l, 0, sizeof l);
    l.n = 100;
    assert_int_equal(method_log_add(&l, 0.0, cvode, 100), 0);
    assert_int_equal(method_log_add(&l, 1.0, moving, -1), 0);
    method_log_moves(&l, moving, 30, 10);
    method_log_moves(&l, moving, 5, 20); /* (a kept probe's, then the run's) */
    assert_int_equal(method_log_add(&l, 2.0, cvode, 100), 0);
    /* the moving segment ran on beside the CVODE probe that went on */
    method_log_moves(&l, moving, 1, 2);
    assert_int_equal(method_log_add(&l, 3.0, moving, -1), 0);
    method_log_moves(&l, moving, 7, 0);
    method_log_moves(&l, liqss2, 9, 9); /* (no liqss2 segment: nothing) */
    assert_int_equal(l.count, 4);
    assert_int_equal(l.moved_in[1], 36);
    assert_int_equal(l.moved_out[1], 32);
    assert_int_equal(l.moved_in[2] + l.moved_out[2] + l.moved_in[0] + l.moved_out[0], 0);
    assert_int_equal(l.moved_in[3], 7);
    /* a segment from where the last started replaces it, moves and all */
    assert_int_equal(method_log_add(&l, 3.0, liqss2, 0), 0);
    assert_int_equal(l.count, 4);
    assert_int_equal(l.moved_in[3], 0);
    assert_int_equal(method_log_add(&l, 4.0, moving, -1), 0);
    char *text = printed(&l);
    assert_non_null(strstr(text, "t = 1            moving (its BDF states follow the activity: "
                                 "36 moved to BDF, 32 back to QSS)\n"));
    assert_non_null(strstr(text, "t = 4            moving (its BDF states follow the activity: "
                                 "0 moved to BDF, 0 back to QSS)\n"));
    assert_non_null(strstr(text, "t = 3            liqss2\n"));
    assert_non_null(strstr(text, "    5 segments;"));
    free(text);
    method_log_free(&l);
}

/* Past the first allocation (8 segments): every field keeps its values. */
static void grows(void **state) {
    (void)state;
    const integrator_def *moving = integrator_by_name("moving");
    method_log l;
    memset(&l, 0, sizeof l);
    l.n = 10;
    for (int k = 0; k < 40; k++) {
        assert_int_equal(method_log_add(&l, (double)k, moving, -1), 0);
        method_log_moves(&l, moving, (uint64_t)k, (uint64_t)(2 * k));
    }
    assert_int_equal(l.count, 40);
    for (int k = 0; k < 40; k++) {
        assert_true(l.t[k] == (double)k);
        assert_int_equal(l.moved_in[k], k);
        assert_int_equal(l.moved_out[k], 2 * k);
    }
    method_log_free(&l);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(moves_counted_in_their_segment),
    cmocka_unit_test(grows),
};

int main(int argc, char **argv) {
    return QMOL_RUN_TESTS(argc, argv, tests);
}
