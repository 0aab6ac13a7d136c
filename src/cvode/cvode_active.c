/* cvode_active.c: a CVODE vector over the active part of a rank's states and
 * the hand-over of CVODE's history (cvode_active.h).
 *
 * Sums are taken in index order on the calling thread, then over the
 * communicator: the same values on any thread count.
 */
#include "cvode/cvode_active.h"

#include <cvode/cvode.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

struct cva_set {
    MPI_Comm comm;
    int64_t n_local, n_active, n_active_global;
    int64_t *index; /* active local indices, increasing */
    int64_t n_runs; /* the same as runs of consecutive indices [run_lo, run_hi) */
    int64_t *run_lo, *run_hi;
    unsigned char *on; /* 1 on an active state */
    N_Vector *clones;  /* every vector made, in order (NULL once destroyed) */
    int n_clones, cap_clones;
    int max_norm; /* the "RMS" norm is the largest weighted component */
};

typedef struct cva_vector {
    double *data; /* all n_local values */
    cva_set *set;
} cva_vector;

#define CONTENT(v) ((cva_vector *)(v)->content)
#define DATA(v) (CONTENT(v)->data)
#define SET(v) (CONTENT(v)->set)
/* for each active index i of x's set, in increasing order: runs of
 * consecutive indices (a grid's set is a few bands), each a plain loop */
#define FOR_ACTIVE(x)                                                                              \
    for (int64_t r_ = 0, i, nr_ = SET(x)->n_runs; r_ < nr_; r_++)                                  \
        for (i = SET(x)->run_lo[r_]; i < SET(x)->run_hi[r_]; i++)

static double sum_over(const cva_set *s, double local) {
    if (s->comm != MPI_COMM_NULL)
        MPI_Allreduce(MPI_IN_PLACE, &local, 1, MPI_DOUBLE, MPI_SUM, s->comm);
    return local;
}

static double max_over(const cva_set *s, double local) {
    if (s->comm != MPI_COMM_NULL)
        MPI_Allreduce(MPI_IN_PLACE, &local, 1, MPI_DOUBLE, MPI_MAX, s->comm);
    return local;
}

static N_Vector_ID vector_id(N_Vector v) {
    (void)v;
    return SUNDIALS_NVEC_CUSTOM;
}

static N_Vector clone_vector(N_Vector w) {
    return cva_vector_new(SET(w), w->sunctx);
}

static void destroy(N_Vector v) {
    if (!v) return;
    cva_set *s = SET(v);
    for (int k = 0; k < s->n_clones; k++)
        if (s->clones[k] == v) s->clones[k] = NULL;
    free(DATA(v));
    free(v->content);
    N_VFreeEmpty(v);
}

static sunrealtype *array_pointer(N_Vector v) {
    return DATA(v);
}
static sunindextype length(N_Vector v) {
    return (sunindextype)SET(v)->n_active_global;
}
static void *communicator(N_Vector v) {
    return SET(v)->comm == MPI_COMM_NULL ? NULL : &SET(v)->comm;
}

static void linear_sum(sunrealtype a, N_Vector x, sunrealtype b, N_Vector y, N_Vector z) {
    const double *X = DATA(x), *Y = DATA(y);
    double *Z = DATA(z);
    FOR_ACTIVE(x) Z[i] = a * X[i] + b * Y[i];
}
static void set_const(sunrealtype c, N_Vector z) {
    double *Z = DATA(z);
    FOR_ACTIVE(z) Z[i] = c;
}
static void prod(N_Vector x, N_Vector y, N_Vector z) {
    const double *X = DATA(x), *Y = DATA(y);
    double *Z = DATA(z);
    FOR_ACTIVE(x) Z[i] = X[i] * Y[i];
}
static void divide(N_Vector x, N_Vector y, N_Vector z) {
    const double *X = DATA(x), *Y = DATA(y);
    double *Z = DATA(z);
    FOR_ACTIVE(x) Z[i] = X[i] / Y[i];
}
static void scale(sunrealtype c, N_Vector x, N_Vector z) {
    const double *X = DATA(x);
    double *Z = DATA(z);
    FOR_ACTIVE(x) Z[i] = c * X[i];
}
static void absolute(N_Vector x, N_Vector z) {
    const double *X = DATA(x);
    double *Z = DATA(z);
    FOR_ACTIVE(x) Z[i] = fabs(X[i]);
}
static void inverse(N_Vector x, N_Vector z) {
    const double *X = DATA(x);
    double *Z = DATA(z);
    FOR_ACTIVE(x) Z[i] = 1.0 / X[i];
}
static void add_const(N_Vector x, sunrealtype b, N_Vector z) {
    const double *X = DATA(x);
    double *Z = DATA(z);
    FOR_ACTIVE(x) Z[i] = X[i] + b;
}
static void compare(sunrealtype c, N_Vector x, N_Vector z) {
    const double *X = DATA(x);
    double *Z = DATA(z);
    FOR_ACTIVE(x) Z[i] = fabs(X[i]) >= c ? 1.0 : 0.0;
}

static sunrealtype dot(N_Vector x, N_Vector y) {
    const double *X = DATA(x), *Y = DATA(y);
    double s = 0.0;
    FOR_ACTIVE(x) s += X[i] * Y[i];
    return sum_over(SET(x), s);
}
static sunrealtype weighted_squares(N_Vector x, N_Vector w) {
    const double *X = DATA(x), *W = DATA(w);
    double s = 0.0;
    FOR_ACTIVE(x) s += (X[i] * W[i]) * (X[i] * W[i]);
    return sum_over(SET(x), s);
}
static sunrealtype max_weighted(N_Vector x, N_Vector w);

static sunrealtype wrms_norm(N_Vector x, N_Vector w) {
    if (SET(x)->max_norm) return max_weighted(x, w);
    int64_t n = SET(x)->n_active_global;
    double s = weighted_squares(x, w);
    return n ? sqrt(s / (double)n) : 0.0;
}
static sunrealtype wl2_norm(N_Vector x, N_Vector w) {
    return sqrt(weighted_squares(x, w));
}
static sunrealtype l1_norm(N_Vector x) {
    const double *X = DATA(x);
    double s = 0.0;
    FOR_ACTIVE(x) s += fabs(X[i]);
    return sum_over(SET(x), s);
}
/* NaN counts as infinite, so that a test on the norm fails */
static sunrealtype max_norm(N_Vector x) {
    const double *X = DATA(x);
    double largest = 0.0;
    FOR_ACTIVE(x) {
        double v = fabs(X[i]);
        if (!(v <= largest)) largest = isnan(v) ? INFINITY : v;
    }
    return max_over(SET(x), largest);
}
static sunrealtype max_weighted(N_Vector x, N_Vector w) {
    const double *X = DATA(x), *W = DATA(w);
    double largest = 0.0;
    FOR_ACTIVE(x) {
        double v = fabs(X[i] * W[i]);
        if (!(v <= largest)) largest = isnan(v) ? INFINITY : v;
    }
    return max_over(SET(x), largest);
}
static sunrealtype minimum(N_Vector x) {
    const double *X = DATA(x);
    double least = INFINITY;
    FOR_ACTIVE(x) least = fmin(least, X[i]);
    return -max_over(SET(x), -least);
}
static sunbooleantype inverse_test(N_Vector x, N_Vector z) {
    const double *X = DATA(x);
    double *Z = DATA(z);
    double zero = 0.0;
    FOR_ACTIVE(x) {
        if (X[i] == 0.0)
            zero = 1.0;
        else
            Z[i] = 1.0 / X[i];
    }
    return max_over(SET(x), zero) == 0.0;
}

cva_set *cva_set_new(MPI_Comm comm, int64_t n_local) {
    cva_set *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->comm = comm;
    s->n_local = n_local;
    size_t n = n_local > 0 ? (size_t)n_local : 1;
    s->index = malloc(n * sizeof *s->index);
    s->run_lo = malloc(n * sizeof *s->run_lo);
    s->run_hi = malloc(n * sizeof *s->run_hi);
    s->on = calloc(n, 1);
    if (!s->index || !s->on || !s->run_lo || !s->run_hi) {
        cva_set_free(s);
        return NULL;
    }
    return s;
}

void cva_set_free(cva_set *s) {
    if (!s) return;
    free(s->index);
    free(s->run_lo);
    free(s->run_hi);
    free(s->on);
    free(s->clones);
    free(s);
}

void cva_set_use_max_norm(cva_set *s) {
    s->max_norm = 1;
}

int cva_set_take(cva_set *s, const unsigned char *want) {
    s->n_active = s->n_runs = 0;
    for (int64_t i = 0; i < s->n_local; i++) {
        s->on[i] = want[i] != 0;
        if (!s->on[i]) continue;
        if (s->n_active == 0 || s->index[s->n_active - 1] != i - 1) {
            s->run_lo[s->n_runs] = i;
            s->run_hi[s->n_runs++] = i + 1;
        } else {
            s->run_hi[s->n_runs - 1] = i + 1;
        }
        s->index[s->n_active++] = i;
    }
    s->n_active_global = (int64_t)sum_over(s, (double)s->n_active);
    return 0;
}

int cva_active(const cva_set *s, int64_t i) {
    return s->on[i];
}
int64_t cva_active_local(const cva_set *s) {
    return s->n_active;
}
int64_t cva_active_global(const cva_set *s) {
    return s->n_active_global;
}
const int64_t *cva_active_index(const cva_set *s) {
    return s->index;
}

N_Vector cva_vector_new(cva_set *s, SUNContext ctx) {
    if (s->n_clones == s->cap_clones) {
        int cap = s->cap_clones ? 2 * s->cap_clones : 32;
        N_Vector *grown = realloc(s->clones, (size_t)cap * sizeof *grown);
        if (!grown) return NULL;
        s->clones = grown;
        s->cap_clones = cap;
    }
    N_Vector v = N_VNewEmpty(ctx);
    if (!v) return NULL;
    cva_vector *c = malloc(sizeof *c);
    double *data = calloc(s->n_local > 0 ? (size_t)s->n_local : 1, sizeof *data);
    if (!c || !data) {
        free(c);
        free(data);
        N_VFreeEmpty(v);
        return NULL;
    }
    c->data = data;
    c->set = s;
    v->content = c;
    N_Vector_Ops o = v->ops;
    o->nvgetvectorid = vector_id;
    o->nvclone = clone_vector;
    o->nvdestroy = destroy;
    o->nvgetarraypointer = array_pointer;
    o->nvgetcommunicator = communicator;
    o->nvgetlength = length;
    o->nvlinearsum = linear_sum;
    o->nvconst = set_const;
    o->nvprod = prod;
    o->nvdiv = divide;
    o->nvscale = scale;
    o->nvabs = absolute;
    o->nvinv = inverse;
    o->nvaddconst = add_const;
    o->nvdotprod = dot;
    o->nvmaxnorm = max_norm;
    o->nvwrmsnorm = wrms_norm;
    o->nvmin = minimum;
    o->nvwl2norm = wl2_norm;
    o->nvl1norm = l1_norm;
    o->nvcompare = compare;
    o->nvinvtest = inverse_test;
    s->clones[s->n_clones++] = v;
    return v;
}

int cva_history_find(cva_history *h, void *mem, N_Vector y, int qmax, char *err, size_t errlen) {
    double t, gamma, rl1;
    N_Vector ypred, yn, fn, zn1;
    void *user_data;
    if (qmax < 1 || qmax > CVA_QMAX ||
        CVodeGetNonlinearSystemData(mem, &t, &ypred, &yn, &fn, &gamma, &rl1, &zn1, &user_data) !=
            CV_SUCCESS) {
        snprintf(err, errlen, "cannot read CVODE's nonlinear system data");
        return -1;
    }
    const cva_set *s = SET(y);
    int k0 = -1;
    for (int k = 0; k < s->n_clones; k++)
        if (s->clones[k] && s->clones[k] == ypred) k0 = k;
    int ok = k0 >= 0 && k0 + qmax < s->n_clones && s->clones[k0 + 1] == zn1;
    for (int j = 0; ok && j <= qmax; j++)
        ok = s->clones[k0 + j] != NULL;
    if (!ok) {
        snprintf(err, errlen,
                 "CVODE's history (Nordsieck array) is not among its vectors where this "
                 "SUNDIALS 6.4 build keeps it: a moving BDF block cannot be used");
        return -1;
    }
    h->qmax = qmax;
    for (int j = 0; j <= CVA_QMAX; j++)
        h->z[j] = j <= qmax ? s->clones[k0 + j] : NULL;
    N_Vector scratch = cva_vector_new(SET(y), y->sunctx);
    if (!scratch) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = cva_history_check(h, mem, scratch, err, errlen);
    N_VDestroy(scratch);
    return rc;
}

int cva_history_check(const cva_history *h, void *mem, N_Vector scratch, char *err, size_t errlen) {
    double tn, h_last;
    if (CVodeGetCurrentTime(mem, &tn) != CV_SUCCESS ||
        CVodeGetLastStep(mem, &h_last) != CV_SUCCESS || !(h_last != 0.0)) {
        snprintf(err, errlen, "CVODE has taken no step to check its history against");
        return -1;
    }
    double bad = 0.0;
    for (int k = 0; k <= 1; k++) {
        if (CVodeGetDky(mem, tn, k, scratch) != CV_SUCCESS) {
            snprintf(err, errlen, "CVodeGetDky failed at t = %.17g", tn);
            return -1;
        }
        const double *d = DATA(scratch), *z = DATA(h->z[k]);
        double factor = k ? 1.0 / h_last : 1.0;
        FOR_ACTIVE(scratch) {
            if (!(fabs(z[i] * factor - d[i]) <= 1e-12 * (1.0 + fabs(d[i])))) bad = 1.0;
        }
    }
    if (max_over(SET(scratch), bad) != 0.0) {
        snprintf(err, errlen,
                 "CVODE's history (Nordsieck array) disagrees with CVodeGetDky at t = %.17g: a "
                 "moving BDF block cannot be used with this SUNDIALS build",
                 tn);
        return -1;
    }
    return 0;
}

void cva_history_write(const cva_history *h, int64_t i, double h_last, const double d[3]) {
    double power = 1.0;
    for (int j = 0; j <= h->qmax; j++) {
        DATA(h->z[j])[i] = j <= 2 ? power * d[j] : 0.0;
        power *= h_last / (double)(j + 1); /* h^(j+1) / (j+1)! */
    }
}
