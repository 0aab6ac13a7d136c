/* adr2d_active.c: issue 20's measurement of a BDF block whose states change
 * as the activity moves, without a restart: one CVODE (BDF, SPGMR, ILU(0) or
 * Jacobi, set up as the anchor adr2d_cvode.c sets it up) over all N x N
 * states of adr2d (adr2d_problem.h), of which only an active set is
 * integrated. The rest are held at their values (frozen): in qmol they would
 * be the QSS block's, here they stand still, which is exact where adr2d is
 * at rest (u = 0 ahead of the front, u = 1 behind it) and an error elsewhere
 * that the measured e_rr includes.
 *
 * - The vector. Every operation of CVODE's vectors (and so of SPGMR's) runs
 *   over the active states alone, in increasing order; the weighted RMS norm
 *   and the linear solver's norm factor (CVodeSetLSNormFactor) count them
 *   alone. The inactive components of CVODE's vectors are never read.
 * - The plan, every R of t (at the first step past it, CV_ONE_STEP: no step
 *   is cut): f at the current states; the core is where |f_i| R exceeds
 *   c (atol + reltol |u_i|) (c / 10 for a state already active: hysteresis),
 *   the active set the core widened by M cells each way (a square). States
 *   that leave freeze at CVODE's value; states that enter get CVODE's history
 *   written into its Nordsieck array z_j = h^j / j! u^(j) at t_n, h the last
 *   step: z_0 = u, z_1 = h f_i, z_j = 0 for j > 1 (a frozen state's
 *   derivatives beyond the first are unknown; in qmol the QSS polynomial
 *   gives u''). CVODE's order, step and the history of the states that stay
 *   go on: this is what no CVODE restart keeps (docs/methods.md).
 * - Where the Nordsieck array is. CVODE 6.4 has no call that writes it.
 *   CVodeGetNonlinearSystemData returns z_0 (as the predicted state) and z_1,
 *   both clones of the template vector; CVODE clones z_0 ... z_qmax one
 *   after another. This program's vectors remember the order of their
 *   clones, so z_j is the j-th clone after z_0; it checks that z_1 is the
 *   next, and that CVodeGetDky at t_n gives z_0 and z_1 / h on every active
 *   state, and stops (exit 1) if any check fails.
 *
 * Usage: adr2d_active N tf tol jacobi|ilu0 OUT R M c
 * Prints "name value" lines (CVODE's counters, plans, entered, left,
 * mean_active: the active states averaged over the steps, wall_integrate)
 * and writes the N*N final states to OUT as native doubles.
 */
#define _POSIX_C_SOURCE 200809L
#include <cvode/cvode.h>
#include <cvode/cvode_ls.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sunlinsol/sunlinsol_spgmr.h>
#include <time.h>

#include "adr2d_problem.h"

#define MAX_CLONES 64
#define QMAX 5

typedef struct active_set {
    long n_act;
    long *index;       /* the active states, increasing */
    unsigned char *on; /* 1 on an active state */
} active_set;

/* The vector: all N*N values, operated on over the active set. */
typedef struct active_vector {
    double *data;
    long n;
    const active_set *set;
} active_vector;

/* Every clone made, in order (NULL once destroyed). */
static N_Vector clones[MAX_CLONES];
static int n_clones;

static void fail(const char *what) {
    fprintf(stderr, "adr2d_active: %s\n", what);
    exit(1);
}

static void check(int flag, const char *call) {
    if (flag >= 0) return;
    fprintf(stderr, "adr2d_active: %s failed with flag %d\n", call, flag);
    exit(1);
}

static void *need(void *p) {
    if (!p) fail("out of memory");
    return p;
}

#define AV(v) ((active_vector *)(v)->content)
/* for each active index i of vector x's set */
#define FOR_ACTIVE(x)                                                                              \
    for (long k_ = 0, i, n_ = AV(x)->set->n_act; k_ < n_ && (i = AV(x)->set->index[k_], 1); k_++)

static N_Vector av_new(long n, const active_set *set, SUNContext ctx);

static N_Vector_ID av_id(N_Vector v) {
    (void)v;
    return SUNDIALS_NVEC_CUSTOM;
}
static N_Vector av_clone(N_Vector w) {
    N_Vector v = av_new(AV(w)->n, AV(w)->set, w->sunctx);
    if (n_clones < MAX_CLONES) clones[n_clones++] = v;
    return v;
}
static void av_destroy(N_Vector v) {
    if (!v) return;
    for (int k = 0; k < n_clones; k++)
        if (clones[k] == v) clones[k] = NULL;
    free(AV(v)->data);
    free(v->content);
    N_VFreeEmpty(v);
}
static double *av_data(N_Vector v) {
    return AV(v)->data;
}
static sunindextype av_length(N_Vector v) {
    return AV(v)->set->n_act;
}

static void av_linear_sum(double a, N_Vector x, double b, N_Vector y, N_Vector z) {
    const double *X = AV(x)->data, *Y = AV(y)->data;
    double *Z = AV(z)->data;
    FOR_ACTIVE(x) Z[i] = a * X[i] + b * Y[i];
}
static void av_const(double c, N_Vector z) {
    double *Z = AV(z)->data;
    FOR_ACTIVE(z) Z[i] = c;
}
static void av_prod(N_Vector x, N_Vector y, N_Vector z) {
    const double *X = AV(x)->data, *Y = AV(y)->data;
    double *Z = AV(z)->data;
    FOR_ACTIVE(x) Z[i] = X[i] * Y[i];
}
static void av_div(N_Vector x, N_Vector y, N_Vector z) {
    const double *X = AV(x)->data, *Y = AV(y)->data;
    double *Z = AV(z)->data;
    FOR_ACTIVE(x) Z[i] = X[i] / Y[i];
}
static void av_scale(double c, N_Vector x, N_Vector z) {
    const double *X = AV(x)->data;
    double *Z = AV(z)->data;
    FOR_ACTIVE(x) Z[i] = c * X[i];
}
static void av_abs(N_Vector x, N_Vector z) {
    const double *X = AV(x)->data;
    double *Z = AV(z)->data;
    FOR_ACTIVE(x) Z[i] = fabs(X[i]);
}
static void av_inv(N_Vector x, N_Vector z) {
    const double *X = AV(x)->data;
    double *Z = AV(z)->data;
    FOR_ACTIVE(x) Z[i] = 1.0 / X[i];
}
static void av_add_const(N_Vector x, double b, N_Vector z) {
    const double *X = AV(x)->data;
    double *Z = AV(z)->data;
    FOR_ACTIVE(x) Z[i] = X[i] + b;
}
static double av_dot(N_Vector x, N_Vector y) {
    const double *X = AV(x)->data, *Y = AV(y)->data;
    double s = 0.0;
    FOR_ACTIVE(x) s += X[i] * Y[i];
    return s;
}
static double av_max_norm(N_Vector x) {
    const double *X = AV(x)->data;
    double s = 0.0;
    FOR_ACTIVE(x) s = fmax(s, fabs(X[i]));
    return s;
}
static double av_weighted_squares(N_Vector x, N_Vector w) {
    const double *X = AV(x)->data, *W = AV(w)->data;
    double s = 0.0;
    FOR_ACTIVE(x) s += (X[i] * W[i]) * (X[i] * W[i]);
    return s;
}
static double av_wrms(N_Vector x, N_Vector w) {
    long n = AV(x)->set->n_act;
    return n ? sqrt(av_weighted_squares(x, w) / (double)n) : 0.0;
}
static double av_wl2(N_Vector x, N_Vector w) {
    return sqrt(av_weighted_squares(x, w));
}
static double av_min(N_Vector x) {
    const double *X = AV(x)->data;
    double s = INFINITY;
    FOR_ACTIVE(x) s = fmin(s, X[i]);
    return s;
}
static double av_l1(N_Vector x) {
    const double *X = AV(x)->data;
    double s = 0.0;
    FOR_ACTIVE(x) s += fabs(X[i]);
    return s;
}
static void av_compare(double c, N_Vector x, N_Vector z) {
    const double *X = AV(x)->data;
    double *Z = AV(z)->data;
    FOR_ACTIVE(x) Z[i] = fabs(X[i]) >= c ? 1.0 : 0.0;
}
static sunbooleantype av_inv_test(N_Vector x, N_Vector z) {
    const double *X = AV(x)->data;
    double *Z = AV(z)->data;
    sunbooleantype ok = SUNTRUE;
    FOR_ACTIVE(x) {
        if (X[i] == 0.0)
            ok = SUNFALSE;
        else
            Z[i] = 1.0 / X[i];
    }
    return ok;
}

static N_Vector av_new(long n, const active_set *set, SUNContext ctx) {
    N_Vector v = need(N_VNewEmpty(ctx));
    N_Vector_Ops o = v->ops;
    o->nvgetvectorid = av_id;
    o->nvclone = av_clone;
    o->nvdestroy = av_destroy;
    o->nvgetarraypointer = av_data;
    o->nvgetlength = av_length;
    o->nvlinearsum = av_linear_sum;
    o->nvconst = av_const;
    o->nvprod = av_prod;
    o->nvdiv = av_div;
    o->nvscale = av_scale;
    o->nvabs = av_abs;
    o->nvinv = av_inv;
    o->nvaddconst = av_add_const;
    o->nvdotprod = av_dot;
    o->nvmaxnorm = av_max_norm;
    o->nvwrmsnorm = av_wrms;
    o->nvmin = av_min;
    o->nvwl2norm = av_wl2;
    o->nvl1norm = av_l1;
    o->nvcompare = av_compare;
    o->nvinvtest = av_inv_test;
    active_vector *c = need(malloc(sizeof *c));
    c->n = n;
    c->set = set;
    c->data = need(calloc((size_t)n, sizeof(double)));
    v->content = c;
    return v;
}

enum { JACOBI, ILU0 };

typedef struct app {
    long n;
    int precond;
    double wW, wE, wS, wN, r, u0;
    double *jd, *pinv, gamma; /* the stored Jacobian's diagonal, preconditioner */
    long jac_evals, rhs_calls, jv_calls;
    active_set set;
    double *frozen; /* the inactive states' values */
} app;

static double coupling_diag(const app *a, long ix, long iy) {
    double s = -a->wW;
    if (iy > 0) s -= a->wS;
    if (ix < a->n - 1) s -= a->wE;
    if (iy < a->n - 1) s -= a->wN;
    return s;
}

static inline double value(const app *a, const double *u, long j) {
    return a->set.on[j] ? u[j] : a->frozen[j];
}

/* f_i, reading active states from u and the others' frozen values */
static double row_f(const app *a, const double *u, long i) {
    long n = a->n, ix = i % n, iy = i / n;
    double c = value(a, u, i);
    double west = ix > 0 ? value(a, u, i - 1) : a->u0;
    double v = a->wW * (west - c) + a->r * (c * c - c * c * c);
    if (iy > 0) v += a->wS * (value(a, u, i - n) - c);
    if (ix < n - 1) v += a->wE * (value(a, u, i + 1) - c);
    if (iy < n - 1) v += a->wN * (value(a, u, i + n) - c);
    return v;
}

static int rhs(double t, N_Vector y, N_Vector ydot, void *user_data) {
    (void)t;
    app *a = user_data;
    a->rhs_calls++;
    const double *u = N_VGetArrayPointer(y);
    double *f = N_VGetArrayPointer(ydot);
    FOR_ACTIVE(y) f[i] = row_f(a, u, i);
    return 0;
}

static void jacobian_row(app *a, const double *u, long i) {
    double c = u[i];
    a->jd[i] = coupling_diag(a, i % a->n, i / a->n) + a->r * (2.0 * c - 3.0 * c * c);
}

/* J v over the active states (the frozen ones are not CVODE's unknowns) */
static int jtimes(N_Vector v, N_Vector Jv, double t, N_Vector y, N_Vector fy, void *user_data,
                  N_Vector tmp) {
    (void)t, (void)y, (void)fy, (void)tmp;
    app *a = user_data;
    a->jv_calls++;
    const double *x = N_VGetArrayPointer(v);
    double *out = N_VGetArrayPointer(Jv);
    const unsigned char *on = a->set.on;
    long n = a->n;
    FOR_ACTIVE(v) {
        long ix = i % n, iy = i / n;
        double s = a->jd[i] * x[i];
        if (iy > 0 && on[i - n]) s += a->wS * x[i - n];
        if (ix > 0 && on[i - 1]) s += a->wW * x[i - 1];
        if (ix < n - 1 && on[i + 1]) s += a->wE * x[i + 1];
        if (iy < n - 1 && on[i + n]) s += a->wN * x[i + n];
        out[i] = s;
    }
    return 0;
}

/* Jacobi: 1 / (1 - gamma J_ii); ILU(0) as in adr2d_cvode.c over the active
 * states in increasing order. 1: a zero pivot (CVODE cuts the step). */
static int precond_rows(app *a) {
    long n = a->n;
    double g = a->gamma, g2we = g * g * a->wW * a->wE, g2sn = g * g * a->wS * a->wN;
    const unsigned char *on = a->set.on;
    for (long k = 0; k < a->set.n_act; k++) {
        long i = a->set.index[k];
        double d = 1.0 - g * a->jd[i];
        if (a->precond == ILU0) {
            if (i % n > 0 && on[i - 1]) d -= g2we * a->pinv[i - 1];
            if (i / n > 0 && on[i - n]) d -= g2sn * a->pinv[i - n];
        }
        if (d == 0.0 || !isfinite(d)) return 1;
        a->pinv[i] = 1.0 / d;
    }
    return 0;
}

static int psetup(double t, N_Vector y, N_Vector fy, sunbooleantype jok, sunbooleantype *jcur,
                  double gamma, void *user_data) {
    (void)t, (void)fy;
    app *a = user_data;
    *jcur = !jok || a->jac_evals == 0;
    if (*jcur) {
        const double *u = N_VGetArrayPointer(y);
        FOR_ACTIVE(y) jacobian_row(a, u, i);
        a->jac_evals++;
    }
    a->gamma = gamma;
    return precond_rows(a);
}

static int psolve(double t, N_Vector y, N_Vector fy, N_Vector rv, N_Vector zv, double gamma,
                  double delta, int lr, void *user_data) {
    (void)t, (void)y, (void)fy, (void)gamma, (void)delta, (void)lr;
    const app *a = user_data;
    const double *b = N_VGetArrayPointer(rv);
    double *z = N_VGetArrayPointer(zv);
    if (a->precond == JACOBI) {
        FOR_ACTIVE(rv) z[i] = b[i] * a->pinv[i];
        return 0;
    }
    long n = a->n, n_act = a->set.n_act;
    const long *index = a->set.index;
    const unsigned char *on = a->set.on;
    double g = a->gamma, aW = -g * a->wW, aE = -g * a->wE, aS = -g * a->wS, aN = -g * a->wN;
    for (long k = 0; k < n_act; k++) {
        long i = index[k];
        double s = b[i];
        if (i % n > 0 && on[i - 1]) s -= aW * z[i - 1];
        if (i / n > 0 && on[i - n]) s -= aS * z[i - n];
        z[i] = s * a->pinv[i];
    }
    for (long k = n_act - 1; k >= 0; k--) {
        long i = index[k];
        double s = 0.0;
        if (i % n < n - 1 && on[i + 1]) s += aE * z[i + 1];
        if (i / n < n - 1 && on[i + n]) s += aN * z[i + n];
        z[i] -= s * a->pinv[i];
    }
    return 0;
}

/* out = core widened by m cells each way (a square), row pass then column
 * pass of running counts; tmp: scratch */
static void widen(long n, const unsigned char *core, long m, unsigned char *tmp,
                  unsigned char *out) {
    for (long iy = 0; iy < n; iy++) {
        const unsigned char *c = core + iy * n;
        long count = 0;
        for (long ix = 0; ix < m && ix < n; ix++)
            count += c[ix];
        for (long ix = 0; ix < n; ix++) {
            if (ix + m < n) count += c[ix + m];
            if (ix - m - 1 >= 0) count -= c[ix - m - 1];
            tmp[iy * n + ix] = count > 0;
        }
    }
    for (long ix = 0; ix < n; ix++) {
        long count = 0;
        for (long iy = 0; iy < m && iy < n; iy++)
            count += tmp[iy * n + ix];
        for (long iy = 0; iy < n; iy++) {
            if (iy + m < n) count += tmp[(iy + m) * n + ix];
            if (iy - m - 1 >= 0) count -= tmp[(iy - m - 1) * n + ix];
            out[iy * n + ix] = count > 0;
        }
    }
}

typedef struct planner {
    double every, c, reltol, abstol;
    long margin;
    double *f;                 /* f at the plan */
    unsigned char *core, *tmp; /* scratch */
    unsigned char *want;       /* the planned active set */
} planner;

/* The active set wanted at the states u (active) and a->frozen. */
static void plan(const app *a, const double *u, planner *p) {
    long total = a->n * a->n;
    for (long i = 0; i < total; i++) {
        p->f[i] = row_f(a, u, i);
        double scale = p->abstol + p->reltol * fabs(value(a, u, i));
        double c = a->set.on[i] ? 0.1 * p->c : p->c;
        p->core[i] = fabs(p->f[i]) * p->every > c * scale;
    }
    widen(a->n, p->core, p->margin, p->tmp, p->want);
}

/* z_0 ... z_qmax among the clones: z_0 is CVODE's predicted state, z_1 the
 * next clone (checked). */
static void find_nordsieck(void *mem, N_Vector z[QMAX + 1]) {
    double t, gamma, rl1;
    N_Vector ypred, yn, fn, zn1;
    void *user_data;
    check(CVodeGetNonlinearSystemData(mem, &t, &ypred, &yn, &fn, &gamma, &rl1, &zn1, &user_data),
          "CVodeGetNonlinearSystemData");
    int k0 = -1;
    for (int k = 0; k < n_clones; k++)
        if (clones[k] == ypred) k0 = k;
    if (k0 < 0 || k0 + QMAX >= n_clones || clones[k0 + 1] != zn1)
        fail("CVODE's Nordsieck array is not where this program looks for it");
    for (int j = 0; j <= QMAX; j++)
        z[j] = clones[k0 + j];
}

/* CVodeGetDky at t_n against z_0 and z_1 / h on every active state. */
static void check_nordsieck(void *mem, N_Vector z[QMAX + 1], N_Vector y, double t, double h) {
    N_Vector d = av_new(AV(y)->n, AV(y)->set, y->sunctx);
    for (int k = 0; k <= 1; k++) {
        check(CVodeGetDky(mem, t, k, d), "CVodeGetDky");
        const double *dk = N_VGetArrayPointer(d), *zk = N_VGetArrayPointer(z[k]);
        double scale = k ? 1.0 / h : 1.0;
        FOR_ACTIVE(y) {
            if (fabs(zk[i] * scale - dk[i]) > 1e-10 * (1.0 + fabs(dk[i])))
                fail("CVodeGetDky disagrees with the Nordsieck array found");
        }
    }
    av_destroy(d);
}

/* The active set becomes want (0/1 over all total states). */
static void take_set(active_set *set, const unsigned char *want, long total) {
    set->n_act = 0;
    for (long i = 0; i < total; i++) {
        set->on[i] = want[i];
        if (want[i]) set->index[set->n_act++] = i;
    }
}

/* The active set becomes p->want at t_n: leaving states freeze at u,
 * entering states get z_0 = u, z_1 = h f, z_j = 0 (j > 1), their Jacobian
 * row and preconditioner. */
static void move_states(app *a, planner *p, N_Vector z[QMAX + 1], double *u, double h,
                        long *entered, long *left) {
    long total = a->n * a->n;
    for (long i = 0; i < total; i++) {
        if (p->want[i] && !a->set.on[i]) {
            (*entered)++;
            u[i] = a->frozen[i];
            N_VGetArrayPointer(z[0])[i] = u[i];
            N_VGetArrayPointer(z[1])[i] = h * p->f[i];
            for (int j = 2; j <= QMAX; j++)
                N_VGetArrayPointer(z[j])[i] = 0.0;
            jacobian_row(a, u, i);
        } else if (!p->want[i] && a->set.on[i]) {
            (*left)++;
            a->frozen[i] = u[i];
        }
    }
    take_set(&a->set, p->want, total);
    if (precond_rows(a)) fail("a zero pivot in the preconditioner of the new set");
}

static int usage(const char *why) {
    fprintf(stderr,
            "adr2d_active: %s\nusage: adr2d_active N tf tol jacobi|ilu0 OUT R M c\n"
            "  R > 0: plan every R of t; M >= 0: cells of margin; c > 0: the core's "
            "threshold\n",
            why);
    return 2;
}

int main(int argc, char **argv) {
    if (argc != 9) return usage("8 arguments needed");
    double nd, tf, tol, every, margin, c;
    if (!parse_double(argv[1], &nd) || nd != floor(nd) || nd < 2 || nd > 100000)
        return usage("N: a whole number >= 2");
    if (!parse_double(argv[2], &tf) || !(tf > 0.0)) return usage("tf: a number > 0");
    if (!parse_double(argv[3], &tol) || !(tol > 0.0)) return usage("tol: a number > 0");
    int precond = strcmp(argv[4], "jacobi") == 0 ? JACOBI
                  : strcmp(argv[4], "ilu0") == 0 ? ILU0
                                                 : -1;
    if (precond < 0) return usage("precond: jacobi or ilu0");
    if (!parse_double(argv[6], &every) || !(every > 0.0)) return usage("R: a number > 0");
    if (!parse_double(argv[7], &margin) || margin != floor(margin) || margin < 0 || margin > 1e6)
        return usage("M: a whole number >= 0");
    if (!parse_double(argv[8], &c) || !(c > 0.0)) return usage("c: a number > 0");
    const char *out = argv[5];
    long n = (long)nd, total = n * n;
    double dx = LX / (double)n, dy = LY / (double)n;
    app a = {.n = n,
             .precond = precond,
             .wW = AX / dx + DIFF / (dx * dx),
             .wE = DIFF / (dx * dx),
             .wS = AY / dy + DIFF / (dy * dy),
             .wN = DIFF / (dy * dy),
             .r = RATE,
             .u0 = U0};
    a.jd = need(calloc((size_t)total, sizeof(double)));
    a.pinv = need(calloc((size_t)total, sizeof(double)));
    a.frozen = need(calloc((size_t)total, sizeof(double)));
    a.set.index = need(calloc((size_t)total, sizeof(long)));
    a.set.on = need(calloc((size_t)total, 1));
    planner p = {
        .every = every, .c = c, .reltol = tol, .abstol = 0.1 * tol, .margin = (long)margin};
    p.f = need(calloc((size_t)total, sizeof(double)));
    p.core = need(calloc((size_t)total, 1));
    p.tmp = need(calloc((size_t)total, 1));
    p.want = need(calloc((size_t)total, 1));

    SUNContext ctx;
    check(SUNContext_Create(NULL, &ctx), "SUNContext_Create");
    N_Vector y = av_new(total, &a.set, ctx);
    double *u = N_VGetArrayPointer(y);
    adr2d_initial(n, u);
    memcpy(a.frozen, u, (size_t)total * sizeof(double));
    plan(&a, u, &p);
    take_set(&a.set, p.want, total);
    long entered = 0, left = 0, plans = 0;

    void *mem = need(CVodeCreate(CV_BDF, ctx));
    check(CVodeInit(mem, rhs, 0.0, y), "CVodeInit");
    check(CVodeSetUserData(mem, &a), "CVodeSetUserData");
    check(CVodeSStolerances(mem, tol, 0.1 * tol), "CVodeSStolerances");
    check(CVodeSetMaxOrd(mem, QMAX), "CVodeSetMaxOrd");
    check(CVodeSetMaxNumSteps(mem, 10000000L), "CVodeSetMaxNumSteps");
    SUNLinearSolver ls = need(SUNLinSol_SPGMR(y, SUN_PREC_RIGHT, 20, ctx));
    check(SUNLinSol_SPGMRSetMaxRestarts(ls, 5), "SUNLinSol_SPGMRSetMaxRestarts");
    check(CVodeSetLinearSolver(mem, ls, NULL), "CVodeSetLinearSolver");
    check(CVodeSetPreconditioner(mem, psetup, psolve), "CVodeSetPreconditioner");
    check(CVodeSetJacTimes(mem, NULL, jtimes), "CVodeSetJacTimes");
    check(CVodeSetLSNormFactor(mem, sqrt((double)(a.set.n_act ? a.set.n_act : 1))),
          "CVodeSetLSNormFactor");
    check(CVodeSetStopTime(mem, tf), "CVodeSetStopTime");

    N_Vector z[QMAX + 1];
    double t = 0.0, next_plan = every, active_sum = 0.0, w0 = now();
    long steps = 0;
    while (t < tf) {
        check(CVode(mem, tf, y, &t, CV_ONE_STEP), "CVode");
        active_sum += (double)a.set.n_act;
        if (++steps == 1) find_nordsieck(mem, z);
        if (t >= tf || t < next_plan) continue;
        next_plan = t + every;
        double h;
        check(CVodeGetLastStep(mem, &h), "CVodeGetLastStep");
        check_nordsieck(mem, z, y, t, h);
        plan(&a, u, &p);
        move_states(&a, &p, z, u, h, &entered, &left);
        plans++;
        check(CVodeSetLSNormFactor(mem, sqrt((double)(a.set.n_act ? a.set.n_act : 1))),
              "CVodeSetLSNormFactor");
    }
    double wall = now() - w0;
    for (long i = 0; i < total; i++)
        if (!a.set.on[i]) u[i] = a.frozen[i];

    long v;
    static const struct {
        const char *name;
        int (*get)(void *, long *);
    } counters[] = {{"steps", CVodeGetNumSteps},
                    {"newton_iters", CVodeGetNumNonlinSolvIters},
                    {"linear_setups", CVodeGetNumLinSolvSetups},
                    {"linear_iters", CVodeGetNumLinIters},
                    {"error_test_fails", CVodeGetNumErrTestFails}};
    for (size_t k = 0; k < sizeof counters / sizeof counters[0]; k++) {
        check(counters[k].get(mem, &v), counters[k].name);
        printf("%s %ld\n", counters[k].name, v);
    }
    printf("rhs_calls %ld\njv_calls %ld\njac_evals %ld\n", a.rhs_calls, a.jv_calls, a.jac_evals);
    printf("plans %ld\nentered %ld\nleft %ld\nmean_active %ld\nstates %ld\n", plans, entered, left,
           (long)(active_sum / (double)(steps ? steps : 1) + 0.5), total);
    printf("wall_integrate %.6f\n", wall);

    FILE *fp = fopen(out, "wb");
    if (!fp || fwrite(u, sizeof *u, (size_t)total, fp) != (size_t)total || fclose(fp) != 0) {
        fprintf(stderr, "adr2d_active: cannot write %s: %s\n", out, strerror(errno));
        return 1;
    }
    SUNLinSolFree(ls);
    CVodeFree(&mem);
    av_destroy(y);
    SUNContext_Free(&ctx);
    free(a.jd), free(a.pinv), free(a.frozen), free(a.set.index), free(a.set.on);
    free(p.f), free(p.core), free(p.tmp), free(p.want);
    return 0;
}
