/* row_shapes.h: the model's rows and dependents lists as shapes, for the
 * QSS event loop.
 *
 * On a grid most rows read the same states relative to their own (row j
 * reads j - nx, j - 1, j, j + 1, j + nx), and most states are read by the
 * same relative rows. A shape is such a list of offsets; each row and each
 * state's dependents list holds a shape id (2 bytes) instead of the CSR's
 * start (8 bytes) and columns (4 bytes an entry). An event then finds its
 * dependents and their inputs from the ids and a small table that stays in
 * cache, where the CSR costs two dependent loads per list, which miss the
 * cache at 1e6 states (docs/performance.md, "Rows and dependents as
 * shapes").
 *
 * The entries keep the model's order, so row j's entry k reads state
 * j + off[start[row[j]] + k] exactly where the model has
 * row_col[row_ptr[j] + k]. Built only where the shapes are few; the CSR
 * stays the model's, for everything else.
 */
#ifndef QMOL_ROW_SHAPES_H
#define QMOL_ROW_SHAPES_H

#include "core/model.h"

#include <stdint.h>

/* The most shapes kept: ids are 2 bytes. */
#define ROW_SHAPES_MOST 65535

typedef struct row_shapes {
    uint16_t *row;  /* n: row j's shape */
    uint16_t *deps; /* n_cols: the shape of state i's dependents list */
    int32_t *start; /* nshapes + 1: shape s's offsets are off[start[s] .. start[s + 1]) */
    int32_t *off;   /* a row's: column - j; a dependents list's: row - i */
    int8_t *own;    /* nshapes: a row shape's entry at offset 0 (its own state), or -1 */
    int32_t nshapes;
} row_shapes;

/* Builds the shapes of m. Returns 0; 1 when they are not worth it (more
 * than ROW_SHAPES_MOST shapes, their offsets more than a quarter of the
 * CSR's entries, or a list longer than 127): nothing is kept (s->row NULL),
 * the CSR serves; or -1 (out of memory). */
int row_shapes_build(row_shapes *s, const model *m);
/* Frees what row_shapes_build kept; s is left empty (s->row NULL). */
void row_shapes_free(row_shapes *s);

/* The offsets of shape id (s->row[j]: row j's, s->deps[i]: state i's
 * dependents') and their number. */
static inline const int32_t *row_shapes_list(const row_shapes *s, uint16_t id, int *len) {
    *len = s->start[id + 1] - s->start[id];
    return s->off + s->start[id];
}
/* Row j's own entry, or -1. */
static inline int row_shape_own(const row_shapes *s, int32_t j) {
    return s->own[s->row[j]];
}

#endif
