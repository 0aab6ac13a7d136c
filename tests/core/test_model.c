/* The dependency graph (src/core/model.c) of rows that list a state more than
 * once: each state one entry and one dependent, the problem's rhs and jac
 * given the row as listed, its Jacobian entries of a repeated state summed. */
#include "core/model.h"
#include "tests/support/test_support.h"

#include <stdlib.h>
#include <string.h>

/* u' = L u on n cells with reflecting ends: row 0 lists (1, 0, 1), row n-1
 * (n-2, n-1, n-2), the others (i-1, i, i+1); row `triple` (if >= 0) lists
 * its own state three times (f = v0 v1 v2). rhs records what it was given. */
typedef struct reflect {
    int64_t n, triple;
    int64_t last_row;
    double last_vals[8];
    int last_len;
} reflect;

static int r_size(const void *d, int64_t i) {
    (void)d, (void)i;
    return 3;
}

static void r_row(const void *d, int64_t i, int64_t *cols) {
    const reflect *r = d;
    int64_t n = r->n;
    if (i == r->triple) {
        cols[0] = cols[1] = cols[2] = i;
    } else if (i == 0) {
        cols[0] = 1, cols[1] = 0, cols[2] = 1;
    } else if (i == n - 1) {
        cols[0] = n - 2, cols[1] = n - 1, cols[2] = n - 2;
    } else {
        cols[0] = i - 1, cols[1] = i, cols[2] = i + 1;
    }
}

static double r_rhs(const void *d, int64_t i, double t, const double *v) {
    (void)t;
    reflect *r = (reflect *)d; /* test bookkeeping only */
    r->last_row = i;
    r->last_len = 3;
    memcpy(r->last_vals, v, 3 * sizeof *v);
    if (i == r->triple) return v[0] * v[1] * v[2];
    return v[0] - 2.0 * v[1] + v[2];
}

/* d f / d v_k per listed position (what a plugin writes). */
static void r_jac(const void *d, int64_t i, double t, const double *v, double *dfdv) {
    (void)t;
    const reflect *r = d;
    if (i == r->triple) {
        dfdv[0] = v[1] * v[2], dfdv[1] = v[0] * v[2], dfdv[2] = v[0] * v[1];
        return;
    }
    dfdv[0] = 1.0, dfdv[1] = -2.0, dfdv[2] = 1.0;
}

/* rhs_jac: f and its row in one call, counted (it returns what rhs and jac
 * give, plus 100 on f, so that the test sees which path ran). */
static int fused_calls;
static double r_rhs_jac(const void *d, int64_t i, double t, const double *v, double *dfdv) {
    fused_calls++;
    r_jac(d, i, t, v, dfdv);
    return r_rhs(d, i, t, v) + 100.0;
}

static double r_x0(const void *d, int64_t i) {
    (void)d;
    return (double)i;
}

static qmol_problem reflect_problem(reflect *r, int64_t n, int64_t triple) {
    memset(r, 0, sizeof *r);
    r->n = n;
    r->triple = triple;
    return (qmol_problem){.n = n,
                          .t0 = 0.0,
                          .tf = 1.0,
                          .data = r,
                          .row_size = r_size,
                          .row = r_row,
                          .rhs = r_rhs,
                          .jac = r_jac,
                          .x0 = r_x0,
                          .components = 1};
}

/* Row j's columns as global ids. */
static void row_ids(const model *m, int32_t j, int64_t *ids, int *len) {
    *len = model_row_length(m, j);
    for (int k = 0; k < *len; k++)
        ids[k] = model_gid(m, m->row_col[m->row_ptr[j] + k]);
}

static void repeated_states_are_one_entry(void **state) {
    (void)state;
    reflect r;
    qmol_problem p = reflect_problem(&r, 5, 2);
    model m;
    char err[256] = "";
    assert_int_equal(model_build(&m, &p, err, sizeof err), 0);
    /* rows 0 and 4: two entries in first-listing order; row 2: one */
    int64_t ids[8];
    int len;
    row_ids(&m, 0, ids, &len);
    assert_int_equal(len, 2);
    assert_int_equal(ids[0], 1);
    assert_int_equal(ids[1], 0);
    row_ids(&m, 2, ids, &len);
    assert_int_equal(len, 1);
    assert_int_equal(ids[0], 2);
    row_ids(&m, 4, ids, &len);
    assert_int_equal(len, 2);
    assert_int_equal(ids[0], 3);
    assert_int_equal(ids[1], 4);
    assert_int_equal(m.nnz, 2 + 3 + 1 + 3 + 2);
    assert_int_equal(m.max_row, 3);
    assert_int_equal(m.max_list, 3);
    for (int32_t j = 0; j < 5; j++)
        assert_int_equal(model_gid(&m, m.row_col[m.diag_entry[j]]), j);
    /* the listing: rows 0, 2 and 4 only */
    assert_non_null(m.list_ptr);
    int64_t listed[] = {3, 0, 3, 0, 3};
    for (int32_t j = 0; j < 5; j++)
        assert_int_equal(m.list_ptr[j + 1] - m.list_ptr[j], listed[j]);
    assert_int_equal(model_scratch_size(&m), 6);
    /* each reader once among a state's dependents, with its entry */
    for (int32_t i = 0; i < 5; i++)
        for (int64_t d = m.dep_ptr[i]; d < m.dep_ptr[i + 1]; d++) {
            assert_int_equal(m.row_col[m.dep_entry[d]], i);
            for (int64_t e = m.dep_ptr[i]; e < d; e++)
                assert_int_not_equal(m.dep_row[e], m.dep_row[d]);
        }
    assert_int_equal(m.dep_ptr[1] - m.dep_ptr[0], 2); /* rows 0 and 1 */
    assert_int_equal(m.dep_ptr[2] - m.dep_ptr[1], 2); /* rows 0 and 1 (row 2 reads only 2) */
    model_free(&m);
}

static void rhs_gets_the_listing(void **state) {
    (void)state;
    reflect r;
    qmol_problem p = reflect_problem(&r, 5, 2);
    model m;
    char err[256] = "";
    assert_int_equal(model_build(&m, &p, err, sizeof err), 0);
    double scratch[8], vals[3], dfdv[3];
    /* row 0: entries (u1, u0) = (10, 3): listed (10, 3, 10) */
    vals[0] = 10.0, vals[1] = 3.0;
    assert_true(model_rhs(&m, 0, 0.0, vals, scratch) == 10.0 - 6.0 + 10.0);
    assert_int_equal(r.last_row, 0);
    assert_true(r.last_vals[0] == 10.0 && r.last_vals[1] == 3.0 && r.last_vals[2] == 10.0);
    model_jac(&m, 0, 0.0, vals, dfdv, scratch);
    assert_true(dfdv[0] == 2.0 && dfdv[1] == -2.0); /* d/du1 summed, d/du0 */
    /* row 2 lists its state three times: f = u^3, f' = 3 u^2 */
    vals[0] = 2.0;
    assert_true(model_rhs(&m, 2, 0.0, vals, scratch) == 8.0);
    assert_true(r.last_vals[0] == 2.0 && r.last_vals[1] == 2.0 && r.last_vals[2] == 2.0);
    model_jac(&m, 2, 0.0, vals, dfdv, scratch);
    assert_true(dfdv[0] == 12.0);
    /* an interior row is passed through as is */
    vals[0] = 1.0, vals[1] = 2.0, vals[2] = 4.0;
    assert_true(model_rhs(&m, 1, 0.0, vals, scratch) == 1.0);
    assert_true(r.last_vals[0] == 1.0 && r.last_vals[1] == 2.0 && r.last_vals[2] == 4.0);
    model_free(&m);
}

/* model_rhs_jac: the problem's fused call on a row given as listed, and
 * rhs then jac (with the listing spread and the repeats summed) on a row
 * that repeats a state. */
static void fused_call_where_the_row_is_as_listed(void **state) {
    (void)state;
    reflect r;
    qmol_problem p = reflect_problem(&r, 5, 2);
    p.rhs_jac = r_rhs_jac;
    model m;
    char err[256] = "";
    assert_int_equal(model_build(&m, &p, err, sizeof err), 0);
    double scratch[8], vals[3] = {1.0, 2.0, 4.0}, dfdv[3];
    fused_calls = 0;
    assert_true(model_rhs_jac(&m, 1, 0.0, vals, dfdv, scratch) == 1.0 + 100.0);
    assert_int_equal(fused_calls, 1);
    assert_true(dfdv[0] == 1.0 && dfdv[1] == -2.0 && dfdv[2] == 1.0);
    /* row 0 lists (u1, u0, u1): rhs and jac see the listing */
    vals[0] = 10.0, vals[1] = 3.0;
    assert_true(model_rhs_jac(&m, 0, 0.0, vals, dfdv, scratch) == 10.0 - 6.0 + 10.0);
    assert_int_equal(fused_calls, 1);
    assert_true(dfdv[0] == 2.0 && dfdv[1] == -2.0);
    /* without the fused call: rhs, then jac */
    p.rhs_jac = NULL;
    vals[0] = 1.0, vals[1] = 2.0, vals[2] = 4.0;
    assert_true(model_rhs_jac(&m, 1, 0.0, vals, dfdv, scratch) == 1.0);
    assert_int_equal(fused_calls, 1);
    model_free(&m);
}

/* Rows without repeats: no listing, no scratch. Two cells list (1, 0, 1)
 * and (0, 1, 0): three positions on n = 2 states. */
static void longer_than_n_and_no_repeats(void **state) {
    (void)state;
    reflect r;
    qmol_problem p = reflect_problem(&r, 2, -1);
    model m;
    char err[256] = "";
    assert_int_equal(model_build(&m, &p, err, sizeof err), 0);
    assert_int_equal(m.nnz, 4);
    assert_int_equal(m.max_list, 3);
    model_free(&m);
    const char *sets[] = {"N=10"};
    qmol_problem h = test_problem("heat1d", sets, 1);
    assert_int_equal(model_build(&m, &h, err, sizeof err), 0);
    assert_null(m.list_ptr);
    assert_null(m.list_pos);
    assert_int_equal(model_scratch_size(&m), 0);
    model_free(&m);
    if (h.destroy) h.destroy(h.data);
}

/* A local model (owned 2, 3; ghosts 4, 1 in that local order): the listing
 * refers to local entries. */
static void local_rows_keep_the_listing(void **state) {
    (void)state;
    reflect r;
    qmol_problem p = reflect_problem(&r, 5, -1);
    int64_t gid[] = {2, 3, 4, 1};
    model m;
    char err[256] = "";
    assert_int_equal(model_build_local(&m, &p, gid, 2, 4, err, sizeof err), 0);
    assert_int_equal(m.nnz, 6);
    assert_null(m.list_ptr);
    model_free(&m);
    int64_t gid4[] = {3, 4, 2};
    assert_int_equal(model_build_local(&m, &p, gid4, 2, 3, err, sizeof err), 0);
    /* row 4 (local 1) lists (3, 4, 3): entries local 0, 1 */
    assert_int_equal(m.row_ptr[2] - m.row_ptr[1], 2);
    assert_non_null(m.list_ptr);
    assert_int_equal(m.list_ptr[1] - m.list_ptr[0], 0);
    double vals[2] = {7.0, 5.0}, scratch[8], dfdv[2];
    assert_true(model_rhs(&m, 1, 0.0, vals, scratch) == 7.0 - 10.0 + 7.0);
    assert_int_equal(r.last_row, 4);
    assert_true(r.last_vals[0] == 7.0 && r.last_vals[2] == 7.0);
    model_jac(&m, 1, 0.0, vals, dfdv, scratch);
    assert_true(dfdv[0] == 2.0 && dfdv[1] == -2.0);
    model_free(&m);
}

static int bad_size(const void *d, int64_t i) {
    (void)d;
    return i == 1 ? -1 : 3;
}

static void bad_rows_refused(void **state) {
    (void)state;
    reflect r;
    qmol_problem p = reflect_problem(&r, 4, -1);
    model m;
    char err[256] = "";
    p.row_size = bad_size;
    assert_int_equal(model_build(&m, &p, err, sizeof err), -1);
    assert_string_equal(err, "problem row 1 has negative size -1");
    p = reflect_problem(&r, 4, -1);
    p.n = 3; /* row 2 now reads state 3 */
    assert_int_equal(model_build(&m, &p, err, sizeof err), -1);
    assert_non_null(strstr(err, "problem row 2 reads state 3, outside [0, 3)"));
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(repeated_states_are_one_entry),
        cmocka_unit_test(rhs_gets_the_listing),
        cmocka_unit_test(fused_call_where_the_row_is_as_listed),
        cmocka_unit_test(longer_than_n_and_no_repeats),
        cmocka_unit_test(local_rows_keep_the_listing),
        cmocka_unit_test(bad_rows_refused),
    };
    return QMOL_RUN_TESTS(argc, argv, tests);
}
