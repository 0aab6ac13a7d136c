/* cvode_pattern.c: the sparsity of the Newton matrix I - gamma J.
 *
 * The CSR pattern covers the owned rows, cut into equal runs of consecutive
 * rows of at most block_rows, and in each row the owned columns of its own
 * run: with block_rows >= n on one rank that is the whole matrix (KLU);
 * otherwise the diagonal blocks for the block-Jacobi preconditioner (ghost
 * columns always dropped). The diagonal is added where a row lacks it
 * (I - gamma J never has a structurally zero diagonal). Also the
 * half-bandwidths for the band solver.
 */
#include "cvode/cvode_internal.h"

#include <stdlib.h>

int cvp_build(cv_run *r, int32_t block_rows) {
    const model *m = r->m;
    int32_t n = m->n;
    int32_t nblocks = n > 0 ? (n + block_rows - 1) / block_rows : 1;
    int32_t size = (n + nblocks - 1) / nblocks; /* equal blocks */
    r->sp_ptr = malloc(((size_t)n + 1) * sizeof *r->sp_ptr);
    r->sp_pos = malloc((size_t)(m->nnz > 0 ? m->nnz : 1) * sizeof *r->sp_pos);
    r->sp_diag = malloc(((size_t)n + 1) * sizeof *r->sp_diag);
    int64_t *fill = malloc(((size_t)n + 1) * sizeof *fill);
    if (!r->sp_ptr || !r->sp_pos || !r->sp_diag || !fill) {
        free(fill);
        return -1;
    }
    r->sp_ptr[0] = 0;
    for (int32_t j = 0; j < n; j++) {
        int64_t owned = m->diag_entry[j] < 0;
        for (int64_t e = m->row_ptr[j]; e < m->row_ptr[j + 1]; e++) {
            owned += m->row_col[e] < n && m->row_col[e] / size == j / size;
            r->sp_pos[e] = -1;
        }
        r->sp_ptr[j + 1] = r->sp_ptr[j] + owned;
    }
    r->sp_nnz = r->sp_ptr[n];
    r->sp_col = malloc((size_t)(r->sp_nnz > 0 ? r->sp_nnz : 1) * sizeof *r->sp_col);
    if (!r->sp_col) {
        free(fill);
        return -1;
    }
    for (int32_t j = 0; j < n; j++)
        fill[j] = r->sp_ptr[j];
    /* Walking the owned columns in order through their dependents lists (a
     * counting sort) leaves every row sorted by column. */
    for (int32_t i = 0; i < n; i++) {
        if (m->diag_entry[i] < 0) {
            r->sp_diag[i] = fill[i];
            r->sp_col[fill[i]++] = i;
        }
        for (int64_t d = m->dep_ptr[i]; d < m->dep_ptr[i + 1]; d++) {
            int32_t j = m->dep_row[d];
            if (j / size != i / size) continue;
            int64_t slot = fill[j]++;
            r->sp_col[slot] = i;
            r->sp_pos[m->dep_entry[d]] = slot;
            if (j == i) r->sp_diag[i] = slot;
        }
    }
    free(fill);
    return 0;
}

void cvp_band_widths(const model *m, sunindextype *mu, sunindextype *ml) {
    *mu = 0;
    *ml = 0;
    for (int32_t j = 0; j < m->n; j++) {
        for (int64_t e = m->row_ptr[j]; e < m->row_ptr[j + 1]; e++) {
            if (m->row_col[e] >= m->n) continue; /* a ghost or an input */
            sunindextype off = (sunindextype)m->row_col[e] - j;
            if (off > *mu) *mu = off;
            if (-off > *ml) *ml = -off;
        }
    }
}
