/* cli.c: the qmol command line (qmol_main.h): run, list, info. */
#include "io/ckpt.h"
#include "driver/config.h"
#include "io/h5out.h"
#include "qmol_main.h"
#include "problems/registry.h"
#include "driver/run.h"
#include "driver/run_options.h"

#include <float.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out) {
    fprintf(out,
            "qmol %s: quantized-state and BDF integration of method-of-lines systems\n"
            "usage:\n"
            "  qmol run --problem NAME [options]   integrate (qmol run --help for options)\n"
            "  qmol list [NAME | PLUGIN.so]        problems (or one, or a plugin's), parameters, "
            "methods\n"
            "  qmol info FILE.h5                   summary of a result file\n"
            "  qmol --version\n",
            QMOL_VERSION);
}

static void print_bound(double v) {
    if (v == DBL_MAX || v == -DBL_MAX)
        printf("%s", v > 0 ? "inf" : "-inf");
    else
        printf("%g", v);
}

/* A problem's name, summary, equations and parameters. */
static void print_problem(const qmol_problem_def *d) {
    printf("\n%s: %s\n", d->name, d->summary);
    for (const char *line = d->equations ? d->equations : ""; *line;) {
        const char *end = strchr(line, '\n');
        int len = end ? (int)(end - line) : (int)strlen(line);
        printf("    %.*s\n", len, line);
        line += len + (end ? 1 : 0);
    }
    for (int p = 0; p < d->nparams; p++) {
        const qmol_param_def *pd = &d->params[p];
        printf("  %-10s default %-10g %s in [", pd->name, pd->value,
               pd->integer ? "integer" : "real");
        print_bound(pd->min);
        printf(", ");
        print_bound(pd->max);
        printf("]  %s\n", pd->doc ? pd->doc : "");
    }
}

/* Every registered problem, or the one `name` stands for (a registered
 * name or a plugin's path). */
static int list_problems(const char *name) {
    const qmol_problem_def *d = NULL;
    char err[1536];
    if (name && registry_resolve("qmol list", name, &d, err, sizeof err) != 0) {
        fprintf(stderr, "qmol: error: %s\n", err);
        return 2;
    }
    printf("Problems (qmol run --problem NAME --set KEY=VALUE):\n");
    if (d) {
        print_problem(d);
    } else {
        int count;
        const qmol_problem_def *const *all = registry_all(&count);
        for (int k = 0; k < count; k++)
            print_problem(all[k]);
    }
    printf("\nMethods (qmol run --method NAME):\n");
    for (int id = 0; integrator_by_id(id); id++)
        printf("  %-8s %s\n", integrator_by_id(id)->name, integrator_by_id(id)->description);
    return 0;
}

/* Options that may come with --restart (run_options.h; the others come from
 * the checkpoint); *takes_value 1 when the next argument is its value. */
static int restart_extra(const char *arg, int *takes_value) {
    if (!strcmp(arg, "-q") || !strcmp(arg, "-v")) {
        *takes_value = 0;
        return 1;
    }
    const char *value;
    const run_option *o = run_option_of_arg(arg, &value);
    if (!o || !run_option_on_restart(o)) return 0;
    *takes_value = !value && !run_option_is_flag(o);
    return 1;
}

/* Whether s is a number and nothing else (a value of --checkpoint-every
 * without a unit, as checkpoints before "t=" stored it). */
static int bare_number(const char *s, size_t len) {
    char buf[64], *end;
    if (len == 0 || len >= sizeof buf) return 0;
    memcpy(buf, s, len);
    buf[len] = '\0';
    strtod(buf, &end);
    return end == buf + len;
}

/* The stored arguments (one per line) with an older checkpoint's
 * "--checkpoint-every N" (simulated time, no unit then) written as "t=N",
 * the form that says so now. Returns a new string, or NULL (out of memory). */
static char *upgrade_stored_args(const char *args) {
    static const char flag[] = "--checkpoint-every";
    size_t len = strlen(args), lines = 0;
    for (const char *p = args; *p; p++)
        lines += *p == '\n';
    char *out = malloc(len + 2 * lines + 1), *o = out;
    if (!out) return NULL;
    int after_flag = 0;
    for (const char *p = args, *nl; (nl = strchr(p, '\n')); p = nl + 1) {
        size_t n = (size_t)(nl - p);
        const char *value = NULL;
        if (after_flag)
            value = p;
        else if (n > sizeof flag && !strncmp(p, flag, sizeof flag - 1) && p[sizeof flag - 1] == '=')
            value = p + sizeof flag;
        size_t head = value ? (size_t)(value - p) : n;
        memcpy(o, p, head), o += head;
        if (value && bare_number(value, n - head)) *o++ = 't', *o++ = '=';
        memcpy(o, p + head, n - head), o += n - head;
        *o++ = '\n';
        after_flag = n == sizeof flag - 1 && !strncmp(p, flag, n);
    }
    *o = '\0';
    return out;
}

/* With --restart CKPT among args: *out holds the run's arguments stored in
 * the checkpoint, then the allowed ones given here, then --restart CKPT
 * (*out_argc of them; free *out and *words), and *where the checkpoint's
 * time, next sample and state count. Without it, *out = NULL. Returns 0,
 * or 2 with a message. */
static int restart_args(int argc, char **argv, int *out_argc, char ***out, char **words,
                        ckpt_info *where, char *err, size_t errlen) {
    *out = NULL;
    *words = NULL;
    const char *path = NULL;
    for (int a = 0; a < argc; a++) {
        if (!strcmp(argv[a], "--restart") && a + 1 < argc) path = argv[a + 1];
        if (!strncmp(argv[a], "--restart=", 10)) path = argv[a] + 10;
    }
    if (!path) return 0;
    ckpt_info info;
    if (ckpt_read_info(path, &info, err, errlen)) return 2;
    char *upgraded = upgrade_stored_args(info.args);
    if (!upgraded) {
        ckpt_info_free(&info);
        snprintf(err, errlen, "out of memory");
        return 2;
    }
    free(info.args);
    info.args = upgraded;
    int count = 0;
    for (const char *p = info.args; *p; p++)
        count += *p == '\n';
    char **v = calloc((size_t)(count + argc + 3), sizeof *v);
    if (!v) {
        ckpt_info_free(&info);
        snprintf(err, errlen, "out of memory");
        return 2;
    }
    int n = 0;
    for (char *p = info.args, *nl; (nl = strchr(p, '\n')); p = nl + 1) {
        *nl = '\0';
        v[n++] = p;
    }
    for (int a = 0; a < argc; a++) {
        int takes_value = 0;
        if (!strcmp(argv[a], "--restart")) {
            a++;
            continue;
        }
        if (!strncmp(argv[a], "--restart=", 10)) continue;
        if (!restart_extra(argv[a], &takes_value)) {
            char allowed[256];
            run_options_restart_list(allowed, sizeof allowed);
            snprintf(err, errlen,
                     "--restart %s: %s cannot be given on a restart (the run's options come from "
                     "the checkpoint; allowed: %s)",
                     path, argv[a], allowed);
            free(v);
            ckpt_info_free(&info);
            return 2;
        }
        v[n++] = argv[a];
        if (takes_value && a + 1 < argc) v[n++] = argv[++a];
    }
    v[n++] = "--restart";
    v[n++] = (char *)path;
    *out_argc = n;
    *out = v;
    *words = info.args; /* v's stored words point into it */
    info.args = NULL;
    *where = (ckpt_info){.t = info.t, .next_sample = info.next_sample, .n = info.n};
    ckpt_info_free(&info);
    return 0;
}

/* A command rank 0 runs alone (list, info): every rank exits with its code. */
static int rank0_verdict(int rc) {
    fflush(stdout);
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return rc;
}

static int dispatch(int argc, char **argv, int rank) {
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        !strcmp(argv[1], "help")) {
        /* no command is a usage error: the usage goes to stderr */
        if (rank == 0) usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "--version")) {
        if (rank == 0) printf("qmol %s\n", QMOL_VERSION);
        return 0;
    }
    if (!strcmp(argv[1], "list")) {
        if (argc > 3) {
            if (rank == 0) fprintf(stderr, "qmol: error: usage: qmol list [NAME | PLUGIN.so]\n");
            return 2;
        }
        return rank0_verdict(rank == 0 ? list_problems(argc == 3 ? argv[2] : NULL) : 0);
    }
    if (!strcmp(argv[1], "info")) {
        if (argc != 3) {
            if (rank == 0) fprintf(stderr, "qmol: error: usage: qmol info FILE.h5\n");
            return 2;
        }
        return rank0_verdict(rank == 0 ? h5out_info(argv[2]) : 0);
    }
    if (!strcmp(argv[1], "run")) {
        for (int a = 2; a < argc; a++)
            if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
                if (rank == 0) config_usage();
                return 0;
            }
        run_config c;
        char err[1024] = "";
        int rargc = 0;
        char **rargv = NULL, *words = NULL;
        ckpt_info where = {0};
        int rc = restart_args(argc - 2, argv + 2, &rargc, &rargv, &words, &where, err, sizeof err);
        if (rc) {
            if (rank == 0) fprintf(stderr, "qmol: error: %s\n", err);
            return rc;
        }
        rc = rargv ? config_parse(&c, rargc, rargv, err, sizeof err)
                   : config_parse(&c, argc - 2, argv + 2, err, sizeof err);
        free(rargv), free(words);
        c.restart_t = where.t, c.restart_next_sample = where.next_sample, c.restart_n = where.n;
        if (rc == 0)
            rc = run_execute(&c);
        else if (rank == 0)
            fprintf(stderr, "qmol: error: %s\n", err);
        config_free(&c);
        return rc;
    }
    if (rank == 0)
        fprintf(stderr, "qmol: error: %s: unknown command (allowed: run, list, info)\n", argv[1]);
    return 2;
}

int qmol_register_problem(const qmol_problem_def *def) {
    char err[1024];
    if (registry_add(def, err, sizeof err) == 0) return 0;
    fprintf(stderr, "qmol: error: %s\n", err);
    return -1;
}

const char *qmol_version(void) {
    return QMOL_VERSION;
}

int qmol_main(int argc, char **argv) {
    int mpi = 0, rank = 0;
    if (MPI_Initialized(&mpi) != MPI_SUCCESS || !mpi) {
        fprintf(stderr, "qmol: error: qmol_main: MPI is not initialized (call MPI_Init first)\n");
        return 2;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int rc = dispatch(argc, argv, rank);
    fflush(stdout);
    return rc;
}
