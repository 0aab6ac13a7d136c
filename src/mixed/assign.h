/* assign.h: which states a mixed run integrates with QSS and which with BDF.
 *
 * Manual: a rule over the states (`--bdf "x>5"`, `--bdf "i>=500"`, clauses
 * joined by "&&") or a file of global state ids (`--bdf-file`). Automatic
 * (`--assign auto`): a row goes to BDF when its off-diagonal Jacobian rate
 * sum_{k != j} |df_j/dx_k| at (t0, x0) times the run's span tf - t0 exceeds
 * a threshold (default ASSIGN_STIFF_THRESHOLD): diffusion with a large
 * d/dx^2 couples neighbours faster than QSS can follow without oscillating,
 * while BDF's implicit solve takes it in one step; where the rates fall into
 * two groups decades apart, only the upper group. See docs/methods.md.
 */
#ifndef QMOL_ASSIGN_H
#define QMOL_ASSIGN_H

#include "core/model.h"

struct halo_plan;

#include <stddef.h>

enum { ASSIGN_QSS = 0, ASSIGN_BDF = 1 };

/* Off-diagonal rate x span above which --assign auto picks BDF. adr1d-vardiff
 * (N = 1000, tf = 10): 1.0e3 on the dleft half, 2.0e6 on the dright half;
 * adr1d: 1.2e3; buck-heatsink's rod (100 sections, 60 s): 1.7e5. */
#define ASSIGN_STIFF_THRESHOLD 1e4
/* ...unless the rates fall into two groups at least GAP_DECADES apart, each
 * with GAP_SHARE of the rows at least, the upper above the threshold: then
 * only the upper group goes to BDF (adr1d-vardiff N = 1e4: 1.0e4 and 2.0e8 x span). */
#define GAP_DECADES 2.0
#define GAP_SHARE 0.05

/* Hops from the discontinuity states that auto also puts on QSS. buck-heatsink
 * (60 s, mixed with LIQSS2): depth 0 (i_L, u_C and the heated section on QSS)
 * took 6.3 s, the rod's next section being BDF and cut to a step per loss
 * pulse by the step limit; depth 3 (sections 1-4 on QSS) 2.0 s, as the
 * thermal pulses fade within those sections. */
#define ASSIGN_DEPTH 3

typedef struct assign_options {
    const char *bdf_rule; /* --bdf RULE, or NULL */
    const char *bdf_file; /* --bdf-file PATH, or NULL */
    int automatic;        /* --assign auto */
    double threshold;     /* auto: 0 means ASSIGN_STIFF_THRESHOLD */
    int depth;            /* auto: 0 means ASSIGN_DEPTH, < 0 none */
    double t0, tf;
} assign_options;

/* level[j] (n_cols of them) = the hops from the nearest state method puts
 * on BDF to j over the dependents (up to depth; -1 farther). Collective over
 * the halo's ranks (NULL: one rank). Returns 0, or -1 out of memory
 * (agreed). */
int assign_hops(const model *m, struct halo_plan *halo, const unsigned char *method, int depth,
                int32_t *level);

/* A split with count[0] QSS and count[1] BDF states (all ranks): 0, or -1
 * with a message when a block is empty. */
int assign_check_split(const int64_t count[2], char *err, size_t errlen);

/* Checks a rule's syntax. Returns 0, or -1 with the reason in err. */
int assign_rule_check(const char *rule, char *err, size_t errlen);

/* method[j] = ASSIGN_QSS or ASSIGN_BDF for the rows j of m (a rank's local
 * model with its halo on several ranks: collective, the discontinuity rule's
 * search crosses ranks; NULL on one rank). With neither a
 * rule, a file nor auto, every state is QSS. Returns 0, or -1 with a message
 * naming the input in err. */
int assign_states(const model *m, struct halo_plan *halo, const assign_options *a,
                  unsigned char *method, char *err, size_t errlen);

#endif
