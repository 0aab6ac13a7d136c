/* run_problem.c: the problem of a run, and whether it can run as asked
 * (run_internal.h). */
#include "core/discontinuities.h"
#include "core/integrator_registry.h"
#include "driver/run_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Resolves the problem parameters. Each assignment is first checked alone, so
 * that a bad one from an INI file is reported with its file, line and key as
 * written there rather than as a --set option. */
static int resolve_params(const qmol_problem_def *def, const run_config *c, double *values,
                          char *err, size_t errlen) {
    for (int k = 0; k < c->nsets; k++) {
        if (params_resolve(def, (const char *const *)&c->sets[k], 1, values, err, errlen) == 0)
            continue;
        const char *origin = c->set_origins ? c->set_origins[k] : NULL;
        if (origin) {
            /* params_resolve's messages start "--set key=value: " */
            char *why = strdup(err);
            size_t skip = strlen("--set ") + strlen(c->sets[k]);
            if (!why) return -1;
            if (!strncmp(why, "--set ", 6) && !strncmp(why + 6, c->sets[k], strlen(c->sets[k])))
                snprintf(err, errlen, "%s%s", origin, why + skip);
            else
                snprintf(err, errlen, "%s: %s", origin, why);
            free(why);
        }
        return -1;
    }
    return params_resolve(def, (const char *const *)c->sets, c->nsets, values, err, errlen);
}

int run_resolve_problem(run_ctx *r) {
    if (registry_resolve("--problem", r->c.problem, &r->def, r->err, sizeof r->err) != 0) {
        run_say(r, "qmol: error: %s\n", r->err);
        return 2;
    }
    r->values = calloc((size_t)r->def->nparams + 1, sizeof *r->values);
    if (!r->values) {
        run_say(r, "qmol: error: out of memory\n");
        return 2;
    }
    if (resolve_params(r->def, &r->c, r->values, r->err, sizeof r->err) != 0) {
        run_say(r, "qmol: error: %s\n", r->err);
        return 2;
    }
    if (r->def->create(r->values, &r->prob, r->err, sizeof r->err) != 0) {
        memset(&r->prob, 0, sizeof r->prob); /* nothing to destroy */
        run_say(r, "qmol: error: problem %s: %s\n", r->def->name, r->err);
        return 2;
    }
    return 0;
}

/* The method, or the mixed method's QSS block, that runs on one rank only. */
static const integrator_def *one_rank_only(const run_config *c) {
    if (c->method->one_rank_why) return c->method;
    if (integrator_has(c->method, INTEGRATOR_ASSIGNS) && c->qss_method->one_rank_why)
        return c->qss_method;
    return NULL;
}

int run_check_problem(run_ctx *r) {
    const run_config *c = &r->c;
    const qmol_problem *p = &r->prob;
    int checkpoints = c->restart || c->checkpoint_sim > 0.0 || c->checkpoint_wall > 0.0;
    if (checkpoints && !r->can_checkpoint) {
        run_say(r,
                "qmol: error: %s: not available for %s (it does not expose its discrete "
                "variables: qmol_problem.n_discrete, get_discrete, set_discrete)\n",
                c->restart ? "--restart" : "--checkpoint-every", r->def->name);
        return 2;
    }
    if ((int64_t)r->size > p->n) {
        run_say(r, "qmol: error: problem %s: %d ranks for %lld state%s: use at most %lld rank%s\n",
                r->def->name, r->size, (long long)p->n, p->n == 1 ? "" : "s", (long long)p->n,
                p->n == 1 ? "" : "s");
        return 2;
    }
    if (discrete_check(p, r->err, sizeof r->err) != 0) {
        run_say(r, "qmol: error: problem %s: %s\n", r->def->name, r->err);
        return 2;
    }
    if (c->method->no_discontinuities_instead && problem_has_discontinuities(p)) {
        run_say(r,
                "qmol: error: --method %s: does not handle discontinuities, and problem %s has "
                "zero crossings or time events; use %s\n",
                c->method->name, r->def->name, c->method->no_discontinuities_instead);
        return 2;
    }
    if (integrator_has(c->method, INTEGRATOR_ASSIGNS) &&
        mixed_check_coupling(c->coupling, r->size, r->err, sizeof r->err)) {
        run_say(r, "qmol: error: %s\n", r->err);
        return 2;
    }
    const integrator_def *one_rank = one_rank_only(c);
    if (r->size > 1 && one_rank) {
        run_say(r,
                "qmol: error: %s: %s runs on one rank only (started on %d ranks; %s); on "
                "several ranks use %s\n",
                one_rank == c->method ? "--method" : "--qss-method", one_rank->name, r->size,
                one_rank->one_rank_why, one_rank->one_rank_instead);
        return 2;
    }
    if (r->size > 1 && integrator_has(c->method, INTEGRATOR_BDF) &&
        (c->linsol == LINSOL_KLU || c->linsol == LINSOL_BAND)) {
        run_say(r,
                "qmol: error: --linsol %s: needs all states on one rank; on %d ranks use spgmr "
                "(ILU(0) preconditioner per rank)\n",
                c->linsol == LINSOL_KLU ? "klu" : "band", r->size);
        return 2;
    }
    return 0;
}
