/* run.c: problem set-up, output file, integration, summary. */
#include "run.h"

#include "h5out.h"
#include "model.h"
#include "registry.h"
#include "wallclock.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_plugin_path(const char *name) {
    size_t len = strlen(name);
    return strchr(name, '/') != NULL || (len > 3 && !strcmp(name + len - 3, ".so"));
}

static void list_names(char *buf, size_t len) {
    int count;
    const qmol_problem_def *const *all = registry_all(&count);
    buf[0] = '\0';
    for (int k = 0; k < count; k++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", k ? " " : "", all[k]->name);
    }
}

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

/* Every rank holds all n states (main.c runs on one rank): pass this rank's
 * block of the writer's block distribution (on one rank, x itself). */
static int sample_to_file(void *ctx, int64_t k, double t, const double *x) {
    int64_t first, count;
    h5out_block(ctx, &first, &count);
    return h5out_sample(ctx, k, t, x + first);
}

/* The partition of a one-rank run: rank 0 owns every state, kind "single". */
static int write_single_partition(h5out *out, int64_t n, char *err, size_t errlen) {
    int64_t first, count;
    h5out_block(out, &first, &count);
    int32_t *owner = calloc(count > 0 ? (size_t)count : 1, sizeof *owner);
    if (!owner) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    h5out_rank_info mine = {.owned = rank == 0 ? n : 0, .weight = rank == 0 ? (double)n : 0.0};
    int rc = h5out_partition(out, owner, &mine, 0, "single", err, errlen);
    free(owner);
    return rc;
}

static void print_summary(const run_config *c, const qmol_problem *p, const char *path,
                          const qmol_stats *s) {
    printf("qmol: %s, n=%lld, %s, tol=%g abstol=%g, t in [%g, %g], %lld samples\n", c->problem,
           (long long)p->n, method_name(c->method), c->reltol, c->abstol, p->t0, c->tf,
           (long long)c->samples);
    if (c->method == METHOD_CVODE)
        printf("  linear solver %s; steps %llu, rhs evals (scalar) %llu, newton iters %llu, jac "
               "setups %llu, "
               "error test fails %llu\n",
               linsol_name(c->linsol), (unsigned long long)s->steps,
               (unsigned long long)s->rhs_evals, (unsigned long long)s->newton_iters,
               (unsigned long long)s->jac_setups, (unsigned long long)s->err_test_fails);
    else
        printf("  events %llu, rhs evals (scalar) %llu, jac rows %llu, pair steps %llu\n",
               (unsigned long long)s->events, (unsigned long long)s->rhs_evals,
               (unsigned long long)s->jac_evals, (unsigned long long)s->pair_steps);
    double rate = s->wall_integrate > 0 ? (double)s->events / s->wall_integrate : 0.0;
    printf("  wall: setup %.3f s, integrate %.3f s, output %.3f s, total %.3f s (%.3g "
           "%s/s)\n",
           s->wall_setup, s->wall_integrate, s->wall_output, s->wall_total, rate,
           c->method == METHOD_CVODE ? "steps" : "events");
    printf("  output: %s\n", path);
}

int run_execute(const run_config *cin) {
    run_config c = *cin;
    double w0 = wallclock_seconds();
    char err[1024] = "";
    const qmol_problem_def *def = NULL;
    if (is_plugin_path(c.problem)) {
        if (plugin_load(c.problem, &def, err, sizeof err) != 0) {
            fprintf(stderr, "qmol: error: --problem %s: %s\n", c.problem, err);
            return 2;
        }
    } else if (!(def = registry_find(c.problem))) {
        char names[1024];
        list_names(names, sizeof names);
        fprintf(stderr,
                "qmol: error: --problem %s: unknown problem (allowed: %s, or a plugin .so "
                "path)\n",
                c.problem, names);
        return 2;
    }
    double *values = calloc((size_t)def->nparams + 1, sizeof *values);
    if (!values) {
        fprintf(stderr, "qmol: error: out of memory\n");
        return 2;
    }
    if (resolve_params(def, &c, values, err, sizeof err) != 0) {
        fprintf(stderr, "qmol: error: %s\n", err);
        free(values);
        return 2;
    }
    qmol_problem prob;
    memset(&prob, 0, sizeof prob);
    if (def->create(values, &prob, err, sizeof err) != 0) {
        fprintf(stderr, "qmol: error: problem %s: %s\n", def->name, err);
        free(values);
        return 2;
    }
    int rc = 2;
    model m;
    memset(&m, 0, sizeof m);
    char *path = NULL;
    h5out *out = NULL;
    if (isnan(c.tf)) c.tf = prob.tf;
    if (!(c.tf > prob.t0)) {
        fprintf(stderr, "qmol: error: --tf %g: must be greater than t0 = %g\n", c.tf, prob.t0);
        goto done;
    }
    if (c.output) {
        path = strdup(c.output);
    } else {
        size_t len = strlen(def->name) + 4;
        path = malloc(len);
        if (path) snprintf(path, len, "%s.h5", def->name);
    }
    if (!path) {
        fprintf(stderr, "qmol: error: out of memory\n");
        goto done;
    }
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr,
                "qmol: error: --output %s: is a directory (expected a file name such as %s.h5)\n",
                path, def->name);
        goto done;
    }
    if (!c.overwrite && access(path, F_OK) == 0) {
        fprintf(stderr, "qmol: error: --output %s: file exists (pass --overwrite to replace it)\n",
                path);
        goto done;
    }
    if (model_build(&m, &prob, err, sizeof err) != 0) {
        fprintf(stderr, "qmol: error: problem %s: %s\n", def->name, err);
        goto done;
    }
    if (c.linsol == LINSOL_AUTO) c.linsol = cvode_choose_linsol(&m);
    integrator_options o = {.method = c.method,
                            .reltol = c.reltol,
                            .abstol = c.abstol,
                            .t0 = prob.t0,
                            .tf = c.tf,
                            .samples = c.samples,
                            .use_jacobian = c.use_jacobian,
                            .linsol = c.linsol,
                            .max_order = c.max_order};
    h5out_meta meta = {.problem = def->name,
                       .method = method_name(c.method),
                       .linsol = c.method == METHOD_CVODE ? linsol_name(c.linsol) : NULL,
                       .reltol = c.reltol,
                       .abstol = c.abstol,
                       .t0 = prob.t0,
                       .tf = c.tf,
                       .samples = c.samples,
                       .def = def,
                       .param_values = values,
                       .prob = &prob};
    out = h5out_create(path, &meta, err, sizeof err);
    if (!out) {
        fprintf(stderr, "qmol: error: --output %s: %s\n", path, err);
        goto done;
    }
    if (write_single_partition(out, prob.n, err, sizeof err) != 0) {
        fprintf(stderr, "qmol: error: --output %s: %s\n", path, err);
        goto done;
    }
    qmol_stats stats;
    memset(&stats, 0, sizeof stats);
    stats.wall_setup = wallclock_seconds() - w0;
    int irc = c.method == METHOD_CVODE
                  ? cvode_integrate(&m, &o, sample_to_file, out, &stats, err, sizeof err)
                  : qss_integrate(&m, &o, sample_to_file, out, &stats, err, sizeof err);
    if (irc != 0) {
        fprintf(stderr, "qmol: error: %s on %s: %s\n", method_name(c.method), def->name,
                err[0] ? err : "the integration failed");
        h5out_abort(out);
        out = NULL;
        rc = 1;
        goto done;
    }
    stats.wall_total = wallclock_seconds() - w0;
    if (h5out_finish(out, &stats, err, sizeof err) != 0) {
        out = NULL;
        fprintf(stderr, "qmol: error: --output %s: %s\n", path, err);
        rc = 1;
        goto done;
    }
    out = NULL;
    if (!c.quiet) print_summary(&c, &prob, path, &stats);
    rc = 0;
done:
    if (out) h5out_abort(out);
    model_free(&m);
    if (prob.destroy) prob.destroy(prob.data);
    free(values);
    free(path);
    return rc;
}
