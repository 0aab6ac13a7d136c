/* linear_rows.c: rows linear but for their own state's term, by shape (see
 * linear_rows.h). */
#include "qss/linear_rows.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What the decomposition may miss, relative to the size of the row's terms:
 * rounding only. */
#define CHECK_TOLERANCE 1e-9
/* A shape's rows share c and b when they agree this closely (relative). */
#define SHARE_TOLERANCE 1e-12
/* The point b and c are taken at: entry k of every row at 1 + k / 8, the
 * same whatever state a run starts from (a run resumed from a checkpoint,
 * a segment of --method auto, must round b and c as the run before it,
 * or it is no longer identical to an uninterrupted run) and cheaper than
 * the problem's x0 (heat3d 40^3: x0's sines took 2,700 instructions a
 * row). A row undefined there (NaN) keeps rhs_jac. */
#define FIXED_POINT(k) (1.0 + 0.125 * (k))

/* The check's second point: each value moved by this much of its size (of
 * 1 where it is 0), a different fraction at each entry: far enough that a
 * term not linear shows above the rounding (sin(v) at v = 0.1 moved by a
 * thousandth misses the line by 5e-10 of the row's terms, by 10% 5e-4). A
 * value moved out of the problem's domain (NaN) keeps rhs_jac. */
#define CHECK_MOVE 0.1

enum { SHAPE_UNSEEN, SHAPE_LINEAR, SHAPE_NOT };

typedef struct scratch {
    double *vals, *moved, *dfdv, *listed, *c;
} scratch;

/* Row j's b and c (into w->c; returned b) from its values w->vals; *size:
 * the size of its terms there. */
static double decompose(const model *m, int32_t j, int len, int own, scratch *w, double *size) {
    const qmol_problem *p = m->problem;
    double dg = 0.0;
    double f = model_rhs(m, j, p->t0, w->vals, w->listed);
    model_jac(m, j, p->t0, w->vals, w->dfdv, w->listed);
    double g = p->own_term(p->data, model_gid(m, j), w->vals[own], &dg);
    double b = f - g;
    *size = fabs(f) + fabs(g);
    for (int k = 0; k < len; k++) {
        w->c[k] = w->dfdv[k] - (k == own ? dg : 0.0);
        b -= w->c[k] * w->vals[k];
        *size += fabs(w->c[k] * w->vals[k]);
    }
    return b;
}

/* Whether b and w->c reproduce row j's rhs at the values moved (size: of
 * its terms at w->vals). */
static int holds(const model *m, int32_t j, int len, int own, scratch *w, double b, double size) {
    const qmol_problem *p = m->problem;
    double dg2 = 0.0;
    for (int k = 0; k < len; k++) {
        double v = w->vals[k];
        w->moved[k] = v + CHECK_MOVE * (1.0 + 0.25 * k) * (fabs(v) > 0.0 ? fabs(v) : 1.0);
    }
    double f2 = model_rhs(m, j, p->t0, w->moved, w->listed);
    double pred = b + p->own_term(p->data, model_gid(m, j), w->moved[own], &dg2);
    double size2 = fabs(b) + fabs(pred);
    for (int k = 0; k < len; k++) {
        pred += w->c[k] * w->moved[k];
        size2 += fabs(w->c[k] * w->moved[k]);
    }
    return isfinite(b) && isfinite(f2) && fabs(f2 - pred) <= CHECK_TOLERANCE * fmax(size, size2);
}

/* Whether row j's c and b are the shape's (c_s, b_s), to rounding. */
static int shares(const double *c, double b, const double *c_s, double b_s, int len) {
    double most = fabs(b_s);
    for (int k = 0; k < len; k++)
        most = fmax(most, fabs(c_s[k]));
    double tol = SHARE_TOLERANCE * most;
    if (!(fabs(b - b_s) <= tol)) return 0;
    for (int k = 0; k < len; k++)
        if (!(fabs(c[k] - c_s[k]) <= tol)) return 0;
    return 1;
}

void linear_rows_free(linear_rows *L) {
    free(L->linear);
    free(L->coef);
    free(L->constant);
    memset(L, 0, sizeof *L);
}

int linear_rows_build(linear_rows *L, const row_shapes *s, const model *m) {
    memset(L, 0, sizeof *L);
    const qmol_problem *p = m->problem;
    if (!p->own_term || !p->jac || p->explicit_time || !s->row || s->nshapes <= 0) return 0;
    size_t row = (size_t)m->max_row + 1, nsh = (size_t)s->nshapes;
    scratch w = {malloc(row * sizeof(double)), malloc(row * sizeof(double)),
                 malloc(row * sizeof(double)), malloc((model_scratch_size(m) + 1) * sizeof(double)),
                 malloc(row * sizeof(double))};
    L->linear = calloc(nsh, 1);
    L->coef = calloc((size_t)s->start[nsh] + 1, sizeof *L->coef);
    L->constant = calloc(nsh, sizeof *L->constant);
    int rc = w.vals && w.moved && w.dfdv && w.listed && w.c && L->linear && L->coef && L->constant
                 ? 0
                 : -1;
    for (int32_t j = 0; rc == 0 && j < m->n; j++) {
        uint16_t sh = s->row[j];
        if (L->linear[sh] == SHAPE_NOT) continue;
        int len, own = s->own[sh];
        row_shapes_list(s, sh, &len);
        if (own < 0) {
            L->linear[sh] = SHAPE_NOT;
            continue;
        }
        for (int k = 0; k < len; k++)
            w.vals[k] = FIXED_POINT(k);
        double size, b = decompose(m, j, len, own, &w, &size);
        double *c_s = L->coef + s->start[sh];
        /* (checked at its shape's first row: the others share its b and c
         * at the same point, or the shape is not linear) */
        if (L->linear[sh] == SHAPE_LINEAR) {
            if (!shares(w.c, b, c_s, L->constant[sh], len)) L->linear[sh] = SHAPE_NOT;
        } else if (holds(m, j, len, own, &w, b, size)) {
            memcpy(c_s, w.c, (size_t)len * sizeof *c_s);
            L->constant[sh] = b;
            L->linear[sh] = SHAPE_LINEAR;
        } else {
            L->linear[sh] = SHAPE_NOT;
        }
    }
    free(w.vals), free(w.moved), free(w.dfdv), free(w.listed), free(w.c);
    for (size_t k = 0; rc == 0 && k < nsh; k++) {
        L->linear[k] = L->linear[k] == SHAPE_LINEAR;
        L->nlinear += L->linear[k];
    }
    if (rc || L->nlinear == 0) linear_rows_free(L);
    return rc;
}
