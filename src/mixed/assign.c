/* assign.c: the per-state QSS/BDF assignment of a mixed run (assign.h). */
#include "mixed/assign.h"

#include "core/discontinuities.h"
#include "comm/agree.h"
#include "comm/halo.h"
#include "core/state_rule.h"

#include <errno.h>
#include <float.h>
#include <mpi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a rule (state_rule.h) ------------------------------------------------ */

int assign_rule_check(const char *rule, char *err, size_t errlen) {
    state_rule r;
    return state_rule_parse(rule, NULL, &r, err, errlen);
}

static int apply_rule(const model *m, const char *rule, unsigned char *method, char *err,
                      size_t errlen) {
    state_rule r;
    char why[256];
    if (state_rule_parse(rule, m->problem, &r, why, sizeof why)) {
        snprintf(err, errlen, "--bdf \"%s\": %s", rule, why);
        return -1;
    }
    for (int32_t j = 0; j < m->n; j++)
        if (state_rule_match(&r, m->problem, model_gid(m, j))) method[j] = ASSIGN_BDF;
    return 0;
}

/* ---- a file of state ids ------------------------------------------------- */

static int apply_file(const model *m, const char *path, unsigned char *method, char *err,
                      size_t errlen) {
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "--bdf-file %s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    int64_t n = m->problem->n, count = 0;
    char line[512];
    int lineno = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            snprintf(err, errlen, "--bdf-file %s:%d: line longer than %d characters", path, lineno,
                     (int)sizeof line - 2);
            rc = -1;
            break;
        }
        char *hash = strchr(line, '#');
        if (hash) *hash = '\0';
        char *s = line;
        for (;;) {
            while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == ',')
                s++;
            if (!*s) break;
            char *end;
            errno = 0;
            long long g = strtoll(s, &end, 10);
            if (end == s || errno || (*end && !strchr(" \t\r\n,", *end))) {
                int len = (int)strcspn(s, " \t\r\n,");
                snprintf(err, errlen,
                         "--bdf-file %s:%d: \"%.*s\" is not a state id (whole numbers in "
                         "0..%lld, separated by spaces, commas or lines; # starts a comment)",
                         path, lineno, len < 40 ? len : 40, s, (long long)n - 1);
                rc = -1;
                break;
            }
            if (g < 0 || g >= n) {
                snprintf(err, errlen, "--bdf-file %s:%d: state id %lld outside 0..%lld", path,
                         lineno, g, (long long)n - 1);
                rc = -1;
                break;
            }
            int32_t j = model_row_of(m, g);
            if (j >= 0) method[j] = ASSIGN_BDF;
            count++;
            s = end;
        }
    }
    if (rc == 0 && ferror(f)) {
        snprintf(err, errlen, "--bdf-file %s: read error", path);
        rc = -1;
    }
    fclose(f);
    if (rc == 0 && count == 0) {
        snprintf(err, errlen, "--bdf-file %s: no state ids in the file", path);
        rc = -1;
    }
    return rc;
}

/* ---- automatic: off-diagonal stiffness ----------------------------------- */

/* Row j's off-diagonal rate at (t0, x0): analytic Jacobian, or differences
 * (listed: model_rhs's scratch). */
static double offdiag_rate(const model *m, int32_t j, double t0, double *vals, double *dfdv,
                           double *listed) {
    const qmol_problem *p = m->problem;
    int64_t start = m->row_ptr[j], len = m->row_ptr[j + 1] - start;
    for (int64_t k = 0; k < len; k++)
        vals[k] = p->x0(p->data, model_gid(m, m->row_col[start + k]));
    if (p->jac) {
        model_jac(m, j, t0, vals, dfdv, listed);
    } else {
        double f0 = model_rhs(m, j, t0, vals, listed);
        for (int64_t k = 0; k < len; k++) {
            double v = vals[k], h = sqrt(DBL_EPSILON) * fmax(fabs(v), 1.0);
            vals[k] = v + h;
            dfdv[k] = (model_rhs(m, j, t0, vals, listed) - f0) / (vals[k] - v);
            vals[k] = v;
        }
    }
    double rate = 0.0;
    for (int64_t k = 0; k < len; k++)
        if (start + k != m->diag_entry[j]) rate += fabs(dfdv[k]);
    return rate;
}

/* The stiffness gap: when the rows' rates x span (rate[j], owned rows;
 * zero rates are no group) fall into two groups at least GAP_DECADES apart
 * with no row between, each with at least GAP_SHARE of the rows with a
 * rate, and the upper group above the threshold, the upper group's first
 * bin of a histogram of tenths of a decade (the widest such gap); else -1.
 * The histogram is summed over the ranks (collective; halo NULL on one
 * rank). */
#define GAP_BINS_PER_DECADE 10
#define GAP_LOW_DECADE (-40)
#define GAP_NBINS (80 * GAP_BINS_PER_DECADE)
static int gap_bin(double rate) {
    double d = (log10(rate) - GAP_LOW_DECADE) * GAP_BINS_PER_DECADE;
    return d < 0.0 ? 0 : d >= GAP_NBINS - 1 ? GAP_NBINS - 1 : (int)d;
}

static int stiffness_gap(const model *m, halo_plan *halo, const double *rate, double threshold) {
    int64_t count[GAP_NBINS] = {0}, total = 0;
    for (int32_t j = 0; j < m->n; j++)
        if (rate[j] > 0.0) count[gap_bin(rate[j])]++;
    if (halo) MPI_Allreduce(MPI_IN_PLACE, count, GAP_NBINS, MPI_INT64_T, MPI_SUM, halo->comm);
    for (int b = 0; b < GAP_NBINS; b++)
        total += count[b];
    int split = -1, widest = 0, last = -1;
    int64_t below = 0;
    for (int b = 0; b < GAP_NBINS; b++) {
        if (!count[b]) continue;
        int width = b - last - 1;
        /* (the upper group above the threshold: its first bin's lower edge) */
        double edge = pow(10.0, GAP_LOW_DECADE + (double)b / GAP_BINS_PER_DECADE);
        if (last >= 0 && width >= GAP_DECADES * GAP_BINS_PER_DECADE && width > widest &&
            (double)below >= GAP_SHARE * (double)total &&
            (double)(total - below) >= GAP_SHARE * (double)total && edge > threshold)
            widest = width, split = b;
        below += count[b];
        last = b;
    }
    return split;
}

/* Rows whose off-diagonal rate x span exceeds the threshold go to BDF; when
 * the rates fall into two groups decades apart (stiffness_gap), only the
 * upper group does, whatever the lower's rate: adr1d-vardiff N = 1e4 (1.0e4
 * and 2.0e8 x span) put every row on BDF and ran 7.5 s, CVODE's time,
 * instead of 0.2 s with the diffusive half alone. */
static int apply_auto(const model *m, halo_plan *halo, const assign_options *a,
                      unsigned char *method, char *err, size_t errlen) {
    double threshold = a->threshold > 0.0 ? a->threshold : ASSIGN_STIFF_THRESHOLD;
    double span = a->tf - a->t0;
    double *vals = malloc(((size_t)m->max_row + 1) * sizeof *vals);
    double *dfdv = malloc(((size_t)m->max_row + 1) * sizeof *dfdv);
    double *listed = malloc((model_scratch_size(m) + 1) * sizeof *listed);
    double *rate = malloc(((size_t)m->n + 1) * sizeof *rate);
    int failed = !vals || !dfdv || !listed || !rate;
    if (halo) MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, halo->comm);
    if (failed) {
        free(vals), free(dfdv), free(listed), free(rate);
        snprintf(err, errlen, "--assign auto: out of memory");
        return -1;
    }
    for (int32_t j = 0; j < m->n; j++)
        rate[j] = offdiag_rate(m, j, a->t0, vals, dfdv, listed) * span;
    int gap = stiffness_gap(m, halo, rate, threshold);
    for (int32_t j = 0; j < m->n; j++)
        if (gap >= 0 ? rate[j] > 0.0 && gap_bin(rate[j]) >= gap : rate[j] > threshold)
            method[j] = ASSIGN_BDF;
    free(vals), free(dfdv), free(listed), free(rate);
    return 0;
}

/* ---- discontinuities ---------------------------------------------------- */

/* Crossing inputs must be QSS states (the QSS block finds the zeros along q).
 * auto: they, the affected states and their dependents up to `depth` hops
 * go there (the thesis's rule; the public QSS Solver bounds it the same way,
 * BDFPartitionDepth); manual: a crossing input on BDF is an error. */
/* One search from the seeds (ascending level) over the dependents, level by
 * level up to `depth`: a state is reached at most once per call, at the
 * lowest level it can get (cur and next: n_cols each). */
static void spread_round(const model *m, int depth, int32_t *level, const int32_t *seeds,
                         int32_t nseeds, int32_t *cur, int32_t *next) {
    int32_t si = 0, ncur = 0;
    for (int32_t lev = nseeds ? level[seeds[0]] : depth; lev < depth; lev++) {
        while (si < nseeds && level[seeds[si]] == lev)
            cur[ncur++] = seeds[si++];
        int32_t nnext = 0;
        for (int32_t q = 0; q < ncur; q++) {
            int32_t s = cur[q];
            for (int64_t d = m->dep_ptr[s]; d < m->dep_ptr[s + 1]; d++) {
                int32_t j = m->dep_row[d];
                if (level[j] < 0 || level[j] > lev + 1) level[j] = lev + 1, next[nnext++] = j;
            }
        }
        memcpy(cur, next, (size_t)nnext * sizeof *cur);
        ncur = nnext;
        if (!ncur && si == nseeds) break;
    }
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* level[k] = hops from the nearest seed (level 0) over the dependents, up to
 * `depth`, else -1. On several ranks the levels of the states other ranks
 * read are exchanged (as doubles, over the layout's n_cols) and the search
 * goes on from the improved ghosts until no rank changes (collective). */
static void spread_levels(const model *m, halo_plan *halo, int depth, int32_t *level,
                          int32_t *seeds, int32_t nseeds, int32_t *cur, int32_t *next,
                          double *hops) {
    for (;;) {
        spread_round(m, depth, level, seeds, nseeds, cur, next);
        if (!halo) return;
        for (int32_t j = 0; j < m->n_cols; j++)
            hops[j] = level[j];
        halo_exchange(halo, hops);
        /* improved ghosts, by level: sorted as keys level * 2^31 + g,
         * exact in a double, at the front of hops (entries read already) */
        nseeds = 0;
        for (int32_t g = m->n; g < m->n_cols; g++) {
            int32_t lev = (int32_t)hops[g];
            if (lev >= 0 && (level[g] < 0 || lev < level[g]))
                level[g] = lev, hops[nseeds++] = ldexp((double)lev, 31) + (double)g;
        }
        qsort(hops, (size_t)nseeds, sizeof *hops, by_value);
        for (int32_t k = 0; k < nseeds; k++)
            seeds[k] = (int32_t)fmod(hops[k], 2147483648.0);
        int more = nseeds > 0;
        MPI_Allreduce(MPI_IN_PLACE, &more, 1, MPI_INT, MPI_MAX, halo->comm);
        if (!more) return;
    }
}

/* level[k] = hops over the dependents from the nearest owned state marked
 * level 0 (every other entry -1 on entry), up to `depth`, else -1 (n_cols
 * entries). Collective (halo NULL: one rank). Returns 0, or -1 out of
 * memory (agreed). */
static int spread_from_marks(const model *m, halo_plan *halo, int depth, int32_t *level) {
    size_t nl = (size_t)m->n_cols + 1;
    int32_t *seeds = malloc(nl * sizeof *seeds);
    int32_t *cur = malloc(nl * sizeof *cur), *next = malloc(nl * sizeof *next);
    double *hops = halo ? malloc(nl * sizeof *hops) : NULL;
    int failed = !seeds || !cur || !next || (halo && !hops);
    if (halo) MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, halo->comm);
    if (!failed) {
        int32_t nseeds = 0;
        for (int32_t j = 0; j < m->n; j++)
            if (level[j] == 0) seeds[nseeds++] = j;
        spread_levels(m, halo, depth, level, seeds, nseeds, cur, next, hops);
    }
    free(seeds), free(cur), free(next), free(hops);
    return failed ? -1 : 0;
}

int assign_hops(const model *m, halo_plan *halo, const unsigned char *method, int depth,
                int32_t *level) {
    for (int32_t j = 0; j < m->n_cols; j++)
        level[j] = j < m->n && method[j] == ASSIGN_BDF ? 0 : -1;
    return spread_from_marks(m, halo, depth, level);
}

static int apply_discontinuities(const model *m, halo_plan *halo, int automatic, int depth,
                                 unsigned char *method, char *err, size_t errlen) {
    const qmol_problem *p = m->problem;
    int64_t *ids = NULL;
    int cap = 0, rc = 0;
    for (int64_t c = 0; rc == 0 && c < p->n_crossings; c++) {
        int len = p->crossing_size(p->data, c);
        if (len > cap) {
            int64_t *grown = realloc(ids, (size_t)len * sizeof *ids);
            if (!grown) {
                snprintf(err, errlen, "out of memory reading the crossing functions");
                rc = -1;
                break;
            }
            ids = grown;
            cap = len;
        }
        if (len > 0) p->crossing_row(p->data, c, ids);
        for (int k = 0; k < len; k++) {
            int32_t j = model_row_of(m, ids[k]);
            if (j < 0 || method[j] == ASSIGN_QSS) continue;
            if (automatic) {
                method[j] = ASSIGN_QSS;
            } else {
                snprintf(err, errlen,
                         "state %lld is read by crossing function %lld and was assigned to BDF: "
                         "crossings are found by the QSS block, so their states must be QSS "
                         "(or use --assign auto)",
                         (long long)ids[k], (long long)c);
                rc = -1;
                break;
            }
        }
    }
    free(ids);
    /* (automatic: the search below is collective, and memory may run out on
     * one rank only) */
    if (automatic && halo) rc = comm_agree(halo->comm, rc, err, errlen);
    if (rc || !automatic) return rc;
    /* seeds: the crossing inputs (QSS by now) and the affected states, then
     * their dependents up to `depth` hops, breadth first */
    int32_t *level = malloc(((size_t)m->n_cols + 1) * sizeof *level);
    int64_t count;
    int64_t *seeds = discrete_states(p, INT64_MAX, &count);
    int failed = !level || count == -2;
    if (halo) MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, halo->comm);
    if (!failed) {
        for (int32_t j = 0; j < m->n_cols; j++)
            level[j] = -1;
        for (int64_t k = 0; k < count; k++) {
            int32_t j = model_row_of(m, seeds[k]);
            if (j >= 0) level[j] = 0;
        }
        failed = spread_from_marks(m, halo, depth, level) != 0;
    }
    free(seeds);
    if (failed) {
        free(level);
        snprintf(err, errlen, "out of memory for the discontinuity rule");
        return -1;
    }
    for (int32_t j = 0; j < m->n; j++)
        if (level[j] >= 0) method[j] = ASSIGN_QSS;
    free(level);
    return 0;
}

int assign_check_split(const int64_t count[2], char *err, size_t errlen) {
    if (count[0] > 0 && count[1] > 0) return 0;
    snprintf(err, errlen,
             "--method mixed: all %lld states went to %s (--bdf, --bdf-file or --assign auto must "
             "give each block at least one state; use --method %s for a pure run)",
             (long long)(count[0] + count[1]), count[0] ? "QSS" : "BDF",
             count[0] ? "mliqss2" : "cvode");
    return -1;
}

int assign_states(const model *m, halo_plan *halo, const assign_options *a, unsigned char *method,
                  char *err, size_t errlen) {
    memset(method, ASSIGN_QSS, (size_t)m->n);
    int rc = a->bdf_rule ? apply_rule(m, a->bdf_rule, method, err, errlen) : 0;
    if (rc == 0 && a->bdf_file) rc = apply_file(m, a->bdf_file, method, err, errlen);
    /* (a file one rank cannot read stops every rank before the collective
     * steps below) */
    if (halo && comm_agree(halo->comm, rc, err, errlen)) return -1;
    if (rc) return -1;
    if (a->automatic && apply_auto(m, halo, a, method, err, errlen)) return -1;
    if (m->problem->n_crossings > 0 || m->problem->n_affected > 0)
        return apply_discontinuities(m, halo, a->automatic,
                                     a->depth > 0 ? a->depth : (a->depth < 0 ? 0 : ASSIGN_DEPTH),
                                     method, err, errlen);
    return 0;
}
