/* test_cvode_ilu.c: the ILU(0) factors and solve of cvode_ilu.c on small
 * matrices, against computations of their own.
 *
 *   - a nonsymmetric tridiagonal matrix: its exact LU has no fill-in, so
 *     ILU(0) is the LU and the solve reproduces x from b = A x to rounding;
 *   - I - g (advection-diffusion) on a 7 x 6 grid (5-point stencil): the
 *     factors' defining property (L U)_ij = A_ij on the pattern (L U formed
 *     densely from the factors), the solve inverting exactly that L U (x
 *     from b = L (U x), by products with the factors), and L U != A off the
 *     pattern (the fill-in ILU(0) drops, so the check above can fail);
 *   - a zero pivot ([0 1; 1 0], [1 1; 1 1]) and a NaN entry are reported;
 *   - threads: on a 40 x 30 grid cut by x (and a 3-point 1D one, and a
 *     pattern whose U part names rows its L part does not), the factors and
 *     solves on 2, 3 and 5 parts are the one-thread ones bit for bit, and on
 *     the grid the parts really overlap (each holds rows, and a later
 *     part's first chunk needs only part of an earlier one); a key that
 *     would make a part wait on a later one (x reversed) gives one part.
 */
#include "tests/support/test_support.h"

#include "cvode/cvode_ilu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_N 1200 /* sparse */
#define DENSE_N 64 /* the dense copy: the first DENSE_N rows and columns */
#define MAX_NNZ (5 * MAX_N)

/* A CSR matrix (rows sorted by column, each holding its diagonal) and the
 * same matrix dense (its first DENSE_N rows and columns). */
typedef struct csr {
    int32_t n;
    sunindextype ptr[MAX_N + 1], col[MAX_NNZ];
    int64_t diag[MAX_N];
    double val[MAX_NNZ];
    double dense[DENSE_N][DENSE_N];
} csr;

static void csr_start(csr *a, int32_t n) {
    memset(a, 0, sizeof *a);
    a->n = n;
}

/* Appends (i, j) = v; entries come row by row in increasing column. */
static void csr_put(csr *a, int32_t i, int32_t j, double v) {
    sunindextype k = a->ptr[i + 1]++;
    for (int32_t r = i + 2; r <= a->n; r++)
        a->ptr[r] = a->ptr[i + 1];
    a->col[k] = j;
    a->val[k] = v;
    if (i == j) a->diag[i] = k;
    if (i < DENSE_N && j < DENSE_N) a->dense[i][j] = v;
}

/* Factors a into f (f->lu from a's values); returns ilu0_factor's rc. */
static int factor_on(ilu0 *f, const csr *a, int threads, const int32_t *key) {
    assert_int_equal(ilu0_init(f, a->n, a->ptr, a->col, a->diag, threads, key), 0);
    memcpy(f->lu, a->val, (size_t)a->ptr[a->n] * sizeof *f->lu);
    return ilu0_factor(f);
}

static int factor(ilu0 *f, const csr *a) {
    return factor_on(f, a, 1, NULL);
}

/* L (unit diagonal) and U dense from the factors. */
static void dense_factors(const ilu0 *f, double L[DENSE_N][DENSE_N], double U[DENSE_N][DENSE_N]) {
    memset(L, 0, sizeof(double[DENSE_N][DENSE_N]));
    memset(U, 0, sizeof(double[DENSE_N][DENSE_N]));
    for (int32_t i = 0; i < f->n; i++) {
        L[i][i] = 1.0;
        for (sunindextype k = f->ptr[i]; k < f->ptr[i + 1]; k++)
            (f->col[k] < i ? L : U)[i][f->col[k]] = f->lu[k];
    }
}

static double max_abs(const double *x, int32_t n) {
    double m = 0.0;
    for (int32_t i = 0; i < n; i++)
        m = fmax(m, fabs(x[i]));
    return m;
}

static void tridiagonal_is_exact(void **state) {
    (void)state;
    enum { N = 50 };
    static csr a;
    csr_start(&a, N);
    for (int32_t i = 0; i < N; i++) {
        if (i > 0) csr_put(&a, i, i - 1, -1.3 - 0.01 * i);
        csr_put(&a, i, i, 3.0 + 0.1 * sin(i));
        if (i < N - 1) csr_put(&a, i, i + 1, -0.7 + 0.02 * i);
    }
    ilu0 f;
    assert_int_equal(factor(&f, &a), 0);
    double x[N], b[N], err[N];
    for (int32_t i = 0; i < N; i++)
        x[i] = cos(0.3 * i) + 0.5;
    for (int32_t i = 0; i < N; i++) {
        b[i] = 0.0;
        for (int32_t j = 0; j < N; j++)
            b[i] += a.dense[i][j] * x[j];
    }
    ilu0_solve(&f, b, b); /* in place */
    for (int32_t i = 0; i < N; i++)
        err[i] = b[i] - x[i];
    double e = max_abs(err, N) / max_abs(x, N);
    if (!(e < 1e-14)) fail_msg("tridiagonal: solve error %g", e);
    ilu0_free(&f);
}

/* I - g (d Laplacian - upwind advection) on an nx x ny grid, id = ix + nx iy. */
static void grid_matrix(csr *a, int32_t nx, int32_t ny, double g) {
    csr_start(a, nx * ny);
    const double d = 1.0, ax = 3.0, ay = 1.5;
    for (int32_t iy = 0; iy < ny; iy++)
        for (int32_t ix = 0; ix < nx; ix++) {
            int32_t i = ix + nx * iy;
            if (iy > 0) csr_put(a, i, i - nx, -g * (d + ay));
            if (ix > 0) csr_put(a, i, i - 1, -g * (d + ax));
            csr_put(a, i, i, 1.0 + g * (4.0 * d + ax + ay));
            if (ix < nx - 1) csr_put(a, i, i + 1, -g * d);
            if (iy < ny - 1) csr_put(a, i, i + nx, -g * d);
        }
}

static void grid_factors_match_on_pattern(void **state) {
    (void)state;
    enum { NX = 7, NY = 6, N = NX * NY };
    static csr a;
    static double L[DENSE_N][DENSE_N], U[DENSE_N][DENSE_N], LU[DENSE_N][DENSE_N];
    grid_matrix(&a, NX, NY, 0.8);
    ilu0 f;
    assert_int_equal(factor(&f, &a), 0);
    dense_factors(&f, L, U);
    double on = 0.0, off = 0.0;
    for (int32_t i = 0; i < N; i++)
        for (int32_t j = 0; j < N; j++) {
            LU[i][j] = 0.0;
            for (int32_t k = 0; k < N; k++)
                LU[i][j] += L[i][k] * U[k][j];
            if (a.dense[i][j] != 0.0)
                on = fmax(on, fabs(LU[i][j] - a.dense[i][j]));
            else
                off = fmax(off, fabs(LU[i][j]));
        }
    if (!(on < 1e-14 * 8.0)) fail_msg("grid: max |(LU - A)_ij| on the pattern %g", on);
    if (!(off > 1e-3)) fail_msg("grid: L U has no fill-in off the pattern (%g)", off);
    /* the solve inverts L U: x back from b = L (U x) */
    double x[N], y[N], b[N], err[N];
    for (int32_t i = 0; i < N; i++)
        x[i] = sin(0.7 * i) + 0.1 * i;
    for (int32_t i = 0; i < N; i++) {
        y[i] = 0.0;
        for (int32_t j = 0; j < N; j++)
            y[i] += U[i][j] * x[j];
    }
    for (int32_t i = 0; i < N; i++) {
        b[i] = 0.0;
        for (int32_t j = 0; j < N; j++)
            b[i] += L[i][j] * y[j];
    }
    double z[N];
    ilu0_solve(&f, b, z);
    for (int32_t i = 0; i < N; i++)
        err[i] = z[i] - x[i];
    double e = max_abs(err, N) / max_abs(x, N);
    if (!(e < 1e-13)) fail_msg("grid: solve error %g against L U", e);
    ilu0_free(&f);
}

/* The 2 x 2 matrix [v0 v1; v2 v3], every entry on the pattern. */
static void put_2x2(csr *a, const double v[4]) {
    csr_start(a, 2);
    for (int k = 0; k < 4; k++)
        csr_put(a, k / 2, k % 2, v[k]);
}

static void bad_pivots_are_reported(void **state) {
    (void)state;
    static csr a;
    ilu0 f;
    const double cases[3][4] = {{0.0, 1.0, 1.0, 0.0}, {1.0, 1.0, 1.0, 1.0}, {2.0, 1.0, NAN, 2.0}};
    for (int c = 0; c < 3; c++) {
        put_2x2(&a, cases[c]);
        if (factor(&f, &a) != 1) fail_msg("case %d: a bad pivot was not reported", c);
        ilu0_free(&f);
    }
    /* and a good 2 x 2 is fine: [2 1; 1 2] x = (3, 3) gives x = (1, 1) */
    put_2x2(&a, (const double[4]){2.0, 1.0, 1.0, 2.0});
    assert_int_equal(factor(&f, &a), 0);
    double b[2] = {3.0, 3.0};
    ilu0_solve(&f, b, b);
    assert_true(fabs(b[0] - 1.0) < 1e-15 && fabs(b[1] - 1.0) < 1e-15);
    ilu0_free(&f);
}

/* a's factors and solve on `threads` parts equal the one-thread ones. */
static void same_on_parts(const csr *a, int threads, const int32_t *key, const char *what) {
    ilu0 one, many;
    int bad1 = factor(&one, a), badn = factor_on(&many, a, threads, key);
    assert_int_equal(bad1, badn);
    if (many.plan.parts != threads)
        fail_msg("%s: %d parts for %d threads", what, many.plan.parts, threads);
    size_t nnz = (size_t)a->ptr[a->n];
    if (memcmp(one.lu, many.lu, nnz * sizeof *one.lu) != 0 ||
        memcmp(one.dinv, many.dinv, (size_t)a->n * sizeof *one.dinv) != 0)
        fail_msg("%s, %d parts: the factors differ from one thread's", what, threads);
    static double b[MAX_N], x1[MAX_N], xn[MAX_N];
    for (int rep = 0; rep < 3; rep++) { /* progress is reset between solves */
        for (int32_t i = 0; i < a->n; i++)
            b[i] = sin(0.37 * i + rep) + 0.01 * i;
        ilu0_solve(&one, b, x1);
        ilu0_solve(&many, b, xn);
        if (memcmp(x1, xn, (size_t)a->n * sizeof *x1) != 0)
            fail_msg("%s, %d parts: the solve differs from one thread's", what, threads);
        memcpy(xn, b, (size_t)a->n * sizeof *xn);
        ilu0_solve(&many, xn, xn); /* in place */
        if (memcmp(x1, xn, (size_t)a->n * sizeof *x1) != 0)
            fail_msg("%s, %d parts: the in-place solve differs", what, threads);
    }
    ilu0_free(&one);
    ilu0_free(&many);
}

static void threads_give_the_same_bits(void **state) {
    (void)state;
    static csr a;
    static int32_t key[MAX_N];
    grid_matrix(&a, 40, 30, 0.8);
    for (int32_t i = 0; i < a.n; i++)
        key[i] = i % 40;
    for (int t = 2; t <= 5; t += (t == 3 ? 2 : 1))
        same_on_parts(&a, t, key, "grid 40 x 30");
    /* the two parts of the grid overlap: each holds rows, and part 1's first
     * chunk waits for only part of part 0 (a wavefront, not one after the
     * other) */
    ilu0 f;
    assert_int_equal(factor_on(&f, &a, 2, key), 0);
    const ilu0_plan *P = &f.plan;
    int32_t size0 = P->first[1] - P->first[0], size1 = P->first[2] - P->first[1];
    if (!(size0 > 400 && size1 > 400)) fail_msg("grid parts of %d and %d rows", size0, size1);
    int32_t need = P->need_forward[(size_t)P->first_chunk[1] * 2 + 0];
    if (!(need > 0 && need < size0 / 2))
        fail_msg("part 1's first chunk needs %d of part 0's %d rows", need, size0);
    ilu0_free(&f);
    for (int32_t i = 0; i < a.n; i++)
        key[i] = 39 - i % 40;
    assert_int_equal(factor_on(&f, &a, 2, key), 0);
    if (f.plan.parts != 1) fail_msg("x reversed: %d parts", f.plan.parts);
    ilu0_free(&f);
    /* 1D: every row depends on the one before (the parts take turns) */
    csr_start(&a, 1000);
    for (int32_t i = 0; i < 1000; i++) {
        if (i > 0) csr_put(&a, i, i - 1, -1.3);
        csr_put(&a, i, i, 3.0 + 0.001 * i);
        if (i < 999) csr_put(&a, i, i + 1, -0.7);
    }
    for (int32_t i = 0; i < a.n; i++)
        key[i] = i;
    same_on_parts(&a, 2, key, "1D");
    same_on_parts(&a, 3, key, "1D");
    /* a pattern that is not symmetric: row i names i + 7 (U) but row i + 7
     * does not name i, and row i names i - 3 (L) only */
    csr_start(&a, 900);
    for (int32_t i = 0; i < 900; i++) {
        if (i >= 3) csr_put(&a, i, i - 3, -0.5);
        csr_put(&a, i, i, 2.5);
        if (i + 7 < 900) csr_put(&a, i, i + 7, -0.9);
    }
    for (int32_t i = 0; i < a.n; i++)
        key[i] = i / 100;
    same_on_parts(&a, 2, key, "unsymmetric pattern");
    same_on_parts(&a, 4, key, "unsymmetric pattern");
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(threads_give_the_same_bits),
    cmocka_unit_test(tridiagonal_is_exact),
    cmocka_unit_test(grid_factors_match_on_pattern),
    cmocka_unit_test(bad_pivots_are_reported),
};

int main(int argc, char **argv) {
    return QMOL_RUN_TESTS(argc, argv, tests);
}
