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

/* Row j's b and c (into w->c; returned b) from its values w->vals, and
 * whether they reproduce rhs at the moved values (*ok). */
static double decompose(const model *m, int32_t j, int len, int own, scratch *w, int *ok) {
    const qmol_problem *p = m->problem;
    int64_t gid = model_gid(m, j);
    double t = p->t0, dg = 0.0, dg2 = 0.0;
    double f = model_rhs(m, j, t, w->vals, w->listed);
    model_jac(m, j, t, w->vals, w->dfdv, w->listed);
    double g = p->own_term(p->data, gid, w->vals[own], &dg);
    double b = f - g, size = fabs(f) + fabs(g);
    for (int k = 0; k < len; k++) {
        w->c[k] = w->dfdv[k] - (k == own ? dg : 0.0);
        b -= w->c[k] * w->vals[k];
        size += fabs(w->c[k] * w->vals[k]);
    }
    for (int k = 0; k < len; k++) {
        double v = w->vals[k];
        w->moved[k] = v + CHECK_MOVE * (1.0 + 0.25 * k) * (fabs(v) > 0.0 ? fabs(v) : 1.0);
    }
    double f2 = model_rhs(m, j, t, w->moved, w->listed);
    double pred = b + p->own_term(p->data, gid, w->moved[own], &dg2), size2 = fabs(b) + fabs(pred);
    for (int k = 0; k < len; k++) {
        pred += w->c[k] * w->moved[k];
        size2 += fabs(w->c[k] * w->moved[k]);
    }
    *ok = isfinite(b) && isfinite(f2) && fabs(f2 - pred) <= CHECK_TOLERANCE * fmax(size, size2);
    return b;
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
        const int32_t *off = row_shapes_list(s, sh, &len);
        if (own < 0) {
            L->linear[sh] = SHAPE_NOT;
            continue;
        }
        for (int k = 0; k < len; k++)
            w.vals[k] = p->x0(p->data, model_gid(m, j + off[k]));
        int ok;
        double b = decompose(m, j, len, own, &w, &ok);
        double *c_s = L->coef + s->start[sh];
        if (!ok) {
            L->linear[sh] = SHAPE_NOT;
        } else if (L->linear[sh] == SHAPE_UNSEEN) {
            memcpy(c_s, w.c, (size_t)len * sizeof *c_s);
            L->constant[sh] = b;
            L->linear[sh] = SHAPE_LINEAR;
        } else if (!shares(w.c, b, c_s, L->constant[sh], len)) {
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
