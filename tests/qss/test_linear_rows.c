/* Linear rows (qss/linear_rows.h, qmol.h own_term): the shapes whose rows
 * share b and c, and the engine's second-order re-evaluation from them
 * against the generic one through rhs_jac: on adr2d (every shape: the
 * interior, the edges with and without the inflow's constant, the
 * corners), on a rank's part of it with ghost columns, on adr1d-vardiff
 * (its interior rows differ across the split: generic), on a row listing a
 * state twice, and on a problem whose own_term claims a row linear that is
 * not (caught by the check: generic). Also the weight of a row's other
 * inputs against its own state (eng_coupling_share). */
#include "core/model.h"
#include "qss/linear_rows.h"
#include "qss/qss_engine.h"
#include "tests/support/test_support.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const qss_method second_order = {.name = "linear-rows"};

typedef struct fixture {
    qmol_problem p;
    int64_t *gid; /* a rank's part: its states' global ids (outlive m) */
    model m;
    integrator_options o;
    qmol_stats stats;
    qss_engine e;
} fixture;

/* The engine of f->p as eng_alloc makes it, order 2 with the problem's
 * Jacobian, LIQSS's diagonal estimates (n_owned: the rows of a rank's part,
 * then n_cols - n_owned ghosts; 0: the whole model). */
static void build(fixture *f, int32_t n_owned, int32_t n_cols) {
    f->gid = test_model(&f->m, &f->p, n_owned, n_cols);
    f->o = (integrator_options){.t0 = f->p.t0, .tf = f->p.tf, .reltol = 1e-3, .abstol = 1e-4};
    qss_engine *e = &f->e;
    e->m = &f->m;
    e->p = &f->p;
    e->o = &f->o;
    e->tf = f->p.tf;
    e->method = &second_order;
    e->stats = &f->stats;
    e->n = f->m.n;
    e->n_cols = f->m.n_cols;
    e->order = 2;
    e->analytic_jac = 1;
    e->has_diag = 1;
    assert_int_equal(eng_alloc(e), 0);
}

static void setup(fixture *f, const char *name, const char *const *sets, int nsets, int32_t n_owned,
                  int32_t n_cols) {
    memset(f, 0, sizeof *f);
    f->p = test_problem(name, sets, nsets);
    build(f, n_owned, n_cols);
}

static void teardown(fixture *f) {
    eng_free(&f->e);
    model_free(&f->m);
    free(f->gid);
    if (f->p.destroy) f->p.destroy(f->p.data);
}

/* Random q's about 1 (value, slope, time), the same for the same seed. */
static void random_q(qss_engine *e, unsigned seed) {
    for (int32_t i = 0; i < e->n_cols; i++) {
        e->q[i].c[0] = 0.5 + (double)(test_random(&seed) % 1000) / 1000.0;
        e->q[i].c[1] = ((double)(test_random(&seed) % 2001) - 1000.0) / 100.0;
        e->q[i].c[2] = 0.0;
        e->q[i].tq = 0.01 * (double)(test_random(&seed) % 10);
    }
}

/* Every row re-evaluated at t, through the linear shapes where linear is
 * on, else through rhs_jac: x's slope, curvature and diagonal estimate of
 * each row into out (3 per row). */
static void evaluate(fixture *f, int linear, double t, double *out) {
    qss_engine *e = &f->e;
    uint8_t *keep = e->linear.linear;
    if (!linear) e->linear.linear = NULL;
    random_q(e, 12345u);
    for (int32_t j = 0; j < e->n; j++) {
        eng_eval_derivs(e, j, t);
        out[3 * j] = e->x[j].c[1];
        out[3 * j + 1] = e->x[j].c[2];
        out[3 * j + 2] = e->x[j].diag;
    }
    e->linear.linear = keep;
}

/* The linear path gives what rhs_jac gives, to rounding, on every row; and
 * `expect_linear` rows took it. */
static void same_as_generic(fixture *f, int32_t expect_linear) {
    qss_engine *e = &f->e;
    size_t n = 3 * (size_t)e->n;
    double *fast = malloc(n * sizeof *fast), *slow = malloc(n * sizeof *slow);
    assert_non_null(fast);
    assert_non_null(slow);
    evaluate(f, 1, 0.05, fast);
    evaluate(f, 0, 0.05, slow);
    for (size_t k = 0; k < n; k++) {
        double scale = fmax(1.0, fabs(slow[k]));
        if (!(fabs(fast[k] - slow[k]) <= 1e-11 * scale))
            fail_msg("row %zu, value %zu: linear %.17g, rhs_jac %.17g", k / 3, k % 3, fast[k],
                     slow[k]);
    }
    int32_t linear_rows = 0;
    for (int32_t j = 0; e->linear.linear && j < e->n; j++)
        linear_rows += e->linear.linear[e->shapes.row[j]];
    assert_int_equal(linear_rows, expect_linear);
    free(fast);
    free(slow);
}

static void adr2d_every_shape(void **state) {
    (void)state;
    fixture f;
    const char *sets[] = {"nx=12", "ny=9", "u0=0.7"};
    setup(&f, "adr2d", sets, 3, 0, 0);
    assert_non_null(f.e.shapes.row);
    assert_non_null(f.e.linear.linear);
    /* interior, 4 edges, 4 corners: all linear, the west's with u0's
     * constant */
    same_as_generic(&f, 12 * 9);
    teardown(&f);
}

static void adr2d_rank_part(void **state) {
    (void)state;
    fixture f;
    const char *sets[] = {"nx=10", "ny=8"};
    /* rows 0..39 owned, 40..49 (the next grid row) ghosts */
    setup(&f, "adr2d", sets, 2, 40, 50);
    assert_non_null(f.e.linear.linear);
    same_as_generic(&f, 40);
    teardown(&f);
}

static void heat3d_linear(void **state) {
    (void)state;
    fixture f;
    const char *sets[] = {"nx=10", "ny=9", "nz=8"};
    setup(&f, "heat3d", sets, 3, 0, 0);
    same_as_generic(&f, 10 * 9 * 8);
    teardown(&f);
}

/* adr1d-vardiff: the interior rows' diffusion differs across the split, so
 * their shape keeps rhs_jac; the results agree either way. */
static void vardiff_interior_generic(void **state) {
    (void)state;
    fixture f;
    const char *sets[] = {"N=40"};
    setup(&f, "adr1d-vardiff", sets, 1, 0, 0);
    assert_non_null(f.e.shapes.row);
    int interior = f.e.shapes.row[20];
    assert_true(!f.e.linear.linear || !f.e.linear.linear[interior]);
    same_as_generic(&f, 2); /* the two ends, a shape each */
    teardown(&f);
}

/* A ring whose rows read their west neighbour through sin (not linear)
 * but whose own_term says they are linear but for u^2: the check at the
 * second point finds it, every shape stays generic. */
static int three(const void *d, int64_t i) {
    (void)d, (void)i;
    return 3;
}
static void ring_row(const void *d, int64_t i, int64_t *cols) {
    (void)d;
    int64_t n = 16;
    cols[0] = (i + n - 1) % n, cols[1] = i, cols[2] = (i + 1) % n;
}
/* positions sorted as the model keeps them: (i - 1, i, i + 1) in ring
 * order, the model's order is the listing's */
static double ring_rhs(const void *d, int64_t i, double t, const double *v) {
    (void)d, (void)i, (void)t;
    return sin(v[0]) - 2.0 * v[1] + v[2] + v[1] * v[1];
}
static void ring_jac(const void *d, int64_t i, double t, const double *v, double *dfdv) {
    (void)d, (void)i, (void)t;
    dfdv[0] = cos(v[0]), dfdv[1] = -2.0 + 2.0 * v[1], dfdv[2] = 1.0;
}
static double ring_own(const void *d, int64_t i, double u, double *dgdu) {
    (void)d, (void)i;
    *dgdu = 2.0 * u;
    return u * u;
}
static double ring_x0(const void *d, int64_t i) {
    (void)d;
    return 0.1 * (double)(i % 5);
}

/* build() for a problem of n states, three entries a row, from its
 * callbacks (x0 the ring's). */
static void setup_rows(fixture *f, int64_t n, void (*row)(const void *, int64_t, int64_t *),
                       double (*rhs)(const void *, int64_t, double, const double *),
                       void (*jac)(const void *, int64_t, double, const double *, double *),
                       double (*own)(const void *, int64_t, double, double *)) {
    memset(f, 0, sizeof *f);
    f->p = (qmol_problem){.n = n,
                          .t0 = 0.0,
                          .tf = 1.0,
                          .row_size = three,
                          .row = row,
                          .rhs = rhs,
                          .jac = jac,
                          .own_term = own,
                          .x0 = ring_x0};
    build(f, 0, 0);
}

static void false_claim_generic(void **state) {
    (void)state;
    fixture f;
    setup_rows(&f, 16, ring_row, ring_rhs, ring_jac, ring_own);
    assert_non_null(f.e.shapes.row);
    assert_null(f.e.linear.linear);
    same_as_generic(&f, 0);
    teardown(&f);
}

/* A chain with mirrored (Neumann) ends, whose end rows list their
 * neighbour twice: f_i = v_0 - 2 v_1 + v_2 - 0.3 v_1^3 as listed. */
static void chain_row(const void *d, int64_t i, int64_t *cols) {
    (void)d;
    int64_t n = 8;
    cols[0] = i == 0 ? 1 : i - 1, cols[1] = i, cols[2] = i == n - 1 ? n - 2 : i + 1;
}
static double chain_rhs(const void *d, int64_t i, double t, const double *v) {
    (void)d, (void)i, (void)t;
    return v[0] - 2.0 * v[1] + v[2] - 0.3 * v[1] * v[1] * v[1];
}
static void chain_jac(const void *d, int64_t i, double t, const double *v, double *dfdv) {
    (void)d, (void)i, (void)t;
    dfdv[0] = 1.0, dfdv[1] = -2.0 - 0.9 * v[1] * v[1], dfdv[2] = 1.0;
}
static double chain_own(const void *d, int64_t i, double u, double *dgdu) {
    (void)d, (void)i;
    *dgdu = -0.9 * u * u;
    return -0.3 * u * u * u;
}

static void mirrored_ends(void **state) {
    (void)state;
    fixture f;
    setup_rows(&f, 8, chain_row, chain_rhs, chain_jac, chain_own);
    assert_non_null(f.m.list_ptr); /* the ends repeat a state */
    same_as_generic(&f, 8);
    teardown(&f);
}

/* eng_coupling_share (what liqss2_settle weighs): the chain's rows weigh 2
 * against 2 + 0.9 u^2 of their own (the ends list their one neighbour
 * twice); heat1d's interior rows 1, its ends 1/2. */
static void coupling_share(void **state) {
    (void)state;
    fixture f;
    setup_rows(&f, 8, chain_row, chain_rhs, chain_jac, chain_own);
    random_q(&f.e, 777u);
    for (int32_t j = 0; j < f.e.n; j++) {
        double u = eng_q_at(&f.e, j, 0.05), expect = 2.0 / (2.0 + 0.9 * u * u);
        double share = eng_coupling_share(&f.e, j, 0.05);
        if (!(fabs(share - expect) <= 1e-14))
            fail_msg("chain row %d: share %.17g, expected %.17g", j, share, expect);
    }
    teardown(&f);
    const char *sets[] = {"N=6"};
    setup(&f, "heat1d", sets, 1, 0, 0);
    random_q(&f.e, 777u);
    for (int32_t j = 0; j < f.e.n; j++) {
        double expect = j == 0 || j == f.e.n - 1 ? 0.5 : 1.0;
        assert_true(fabs(eng_coupling_share(&f.e, j, 0.05) - expect) <= 1e-14);
    }
    teardown(&f);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(adr2d_every_shape),   cmocka_unit_test(adr2d_rank_part),
    cmocka_unit_test(heat3d_linear),       cmocka_unit_test(vardiff_interior_generic),
    cmocka_unit_test(false_claim_generic), cmocka_unit_test(mirrored_ends),
    cmocka_unit_test(coupling_share),
};

int main(int argc, char **argv) {
    return QMOL_RUN_TESTS(argc, argv, tests);
}
