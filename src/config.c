/* config.c: `qmol run` options and INI files (see config.h). */
#include "config.h"

#include "assign.h"
#include "partition.h"
#include "state_rule.h"

#include <errno.h>
#include <float.h>
#include <ini.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

void config_usage(void) {
    printf("usage: qmol run --problem NAME|PLUGIN.so [options]\n"
           "  -c, --config FILE     INI file: [run] options, [problem] parameters (command "
           "line wins)\n"
           "  --problem NAME        built-in problem (see `qmol list`) or a plugin .so path\n"
           "  --set KEY=VALUE       problem parameter (repeatable)\n"
           "  --method M            qss1 qss2 qss3 bqss liqss1 liqss2 mliqss1 mliqss2 cvode "
           "mixed\n"
           "                        (default mliqss2)\n"
           "  --qss-method M        mixed: the QSS block's method (default mliqss2)\n"
           "  --bdf RULE            mixed: states for BDF, e.g. \"x>5\", \"i>=500 && i<900\"\n"
           "                        (i state id, x y z grid coordinates, c component)\n"
           "  --bdf-file PATH       mixed: file of state ids for BDF\n"
           "  --assign A            mixed: manual (default: --bdf/--bdf-file) or auto\n"
           "                        (stiff rows to BDF, see docs/methods.md)\n"
           "  --assign-threshold X  auto: off-diagonal rate x (tf - t0) above which a row\n"
           "                        goes to BDF (default 1e4)\n"
           "  --assign-depth D      auto: also the dependents, up to D hops, of states\n"
           "                        read by crossings or changed by handlers (default 3)\n"
           "  --coupling C          mixed: how BDF reads QSS inputs: history (default),\n"
           "                        interp or sample\n"
           "  --tol T               relative tolerance / quantum (default 1e-3)\n"
           "  --abstol A            absolute tolerance / minimum quantum (default: tol/10)\n"
           "  --tf TF               final time (default: the problem's)\n"
           "  --samples K           output at t0 + (tf-t0) k/K, k = 1..K (default 20)\n"
           "  --sample-times LIST   output at these times instead (comma-separated, increasing,\n"
           "                        in (t0, tf], the last one tf; without --tf it sets tf)\n"
           "  --output-states RULE  write only the states RULE selects (as --bdf: i, x y z,\n"
           "                        c; e.g. \"x>=0.2 && x<=0.4\"), default all\n"
           "  --output FILE.h5      result file (default <problem>.h5)\n"
           "  --overwrite           replace an existing output, its XDMF file and checkpoint,\n"
           "                        and discard a stopped run's OUTPUT.partial\n"
           "  --jacobian J          analytic (default, when the problem has one) or numeric\n"
           "  --linsol S            CVODE linear solver: auto (default: band for narrow\n"
           "                        1D rows, spgmr for 2D/3D grids, else klu; on several\n"
           "                        ranks spgmr), klu, band, spgmr\n"
           "  --precond P           CVODE spgmr preconditioner: auto (jacobi on one rank,\n"
           "                        block-jacobi on several), jacobi, block-jacobi (KLU on\n"
           "                        pieces of <= 1024 owned rows)\n"
           "  --max-order N         CVODE BDF maximum order, 1..5 (default 5)\n"
           "  --partition P         several ranks: metis (default), block, file:PATH\n"
           "  --coarsen-above N     METIS on a coarsened graph above N states (default 2e7)\n"
           "  --pieces K            METIS: K pieces per rank, dealt round-robin, so moving\n"
           "                        fronts keep every rank busy (default: 4 for QSS\n"
           "                        methods, fewer below 1000 states a piece; 1 for\n"
           "                        cvode and mixed)\n"
           "  --window DT           several ranks: fixed exchange window (default: adaptive)\n"
           "  --window-min DT       adaptive windows: shortest (default 1e-6 (tf - t0))\n"
           "  --window-max DT       adaptive windows: longest (default (tf - t0) / K)\n"
           "  --progress S          seconds between progress reports on stderr (default:\n"
           "                        0.5 on a terminal, redrawn in place; 10 otherwise)\n"
           "  --compress L          deflate /states at level L (1..9; default 0: none)\n"
           "  --activity A          QSS and mixed: /activity/events per state over the run\n"
           "                        (total, default), also per sample interval (samples)\n"
           "  --checkpoint-every I  write a checkpoint every I of simulated time, or of wall\n"
           "                        time with a unit: 600s, 10m, 2h; off: none (default:\n"
           "                        30m; SIGTERM and SIGINT always stop at a checkpoint)\n"
           "  --checkpoint-file F   the checkpoint (default: the output with .ckpt.h5)\n"
           "  --keep-last-window W  on (default): keep a copy of the last window end in\n"
           "                        memory (16 bytes per state for cvode and mixed, 80-170\n"
           "                        for QSS methods; at most 2%% more time), the checkpoint a\n"
           "                        failed run leaves; off: it leaves the last periodic one\n"
           "  --restart CKPT.h5     resume a stopped run from its checkpoint (its options come\n"
           "                        from the checkpoint; --checkpoint-every, --checkpoint-file,\n"
           "                        --keep-last-window, --progress, --quiet, --verbose may be\n"
           "                        added); any number of ranks\n"
           "  --quiet, --verbose    less output (no progress), more (per-rank spread)\n");
}

/* The options that apply() knows, by name without "--": each is also a [run]
 * key of an INI file, except "set" (INI files use a [problem] section). */
static const char *const option_names[] = {"problem",
                                           "set",
                                           "method",
                                           "tol",
                                           "abstol",
                                           "tf",
                                           "samples",
                                           "output",
                                           "overwrite",
                                           "jacobian",
                                           "linsol",
                                           "max-order",
                                           "quiet",
                                           "verbose",
                                           "window",
                                           "window-min",
                                           "window-max",
                                           "partition",
                                           "coarsen-above",
                                           "precond",
                                           "pieces",
                                           "qss-method",
                                           "bdf",
                                           "bdf-file",
                                           "assign",
                                           "assign-threshold",
                                           "assign-depth",
                                           "coupling",
                                           "progress",
                                           "activity",
                                           "compress",
                                           "sample-times",
                                           "output-states",
                                           "checkpoint-every",
                                           "checkpoint-file",
                                           "keep-last-window",
                                           "restart"};
#define NOPTIONS (sizeof option_names / sizeof option_names[0])

static int known_option(const char *key) {
    for (size_t k = 0; k < NOPTIONS; k++)
        if (!strcmp(option_names[k], key)) return 1;
    return 0;
}

/* "-c/--config, --problem, ..." (cli) or "problem, method, ..." (INI [run]). */
static void list_options(char *buf, size_t len, int cli) {
    size_t used = 0;
    buf[0] = '\0';
    if (cli) used = (size_t)snprintf(buf, len, "-c/--config");
    for (size_t k = 0; k < NOPTIONS && used < len; k++) {
        if (!cli && !strcmp(option_names[k], "set")) continue;
        int w = snprintf(buf + used, len - used, "%s%s%s", used ? ", " : "", cli ? "--" : "",
                         option_names[k]);
        if (w < 0) break;
        used += (size_t)w;
    }
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
    while (*end == ' ' || *end == '\t')
        end++;
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

static int parse_bool(const char *s, int *out) {
    if (!strcmp(s, "1") || !strcasecmp(s, "true") || !strcasecmp(s, "yes"))
        *out = 1;
    else if (!strcmp(s, "0") || !strcasecmp(s, "false") || !strcasecmp(s, "no"))
        *out = 0;
    else
        return -1;
    return 0;
}

/* "t1, t2, ..." into c->sample_times: finite, strictly increasing. */
static int parse_times(run_config *c, const char *s) {
    int64_t count = 1;
    for (const char *p = s; *p; p++)
        count += *p == ',';
    double *t = malloc((size_t)count * sizeof *t);
    if (!t) return -1;
    int64_t k = 0;
    for (const char *p = s;; k++) {
        char *end;
        t[k] = strtod(p, &end);
        while (*end == ' ' || *end == '\t')
            end++;
        if (end == p || !isfinite(t[k]) || (k > 0 && !(t[k] > t[k - 1])) ||
            (*end != ',' && *end != '\0')) {
            free(t);
            return -1;
        }
        if (!*end) break;
        p = end + 1;
    }
    free(c->sample_times);
    c->sample_times = t;
    c->nsample_times = k + 1;
    return 0;
}

/* "0.5" (simulated time) or "600s", "10m", "2h" (wall time): one of *sim,
 * *wall is set > 0, the other 0. */
static int parse_interval(const char *s, double *sim, double *wall) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v) || !(v > 0.0)) return -1;
    double unit = !strcmp(end, "")    ? 0.0
                  : !strcmp(end, "s") ? 1.0
                  : !strcmp(end, "m") ? 60.0
                  : !strcmp(end, "h") ? 3600.0
                                      : -1.0;
    if (unit < 0.0 || !isfinite(v * unit)) return -1; /* 1e306h is not a wall time */
    *sim = unit == 0.0 ? v : 0.0;
    *wall = unit == 0.0 ? 0.0 : v * unit;
    return 0;
}

/* Appends an assignment; origin (may be NULL) says where it came from. */
static int add_set(run_config *c, const char *assignment, const char *origin) {
    size_t count = (size_t)c->nsets + 1;
    char **grown = realloc(c->sets, count * sizeof *grown);
    if (!grown) return -1;
    c->sets = grown;
    grown = realloc(c->set_origins, count * sizeof *grown);
    if (!grown) return -1;
    c->set_origins = grown;
    c->sets[c->nsets] = strdup(assignment);
    c->set_origins[c->nsets] = origin ? strdup(origin) : NULL;
    if (!c->sets[c->nsets] || (origin && !c->set_origins[c->nsets])) {
        free(c->sets[c->nsets]);
        free(c->set_origins[c->nsets]);
        return -1;
    }
    c->nsets++;
    return 0;
}

/* Applies one known option by name (without "--"). `where` names its origin
 * for messages ("--tol" or "run.ini:3: [run] tol") and `sep` goes between it
 * and the value (" " or " = "), so a message quotes the input as written. */
static int apply(run_config *c, const char *key, const char *value, const char *where,
                 const char *sep, char *err, size_t errlen) {
    int64_t count;
    if (!value) return failf(err, errlen, "%s: missing value", where);
    if (!strcmp(key, "problem")) {
        if (!*value) return failf(err, errlen, "%s: empty problem name", where);
        if (set_string(&c->problem, value)) return failf(err, errlen, "out of memory");
    } else if (!strcmp(key, "set")) {
        if (!strchr(value, '='))
            return failf(err, errlen, "%s%s%s: expected KEY=VALUE", where, sep, value);
        if (add_set(c, value, NULL)) return failf(err, errlen, "out of memory");
    } else if (!strcmp(key, "method")) {
        int m = method_from_name(value);
        if (m < 0)
            return failf(err, errlen,
                         "%s%s%s: unknown method (allowed: qss1 qss2 qss3 bqss liqss1 liqss2 "
                         "mliqss1 mliqss2 cvode mixed)",
                         where, sep, value);
        c->method = (method_id)m;
    } else if (!strcmp(key, "qss-method")) {
        int m = method_from_name(value);
        if (m < 0 || m == METHOD_CVODE || m == METHOD_MIXED)
            return failf(err, errlen,
                         "%s%s%s: not a QSS method (allowed: qss1 qss2 qss3 bqss liqss1 liqss2 "
                         "mliqss1 mliqss2)",
                         where, sep, value);
        c->qss_method = (method_id)m;
    } else if (!strcmp(key, "bdf")) {
        char why[256];
        if (assign_rule_check(value, why, sizeof why) != 0)
            return failf(err, errlen, "%s%s\"%s\": %s", where, sep, value, why);
        if (set_string(&c->bdf_rule, value)) return failf(err, errlen, "out of memory");
    } else if (!strcmp(key, "bdf-file")) {
        if (!*value) return failf(err, errlen, "%s: empty file name", where);
        if (set_string(&c->bdf_file, value)) return failf(err, errlen, "out of memory");
    } else if (!strcmp(key, "assign")) {
        if (!strcmp(value, "auto"))
            c->assign_auto = 1;
        else if (!strcmp(value, "manual"))
            c->assign_auto = 0;
        else
            return failf(err, errlen, "%s%s%s: must be manual or auto", where, sep, value);
    } else if (!strcmp(key, "assign-threshold")) {
        if (parse_double(value, &c->assign_threshold) != 0 || !(c->assign_threshold > 0.0))
            return failf(err, errlen, "%s%s%s: must be a finite number > 0", where, sep, value);
    } else if (!strcmp(key, "assign-depth")) {
        if (parse_count(value, 0, 1000000, &count) != 0)
            return failf(err, errlen, "%s%s%s: must be a whole number in [0, 1000000] (hops)",
                         where, sep, value);
        c->assign_depth = (int)count;
    } else if (!strcmp(key, "compress")) {
        if (parse_count(value, 0, 9, &count) != 0)
            return failf(err, errlen, "%s%s%s: must be a deflate level, a whole number in [0, 9]",
                         where, sep, value);
        c->compress = (int)count;
    } else if (!strcmp(key, "activity")) {
        if (!strcmp(value, "total"))
            c->activity_per_sample = 0;
        else if (!strcmp(value, "samples"))
            c->activity_per_sample = 1;
        else
            return failf(err, errlen, "%s%s%s: must be total or samples", where, sep, value);
    } else if (!strcmp(key, "coupling")) {
        if (!strcmp(value, "interp"))
            c->coupling = COUPLING_INTERP;
        else if (!strcmp(value, "sample"))
            c->coupling = COUPLING_SAMPLE;
        else if (!strcmp(value, "history"))
            c->coupling = COUPLING_HISTORY;
        else
            return failf(err, errlen, "%s%s%s: must be interp, sample or history", where, sep,
                         value);
    } else if (!strcmp(key, "tol")) {
        if (parse_double(value, &c->reltol) != 0 || c->reltol < MIN_RELTOL || c->reltol >= 1.0)
            return failf(err, errlen, "%s%s%s: must be a number in [%g, 1)", where, sep, value,
                         MIN_RELTOL);
    } else if (!strcmp(key, "abstol")) {
        if (parse_double(value, &c->abstol) != 0 || c->abstol < DBL_MIN)
            return failf(err, errlen, "%s%s%s: must be a finite number >= %g", where, sep, value,
                         DBL_MIN);
        c->abstol_given = 1;
    } else if (!strcmp(key, "tf")) {
        if (parse_double(value, &c->tf) != 0)
            return failf(err, errlen, "%s%s%s: must be a finite number", where, sep, value);
        snprintf(c->tf_origin, sizeof c->tf_origin, "%s%s%s", where, sep, value);
    } else if (!strcmp(key, "window") || !strcmp(key, "window-min") || !strcmp(key, "window-max")) {
        double v;
        if (parse_double(value, &v) != 0 || !(v > 0.0))
            return failf(err, errlen, "%s%s%s: must be a positive number (a time span)", where, sep,
                         value);
        if (!strcmp(key, "window"))
            c->window = v;
        else if (!strcmp(key, "window-min"))
            c->window_min = v;
        else
            c->window_max = v;
    } else if (!strcmp(key, "progress")) {
        if (parse_double(value, &c->progress) != 0 || c->progress < 0.0)
            return failf(err, errlen,
                         "%s%s%s: must be a number of seconds >= 0 (0: every chance to report)",
                         where, sep, value);
    } else if (!strcmp(key, "samples")) {
        if (parse_count(value, 1, 100000000, &count) != 0)
            return failf(err, errlen, "%s%s%s: must be a whole number in [1, 100000000]", where,
                         sep, value);
        c->samples = count;
        c->samples_given = 1;
    } else if (!strcmp(key, "sample-times")) {
        if (parse_times(c, value) != 0)
            return failf(err, errlen,
                         "%s%s%s: must be finite times separated by commas, strictly increasing",
                         where, sep, value);
    } else if (!strcmp(key, "output-states")) {
        char why[256];
        state_rule r;
        if (state_rule_parse(value, NULL, &r, why, sizeof why) != 0)
            return failf(err, errlen, "%s%s\"%s\": %s", where, sep, value, why);
        if (set_string(&c->output_states, value)) return failf(err, errlen, "out of memory");
    } else if (!strcmp(key, "checkpoint-every")) {
        c->checkpoint_off = !strcmp(value, "off");
        if (c->checkpoint_off)
            c->checkpoint_sim = c->checkpoint_wall = 0.0;
        else if (parse_interval(value, &c->checkpoint_sim, &c->checkpoint_wall) != 0)
            return failf(err, errlen,
                         "%s%s%s: must be a simulated time > 0, a wall time > 0 with a unit "
                         "(600s, 10m, 2h), or off",
                         where, sep, value);
    } else if (!strcmp(key, "keep-last-window")) {
        if (strcmp(value, "on") && strcmp(value, "off"))
            return failf(err, errlen, "%s%s%s: must be on or off", where, sep, value);
        c->keep_last_window = !strcmp(value, "on");
    } else if (!strcmp(key, "checkpoint-file")) {
        if (!*value) return failf(err, errlen, "%s: empty file name", where);
        if (set_string(&c->checkpoint_file, value)) return failf(err, errlen, "out of memory");
    } else if (!strcmp(key, "restart")) {
        if (!*value) return failf(err, errlen, "%s: empty file name", where);
        if (set_string(&c->restart, value)) return failf(err, errlen, "out of memory");
    } else if (!strcmp(key, "output")) {
        if (!*value) return failf(err, errlen, "%s: empty output path", where);
        if (set_string(&c->output, value)) return failf(err, errlen, "out of memory");
    } else if (!strcmp(key, "partition")) {
        partition_options po;
        char why[256];
        if (partition_parse(value, &po, why, sizeof why) != 0) {
            /* partition_parse's message starts "--partition VALUE: " */
            const char *reason = strstr(why, ": ");
            return failf(err, errlen, "%s%s%s: %s", where, sep, value, reason ? reason + 2 : why);
        }
        if (set_string(&c->partition, value)) return failf(err, errlen, "out of memory");
    } else if (!strcmp(key, "coarsen-above")) {
        if (parse_count(value, 1, INT64_MAX / 2, &count) != 0)
            return failf(err, errlen, "%s%s%s: must be a whole number >= 1 (states)", where, sep,
                         value);
        c->coarsen_above = count;
    } else if (!strcmp(key, "pieces")) {
        if (parse_count(value, 1, 4096, &count) != 0)
            return failf(err, errlen,
                         "%s%s%s: must be a whole number in [1, 4096] (pieces per rank)", where,
                         sep, value);
        c->pieces = (int)count;
    } else if (!strcmp(key, "overwrite") || !strcmp(key, "quiet") || !strcmp(key, "verbose")) {
        int *flag = key[0] == 'o' ? &c->overwrite : key[0] == 'q' ? &c->quiet : &c->verbose;
        if (parse_bool(value, flag) != 0)
            return failf(err, errlen, "%s%s%s: must be true or false (or yes/no, 1/0)", where, sep,
                         value);
    } else if (!strcmp(key, "jacobian")) {
        if (!strcmp(value, "analytic"))
            c->use_jacobian = 1;
        else if (!strcmp(value, "numeric"))
            c->use_jacobian = 0;
        else
            return failf(err, errlen, "%s%s%s: must be analytic or numeric", where, sep, value);
    } else if (!strcmp(key, "linsol")) {
        if (!strcmp(value, "auto"))
            c->linsol = LINSOL_AUTO;
        else if (!strcmp(value, "klu"))
            c->linsol = LINSOL_KLU;
        else if (!strcmp(value, "band"))
            c->linsol = LINSOL_BAND;
        else if (!strcmp(value, "spgmr"))
            c->linsol = LINSOL_SPGMR;
        else
            return failf(err, errlen, "%s%s%s: must be auto, klu, band or spgmr", where, sep,
                         value);
    } else if (!strcmp(key, "precond")) {
        if (!strcmp(value, "auto"))
            c->precond = PRECOND_AUTO;
        else if (!strcmp(value, "jacobi"))
            c->precond = PRECOND_JACOBI;
        else if (!strcmp(value, "block-jacobi"))
            c->precond = PRECOND_BLOCK;
        else
            return failf(err, errlen, "%s%s%s: must be auto, jacobi or block-jacobi", where, sep,
                         value);
    } else if (!strcmp(key, "max-order")) {
        if (parse_count(value, 1, 5, &count) != 0)
            return failf(err, errlen, "%s%s%s: must be a whole number in [1, 5]", where, sep,
                         value);
        c->max_order = (int)count;
    } else {
        char names[1024];
        list_options(names, sizeof names, 1);
        return failf(err, errlen, "%s: unknown option (allowed: %s)", where, names);
    }
    return 0;
}

typedef struct ini_ctx {
    run_config *c;
    const char *path;
    FILE *file;
    char *err;
    size_t errlen;
    int rc;       /* the first error of on_ini, reported as is */
    int line;     /* the line being parsed: one per reader call */
    int err_line; /* the line of that first error */
    char *buf;    /* getline's buffer */
    size_t cap;
} ini_ctx;

/* Keeps the first error of the file (a later good line must not hide it). */
static void ini_error(ini_ctx *x, int rc) {
    if (x->rc) return;
    x->rc = rc;
    x->err_line = x->line;
}

/* One whole line per call, counted, so that on_ini can name the line it is
 * given. inih's buffer holds num - 1 bytes: a longer line, which inih would
 * cut and read on as another line, and a NUL byte, which would end the line
 * early, are errors (the line is passed on as a comment). */
static char *ini_read_line(char *str, int num, void *stream) {
    ini_ctx *x = stream;
    ssize_t len = getline(&x->buf, &x->cap, x->file);
    if (len < 0) return NULL;
    x->line++;
    if (memchr(x->buf, '\0', (size_t)len)) {
        ini_error(x, failf(x->err, x->errlen, "%s: line %d holds a NUL byte (not a text file?)",
                           x->path, x->line));
        len = 0;
    } else if (len - (x->buf[len - 1] == '\n') > num - 2) {
        ini_error(x, failf(x->err, x->errlen,
                           "%s: line %d is longer than %d characters (the INI reader's limit)",
                           x->path, x->line, num - 2));
        len = 0;
    }
    if (len == 0) {
        snprintf(str, (size_t)num, ";\n");
        return str;
    }
    memcpy(str, x->buf, (size_t)len);
    str[len] = '\0';
    return str;
}

/* One "name = value" of the file. Keeps the first error only (inih goes on
 * after a failed line, and a later good line must not hide it). */
static int on_ini(void *user, const char *section, const char *name, const char *value) {
    ini_ctx *x = user;
    if (x->rc) return 1;
    char where[512], names[1024];
    snprintf(where, sizeof where, "%s:%d: [%s] %s", x->path, x->line, section, name);
    int rc = 0;
    if (!section[0]) {
        rc = failf(x->err, x->errlen,
                   "%s:%d: %s: outside a section (allowed sections: [run], [problem])", x->path,
                   x->line, name);
    } else if (!strcmp(section, "run")) {
        if (!strcmp(name, "set") || !strcmp(name, "config") || !strcmp(name, "restart")) {
            rc = failf(x->err, x->errlen, "%s = %s: not allowed in [run] (use [problem])", where,
                       value);
        } else if (!known_option(name)) {
            list_options(names, sizeof names, 0);
            rc = failf(x->err, x->errlen, "%s = %s: unknown option (allowed in [run]: %s)", where,
                       value, names);
        } else {
            rc = apply(x->c, name, value, where, " = ", x->err, x->errlen);
        }
    } else if (!strcmp(section, "problem")) {
        size_t len = strlen(name) + strlen(value) + 2;
        char *assignment = malloc(len);
        char origin[1024];
        snprintf(origin, sizeof origin, "%s = %s", where, value);
        if (assignment) snprintf(assignment, len, "%s=%s", name, value);
        if (!assignment || add_set(x->c, assignment, origin))
            rc = failf(x->err, x->errlen, "out of memory");
        free(assignment);
    } else {
        rc = failf(x->err, x->errlen, "%s:%d: [%s]: unknown section (allowed: [run], [problem])",
                   x->path, x->line, section);
    }
    if (rc) ini_error(x, rc);
    return 1;
}

static int load_ini(run_config *c, const char *flag, const char *path, char *err, size_t errlen) {
    if (!*path) return failf(err, errlen, "%s: empty file name", flag);
    FILE *f = fopen(path, "r");
    if (!f) return failf(err, errlen, "%s %s: cannot open: %s", flag, path, strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        return failf(err, errlen, "%s %s: is a directory, not an INI file", flag, path);
    }
    ini_ctx x = {c, path, f, err, errlen, 0, 0, 0, NULL, 0};
    int rc = ini_parse_stream(ini_read_line, &x, on_ini, &x);
    int read_error = ferror(f) ? (errno ? errno : EIO) : 0;
    fclose(f);
    free(x.buf);
    if (read_error)
        return failf(err, errlen, "%s %s: cannot read: %s", flag, path, strerror(read_error));
    /* whichever came first: a line inih could not parse, or a bad setting */
    if (rc > 0 && (x.rc == 0 || rc < x.err_line))
        return failf(err, errlen,
                     "%s %s: syntax error on line %d (expected [section], key = value or a "
                     "; comment)",
                     flag, path, rc);
    if (x.rc) return x.rc;
    if (rc < 0) return failf(err, errlen, "%s %s: out of memory", flag, path);
    return 0;
}

static void defaults(run_config *c) {
    memset(c, 0, sizeof *c);
    c->method = METHOD_MLIQSS2;
    c->reltol = 1e-3;
    c->tf = NAN;
    c->samples = 20;
    c->use_jacobian = 1;
    c->linsol = LINSOL_AUTO;
    c->max_order = 5;
    c->keep_last_window = 1;
    c->qss_method = METHOD_MLIQSS2;
    c->coupling = COUPLING_HISTORY;
    c->assign_depth = -1;
    c->progress = -1.0;
}

/* The arguments, one per line, without --restart and its file. */
static char *join_args(int argc, char **argv) {
    size_t len = 1;
    for (int a = 0; a < argc; a++)
        len += strlen(argv[a]) + 1;
    char *s = malloc(len);
    if (!s) return NULL;
    s[0] = '\0';
    for (int a = 0; a < argc; a++) {
        if (!strcmp(argv[a], "--restart") && a + 1 < argc) {
            a++;
            continue;
        }
        if (!strncmp(argv[a], "--restart=", 10)) continue;
        strcat(s, argv[a]);
        strcat(s, "\n");
    }
    return s;
}

int config_parse(run_config *c, int argc, char **argv, char *err, size_t errlen) {
    defaults(c);
    c->args_text = join_args(argc, argv);
    if (!c->args_text) return failf(err, errlen, "out of memory");
    /* the INI file first, so the command line wins wherever it is given */
    for (int a = 0; a < argc; a++) {
        int rc = 0;
        if (!strncmp(argv[a], "--config=", 9)) {
            rc = load_ini(c, "--config", argv[a] + 9, err, errlen);
        } else if (!strcmp(argv[a], "-c") || !strcmp(argv[a], "--config")) {
            if (a + 1 >= argc) return failf(err, errlen, "%s: missing file name", argv[a]);
            rc = load_ini(c, argv[a], argv[a + 1], err, errlen);
            a++;
        }
        if (rc) return rc;
    }
    for (int a = 0; a < argc; a++) {
        const char *arg = argv[a];
        if (!strcmp(arg, "-c") || !strcmp(arg, "--config")) {
            a++;
            continue;
        }
        if (!strncmp(arg, "--config=", 9)) continue;
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
            return failf(err, errlen,
                         "%s: unexpected argument (options start with --; see `qmol run --help`)",
                         arg);
        char key[64], names[1024];
        const char *eq = strchr(arg, '=');
        const char *value;
        size_t klen = eq ? (size_t)(eq - arg - 2) : strlen(arg + 2);
        if (klen < sizeof key) {
            memcpy(key, arg + 2, klen);
            key[klen] = '\0';
        }
        /* before taking a value: an unknown option must not swallow the next one */
        if (klen >= sizeof key || !known_option(key)) {
            list_options(names, sizeof names, 1);
            return failf(err, errlen, "--%.*s: unknown option (allowed: %s)", (int)klen, arg + 2,
                         names);
        }
        if (eq) {
            value = eq + 1;
        } else {
            if (a + 1 >= argc) return failf(err, errlen, "--%s: missing value", key);
            value = argv[++a];
        }
        char where[80];
        snprintf(where, sizeof where, "--%s", key);
        int rc = apply(c, key, value, where, " ", err, errlen);
        if (rc) return rc;
    }
    if (!c->problem)
        return failf(err, errlen,
                     "--problem: missing (a built-in name from `qmol list`, or a "
                     "plugin .so path)");
    if (c->sample_times && c->samples_given)
        return failf(err, errlen,
                     "--sample-times and --samples: give one of them (--sample-times sets the "
                     "number of samples)");
    if (c->sample_times) c->samples = c->nsample_times;
    if (c->window_min > 0.0 && c->window_max > 0.0 && c->window_min > c->window_max)
        return failf(err, errlen,
                     "--window-min %g and --window-max %g: the shortest window must not exceed "
                     "the longest",
                     c->window_min, c->window_max);
    if (!c->abstol_given) c->abstol = DEFAULT_ABSTOL_RATIO * c->reltol;
    int mixed_input = c->bdf_rule || c->bdf_file || c->assign_auto;
    if (c->method == METHOD_MIXED && !mixed_input)
        return failf(err, errlen,
                     "--method mixed: say which states go to BDF (--bdf RULE, --bdf-file PATH or "
                     "--assign auto)");
    if (c->method != METHOD_MIXED && mixed_input)
        return failf(err, errlen, "--%s: only with --method mixed",
                     c->bdf_rule   ? "bdf"
                     : c->bdf_file ? "bdf-file"
                                   : "assign");
    return 0;
}

void config_free(run_config *c) {
    free(c->problem);
    free(c->partition);
    free(c->output);
    free(c->bdf_rule);
    free(c->bdf_file);
    free(c->output_states);
    free(c->checkpoint_file);
    free(c->restart);
    free(c->args_text);
    free(c->sample_times);
    for (int k = 0; k < c->nsets; k++) {
        free(c->sets[k]);
        free(c->set_origins[k]);
    }
    free(c->sets);
    free(c->set_origins);
    memset(c, 0, sizeof *c);
}
