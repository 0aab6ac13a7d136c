/* cvode_ilu.c: ILU(0) on a CSR pattern (row by row, the IKJ variant).
 *
 * Row i is reduced by the rows c < i it holds, in increasing c: its entry
 * (i, c) becomes L_ic = a_ic / U_cc, and U's row c, scaled by it, is taken
 * off the entries of row i that lie on the pattern (the rest, the fill-in,
 * is dropped). `slot` maps a column to its slot in the current row.
 */
#include "cvode/cvode_ilu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int ilu0_init(ilu0 *f, int32_t n, const sunindextype *ptr, const sunindextype *col,
              const int64_t *diag) {
    memset(f, 0, sizeof *f);
    f->n = n;
    f->ptr = ptr;
    f->col = col;
    f->diag = diag;
    size_t nnz = n > 0 ? (size_t)ptr[n] : 0;
    f->lu = malloc((nnz > 0 ? nnz : 1) * sizeof *f->lu);
    f->dinv = malloc(((size_t)n + 1) * sizeof *f->dinv);
    f->slot = malloc(((size_t)n + 1) * sizeof *f->slot);
    if (!f->lu || !f->dinv || !f->slot) {
        ilu0_free(f);
        return -1;
    }
    for (int32_t j = 0; j < n; j++)
        f->slot[j] = -1;
    return 0;
}

void ilu0_free(ilu0 *f) {
    free(f->lu);
    free(f->dinv);
    free(f->slot);
    f->lu = f->dinv = NULL;
    f->slot = NULL;
}

/* Row i: L's entries and U's by the rows above, then its pivot. */
static int factor_row(ilu0 *f, int32_t i) {
    const sunindextype *ptr = f->ptr, *col = f->col;
    double *lu = f->lu;
    for (sunindextype k = ptr[i]; k < ptr[i + 1]; k++)
        f->slot[col[k]] = k;
    for (sunindextype k = ptr[i]; k < f->diag[i]; k++) {
        sunindextype c = col[k];
        double l = lu[k] * f->dinv[c];
        lu[k] = l;
        for (sunindextype u = f->diag[c] + 1; u < ptr[c + 1]; u++) {
            int64_t s = f->slot[col[u]];
            if (s >= 0) lu[s] -= l * lu[u];
        }
    }
    for (sunindextype k = ptr[i]; k < ptr[i + 1]; k++)
        f->slot[col[k]] = -1;
    double pivot = lu[f->diag[i]];
    f->dinv[i] = 1.0 / pivot;
    return pivot == 0.0 || !isfinite(pivot) || !isfinite(f->dinv[i]);
}

int ilu0_factor(ilu0 *f) {
    for (int32_t i = 0; i < f->n; i++)
        if (factor_row(f, i)) return 1;
    return 0;
}

void ilu0_solve(const ilu0 *f, const double *b, double *x) {
    const sunindextype *ptr = f->ptr, *col = f->col;
    const double *lu = f->lu;
    for (int32_t i = 0; i < f->n; i++) { /* L y = b, L's diagonal 1 */
        double s = b[i];
        for (sunindextype k = ptr[i]; k < f->diag[i]; k++)
            s -= lu[k] * x[col[k]];
        x[i] = s;
    }
    for (int32_t i = f->n - 1; i >= 0; i--) { /* U x = y */
        double s = x[i];
        for (sunindextype k = f->diag[i] + 1; k < ptr[i + 1]; k++)
            s -= lu[k] * x[col[k]];
        x[i] = s * f->dinv[i];
    }
}
