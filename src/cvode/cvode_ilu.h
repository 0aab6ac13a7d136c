/* cvode_ilu.h: ILU(0), the incomplete LU factorization without fill-in, of
 * a square CSR matrix whose rows are sorted by column and each hold their
 * diagonal. L (unit diagonal, below it) and U (on and above it) take the
 * matrix's pattern, and L U equals the matrix on that pattern; where the
 * exact LU has no fill-in (a tridiagonal matrix), L U is the matrix.
 */
#ifndef QMOL_CVODE_ILU_H
#define QMOL_CVODE_ILU_H

#include <stdint.h>
#include <sundials/sundials_types.h>

typedef struct ilu0 {
    int32_t n;
    const sunindextype *ptr, *col; /* the pattern (the caller's) */
    const int64_t *diag;           /* slot of (i, i) in row i */
    double *lu;                    /* nnz values: the matrix, then L and U */
    double *dinv;                  /* n: 1 / U_ii */
    int64_t *slot;                 /* n: work, -1 outside of a row's elimination */
} ilu0;

/* Allocates the storage of a factorization on the pattern (kept by
 * reference). Returns 0 or -1 (out of memory). */
int ilu0_init(ilu0 *f, int32_t n, const sunindextype *ptr, const sunindextype *col,
              const int64_t *diag);
void ilu0_free(ilu0 *f);
/* Factors f->lu in place (no allocation). Returns 0, or 1 when a pivot is
 * zero or not finite. */
int ilu0_factor(ilu0 *f);
/* x = (L U)^-1 b by a forward and a backward substitution; x may be b. */
void ilu0_solve(const ilu0 *f, const double *b, double *x);

#endif
