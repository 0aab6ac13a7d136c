/* cvode_ilu.c: ILU(0) on a CSR pattern (row by row, the IKJ variant).
 *
 * Row i is reduced by the rows c < i it holds, in increasing c: its entry
 * (i, c) becomes L_ic = a_ic / U_cc, and U's row c, scaled by it, is taken
 * off the entries of row i that lie on the pattern (the rest, the fill-in,
 * is dropped); both rows are sorted, so one walk along each finds the
 * common columns. On several threads each runs a part of the rows and waits,
 * chunk by chunk, for the rows of other parts that its chunk names
 * (cvode_ilu.h).
 */
#include "cvode/cvode_ilu.h"

#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

int ilu0_init(ilu0 *f, int32_t n, const sunindextype *ptr, const sunindextype *col,
              const int64_t *diag, int nthreads, const int32_t *key) {
    memset(f, 0, sizeof *f);
    f->n = n;
    f->ptr = ptr;
    f->col = col;
    f->diag = diag;
    f->plan.parts = 1;
    size_t nnz = n > 0 ? (size_t)ptr[n] : 0;
    f->lu = malloc((nnz > 0 ? nnz : 1) * sizeof *f->lu);
    f->dinv = malloc(((size_t)n + 1) * sizeof *f->dinv);
    if (!f->lu || !f->dinv || (nthreads > 1 && key && ilu0_plan_build(f, nthreads, key))) {
        ilu0_free(f);
        return -1;
    }
    return 0;
}

void ilu0_free(ilu0 *f) {
    free(f->lu);
    free(f->dinv);
    f->lu = f->dinv = NULL;
    ilu0_plan_free(&f->plan);
}

/* Row i: L's entries and U's by the rows above, then its pivot; 1 when the
 * pivot is zero or not finite. */
static int factor_row(ilu0 *f, int32_t i) {
    const sunindextype *ptr = f->ptr, *col = f->col;
    double *lu = f->lu;
    for (sunindextype k = ptr[i]; k < f->diag[i]; k++) {
        sunindextype c = col[k];
        double l = lu[k] * f->dinv[c];
        lu[k] = l;
        sunindextype s = k + 1; /* row i's columns after c */
        for (sunindextype u = f->diag[c] + 1; u < ptr[c + 1]; u++) {
            while (s < ptr[i + 1] && col[s] < col[u])
                s++;
            if (s == ptr[i + 1]) break;
            if (col[s] == col[u]) lu[s] -= l * lu[u];
        }
    }
    double pivot = lu[f->diag[i]];
    f->dinv[i] = 1.0 / pivot;
    return pivot == 0.0 || !isfinite(pivot) || !isfinite(f->dinv[i]);
}

static void forward_row(const ilu0 *f, int32_t i, const double *b, double *x) {
    double s = b[i];
    for (sunindextype k = f->ptr[i]; k < f->diag[i]; k++)
        s -= f->lu[k] * x[f->col[k]];
    x[i] = s;
}

static void backward_row(const ilu0 *f, int32_t i, double *x) {
    double s = x[i];
    for (sunindextype k = f->diag[i] + 1; k < f->ptr[i + 1]; k++)
        s -= f->lu[k] * x[f->col[k]];
    x[i] = s * f->dinv[i];
}

/* Until another part's counter reaches need (its thread is running). */
static void wait_for(const int32_t *counter, int32_t need) {
    for (unsigned spins = 1; __atomic_load_n(counter, __ATOMIC_ACQUIRE) < need; spins++)
        if (spins % 1024 == 0) sched_yield(); /* more threads than free cores */
}

enum { FACTOR, FORWARD, BACKWARD };

/* This thread's share of one sweep: parts t, t + team, ... in the sweep's
 * order (a part waits only on parts before it going forward, after it going
 * backward, which their threads run or this one ran). Returns the factor's
 * pivot flag. */
static int sweep_parts(ilu0 *f, int what, const double *b, double *x) {
    const ilu0_plan *P = &f->plan;
    int team = omp_get_num_threads(), t = omp_get_thread_num(), bad = 0;
    int last = t + (P->parts - 1 - t) / team * team;
    for (int p = what == BACKWARD ? last : t; p >= 0 && p < P->parts;
         p += what == BACKWARD ? -team : team) {
        int32_t size = P->first[p + 1] - P->first[p];
        const int32_t *rows = P->rows + P->first[p];
        int32_t chunks = P->first_chunk[p + 1] - P->first_chunk[p];
        for (int32_t j = 0; j < chunks; j++) {
            int32_t c = what == BACKWARD ? chunks - 1 - j : j; /* chunk of the part */
            const int32_t *need = (what == BACKWARD ? P->need_backward : P->need_forward) +
                                  (size_t)(P->first_chunk[p] + c) * (size_t)P->parts;
            for (int q = 0; q < P->parts; q++)
                if (need[q] > 0)
                    wait_for(what == BACKWARD ? &P->progress[q].backward : &P->progress[q].forward,
                             need[q]);
            int32_t lo = c * ILU0_CHUNK, hi = lo + ILU0_CHUNK < size ? lo + ILU0_CHUNK : size;
            if (what == FACTOR)
                for (int32_t r = lo; r < hi; r++)
                    bad |= factor_row(f, rows[r]);
            else if (what == FORWARD)
                for (int32_t r = lo; r < hi; r++)
                    forward_row(f, rows[r], b, x);
            else
                for (int32_t r = hi - 1; r >= lo; r--)
                    backward_row(f, rows[r], x);
            if (what == BACKWARD)
                __atomic_store_n(&P->progress[p].backward, size - lo, __ATOMIC_RELEASE);
            else
                __atomic_store_n(&P->progress[p].forward, hi, __ATOMIC_RELEASE);
        }
    }
    return bad;
}

static void reset_progress(ilu0_plan *P) {
    for (int p = 0; p < P->parts; p++)
        P->progress[p].forward = P->progress[p].backward = 0;
}

int ilu0_factor(ilu0 *f) {
    int bad = 0;
    if (f->plan.parts > 1) {
        reset_progress(&f->plan);
#pragma omp parallel num_threads(f->plan.parts) reduction(| : bad)
        bad |= sweep_parts(f, FACTOR, NULL, NULL);
        return bad;
    }
    for (int32_t i = 0; i < f->n; i++) /* every row: a sweep cannot stop early */
        bad |= factor_row(f, i);
    return bad;
}

void ilu0_solve(ilu0 *f, const double *b, double *x) {
    if (f->plan.parts > 1) {
        reset_progress(&f->plan);
#pragma omp parallel num_threads(f->plan.parts)
        {
            sweep_parts(f, FORWARD, b, x);
#pragma omp barrier
            sweep_parts(f, BACKWARD, NULL, x);
        }
        return;
    }
    for (int32_t i = 0; i < f->n; i++) /* L y = b, L's diagonal 1 */
        forward_row(f, i, b, x);
    for (int32_t i = f->n - 1; i >= 0; i--) /* U x = y */
        backward_row(f, i, x);
}
