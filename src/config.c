/* config.c: `qmol run` options and INI files (see config.h). */
#include "config.h"

#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void config_usage(void) {
    printf("usage: qmol run --problem NAME|PLUGIN.so [options]\n"
           "  -c, --config FILE     INI file: [run] options, [problem] parameters (command "
           "line wins)\n"
           "  --problem NAME        built-in problem (see `qmol list`) or a plugin .so path\n"
           "  --set KEY=VALUE       problem parameter (repeatable)\n"
           "  --method M            qss1 qss2 qss3 bqss liqss1 liqss2 mliqss1 mliqss2 cvode "
           "(default mliqss2)\n"
           "  --tol T               relative tolerance / quantum (default 1e-3)\n"
           "  --abstol A            absolute tolerance / minimum quantum (default: tol)\n"
           "  --tf TF               final time (default: the problem's)\n"
           "  --samples K           output at t0 + (tf-t0) k/K, k = 1..K (default 20)\n"
           "  --output FILE.h5      result file (default <problem>.h5)\n"
           "  --overwrite           replace an existing output file\n"
           "  --jacobian J          analytic (default, when the problem has one) or numeric\n"
           "  --linsol S            CVODE linear solver: klu (default), band, spgmr\n"
           "  --max-order N         CVODE BDF maximum order, 1..5 (default 5)\n"
           "  --quiet, --verbose    less or more output\n");
}

static int failf(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return 2;
}

static int parse_double(const char *s, double *out) {
    char *end;
    if (!s || !*s) return -1;
    double v = strtod(s, &end);
    while (*end == ' ' || *end == '\t') end++;
    if (*end != '\0' || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

static int parse_count(const char *s, int64_t lo, int64_t hi, int64_t *out) {
    double v;
    if (parse_double(s, &v) != 0 || v != floor(v) || v < (double)lo || v > (double)hi) return -1;
    *out = (int64_t)v;
    return 0;
}

static int set_string(char **slot, const char *value) {
    char *copy = strdup(value);
    if (!copy) return -1;
    free(*slot);
    *slot = copy;
    return 0;
}

static int add_set(run_config *c, const char *assignment) {
    char **grown = realloc(c->sets, (size_t)(c->nsets + 1) * sizeof *grown);
    if (!grown) return -1;
    c->sets = grown;
    c->sets[c->nsets] = strdup(assignment);
    if (!c->sets[c->nsets]) return -1;
    c->nsets++;
    return 0;
}

/* Applies one option by name (without "--"). `where` names its origin for
 * messages ("--tol" or "run.ini:3: tol"). */
static int apply(run_config *c, const char *key, const char *value, const char *where, char *err,
                 size_t errlen) {
    int64_t count;
    if (!value)
        return failf(err, errlen, "%s: missing value", where);
    if (!strcmp(key, "problem")) {
        if (!*value) return failf(err, errlen, "%s: empty problem name", where);
        if (set_string(&c->problem, value)) return failf(err, errlen, "out of memory");
    } else if (!strcmp(key, "set")) {
        if (!strchr(value, '='))
            return failf(err, errlen, "%s %s: expected KEY=VALUE", where, value);
        if (add_set(c, value)) return failf(err, errlen, "out of memory");
    } else if (!strcmp(key, "method")) {
        int m = method_from_name(value);
        if (m < 0)
            return failf(err, errlen,
                         "%s %s: unknown method (allowed: qss1 qss2 qss3 bqss liqss1 liqss2 "
                         "mliqss1 mliqss2 cvode)",
                         where, value);
        c->method = (method_id)m;
    } else if (!strcmp(key, "tol")) {
        if (parse_double(value, &c->reltol) != 0 || c->reltol <= 0.0 || c->reltol >= 1.0)
            return failf(err, errlen, "%s %s: must be a number in (0, 1)", where, value);
    } else if (!strcmp(key, "abstol")) {
        if (parse_double(value, &c->abstol) != 0 || c->abstol <= 0.0)
            return failf(err, errlen, "%s %s: must be a finite number > 0", where, value);
        c->abstol_given = 1;
    } else if (!strcmp(key, "tf")) {
        if (parse_double(value, &c->tf) != 0)
            return failf(err, errlen, "%s %s: must be a finite number", where, value);
    } else if (!strcmp(key, "samples")) {
        if (parse_count(value, 1, 100000000, &count) != 0)
            return failf(err, errlen, "%s %s: must be a whole number in [1, 100000000]", where,
                         value);
        c->samples = count;
    } else if (!strcmp(key, "output")) {
        if (!*value) return failf(err, errlen, "%s: empty output path", where);
        if (set_string(&c->output, value)) return failf(err, errlen, "out of memory");
    } else if (!strcmp(key, "overwrite")) {
        if (!strcmp(value, "1") || !strcasecmp(value, "true") || !strcasecmp(value, "yes"))
            c->overwrite = 1;
        else if (!strcmp(value, "0") || !strcasecmp(value, "false") || !strcasecmp(value, "no"))
            c->overwrite = 0;
        else
            return failf(err, errlen, "%s %s: must be true or false", where, value);
    } else if (!strcmp(key, "jacobian")) {
        if (!strcmp(value, "analytic"))
            c->use_jacobian = 1;
        else if (!strcmp(value, "numeric"))
            c->use_jacobian = 0;
        else
            return failf(err, errlen, "%s %s: must be analytic or numeric", where, value);
    } else if (!strcmp(key, "linsol")) {
        if (!strcmp(value, "klu"))
            c->linsol = LINSOL_KLU;
        else if (!strcmp(value, "band"))
            c->linsol = LINSOL_BAND;
        else if (!strcmp(value, "spgmr"))
            c->linsol = LINSOL_SPGMR;
        else
            return failf(err, errlen, "%s %s: must be klu, band or spgmr", where, value);
    } else if (!strcmp(key, "max-order")) {
        if (parse_count(value, 1, 5, &count) != 0)
            return failf(err, errlen, "%s %s: must be a whole number in [1, 5]", where, value);
        c->max_order = (int)count;
    } else {
        return failf(err, errlen, "%s: unknown option (see `qmol run --help`)", where);
    }
    return 0;
}

typedef struct ini_ctx {
    run_config *c;
    const char *path;
    char *err;
    size_t errlen;
    int rc;
    int line;
} ini_ctx;

static int on_ini(void *user, const char *section, const char *name, const char *value) {
    ini_ctx *x = user;
    char where[512];
    snprintf(where, sizeof where, "%s: [%s] %s", x->path, section, name);
    if (!strcmp(section, "run")) {
        if (!strcmp(name, "set") || !strcmp(name, "config")) {
            x->rc = failf(x->err, x->errlen, "%s: not allowed in [run] (use [problem])", where);
            return 0;
        }
        x->rc = apply(x->c, name, value, where, x->err, x->errlen);
        return x->rc == 0;
    }
    if (!strcmp(section, "problem")) {
        size_t len = strlen(name) + strlen(value) + 2;
        char *assignment = malloc(len);
        if (!assignment) {
            x->rc = failf(x->err, x->errlen, "out of memory");
            return 0;
        }
        snprintf(assignment, len, "%s=%s", name, value);
        x->rc = add_set(x->c, assignment) ? failf(x->err, x->errlen, "out of memory") : 0;
        free(assignment);
        return x->rc == 0;
    }
    x->rc = failf(x->err, x->errlen, "%s: unknown section [%s] (allowed: [run], [problem])",
                  x->path, section);
    return 0;
}

static int load_ini(run_config *c, const char *path, char *err, size_t errlen) {
    ini_ctx x = {c, path, err, errlen, 0, 0};
    int rc = ini_parse(path, on_ini, &x);
    if (x.rc != 0) return x.rc;
    if (rc < 0) return failf(err, errlen, "-c %s: cannot read the file", path);
    if (rc > 0) return failf(err, errlen, "-c %s: syntax error on line %d", path, rc);
    return 0;
}

static void defaults(run_config *c) {
    memset(c, 0, sizeof *c);
    c->method = METHOD_MLIQSS2;
    c->reltol = 1e-3;
    c->tf = NAN;
    c->samples = 20;
    c->use_jacobian = 1;
    c->linsol = LINSOL_KLU;
    c->max_order = 5;
}

int config_parse(run_config *c, int argc, char **argv, char *err, size_t errlen) {
    defaults(c);
    /* the INI file first, so the command line wins wherever it is given */
    for (int a = 0; a < argc; a++) {
        if (!strcmp(argv[a], "-c") || !strcmp(argv[a], "--config")) {
            if (a + 1 >= argc) return failf(err, errlen, "%s: missing file name", argv[a]);
            int rc = load_ini(c, argv[a + 1], err, errlen);
            if (rc) return rc;
            a++;
        }
    }
    for (int a = 0; a < argc; a++) {
        const char *arg = argv[a];
        if (!strcmp(arg, "-c") || !strcmp(arg, "--config")) {
            a++;
            continue;
        }
        if (!strcmp(arg, "--quiet") || !strcmp(arg, "-q")) {
            c->quiet = 1;
            continue;
        }
        if (!strcmp(arg, "--verbose") || !strcmp(arg, "-v")) {
            c->verbose = 1;
            continue;
        }
        if (!strcmp(arg, "--overwrite")) {
            c->overwrite = 1;
            continue;
        }
        if (strncmp(arg, "--", 2) != 0 || !arg[2])
            return failf(err, errlen, "%s: unexpected argument (see `qmol run --help`)", arg);
        char key[64];
        const char *eq = strchr(arg, '=');
        const char *value;
        size_t klen = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
        if (klen >= sizeof key) return failf(err, errlen, "%s: unknown option", arg);
        memcpy(key, arg + 2, klen);
        key[klen] = '\0';
        if (eq) {
            value = eq + 1;
        } else {
            if (a + 1 >= argc) return failf(err, errlen, "--%s: missing value", key);
            value = argv[++a];
        }
        char where[80];
        snprintf(where, sizeof where, "--%s", key);
        int rc = apply(c, key, value, where, err, errlen);
        if (rc) return rc;
    }
    if (!c->problem)
        return failf(err, errlen, "--problem: missing (a built-in name from `qmol list`, or a "
                                  "plugin .so path)");
    if (!c->abstol_given) c->abstol = c->reltol;
    return 0;
}

void config_free(run_config *c) {
    free(c->problem);
    free(c->output);
    for (int k = 0; k < c->nsets; k++) free(c->sets[k]);
    free(c->sets);
    memset(c, 0, sizeof *c);
}
