/* mpi_cvode.c: one CVODE instance across 1-4 ranks (cvode_integrate with a
 * halo plan), on METIS and block partitions.
 *
 *   - heat2d 12 x 10 and heat3d 4 x 5 x 3 at tol 1e-8: every owned state
 *     within 1e-5 of the exact solution of the semi-discrete system at every
 *     sample (as the single-rank test_cvode); steps and CVODE's counters the
 *     same on every rank, and the scalar right-hand side count of each rank
 *     a multiple of its owned states (n_owned per full evaluation).
 *   - adr2d 16 x 16, tf = 0.5, tol 1e-6: e_rr against a single-rank CVODE
 *     run at 1e-10 (computed on every rank over MPI_COMM_SELF) within 1.5x
 *     of the single-rank run's own e_rr at 1e-6, plus tol / 10.
 *   - both of the above (heat2d, adr2d) again with SPGMR and each
 *     preconditioner (Jacobi, block-Jacobi, ILU(0)) on every P (1
 *     included), which must have run.
 *   - a repeated run (same P, same partition) gives bit-identical samples;
 *     so do 1 and 2 OpenMP threads, analytic and finite-difference Jacobian
 *     rows, on heat2d 72 x 72, where every rank owns more than 1024 rows, so
 *     that the row loops run threaded (cvode_rows.c threads from 512 rows)
 *     and the block-Jacobi preconditioner (chosen) has at least two blocks
 *     per rank (of at most 1024 rows).
 *   - failures agree: a right-hand side that turns NaN on the last rank's
 *     states only, and a sample callback that stops the run on rank 0 only,
 *     give the same rc and message on every rank (and no hang); KLU and band
 *     are refused on P >= 2 with the same message everywhere.
 */
#include "core/integrator_registry.h"
#include "core/layout.h"
#include "cvode/cvode_vector.h"
#include "problems/registry.h"
#include "tests/support/run_support.h"
#include "tests/support/test_support.h"

#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------ distributed run --- */

typedef struct dist_run {
    qmol_problem prob;
    run_layout l;
    integrator_options o;
    qmol_stats st;
    int64_t K;
    double *times;   /* K */
    double *samples; /* K x n_owned, local order */
    int stop_rank;   /* the sample callback returns 9 at sample 2 on this rank (-1: never) */
    int precond;     /* PRECOND_* (0: auto) */
    int rc;
    char err[512];
} dist_run;

static int keep_local(void *ctx, int64_t k, double t, const double *x) {
    dist_run *d = ctx;
    int32_t n = d->l.m.n;
    d->times[k - 1] = t;
    memcpy(d->samples + (k - 1) * n, x, (size_t)n * sizeof *x);
    return k == 2 && test_rank() == d->stop_rank ? 9 : 0;
}

static void dist_setup(dist_run *d, partition_kind kind) {
    partition_options po = {.kind = kind};
    char err[512] = "";
    if (!test_all_true(layout_build(&d->l, &d->prob, &po, MPI_COMM_WORLD, err, sizeof err) == 0))
        fail_msg("layout_build: %s", err);
}

static void dist_integrate(dist_run *d, double tol, double tf, int64_t K, int use_jac,
                           linsol_id ls) {
    d->K = K;
    d->o = (integrator_options){.method = integrator_by_name("cvode"),
                                .reltol = tol,
                                .abstol = tol,
                                .t0 = d->prob.t0,
                                .tf = tf > d->prob.t0 ? tf : d->prob.tf,
                                .samples = K,
                                .use_jacobian = use_jac,
                                .linsol = ls,
                                .precond = d->precond,
                                .halo = layout_halo(&d->l)};
    d->times = calloc((size_t)K, sizeof *d->times);
    d->samples = calloc((size_t)K * (size_t)d->l.m.n, sizeof *d->samples);
    assert_true(d->times && d->samples);
    memset(&d->st, 0, sizeof d->st);
    d->rc = cvode_integrate(&d->l.m, &d->o, keep_local, d, &d->st, d->err, sizeof d->err);
}

/* Builds problem `name`, partitions it and runs CVODE with linear solver
 * ls and preconditioner precond. */
static dist_run *dist_run_solver(const char *name, const char *const *sets, int nsets,
                                 partition_kind kind, double tol, double tf, int64_t K, int use_jac,
                                 linsol_id ls, int precond) {
    dist_run *d = calloc(1, sizeof *d);
    assert_non_null(d);
    d->stop_rank = -1;
    d->precond = precond;
    d->prob = test_problem(name, sets, nsets);
    dist_setup(d, kind);
    dist_integrate(d, tol, tf, K, use_jac, ls);
    if (!test_all_true(d->rc == 0)) fail_msg("%s on %d ranks: %s", name, test_nranks(), d->err);
    return d;
}

/* The same with the auto linear solver and preconditioner. */
static dist_run *dist_run_problem(const char *name, const char *const *sets, int nsets,
                                  partition_kind kind, double tol, double tf, int64_t K,
                                  int use_jac) {
    return dist_run_solver(name, sets, nsets, kind, tol, tf, K, use_jac, LINSOL_AUTO, PRECOND_AUTO);
}

static void dist_free(dist_run *d) {
    layout_free(&d->l);
    if (d->prob.destroy) d->prob.destroy(d->prob.data);
    free(d->times);
    free(d->samples);
    free(d);
}

/* The samples in global order (K x n) on every rank. */
static double *dist_global(const dist_run *d) {
    int64_t n = d->prob.n;
    double *g = calloc((size_t)(d->K * n), sizeof *g);
    assert_non_null(g);
    for (int64_t k = 0; k < d->K; k++)
        for (int32_t j = 0; j < d->l.m.n; j++)
            g[k * n + model_gid(&d->l.m, j)] = d->samples[k * d->l.m.n + j];
    MPI_Allreduce(MPI_IN_PLACE, g, (int)(d->K * n), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return g;
}

/* Bit-identical local samples on every rank (same partition). */
static int same_samples(const dist_run *a, const dist_run *b) {
    int same = a->l.m.n == b->l.m.n && a->K == b->K;
    for (int32_t j = 0; same && j < a->l.m.n; j++)
        same = model_gid(&a->l.m, j) == model_gid(&b->l.m, j);
    if (same)
        same = !memcmp(a->samples, b->samples, (size_t)(a->K * a->l.m.n) * sizeof *a->samples);
    return test_all_true(same);
}

/* ------------------------------------------------------------- checks --- */

static double max_exact_error(const dist_run *d) {
    const qmol_problem *p = &d->prob;
    double worst = 0.0;
    for (int64_t k = 0; k < d->K; k++)
        for (int32_t j = 0; j < d->l.m.n; j++) {
            double ex = p->exact(p->data, model_gid(&d->l.m, j), d->times[k]);
            double e = fabs(d->samples[k * d->l.m.n + j] - ex);
            worst = isnan(e) ? INFINITY : fmax(worst, e);
        }
    MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

/* CVODE's counters are global: the same on every rank. */
static void check_stats(const dist_run *d) {
    const qmol_stats *st = &d->st;
    enum { NC = 8 };
    uint64_t v[NC] = {st->nst, st->nfe, st->nni, st->nli, st->netf, st->nje, st->npe, st->nps};
    uint64_t lo[NC], hi[NC];
    MPI_Allreduce(v, lo, NC, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(v, hi, NC, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    int ok = st->nst > 0 && st->nni > 0 && st->nje > 0 && st->nfe >= st->nst;
    for (int k = 0; k < NC; k++)
        ok = ok && lo[k] == hi[k];
    /* analytic Jacobian: row evaluations are whole sweeps of the owned rows,
     * at least one per right-hand side CVODE asked for */
    uint64_t n = (uint64_t)d->l.m.n;
    ok = ok && st->row_evals >= n * (st->nfe + st->nfeLS) && st->row_evals % n == 0;
    uint64_t sweeps = st->row_evals / n, slo, shi;
    MPI_Allreduce(&sweeps, &slo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&sweeps, &shi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (!test_all_true(ok && slo == shi))
        fail_msg("rank %d: nst %llu nfe %llu nni %llu nli %llu rows %llu (n_owned %llu)",
                 test_rank(), (unsigned long long)st->nst, (unsigned long long)st->nfe,
                 (unsigned long long)st->nni, (unsigned long long)st->nli,
                 (unsigned long long)st->row_evals, (unsigned long long)n);
    if (test_nranks() > 1 || d->precond != PRECOND_AUTO) /* SPGMR, preconditioned */
        assert_true(st->nli > 0 && st->nps >= st->nli && st->npe > 0 && st->njvevals > 0);
}

static const partition_kind kinds[] = {PARTITION_METIS, PARTITION_BLOCK};
static const char *const kind_names[] = {"metis", "block"};

static void check_heat(const char *name, const char *const *sets, int nsets, linsol_id ls,
                       int precond) {
    for (int k = 0; k < 2; k++) {
        dist_run *d = dist_run_solver(name, sets, nsets, kinds[k], 1e-8, 0.0, 5, 1, ls, precond);
        double e = max_exact_error(d);
        if (!(e < 1e-5))
            fail_msg("%s, %s, %d ranks: max error %g", name, kind_names[k], test_nranks(), e);
        for (int64_t s = 0; s < d->K; s++)
            assert_true(d->times[s] == sample_time(d->o.t0, d->o.tf, s + 1, d->K));
        check_stats(d);
        dist_free(d);
    }
}

static void heat2d_exact(void **state) {
    (void)state;
    check_heat("heat2d", (const char *[]){"nx=12", "ny=10"}, 2, LINSOL_AUTO, PRECOND_AUTO);
}

static const int preconds[] = {PRECOND_JACOBI, PRECOND_BLOCK, PRECOND_ILU};

static void heat2d_exact_each_precond(void **state) {
    (void)state;
    for (int k = 0; k < 3; k++)
        check_heat("heat2d", (const char *[]){"nx=12", "ny=10"}, 2, LINSOL_SPGMR, preconds[k]);
}

static void heat3d_exact(void **state) {
    (void)state;
    check_heat("heat3d", (const char *[]){"nx=4", "ny=5", "nz=3"}, 3, LINSOL_AUTO, PRECOND_AUTO);
}

static double rel_error(const double *x, const double *ref, int64_t len) {
    double num = 0.0, den = 0.0;
    for (int64_t k = 0; k < len; k++) {
        num += (x[k] - ref[k]) * (x[k] - ref[k]);
        den += ref[k] * ref[k];
    }
    return den > 0.0 ? sqrt(num / den) : sqrt(num);
}

static void check_adr2d(linsol_id ls, int precond) {
    const char *sets[] = {"nx=16", "ny=16"};
    const double tol = 1e-6, tf = 0.5;
    const int64_t K = 10;
    /* single-rank runs over MPI_COMM_SELF (no halo), the same on every rank */
    test_run *ref = run_problem("adr2d", sets, 2, "cvode", 1e-10, 1e-10, tf, K, 0, 1);
    test_run *one = run_problem("adr2d", sets, 2, "cvode", tol, tol, tf, K, 0, 1);
    if (!test_all_true(ref->rc == 0 && one->rc == 0))
        fail_msg("single-rank adr2d: %s %s", ref->err, one->err);
    double e1 = run_relative_error(one, ref);
    assert_true(e1 > 0.0 && e1 < 1e-3);
    for (int k = 0; k < 2; k++) {
        dist_run *d = dist_run_solver("adr2d", sets, 2, kinds[k], tol, tf, K, 1, ls, precond);
        double *g = dist_global(d);
        double e = rel_error(g, ref->samples, K * ref->n);
        if (!test_all_true(e <= 1.5 * e1 + tol / 10))
            fail_msg("adr2d, %s, %d ranks, precond %d: e_rr %g, single rank %g", kind_names[k],
                     test_nranks(), precond, e, e1);
        check_stats(d);
        free(g);
        dist_free(d);
    }
    run_free(ref);
    run_free(one);
}

static void adr2d_against_reference(void **state) {
    (void)state;
    check_adr2d(LINSOL_AUTO, PRECOND_AUTO);
}

static void adr2d_against_reference_each_precond(void **state) {
    (void)state;
    for (int k = 0; k < 3; k++)
        check_adr2d(LINSOL_SPGMR, preconds[k]);
}

static void repeat_is_bit_identical(void **state) {
    (void)state;
    const char *sets[] = {"nx=16", "ny=16"};
    for (int k = 0; k < 2; k++) {
        dist_run *a = dist_run_problem("adr2d", sets, 2, kinds[k], 1e-6, 0.5, 10, 1);
        dist_run *b = dist_run_problem("adr2d", sets, 2, kinds[k], 1e-6, 0.5, 10, 1);
        if (!same_samples(a, b)) fail_msg("adr2d, %s: a repeated run differs", kind_names[k]);
        dist_free(a);
        dist_free(b);
    }
}

static void threads_do_not_change_results(void **state) {
    (void)state;
    const char *sets[] = {"nx=72", "ny=72"};
    int saved = omp_get_max_threads();
    for (int use_jac = 0; use_jac <= 1; use_jac++) {
        omp_set_num_threads(1);
        dist_run *a = dist_run_solver("heat2d", sets, 2, PARTITION_METIS, 1e-6, 0.02, 4, use_jac,
                                      LINSOL_AUTO, PRECOND_BLOCK);
        omp_set_num_threads(2);
        assert_int_equal(omp_get_max_threads(), 2);
        dist_run *b = dist_run_solver("heat2d", sets, 2, PARTITION_METIS, 1e-6, 0.02, 4, use_jac,
                                      LINSOL_AUTO, PRECOND_BLOCK);
        assert_true(test_all_true(a->l.m.n > 1024));
        if (!same_samples(a, b))
            fail_msg("heat2d 72x72 (jacobian %s): 1 and 2 threads differ",
                     use_jac ? "analytic" : "numeric");
        /* the same work on both */
        assert_true(test_all_true(a->st.row_evals == b->st.row_evals && a->st.nst == b->st.nst));
        dist_free(a);
        dist_free(b);
    }
    omp_set_num_threads(saved);
}

/* ----------------------------------------------------------- failures --- */

/* x_i' = x_{i-1} - 2 x_i + x_{i+1} on a chain of 40 states, whose last state
 * turns NaN after t = 0.05 (on the last rank only, with the block
 * partition's id ranges). */
#define CHAIN_N 40

static int chain_row_size(const void *data, int64_t i) {
    (void)data;
    return 1 + (i > 0) + (i < CHAIN_N - 1);
}

static void chain_row(const void *data, int64_t i, int64_t *cols) {
    (void)data;
    int k = 0;
    if (i > 0) cols[k++] = i - 1;
    cols[k++] = i;
    if (i < CHAIN_N - 1) cols[k++] = i + 1;
}

static double chain_rhs(const void *data, int64_t i, double t, const double *v) {
    (void)data;
    if (i == CHAIN_N - 1 && t > 0.05) return NAN;
    double left = i > 0 ? v[0] : 0.0, mid = v[i > 0],
           right = i < CHAIN_N - 1 ? v[1 + (i > 0)] : 0.0;
    return left - 2.0 * mid + right;
}

static double chain_x0(const void *data, int64_t i) {
    (void)data;
    return sin(3.14159265358979323846 * (double)(i + 1) / (CHAIN_N + 1));
}

static qmol_problem chain_problem(void) {
    qmol_problem p;
    memset(&p, 0, sizeof p);
    p.n = CHAIN_N;
    p.tf = 1.0;
    p.row_size = chain_row_size;
    p.row = chain_row;
    p.rhs = chain_rhs;
    p.x0 = chain_x0;
    return p;
}

/* The same rc and message on every rank. */
static void check_agreed(const dist_run *d, int expect_rc, const char *what) {
    char first[512];
    memcpy(first, d->err, sizeof first);
    MPI_Bcast(first, (int)sizeof first, MPI_CHAR, 0, MPI_COMM_WORLD);
    int rc0 = d->rc;
    MPI_Bcast(&rc0, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int ok = d->rc == expect_rc && rc0 == d->rc && !strcmp(first, d->err) && strstr(d->err, what);
    if (!test_all_true(ok))
        fail_msg("rank %d: rc %d (rank 0: %d), message '%s' (rank 0: '%s'), expected '%s'",
                 test_rank(), d->rc, rc0, d->err, first, what);
}

static void failures_agree(void **state) {
    (void)state;
    dist_run *d = calloc(1, sizeof *d);
    assert_non_null(d);
    d->stop_rank = -1;
    d->prob = chain_problem();
    dist_setup(d, PARTITION_BLOCK);
    dist_integrate(d, 1e-6, 1.0, 10, 0, LINSOL_AUTO);
    check_agreed(d, -1, "CVODE stalled at t=0.05");
    free(d->times);
    free(d->samples);

    /* rank 0 stops the run at sample 2; the others carry on to agree */
    d->stop_rank = 0;
    dist_integrate(d, 1e-6, 0.04, 10, 0, LINSOL_AUTO);
    check_agreed(d, 9, "sample 2 at t=0.008");
    free(d->times);
    free(d->samples);

    /* KLU and band factor all states: refused on P ranks, fine on one */
    const linsol_id direct[] = {LINSOL_KLU, LINSOL_BAND};
    d->stop_rank = -1;
    for (int s = 0; s < 2; s++) {
        dist_integrate(d, 1e-6, 0.04, 10, 0, direct[s]);
        if (test_nranks() > 1)
            check_agreed(d, -1, "needs all states on one rank");
        else
            assert_int_equal(d->rc, 0);
        free(d->times);
        free(d->samples);
    }
    d->times = d->samples = NULL;
    dist_free(d);
}

/* heat2d 256 x 256: every P <= 4 holds at least CV_THREADED_MIN_ROWS states
 * per rank, so CVODE's vectors are NVECTOR_OPENMP under MPIPLUSX with sums
 * in fixed parts: within 1e-6 of the exact solution (tol 1e-7), and on
 * P <= 2, 1 and 2 threads give bit-identical samples (on 3 and 4 ranks of
 * the 2-core machine 2 threads each spin on each other's cores: 50-60 s
 * instead of 3). */
static void threaded_vectors(void **state) {
    (void)state;
    const char *sets[] = {"nx=256", "ny=256"};
    int saved = omp_get_max_threads();
    assert_true(cvv_threads_for(256 * 256, test_nranks(), 2) == 2);
    assert_true(cvv_threads_for(16383 * test_nranks(), test_nranks(), 2) == 0);
    omp_set_num_threads(1);
    dist_run *a = dist_run_solver("heat2d", sets, 2, PARTITION_METIS, 1e-7, 0.002, 2, 1,
                                  LINSOL_SPGMR, PRECOND_ILU);
    omp_set_num_threads(test_nranks() <= 2 ? 2 : 1);
    dist_run *b = dist_run_solver("heat2d", sets, 2, PARTITION_METIS, 1e-7, 0.002, 2, 1,
                                  LINSOL_SPGMR, PRECOND_ILU);
    omp_set_num_threads(saved);
    if (!same_samples(a, b)) fail_msg("heat2d 256x256: 1 and 2 threads differ");
    double e = max_exact_error(b);
    printf("heat2d 256x256, %d ranks, threaded vectors: max error %g, %lld steps\n", test_nranks(),
           e, (long long)b->st.nst);
    if (!(e < 1e-6)) fail_msg("heat2d 256x256, %d ranks: max error %g", test_nranks(), e);
    check_stats(b);
    dist_free(a);
    dist_free(b);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(heat2d_exact),
    cmocka_unit_test(heat2d_exact_each_precond),
    cmocka_unit_test(heat3d_exact),
    cmocka_unit_test(adr2d_against_reference),
    cmocka_unit_test(adr2d_against_reference_each_precond),
    cmocka_unit_test(repeat_is_bit_identical),
    cmocka_unit_test(threads_do_not_change_results),
    cmocka_unit_test(threaded_vectors),
    cmocka_unit_test(failures_agree),
};

int main(int argc, char **argv) {
    return QMOL_RUN_TESTS(argc, argv, tests);
}
