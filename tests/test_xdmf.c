/* The XDMF sidecar's text for a two-component 2D grid (no built-in problem
 * has several components; tests/check_xdmf.py covers real runs), its path,
 * and a failed write that leaves nothing behind. */
#include "test_support.h"
#include "xdmf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *slurp(const char *path) {
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *buf = calloc(1 << 16, 1);
    assert_non_null(buf);
    size_t got = fread(buf, 1, (1 << 16) - 1, f);
    assert_true(got > 0);
    fclose(f);
    return buf;
}

static void two_components(void **state) {
    (void)state;
    qmol_problem p = {.n = 12,
                      .ndims = 2,
                      .dims = {3, 2},
                      .origin = {0.5, -1.0},
                      .spacing = {0.25, 2.0},
                      .components = 2};
    char dir[] = "/tmp/qmol-xdmf-XXXXXX", h5[256], err[256];
    assert_non_null(mkdtemp(dir));
    snprintf(h5, sizeof h5, "%s/two.h5", dir);
    assert_int_equal(xdmf_write(h5, &p, 0.0, 1.0, 2, err, sizeof err), 0);
    char *xmf = xdmf_path(h5), *text = slurp(xmf);
    /* mesh z y x = 1 2 3; origin and spacing reversed, padded */
    assert_non_null(strstr(text, "Dimensions=\"1 2 3\""));
    assert_non_null(strstr(text, ">0 -1 0.5</DataItem>"));
    assert_non_null(strstr(text, ">1 2 0.25</DataItem>"));
    assert_non_null(strstr(text, "<Time Value=\"0.5\"/>"));
    assert_non_null(strstr(text, "<Time Value=\"1\"/>"));
    assert_non_null(strstr(text, "Name=\"u0\""));
    assert_non_null(strstr(text, "Name=\"u1\""));
    /* sample 2, component 1: start (1, 1), stride (1, 2), count (1, 6) */
    assert_non_null(strstr(text, ">1 1 1 2 1 6</DataItem>"));
    assert_non_null(strstr(text, "Dimensions=\"2 12\""));
    assert_non_null(strstr(text, ">two.h5:/states</DataItem>"));
    assert_null(strstr(text, "Name=\"u\""));
    free(text);
    assert_int_equal(unlink(xmf), 0);
    free(xmf);
    assert_int_equal(rmdir(dir), 0);
}

static void paths(void **state) {
    (void)state;
    char *a = xdmf_path("out/run.h5"), *b = xdmf_path("run.hdf5"), *c = xdmf_path("h5");
    assert_string_equal(a, "out/run.xmf");
    assert_string_equal(b, "run.hdf5.xmf");
    assert_string_equal(c, "h5.xmf");
    free(a), free(b), free(c);
}

static void unwritable(void **state) {
    (void)state;
    qmol_problem p = {.n = 4, .ndims = 1, .dims = {4}, .spacing = {1.0}, .components = 1};
    char err[256] = "";
    assert_int_equal(xdmf_write("/nonexistent-dir/x.h5", &p, 0.0, 1.0, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent-dir/x.xmf"));
    assert_int_equal(access("/nonexistent-dir/x.xmf.partial", F_OK), -1);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(two_components),
    cmocka_unit_test(paths),
    cmocka_unit_test(unwritable),
};

int main(int argc, char **argv) {
    return QMOL_RUN_TESTS(argc, argv, tests);
}
