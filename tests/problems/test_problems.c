/* The built-in problems (and the example plugin): well-formed rows, finite
 * right-hand sides, analytic Jacobians equal to finite differences, exact
 * solutions that solve the ODE, and spot values from the thesis and papers. */
#include "problems/registry.h"
#include "tests/support/test_support.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Not M_PI: strict C11 headers do not define it. */
static const double pi = 3.14159265358979323846;

/* Rows longer than this would mean a broken stencil for these problems. */
#define MAX_ROW 16

/* A problem instance built from its defaults plus "key=value" overrides. */
static qmol_problem make(const qmol_problem_def *def, const char *const *sets, int count) {
    double values[32];
    char err[512];
    qmol_problem p;
    memset(&p, 0, sizeof p);
    assert_true(def->nparams <= 32);
    if (params_resolve(def, sets, count, values, err, sizeof err))
        fail_msg("%s: params_resolve: %s", def->name, err);
    if (def->create(values, &p, err, sizeof err)) fail_msg("%s: create: %s", def->name, err);
    return p;
}

static qmol_problem make_named(const char *name, const char *const *sets, int count) {
    const qmol_problem_def *def = registry_find(name);
    if (!def) fail_msg("no built-in %s", name);
    return make(def, sets, count);
}

static void destroy(qmol_problem *p) {
    if (p->destroy) p->destroy(p->data);
}

/* Gathers the values of row i from the full state vector x. */
static int gather(const qmol_problem *p, int64_t i, const double *x, int64_t *cols, double *vals) {
    int len = p->row_size(p->data, i);
    assert_true(len >= 0 && len <= MAX_ROW);
    if (len > 0) p->row(p->data, i, cols);
    for (int k = 0; k < len; k++)
        vals[k] = x[cols[k]];
    return len;
}

/* Every row lists ids in [0, n), each once. */
static void check_rows(const char *name, const qmol_problem *p) {
    int64_t cols[MAX_ROW];
    for (int64_t i = 0; i < p->n; i++) {
        int len = p->row_size(p->data, i);
        if (len < 0 || len > MAX_ROW) fail_msg("%s row %lld: size %d", name, (long long)i, len);
        if (len > 0) p->row(p->data, i, cols);
        for (int k = 0; k < len; k++) {
            if (cols[k] < 0 || cols[k] >= p->n)
                fail_msg("%s row %lld reads %lld, outside [0, %lld)", name, (long long)i,
                         (long long)cols[k], (long long)p->n);
            for (int m = 0; m < k; m++)
                if (cols[m] == cols[k])
                    fail_msg("%s row %lld lists %lld twice", name, (long long)i,
                             (long long)cols[k]);
        }
    }
}

static double *initial_state(const qmol_problem *p) {
    double *x = malloc((size_t)p->n * sizeof *x);
    assert_non_null(x);
    for (int64_t i = 0; i < p->n; i++)
        x[i] = p->x0(p->data, i);
    return x;
}

/* A deterministic, irregular perturbation of x (so no symmetry hides a bug). */
static void perturb(const qmol_problem *p, double *x) {
    uint64_t s = 88172645463325252ull;
    for (int64_t i = 0; i < p->n; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        double unit = (double)(s >> 11) / 9007199254740992.0 * 2.0 - 1.0;
        x[i] += 0.1 * unit * (1.0 + fabs(x[i]));
    }
}

static void check_rhs_finite(const char *name, const qmol_problem *p, const double *x) {
    int64_t cols[MAX_ROW];
    double vals[MAX_ROW];
    for (int64_t i = 0; i < p->n; i++) {
        gather(p, i, x, cols, vals);
        double f = p->rhs(p->data, i, p->t0, vals);
        if (!isfinite(f)) fail_msg("%s row %lld: f = %g", name, (long long)i, f);
    }
}

/* The analytic jac against a central difference at time t, relative 1e-6 to
 * the row's largest entry. */
static void check_jac_at(const char *name, const qmol_problem *p, const double *x, double t) {
    int64_t cols[MAX_ROW];
    double vals[MAX_ROW], dfdv[MAX_ROW];
    assert_non_null(p->jac);
    for (int64_t i = 0; i < p->n; i++) {
        int len = gather(p, i, x, cols, vals);
        p->jac(p->data, i, t, vals, dfdv);
        if (p->rhs_jac) { /* exactly rhs and jac, bit for bit */
            double fused[MAX_ROW];
            double f = p->rhs_jac(p->data, i, t, vals, fused);
            if (memcmp(&f, &(double){p->rhs(p->data, i, t, vals)}, sizeof f) != 0)
                fail_msg("%s row %lld at t=%g: rhs_jac's f %.17g is not rhs's", name, (long long)i,
                         t, f);
            if (memcmp(fused, dfdv, (size_t)len * sizeof *dfdv) != 0)
                fail_msg("%s row %lld at t=%g: rhs_jac's row is not jac's", name, (long long)i, t);
        }
        double scale = 0.0;
        for (int k = 0; k < len; k++)
            scale = fmax(scale, fabs(dfdv[k]));
        for (int k = 0; k < len; k++) {
            double v = vals[k], h = 1e-6 * fmax(1.0, fabs(v));
            vals[k] = v + h;
            double up = p->rhs(p->data, i, t, vals);
            vals[k] = v - h;
            double down = p->rhs(p->data, i, t, vals);
            vals[k] = v;
            double fd = (up - down) / (2.0 * h);
            if (fabs(fd - dfdv[k]) > 1e-6 * scale + 1e-12)
                fail_msg("%s row %lld entry %d (state %lld) at t=%g: jac %.12g, finite "
                         "difference %.12g",
                         name, (long long)i, k, (long long)cols[k], t, dfdv[k], fd);
        }
    }
}

/* At t0 and, when f depends on t explicitly (diurnal's sun), also at a
 * spread of times over the default span (diurnal: early morning, midday,
 * evening, night). */
static void check_jac(const char *name, const qmol_problem *p, const double *x) {
    check_jac_at(name, p, x, p->t0);
    if (!p->explicit_time) return;
    const double fractions[] = {0.02, 0.25, 0.45, 0.75};
    for (size_t k = 0; k < sizeof fractions / sizeof fractions[0]; k++)
        check_jac_at(name, p, x, p->t0 + fractions[k] * (p->tf - p->t0));
}

static void check_geometry(const char *name, const qmol_problem *p) {
    if (p->ndims == 0) return;
    assert_true(p->ndims >= 1 && p->ndims <= 3);
    int64_t cells = 1;
    for (int d = 0; d < p->ndims; d++) {
        assert_true(p->dims[d] >= 1);
        assert_true(p->spacing[d] > 0.0);
        cells *= p->dims[d];
    }
    int comps = p->components > 0 ? p->components : 1;
    if (cells * comps != p->n)
        fail_msg("%s: dims give %lld states, n = %lld", name, (long long)(cells * comps),
                 (long long)p->n);
}

/* Everything that holds for any problem instance. */
static void check_instance(const char *name, qmol_problem *p) {
    assert_true(p->n >= 1);
    assert_true(p->tf > p->t0);
    assert_non_null(p->row_size);
    assert_non_null(p->row);
    assert_non_null(p->rhs);
    assert_non_null(p->x0);
    check_rows(name, p);
    check_geometry(name, p);
    double *x = initial_state(p);
    check_rhs_finite(name, p, x);
    check_jac(name, p, x);
    perturb(p, x);
    check_rhs_finite(name, p, x);
    check_jac(name, p, x);
    free(x);
}

static void each_builtin_at_defaults(void **state) {
    (void)state;
    int count;
    const qmol_problem_def *const *all = registry_all(&count);
    for (int k = 0; k < count; k++) {
        qmol_problem p = make(all[k], NULL, 0);
        check_instance(all[k]->name, &p);
        destroy(&p);
    }
}

/* Smallest and uneven grids, where every boundary case meets every other. */
static void small_and_uneven_grids(void **state) {
    (void)state;
    static const struct {
        const char *name;
        const char *sets[4];
        int count;
    } cases[] = {
        {"adr1d", {"N=2"}, 1},
        {"adr1d", {"N=7", "init_frac=0.5"}, 2},
        {"adr1d-vardiff", {"N=3"}, 1},
        {"adr1d-vardiff", {"N=10", "dleft=0.5", "dright=2"}, 3},
        {"adr2d", {"nx=1", "ny=1"}, 2},
        {"adr2d", {"nx=2", "ny=3"}, 2},
        {"adr2d", {"nx=5", "ny=4", "d=0.3", "r=-2"}, 4},
        {"heat1d", {"N=1"}, 1},
        {"heat1d", {"N=9", "kx=3", "L=2"}, 3},
        {"heat2d", {"nx=1", "ny=2"}, 2},
        {"heat2d", {"nx=6", "ny=4", "kx=2", "d=0.25"}, 4},
        {"heat3d", {"nx=2", "ny=3", "nz=4"}, 3},
        {"heat3d", {"nx=1", "ny=1", "nz=1"}, 3},
        {"relax", {"k=2", "x0=-3"}, 2},
        {"offdiag-stiff", {"k1=0", "k2=0"}, 2},
        {"diurnal", {"mx=2", "my=2"}, 2},
        {"diurnal", {"mx=3", "my=5", "vel=-0.01", "kv0=1e-6"}, 4},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        qmol_problem p = make_named(cases[c].name, cases[c].sets, cases[c].count);
        check_instance(cases[c].name, &p);
        destroy(&p);
    }
}

/* Row sum of |jac| at x0, a bound on the spectral radius (Gershgorin). */
static double rate_bound(const qmol_problem *p, const double *x) {
    int64_t cols[MAX_ROW];
    double vals[MAX_ROW], dfdv[MAX_ROW], rate = 0.0;
    for (int64_t i = 0; i < p->n; i++) {
        int len = gather(p, i, x, cols, vals);
        p->jac(p->data, i, p->t0, vals, dfdv);
        double sum = 0.0;
        for (int k = 0; k < len; k++)
            sum += fabs(dfdv[k]);
        rate = fmax(rate, sum);
    }
    return rate;
}

/* exact(t0) = x0, and d/dt exact = f(exact) (Richardson-extrapolated central
 * differences, relative 1e-6 to the largest |f|, plus the differences' own
 * rounding) at early, middle and late times, with a step well below the
 * fastest time scale. */
static void check_exact(const char *name, const qmol_problem *p) {
    if (!p->exact) fail_msg("%s has no exact solution", name);
    double *x = initial_state(p), *f = malloc((size_t)p->n * sizeof *f);
    int64_t cols[MAX_ROW];
    double vals[MAX_ROW];
    assert_non_null(f);
    for (int64_t i = 0; i < p->n; i++) {
        double e = p->exact(p->data, i, p->t0);
        if (fabs(e - x[i]) > 1e-12 * (1.0 + fabs(x[i])))
            fail_msg("%s: exact(%lld, t0) = %.17g, x0 = %.17g", name, (long long)i, e, x[i]);
    }
    double span = p->tf - p->t0;
    double h = fmin(1e-3 * span, 1e-2 / fmax(rate_bound(p, x), 1e-300));
    const double fractions[] = {1e-4, 1e-2, 0.3, 1.0};
    for (size_t s = 0; s < sizeof fractions / sizeof fractions[0]; s++) {
        double t = p->t0 + fractions[s] * span, fmax_abs = 0.0, xmax_abs = 0.0;
        for (int64_t i = 0; i < p->n; i++) {
            x[i] = p->exact(p->data, i, t);
            xmax_abs = fmax(xmax_abs, fabs(x[i]));
        }
        for (int64_t i = 0; i < p->n; i++) {
            gather(p, i, x, cols, vals);
            f[i] = p->rhs(p->data, i, t, vals);
            fmax_abs = fmax(fmax_abs, fabs(f[i]));
        }
        /* Near equilibrium |f| << |x| / h, and the differences of x cannot
         * resolve f below their rounding error. */
        double tol = 1e-6 * fmax_abs + 16.0 * DBL_EPSILON * xmax_abs / h;
        for (int64_t i = 0; i < p->n; i++) {
            double wide = (p->exact(p->data, i, t + h) - p->exact(p->data, i, t - h)) / (2 * h);
            double narrow = (p->exact(p->data, i, t + h / 2) - p->exact(p->data, i, t - h / 2)) / h;
            double dxdt = (4.0 * narrow - wide) / 3.0;
            if (fabs(dxdt - f[i]) > tol)
                fail_msg("%s state %lld at t=%g: d/dt exact = %.12g, f(exact) = %.12g", name,
                         (long long)i, t, dxdt, f[i]);
        }
    }
    free(x);
    free(f);
}

static void exact_solutions_solve_the_odes(void **state) {
    (void)state;
    static const struct {
        const char *name;
        const char *sets[4];
        int count;
    } cases[] = {
        {"heat1d", {NULL}, 0},
        {"heat1d", {"N=9", "kx=3", "L=2", "d=0.5"}, 4},
        {"heat2d", {NULL}, 0},
        {"heat2d", {"nx=6", "ny=4", "kx=2", "ky=3"}, 4},
        {"heat3d", {NULL}, 0},
        {"heat3d", {"nx=5", "ny=6", "nz=7", "kz=2"}, 4},
        {"relax", {NULL}, 0},
        {"bqss-a1", {NULL}, 0},
        {"offdiag-stiff", {NULL}, 0},
        {"offdiag-stiff", {"k1=5", "k2=7", "x2_0=3"}, 3},
        {"liqss-pair", {NULL}, 0},
        {"offdiag-stiff", {"k1=1e-9", "k2=0"}, 2}, /* eigenvalues 1e-9 apart */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        qmol_problem p = make_named(cases[c].name, cases[c].sets, cases[c].count);
        check_exact(cases[c].name, &p);
        destroy(&p);
    }
}

static void registry_table(void **state) {
    (void)state;
    int count;
    const qmol_problem_def *const *all = registry_all(&count);
    assert_int_equal(count, 15);
    for (int k = 0; k < count; k++) {
        const qmol_problem_def *d = all[k];
        assert_int_equal(d->api_version, QMOL_API_VERSION);
        assert_non_null(d->summary);
        assert_non_null(d->equations);
        assert_non_null(d->create);
        assert_ptr_equal(registry_find(d->name), d);
        for (int m = 0; m < k; m++)
            assert_string_not_equal(all[m]->name, d->name);
        for (int q = 0; q < d->nparams; q++) {
            const qmol_param_def *pd = &d->params[q];
            assert_non_null(pd->doc);
            if (pd->value < pd->min || pd->value > pd->max || !(pd->min <= pd->max))
                fail_msg("%s: default %s = %g outside [%g, %g]", d->name, pd->name, pd->value,
                         pd->min, pd->max);
            if (pd->integer) assert_true(pd->value == floor(pd->value));
        }
    }
    assert_null(registry_find("nope"));
    assert_null(registry_find(""));
    assert_null(registry_find(NULL));
}

static double rhs_at_x0(const qmol_problem *p, int64_t i) {
    int64_t cols[MAX_ROW];
    double vals[MAX_ROW];
    double *x = initial_state(p);
    gather(p, i, x, cols, vals);
    double f = p->rhs(p->data, i, p->t0, vals);
    free(x);
    return f;
}

/* ALGORITHMS.md 4.5 with its numbers: dx = 0.01, d/dx^2 = 10, a/dx = 100. */
static void adr1d_thesis_values(void **state) {
    (void)state;
    qmol_problem p = make_named("adr1d", NULL, 0);
    assert_int_equal(p.n, 1000);
    assert_true(p.tf == 10.0);
    assert_true(p.x0(p.data, 199) == 1.0);
    assert_true(p.x0(p.data, 200) == 0.0);
    assert_true(fabs(rhs_at_x0(&p, 0)) < 1e-12);            /* u0 = u = 1 */
    assert_true(fabs(rhs_at_x0(&p, 199) - (-10.0)) < 1e-9); /* diffusion into the gap */
    assert_true(fabs(rhs_at_x0(&p, 200) - 110.0) < 1e-9);   /* advection + diffusion in */
    /* Last node: the mirror makes f = (a/dx + 2d/dx^2)(u_{N-2} - u_{N-1}). */
    int64_t cols[MAX_ROW];
    double vals[2] = {1.0, 0.0}, dfdv[2];
    assert_int_equal(p.row_size(p.data, 999), 2);
    p.row(p.data, 999, cols);
    assert_int_equal(cols[0], 998);
    assert_int_equal(cols[1], 999);
    assert_true(fabs(p.rhs(p.data, 999, 0.0, vals) - 120.0) < 1e-9);
    p.jac(p.data, 999, 0.0, vals, dfdv);
    assert_true(fabs(dfdv[0] - 120.0) < 1e-9);
    assert_true(p.spacing[0] == 0.01 && p.origin[0] == 0.01);
    destroy(&p);

    /* vardiff: d = dleft on i < N/2, dright from N/2 on; u(0) = 0. */
    p = make_named("adr1d-vardiff", NULL, 0);
    double x3[3] = {0.0, 0.0, 0.0}, jac[3];
    for (int64_t i = 0; i < p.n; i++)
        assert_true(p.x0(p.data, i) == 0.0);
    p.jac(p.data, 499, 0.0, x3, jac);
    assert_true(fabs(jac[2] - 1e-6 / 1e-4) < 1e-12);
    p.jac(p.data, 500, 0.0, x3, jac);
    assert_true(fabs(jac[2] - 10.0 / 1e-4) < 1e-6);
    assert_true(fabs(rhs_at_x0(&p, 0) - (100.0 + 0.01)) < 1e-9); /* front enters from u0 */
    destroy(&p);
}

static void adr2d_boundaries(void **state) {
    (void)state;
    qmol_problem p = make_named("adr2d", NULL, 0);
    assert_int_equal(p.n, 10000);
    assert_int_equal(p.ndims, 2);
    /* Initial patch: columns ix < 20, rows iy < 50. */
    assert_true(p.x0(p.data, 19 + 100 * 49) == 1.0);
    assert_true(p.x0(p.data, 20 + 100 * 49) == 0.0);
    assert_true(p.x0(p.data, 19 + 100 * 50) == 0.0);
    /* Corner (0, 0) of the patch sees u0 = 1 on the west: f = 0. */
    assert_true(fabs(rhs_at_x0(&p, 0)) < 1e-12);
    /* Top-left outside the patch: only the west Dirichlet inflow feeds it. */
    int64_t top_left = 100 * 99;
    assert_int_equal(p.row_size(p.data, top_left), 3); /* south, node, east */
    assert_true(fabs(rhs_at_x0(&p, top_left) - (1.0 / 0.1 + 1e-3 / 0.01)) < 1e-9);
    destroy(&p);
}

static void heat_decay_rate(void **state) {
    (void)state;
    qmol_problem p = make_named("heat1d", NULL, 0);
    double h = 1.0 / 101.0, s = sin(pi * h / 2.0);
    double lambda = 4.0 / (h * h) * s * s;
    assert_true(fabs(p.x0(p.data, 0) - sin(pi * h)) < 1e-15);
    double ratio = p.exact(p.data, 50, 0.1) / p.x0(p.data, 50);
    assert_true(fabs(ratio - exp(-lambda * 0.1)) < 1e-14);
    destroy(&p);

    p = make_named("heat3d", NULL, 0);
    assert_int_equal(p.n, 8000);
    assert_int_equal(p.row_size(p.data, 0), 4);
    assert_int_equal(p.row_size(p.data, 1 + 20 * (1 + 20 * 1)), 7);
    destroy(&p);
}

/* BQSS paper, ALGORITHMS.md A.7 table (6 decimals). */
static void bqss_a1_reference(void **state) {
    (void)state;
    qmol_problem p = make_named("bqss-a1", NULL, 0);
    static const double table[][3] = {{1, 0.200993, 20.001007},
                                      {10, 1.922449, 18.279379},
                                      {100, 12.769571, 7.431172},
                                      {500, 20.063961, 0.136052},
                                      {1000, 20.199084, 0.000916}};
    for (size_t r = 0; r < sizeof table / sizeof table[0]; r++) {
        assert_true(fabs(p.exact(p.data, 0, table[r][0]) - table[r][1]) < 1e-6);
        assert_true(fabs(p.exact(p.data, 1, table[r][0]) - table[r][2]) < 1e-6);
    }
    assert_int_equal(p.row_size(p.data, 0), 1); /* f1 = 0.01 x2 reads x2 only */
    destroy(&p);
}

static void small_problem_values(void **state) {
    (void)state;
    qmol_problem p = make_named("relax", NULL, 0);
    assert_true(fabs(p.exact(p.data, 0, 10.0) - 10.5 * (1.0 - exp(-1.0))) < 1e-12);
    destroy(&p);

    p = make_named("liqss-pair", NULL, 0);
    assert_true(p.x0(p.data, 0) == -4.0 && p.x0(p.data, 1) == 4.0);
    assert_true(fabs(p.exact(p.data, 0, 60.0) - (-0.5)) < 1e-12);
    assert_true(fabs(p.exact(p.data, 1, 60.0) - 0.7) < 1e-12);
    destroy(&p);

    /* offdiag-stiff settles where A x = -b. */
    p = make_named("offdiag-stiff", NULL, 0);
    double x1 = p.exact(p.data, 0, 50.0), x2 = p.exact(p.data, 1, 50.0);
    assert_true(fabs(-(1e3 + 1) * x1 + 1e3 * x2 + 1.0) < 1e-9);
    assert_true(fabs(1e4 * x1 - (1e4 + 1) * x2) < 1e-9);
    destroy(&p);

    /* bqss-a2 conserves x1 + x2 - x3: the rows' sum f1 + f2 - f3 is 0. */
    p = make_named("bqss-a2", NULL, 0);
    double x[3] = {0.7, 1.2, -0.01}, f[3];
    int64_t cols[MAX_ROW];
    double vals[MAX_ROW];
    for (int i = 0; i < 3; i++) {
        gather(&p, i, x, cols, vals);
        f[i] = p.rhs(p.data, i, 0.0, vals);
    }
    assert_true(fabs(f[0] + f[1] - f[2]) < 1e-12 * fabs(f[2]));
    destroy(&p);
}

/* diurnal against the equations of SUNDIALS' cvDiurnal_kry, written out
 * here with the example's constants: the grid, the initial profiles, the
 * kinetics by day and by night, and the mirrored (zero-flux) edges. */
static double diurnal_full_rhs(const qmol_problem *p, int64_t id, double t, const double *x) {
    int64_t cols[MAX_ROW];
    double vals[MAX_ROW];
    gather(p, id, x, cols, vals);
    return p->rhs(p->data, id, t, vals);
}

static void diurnal_example_equations(void **state) {
    (void)state;
    qmol_problem p = make_named("diurnal", NULL, 0);
    const double dx = 20.0 / 9.0, dy = 20.0 / 9.0, noon = 21600.0, night = 64800.0;
    assert_int_equal(p.n, 200);
    assert_int_equal(p.ndims, 2);
    assert_int_equal(p.dims[0], 10);
    assert_int_equal(p.dims[1], 10);
    assert_int_equal(p.components, 2);
    assert_string_equal(p.component_names[0], "c1");
    assert_string_equal(p.component_names[1], "c2");
    assert_true(p.explicit_time);
    assert_true(p.t0 == 0.0 && p.tf == 86400.0);
    assert_true(p.origin[0] == 0.0 && p.origin[1] == 30.0);
    assert_true(fabs(p.spacing[0] - dx) < 1e-15 && fabs(p.spacing[1] - dy) < 1e-15);
    assert_true(p.abstol_scale(p.data, 0) == 1000.0 && p.abstol_scale(p.data, 199) == 1000.0);
    /* Corner, edge and interior rows: the mirror leaves one neighbour per side. */
    assert_int_equal(p.row_size(p.data, 0), 4);
    assert_int_equal(p.row_size(p.data, 2 * 1 + 1), 5);
    assert_int_equal(p.row_size(p.data, 2 * 11), 6);
    /* c_s(0) = scale_s a(x) b(y), a = 1 - u + u^2/2, u = (0.1 (x - 10))^2. */
    for (int64_t node = 0; node < 100; node += 13) {
        double x = (double)(node % 10) * dx, y = 30.0 + (double)(node / 10) * dy;
        double ux = 0.01 * (x - 10.0) * (x - 10.0), uy = 0.01 * (y - 40.0) * (y - 40.0);
        double shape = (1.0 - ux + 0.5 * ux * ux) * (1.0 - uy + 0.5 * uy * uy);
        assert_true(fabs(p.x0(p.data, 2 * node) - 1e6 * shape) < 1e-9 * 1e6);
        assert_true(fabs(p.x0(p.data, 2 * node + 1) - 1e12 * shape) < 1e-9 * 1e12);
    }
    /* Uniform c1 = A, c2 = B: no transport, only the kinetics. */
    double x[200];
    const double a = 3e6, b = 4e11, q1c3 = 1.63e-16 * 3.7e16, q2ab = 4.66e-16 * a * b;
    for (int k = 0; k < 200; k++)
        x[k] = k % 2 == 0 ? a : b;
    const int64_t nodes[] = {0, 9, 44, 90, 99};
    for (size_t k = 0; k < sizeof nodes / sizeof nodes[0]; k++) {
        int64_t c1 = 2 * nodes[k], c2 = c1 + 1;
        double q3 = exp(-22.62), q4 = exp(-7.601); /* sin(w t) = 1 at t = 21600 */
        double f1 = -q1c3 * a - q2ab + 2.0 * q3 * 3.7e16 + q4 * b, f2 = q1c3 * a - q2ab - q4 * b;
        assert_true(fabs(diurnal_full_rhs(&p, c1, noon, x) - f1) < 1e-12 * fabs(q1c3 * a));
        assert_true(fabs(diurnal_full_rhs(&p, c2, noon, x) - f2) < 1e-12 * fabs(q4 * b));
        /* q3 = q4 = 0 at night and at t = 0 (sin = 0) */
        assert_true(fabs(diurnal_full_rhs(&p, c1, night, x) - (-q1c3 * a - q2ab)) <
                    1e-12 * q1c3 * a);
        assert_true(fabs(diurnal_full_rhs(&p, c2, 0.0, x) - (q1c3 * a - q2ab)) < 1e-12 * q1c3 * a);
    }
    destroy(&p);

    /* Transport alone (no kinetics at night with c3 = q1 = q2 = 0): c1 = jx,
     * c2 = jy. The example's mirror: at an edge both sides read the inner
     * neighbour, so advection cancels and diffusion doubles. */
    const char *sets[] = {"q1=0", "q2=0", "c3=0"};
    p = make_named("diurnal", sets, 3);
    for (int k = 0; k < 200; k++)
        x[k] = k % 2 == 0 ? (double)((k / 2) % 10) : (double)((k / 2) / 10);
    const double kh = 4e-6 / (dx * dx), adv = 1e-3 / (2.0 * dx), kv = 1e-8 / (dy * dy);
    const double tiny = 1e-15;
    assert_true(fabs(diurnal_full_rhs(&p, 2 * 0, night, x) - 2.0 * kh) < tiny);
    assert_true(fabs(diurnal_full_rhs(&p, 2 * 43, night, x) - 2.0 * adv) < tiny);
    assert_true(fabs(diurnal_full_rhs(&p, 2 * 59, night, x) - (-2.0 * kh)) < tiny);
    /* Kv at the half nodes: y = 30 + (jy -+ 1/2) dy, also below the bottom edge */
    double down0 = kv * exp(0.2 * (30.0 - 0.5 * dy)), up0 = kv * exp(0.2 * (30.0 + 0.5 * dy));
    double down4 = kv * exp(0.2 * (30.0 + 3.5 * dy)), up4 = kv * exp(0.2 * (30.0 + 4.5 * dy));
    double down9 = kv * exp(0.2 * (30.0 + 8.5 * dy)), up9 = kv * exp(0.2 * (30.0 + 9.5 * dy));
    assert_true(fabs(diurnal_full_rhs(&p, 2 * 3 + 1, night, x) - (up0 + down0)) < 1e-12 * up0);
    assert_true(fabs(diurnal_full_rhs(&p, 2 * 47 + 1, night, x) - (up4 - down4)) < 1e-12 * up4);
    assert_true(fabs(diurnal_full_rhs(&p, 2 * 95 + 1, night, x) - (-(up9 + down9))) < 1e-12 * up9);
    destroy(&p);
}

/* The example plugin is a problem like any other (skipped when the build did
 * not say where it is). */
static void example_plugin_problem(void **state) {
    (void)state;
    const char *path = getenv("QMOL_EXAMPLE_PLUGIN");
    if (!path || !path[0]) skip();
    const qmol_problem_def *def;
    char err[512];
    if (plugin_load(path, &def, err, sizeof err)) fail_msg("%s", err);
    const char *sets[] = {"N=7"};
    for (int with_sets = 0; with_sets < 2; with_sets++) {
        qmol_problem p = make(def, sets, with_sets);
        assert_int_equal(p.components, 2);
        check_instance(def->name, &p);
        destroy(&p);
    }
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registry_table),         cmocka_unit_test(each_builtin_at_defaults),
        cmocka_unit_test(small_and_uneven_grids), cmocka_unit_test(exact_solutions_solve_the_odes),
        cmocka_unit_test(adr1d_thesis_values),    cmocka_unit_test(adr2d_boundaries),
        cmocka_unit_test(heat_decay_rate),        cmocka_unit_test(bqss_a1_reference),
        cmocka_unit_test(small_problem_values),   cmocka_unit_test(diurnal_example_equations),
        cmocka_unit_test(example_plugin_problem),
    };
    return QMOL_RUN_TESTS(argc, argv, tests);
}
