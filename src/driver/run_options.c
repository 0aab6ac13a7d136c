/* run_options.c: the table of `qmol run` options (run_options.h). */
#include "driver/run_options.h"

#include "mixed/assign.h"
#include "partition/partition.h"
#include "core/state_rule.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* How a setter's complaint is quoted: "--tol 2: must be ...",
 * "--bdf \"x>>5\": ...", or "--output: empty output path". */
enum { SET_OK = 0, SAY_VALUE = 1, SAY_QUOTED, SAY_OPTION, SET_NO_MEMORY = -1 };

typedef int (*option_setter)(run_config *c, const run_option *o, const char *value, char *why,
                             size_t whylen);

struct run_option {
    const char *name;    /* without "--"; also the INI [run] key */
    const char *metavar; /* the value in the usage; NULL: a flag */
    const char *help;    /* usage text: '\n' starts a continuation line; {methods} and
                          * {qss-methods} at its start are the method names */
    option_setter set;
    size_t field;        /* offsetof(run_config, ...) for the shared setters */
    double lo, hi;       /* numbers: the range, lo excluded when lo_open */
    int lo_open;         /* numbers: lo itself not allowed */
    int wide;            /* counts: an int64_t field (else int) */
    const char *names;   /* choices: space-separated names ... */
    const int *values;   /* ... and the value each stores (an int field) */
    const char *must;    /* the complaint about a bad value */
    int on_restart;      /* may be given with --restart (the others come from the checkpoint) */
    const char *initial; /* the default, as a value the setter takes; the usage shows it
                          * as "(default X)". NULL: none, or one computed later */
    unsigned needs;      /* INTEGRATOR_* capabilities the method must have one of for the
                          * option to act (run_options_check_used); 0: every method */
};

#define FIELD(f) offsetof(run_config, f)

static void *field_of(run_config *c, const run_option *o) {
    return (char *)c + o->field;
}

static int say(char *why, size_t whylen, int how, const char *text) {
    snprintf(why, whylen, "%s", text);
    return how;
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

static int store_string(char **slot, const char *value) {
    char *copy = strdup(value);
    if (!copy) return SET_NO_MEMORY;
    free(*slot);
    *slot = copy;
    return SET_OK;
}

/* ---- shared setters ---------------------------------------------------- */

/* A non-empty string (a name or a path). */
static int set_text(run_config *c, const run_option *o, const char *value, char *why,
                    size_t whylen) {
    if (!*value) return say(why, whylen, SAY_OPTION, o->must);
    return store_string(field_of(c, o), value);
}

/* A finite double in the option's range. */
static int set_real(run_config *c, const run_option *o, const char *value, char *why,
                    size_t whylen) {
    double v;
    if (parse_double(value, &v) != 0 || v < o->lo || (o->lo_open && v == o->lo) || v > o->hi)
        return say(why, whylen, SAY_VALUE, o->must);
    *(double *)field_of(c, o) = v;
    return SET_OK;
}

/* A whole number in the option's range. */
static int set_count(run_config *c, const run_option *o, const char *value, char *why,
                     size_t whylen) {
    int64_t v;
    if (parse_count(value, (int64_t)o->lo, (int64_t)o->hi, &v) != 0)
        return say(why, whylen, SAY_VALUE, o->must);
    if (o->wide)
        *(int64_t *)field_of(c, o) = v;
    else
        *(int *)field_of(c, o) = (int)v;
    return SET_OK;
}

/* One of the option's names (case as written). */
static int set_choice(run_config *c, const run_option *o, const char *value, char *why,
                      size_t whylen) {
    size_t len = strlen(value);
    int k = 0;
    for (const char *p = o->names; *p; k++) {
        size_t n = strcspn(p, " ");
        if (n == len && !strncmp(p, value, n)) {
            *(int *)field_of(c, o) = o->values[k];
            return SET_OK;
        }
        p += n + (p[n] == ' ');
    }
    return say(why, whylen, SAY_VALUE, o->must);
}

/* true/false, yes/no, 1/0 (a flag given in an INI file). */
static int set_bool(run_config *c, const run_option *o, const char *value, char *why,
                    size_t whylen) {
    int *flag = field_of(c, o);
    if (!strcmp(value, "1") || !strcasecmp(value, "true") || !strcasecmp(value, "yes"))
        *flag = 1;
    else if (!strcmp(value, "0") || !strcasecmp(value, "false") || !strcasecmp(value, "no"))
        *flag = 0;
    else
        return say(why, whylen, SAY_VALUE, o->must);
    return SET_OK;
}

/* ---- options of their own ---------------------------------------------- */

static int set_method(run_config *c, const run_option *o, const char *value, char *why,
                      size_t whylen) {
    int qss_only = o->field == FIELD(qss_method);
    const integrator_def *m = integrator_by_name(value);
    if (!m || (qss_only && !integrator_is_qss(m))) {
        char names[256];
        integrator_names(names, sizeof names, qss_only);
        snprintf(why, whylen, "%s (allowed: %s)", qss_only ? "not a QSS method" : "unknown method",
                 names);
        return SAY_VALUE;
    }
    *(const integrator_def **)field_of(c, o) = m;
    *(qss_only ? &c->qss_method_given : &c->method_given) = 1;
    return SET_OK;
}

static int set_assignment(run_config *c, const run_option *o, const char *value, char *why,
                          size_t whylen) {
    if (!strchr(value, '=')) return say(why, whylen, SAY_VALUE, o->must);
    return config_add_set(c, value, NULL) ? SET_NO_MEMORY : SET_OK;
}

static int set_bdf_rule(run_config *c, const run_option *o, const char *value, char *why,
                        size_t whylen) {
    if (assign_rule_check(value, why, whylen) != 0) return SAY_QUOTED;
    return store_string(field_of(c, o), value);
}

static int set_state_rule(run_config *c, const run_option *o, const char *value, char *why,
                          size_t whylen) {
    state_rule r;
    if (state_rule_parse(value, NULL, &r, why, whylen) != 0) return SAY_QUOTED;
    return store_string(field_of(c, o), value);
}

static int set_partition(run_config *c, const run_option *o, const char *value, char *why,
                         size_t whylen) {
    partition_options po;
    char text[256];
    if (partition_parse(value, &po, text, sizeof text) != 0) {
        /* partition_parse's message starts "--partition VALUE: " */
        const char *reason = strstr(text, ": ");
        return say(why, whylen, SAY_VALUE, reason ? reason + 2 : text);
    }
    return store_string(field_of(c, o), value);
}

static int set_tol(run_config *c, const run_option *o, const char *value, char *why,
                   size_t whylen) {
    (void)o;
    if (parse_double(value, &c->reltol) != 0 || c->reltol < MIN_RELTOL || c->reltol >= 1.0) {
        snprintf(why, whylen, "must be a number in [%g, 1)", MIN_RELTOL);
        return SAY_VALUE;
    }
    return SET_OK;
}

static int set_abstol(run_config *c, const run_option *o, const char *value, char *why,
                      size_t whylen) {
    (void)o;
    if (parse_double(value, &c->abstol) != 0 || c->abstol < DBL_MIN) {
        snprintf(why, whylen, "must be a finite number >= %g", DBL_MIN);
        return SAY_VALUE;
    }
    c->abstol_given = 1;
    return SET_OK;
}

static int set_samples(run_config *c, const run_option *o, const char *value, char *why,
                       size_t whylen) {
    int rc = set_count(c, o, value, why, whylen);
    if (rc == SET_OK) c->samples_given = 1;
    return rc;
}

/* "t1, t2, ..." into c->sample_times: finite, strictly increasing. */
static int set_sample_times(run_config *c, const run_option *o, const char *value, char *why,
                            size_t whylen) {
    int64_t count = 1;
    for (const char *p = value; *p; p++)
        count += *p == ',';
    double *t = malloc((size_t)count * sizeof *t);
    if (!t) return SET_NO_MEMORY;
    int64_t k = 0;
    for (const char *p = value;; k++) {
        char *end;
        t[k] = strtod(p, &end);
        while (*end == ' ' || *end == '\t')
            end++;
        if (end == p || !isfinite(t[k]) || (k > 0 && !(t[k] > t[k - 1])) ||
            (*end != ',' && *end != '\0')) {
            free(t);
            return say(why, whylen, SAY_VALUE, o->must);
        }
        if (!*end) break;
        p = end + 1;
    }
    free(c->sample_times);
    c->sample_times = t;
    c->nsample_times = k + 1;
    return SET_OK;
}

/* "t=0.5" (simulated time) or "600s", "10m", "2h" (wall time), or "off". A
 * bare number is refused: 600 read as simulated time surprised users who
 * meant seconds. */
static int set_checkpoint_every(run_config *c, const run_option *o, const char *value, char *why,
                                size_t whylen) {
    c->checkpoint_off = !strcmp(value, "off");
    c->checkpoint_sim = c->checkpoint_wall = 0.0;
    if (c->checkpoint_off) return SET_OK;
    int sim = !strncmp(value, "t=", 2);
    const char *number = sim ? value + 2 : value;
    char *end;
    double v = strtod(number, &end);
    double unit = -1.0; /* seconds per unit of the value; 0: simulated time */
    if (end == number || (sim && *end)) {
        unit = -1.0;
    } else if (sim) {
        unit = 0.0;
    } else if (!strcmp(end, "s") || !strcmp(end, "m") || !strcmp(end, "h")) {
        unit = *end == 's' ? 1.0 : *end == 'm' ? 60.0 : 3600.0;
    } else if (!*end && v > 0.0 && isfinite(v)) {
        snprintf(why, whylen,
                 "a number needs its kind: t=%s for every %s of simulated time, %ss (or m, h) "
                 "for wall time",
                 number, number, number);
        return SAY_VALUE;
    }
    /* 1e306h is not a wall time */
    if (unit < 0.0 || !isfinite(v) || !(v > 0.0) || !isfinite(v * unit))
        return say(why, whylen, SAY_VALUE, o->must);
    if (unit == 0.0)
        c->checkpoint_sim = v;
    else
        c->checkpoint_wall = v * unit;
    return SET_OK;
}

static int set_tf(run_config *c, const run_option *o, const char *value, char *why, size_t whylen) {
    if (parse_double(value, &c->tf) != 0) return say(why, whylen, SAY_VALUE, o->must);
    return SET_OK;
}

/* ---- the table, in the usage's order ------------------------------------ */

static const int assign_values[] = {0, 1};
static const int coupling_values[] = {COUPLING_HISTORY, COUPLING_INTERP, COUPLING_SAMPLE};
static const int jacobian_values[] = {1, 0};
static const int linsol_values[] = {LINSOL_AUTO, LINSOL_KLU, LINSOL_BAND, LINSOL_SPGMR};
static const int precond_values[] = {PRECOND_AUTO, PRECOND_JACOBI, PRECOND_BLOCK, PRECOND_ILU};
static const int cvode_norm_values[] = {CVODE_NORM_RMS, CVODE_NORM_MAX};
static const int activity_values[] = {0, 1};
static const int on_off_values[] = {0, 1};

#define TEXT(what) .set = set_text, .must = "empty " what
#define CHOICE(list, vals, text) .set = set_choice, .names = list, .values = vals, .must = text
#define SPAN(f)                                                                                    \
    .set = set_real, .field = FIELD(f), .lo = 0.0, .lo_open = 1, .hi = DBL_MAX,                    \
    .must = "must be a positive number (a time span)"

static const run_option options[] = {
    {"problem", "NAME", "built-in problem (see `qmol list`) or a plugin .so path",
     .field = FIELD(problem), TEXT("problem name")},
    {"set", "KEY=VALUE", "problem parameter (repeatable)", .set = set_assignment,
     .must = "expected KEY=VALUE"},
    {"method", "M", "{methods}", .set = set_method, .field = FIELD(method), .initial = "auto"},
    {"qss-method", "M",
     "the QSS method: of mixed's QSS block (default mliqss2),\nof auto and moving (default "
     "liqss2)",
     .set = set_method, .field = FIELD(qss_method), .needs = INTEGRATOR_TAKES_QSS_METHOD},
    {"bdf", "RULE",
     "mixed: states for BDF, e.g. \"x>5\", \"i>=500 && i<900\"\n(i state id, x y z grid "
     "coordinates, c component)",
     .set = set_bdf_rule, .field = FIELD(bdf_rule), .needs = INTEGRATOR_ASSIGNS},
    {"bdf-file", "PATH", "mixed: file of state ids for BDF", .field = FIELD(bdf_file),
     .needs = INTEGRATOR_ASSIGNS, TEXT("file name")},
    {"assign", "A",
     "mixed: manual (default: --bdf/--bdf-file) or auto\n(stiff rows to BDF, see "
     "docs/methods.md)",
     .field = FIELD(assign_auto), .needs = INTEGRATOR_ASSIGNS,
     CHOICE("manual auto", assign_values, "must be manual or auto")},
    {"assign-threshold", "X",
     "auto: off-diagonal rate x (tf - t0) above which a row\ngoes to BDF (default 1e4)",
     .set = set_real, .field = FIELD(assign_threshold), .lo = 0.0, .lo_open = 1, .hi = DBL_MAX,
     .must = "must be a finite number > 0", .needs = INTEGRATOR_ASSIGNS},
    {"assign-depth", "D",
     "auto: also the dependents, up to D hops, of states\nread by crossings or changed by "
     "handlers (default 3)",
     .set = set_count, .field = FIELD(assign_depth), .lo = 0, .hi = 1000000,
     .must = "must be a whole number in [0, 1000000] (hops)", .needs = INTEGRATOR_ASSIGNS},
    {"coupling", "C", "mixed: how BDF reads QSS inputs: history,\ninterp or sample",
     .field = FIELD(coupling), .initial = "history", .needs = INTEGRATOR_ASSIGNS,
     CHOICE("history interp sample", coupling_values, "must be interp, sample or history")},
    {"tol", "T", "relative tolerance / quantum", .set = set_tol, .initial = "1e-3"},
    {"abstol", "A", "absolute tolerance / minimum quantum (default: tol/10)", .set = set_abstol},
    {"tf", "TF", "final time (default: the problem's)", .set = set_tf,
     .must = "must be a finite number"},
    {"samples", "K", "output at t0 + (tf-t0) k/K, k = 1..K", .set = set_samples,
     .field = FIELD(samples), .initial = "20", .lo = 1, .hi = 100000000, .wide = 1,
     .must = "must be a whole number in [1, 100000000]"},
    {"sample-times", "LIST",
     "output at these times instead (comma-separated, increasing,\nin (t0, tf], the last one "
     "tf; without --tf it sets tf)",
     .set = set_sample_times,
     .must = "must be finite times separated by commas, strictly increasing"},
    {"output-states", "RULE",
     "write only the states RULE selects (as --bdf: i, x y z,\nc; e.g. \"x>=0.2 && x<=0.4\"), "
     "default all",
     .set = set_state_rule, .field = FIELD(output_states)},
    {"output", "FILE.h5", "result file (default <problem>.h5)", .field = FIELD(output),
     TEXT("output path")},
    {"overwrite", NULL,
     "replace an existing output, its XDMF file and checkpoint,\nand discard a stopped run's "
     "OUTPUT.partial",
     .set = set_bool, .field = FIELD(overwrite), .must = "must be true or false (or yes/no, 1/0)"},
    {"jacobian", "J", "analytic (when the problem has one) or numeric",
     .field = FIELD(use_jacobian), .initial = "analytic",
     CHOICE("analytic numeric", jacobian_values, "must be analytic or numeric")},
    {"linsol", "S",
     "CVODE linear solver: auto (band for narrow\n1D rows, spgmr for 2D/3D grids, else "
     "klu; on several\nranks spgmr), klu, band, spgmr",
     .field = FIELD(linsol), .initial = "auto", .needs = INTEGRATOR_BDF,
     CHOICE("auto klu band spgmr", linsol_values, "must be auto, klu, band or spgmr")},
    {"precond", "P",
     "CVODE spgmr preconditioner: auto (ilu), jacobi,\nblock-jacobi (KLU on pieces of <= 1024 "
     "owned rows),\nilu (ILU(0) of each rank's owned rows)",
     .field = FIELD(precond), .initial = "auto", .needs = INTEGRATOR_BDF,
     CHOICE("auto jacobi block-jacobi ilu", precond_values,
            "must be auto, jacobi, block-jacobi or ilu")},
    {"cvode-norm", "N",
     "CVODE's error norm: rms (SUNDIALS' root mean square of\nthe weighted errors) or max (the "
     "largest: each state\nwithin its tolerance, as QSS; a front's few states\nno longer share "
     "the budget of the quiet rest, at more\nsteps; docs/methods.md)",
     .field = FIELD(cvode_norm), .initial = "rms", .needs = INTEGRATOR_BDF,
     CHOICE("rms max", cvode_norm_values, "must be rms or max")},
    {"max-order", "N", "CVODE BDF maximum order, 1..5", .set = set_count, .field = FIELD(max_order),
     .initial = "5", .lo = 1, .hi = 5, .must = "must be a whole number in [1, 5]",
     .needs = INTEGRATOR_BDF},
    {"partition", "P", "several ranks: metis (default), block, file:PATH", .set = set_partition,
     .field = FIELD(partition)},
    {"coarsen-above", "N", "METIS on a coarsened graph above N states (default 2e7)",
     .set = set_count, .field = FIELD(coarsen_above), .lo = 1, .hi = (double)(INT64_MAX / 2),
     .wide = 1, .must = "must be a whole number >= 1 (states)"},
    {"pieces", "K",
     "METIS: K pieces per rank, dealt round-robin, so moving\nfronts keep every rank busy "
     "(default: 4 for QSS\nmethods, fewer below 1000 states a piece; 1 for\ncvode and mixed)",
     .set = set_count, .field = FIELD(pieces), .lo = 1, .hi = 4096,
     .must = "must be a whole number in [1, 4096] (pieces per rank)"},
    {"window", "DT", "several ranks: fixed exchange window (default: adaptive)", SPAN(window),
     .needs = INTEGRATOR_QSS_ENGINE},
    {"window-min", "DT",
     "adaptive windows: shortest (default 1e-6 (tf - t0); auto\non several ranks: 1e-9 (tf - t0))",
     SPAN(window_min), .needs = INTEGRATOR_QSS_ENGINE},
    {"window-max", "DT", "adaptive windows: longest (default (tf - t0) / K)", SPAN(window_max),
     .needs = INTEGRATOR_QSS_ENGINE},
    {"progress", "S",
     "seconds between progress reports on stderr (default:\n0.5 on a terminal, redrawn in "
     "place; 10 otherwise)",
     .set = set_real, .field = FIELD(progress), .lo = 0.0, .hi = DBL_MAX,
     .must = "must be a number of seconds >= 0 (0: every chance to report)", .on_restart = 1},
    {"compress", "L", "deflate /states at level L (1..9; 0: none)", .set = set_count,
     .field = FIELD(compress), .initial = "0", .lo = 0, .hi = 9,
     .must = "must be a deflate level, a whole number in [0, 9]"},
    {"activity", "A",
     "QSS and mixed: /activity/events per state over the run\n(total), also per "
     "sample interval (samples)",
     .field = FIELD(activity_per_sample), .initial = "total", .needs = INTEGRATOR_QSS_ENGINE,
     CHOICE("total samples", activity_values, "must be total or samples")},
    {"checkpoint-every", "I",
     "write a checkpoint every I: of simulated time as t=0.5,\nof wall time as 600s, 10m, 2h; "
     "off: none (default:\n30m; SIGTERM and SIGINT always stop at a checkpoint)",
     .set = set_checkpoint_every,
     .must = "must be a simulated time > 0 (t=0.5), a wall time > 0 with a unit (600s, 10m, "
             "2h), or off",
     .on_restart = 1},
    {"checkpoint-file", "F", "the checkpoint (default: the output with .ckpt.h5)",
     .field = FIELD(checkpoint_file), TEXT("file name"), .on_restart = 1},
    {"keep-last-window", "W",
     "on: keep a copy of the last window end in\nmemory (16 bytes per state for cvode "
     "and mixed, 80-170\nfor QSS methods; at most 2% more time), the checkpoint a\nfailed run "
     "leaves; off: it leaves the last periodic one",
     .field = FIELD(keep_last_window), CHOICE("off on", on_off_values, "must be on or off"),
     .on_restart = 1, .initial = "on"},
    {"restart", "CKPT.h5",
     "resume a stopped run from its checkpoint (its options come\nfrom the checkpoint; "
     "--checkpoint-every, --checkpoint-file,\n--keep-last-window, --progress, --quiet, "
     "--verbose may be\nadded); any number of ranks",
     .field = FIELD(restart), TEXT("file name")},
    {"quiet", NULL, "less output (no progress)", .set = set_bool, .field = FIELD(quiet),
     .must = "must be true or false (or yes/no, 1/0)", .on_restart = 1},
    {"verbose", NULL, "more output (per-rank spread)", .set = set_bool, .field = FIELD(verbose),
     .must = "must be true or false (or yes/no, 1/0)", .on_restart = 1},
};
#define NOPTIONS (sizeof options / sizeof options[0])
_Static_assert(NOPTIONS <= RUN_OPTIONS_MAX, "run_config.origin has no room for every option");

const run_option *run_option_find(const char *name) {
    for (size_t k = 0; k < NOPTIONS; k++)
        if (!strcmp(options[k].name, name)) return &options[k];
    return NULL;
}

const run_option *run_option_of_arg(const char *arg, const char **value) {
    *value = NULL;
    if (strncmp(arg, "--", 2) != 0) return NULL;
    size_t len = strcspn(arg + 2, "=");
    char name[64];
    if (len >= sizeof name) return NULL;
    memcpy(name, arg + 2, len);
    name[len] = '\0';
    if (arg[2 + len] == '=') *value = arg + 3 + len;
    return run_option_find(name);
}

const char *run_option_name(const run_option *o) {
    return o->name;
}

int run_option_is_flag(const run_option *o) {
    return o->metavar == NULL;
}

int run_option_on_restart(const run_option *o) {
    return o->on_restart;
}

void run_options_restart_list(char *buf, size_t len) {
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < NOPTIONS && used < len; k++) {
        if (!options[k].on_restart) continue;
        int w = snprintf(buf + used, len - used, "%s--%s", used ? ", " : "", options[k].name);
        if (w < 0) break;
        used += (size_t)w;
    }
}

int run_option_in_ini(const run_option *o) {
    return o->set != set_assignment && strcmp(o->name, "restart") != 0;
}

int run_option_apply(run_config *c, const run_option *o, const char *value, const char *where,
                     const char *sep, char *err, size_t errlen) {
    char why[512] = "";
    if (!value) {
        snprintf(err, errlen, "%s: missing value", where);
        return 2;
    }
    switch (o->set(c, o, value, why, sizeof why)) {
    case SET_OK: { /* later messages quote it as written */
        char **origin = &c->origin[o - options];
        free(*origin);
        size_t len = strlen(where) + strlen(sep) + strlen(value) + 1;
        if (!(*origin = malloc(len))) break;
        snprintf(*origin, len, "%s%s%s", where, sep, value);
        return 0;
    }
    case SAY_VALUE:
        snprintf(err, errlen, "%s%s%s: %s", where, sep, value, why);
        return 2;
    case SAY_QUOTED:
        snprintf(err, errlen, "%s%s\"%s\": %s", where, sep, value, why);
        return 2;
    case SAY_OPTION:
        snprintf(err, errlen, "%s: %s", where, why);
        return 2;
    default:
        break;
    }
    snprintf(err, errlen, "out of memory");
    return 2;
}

const char *run_option_given(const run_config *c, const char *name) {
    const run_option *o = run_option_find(name);
    return o ? c->origin[o - options] : NULL;
}

/* What a method with one of the capabilities `needs` has, for a message. */
static const char *capability_text(unsigned needs) {
    return needs == INTEGRATOR_BDF                ? "a CVODE BDF block"
           : needs == INTEGRATOR_ASSIGNS          ? "a split between QSS and BDF"
           : needs == INTEGRATOR_QSS_ENGINE       ? "the QSS engine"
           : needs == INTEGRATOR_TAKES_QSS_METHOD ? "a QSS method beside CVODE"
                                                  : "another method";
}

int run_options_check_used(const run_config *c, char *err, size_t errlen) {
    for (size_t k = 0; k < NOPTIONS; k++) {
        const run_option *o = &options[k];
        if (!o->needs || !c->origin[k] || (c->method->caps & o->needs)) continue;
        char names[256];
        integrator_names_with(names, sizeof names, o->needs);
        snprintf(err, errlen, "%s: only with a method that has %s (%s); --method %s has none",
                 c->origin[k], capability_text(o->needs), names, c->method->name);
        return 2;
    }
    return 0;
}

void run_options_defaults(run_config *c) {
    char why[256];
    for (size_t k = 0; k < NOPTIONS; k++) {
        const run_option *o = &options[k];
        if (o->initial && o->set(c, o, o->initial, why, sizeof why) != SET_OK) {
            fprintf(stderr, "qmol: internal error: default of --%s: %s\n", o->name, why);
            abort();
        }
    }
    c->samples_given = 0; /* set_samples marks a given value */
    c->method_given = 0;  /* and set_method */
    c->qss_method_given = 0;
}

void run_options_list(char *buf, size_t len, int cli) {
    size_t used = 0;
    buf[0] = '\0';
    if (cli) used = (size_t)snprintf(buf, len, "-c/--config");
    for (size_t k = 0; k < NOPTIONS && used < len; k++) {
        if (!cli && !run_option_in_ini(&options[k])) continue;
        int w = snprintf(buf + used, len - used, "%s%s%s", used ? ", " : "", cli ? "--" : "",
                         options[k].name);
        if (w < 0) break;
        used += (size_t)w;
    }
}

/* One usage entry: "  --name METAVAR" in 22 columns, then the help lines
 * and "(default X)" after the last when there is one. */
static void print_entry(const char *left, const char *help, const char *initial) {
    char names[256];
    printf("  %-20s", left);
    for (const char *line = help; line;) {
        const char *nl = strchr(line, '\n');
        int len = nl ? (int)(nl - line) : (int)strlen(line);
        const char *text = line;
        int qss_only = !strncmp(text, "{qss-methods}", 13);
        if (qss_only || !strncmp(text, "{methods}", 9)) {
            integrator_names(names, sizeof names, qss_only);
            printf("  %s", names);
        } else {
            printf("  %.*s", len, text);
        }
        if (!nl && initial) printf(" (default %s)", initial);
        printf("\n");
        line = nl ? nl + 1 : NULL;
        if (line) printf("  %-20s", "");
    }
}

void run_options_usage(void) {
    printf("usage: qmol run --problem NAME|PLUGIN.so [options]\n");
    print_entry("-c, --config FILE",
                "INI file: [run] options, [problem] parameters (command line wins)", NULL);
    for (size_t k = 0; k < NOPTIONS; k++) {
        char left[64];
        const run_option *o = &options[k];
        snprintf(left, sizeof left, "--%s%s%s", o->name, o->metavar ? " " : "",
                 o->metavar ? o->metavar : "");
        print_entry(left, o->help, o->initial);
    }
}
