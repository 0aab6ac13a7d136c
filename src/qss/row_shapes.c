/* row_shapes.c: rows and dependents lists as shapes (see row_shapes.h). */
#include "qss/row_shapes.h"

#include "core/big_alloc.h"

#include <stdlib.h>
#include <string.h>

/* Longest list a shape holds (a row's own entry is an int8_t; a state read
 * by more rows than this turns the shapes off too: such hubs are not
 * grids). */
#define SHAPE_LONGEST 127

typedef struct shape_table {
    int32_t *slot; /* open addressing: shape id + 1, 0 empty */
    uint32_t mask;
    int32_t *start, *off;
    int8_t *own;
    int32_t nshapes, noff, cap_off;
} shape_table;

static uint32_t hash_offsets(const int32_t *o, int len) {
    uint32_t h = 2166136261u ^ (uint32_t)len;
    for (int k = 0; k < len; k++) {
        h ^= (uint32_t)o[k];
        h *= 16777619u;
    }
    return h ^ (h >> 15);
}

/* The id of the shape o[0 .. len) (added if new), or -1: too many shapes
 * or too many offsets for the table to be worth it, -2: out of memory. */
static int32_t shape_id(shape_table *T, const int32_t *o, int len, int32_t most_off) {
    uint32_t h = hash_offsets(o, len) & T->mask;
    for (;; h = (h + 1) & T->mask) {
        int32_t id = T->slot[h] - 1;
        if (id < 0) break;
        int32_t a = T->start[id];
        if (T->start[id + 1] - a == len && memcmp(T->off + a, o, (size_t)len * sizeof *o) == 0)
            return id;
    }
    if (T->nshapes >= ROW_SHAPES_MOST || T->noff + len > most_off) return -1;
    if (T->noff + len > T->cap_off) {
        /* (doubled, but never past the budget: no int32 overflow) */
        int64_t want = 2 * (int64_t)T->cap_off + len;
        int32_t cap = want < most_off ? (int32_t)want : most_off;
        int32_t *off = realloc(T->off, (size_t)cap * sizeof *off);
        if (!off) return -2;
        T->off = off, T->cap_off = cap;
    }
    int32_t id = T->nshapes++;
    memcpy(T->off + T->noff, o, (size_t)len * sizeof *o);
    T->own[id] = -1;
    for (int k = 0; k < len; k++)
        if (o[k] == 0 && T->own[id] < 0) T->own[id] = (int8_t)k;
    T->noff += len;
    T->start[id + 1] = T->noff;
    T->slot[h] = id + 1;
    return id;
}

void row_shapes_free(row_shapes *s) {
    free(s->row);
    free(s->deps);
    free(s->start);
    free(s->off);
    free(s->own);
    memset(s, 0, sizeof *s);
}

/* The list of n_lists lists (ptr, idx) as offsets from their owner into
 * ids; returns 0, -1 (give up), -2 (out of memory). */
static int shape_lists(shape_table *T, const int64_t *ptr, const int32_t *idx, int32_t n_lists,
                       uint16_t *ids, int32_t most_off) {
    int32_t o[SHAPE_LONGEST];
    for (int32_t j = 0; j < n_lists; j++) {
        int64_t a = ptr[j], len = ptr[j + 1] - a;
        if (len > SHAPE_LONGEST) return -1;
        for (int64_t k = 0; k < len; k++)
            o[k] = idx[a + k] - j;
        int32_t id = shape_id(T, o, (int)len, most_off);
        if (id < 0) return id;
        ids[j] = (uint16_t)id;
    }
    return 0;
}

int row_shapes_build(row_shapes *s, const model *m) {
    memset(s, 0, sizeof *s);
    shape_table T = {0};
    T.mask = (1u << 17) - 1; /* twice ROW_SHAPES_MOST: probes stay short */
    T.slot = calloc((size_t)T.mask + 1, sizeof *T.slot);
    T.start = calloc(ROW_SHAPES_MOST + 1, sizeof *T.start);
    T.own = malloc(ROW_SHAPES_MOST);
    T.cap_off = 64;
    T.off = malloc((size_t)T.cap_off * sizeof *T.off);
    /* (+ 1: no zero-byte allocation when there are no rows) */
    s->row = big_alloc((size_t)m->n + 1, sizeof *s->row, 0);
    s->deps = big_alloc((size_t)m->n_cols + 1, sizeof *s->deps, 0);
    int rc = T.slot && T.start && T.own && T.off && s->row && s->deps ? 0 : -2;
    /* the table a quarter of the CSR's columns and dependents at most
     * (2 nnz entries): shapes that do not repeat are not worth it, and
     * small irregular models (buck-heatsink, the thesis's examples) keep
     * the CSR */
    int64_t most = 2 * m->nnz / 4;
    int32_t most_off = most > INT32_MAX ? INT32_MAX : (int32_t)most;
    if (rc == 0) rc = shape_lists(&T, m->row_ptr, m->row_col, m->n, s->row, most_off);
    if (rc == 0) rc = shape_lists(&T, m->dep_ptr, m->dep_row, m->n_cols, s->deps, most_off);
    free(T.slot);
    if (rc != 0) {
        free(T.start);
        free(T.own);
        free(T.off);
        row_shapes_free(s);
        return rc == -2 ? -1 : 1;
    }
    /* (the table's room for ROW_SHAPES_MOST shapes given back) */
    size_t ns = (size_t)T.nshapes;
    int32_t *start = realloc(T.start, (ns + 1) * sizeof *start);
    int8_t *own = realloc(T.own, ns ? ns : 1);
    s->start = start ? start : T.start, s->own = own ? own : T.own;
    s->off = T.off, s->nshapes = T.nshapes;
    return 0;
}
