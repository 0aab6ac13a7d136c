/* test_cvode.c: cvode_integrate against exact solutions of linear systems,
 * for every linear solver, with and without the analytic Jacobian. */
#include "tests/support/test_support.h"

#include "core/integrator_registry.h"
#include "core/model.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

/* ------------------------------------------------------------ 1D heat --- */
/* x_i' = D (x_{i-1} - 2 x_i + x_{i+1}) / h^2, Dirichlet 0, x_i(t0) = sin(pi (i+1) h),
 * h = 1/(n+1): x_i(t) = x_i(t0) exp(-lambda (t - t0)), lambda = 4 D/h^2 sin^2(pi h/2). */

typedef struct heat {
    int64_t n;
    double D, h, t0;
} heat;

static int heat_row_size(const void *data, int64_t i) {
    const heat *p = data;
    return 1 + (i > 0) + (i < p->n - 1);
}

static void heat_row(const void *data, int64_t i, int64_t *cols) {
    const heat *p = data;
    int k = 0;
    if (i > 0) cols[k++] = i - 1;
    cols[k++] = i;
    if (i < p->n - 1) cols[k++] = i + 1;
}

static double heat_rhs(const void *data, int64_t i, double t, const double *v) {
    (void)t;
    const heat *p = data;
    double left = 0.0, right = 0.0, mid;
    int k = 0;
    if (i > 0) left = v[k++];
    mid = v[k++];
    if (i < p->n - 1) right = v[k];
    return p->D * (left - 2.0 * mid + right) / (p->h * p->h);
}

static void heat_jac(const void *data, int64_t i, double t, const double *v, double *dfdv) {
    (void)t, (void)v;
    const heat *p = data;
    double c = p->D / (p->h * p->h);
    int k = 0;
    if (i > 0) dfdv[k++] = c;
    dfdv[k++] = -2.0 * c;
    if (i < p->n - 1) dfdv[k] = c;
}

static double heat_x0(const void *data, int64_t i) {
    const heat *p = data;
    return sin(PI * (double)(i + 1) * p->h);
}

static double heat_exact(const void *data, int64_t i, double t) {
    const heat *p = data;
    double s = sin(PI * p->h / 2.0);
    double lambda = 4.0 * p->D / (p->h * p->h) * s * s;
    return heat_x0(data, i) * exp(-lambda * (t - p->t0));
}

static qmol_problem heat_problem(heat *h, int64_t n, double D, double t0) {
    h->n = n;
    h->D = D;
    h->h = 1.0 / (double)(n + 1);
    h->t0 = t0;
    qmol_problem p;
    memset(&p, 0, sizeof p);
    p.n = n;
    p.t0 = t0;
    p.tf = t0 + 0.1;
    p.data = h;
    p.row_size = heat_row_size;
    p.row = heat_row;
    p.rhs = heat_rhs;
    p.jac = heat_jac;
    p.x0 = heat_x0;
    p.exact = heat_exact;
    return p;
}

/* ------------------------------------------------------- stiff 2 x 2 --- */
/* x1' = 0.01 x2, x2' = -100 x1 - 100 x2 + 2020, x(0) = (0, 20). */

static int stiff_row_size(const void *data, int64_t i) {
    (void)data;
    return i == 0 ? 1 : 2;
}

static void stiff_row(const void *data, int64_t i, int64_t *cols) {
    (void)data;
    if (i == 0) {
        cols[0] = 1; /* row 0 does not read x0: its diagonal is structurally absent */
    } else {
        cols[0] = 1; /* unsorted on purpose */
        cols[1] = 0;
    }
}

static double stiff_rhs(const void *data, int64_t i, double t, const double *v) {
    (void)data, (void)t;
    if (i == 0) return 0.01 * v[0];
    return -100.0 * v[1] - 100.0 * v[0] + 2020.0;
}

static void stiff_jac(const void *data, int64_t i, double t, const double *v, double *dfdv) {
    (void)data, (void)t, (void)v;
    if (i == 0) {
        dfdv[0] = 0.01;
    } else {
        dfdv[0] = -100.0;
        dfdv[1] = -100.0;
    }
}

static double stiff_x0(const void *data, int64_t i) {
    (void)data;
    return i == 0 ? 0.0 : 20.0;
}

/* x(t) = xe + c1 v1 e^{l1 t} + c2 v2 e^{l2 t}; l^2 + 100 l + 1 = 0, v = (1, 100 l),
 * xe = (20.2, 0). */
static double stiff_exact(const void *data, int64_t i, double t) {
    (void)data;
    double lbig = (-100.0 - sqrt(100.0 * 100.0 - 4.0)) / 2.0;
    double lsmall = 1.0 / lbig; /* l1 l2 = 1, without cancellation */
    double d0 = 0.0 - 20.2, d1 = 20.0 - 0.0;
    /* [1 1; 100 ls 100 lb] c = d */
    double a = 100.0 * lsmall, b = 100.0 * lbig;
    double det = b - a;
    double cs = (d0 * b - d1) / det, cb = (d1 - a * d0) / det;
    double es = exp(lsmall * t), eb = exp(lbig * t);
    if (i == 0) return 20.2 + cs * es + cb * eb;
    return cs * a * es + cb * b * eb;
}

static qmol_problem stiff_problem(void) {
    qmol_problem p;
    memset(&p, 0, sizeof p);
    p.n = 2;
    p.t0 = 0.0;
    p.tf = 1000.0;
    p.row_size = stiff_row_size;
    p.row = stiff_row;
    p.rhs = stiff_rhs;
    p.jac = stiff_jac;
    p.x0 = stiff_x0;
    p.exact = stiff_exact;
    return p;
}

/* ------------------------------------------------------------ sampling --- */

#define MAX_SAMPLES 16

typedef struct collector {
    const qmol_problem *p;
    int64_t calls;
    int64_t seen[MAX_SAMPLES + 1];
    double t[MAX_SAMPLES + 1];
    double max_abs_err, max_rel_err; /* max-norm error, and relative to max |exact| */
    int64_t abort_at;
    int abort_code;
} collector;

static int collect(void *ctx, int64_t k, double t, const double *x) {
    collector *c = ctx;
    c->calls++;
    if (k >= 1 && k <= MAX_SAMPLES) {
        c->seen[k]++;
        c->t[k] = t;
    }
    double err = 0.0, scale = 0.0;
    for (int64_t i = 0; i < c->p->n; i++) {
        double ex = c->p->exact(c->p->data, i, t);
        err = fmax(err, fabs(x[i] - ex));
        scale = fmax(scale, fabs(ex));
    }
    c->max_abs_err = fmax(c->max_abs_err, err);
    c->max_rel_err = fmax(c->max_rel_err, err / scale);
    if (c->abort_at && k == c->abort_at) return c->abort_code;
    return 0;
}

static int count_samples(void *ctx, int64_t k, double t, const double *x) {
    (void)k, (void)t, (void)x;
    (*(int64_t *)ctx)++;
    return 0;
}

static integrator_options cvode_options(double t0, double tf, int64_t K, linsol_id ls, int use_jac,
                                        double rtol, double atol) {
    integrator_options o;
    memset(&o, 0, sizeof o);
    o.method = integrator_by_name("cvode");
    o.reltol = rtol;
    o.abstol = atol;
    o.t0 = t0;
    o.tf = tf;
    o.samples = K;
    o.use_jacobian = use_jac;
    o.linsol = ls;
    o.max_order = 0;
    return o;
}

static void check_samples(const collector *c, const integrator_options *o) {
    assert_int_equal(c->calls, o->samples);
    for (int64_t k = 1; k <= o->samples; k++) {
        assert_int_equal(c->seen[k], 1);
        double expect =
            k == o->samples ? o->tf : o->t0 + (o->tf - o->t0) * (double)k / (double)o->samples;
        assert_true(c->t[k] == expect);
    }
}

static void run_heat(linsol_id ls, int use_jac) {
    heat h;
    qmol_problem p = heat_problem(&h, 50, 1.0, 0.5);
    model m;
    char err[512] = "";
    assert_int_equal(model_build(&m, &p, err, sizeof err), 0);
    integrator_options o = cvode_options(0.5, 0.6, 10, ls, use_jac, 1e-8, 1e-8);
    collector c;
    memset(&c, 0, sizeof c);
    c.p = &p;
    qmol_stats st;
    memset(&st, 0, sizeof st);
    int rc = cvode_integrate(&m, &o, collect, &c, &st, err, sizeof err);
    if (rc != 0) fail_msg("cvode_integrate (linsol %d, jac %d): %s", (int)ls, use_jac, err);
    check_samples(&c, &o);
    if (c.max_abs_err >= 1e-5)
        fail_msg("heat linsol %d jac %d: max error %g", (int)ls, use_jac, c.max_abs_err);
    assert_true(st.nst > 0);
    assert_int_equal(st.events, st.nst);
    assert_true(st.nfe >= st.nst && st.nsetups > 0);
    /* every right-hand side CVODE asked for evaluates every row */
    assert_true(st.row_evals >= (uint64_t)p.n * (st.nfe + st.nfeLS));
    assert_true(st.nni > 0);
    assert_true(st.nje > 0);
    if (use_jac) {
        assert_true(st.jac_rows > 0);
    } else {
        assert_int_equal(st.jac_rows, 0);
    }
    if (ls == LINSOL_SPGMR) assert_true(st.nli > 0 && st.njvevals > 0);
    assert_true(st.wall_integrate >= 0.0);
    model_free(&m);
}

static void test_heat_klu(void **state) {
    (void)state;
    run_heat(LINSOL_KLU, 1);
    run_heat(LINSOL_KLU, 0);
}

static void test_heat_band(void **state) {
    (void)state;
    run_heat(LINSOL_BAND, 1);
    run_heat(LINSOL_BAND, 0);
}

static void test_heat_spgmr(void **state) {
    (void)state;
    run_heat(LINSOL_SPGMR, 1);
    run_heat(LINSOL_SPGMR, 0);
}

/* use_jacobian with a problem without jac falls back to differences. */
static void test_heat_no_jac_callback(void **state) {
    (void)state;
    heat h;
    qmol_problem p = heat_problem(&h, 50, 1.0, 0.0);
    p.jac = NULL;
    model m;
    char err[512] = "";
    assert_int_equal(model_build(&m, &p, err, sizeof err), 0);
    integrator_options o = cvode_options(0.0, 0.1, 10, LINSOL_KLU, 1, 1e-8, 1e-8);
    collector c;
    memset(&c, 0, sizeof c);
    c.p = &p;
    qmol_stats st;
    memset(&st, 0, sizeof st);
    assert_int_equal(cvode_integrate(&m, &o, collect, &c, &st, err, sizeof err), 0);
    check_samples(&c, &o);
    assert_true(c.max_abs_err < 1e-5);
    assert_int_equal(st.jac_rows, 0);
    model_free(&m);
}

static void test_stiff(void **state) {
    (void)state;
    const linsol_id ls[] = {LINSOL_KLU, LINSOL_BAND, LINSOL_SPGMR};
    for (int s = 0; s < 3; s++) {
        for (int use_jac = 0; use_jac <= 1; use_jac++) {
            qmol_problem p = stiff_problem();
            model m;
            char err[512] = "";
            assert_int_equal(model_build(&m, &p, err, sizeof err), 0);
            integrator_options o = cvode_options(0.0, 1000.0, 10, ls[s], use_jac, 1e-8, 1e-8);
            collector c;
            memset(&c, 0, sizeof c);
            c.p = &p;
            qmol_stats st;
            memset(&st, 0, sizeof st);
            int rc = cvode_integrate(&m, &o, collect, &c, &st, err, sizeof err);
            if (rc != 0) fail_msg("stiff linsol %d jac %d: %s", (int)ls[s], use_jac, err);
            check_samples(&c, &o);
            if (c.max_rel_err >= 1e-5)
                fail_msg("stiff linsol %d jac %d: relative error %g", (int)ls[s], use_jac,
                         c.max_rel_err);
            /* an explicit method would need ~1e5 steps (|lambda| h < 2) */
            assert_true(st.nst < 20000);
            model_free(&m);
        }
    }
}

static void test_sample_abort(void **state) {
    (void)state;
    heat h;
    qmol_problem p = heat_problem(&h, 20, 1.0, 0.0);
    model m;
    char err[512] = "";
    assert_int_equal(model_build(&m, &p, err, sizeof err), 0);
    integrator_options o = cvode_options(0.0, 0.1, 10, LINSOL_KLU, 1, 1e-6, 1e-6);
    collector c;
    memset(&c, 0, sizeof c);
    c.p = &p;
    c.abort_at = 3;
    c.abort_code = 7;
    qmol_stats st;
    memset(&st, 0, sizeof st);
    assert_int_equal(cvode_integrate(&m, &o, collect, &c, &st, err, sizeof err), 7);
    assert_int_equal(c.calls, 3);
    assert_true(strlen(err) > 0);
    model_free(&m);
}

static void test_bad_options(void **state) {
    (void)state;
    heat h;
    qmol_problem p = heat_problem(&h, 10, 1.0, 0.0);
    model m;
    char err[512] = "";
    assert_int_equal(model_build(&m, &p, err, sizeof err), 0);
    collector c;
    memset(&c, 0, sizeof c);
    c.p = &p;
    qmol_stats st;
    memset(&st, 0, sizeof st);

    integrator_options o = cvode_options(0.0, 0.1, 10, LINSOL_KLU, 1, 1e-6, 1e-6);
    o.max_order = 7;
    assert_int_not_equal(cvode_integrate(&m, &o, collect, &c, &st, err, sizeof err), 0);
    assert_non_null(strstr(err, "order"));

    o = cvode_options(0.1, 0.1, 10, LINSOL_KLU, 1, 1e-6, 1e-6);
    assert_int_not_equal(cvode_integrate(&m, &o, collect, &c, &st, err, sizeof err), 0);
    assert_non_null(strstr(err, "final time"));

    o = cvode_options(0.0, 0.1, 0, LINSOL_KLU, 1, 1e-6, 1e-6);
    assert_int_not_equal(cvode_integrate(&m, &o, collect, &c, &st, err, sizeof err), 0);

    o = cvode_options(0.0, 0.1, 10, LINSOL_KLU, 1, -1.0, 1e-6);
    assert_int_not_equal(cvode_integrate(&m, &o, collect, &c, &st, err, sizeof err), 0);
    assert_non_null(strstr(err, "tolerances"));
    assert_int_equal(c.calls, 0);
    model_free(&m);
}

/* Right-hand sides that CVODE cannot get past: the message names the flag (or
 * the stall) and the time, on one line, and statistics are kept. */
static int diag_row_size(const void *data, int64_t i) {
    (void)data, (void)i;
    return 1;
}

static void diag_row(const void *data, int64_t i, int64_t *cols) {
    (void)data;
    cols[0] = i;
}

static double nan_rhs(const void *data, int64_t i, double t, const double *v) {
    (void)data, (void)i, (void)t, (void)v;
    return NAN;
}

static double late_nan_rhs(const void *data, int64_t i, double t, const double *v) {
    (void)data, (void)i;
    return t > 0.05 ? NAN : -v[0];
}

static double one_x0(const void *data, int64_t i) {
    (void)data, (void)i;
    return 1.0;
}

static void expect_failure(double (*rhs)(const void *, int64_t, double, const double *),
                           const char *what) {
    qmol_problem p;
    memset(&p, 0, sizeof p);
    p.n = 3;
    p.tf = 1.0;
    p.row_size = diag_row_size;
    p.row = diag_row;
    p.rhs = rhs;
    p.x0 = one_x0;
    model m;
    char err[512] = "";
    assert_int_equal(model_build(&m, &p, err, sizeof err), 0);
    const linsol_id ls[] = {LINSOL_KLU, LINSOL_BAND, LINSOL_SPGMR};
    for (int s = 0; s < 3; s++) {
        integrator_options o = cvode_options(0.0, 1.0, 10, ls[s], 0, 1e-6, 1e-6);
        int64_t calls = 0;
        err[0] = '\0';
        assert_int_not_equal(cvode_integrate(&m, &o, count_samples, &calls, NULL, err, sizeof err),
                             0);
        if (!strstr(err, what)) fail_msg("expected '%s' in: %s", what, err);
        assert_null(strchr(err, '\n'));
        assert_true(calls <= 1);
    }
    model_free(&m);
}

static void test_cvode_failure(void **state) {
    (void)state;
    expect_failure(nan_rhs, "CVODE failed at t=0: CV_FIRST_RHSFUNC_ERR");
    expect_failure(late_nan_rhs, "CVODE stalled at t=0.05");
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_heat_klu),    cmocka_unit_test(test_heat_band),
    cmocka_unit_test(test_heat_spgmr),  cmocka_unit_test(test_heat_no_jac_callback),
    cmocka_unit_test(test_stiff),       cmocka_unit_test(test_sample_abort),
    cmocka_unit_test(test_bad_options), cmocka_unit_test(test_cvode_failure),
};

int main(int argc, char **argv) {
    return QMOL_RUN_TESTS(argc, argv, tests);
}
