/* cli.c: the qmol command line (qmol_main.h): run, list, info. */
#include "config.h"
#include "h5out.h"
#include "qmol_main.h"
#include "registry.h"
#include "run.h"

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
            "  qmol list [PLUGIN.so]               problems (or a plugin's), parameters, methods\n"
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

/* The built-in problems, or the plugin at `plugin` (a path). */
static int list_problems(const char *plugin) {
    const qmol_problem_def *d = NULL;
    char err[512];
    if (plugin && plugin_load(plugin, &d, err, sizeof err) != 0) {
        fprintf(stderr, "qmol: error: qmol list %s: %s\n", plugin, err);
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
    printf("\nMethods (--method): qss1 qss2 qss3 bqss liqss1 liqss2 mliqss1 mliqss2 cvode "
           "mixed\n");
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
            if (rank == 0) fprintf(stderr, "qmol: error: usage: qmol list [PLUGIN.so]\n");
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
        int rc = config_parse(&c, argc - 2, argv + 2, err, sizeof err);
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
