/* model.c: builds the CSR rows and their transpose (the dependents) from a
 * problem's row callbacks, checking every row. */
#include "model.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void model_free(model *m) {
    free(m->row_ptr);
    free(m->row_col);
    free(m->diag_entry);
    free(m->dep_ptr);
    free(m->dep_row);
    free(m->dep_entry);
    memset(m, 0, sizeof *m);
}

static int fail(model *m, char *err, size_t errlen, const char *msg) {
    snprintf(err, errlen, "%s", msg);
    model_free(m);
    return -1;
}

/* Fills row_col from the problem, checking ids; cols is scratch of max_row. */
static int fill_rows(model *m, const qmol_problem *p, int64_t *cols, char *err, size_t errlen) {
    for (int32_t j = 0; j < m->n; j++) {
        int64_t start = m->row_ptr[j];
        int len = (int)(m->row_ptr[j + 1] - start);
        if (len > 0) p->row(p->data, j, cols);
        m->diag_entry[j] = -1;
        for (int k = 0; k < len; k++) {
            if (cols[k] < 0 || cols[k] >= p->n) {
                snprintf(err, errlen,
                         "problem row %d reads state %lld, outside [0, %lld): the problem's row "
                         "function is wrong",
                         (int)j, (long long)cols[k], (long long)p->n);
                return -1;
            }
            m->row_col[start + k] = (int32_t)cols[k];
            if (cols[k] == j) m->diag_entry[j] = start + k;
        }
    }
    return 0;
}

/* Builds the transpose; also detects duplicate entries in a row, which would
 * show up as two consecutive equal rows in a dependents list. */
static int fill_dependents(model *m, char *err, size_t errlen) {
    int64_t *fill = calloc((size_t)m->n + 1, sizeof *fill);
    if (!fill) return -1;
    for (int64_t e = 0; e < m->nnz; e++)
        m->dep_ptr[m->row_col[e] + 1]++;
    for (int32_t i = 0; i < m->n; i++)
        m->dep_ptr[i + 1] += m->dep_ptr[i];
    for (int32_t j = 0; j < m->n; j++) {
        for (int64_t e = m->row_ptr[j]; e < m->row_ptr[j + 1]; e++) {
            int32_t i = m->row_col[e];
            int64_t pos = m->dep_ptr[i] + fill[i]++;
            if (pos > m->dep_ptr[i] && m->dep_row[pos - 1] == j) {
                snprintf(err, errlen, "problem row %d lists state %d twice", (int)j, (int)i);
                free(fill);
                return -1;
            }
            m->dep_row[pos] = j;
            m->dep_entry[pos] = e;
        }
    }
    free(fill);
    return 0;
}

int model_build(model *m, const qmol_problem *p, char *err, size_t errlen) {
    memset(m, 0, sizeof *m);
    if (errlen) err[0] = '\0';
    m->problem = p;
    if (p->n < 1 || p->n > INT32_MAX - 1) {
        snprintf(err, errlen, "problem size n=%lld outside [1, %d] for one rank", (long long)p->n,
                 INT32_MAX - 1);
        return -1;
    }
    m->n = (int32_t)p->n;
    size_t n = (size_t)m->n;
    m->row_ptr = calloc(n + 1, sizeof *m->row_ptr);
    m->diag_entry = malloc(n * sizeof *m->diag_entry);
    m->dep_ptr = calloc(n + 1, sizeof *m->dep_ptr);
    if (!m->row_ptr || !m->diag_entry || !m->dep_ptr)
        return fail(m, err, errlen, "out of memory building the dependency graph");
    for (int32_t j = 0; j < m->n; j++) {
        int len = p->row_size(p->data, j);
        if (len < 0 || len > m->n) {
            snprintf(err, errlen, "problem row %d has invalid size %d", (int)j, len);
            model_free(m);
            return -1;
        }
        if (len > m->max_row) m->max_row = len;
        m->row_ptr[j + 1] = m->row_ptr[j] + len;
    }
    m->nnz = m->row_ptr[n];
    size_t nnz = (size_t)m->nnz;
    m->row_col = malloc((nnz ? nnz : 1) * sizeof *m->row_col);
    m->dep_row = malloc((nnz ? nnz : 1) * sizeof *m->dep_row);
    m->dep_entry = malloc((nnz ? nnz : 1) * sizeof *m->dep_entry);
    int64_t *cols = malloc(((size_t)m->max_row + 1) * sizeof *cols);
    if (!m->row_col || !m->dep_row || !m->dep_entry || !cols) {
        free(cols);
        return fail(m, err, errlen, "out of memory building the dependency graph");
    }
    int rc = fill_rows(m, p, cols, err, errlen);
    free(cols);
    if (rc == 0) rc = fill_dependents(m, err, errlen);
    if (rc != 0) {
        if (!err[0]) snprintf(err, errlen, "out of memory building the dependency graph");
        model_free(m);
        return -1;
    }
    return 0;
}
