/* cvode_ilu.h: ILU(0), the incomplete LU factorization without fill-in, of
 * a square CSR matrix whose rows are sorted by column and each hold their
 * diagonal. L (unit diagonal, below it) and U (on and above it) take the
 * matrix's pattern, and L U equals the matrix on that pattern; where the
 * exact LU has no fill-in (a tridiagonal matrix), L U is the matrix.
 *
 * Threads: the factorization and the forward substitution take row i after
 * the rows its L part names, the backward one after those of its U part.
 * With T threads the rows are cut into T parts by a key (on a grid: the x
 * index, cvode_ilu_plan.c) such that a part waits only on the parts before
 * it going forward and after it going backward; the parts then go on
 * together, each a grid line behind the one it waits on. Each row's
 * arithmetic is the same on any number of threads, so are the results, bit
 * for bit.
 */
#ifndef QMOL_CVODE_ILU_H
#define QMOL_CVODE_ILU_H

#include <stdint.h>
#include <sundials/sundials_types.h>

/* A part's progress, counted by the thread that runs it (one cache line). */
typedef struct ilu0_progress {
    int32_t forward;  /* rows done from the part's first */
    int32_t backward; /* rows done from the part's last */
    char pad[56];
} ilu0_progress;

/* The parts of a threaded ILU(0) (cvode_ilu_plan.c). */
typedef struct ilu0_plan {
    int parts;               /* 1: one thread, the rest unused */
    int32_t *rows;           /* part p's rows, increasing: rows[first[p] .. first[p + 1]) */
    int32_t *first;          /* parts + 1 */
    int32_t *first_chunk;    /* parts + 1: part p's chunks of ILU0_CHUNK rows */
    int32_t *need_forward;   /* [chunk][part q]: rows of q done (from its first) the chunk needs */
    int32_t *need_backward;  /* [chunk][part q]: rows of q done from its last */
    ilu0_progress *progress; /* parts */
} ilu0_plan;

/* Rows a thread takes between two looks at the others' progress. */
#define ILU0_CHUNK 64

typedef struct ilu0 {
    int32_t n;
    const sunindextype *ptr, *col; /* the pattern (the caller's) */
    const int64_t *diag;           /* slot of (i, i) in row i */
    double *lu;                    /* nnz values: the matrix, then L and U */
    double *dinv;                  /* n: 1 / U_ii */
    ilu0_plan plan;
} ilu0;

/* Allocates the storage of a factorization on the pattern (kept by
 * reference), and its parts for nthreads threads by key (NULL or nthreads
 * 1: one thread). Returns 0 or -1 (out of memory). */
int ilu0_init(ilu0 *f, int32_t n, const sunindextype *ptr, const sunindextype *col,
              const int64_t *diag, int nthreads, const int32_t *key);
void ilu0_free(ilu0 *f);
/* Factors f->lu in place (no allocation). Returns 0, or 1 when a pivot is
 * zero or not finite. */
int ilu0_factor(ilu0 *f);
/* x = (L U)^-1 b by a forward and a backward substitution; x may be b. */
void ilu0_solve(ilu0 *f, const double *b, double *x);

/* cvode_ilu_plan.c: the parts of f's rows for `parts` threads (f->plan):
 * consecutive ranges of key[i] >= 0 holding about n / parts rows each. When
 * a row depends on a row of a later part (forward) or an earlier one
 * (backward), or n is small, f->plan.parts is 1. Returns 0 or -1. */
int ilu0_plan_build(ilu0 *f, int parts, const int32_t *key);
void ilu0_plan_free(ilu0_plan *p);

#endif
