/* linear_rows.h: rows linear in what they read but for a term of their own
 * state (qmol.h own_term), by shape, for the QSS event loop.
 *
 * f_j = b + sum_k c[k] v_k + own_term(j, v_own): on a grid the rows of one
 * shape (row_shapes.h) mostly share b and c (adr2d's interior, each edge),
 * so the engine keeps them once per shape and evaluates such a row, its
 * slope along q and its Jacobian row from them, with no call to rhs. A
 * shape whose rows differ (a varying coefficient), or where the
 * decomposition does not reproduce rhs, keeps the generic path.
 */
#ifndef QMOL_LINEAR_ROWS_H
#define QMOL_LINEAR_ROWS_H

#include "core/model.h"
#include "qss/row_shapes.h"

#include <stdint.h>

typedef struct linear_rows {
    uint8_t *linear;  /* nshapes: 1 where the shape's rows share coef and constant */
    double *coef;     /* per shape entry (as row_shapes.off): c_k */
    double *constant; /* nshapes: b */
    int32_t nlinear;  /* shapes with linear[s] = 1 */
} linear_rows;

/* Finds b and c of every row of m whose shape is in s, from the problem's
 * rhs, jac and own_term at a fixed point (the same however the run
 * started, so that b and c, and their rounding, are the same in a run
 * resumed from a checkpoint or a segment of --method auto started from
 * another's states), and checks them at that point moved by a tenth.
 * Keeps nothing (L->linear NULL) without own_term or shapes, or where no
 * shape qualifies. Returns 0, or -1 (out of memory: nothing kept
 * either). */
int linear_rows_build(linear_rows *L, const row_shapes *s, const model *m);
void linear_rows_free(linear_rows *L);

#endif
