/* h5out.h: the HDF5 result file (parallel HDF5 through MPI-IO).
 *
 * Layout (see docs/output.md):
 *   /time    (K)      sample times
 *   /states  (K x m)  sampled states, chunked, one row per sample: all n
 *                     states, or the m that meta.keep selects (/state_ids)
 *   /fields           grid problems whose kept states form a box of cells:
 *                     one K x [nz x] [ny x] nx view of /states per component
 *                     (HDF5 virtual datasets) and the cell coordinates
 *   /xdmf             with /fields: /xdmf/NAME/k, sample k (1..K) of each
 *                     such view on its own, shaped (nz, ny, nx) with 1 for
 *                     missing dimensions: the datasets the XDMF sidecar names
 *   /partition        optional: owner of every state, per-rank sizes
 *   /activity/events  optional (QSS runs): events of every state over the run
 *   /activity/per_sample  optional: the same per sample interval (K x m)
 *   /stats            totals as attributes (counters summed over ranks, wall
 *                     times the maximum), per_rank/ with one dataset per field
 *   root attributes: layout ("qmol-1"), qmol_version, problem, method, reltol,
 *   abstol, t0, tf, samples, n, and one attribute "param.<name>" per problem
 *   parameter; for grid problems also ndims, dims, origin, spacing, components.
 *
 * Every function but h5out_block, h5out_error and h5out_info is collective
 * over the writer's communicator. Rows are written by blocks: rank r passes the states
 * [dir_first(n, P, r), dir_first(n, P, r + 1)) (comm/directory.h; see
 * h5out_block) and writes that hyperslab itself. Failures are agreed: every
 * rank gets the same verdict and message. The file is written under
 * FILE.partial and renamed to FILE by h5out_finish, so an interrupted run
 * never leaves a file that looks complete.
 */
#ifndef QMOL_H5OUT_H
#define QMOL_H5OUT_H

#include "qmol.h"
#include "core/stats.h"
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

typedef struct h5out h5out;

typedef struct h5out_meta {
    const char *problem;
    const char *method;
    const char *linsol;     /* CVODE's linear solver, NULL for QSS methods */
    const char *precond;    /* SPGMR's preconditioner, NULL for the others */
    const char *cvode_norm; /* CVODE's error norm ("rms", "max"), NULL for QSS methods */
    const char *qss_method; /* mixed's QSS block's method, auto's QSS method; NULL for the others */
    double reltol, abstol, t0, tf;
    int64_t samples;
    const qmol_problem_def *def; /* parameter names */
    const double *param_values;
    const qmol_problem *prob; /* n and geometry */
    MPI_Comm comm;            /* MPI_COMM_NULL or 0: MPI_COMM_WORLD; valid until finish */
    int deflate;              /* 0: none; 1..9: deflate level of the row datasets */
    /* --overwrite: a working file PATH.partial that a stopped or killed run
     * left is discarded, and the finished file replaces PATH if PATH
     * appeared meanwhile (without it both are refused) */
    int replace;
    /* The states /states and /activity/per_sample hold: those for which
     * keep(keep_ctx, id) is non-zero (keep_rule, the rule's text, is stored
     * as the root attribute output_states), or all when keep is NULL. */
    int (*keep)(const void *keep_ctx, int64_t id);
    const void *keep_ctx;
    const char *keep_rule;
} h5out_meta;

/* The grid of a result (filled by h5out_create): the box of cells and the
 * components its /states columns hold, when they are all components kept of
 * every cell of a box (ndims = 0 otherwise, or for a problem without a grid).
 * Column j of /states is component component[j % ncomponents] of the box's
 * cell j / ncomponents (cells in C order, x fastest). */
typedef struct h5out_grid {
    int ndims;
    int64_t first[3], dims[3];    /* the box: first cell index and cells per dimension */
    double origin[3], spacing[3]; /* origin: coordinates of the box's first cell */
    int ncomponents;
    int *component;  /* malloc'd, ncomponents entries */
    int64_t columns; /* columns of /states */
} h5out_grid;

/* The group of the per-sample views the XDMF sidecar names: /xdmf/NAME/k. */
#define H5OUT_SAMPLE_VIEWS "xdmf"

/* The name of component c of p's grid (its component_names entry, else "u"
 * for one component, "u0", "u1", ... for several) in buf. */
const char *h5out_component_name(const qmol_problem *p, int c, char *buf, size_t len);
/* Checks p's component_names: NULL, or one per component, each of letters,
 * digits and '_' (not starting with a digit), distinct, none of x y z.
 * Returns 0, or -1 with the reason in err. */
int h5out_check_component_names(const qmol_problem *p, char *err, size_t errlen);

/* One rank's share of a partition (h5out_partition). */
typedef struct h5out_rank_info {
    int64_t owned;    /* states the rank integrates */
    int64_t ghosts;   /* off-rank states it reads */
    int64_t boundary; /* owned states read by another rank */
    double weight;    /* work estimate of the owned states (>= 0) */
    /* Mixed runs (the same on every rank): has_methods set, method_block the
     * integrator of each state of the rank's block (0 QSS, 1 BDF), written
     * as /partition/method, and bdf_owned this rank's BDF states. */
    int has_methods;
    const int8_t *method_block;
    int64_t bdf_owned;
} h5out_rank_info;

/* A file beside result file h5path: h5path with its ".h5" (if any) replaced
 * by suffix, else with suffix appended (malloc'd; NULL when out of memory):
 * the XDMF sidecar (".xmf"), the checkpoint (".ckpt.h5"). */
char *h5out_sibling_path(const char *h5path, const char *suffix);
/* Creates PATH.partial; returns NULL with err set if it cannot. */
h5out *h5out_create(const char *path, const h5out_meta *meta, char *err, size_t errlen);
/* A copy of the output's grid (g->component malloc'd: free it). Returns 0,
 * or -1 when out of memory. */
int h5out_get_grid(const h5out *w, h5out_grid *g);
/* Reopens PATH.partial, left by a run stopped at a checkpoint (SIGTERM,
 * SIGKILL), to go on from sample next_sample: samples before it count as
 * written; /partition, /events, /stats and /activity/events are removed, as
 * the resumed run writes them. meta must describe the same run (samples and
 * written states are checked). Returns NULL with err set if it cannot. */
h5out *h5out_reopen(const char *path, const h5out_meta *meta, int64_t next_sample, char *err,
                    size_t errlen);
/* Collective: writes everything HDF5 holds in memory to PATH.partial, so
 * that the samples written so far survive a crash (a checkpoint flushes the
 * output before it is written). Returns 0, or -1 with err. */
int h5out_flush(h5out *w, char *err, size_t errlen);
/* Closes the file without finishing it: PATH.partial stays, with the samples
 * written so far, for a restart. Frees w. Returns 0, or -1 with err. */
int h5out_suspend(h5out *w, char *err, size_t errlen);
/* This rank's block of states: [*first, *first + *count) (count may be 0). */
void h5out_block(const h5out *w, int64_t *first, int64_t *count);
/* Writes sample k (1..K) at time t (rank 0's t is kept): block holds this
 * rank's block of states (h5out_block; NULL allowed for an empty block).
 * Every rank must pass the same k. Returns 0, or -1 on every rank (the
 * reason is kept: see h5out_error; h5out_finish then fails). */
int h5out_sample(h5out *w, int64_t k, double t, const double *block);
/* The first h5out_sample or h5out_partition failure as a message, or NULL. */
const char *h5out_error(const h5out *w);
/* Writes /partition (at most once): owner_block holds the owner rank of each
 * state of this rank's block (as for h5out_sample), mine this rank's sizes;
 * edge_cut and partition_kind ("metis", "block", "file" or "single") are the
 * same on every rank. Checks owners in [0, P), that each rank's mine->owned
 * is its count in the owner map (so the counts add up to n), and
 * 0 <= boundary <= owned. Returns 0, or -1 with err set on every rank; a
 * failure is also kept (h5out_finish then fails). */
int h5out_partition(h5out *w, const int32_t *owner_block, const h5out_rank_info *mine,
                    int64_t edge_cut, const char *partition_kind, char *err, size_t errlen);
/* Writes /activity/events (at most once): the events of each state of this
 * rank's block over the run (whole numbers as doubles); collective. Returns
 * 0, or -1 with err on every rank (kept: finish then fails). */
int h5out_activity(h5out *w, const double *block, char *err, size_t errlen);
/* Writes row k - 1 of /activity/per_sample (created by the first call): the
 * events of this rank's block since the previous sample; collective, every
 * rank with the same k. Returns 0, or -1 on every rank (kept). */
int h5out_activity_sample(h5out *w, int64_t k, const double *block);
/* Writes /methods (at most once): the `count` segments of a run whose
 * method changed as it ran (--method auto), segment k from t[k] with the
 * method name[k] and bdf_states[k] states on BDF; every rank passes the
 * same; complete = 0 when segments are missing (out of memory while
 * running); start_dropped_to: where the run's first method had got when
 * it was dropped for a probe from t[0] (NAN: it was not). Collective.
 * Returns 0, or -1 with err on every rank (kept: finish then fails). */
int h5out_methods(h5out *w, int64_t count, const double *t, const char *const *name,
                  const int64_t *bdf_states, int complete, double start_dropped_to, char *err,
                  size_t errlen);
/* Writes /events (at most once): this rank's `count` zero crossings, each
 * its time, crossing function and direction (+1 rising, -1 falling), in time
 * order; collective. Returns 0, or -1 with err on every rank (kept: finish
 * then fails). */
int h5out_events(h5out *w, int64_t count, const double *time, const int64_t *crossing,
                 const int8_t *direction, char *err, size_t errlen);
/* Writes stats (this rank's: /stats gets the totals over ranks, counters
 * summed and wall times the maximum, and /stats/per_rank every rank's),
 * closes, renames PATH.partial to PATH. Frees w. Fails on every rank unless
 * all K samples were written and no earlier call failed; on failure the partial file is
 * removed, except when only the final rename failed (the message then names
 * the .partial). */
int h5out_finish(h5out *w, const qmol_stats *stats, char *err, size_t errlen);
/* Closes and removes the partial file. Frees w. */
void h5out_abort(h5out *w);

/* `qmol info FILE` (serial): prints a summary table to stdout. Returns 0, or
 * 2 with a message on stderr if FILE is missing or not a qmol result. */
int h5out_info(const char *path);

#endif
