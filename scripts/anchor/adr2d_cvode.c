/* adr2d_cvode.c: the benchmark anchor of scripts/bench-engine (issue 21), a
 * hand-written SUNDIALS CVODE program of qmol's adr2d problem with its
 * default parameters on an N x N grid. It uses nothing of qmol: the stencil,
 * its Jacobian and the preconditioners are written here for this one grid
 * (the problem: adr2d_problem.h).
 *
 * CVODE as qmol sets it up for SPGMR (src/cvode/cvode_block.c,
 * cvode_linsol.c): BDF up to order 5, reltol = tol, abstol = tol / 10,
 * SPGMR with right preconditioning, Krylov dimension 20 and 5 restarts, a
 * stop time at tf; J v from the Jacobian stored at the last Jacobian
 * evaluation (re-evaluated only when CVODE says it is stale, jok), so the
 * Newton matrix is I - gamma J with that stored J; the preconditioner, from
 * the same stored J and the current gamma:
 *   jacobi  1 / (1 - gamma J_ii)
 *   ilu0    ILU(0) of I - gamma J in natural order. On the 5-point pattern
 *           its fill (i-1, i+N-1 and i-N, i-N+1) falls outside the pattern,
 *           so L = (D + A_lower) D^-1 and U = D + A_upper with only D new:
 *           d_i = a_ii - a_i,i-1 a_i-1,i / d_i-1 - a_i,i-N a_i-N,i / d_i-N.
 *
 * Vectors: NVECTOR_SERIAL (threads "serial") or NVECTOR_OPENMP with T
 * threads, and then the right-hand side, J v, the Jacobian and the Jacobi
 * preconditioner loop over grid rows on T OpenMP threads; the ILU
 * recurrences (set-up and triangular solves) stay sequential.
 *
 * Usage: adr2d_cvode N tf tol jacobi|ilu0 serial|T OUT [bdf|dirk[2-5] [R]]
 * Prints "name value" lines (the integrator's counters, wall_integrate: the
 * integration alone) and writes the N*N final states to OUT as native
 * doubles.
 *
 * For issue 20's question (a BDF block whose states change as the activity
 * moves), two more arguments: the integrator, bdf (CVODE, the default) or
 * dirk (ARKODE's ARKStep, fully implicit, its default order-4 DIRK table;
 * dirk2 ... dirk5 the default table of that order;
 * the same tolerances, linear solver, J v and preconditioners), and R > 0:
 * the integration is interrupted every R units of t as a change of the
 * block would interrupt it. CVODE starts again there (CVodeReInit: order 1
 * and a first step of its own choosing, as qmol's mixed method starts a new
 * block), ARKStep goes on with its step size (ARKStepResize, which a block
 * of another size would call with the new vector). Across such restarts
 * SUNDIALS sets some counters back to 0 when the next solve starts (the
 * linear solver's): the sums printed then undercount them, and rhs_calls
 * and jv_calls (this program's own counts of f and J v) are the measure.
 */
#include <arkode/arkode_arkstep.h>
#include <cvode/cvode.h>
#include <errno.h>
#include <math.h>
#include <nvector/nvector_openmp.h>
#include <nvector/nvector_serial.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sunlinsol/sunlinsol_spgmr.h>
#include <time.h>

#include "adr2d_problem.h"

enum { JACOBI, ILU0 };

/* A loop over the grid on the app's threads (a in scope); serial runs stay on
 * the calling thread. With _BAD: an or-reduction of bad. (One line each:
 * _Pragma takes a single string literal.) */
/* clang-format off */
#define OMP_LOOP _Pragma("omp parallel for num_threads(a->team) if (a->team > 1) schedule(static)")
#define OMP_LOOP_BAD _Pragma("omp parallel for num_threads(a->team) if (a->team > 1) schedule(static) reduction(| : bad)")
/* clang-format on */

typedef struct app {
    long n;      /* nodes per side */
    int threads; /* 0: serial vectors and loops, else OpenMP threads */
    int team;    /* threads of the loops: threads, 1 when serial */
    int precond;
    double wW, wE, wS, wN, r, u0;
    double *jd;   /* the stored Jacobian's diagonal */
    double *pinv; /* jacobi: 1 / (1 - gamma J_ii); ilu0: 1 / d_i */
    double gamma; /* of the last preconditioner set-up */
    long jac_evals;
    long rhs_calls, jv_calls; /* f and J v as called (summed over restarts) */
} app;

/* The diagonal of J without the reaction: the four couplings, the west one
 * also at the inflow edge. */
static double coupling_diag(const app *a, long ix, long iy) {
    double s = -a->wW;
    if (iy > 0) s -= a->wS;
    if (ix < a->n - 1) s -= a->wE;
    if (iy < a->n - 1) s -= a->wN;
    return s;
}

static int rhs(sunrealtype t, N_Vector y, N_Vector ydot, void *user_data) {
    (void)t;
    app *a = user_data;
    a->rhs_calls++;
    const double *u = N_VGetArrayPointer(y);
    double *f = N_VGetArrayPointer(ydot);
    long n = a->n;
    OMP_LOOP
    for (long iy = 0; iy < n; iy++) {
        const double *row = u + iy * n;
        double *out = f + iy * n;
        for (long ix = 0; ix < n; ix++) {
            double c = row[ix];
            double west = ix > 0 ? row[ix - 1] : a->u0;
            double v = a->wW * (west - c) + a->r * (c * c - c * c * c);
            if (iy > 0) v += a->wS * (row[ix - n] - c);
            if (ix < n - 1) v += a->wE * (row[ix + 1] - c);
            if (iy < n - 1) v += a->wN * (row[ix + n] - c);
            out[ix] = v;
        }
    }
    return 0;
}

/* J's diagonal at y, stored for J v and the preconditioner. */
static void jacobian(app *a, N_Vector y) {
    const double *u = N_VGetArrayPointer(y);
    long n = a->n;
    OMP_LOOP
    for (long iy = 0; iy < n; iy++)
        for (long ix = 0; ix < n; ix++) {
            double c = u[iy * n + ix];
            a->jd[iy * n + ix] = coupling_diag(a, ix, iy) + a->r * (2.0 * c - 3.0 * c * c);
        }
    a->jac_evals++;
}

/* J v with the stored J: south, west, the node, east, north. */
static int jtimes(N_Vector v, N_Vector Jv, sunrealtype t, N_Vector y, N_Vector fy, void *user_data,
                  N_Vector tmp) {
    (void)t, (void)y, (void)fy, (void)tmp;
    app *a = user_data;
    a->jv_calls++;
    const double *x = N_VGetArrayPointer(v);
    double *out = N_VGetArrayPointer(Jv);
    long n = a->n;
    OMP_LOOP
    for (long iy = 0; iy < n; iy++)
        for (long ix = 0; ix < n; ix++) {
            long i = iy * n + ix;
            double s = 0.0;
            if (iy > 0) s += a->wS * x[i - n];
            if (ix > 0) s += a->wW * x[i - 1];
            s += a->jd[i] * x[i];
            if (ix < n - 1) s += a->wE * x[i + 1];
            if (iy < n - 1) s += a->wN * x[i + n];
            out[i] = s;
        }
    return 0;
}

static int jacobi_setup(app *a, double gamma) {
    long total = a->n * a->n;
    int bad = 0;
    OMP_LOOP_BAD
    for (long i = 0; i < total; i++) {
        double d = 1.0 - gamma * a->jd[i];
        bad |= d == 0.0 || !isfinite(d);
        a->pinv[i] = 1.0 / d;
    }
    return bad;
}

/* d_i of ILU(0), as 1 / d_i (the recurrence runs along i). */
static int ilu_setup(app *a, double gamma) {
    long n = a->n;
    double g2we = gamma * gamma * a->wW * a->wE, g2sn = gamma * gamma * a->wS * a->wN;
    for (long iy = 0; iy < n; iy++)
        for (long ix = 0; ix < n; ix++) {
            long i = iy * n + ix;
            double d = 1.0 - gamma * a->jd[i];
            if (ix > 0) d -= g2we * a->pinv[i - 1];
            if (iy > 0) d -= g2sn * a->pinv[i - n];
            if (d == 0.0 || !isfinite(d)) return 1;
            a->pinv[i] = 1.0 / d;
        }
    return 0;
}

static int psetup(sunrealtype t, N_Vector y, N_Vector fy, sunbooleantype jok, sunbooleantype *jcur,
                  sunrealtype gamma, void *user_data) {
    (void)t, (void)fy;
    app *a = user_data;
    if (!jok || a->jac_evals == 0) {
        jacobian(a, y);
        *jcur = SUNTRUE;
    } else {
        *jcur = SUNFALSE;
    }
    a->gamma = gamma;
    /* 1: recoverable, CVODE cuts the step */
    return a->precond == JACOBI ? jacobi_setup(a, gamma) : ilu_setup(a, gamma);
}

/* (D + A_lower) w = b, then (D + A_upper) z = D w, in place in z. */
static void ilu_solve(const app *a, const double *b, double *z) {
    long n = a->n;
    double g = a->gamma;
    double aW = -g * a->wW, aE = -g * a->wE, aS = -g * a->wS, aN = -g * a->wN;
    for (long iy = 0; iy < n; iy++)
        for (long ix = 0; ix < n; ix++) {
            long i = iy * n + ix;
            double s = b[i];
            if (ix > 0) s -= aW * z[i - 1];
            if (iy > 0) s -= aS * z[i - n];
            z[i] = s * a->pinv[i];
        }
    for (long iy = n - 1; iy >= 0; iy--)
        for (long ix = n - 1; ix >= 0; ix--) {
            long i = iy * n + ix;
            double s = 0.0;
            if (ix < n - 1) s += aE * z[i + 1];
            if (iy < n - 1) s += aN * z[i + n];
            z[i] -= s * a->pinv[i];
        }
}

static int psolve(sunrealtype t, N_Vector y, N_Vector fy, N_Vector rv, N_Vector zv,
                  sunrealtype gamma, sunrealtype delta, int lr, void *user_data) {
    (void)t, (void)y, (void)fy, (void)gamma, (void)delta, (void)lr;
    const app *a = user_data;
    const double *b = N_VGetArrayPointer(rv);
    double *z = N_VGetArrayPointer(zv);
    if (a->precond == ILU0) {
        ilu_solve(a, b, z);
        return 0;
    }
    long total = a->n * a->n;
    OMP_LOOP
    for (long i = 0; i < total; i++)
        z[i] = b[i] * a->pinv[i];
    return 0;
}

static int usage(const char *why) {
    fprintf(stderr,
            "adr2d_cvode: %s\nusage: adr2d_cvode N tf tol jacobi|ilu0 serial|THREADS OUT "
            "[bdf|dirk[2-5] [R]]\n",
            why);
    return 2;
}

static int parse_long(const char *s, long *v) {
    char *end;
    errno = 0;
    *v = strtol(s, &end, 10);
    return end != s && *end == '\0' && errno == 0;
}

/* A failed SUNDIALS call: its name and flag; exits. */
static void check(int flag, const char *call) {
    if (flag >= 0) return;
    fprintf(stderr, "adr2d_cvode: %s failed with flag %d\n", call, flag);
    exit(1);
}

static void *need(void *p, const char *what) {
    if (p) return p;
    fprintf(stderr, "adr2d_cvode: %s failed\n", what);
    exit(1);
}

/* An integrator's counters, summed over the segments between restarts
 * (CVodeReInit and ARKStepResize set some of them back to 0). */
typedef struct counter {
    const char *name;
    int (*get)(void *, long *);
} counter;

static int ark_rhs_evals(void *mem, long *v) {
    long fe, fi;
    int flag = ARKStepGetNumRhsEvals(mem, &fe, &fi);
    *v = fe + fi;
    return flag;
}

#define NCOUNTERS 10
static const counter bdf_counters[NCOUNTERS] = {
    {"steps", CVodeGetNumSteps},
    {"rhs_evals", CVodeGetNumRhsEvals},
    {"newton_iters", CVodeGetNumNonlinSolvIters},
    {"linear_setups", CVodeGetNumLinSolvSetups},
    {"linear_iters", CVodeGetNumLinIters},
    {"prec_setups", CVodeGetNumPrecEvals},
    {"prec_solves", CVodeGetNumPrecSolves},
    {"jtimes", CVodeGetNumJtimesEvals},
    {"err_test_fails", CVodeGetNumErrTestFails},
    {"newton_conv_fails", CVodeGetNumNonlinSolvConvFails},
};
static const counter dirk_counters[NCOUNTERS] = {
    {"steps", ARKStepGetNumSteps},
    {"rhs_evals", ark_rhs_evals},
    {"newton_iters", ARKStepGetNumNonlinSolvIters},
    {"linear_setups", ARKStepGetNumLinSolvSetups},
    {"linear_iters", ARKStepGetNumLinIters},
    {"prec_setups", ARKStepGetNumPrecEvals},
    {"prec_solves", ARKStepGetNumPrecSolves},
    {"jtimes", ARKStepGetNumJtimesEvals},
    {"err_test_fails", ARKStepGetNumErrTestFails},
    {"newton_conv_fails", ARKStepGetNumNonlinSolvConvFails},
};

/* At a segment's start (start 1) records the counters in from; at its end
 * adds to total what they gained since. */
static void count(void *mem, const counter *c, long *from, long *total, int start) {
    for (int k = 0; k < NCOUNTERS; k++) {
        long v;
        check(c[k].get(mem, &v), c[k].name);
        if (start)
            from[k] = v;
        else
            total[k] += v - from[k];
    }
}

static void print_counters(const counter *c, const long *total, const app *a, double wall,
                           long restarts) {
    for (int k = 0; k < NCOUNTERS; k++)
        printf("%s %ld\n", c[k].name, total[k]);
    printf("jac_evals %ld\n", a->jac_evals);
    printf("rhs_calls %ld\n", a->rhs_calls);
    printf("jv_calls %ld\n", a->jv_calls);
    printf("restarts %ld\n", restarts);
    printf("wall_integrate %.6f\n", wall);
}

/* How an integrator goes on to a stop time and starts again there. */
typedef struct integrator {
    const char *name;
    const counter *counters;
    int (*set_stop)(void *mem, sunrealtype stop);
    int (*advance)(void *mem, double stop, N_Vector y, double *t);
    int (*restart)(void *mem, double t, N_Vector y);
} integrator;

static int bdf_advance(void *mem, double stop, N_Vector y, double *t) {
    return CVode(mem, stop, y, t, CV_NORMAL);
}
static int bdf_restart(void *mem, double t, N_Vector y) {
    return CVodeReInit(mem, t, y);
}
static int dirk_advance(void *mem, double stop, N_Vector y, double *t) {
    return ARKStepEvolve(mem, stop, y, t, ARK_NORMAL);
}
static int dirk_restart(void *mem, double t, N_Vector y) {
    return ARKStepResize(mem, y, 1.0, t, NULL, NULL);
}
static const integrator bdf = {"CVode", bdf_counters, CVodeSetStopTime, bdf_advance, bdf_restart};
static const integrator dirk = {"ARKStepEvolve", dirk_counters, ARKStepSetStopTime, dirk_advance,
                                dirk_restart};

/* From 0 to tf, interrupted every `every` (0: never); prints the counters
 * summed over the segments and the wall time. */
static void run_segments(void *mem, const integrator *in, const app *a, N_Vector y, double tf,
                         double every) {
    long from[NCOUNTERS], total[NCOUNTERS] = {0}, restarts = 0;
    double t = 0.0, w0 = now();
    for (long k = 1;; k++) {
        double stop = every > 0.0 && (double)k * every < tf ? (double)k * every : tf;
        count(mem, in->counters, from, total, 1);
        check(in->set_stop(mem, stop), "setting the stop time");
        check(in->advance(mem, stop, y, &t), in->name);
        count(mem, in->counters, from, total, 0);
        if (stop >= tf) break;
        check(in->restart(mem, t, y), "the restart");
        restarts++;
    }
    print_counters(in->counters, total, a, now() - w0, restarts);
}

/* SPGMR as qmol sets it up: right preconditioning, Krylov dimension 20, 5
 * restarts. */
static SUNLinearSolver spgmr(N_Vector y, SUNContext ctx) {
    SUNLinearSolver ls = need(SUNLinSol_SPGMR(y, SUN_PREC_RIGHT, 20, ctx), "SUNLinSol_SPGMR");
    check(SUNLinSol_SPGMRSetMaxRestarts(ls, 5), "SUNLinSol_SPGMRSetMaxRestarts");
    return ls;
}

/* CVODE (BDF) from 0 to tf, started again every `every` (0: never). */
static void run_bdf(app *a, N_Vector y, double tf, double tol, double every, SUNContext ctx) {
    void *mem = need(CVodeCreate(CV_BDF, ctx), "CVodeCreate");
    check(CVodeInit(mem, rhs, 0.0, y), "CVodeInit");
    check(CVodeSetUserData(mem, a), "CVodeSetUserData");
    check(CVodeSStolerances(mem, tol, 0.1 * tol), "CVodeSStolerances");
    check(CVodeSetMaxOrd(mem, 5), "CVodeSetMaxOrd");
    check(CVodeSetMaxNumSteps(mem, 10000000L), "CVodeSetMaxNumSteps");
    SUNLinearSolver ls = spgmr(y, ctx);
    check(CVodeSetLinearSolver(mem, ls, NULL), "CVodeSetLinearSolver");
    check(CVodeSetPreconditioner(mem, psetup, psolve), "CVodeSetPreconditioner");
    check(CVodeSetJacTimes(mem, NULL, jtimes), "CVodeSetJacTimes");
    run_segments(mem, &bdf, a, y, tf, every);
    SUNLinSolFree(ls);
    CVodeFree(&mem);
}

/* ARKStep's DIRK of the given order from 0 to tf, resized every `every`. */
static void run_dirk(app *a, N_Vector y, double tf, double tol, double every, int order,
                     SUNContext ctx) {
    void *mem = need(ARKStepCreate(NULL, rhs, 0.0, y, ctx), "ARKStepCreate");
    check(ARKStepSetOrder(mem, order), "ARKStepSetOrder");
    check(ARKStepSetUserData(mem, a), "ARKStepSetUserData");
    check(ARKStepSStolerances(mem, tol, 0.1 * tol), "ARKStepSStolerances");
    check(ARKStepSetMaxNumSteps(mem, 10000000L), "ARKStepSetMaxNumSteps");
    SUNLinearSolver ls = spgmr(y, ctx);
    check(ARKStepSetLinearSolver(mem, ls, NULL), "ARKStepSetLinearSolver");
    check(ARKStepSetPreconditioner(mem, psetup, psolve), "ARKStepSetPreconditioner");
    check(ARKStepSetJacTimes(mem, NULL, jtimes), "ARKStepSetJacTimes");
    run_segments(mem, &dirk, a, y, tf, every);
    SUNLinSolFree(ls);
    ARKStepFree(&mem);
}

int main(int argc, char **argv) {
    if (argc != 7 && argc != 8 && argc != 9) return usage("6 to 8 arguments needed");
    long n, threads = 0;
    double tf, tol;
    if (!parse_long(argv[1], &n) || n < 2 || n > 100000) return usage("N: a whole number >= 2");
    if (!parse_double(argv[2], &tf) || !(tf > 0.0)) return usage("tf: a number > 0");
    if (!parse_double(argv[3], &tol) || !(tol > 0.0)) return usage("tol: a number > 0");
    int precond = strcmp(argv[4], "jacobi") == 0 ? JACOBI
                  : strcmp(argv[4], "ilu0") == 0 ? ILU0
                                                 : -1;
    if (precond < 0) return usage("precond: jacobi or ilu0");
    if (strcmp(argv[5], "serial") != 0 &&
        (!parse_long(argv[5], &threads) || threads < 1 || threads > 1024))
        return usage("threads: serial or a number of OpenMP threads >= 1");
    const char *out = argv[6];
    /* dirk: ARKStep's default order (4); dirk2 ... dirk5: that order's default table */
    int order = argc > 7 && strncmp(argv[7], "dirk", 4) == 0 ? 4 : 0;
    if (order && argv[7][4] != '\0') {
        if (argv[7][4] < '2' || argv[7][4] > '5' || argv[7][5] != '\0')
            return usage("integrator: bdf, dirk or dirk2 ... dirk5");
        order = argv[7][4] - '0';
    }
    if (argc > 7 && !order && strcmp(argv[7], "bdf") != 0)
        return usage("integrator: bdf, dirk or dirk2 ... dirk5");
    double every = 0.0;
    if (argc > 8 && (!parse_double(argv[8], &every) || !(every >= 0.0)))
        return usage("R: a number >= 0 (0: never interrupted)");

    double dx = LX / (double)n, dy = LY / (double)n;
    app a = {.n = n,
             .threads = (int)threads,
             .team = threads ? (int)threads : 1,
             .precond = precond,
             .wW = AX / dx + DIFF / (dx * dx),
             .wE = DIFF / (dx * dx),
             .wS = AY / dy + DIFF / (dy * dy),
             .wN = DIFF / (dy * dy),
             .r = RATE,
             .u0 = U0};
    long total = n * n;
    a.jd = need(malloc((size_t)total * sizeof *a.jd), "malloc");
    a.pinv = need(malloc((size_t)total * sizeof *a.pinv), "malloc");

    SUNContext ctx;
    check(SUNContext_Create(NULL, &ctx), "SUNContext_Create");
    N_Vector y = need(threads ? N_VNew_OpenMP(total, (int)threads, ctx) : N_VNew_Serial(total, ctx),
                      "creating the state vector");
    double *u = N_VGetArrayPointer(y);
    adr2d_initial(n, u);

    if (order)
        run_dirk(&a, y, tf, tol, every, order, ctx);
    else
        run_bdf(&a, y, tf, tol, every, ctx);

    FILE *fp = fopen(out, "wb");
    if (!fp || fwrite(u, sizeof *u, (size_t)total, fp) != (size_t)total || fclose(fp) != 0) {
        fprintf(stderr, "adr2d_cvode: cannot write %s: %s\n", out, strerror(errno));
        return 1;
    }
    N_VDestroy(y);
    SUNContext_Free(&ctx);
    free(a.jd);
    free(a.pinv);
    return 0;
}
