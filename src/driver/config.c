/* config.c: `qmol run` options and INI files (see config.h). */
#include "driver/config.h"

#include "driver/run_options.h"

#include <errno.h>
#include <math.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int failf(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return 2;
}

void config_usage(void) {
    run_options_usage();
}

int config_add_set(run_config *c, const char *assignment, const char *origin) {
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
        const run_option *o = run_option_find(name);
        if (!strcmp(name, "config") || (o && !run_option_in_ini(o))) {
            rc = failf(x->err, x->errlen, "%s = %s: not allowed in [run] (use [problem])", where,
                       value);
        } else if (!o) {
            run_options_list(names, sizeof names, 0);
            rc = failf(x->err, x->errlen, "%s = %s: unknown option (allowed in [run]: %s)", where,
                       value, names);
        } else {
            rc = run_option_apply(x->c, o, value, where, " = ", x->err, x->errlen);
        }
    } else if (!strcmp(section, "problem")) {
        size_t len = strlen(name) + strlen(value) + 2;
        char *assignment = malloc(len);
        char origin[1024];
        snprintf(origin, sizeof origin, "%s = %s", where, value);
        if (assignment) snprintf(assignment, len, "%s=%s", name, value);
        if (!assignment || config_add_set(x->c, assignment, origin))
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
    run_options_defaults(c);
    /* computed later when not given */
    c->tf = NAN;
    c->assign_depth = -1;
    c->progress = -1.0;
}

/* Which states go to BDF: said for the mixed method (auto takes --assign
 * auto's split unless told). Given to a method without a split, --bdf,
 * --bdf-file and --assign are refused as unused (check_used). */
static int check_assignment(run_config *c, char *err, size_t errlen) {
    int mixed_input = c->bdf_rule || c->bdf_file || c->assign_auto;
    if (!integrator_has(c->method, INTEGRATOR_ASSIGNS)) return 0;
    if (integrator_has(c->method, INTEGRATOR_CHOOSES) && !mixed_input)
        c->assign_auto = mixed_input = 1;
    if (!mixed_input)
        return failf(err, errlen,
                     "--method %s: say which states go to BDF (--bdf RULE, --bdf-file PATH or "
                     "--assign auto)",
                     c->method->name);
    return 0;
}

/* Options a run would ignore: refused (run_options_check_used), and a
 * preconditioner with a direct solver. Not on a restart: its stored
 * arguments were accepted when the run began (by versions that ignored
 * them, too). */
static int check_used(const run_config *c, char *err, size_t errlen) {
    if (c->restart) return 0;
    int rc = run_options_check_used(c, err, errlen);
    if (rc) return rc;
    /* (--assign-depth also sets the hops gathered around discontinuities
     * on several ranks, split by a rule or not: docs/parallel.md) */
    const char *threshold = run_option_given(c, "assign-threshold");
    if (threshold && !c->assign_auto)
        return failf(err, errlen, "%s: only with --assign auto (here --%s gives the split)",
                     threshold, c->bdf_rule ? "bdf" : "bdf-file");
    const char *precond = run_option_given(c, "precond");
    if (precond && (c->linsol == LINSOL_KLU || c->linsol == LINSOL_BAND))
        return failf(err, errlen,
                     "%s: only with --linsol spgmr or auto (--linsol %s is a direct solver, "
                     "without a preconditioner)",
                     precond, c->linsol == LINSOL_KLU ? "klu" : "band");
    return 0;
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

/* The default method until 2026-11-29 (auto since): a restart whose
 * checkpoint names no method, neither in its stored arguments nor in their
 * INI file, was written by a run of it (checkpoints since name theirs). */
#define OLD_DEFAULT_METHOD "mliqss2"

/* The QSS method when --qss-method is not given: mixed's, and auto's. Until
 * 2026-11-30 auto took mliqss2 too: a restart whose stored arguments name no
 * QSS method was written by such a run (runs of auto since store theirs).
 * LIQSS2 measured as fast or faster under auto on every problem of
 * bench-auto's suite (adr2d 300 x 300, tol 1e-3, one rank: 3.9-4.6 s
 * against 5.2-6.5; docs/methods.md, "auto's QSS method"). */
#define MIXED_QSS_METHOD "mliqss2"
#define AUTO_QSS_METHOD "liqss2"

/* The arguments a checkpoint stores name the method the run took, given
 * on the command line or not (the default's, an INI file's): a restart
 * goes on with the run's own, whatever the default or its INI file say
 * by then. */
static int name_option(run_config *c, const char *option, const char *name) {
    size_t len = strlen(c->args_text);
    char *s = realloc(c->args_text, len + strlen(option) + strlen(name) + 3);
    if (!s) return -1;
    sprintf(s + len, "%s\n%s\n", option, name);
    c->args_text = s;
    return 0;
}

/* The method and the QSS method where not given (the defaults, or a
 * restart's of older checkpoints), named in the stored arguments where not
 * on the command line (given there or not, the run's own), and the QSS
 * method refused where nothing runs it. Returns 0, or 2 with a message. */
static int resolve_methods(run_config *c, int method_on_line, int qss_on_line, char *err,
                           size_t errlen) {
    if (!c->method_given && c->restart) c->method = integrator_by_name(OLD_DEFAULT_METHOD);
    if (!method_on_line && name_option(c, "--method", c->method->name))
        return failf(err, errlen, "out of memory");
    int chooses = integrator_has(c->method, INTEGRATOR_CHOOSES);
    /* (moving: auto's, which its QSS part measured fastest on fronts) */
    int like_auto = (chooses && !c->restart) || (integrator_has(c->method, INTEGRATOR_BDF) &&
                                                 !integrator_has(c->method, INTEGRATOR_ASSIGNS) &&
                                                 integrator_has(c->method, INTEGRATOR_QSS_ENGINE));
    if (!c->qss_method_given)
        c->qss_method = integrator_by_name(like_auto ? AUTO_QSS_METHOD : MIXED_QSS_METHOD);
    if (chooses && !qss_on_line && name_option(c, "--qss-method", c->qss_method->name))
        return failf(err, errlen, "out of memory");
    return 0;
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
    int method_on_line = 0, qss_on_line = 0;
    for (int a = 0; a < argc; a++) {
        const char *arg = argv[a];
        if (!strcmp(arg, "-c") || !strcmp(arg, "--config")) {
            a++;
            continue;
        }
        if (!strncmp(arg, "--config=", 9)) continue;
        if (!strcmp(arg, "-q") || !strcmp(arg, "-v")) {
            *(arg[1] == 'q' ? &c->quiet : &c->verbose) = 1;
            continue;
        }
        if (strncmp(arg, "--", 2) != 0 || !arg[2])
            return failf(err, errlen,
                         "%s: unexpected argument (options start with --; see `qmol run --help`)",
                         arg);
        /* before taking a value: an unknown option must not swallow the next one */
        const char *value;
        const run_option *o = run_option_of_arg(arg, &value);
        if (!o) {
            char names[1024];
            run_options_list(names, sizeof names, 1);
            return failf(err, errlen, "--%.*s: unknown option (allowed: %s)",
                         (int)strcspn(arg + 2, "="), arg + 2, names);
        }
        char where[80];
        snprintf(where, sizeof where, "--%s", run_option_name(o));
        method_on_line |= !strcmp(run_option_name(o), "method");
        qss_on_line |= !strcmp(run_option_name(o), "qss-method");
        if (!value && run_option_is_flag(o)) {
            value = "true";
        } else if (!value) {
            if (a + 1 >= argc) return failf(err, errlen, "%s: missing value", where);
            value = argv[++a];
        }
        int rc = run_option_apply(c, o, value, where, " ", err, errlen);
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
    int rc = resolve_methods(c, method_on_line, qss_on_line, err, errlen);
    if (rc == 0) rc = check_assignment(c, err, errlen);
    return rc ? rc : check_used(c, err, errlen);
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
    for (int k = 0; k < RUN_OPTIONS_MAX; k++)
        free(c->origin[k]);
    memset(c, 0, sizeof *c);
}
