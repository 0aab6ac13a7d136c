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
 *   - a zero pivot ([0 1; 1 0], [1 1; 1 1]) and a NaN entry are reported.
 */
#include "tests/support/test_support.h"

#include "cvode/cvode_ilu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_N 64
#define MAX_NNZ (5 * MAX_N)

/* A CSR matrix (rows sorted by column, each holding its diagonal) and the
 * same matrix dense. */
typedef struct csr {
    int32_t n;
    sunindextype ptr[MAX_N + 1], col[MAX_NNZ];
    int64_t diag[MAX_N];
    double val[MAX_NNZ];
    double dense[MAX_N][MAX_N];
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
    a->dense[i][j] = v;
}

/* Factors a into f (f->lu from a's values); returns ilu0_factor's rc. */
static int factor(ilu0 *f, const csr *a) {
    assert_int_equal(ilu0_init(f, a->n, a->ptr, a->col, a->diag), 0);
    memcpy(f->lu, a->val, (size_t)a->ptr[a->n] * sizeof *f->lu);
    return ilu0_factor(f);
}

/* L (unit diagonal) and U dense from the factors. */
static void dense_factors(const ilu0 *f, double L[MAX_N][MAX_N], double U[MAX_N][MAX_N]) {
    memset(L, 0, sizeof(double[MAX_N][MAX_N]));
    memset(U, 0, sizeof(double[MAX_N][MAX_N]));
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
    static double L[MAX_N][MAX_N], U[MAX_N][MAX_N], LU[MAX_N][MAX_N];
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

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(tridiagonal_is_exact),
    cmocka_unit_test(grid_factors_match_on_pattern),
    cmocka_unit_test(bad_pivots_are_reported),
};

int main(int argc, char **argv) {
    return QMOL_RUN_TESTS(argc, argv, tests);
}
