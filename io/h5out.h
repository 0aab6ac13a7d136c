/* h5out.h: the HDF5 result file (parallel HDF5 through MPI-IO).
 *
 * Layout (see docs/output.md):
 *   /time    (K)      sample times
 *   /states  (K x n)  sampled states, chunked, one row per sample
 *   /stats   group of scalar attributes (events, rhs_evals, wall times, ...)
 *   root attributes: layout ("qmol-1"), qmol_version, problem, method, reltol,
 *   abstol, t0, tf, samples, n, and one attribute "param.<name>" per problem
 *   parameter; for grid problems also ndims, dims, origin, spacing, components.
 * The file is written under FILE.partial and renamed to FILE by h5out_finish,
 * so an interrupted run never leaves a file that looks complete.
 */
#ifndef QMOL_H5OUT_H
#define QMOL_H5OUT_H

#include "qmol.h"
#include "stats.h"
#include <stddef.h>
#include <stdint.h>

typedef struct h5out h5out;

typedef struct h5out_meta {
    const char *problem;
    const char *method;
    const char *linsol; /* CVODE's linear solver, NULL for QSS methods */
    double reltol, abstol, t0, tf;
    int64_t samples;
    const qmol_problem_def *def; /* parameter names */
    const double *param_values;
    const qmol_problem *prob; /* n and geometry */
} h5out_meta;

/* Creates PATH.partial; fails (err set, -1 returned via NULL) if it cannot. */
h5out *h5out_create(const char *path, const h5out_meta *meta, char *err, size_t errlen);
/* Writes sample k (1..K) at time t: x holds all n states. Collective. Returns
 * 0, or -1 (the reason is kept: see h5out_error; h5out_finish then fails). */
int h5out_sample(h5out *w, int64_t k, double t, const double *x);
/* The first h5out_sample failure as a one-line message, or NULL. */
const char *h5out_error(const h5out *w);
/* Writes stats, closes, renames PATH.partial to PATH. Frees w. Fails unless
 * all K samples were written; on failure the partial file is removed, except
 * when only the final rename failed (the message then names the .partial). */
int h5out_finish(h5out *w, const qmol_stats *stats, char *err, size_t errlen);
/* Closes and removes the partial file. Frees w. */
void h5out_abort(h5out *w);

/* `qmol info FILE`: prints a summary table to stdout. Returns 0, or 2 with a
 * message on stderr if FILE is missing or not a qmol result. */
int h5out_info(const char *path);

#endif
