/* The XDMF sidecar's text for a two-component 2D grid, whole and as a box
 * of one component (tests/check_xdmf.py covers real runs), its path, and a
 * failed write that leaves nothing behind. */
#include "tests/support/test_support.h"
#include "io/xdmf.h"

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
    int both[2] = {0, 1};
    h5out_grid g = {.ndims = 2,
                    .dims = {3, 2},
                    .origin = {0.5, -1.0},
                    .spacing = {0.25, 2.0},
                    .ncomponents = 2,
                    .component = both,
                    .columns = 12};
    double times[2] = {0.5, 1.0};
    assert_int_equal(xdmf_write(h5, &p, &g, times, 2, err, sizeof err), 0);
    char *xmf = xdmf_path(h5), *text = slurp(xmf);
    /* mesh z y x = 1 2 3; origin and spacing reversed, padded */
    assert_non_null(strstr(text, "Dimensions=\"1 2 3\""));
    assert_non_null(strstr(text, ">0 -1 0.5</DataItem>"));
    assert_non_null(strstr(text, ">1 2 0.25</DataItem>"));
    assert_non_null(strstr(text, "<Time Value=\"0.5\"/>"));
    assert_non_null(strstr(text, "<Time Value=\"1\"/>"));
    assert_non_null(strstr(text, "Name=\"u0\""));
    assert_non_null(strstr(text, "Name=\"u1\""));
    /* each sample's component: its own dataset /xdmf/NAME/k (1-based), of
     * the mesh's shape, typed; no hyperslab (Xdmf3 readers skip those) */
    assert_non_null(strstr(text, "<DataItem Dimensions=\"1 2 3\" NumberType=\"Float\" "
                                 "Precision=\"8\" Format=\"HDF\">two.h5:/xdmf/u0/1</DataItem>"));
    assert_non_null(strstr(text, ">two.h5:/xdmf/u1/1</DataItem>"));
    assert_non_null(strstr(text, ">two.h5:/xdmf/u0/2</DataItem>"));
    assert_non_null(strstr(text, ">two.h5:/xdmf/u1/2</DataItem>"));
    assert_null(strstr(text, "/xdmf/u0/3"));
    assert_null(strstr(text, "HyperSlab"));
    assert_null(strstr(text, "/states"));
    assert_null(strstr(text, "Name=\"u\""));
    free(text);

    /* named components; a box of 2 x 1 cells at (1, 1), component 1 only */
    const char *const names[2] = {"prey", "predator"};
    p.component_names = names;
    int second = 1;
    h5out_grid box = {.ndims = 2,
                      .first = {1, 1},
                      .dims = {2, 1},
                      .origin = {0.75, 1.0},
                      .spacing = {0.25, 2.0},
                      .ncomponents = 1,
                      .component = &second,
                      .columns = 2};
    double late[1] = {1.0};
    assert_int_equal(xdmf_write(h5, &p, &box, late, 1, err, sizeof err), 0);
    text = slurp(xmf);
    assert_non_null(strstr(text, "Dimensions=\"1 1 2\""));
    assert_non_null(strstr(text, ">0 1 0.75</DataItem>"));
    assert_non_null(strstr(text, "Name=\"predator\""));
    assert_null(strstr(text, "Name=\"prey\""));
    assert_non_null(strstr(text, "<DataItem Dimensions=\"1 1 2\" NumberType=\"Float\" "
                                 "Precision=\"8\" Format=\"HDF\">two.h5:/xdmf/predator/1<"));
    assert_null(strstr(text, "/xdmf/prey/"));
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
    int only = 0;
    h5out_grid g = {.ndims = 1,
                    .dims = {4},
                    .spacing = {1.0},
                    .ncomponents = 1,
                    .component = &only,
                    .columns = 4};
    double t[1] = {1.0};
    assert_int_equal(xdmf_write("/nonexistent-dir/x.h5", &p, &g, t, 1, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent-dir/x.xmf"));
    assert_int_equal(access("/nonexistent-dir/x.xmf.partial", F_OK), -1);
}

/* Component names: valid ones pass, each kind of bad one is refused with
 * its index; without names, u or u0, u1, ... */
static void component_names(void **state) {
    (void)state;
    char err[256], buf[32];
    qmol_problem p = {.n = 6, .ndims = 1, .dims = {3}, .components = 2};
    assert_int_equal(h5out_check_component_names(&p, err, sizeof err), 0);
    assert_string_equal(h5out_component_name(&p, 1, buf, sizeof buf), "u1");
    const char *const good[2] = {"T_gas", "rho2"};
    p.component_names = good;
    assert_int_equal(h5out_check_component_names(&p, err, sizeof err), 0);
    assert_string_equal(h5out_component_name(&p, 0, buf, sizeof buf), "T_gas");
    const char *const bad[][2] = {{"a", "a"}, {"a", "b/c"}, {"", "b"},   {"a", "2b"},
                                  {"x", "b"}, {"a", NULL},  {"a b", "c"}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        p.component_names = bad[k];
        assert_int_equal(h5out_check_component_names(&p, err, sizeof err), -1);
        assert_non_null(strstr(err, "component_names["));
    }
    qmol_problem one = {.n = 3, .ndims = 1, .dims = {3}, .components = 1};
    assert_string_equal(h5out_component_name(&one, 0, buf, sizeof buf), "u");
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(component_names),
    cmocka_unit_test(two_components),
    cmocka_unit_test(paths),
    cmocka_unit_test(unwritable),
};

int main(int argc, char **argv) {
    return QMOL_RUN_TESTS(argc, argv, tests);
}
