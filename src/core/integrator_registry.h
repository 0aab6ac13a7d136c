/* integrator_registry.h: the methods qmol runs, one entry each.
 *
 * An entry (integrator_def) is all that the run driver (run.c), the options
 * (run_options.c, config.c), checkpoints and the usage know of a method: its
 * name and a one-line description, the function that integrates, the default
 * METIS pieces per rank, and capability flags
 * (INTEGRATOR_*) that the driver asks instead of testing which method runs.
 * A QSS method also points to the QSS engine's table of the method
 * (qss_method, qss_engine.h), which the engine runs. In the style of
 * SUNDIALS' ops tables and PETSc's TSRegister: adding a method is a file
 * and one entry in integrator_registry.c (docs/architecture.md, "Adding a
 * method").
 *
 * integrator_options.method (and qss_method), run_config.method (and
 * qss_method) point to entries; entries live for the program's life.
 */
#ifndef QMOL_INTEGRATOR_REGISTRY_H
#define QMOL_INTEGRATOR_REGISTRY_H

#include "core/integrator.h"

#include <stddef.h>
#include <stdint.h>

struct qss_method;

/* qss_integrate, cvode_integrate, mixed_integrate (integrator.h). */
typedef int (*integrate_fn)(const model *m, const integrator_options *o, sample_fn sample,
                            void *ctx, qmol_stats *stats, char *err, size_t errlen);

/* Capabilities: what the driver asks of a method. */
enum {
    /* Runs the QSS engine, alone or as the QSS block: progress and the
     * summary count events (the others' work is steps), /activity holds
     * each state's events, and a rate that follows t without explicit_time
     * is warned about (the QSS methods of order 2 miss df/dt). */
    INTEGRATOR_QSS_ENGINE = 1u << 0,
    /* Has a CVODE BDF block: --linsol klu and band need one rank; the
     * summary shows CVODE's counters. */
    INTEGRATOR_BDF = 1u << 1,
    /* The BDF block holds every state (CVODE alone): the driver resolves
     * --linsol auto and the SPGMR preconditioner, and names them in the
     * summary and the output. */
    INTEGRATOR_BDF_ALL = 1u << 2,
    /* Assigns each state to a QSS or a BDF block: needs --bdf, --bdf-file or
     * --assign auto (which no other method takes); --qss-method and
     * --coupling apply; on several ranks METIS balances the two blocks as
     * vertex classes, and --assign auto's hops around the discontinuities
     * are gathered with them. A run whose assignment leaves a block empty
     * runs the other block's method alone (bdf_alone, or --qss-method). */
    INTEGRATOR_ASSIGNS = 1u << 3,
    /* The solver's counters are the same on every rank (one CVODE instance
     * over all ranks): they are counted once (stats_count_global_once). */
    INTEGRATOR_GLOBAL_COUNTERS = 1u << 4,
    /* Every rank handles every discontinuity: rank 0 alone logs /events. */
    INTEGRATOR_EVENTS_ON_EVERY_RANK = 1u << 5,
    /* The states that crossing functions read and handlers change (and
     * their neighbours) are partitioned onto one rank (part_gather.h): the
     * QSS engine handles discontinuities on one rank. */
    INTEGRATOR_GATHER_DISCRETE = 1u << 6,
    /* METIS weighs each state by its row's length (the work of its event). */
    INTEGRATOR_WEIGHT_BY_ROW = 1u << 7,
    /* One rank: the balance of the states' sum is checked at window ends
     * (mass_check.h; BQSS), and a run that breaks it stops with
     * INTEGRATOR_UNSUITED. */
    INTEGRATOR_BALANCE_CHECK = 1u << 8,
    /* Chooses among other entries as it runs (auto): an assignment that
     * leaves a block empty does not replace it; --assign auto is implied
     * unless --bdf or --bdf-file gives the split; it logs its switches in
     * integrator_options.methods (the summary and /methods show them). */
    INTEGRATOR_CHOOSES = 1u << 9,
    /* Runs a QSS method of --qss-method's choice beside CVODE (mixed, auto,
     * moving). */
    INTEGRATOR_TAKES_QSS_METHOD = 1u << 10,
};

typedef struct integrator_def {
    const char *name;        /* --method NAME (lower case; matched ignoring case) */
    const char *description; /* one line (qmol list) */
    integrate_fn integrate;
    /* A QSS method: the engine's table of it (qss_engine.h); such a method
     * may also run the mixed method's QSS block (--qss-method). NULL for the
     * others. */
    const struct qss_method *qss;
    unsigned caps; /* INTEGRATOR_* */
    /* The default METIS pieces per rank (--pieces) of n states on `ranks`
     * ranks. */
    int (*pieces_per_rank)(int64_t n, int ranks);
    /* A method that runs on one rank only: why, and what to use instead on
     * several; NULL: any number of ranks. */
    const char *one_rank_why, *one_rank_instead;
    /* A method that refuses problems with discontinuities (zero crossings,
     * time events): what to use instead; NULL: it handles them. */
    const char *no_discontinuities_instead;
    /* INTEGRATOR_ASSIGNS: the name of the method that runs the states
     * alone when the assignment gave them all to BDF. */
    const char *bdf_alone;
    /* The memory a run takes per owned state, beyond the process's base:
     * bytes per state and per entry of its Jacobian row (memory_check.h;
     * the INTEGRATOR_MEMORY_* figures below). */
    double memory_state_bytes, memory_entry_bytes;
} integrator_def;

/* Peak RSS per owned state at n = 1e6 on one rank, less the base
 * (MEMORY_BASE_BYTES, 34 bytes a state there), fitted to adr2d 1000 x 1000
 * (5 entries a row) and heat3d 100^3 (7), Release, tol 1e-3, 2026-11-29:
 * - the QSS methods (QSS1-3, LIQSS1-2, BQSS): 218 and 249 bytes;
 * - mLIQSS1-2 (the pairs' Jacobian estimates): 258 and 305 (their
 *   estimates by row slot, 0.1% over nnz on these grids; on others at most
 *   a quarter over, 2 bytes an entry, else at the CSR's positions);
 * - CVODE (SPGMR with ILU(0), BDF's history): 434 and 488;
 * - the mixed method (--bdf "x>0.5"): 578 and 598; adr1d-vardiff N = 1e6
 *   (3 entries, --assign auto, banded): 372; its figures give 575, 625
 *   and 525;
 * - auto, which probes one method while another runs: adr2d 636 (CVODE
 *   running, an mLIQSS2 probe), adr1d-vardiff N = 1e6 656 (4 probes),
 *   heat3d 521 without a probe; its figures give 725, 815 and 635. Its
 *   watch on activity while CVODE runs (auto_activity.h) keeps three
 *   looks' states: adr2d 1000 x 1000 to t = 0.05 (CVODE's start), 646 ->
 *   671 (2026-12-01). */
#define INTEGRATOR_MEMORY_QSS_STATE 140.0
#define INTEGRATOR_MEMORY_QSS_ENTRY 16.0
#define INTEGRATOR_MEMORY_PAIRS_ENTRY 24.0
#define INTEGRATOR_MEMORY_CVODE_STATE 300.0
#define INTEGRATOR_MEMORY_CVODE_ENTRY 27.0
#define INTEGRATOR_MEMORY_MIXED_STATE 450.0
#define INTEGRATOR_MEMORY_MIXED_ENTRY 25.0
#define INTEGRATOR_MEMORY_AUTO_STATE 500.0
#define INTEGRATOR_MEMORY_AUTO_ENTRY 45.0

/* The entry at index id of the registry (its order: the names lists'), or
 * NULL past the last. */
const integrator_def *integrator_by_id(int id);
/* The entry of a name (case-insensitive), or NULL. */
const integrator_def *integrator_by_name(const char *name);
/* The names, space-separated in the registry's order, into buf: all, or
 * (qss_only) those of the QSS methods (the --qss-method choices). */
void integrator_names(char *buf, size_t len, int qss_only);
/* "cvode, mixed, auto": the names of those with one of any_caps, in the
 * registry's order (messages). */
void integrator_names_with(char *buf, size_t len, unsigned any_caps);

/* The doubles a window kept in memory (last_window.h) holds per owned
 * state: fixed, plus per_entry per entry of the longest row (checkpoint.c,
 * memory_check.h); a QSS method's own are in its table (qss_method). */
void integrator_kept(const integrator_def *d, double *fixed, double *per_entry);

/* Whether d has every capability in caps. */
static inline int integrator_has(const integrator_def *d, unsigned caps) {
    return (d->caps & caps) == caps;
}

/* Whether d is a QSS method (it may run the mixed method's QSS block). */
static inline int integrator_is_qss(const integrator_def *d) {
    return d && d->qss != NULL;
}

#endif
