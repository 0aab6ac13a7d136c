/* mLIQSS's Jacobian estimates (eng_alloc_estimates): by row slot on grids
 * whose rows are shapes (adr2d, heat3d, and a rank's half of adr2d with
 * ghost columns), at the model's CSR positions elsewhere (a two-state
 * model, whose rows are no shapes, and rows as shapes of very unequal
 * length, where slots would cost more than a quarter over the CSR's
 * entries). Every row entry has a position of its
 * own inside the allocation, eng_diag_entry is the own column's, and a
 * window's journal puts back the estimates of the rows it saved, and only
 * those. */
#include "core/model.h"
#include "qss/qss_engine.h"
#include "qss/qss_journal.h"
#include "tests/support/test_support.h"

#include <stdlib.h>
#include <string.h>

static const qss_method no_fields = {.name = "estimates"};

typedef struct fixture {
    qmol_problem p;
    int64_t *gid; /* a rank's part: its states' global ids (outlive m) */
    model m;
    qss_engine e;
    qss_journal journal;
} fixture;

/* The engine of f->p with the records the journal logs, its shapes and its
 * estimates (n_owned: the rows of a rank's part, then n_cols - n_owned
 * ghosts; 0: the whole model). */
static void build(fixture *f, int32_t n_owned, int32_t n_cols) {
    f->gid = test_model(&f->m, &f->p, n_owned, n_cols);
    qss_engine *e = &f->e;
    e->m = &f->m;
    e->method = &no_fields;
    e->n = f->m.n;
    e->n_cols = f->m.n_cols;
    e->x = calloc((size_t)e->n_cols, sizeof *e->x);
    e->q = calloc((size_t)e->n_cols, sizeof *e->q);
    assert_non_null(e->x);
    assert_non_null(e->q);
    assert_int_equal(heap_init(&e->heap, e->n), 0);
    assert_in_range(row_shapes_build(&e->shapes, &f->m), 0, 1);
    assert_int_equal(eng_alloc_estimates(e), 0);
    assert_int_equal(journal_init(&f->journal, e), 0);
}

/* build() for a built-in problem. */
static void setup(fixture *f, const char *name, const char *const *sets, int nsets, int32_t n_owned,
                  int32_t n_cols) {
    memset(f, 0, sizeof *f);
    f->p = test_problem(name, sets, nsets);
    build(f, n_owned, n_cols);
}

static void teardown(fixture *f) {
    journal_free(&f->journal);
    free(f->e.entry);
    free(f->e.x);
    free(f->e.q);
    heap_free(&f->e.heap);
    row_shapes_free(&f->e.shapes);
    model_free(&f->m);
    free(f->gid);
    if (f->p.destroy) f->p.destroy(f->p.data);
}

/* Row j's entry k, as a value no other entry has. */
static double mark(int32_t j, int k) {
    return 1000.0 * j + k + 1.0;
}

/* The layout (stride expected: by slot, or 0: the CSR's positions), then a
 * journal's save and restore of every third row. */
static void check_layout(fixture *f, int32_t stride) {
    qss_engine *e = &f->e;
    const model *m = &f->m;
    assert_int_equal(e->entry_stride, stride);
    int64_t len = stride ? (int64_t)e->n * stride : m->nnz;
    char *taken = calloc((size_t)len, 1);
    for (int32_t j = 0; j < e->n; j++) {
        for (int k = 0; k < model_row_length(m, j); k++) {
            int64_t pos = eng_entry_pos(e, j, k);
            assert_in_range(pos, 0, len - 1);
            assert_false(taken[pos]);
            taken[pos] = 1;
            e->entry[pos] = mark(j, k);
        }
        int64_t diag = m->diag_entry[j];
        assert_int_equal(eng_diag_entry(e, j),
                         diag < 0 ? -1 : eng_entry_pos(e, j, (int)(diag - m->row_ptr[j])));
    }
    free(taken);
    journal_begin(e);
    for (int32_t j = 0; j < e->n; j += 3)
        journal_touch(e, j);
    for (int32_t j = 0; j < e->n; j++)
        for (int k = 0; k < model_row_length(m, j); k++)
            e->entry[eng_entry_pos(e, j, k)] = -1.0;
    assert_int_equal(journal_restore(e), 0);
    for (int32_t j = 0; j < e->n; j++)
        for (int k = 0; k < model_row_length(m, j); k++)
            assert_true(e->entry[eng_entry_pos(e, j, k)] == (j % 3 == 0 ? mark(j, k) : -1.0));
}

static void grids_by_slot(void **state) {
    (void)state;
    fixture f;
    const char *a2[] = {"nx=9", "ny=7"};
    setup(&f, "adr2d", a2, 2, 0, 0);
    check_layout(&f, 5);
    teardown(&f);
    const char *h3[] = {"nx=5", "ny=4", "nz=6"};
    setup(&f, "heat3d", h3, 3, 0, 0);
    check_layout(&f, 7);
    teardown(&f);
    /* rows 0 .. 31 of adr2d 9 x 7 and the ghosts 32 .. 40 they read */
    setup(&f, "adr2d", a2, 2, 32, 41);
    check_layout(&f, 5);
    teardown(&f);
}

static void tiny_model_by_csr(void **state) {
    (void)state;
    fixture f;
    setup(&f, "relax", NULL, 0, 0, 0);
    assert_null(f.e.shapes.row);
    check_layout(&f, 0);
    teardown(&f);
}

/* Row i reads i and the next state, and every eighth row the next five
 * (up to the last state): a mean row of 2.5 against a longest of 6. */
static int spikes_size(const void *d, int64_t i) {
    int64_t n = *(const int64_t *)d, len = i % 8 == 0 ? 6 : 2;
    return (int)(i + len <= n ? len : n - i);
}
static void spikes_row(const void *d, int64_t i, int64_t *cols) {
    for (int k = 0; k < spikes_size(d, i); k++)
        cols[k] = i + k;
}
static double spikes_rhs(const void *d, int64_t i, double t, const double *v) {
    (void)t;
    return spikes_size(d, i) > 1 ? v[1] - v[0] : -v[0];
}
static double spikes_x0(const void *d, int64_t i) {
    (void)d;
    return (double)i;
}

static void unequal_rows_by_csr(void **state) {
    (void)state;
    static int64_t n = 4000;
    fixture f;
    memset(&f, 0, sizeof f);
    f.p = (qmol_problem){.n = n,
                         .t0 = 0.0,
                         .tf = 1.0,
                         .data = &n,
                         .row_size = spikes_size,
                         .row = spikes_row,
                         .rhs = spikes_rhs,
                         .x0 = spikes_x0,
                         .components = 1};
    build(&f, 0, 0);
    assert_non_null(f.e.shapes.row);
    check_layout(&f, 0);
    teardown(&f);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(grids_by_slot),
    cmocka_unit_test(tiny_model_by_csr),
    cmocka_unit_test(unequal_rows_by_csr),
};

int main(int argc, char **argv) {
    return QMOL_RUN_TESTS(argc, argv, tests);
}
