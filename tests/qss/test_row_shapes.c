/* Rows and dependents lists as shapes (src/qss/row_shapes.c): every row's
 * columns and every state's dependents, read through the shapes, are the
 * model's CSR entry for entry, on one rank and with ghost columns; grids
 * have a handful of shapes; graphs whose shapes do not repeat, hubs and
 * tiny models get none (the CSR serves). */
#include "core/model.h"
#include "qss/row_shapes.h"
#include "tests/support/test_support.h"

/* Each of the n lists (ids[j]) read through s equals list j of the CSR
 * (ptr, idx), in order. */
static void check_lists(const row_shapes *s, const uint16_t *ids, const int64_t *ptr,
                        const int32_t *idx, int32_t n) {
    for (int32_t j = 0; j < n; j++) {
        int len = -1;
        const int32_t *off = row_shapes_list(s, ids[j], &len);
        assert_int_equal(len, ptr[j + 1] - ptr[j]);
        for (int k = 0; k < len; k++)
            assert_int_equal(j + off[k], idx[ptr[j] + k]);
    }
}

/* The rows and the dependents lists match the CSR's, and each row's own
 * entry is the model's diagonal. */
static void check_shapes_match(const model *m, const row_shapes *s) {
    check_lists(s, s->row, m->row_ptr, m->row_col, m->n);
    check_lists(s, s->deps, m->dep_ptr, m->dep_row, m->n_cols);
    for (int32_t j = 0; j < m->n; j++) {
        int64_t diag = m->diag_entry[j];
        assert_int_equal(row_shape_own(s, j), diag >= 0 ? diag - m->row_ptr[j] : -1);
    }
}

/* Builds the shapes of m: 0 (and they match the CSR) or 1 (none kept). */
static int shapes_of(const model *m, int32_t *nshapes) {
    row_shapes s;
    int rc = row_shapes_build(&s, m);
    assert_in_range(rc, 0, 1);
    if (rc == 0) check_shapes_match(m, &s);
    if (rc == 1) assert_null(s.row);
    *nshapes = s.nshapes;
    row_shapes_free(&s);
    return rc;
}

/* The shapes of problem p's model (destroyed after), as shapes_of. */
static int problem_shapes(qmol_problem *p, int32_t *nshapes) {
    model m;
    char err[256] = "";
    assert_int_equal(model_build(&m, p, err, sizeof err), 0);
    int rc = shapes_of(&m, nshapes);
    model_free(&m);
    if (p->destroy) p->destroy(p->data);
    return rc;
}

static void grid_shapes(const char *name, const char *const *sets, int nsets, int most_shapes) {
    qmol_problem p = test_problem(name, sets, nsets);
    int32_t nshapes = 0;
    assert_int_equal(problem_shapes(&p, &nshapes), 0);
    assert_true(nshapes >= 1);
    assert_true(nshapes <= most_shapes);
}

/* adr2d: interior, 4 edges, 4 corners for the rows (its dependents lists,
 * in ascending order as its rows, have the same offsets: one id each);
 * heat3d: 27 for the rows and 27 for the dependents (its rows list the
 * node first); adr1d: 3. */
static void grids_have_few_shapes(void **state) {
    (void)state;
    const char *a2[] = {"nx=9", "ny=7"};
    grid_shapes("adr2d", a2, 2, 9);
    const char *h3[] = {"nx=5", "ny=4", "nz=6"};
    grid_shapes("heat3d", h3, 3, 54);
    const char *a1[] = {"N=50"};
    grid_shapes("adr1d", a1, 1, 3);
}

/* A rank's half of adr2d 9 x 7: rows 0 .. 31 and the ghosts 32 .. 40 they
 * read; the ghosts' dependents lists too. */
static void ghost_columns_match(void **state) {
    (void)state;
    const char *a2[] = {"nx=9", "ny=7"};
    qmol_problem p = test_problem("adr2d", a2, 2);
    int64_t gid[41];
    for (int j = 0; j < 41; j++)
        gid[j] = j;
    model m;
    char err[256] = "";
    assert_int_equal(model_build_local(&m, &p, gid, 32, 41, err, sizeof err), 0);
    assert_int_equal(m.n_cols, 41);
    int32_t nshapes = 0;
    assert_int_equal(shapes_of(&m, &nshapes), 0);
    model_free(&m);
    if (p.destroy) p.destroy(p.data);
}

/* Tiny or irregular: the thesis's two-state examples, buck-heatsink. */
static void small_irregular_models(void **state) {
    (void)state;
    const char *names[] = {"buck-heatsink", "relax"};
    for (int k = 0; k < 2; k++) {
        qmol_problem p = test_problem(names[k], NULL, 0);
        int32_t nshapes = 0;
        problem_shapes(&p, &nshapes); /* either way, matching when kept */
    }
}

/* Row i reads i and one more state: far away, with offsets that no other
 * row repeats (mode 0), one that a few rows share (mode 1), or state 0 (a
 * hub read by every row, mode 2); or nothing (row 0, mode 3: an empty
 * first row); or only the far state of mode 0 (mode 4: one offset a row,
 * few of them repeated). */
typedef struct scatter {
    int64_t n;
    int mode;
} scatter;
static int scatter_size(const void *d, int64_t i) {
    const scatter *s = d;
    return s->mode == 4 ? 1 : s->mode == 3 && i == 0 ? 0 : 2;
}
static int64_t far_from(int64_t i, int64_t n) {
    return (i * i * 7919 + 13) % n;
}
static void scatter_row(const void *d, int64_t i, int64_t *cols) {
    const scatter *s = d;
    int64_t n = s->n;
    if (s->mode == 4) {
        cols[0] = far_from(i, n);
        return;
    }
    cols[0] = i;
    if (s->mode == 0) cols[1] = far_from(i, n);
    if (s->mode == 1 || s->mode == 3) cols[1] = (i + 1 + i % 5) % n;
    if (s->mode == 2) cols[1] = 0;
    if (cols[1] == i) cols[1] = (i + 1) % n;
}
static double scatter_rhs(const void *d, int64_t i, double t, const double *v) {
    const scatter *s = d;
    (void)t;
    if (s->mode == 4) return -v[0];
    return s->mode == 3 && i == 0 ? 0.0 : v[1] - v[0];
}
static double scatter_x0(const void *d, int64_t i) {
    (void)d;
    return (double)i;
}

static int scatter_shapes(int64_t n, int mode, int32_t *nshapes) {
    scatter sc = {n, mode};
    qmol_problem p = {.n = n,
                      .t0 = 0.0,
                      .tf = 1.0,
                      .data = &sc,
                      .row_size = scatter_size,
                      .row = scatter_row,
                      .rhs = scatter_rhs,
                      .x0 = scatter_x0,
                      .components = 1};
    return problem_shapes(&p, nshapes);
}

static void irregular_rows_keep_the_csr(void **state) {
    (void)state;
    int32_t nshapes = 0;
    assert_int_equal(scatter_shapes(20000, 0, &nshapes), 1); /* offsets outgrow the CSR */
    assert_int_equal(scatter_shapes(20000, 2, &nshapes), 1); /* a hub: 20000 readers */
    assert_int_equal(scatter_shapes(20000, 1, &nshapes), 0); /* a few shapes: kept */
    assert_true(nshapes <= 20);
    assert_int_equal(scatter_shapes(20000, 3, &nshapes), 0); /* an empty first row */
}

/* More than ROW_SHAPES_MOST shapes within the offsets' budget (a quarter
 * of 2 x 300,000 entries): 300,000 rows of one offset each, far apart. */
static void too_many_shapes_keep_the_csr(void **state) {
    (void)state;
    int32_t nshapes = 0;
    assert_int_equal(scatter_shapes(300000, 4, &nshapes), 1);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(grids_have_few_shapes),
        cmocka_unit_test(ghost_columns_match),
        cmocka_unit_test(small_irregular_models),
        cmocka_unit_test(irregular_rows_keep_the_csr),
        cmocka_unit_test(too_many_shapes_keep_the_csr),
    };
    return QMOL_RUN_TESTS(argc, argv, tests);
}
