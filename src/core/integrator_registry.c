/* integrator_registry.c: the methods, one entry each (integrator_registry.h). */
#include "core/integrator_registry.h"

#include "qss/qss_engine.h"

#include <stdio.h>

/* METIS pieces per rank for QSS methods (--pieces): activity follows the
 * fronts, and one piece per rank leaves the ranks ahead of and behind a
 * front idle (see docs/parallel.md). CVODE's work is uniform: one piece. So
 * is the mixed method's: its windows are CVODE steps, which every rank
 * boundary inside the QSS block shortens (adr1d-vardiff N = 1000, 4 ranks:
 * 20796 windows, 1.19 s with one piece, 50840 and 2.45 s with four;
 * buck-heatsink 2.16 s and 2.73 s, heat2d-thermostat 5.96 s and 7.68 s). */
#define QSS_PIECES_PER_RANK 4
/* ...but no piece smaller than this many states: small pieces put most
 * states on rank boundaries, where every change waits for a window end and
 * mLIQSS cannot update a pair across ranks (heat1d N = 100 on 3 ranks,
 * mLIQSS1 tol 1e-3: e_rr 5.1e-4 at P = 1; 12 pieces of 8 states 9.5e-4,
 * 3 pieces 6.4e-4). */
#define QSS_PIECE_MIN_STATES 1000

/* The default METIS pieces per rank of a QSS run of n states on size ranks. */
static int qss_pieces_per_rank(int64_t n, int size) {
    int k = QSS_PIECES_PER_RANK;
    while (k > 1 && n / ((int64_t)size * k) < QSS_PIECE_MIN_STATES)
        k--;
    return k;
}

static int one_piece_per_rank(int64_t n, int size) {
    (void)n, (void)size;
    return 1;
}

/* A kept window's doubles per owned state (last_window.h): every method's
 * x and event counts; a QSS method of order k adds the engine's x and q
 * polynomials, tx, tq, dq and next (2k + 5), the column eng_state_io
 * passes some fields through (1), from order 2 the age the unseen check
 * verified (1), and then its own fields (qss_method.kept_fields). */
#define KEPT_BASE 2.0
#define KEPT_QSS(k) (KEPT_BASE + (2.0 * (k) + 5.0) + 1.0 + ((k) >= 2 ? 1.0 : 0.0))

void integrator_kept(const integrator_def *d, double *fixed, double *per_entry) {
    *fixed = d->qss ? KEPT_QSS(d->qss->order) + d->qss->kept_fields : KEPT_BASE;
    *per_entry = d->qss ? d->qss->kept_per_entry : 0.0;
}

#define QSS_CAPS (INTEGRATOR_QSS_ENGINE | INTEGRATOR_GATHER_DISCRETE | INTEGRATOR_WEIGHT_BY_ROW)
#define QSS_MEMORY                                                                                 \
    .memory_state_bytes = INTEGRATOR_MEMORY_QSS_STATE,                                             \
    .memory_entry_bytes = INTEGRATOR_MEMORY_QSS_ENTRY
#define PAIRS_MEMORY                                                                               \
    .memory_state_bytes = INTEGRATOR_MEMORY_QSS_STATE,                                             \
    .memory_entry_bytes = INTEGRATOR_MEMORY_PAIRS_ENTRY

/* The QSS methods' tables, each defined in its method's file. */
extern const qss_method qss1_method, qss2_method, qss3_method, bqss_method;
extern const qss_method liqss1_method, liqss2_method, mliqss1_method, mliqss2_method;

/* One entry per --method, in the order of the names lists (usage, messages,
 * qmol list). Adding a method: its file, its table's declaration above and
 * its entry here (docs/architecture.md, "Adding a method"). */
static const integrator_def registry[] = {
    {.name = "qss1",
     .description = "QSS of order 1, explicit (thesis Alg. 3.1)",
     .integrate = qss_integrate,
     .qss = &qss1_method,
     .caps = QSS_CAPS,
     .pieces_per_rank = qss_pieces_per_rank,
     QSS_MEMORY},
    {.name = "qss2",
     .description = "QSS of order 2, explicit (thesis Alg. 3.2)",
     .integrate = qss_integrate,
     .qss = &qss2_method,
     .caps = QSS_CAPS,
     .pieces_per_rank = qss_pieces_per_rank,
     QSS_MEMORY},
    {.name = "qss3",
     .description = "QSS of order 3, explicit (the cubic analogue of QSS2)",
     .integrate = qss_integrate,
     .qss = &qss3_method,
     .caps = QSS_CAPS,
     .pieces_per_rank = qss_pieces_per_rank,
     QSS_MEMORY},
    {.name = "bqss",
     .description = "backward QSS of order 1, on one rank; stops where its "
                    "balance check fails",
     .integrate = qss_integrate,
     .qss = &bqss_method,
     .caps = QSS_CAPS | INTEGRATOR_BALANCE_CHECK,
     /* levels, last transition, q's last change */
     .pieces_per_rank = qss_pieces_per_rank,
     QSS_MEMORY,
     /* its same-instant level rules freeze states under the
      * window-end updates: heat1d N = 100, tol 1e-3 gave
      * e_rr 0.52 on 2 ranks against 1.4e-4 on one
      * (docs/methods.md) */
     .one_rank_why = "late ghost updates freeze its states",
     .one_rank_instead = "liqss1 or mliqss1"},
    {.name = "liqss1",
     .description = "linearly implicit QSS of order 1, for stiff problems "
                    "(thesis Alg. 3.3)",
     .integrate = qss_integrate,
     .qss = &liqss1_method,
     .caps = QSS_CAPS,
     .pieces_per_rank = qss_pieces_per_rank,
     QSS_MEMORY},
    {.name = "liqss2",
     .description = "linearly implicit QSS of order 2 (thesis Alg. 5.1)",
     .integrate = qss_integrate,
     .qss = &liqss2_method,
     .caps = QSS_CAPS,
     .pieces_per_rank = qss_pieces_per_rank,
     QSS_MEMORY},
    {.name = "mliqss1",
     .description = "modified LIQSS of order 1: coupled pairs step together "
                    "(thesis Alg. 4.1)",
     .integrate = qss_integrate,
     .qss = &mliqss1_method,
     .caps = QSS_CAPS,
     .pieces_per_rank = qss_pieces_per_rank,
     PAIRS_MEMORY},
    {.name = "mliqss2",
     .description = "modified LIQSS of order 2 (thesis Alg. 5.2)",
     .integrate = qss_integrate,
     .qss = &mliqss2_method,
     .caps = QSS_CAPS,
     .pieces_per_rank = qss_pieces_per_rank,
     PAIRS_MEMORY},
    {.name = "cvode",
     .description = "SUNDIALS CVODE, BDF with Newton; one instance over all ranks",
     .integrate = cvode_integrate,
     /* one CVODE takes the same path on every rank */
     .caps = INTEGRATOR_BDF | INTEGRATOR_BDF_ALL | INTEGRATOR_GLOBAL_COUNTERS |
             INTEGRATOR_EVENTS_ON_EVERY_RANK,
     .pieces_per_rank = one_piece_per_rank,
     .memory_state_bytes = INTEGRATOR_MEMORY_CVODE_STATE,
     .memory_entry_bytes = INTEGRATOR_MEMORY_CVODE_ENTRY},
    {.name = "mixed",
     .description = "QSS and CVODE-BDF blocks, states assigned by --bdf, --bdf-file "
                    "or --assign auto",
     .integrate = mixed_integrate,
     .caps = INTEGRATOR_QSS_ENGINE | INTEGRATOR_BDF | INTEGRATOR_ASSIGNS |
             INTEGRATOR_GATHER_DISCRETE | INTEGRATOR_WEIGHT_BY_ROW | INTEGRATOR_TAKES_QSS_METHOD,
     .pieces_per_rank = one_piece_per_rank,
     .bdf_alone = "cvode",
     .memory_state_bytes = INTEGRATOR_MEMORY_MIXED_STATE,
     .memory_entry_bytes = INTEGRATOR_MEMORY_MIXED_ENTRY},
    {.name = "auto",
     .description = "chooses as it runs: CVODE, --qss-method, the mixed split of "
                    "--assign auto or (one rank) moving, by measured cost "
                    "(docs/methods.md); the default",
     .integrate = auto_integrate,
     .caps = INTEGRATOR_QSS_ENGINE | INTEGRATOR_BDF | INTEGRATOR_ASSIGNS |
             INTEGRATOR_GATHER_DISCRETE | INTEGRATOR_WEIGHT_BY_ROW | INTEGRATOR_CHOOSES |
             INTEGRATOR_TAKES_QSS_METHOD,
     .pieces_per_rank = one_piece_per_rank,
     .bdf_alone = "cvode",
     .memory_state_bytes = INTEGRATOR_MEMORY_AUTO_STATE,
     .memory_entry_bytes = INTEGRATOR_MEMORY_AUTO_ENTRY},
    {.name = "moving",
     .description = "QSS (--qss-method) and a CVODE-BDF block that follows the activity "
                    "as it moves, without a restart (one rank; docs/methods.md)",
     .integrate = moving_integrate,
     /* (the partition's capabilities of a QSS engine, for one rank) */
     .caps = INTEGRATOR_QSS_ENGINE | INTEGRATOR_BDF | INTEGRATOR_TAKES_QSS_METHOD |
             INTEGRATOR_GATHER_DISCRETE | INTEGRATOR_WEIGHT_BY_ROW,
     .pieces_per_rank = one_piece_per_rank,
     .one_rank_why = "its BDF block's active set is one rank's",
     .one_rank_instead = "mixed or auto",
     .no_discontinuities_instead = "mixed or auto",
     .memory_state_bytes = INTEGRATOR_MEMORY_MIXED_STATE,
     .memory_entry_bytes = INTEGRATOR_MEMORY_MIXED_ENTRY},
};

#define REGISTRY_SIZE ((int)(sizeof registry / sizeof registry[0]))

const integrator_def *integrator_by_id(int id) {
    return id >= 0 && id < REGISTRY_SIZE ? &registry[id] : NULL;
}

const integrator_def *integrator_by_name(const char *name) {
    for (int k = 0; k < REGISTRY_SIZE; k++) {
        const char *a = registry[k].name, *b = name;
        while (*a && *b && (*a == *b || *a == *b + ('a' - 'A')))
            a++, b++;
        if (!*a && !*b) return &registry[k];
    }
    return NULL;
}

/* The names of the entries that are QSS methods (or any, !qss_only) with
 * one of any_caps (or any, 0), sep between them. */
static void list_names(char *buf, size_t len, int qss_only, unsigned any_caps, const char *sep) {
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < REGISTRY_SIZE && used < len; k++) {
        if (qss_only && !integrator_is_qss(&registry[k])) continue;
        if (any_caps && !(registry[k].caps & any_caps)) continue;
        int w = snprintf(buf + used, len - used, "%s%s", used ? sep : "", registry[k].name);
        if (w < 0) break;
        used += (size_t)w;
    }
}

void integrator_names(char *buf, size_t len, int qss_only) {
    list_names(buf, len, qss_only, 0, " ");
}

void integrator_names_with(char *buf, size_t len, unsigned any_caps) {
    list_names(buf, len, 0, any_caps, ", ");
}
