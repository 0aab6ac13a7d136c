/* Rows and dependents lists as shapes (src/qss/row_shapes.c): every row's
 * columns and every state's dependents, read through the shapes, are the
 * model's CSR entry for entry; grids have a handful of shapes; a graph
 * without repeating shapes gets none (the CSR serves). */
#include "core/model.h"
#include "qss/row_shapes.h"
#include "tests/support/test_support.h"

#include <stdlib.h>
#include <string.h>

/* Every list read through s equals the CSR's, in order, and the own entry
 * is the model's diagonal. */
static void check_shapes_match(const model *m, const row_shapes *s) {
    for (int32_t j = 0; j < m->n; j++) {
        int len = -1;
        const int32_t *off = row_shape_of(s, j, &len);
        assert_int_equal(len, m->row_ptr[j + 1] - m->row_ptr[j]);
        for (int k = 0; k < len; k++)
            assert_int_equal(j + off[k], m->row_col[m->row_ptr[j] + k]);
        int64_t diag = m->diag_entry[j];
        assert_int_equal(row_shape_own(s, j), diag >= 0 ? diag - m->row_ptr[j] : -1);
    }
    for (int32_t i = 0; i < m->n_cols; i++) {
        int len = -1;
        const int32_t *off = deps_shape_of(s, i, &len);
        assert_int_equal(len, m->dep_ptr[i + 1] - m->dep_ptr[i]);
        for (int k = 0; k < len; k++)
            assert_int_equal(i + off[k], m->dep_row[m->dep_ptr[i] + k]);
    }
}

static void grid_shapes(const char *name, const char *const *sets, int nsets, int most_shapes) {
    qmol_problem p = test_problem(name, sets, nsets);
    model m;
    char err[256] = "";
    assert_int_equal(model_build(&m, &p, err, sizeof err), 0);
    row_shapes s;
    assert_int_equal(row_shapes_build(&s, &m), 0);
    check_shapes_match(&m, &s);
    assert_true(s.nshapes >= 1);
    assert_true(s.nshapes <= most_shapes);
    row_shapes_free(&s);
    model_free(&m);
    if (p.destroy) p.destroy(p.data);
}

/* adr2d: interior, 4 edges, 4 corners for the rows, as many for the
 * dependents (the same offsets: the stencil is symmetric); heat3d: 27 of
 * each at most; adr1d: 3 and 3. */
static void grids_have_few_shapes(void **state) {
    (void)state;
    const char *a2[] = {"nx=9", "ny=7"};
    grid_shapes("adr2d", a2, 2, 18);
    const char *h3[] = {"nx=5", "ny=4", "nz=6"};
    grid_shapes("heat3d", h3, 3, 54);
    const char *a1[] = {"N=50"};
    grid_shapes("adr1d", a1, 1, 6);
    grid_shapes("buck-heatsink", NULL, 0, 1000000);
}

/* Row i reads i and a state far away that no other row's offset repeats:
 * every shape is new, and the table would outgrow the CSR. */
static int scatter_size(const void *d, int64_t i) {
    (void)d, (void)i;
    return 2;
}
static void scatter_row(const void *d, int64_t i, int64_t *cols) {
    int64_t n = *(const int64_t *)d;
    cols[0] = i;
    cols[1] = (i * i * 7919 + 13) % n;
    if (cols[1] == i) cols[1] = (i + 1) % n;
}
static double scatter_rhs(const void *d, int64_t i, double t, const double *v) {
    (void)d, (void)i, (void)t;
    return v[1] - v[0];
}
static double scatter_x0(const void *d, int64_t i) {
    (void)d;
    return (double)i;
}

static void scattered_rows_keep_the_csr(void **state) {
    (void)state;
    int64_t n = 20000;
    qmol_problem p = {.n = n,
                      .t0 = 0.0,
                      .tf = 1.0,
                      .data = &n,
                      .row_size = scatter_size,
                      .row = scatter_row,
                      .rhs = scatter_rhs,
                      .x0 = scatter_x0,
                      .components = 1};
    model m;
    char err[256] = "";
    assert_int_equal(model_build(&m, &p, err, sizeof err), 0);
    row_shapes s;
    assert_int_equal(row_shapes_build(&s, &m), 1);
    assert_null(s.row);
    assert_null(s.deps);
    model_free(&m);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(grids_have_few_shapes),
        cmocka_unit_test(scattered_rows_keep_the_csr),
    };
    return QMOL_RUN_TESTS(argc, argv, tests);
}
