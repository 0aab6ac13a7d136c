/* model.h: the dependency graph of a problem, in CSR form.
 *
 * rows: for each state j, the states f_j reads (local ids, problem row order).
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
#include <stddef.h>
#include <stdint.h>

typedef struct model {
    const qmol_problem *problem;
    int32_t n;           /* rows: the states integrated here */
    int32_t n_cols;      /* columns: n plus ghosts */
    const int64_t *gid;  /* n_cols global ids, or NULL when local = global */
    int32_t max_row;     /* longest row */
    int64_t nnz;         /* total row entries */
    int64_t *row_ptr;    /* n + 1 */
    int32_t *row_col;    /* nnz: the states f_j reads */
    int64_t *diag_entry; /* n: position of (j, j) in row j, or -1 */
    int64_t *dep_ptr;    /* n_cols + 1 */
    int32_t *dep_row;    /* nnz: rows j that read state i */
    int64_t *dep_entry;  /* nnz: position of (j, i) inside row j's entries */
} model;

/* Builds the graph; checks every row (ids in range, no duplicates). Returns 0,
 * or -1 with a message naming the bad row in err. */
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

#endif
