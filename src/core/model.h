/* model.h: the dependency graph of a problem, in CSR form.
 *
 * rows: for each state j, the states f_j reads (local ids), each once, in the
 * order of the problem's row (a state listed again is kept where it was first
 * listed). Rows that list a state more than once (a reflecting boundary reads
 * its neighbour twice) also keep their listing: model_rhs and model_jac hand
 * the problem the values as it listed them and sum its Jacobian entries of a
 * state listed several times into that state's one entry.
 * dependents: for each state i, the rows j whose f_j reads i, with the position
 * of that entry inside row j (so per-entry data such as Jacobian estimates can
 * be updated while walking the dependents of a changed state).
 * Nothing is dense in n; one rank holds n < 2^31 states.
 *
 * On several ranks the model is local: rows for the n owned states, columns
 * over n_cols = owned + ghost states (local ids as in comm/halo.h), and
 * gid[j] the global id of local state j (what the problem's callbacks take).
 * The dependents then cover all n_cols columns (a ghost's readers).
 */
#ifndef QMOL_MODEL_H
#define QMOL_MODEL_H

#include "qmol.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

typedef struct model {
    const qmol_problem *problem;
    int32_t n;           /* rows: the states integrated here */
    int32_t n_cols;      /* columns: n plus ghosts */
    const int64_t *gid;  /* n_cols global ids, or NULL when local = global */
    int32_t max_row;     /* longest row (distinct states) */
    int64_t nnz;         /* total row entries */
    int64_t *row_ptr;    /* n + 1 */
    int32_t *row_col;    /* nnz: the states f_j reads */
    int64_t *diag_entry; /* n: position of (j, j) in row j, or -1 */
    int64_t *dep_ptr;    /* n_cols + 1 */
    int32_t *dep_row;    /* nnz: rows j that read state i */
    int64_t *dep_entry;  /* nnz: position of (j, i) inside row j's entries */
    /* The listing of rows that repeat a state: position k of row j as the
     * problem lists it reads entry list_pos[list_ptr[j] + k] of row j (an
     * offset from row_ptr[j]); a row that repeats none has no positions
     * (list_ptr[j + 1] == list_ptr[j]). Both NULL when no row repeats one. */
    int64_t *list_ptr; /* n + 1 */
    int32_t *list_pos;
    int32_t max_list; /* longest row as listed (repeats counted) */
} model;

/* Builds the graph; checks every row (size >= 0, ids in range). Returns 0, or
 * -1 with a message naming the bad row in err. */
int model_build(model *m, const qmol_problem *p, char *err, size_t errlen);
/* The local model of a distributed run: rows for the owned states gid[0 ..
 * n_owned) (ascending), columns over all n_cols local states; every column a
 * row reads must be among gid (the halo plan guarantees it). gid must
 * outlive the model. */
int model_build_local(model *m, const qmol_problem *p, const int64_t *gid, int32_t n_owned,
                      int32_t n_cols, char *err, size_t errlen);
void model_free(model *m);

/* Local row of global id g among the rows (ascending ids), or -1. */
int32_t model_row_of(const model *m, int64_t g);

/* Global id of local state j. */
static inline int64_t model_gid(const model *m, int32_t j) {
    return m->gid ? m->gid[j] : (int64_t)j;
}

/* The QSS quantum of local state j at value x: reltol |x| or abstol
 * times the problem's abstol_scale of j, the larger (qss_engine.c's
 * eng_quantum; the moving block's plan, moving_plan.c). */
static inline double model_quantum(const model *m, int32_t j, double x, double reltol,
                                   double abstol) {
    double rel = reltol * fabs(x), abs = abstol;
    if (m->problem->abstol_scale)
        abs *= m->problem->abstol_scale(m->problem->data, model_gid(m, j));
    return rel > abs ? rel : abs;
}

/* Entries in local row j. */
static inline int model_row_length(const model *m, int32_t j) {
    return (int)(m->row_ptr[j + 1] - m->row_ptr[j]);
}

/* Row j's values, in the model's order, from the local states x (n_cols
 * values) into vals (model_rhs's and model_jac's vals); returns the row's
 * length. */
static inline int model_gather(const model *m, int32_t j, const double *x, double *vals) {
    int64_t start = m->row_ptr[j], len = m->row_ptr[j + 1] - start;
    for (int64_t k = 0; k < len; k++)
        vals[k] = x[m->row_col[start + k]];
    return (int)len;
}

/* Doubles of scratch that model_rhs and model_jac need: 0 when no row
 * repeats a state. */
static inline size_t model_scratch_size(const model *m) {
    return m->list_ptr ? 2 * (size_t)m->max_list : 0;
}

/* f_j at t, vals[e] the value of entry e of row j (the model's order, each
 * state once); scratch: model_scratch_size(m) doubles (several threads: one
 * each). A row that repeats a state gets its values spread to the listing
 * first: one copy per listed position, no search. */
static inline double model_rhs(const model *m, int32_t j, double t, const double *vals,
                               double *scratch) {
    const qmol_problem *p = m->problem;
    if (m->list_ptr && m->list_ptr[j + 1] > m->list_ptr[j]) {
        const int32_t *pos = m->list_pos + m->list_ptr[j];
        int64_t len = m->list_ptr[j + 1] - m->list_ptr[j];
        for (int64_t k = 0; k < len; k++)
            scratch[k] = vals[pos[k]];
        vals = scratch;
    }
    return p->rhs(p->data, model_gid(m, j), t, vals);
}

/* The problem's Jacobian row j at t into dfdv[e] = d f_j / d (state of entry
 * e): for a state listed several times, the sum of its positions' entries.
 * vals and scratch as for model_rhs; p->jac must be set. */
static inline void model_jac(const model *m, int32_t j, double t, const double *vals, double *dfdv,
                             double *scratch) {
    const qmol_problem *p = m->problem;
    if (!m->list_ptr || m->list_ptr[j + 1] == m->list_ptr[j]) {
        p->jac(p->data, model_gid(m, j), t, vals, dfdv);
        return;
    }
    const int32_t *pos = m->list_pos + m->list_ptr[j];
    int64_t len = m->list_ptr[j + 1] - m->list_ptr[j];
    double *listed = scratch, *d = scratch + m->max_list;
    for (int64_t k = 0; k < len; k++)
        listed[k] = vals[pos[k]];
    p->jac(p->data, model_gid(m, j), t, listed, d);
    for (int e = 0, n = model_row_length(m, j); e < n; e++)
        dfdv[e] = 0.0;
    for (int64_t k = 0; k < len; k++)
        dfdv[pos[k]] += d[k];
}

/* f_j at t (returned) and its Jacobian row into dfdv, as model_rhs and
 * model_jac give them: one call where the problem has rhs_jac (p->jac must
 * be set). */
static inline double model_rhs_jac(const model *m, int32_t j, double t, const double *vals,
                                   double *dfdv, double *scratch) {
    const qmol_problem *p = m->problem;
    if (!p->rhs_jac || (m->list_ptr && m->list_ptr[j + 1] > m->list_ptr[j])) {
        double f = model_rhs(m, j, t, vals, scratch);
        model_jac(m, j, t, vals, dfdv, scratch);
        return f;
    }
    return p->rhs_jac(p->data, model_gid(m, j), t, vals, dfdv);
}

#endif
