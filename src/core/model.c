/* model.c: builds the CSR rows and their transpose (the dependents) from a
 * problem's row callbacks, checking every row; a state a row lists more than
 * once becomes one entry, and the row's listing is kept (model.h). */
#include "core/model.h"

#include "comm/sorted_ids.h"

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
    free(m->list_ptr);
    free(m->list_pos);
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

/* Scratch of fill_rows: the problem's listing of one row, and per column the
 * last row that listed it and its entry there (a state listed again is found
 * without a search). */
typedef struct row_scratch {
    int64_t *cols;    /* max_list ids */
    int32_t *pos;     /* max_list: entry of each listed position */
    int32_t *seen_in; /* n_cols: the last row that listed the column, or -1 */
    int32_t *seen_at; /* n_cols: its entry there */
    int64_t list_cap; /* capacity of m->list_pos */
} row_scratch;

/* Row j's listed positions pos[0 .. len) appended to list_pos (the first
 * row with a repeat creates the listing). Returns 0 or -1 (out of memory). */
static int keep_listing(model *m, row_scratch *s, int32_t j, int len) {
    if (!m->list_ptr && !(m->list_ptr = calloc((size_t)m->n + 1, sizeof *m->list_ptr))) return -1;
    int64_t at = m->list_ptr[j];
    if (at + len > s->list_cap) {
        int64_t cap = 2 * (at + len) + 64;
        int32_t *grown = realloc(m->list_pos, (size_t)cap * sizeof *grown);
        if (!grown) return -1;
        m->list_pos = grown;
        s->list_cap = cap;
    }
    memcpy(m->list_pos + at, s->pos, (size_t)len * sizeof *s->pos);
    m->list_ptr[j + 1] = at + len;
    return 0;
}

/* Fills row_col from the problem, checking ids: each state once per row, in
 * the order of its first listing. On entry row_ptr holds the listed sizes
 * (cumulative); on return the distinct ones, max_row and nnz set. */
static int fill_rows(model *m, const qmol_problem *p, const col_map *cm, row_scratch *s, char *err,
                     size_t errlen) {
    int64_t listed_start = 0, out = 0;
    for (int32_t j = 0; j < m->n; j++) {
        int64_t listed_end = m->row_ptr[j + 1], g = model_gid(m, j);
        int len = (int)(listed_end - listed_start), distinct = 0;
        listed_start = listed_end;
        if (len > 0) p->row(p->data, g, s->cols);
        m->row_ptr[j] = out;
        m->diag_entry[j] = -1;
        for (int k = 0; k < len; k++) {
            int64_t id = s->cols[k];
            int32_t c = id < 0 || id >= p->n ? -1 : map_col(cm, id);
            if (c < 0) {
                snprintf(err, errlen,
                         id < 0 || id >= p->n
                             ? "problem row %lld reads state %lld, outside [0, %lld): the "
                               "problem's row function is wrong"
                             : "problem row %lld reads state %lld, which is not in this rank's "
                               "halo (n = %lld): the problem's row function is not deterministic",
                         (long long)g, (long long)id, (long long)p->n);
                return -1;
            }
            if (s->seen_in[c] == j) { /* listed again: its first entry */
                s->pos[k] = s->seen_at[c];
                continue;
            }
            s->seen_in[c] = j;
            s->seen_at[c] = s->pos[k] = distinct;
            m->row_col[out + distinct] = c;
            if (c == j) m->diag_entry[j] = out + distinct;
            distinct++;
        }
        if (m->list_ptr) m->list_ptr[j + 1] = m->list_ptr[j];
        if (distinct < len && keep_listing(m, s, j, len)) {
            snprintf(err, errlen, "out of memory for the listing of problem row %lld",
                     (long long)g);
            return -1;
        }
        if (distinct > m->max_row) m->max_row = distinct;
        out += distinct;
    }
    m->row_ptr[m->n] = out;
    m->nnz = out;
    return 0;
}

/* Builds the transpose (rows hold each state once: so do the dependents). */
static int fill_dependents(model *m) {
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
        if (len < 0) {
            snprintf(err, errlen, "problem row %lld has negative size %d",
                     (long long)model_gid(m, j), len);
            model_free(m);
            return -1;
        }
        if (len > m->max_list) m->max_list = len;
        m->row_ptr[j + 1] = m->row_ptr[j] + len;
    }
    size_t listed = (size_t)m->row_ptr[n], nc = (size_t)m->n_cols;
    size_t width = (size_t)m->max_list + 1;
    row_scratch s = {.cols = malloc(width * sizeof *s.cols), .pos = malloc(width * sizeof *s.pos)};
    s.seen_in = malloc((nc ? nc : 1) * sizeof *s.seen_in);
    s.seen_at = malloc((nc ? nc : 1) * sizeof *s.seen_at);
    m->row_col = malloc((listed ? listed : 1) * sizeof *m->row_col);
    int rc = -1;
    if (s.cols && s.pos && s.seen_in && s.seen_at && m->row_col) {
        for (size_t c = 0; c < nc; c++)
            s.seen_in[c] = -1;
        rc = fill_rows(m, p, cm, &s, err, errlen);
    }
    free(s.cols), free(s.pos), free(s.seen_in), free(s.seen_at);
    if (rc == 0) {
        size_t nnz = (size_t)m->nnz;
        if (nnz < listed) { /* repeats dropped: give back their room */
            int32_t *shrunk = realloc(m->row_col, (nnz ? nnz : 1) * sizeof *m->row_col);
            if (shrunk) m->row_col = shrunk;
        }
        m->dep_row = malloc((nnz ? nnz : 1) * sizeof *m->dep_row);
        m->dep_entry = malloc((nnz ? nnz : 1) * sizeof *m->dep_entry);
        rc = m->dep_row && m->dep_entry ? fill_dependents(m) : -1;
    }
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
