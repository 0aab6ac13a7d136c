/* model.c: builds the CSR rows and their transpose (the dependents) from a
 * problem's row callbacks, checking every row. */
#include "model.h"

#include "sorted_ids.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int32_t model_row_of(const model *m, int64_t g) {
    if (!m->gid) return g >= 0 && g < m->n ? (int32_t)g : -1;
    return ids_find(m->gid, m->n, g);
}

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

/* Global -> local column ids of a distributed model: owned ids are ascending
 * in gid[0 .. n); ghosts are looked up in a sorted copy. */
typedef struct col_map {
    const int64_t *owned;
    int32_t n_owned;
    int64_t *ghost_id; /* ascending */
    int32_t *ghost_local;
    int32_t n_ghost;
} col_map;

/* Local id of global id g, or -1. */
static int32_t map_col(const col_map *cm, int64_t g) {
    if (!cm) return (int32_t)g;
    int32_t k = ids_find(cm->owned, cm->n_owned, g);
    if (k >= 0) return k;
    k = ids_find(cm->ghost_id, cm->n_ghost, g);
    return k >= 0 ? cm->ghost_local[k] : -1;
}

/* Fills row_col from the problem, checking ids; cols is scratch of max_row. */
static int fill_rows(model *m, const qmol_problem *p, const col_map *cm, int64_t *cols, char *err,
                     size_t errlen) {
    for (int32_t j = 0; j < m->n; j++) {
        int64_t start = m->row_ptr[j], g = model_gid(m, j);
        int len = (int)(m->row_ptr[j + 1] - start);
        if (len > 0) p->row(p->data, g, cols);
        m->diag_entry[j] = -1;
        for (int k = 0; k < len; k++) {
            int32_t c = cols[k] < 0 || cols[k] >= p->n ? -1 : map_col(cm, cols[k]);
            if (c < 0) {
                snprintf(err, errlen,
                         cols[k] < 0 || cols[k] >= p->n
                             ? "problem row %lld reads state %lld, outside [0, %lld): the "
                               "problem's row function is wrong"
                             : "problem row %lld reads state %lld, which is not in this rank's "
                               "halo (n = %lld): the problem's row function is not deterministic",
                         (long long)g, (long long)cols[k], (long long)p->n);
                return -1;
            }
            m->row_col[start + k] = c;
            if (c == j) m->diag_entry[j] = start + k;
        }
    }
    return 0;
}

/* Builds the transpose; also detects duplicate entries in a row, which would
 * show up as two consecutive equal rows in a dependents list. */
static int fill_dependents(model *m, char *err, size_t errlen) {
    int64_t *fill = calloc((size_t)m->n_cols + 1, sizeof *fill);
    if (!fill) return -1;
    for (int64_t e = 0; e < m->nnz; e++)
        m->dep_ptr[m->row_col[e] + 1]++;
    for (int32_t i = 0; i < m->n_cols; i++)
        m->dep_ptr[i + 1] += m->dep_ptr[i];
    for (int32_t j = 0; j < m->n; j++) {
        for (int64_t e = m->row_ptr[j]; e < m->row_ptr[j + 1]; e++) {
            int32_t i = m->row_col[e];
            int64_t pos = m->dep_ptr[i] + fill[i]++;
            if (pos > m->dep_ptr[i] && m->dep_row[pos - 1] == j) {
                snprintf(err, errlen, "problem row %lld lists state %lld twice",
                         (long long)model_gid(m, j), (long long)model_gid(m, i));
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

/* Rows of m->n states (global ids model_gid), columns mapped by cm. */
static int build_rows(model *m, const qmol_problem *p, const col_map *cm, char *err,
                      size_t errlen) {
    size_t n = (size_t)m->n;
    m->row_ptr = calloc(n + 1, sizeof *m->row_ptr);
    m->diag_entry = malloc((n ? n : 1) * sizeof *m->diag_entry);
    m->dep_ptr = calloc((size_t)m->n_cols + 1, sizeof *m->dep_ptr);
    if (!m->row_ptr || !m->diag_entry || !m->dep_ptr)
        return fail(m, err, errlen, "out of memory building the dependency graph");
    for (int32_t j = 0; j < m->n; j++) {
        int len = p->row_size(p->data, model_gid(m, j));
        if (len < 0 || len > p->n) {
            snprintf(err, errlen, "problem row %lld has invalid size %d (allowed: 0 to n = %lld)",
                     (long long)model_gid(m, j), len, (long long)p->n);
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
    int rc = fill_rows(m, p, cm, cols, err, errlen);
    free(cols);
    if (rc == 0) rc = fill_dependents(m, err, errlen);
    if (rc != 0) {
        if (!err[0]) snprintf(err, errlen, "out of memory building the dependency graph");
        model_free(m);
        return -1;
    }
    return 0;
}

int model_build(model *m, const qmol_problem *p, char *err, size_t errlen) {
    memset(m, 0, sizeof *m);
    if (errlen) err[0] = '\0';
    m->problem = p;
    if (p->n < 1 || p->n > INT32_MAX - 1) {
        snprintf(err, errlen, "problem size n=%lld outside [1, %d] for one rank: run on more ranks",
                 (long long)p->n, INT32_MAX - 1);
        return -1;
    }
    m->n = m->n_cols = (int32_t)p->n;
    return build_rows(m, p, NULL, err, errlen);
}

typedef struct ghost_pair {
    int64_t id;
    int32_t local;
} ghost_pair;

static int cmp_pair(const void *a, const void *b) {
    const ghost_pair *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

int model_build_local(model *m, const qmol_problem *p, const int64_t *gid, int32_t n_owned,
                      int32_t n_cols, char *err, size_t errlen) {
    memset(m, 0, sizeof *m);
    if (errlen) err[0] = '\0';
    m->problem = p;
    m->gid = gid;
    m->n = n_owned;
    m->n_cols = n_cols;
    int32_t ng = n_cols - n_owned;
    ghost_pair *pairs = malloc((size_t)(ng ? ng : 1) * sizeof *pairs);
    col_map cm = {.owned = gid, .n_owned = n_owned, .n_ghost = ng};
    cm.ghost_id = malloc((size_t)(ng ? ng : 1) * sizeof *cm.ghost_id);
    cm.ghost_local = malloc((size_t)(ng ? ng : 1) * sizeof *cm.ghost_local);
    int rc = -1;
    if (pairs && cm.ghost_id && cm.ghost_local) {
        for (int32_t k = 0; k < ng; k++) {
            pairs[k].id = gid[n_owned + k];
            pairs[k].local = n_owned + k;
        }
        qsort(pairs, (size_t)ng, sizeof *pairs, cmp_pair);
        for (int32_t k = 0; k < ng; k++) {
            cm.ghost_id[k] = pairs[k].id;
            cm.ghost_local[k] = pairs[k].local;
        }
        rc = build_rows(m, p, &cm, err, errlen);
    } else {
        snprintf(err, errlen, "out of memory building the local dependency graph");
    }
    free(pairs);
    free(cm.ghost_id);
    free(cm.ghost_local);
    return rc;
}
