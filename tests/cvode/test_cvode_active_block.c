/* test_cvode_active_block.c: a CVODE block over an active set of adr2d's
 * states (cvode_block_open_active, cvode_block_move), against whole blocks.
 *
 *   - every state active: the block takes the whole block's steps (SPGMR,
 *     Jacobi) and ends within 1e-10 of its states;
 *   - a set that follows the front (60 x 60, tf 3, tol 1e-4 and 1e-3): at
 *     every 0.1 of t the set becomes the states whose drift over 0.1 exceeds
 *     their tolerance (a tenth of it for those already in), widened by 4
 *     hops; the others are held at their values (the test's inputs) and
 *     enter with that value and their slope. The final e_rr against a whole
 *     block at tol 1e-8 is at most 1.5 times the whole block's at the same
 *     tol (scripts/anchor/adr2d_active.c measured 0.25-0.9x), states enter
 *     and leave, and under half of them are active on average; the block
 *     evaluates only its active rows (its row_evals);
 *   - what the block refuses: a move before its first step, and options it
 *     does not have (ILU(0), KLU).
 */
#include "tests/support/test_support.h"

#include "core/integrator_registry.h"
#include "core/model.h"
#include "cvode/cvode_block.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SIDE 60
#define TF 3.0
#define EVERY 0.1
#define MARGIN 4

static integrator_options options(double tol) {
    integrator_options o;
    memset(&o, 0, sizeof o);
    o.method = integrator_by_name("cvode");
    o.reltol = tol;
    o.abstol = 0.1 * tol;
    o.t0 = 0.0;
    o.tf = TF;
    o.samples = 1;
    o.use_jacobian = 1;
    o.linsol = LINSOL_SPGMR;
    o.precond = PRECOND_JACOBI;
    return o;
}

typedef struct grid {
    qmol_problem p;
    model m;
} grid;

static void grid_open(grid *g) {
    static const char *const sets[] = {"nx=60", "ny=60"};
    g->p = test_problem("adr2d", sets, 2);
    char err[256] = "";
    assert_int_equal(model_build(&g->m, &g->p, err, sizeof err), 0);
    assert_int_equal(g->m.n, SIDE * SIDE);
}

static void grid_close(grid *g) {
    model_free(&g->m);
    if (g->p.destroy) g->p.destroy(g->p.data);
}

/* The whole block to TF: its final states into out, its steps. */
static long whole_run(const grid *g, double tol, double *out) {
    integrator_options o = options(tol);
    char err[512] = "";
    cvode_block *b = cvode_block_open(&g->m, &o, NULL, err, sizeof err);
    assert_non_null(b);
    assert_int_equal(cvode_block_advance(b, TF, err, sizeof err), 0);
    memcpy(out, cvode_block_state(b), sizeof(double) * SIDE * SIDE);
    qmol_stats s;
    memset(&s, 0, sizeof s);
    assert_int_equal(cvode_block_add_stats(b, &s, 0, err, sizeof err), 0);
    cvode_block_close(b);
    return (long)s.nst;
}

/* The test's inputs: states outside the set held at their values. */
typedef struct held {
    const model *m;
    double *value, *slope; /* all states: held values, f at the last plan */
    unsigned char *on, *want, *core;
    double *u, *vals, *listed;
} held;

static void held_values(void *ctx, double t, const int32_t *cols, int32_t ncols, double *v) {
    (void)t;
    const held *h = ctx;
    for (int32_t k = 0; k < ncols; k++)
        v[cols[k]] = h->value[cols[k]];
}

static void held_history(void *ctx, int32_t j, double d[3]) {
    const held *h = ctx;
    d[0] = h->value[j];
    d[1] = h->slope[j];
    d[2] = 0.0;
}

/* want: the states whose drift over EVERY exceeds their tolerance (a tenth
 * for those in the set), widened by MARGIN hops; slope: f at (t, u). */
static void plan(held *h, double t, const double *y, double tol) {
    const model *m = h->m;
    for (int32_t j = 0; j < m->n; j++)
        h->u[j] = h->on[j] ? y[j] : h->value[j];
    for (int32_t j = 0; j < m->n; j++) {
        model_gather(m, j, h->u, h->vals);
        h->slope[j] = model_rhs(m, j, t, h->vals, h->listed);
        double scale = 0.1 * tol + tol * fabs(h->u[j]);
        h->want[j] = fabs(h->slope[j]) * EVERY > (h->on[j] ? 0.1 : 1.0) * scale;
    }
    for (int hop = 0; hop < MARGIN; hop++) {
        memcpy(h->core, h->want, (size_t)m->n);
        for (int32_t j = 0; j < m->n; j++)
            if (h->core[j])
                for (int64_t e = m->row_ptr[j]; e < m->row_ptr[j + 1]; e++)
                    h->want[m->row_col[e]] = 1;
    }
}

typedef struct moving_result {
    long steps, entered, left;
    double mean_active;
    uint64_t row_evals, rhs_evals;
} moving_result;

static moving_result moving_run(const grid *g, double tol, double *out) {
    const model *m = &g->m;
    int32_t n = m->n;
    held h = {.m = m};
    h.value = calloc((size_t)n, sizeof(double));
    h.slope = calloc((size_t)n, sizeof(double));
    h.u = calloc((size_t)n, sizeof(double));
    h.on = calloc((size_t)n, 1);
    h.want = calloc((size_t)n, 1);
    h.core = calloc((size_t)n, 1);
    h.vals = calloc((size_t)m->max_row + 1, sizeof(double));
    h.listed = calloc(model_scratch_size(m) + 1, sizeof(double));
    assert_true(h.value && h.slope && h.u && h.on && h.want && h.core && h.vals && h.listed);
    for (int32_t j = 0; j < n; j++)
        h.value[j] = g->p.x0(g->p.data, model_gid(m, j));
    plan(&h, 0.0, h.value, tol);
    memcpy(h.on, h.want, (size_t)n);

    integrator_options o = options(tol);
    cvode_active_inputs in = {held_values, &h};
    char err[512] = "";
    cvode_block *b = cvode_block_open_active(m, &o, h.on, &in, err, sizeof err);
    assert_non_null(b);
    /* a move before the first step is refused */
    assert_int_equal(cvode_block_move(b, h.on, held_history, &h, err, sizeof err), -1);
    assert_non_null(strstr(err, "first step"));

    moving_result r = {0};
    double active_sum = 0.0;
    int plans = 0;
    for (int k = 1; k <= (int)lround(TF / EVERY); k++) {
        double T = k == (int)lround(TF / EVERY) ? TF : k * EVERY;
        assert_int_equal(cvode_block_advance(b, T, err, sizeof err), 0);
        if (T >= TF) break;
        const double *y = cvode_block_state(b);
        plan(&h, T, y, tol);
        for (int32_t j = 0; j < n; j++) {
            if (h.on[j] && !h.want[j]) {
                h.value[j] = y[j];
                r.left++;
            }
            r.entered += !h.on[j] && h.want[j];
        }
        assert_int_equal(cvode_block_move(b, h.want, held_history, &h, err, sizeof err), 0);
        memcpy(h.on, h.want, (size_t)n);
        active_sum += (double)cvode_block_active_count(b);
        plans++;
    }
    const double *y = cvode_block_state(b);
    for (int32_t j = 0; j < n; j++)
        out[j] = h.on[j] ? y[j] : h.value[j];
    qmol_stats s;
    memset(&s, 0, sizeof s);
    assert_int_equal(cvode_block_add_stats(b, &s, 0, err, sizeof err), 0);
    r.steps = (long)s.nst;
    r.row_evals = s.row_evals;
    r.rhs_evals = s.nfe + s.nfeLS;
    r.mean_active = active_sum / plans;
    cvode_block_close(b);
    free(h.value), free(h.slope), free(h.u), free(h.on), free(h.want), free(h.core);
    free(h.vals), free(h.listed);
    return r;
}

static double e_rr(const double *x, const double *ref, int32_t n) {
    double d = 0.0, r = 0.0;
    for (int32_t j = 0; j < n; j++) {
        d += (x[j] - ref[j]) * (x[j] - ref[j]);
        r += ref[j] * ref[j];
    }
    return sqrt(d / r);
}

static void every_state_active_is_the_whole_block(void **state) {
    (void)state;
    grid g;
    grid_open(&g);
    int32_t n = g.m.n;
    double *whole = malloc(sizeof(double) * (size_t)n), *active = malloc(sizeof(double) * n);
    long steps = whole_run(&g, 1e-4, whole);
    unsigned char *all = malloc((size_t)n);
    memset(all, 1, (size_t)n);
    integrator_options o = options(1e-4);
    held unused = {0};
    cvode_active_inputs in = {held_values, &unused};
    char err[512] = "";
    cvode_block *b = cvode_block_open_active(&g.m, &o, all, &in, err, sizeof err);
    assert_non_null(b);
    assert_int_equal(cvode_block_advance(b, TF, err, sizeof err), 0);
    memcpy(active, cvode_block_state(b), sizeof(double) * (size_t)n);
    qmol_stats s;
    memset(&s, 0, sizeof s);
    assert_int_equal(cvode_block_add_stats(b, &s, 0, err, sizeof err), 0);
    double diff = 0.0;
    for (int32_t j = 0; j < n; j++)
        diff = fmax(diff, fabs(active[j] - whole[j]));
    print_message("whole %ld steps, active %ld; max difference %.3g\n", steps, (long)s.nst, diff);
    assert_int_equal((long)s.nst, steps);
    assert_true(diff <= 1e-10);
    cvode_block_close(b);
    free(whole), free(active), free(all);
    grid_close(&g);
}

static void a_set_that_follows_the_front(void **state) {
    (void)state;
    grid g;
    grid_open(&g);
    int32_t n = g.m.n;
    double *ref = malloc(sizeof(double) * (size_t)n), *whole = malloc(sizeof(double) * n),
           *moving = malloc(sizeof(double) * (size_t)n);
    whole_run(&g, 1e-8, ref);
    const double tols[] = {1e-4, 1e-3};
    for (int t = 0; t < 2; t++) {
        long steps = whole_run(&g, tols[t], whole);
        moving_result r = moving_run(&g, tols[t], moving);
        double ew = e_rr(whole, ref, n), em = e_rr(moving, ref, n);
        print_message("tol %g: whole %ld steps e_rr %.3g; moving %ld steps e_rr %.3g, %ld entered, "
                      "%ld left, %.0f of %d active on average, %.0f rows per f\n",
                      tols[t], steps, ew, r.steps, em, r.entered, r.left, r.mean_active, (int)n,
                      (double)r.row_evals / (double)r.rhs_evals);
        assert_true(em <= 1.5 * ew);
        assert_true(r.entered > 0 && r.left > 0);
        assert_true(r.mean_active < 0.5 * n);
        /* rows evaluated: the active ones (f's calls times at most the
         * largest set), not n per call */
        assert_true((double)r.row_evals < 0.75 * (double)n * (double)r.rhs_evals);
    }
    free(ref), free(whole), free(moving);
    grid_close(&g);
}

static void what_it_refuses(void **state) {
    (void)state;
    grid g;
    grid_open(&g);
    unsigned char *all = malloc((size_t)g.m.n);
    memset(all, 1, (size_t)g.m.n);
    held unused = {0};
    cvode_active_inputs in = {held_values, &unused};
    char err[512] = "";
    integrator_options o = options(1e-4);
    o.precond = PRECOND_ILU;
    assert_null(cvode_block_open_active(&g.m, &o, all, &in, err, sizeof err));
    assert_non_null(strstr(err, "Jacobi"));
    o = options(1e-4);
    o.linsol = LINSOL_KLU;
    assert_null(cvode_block_open_active(&g.m, &o, all, &in, err, sizeof err));
    assert_non_null(strstr(err, "SPGMR"));
    free(all);
    grid_close(&g);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(every_state_active_is_the_whole_block),
    cmocka_unit_test(a_set_that_follows_the_front),
    cmocka_unit_test(what_it_refuses),
};

int main(int argc, char **argv) {
    return QMOL_RUN_TESTS(argc, argv, tests);
}
