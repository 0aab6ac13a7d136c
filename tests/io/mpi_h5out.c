/* mpi_h5out.c: the distributed HDF5 writer at 1-4 ranks.
 *
 * Every rank writes its block of x[k][g] = k + g / 1000 (n = 1003, not a
 * multiple of the rank count; K = 4), a partition and its own statistics;
 * rank 0 of the writer's communicator then reads the file back with the
 * serial HDF5 API. The expected states and times do not depend on the rank
 * count, so every run checks the same values. Also: blocks that are empty
 * (n < P), sub-communicators, and failures that every rank must see.
 */
#define _POSIX_C_SOURCE 200809L

#include "tests/support/test_support.h"
#include "tests/support/h5_support.h"
#include "comm/directory.h"
#include "io/h5out.h"

#include <hdf5.h>
#include <math.h>
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS 1003
#define KS 4
#define T0 0.5
#define TF 2.5
#define EDGE_CUT 42

static double value(int64_t k, int64_t g) {
    return (double)k + (double)g / 1000.0;
}

static double sample_time(int64_t k) {
    return T0 + (TF - T0) * (double)k / (double)KS;
}

static int comm_rank(MPI_Comm c) {
    int r;
    MPI_Comm_rank(c, &r);
    return r;
}

static int comm_size(MPI_Comm c) {
    int p;
    MPI_Comm_size(c, &p);
    return p;
}

static qmol_problem problem(int64_t n) {
    qmol_problem p = {0};
    p.n = n;
    p.t0 = T0;
    p.tf = TF;
    return p;
}

static h5out_meta meta(const qmol_problem *p, MPI_Comm comm) {
    h5out_meta m = {0};
    m.problem = "blocks";
    m.method = "qss2";
    m.reltol = 1e-4;
    m.abstol = 1e-6;
    m.t0 = T0;
    m.tf = TF;
    m.samples = KS;
    m.prob = p;
    m.comm = comm;
    return m;
}

/* ---- the partition and statistics each rank passes ---- */

/* Not the block distribution: runs of 7 states dealt round the ranks. */
static int32_t owner_of(int64_t g, int P) {
    return (int32_t)((g / 7) % P);
}

static h5out_rank_info rank_info(int64_t n, int P, int r) {
    h5out_rank_info ri = {0};
    for (int64_t g = 0; g < n; g++)
        ri.owned += owner_of(g, P) == r;
    ri.ghosts = 10 + r;
    ri.boundary = ri.owned < 3 + r ? ri.owned : 3 + r;
    ri.weight = (double)ri.owned * (1.0 + 0.5 * r);
    return ri;
}

/* Every field of /stats (src/core/stats.c's table: a copy here had drifted). */
#define fields stats_fields
#define NFIELDS stats_nfields

/* Field j of rank r: counters (j + 1) (1000 + r), wall times j + 1 + r / 4
 * (so that the slowest rank is the last one). */
static uint64_t counter_of(size_t j, int r) {
    return (uint64_t)(j + 1) * (1000u + (uint64_t)r);
}

static double wall_of(size_t j, int r) {
    return (double)(j + 1) + 0.25 * r;
}

static qmol_stats stats_of(int r) {
    qmol_stats s;
    memset(&s, 0, sizeof s);
    for (size_t j = 0; j < NFIELDS; j++) {
        char *p = (char *)&s + fields[j].off;
        if (fields[j].is_double)
            *(double *)p = wall_of(j, r);
        else
            *(uint64_t *)p = counter_of(j, r);
    }
    return s;
}

/* ---- writing ---- */

/* Writes the whole file through comm: partition, K samples, statistics. */
static void write_run(const char *path, int64_t n, MPI_Comm comm, const char *kind) {
    int P = comm_size(comm), r = comm_rank(comm);
    qmol_problem p = problem(n);
    h5out_meta m = meta(&p, comm);
    char err[1024];
    h5out *w = h5out_create(path, &m, err, sizeof err);
    if (!w) fail_msg("h5out_create: %s", err);

    int64_t first = -1, count = -1;
    h5out_block(w, &first, &count);
    assert_int_equal(first, dir_first(n, P, r));
    assert_int_equal(count, dir_first(n, P, r + 1) - first);

    int32_t *owner = count ? malloc((size_t)count * sizeof *owner) : NULL;
    double *x = count ? malloc((size_t)count * sizeof *x) : NULL;
    assert_true(count == 0 || (owner && x));
    for (int64_t i = 0; i < count; i++)
        owner[i] = owner_of(first + i, P);
    h5out_rank_info mine = rank_info(n, P, r);
    if (h5out_partition(w, owner, &mine, EDGE_CUT, kind, err, sizeof err))
        fail_msg("h5out_partition: %s", err);

    for (int64_t k = 1; k <= KS; k++) {
        for (int64_t i = 0; i < count; i++)
            x[i] = value(k, first + i);
        assert_int_equal(h5out_sample(w, k, sample_time(k), x), 0);
    }
    assert_null(h5out_error(w));
    qmol_stats s = stats_of(r);
    if (h5out_finish(w, &s, err, sizeof err)) fail_msg("h5out_finish: %s", err);
    free(owner);
    free(x);
}

/* ---- reading back (rank 0 of the writer's communicator) ---- */

static void check_states(hid_t f, int64_t n) {
    double *x = malloc((size_t)(KS * n) * sizeof *x);
    assert_non_null(x);
    hsize_t sdims[2] = {KS, (hsize_t)n};
    h5s_read(f, "states", 2, sdims, H5T_NATIVE_DOUBLE, H5T_FLOAT, 8, x);
    for (int64_t k = 1; k <= KS; k++)
        for (int64_t g = 0; g < n; g++)
            if (x[(k - 1) * n + g] != value(k, g))
                fail_msg("states[%lld, %lld] = %.17g, expected %.17g", (long long)k - 1,
                         (long long)g, x[(k - 1) * n + g], value(k, g));
    double t[KS];
    hsize_t tdims[1] = {KS};
    h5s_read(f, "time", 1, tdims, H5T_NATIVE_DOUBLE, H5T_FLOAT, 8, t);
    for (int k = 1; k <= KS; k++)
        if (t[k - 1] != sample_time(k))
            fail_msg("time[%d] = %.17g, expected %.17g", k - 1, t[k - 1], sample_time(k));
    assert_int_equal(h5s_attr_i64(f, "n"), n);
    assert_int_equal(h5s_attr_i64(f, "samples"), KS);
    free(x);
}

static void check_partition(hid_t f, int64_t n, int P, const char *kind) {
    int32_t *owner = malloc((size_t)n * sizeof *owner);
    assert_non_null(owner);
    hsize_t ndims[1] = {(hsize_t)n}, pdims[1] = {(hsize_t)P};
    h5s_read(f, "partition/owner", 1, ndims, H5T_NATIVE_INT32, H5T_INTEGER, 4, owner);
    for (int64_t g = 0; g < n; g++)
        if (owner[g] != owner_of(g, P))
            fail_msg("partition/owner[%lld] = %d, expected %d", (long long)g, (int)owner[g],
                     (int)owner_of(g, P));
    long long owned[4], ghosts[4], boundary[4];
    double weight[4], wmax = 0, wsum = 0;
    assert_true(P <= 4);
    h5s_read(f, "partition/owned", 1, pdims, H5T_NATIVE_LLONG, H5T_INTEGER, 8, owned);
    h5s_read(f, "partition/ghosts", 1, pdims, H5T_NATIVE_LLONG, H5T_INTEGER, 8, ghosts);
    h5s_read(f, "partition/boundary", 1, pdims, H5T_NATIVE_LLONG, H5T_INTEGER, 8, boundary);
    h5s_read(f, "partition/weight", 1, pdims, H5T_NATIVE_DOUBLE, H5T_FLOAT, 8, weight);
    for (int r = 0; r < P; r++) {
        h5out_rank_info ri = rank_info(n, P, r);
        assert_int_equal(owned[r], ri.owned);
        assert_int_equal(ghosts[r], ri.ghosts);
        assert_int_equal(boundary[r], ri.boundary);
        assert_true(weight[r] == ri.weight);
        wmax = fmax(wmax, ri.weight);
        wsum += ri.weight;
    }
    hid_t g = H5Gopen2(f, "partition", H5P_DEFAULT);
    assert_true(g >= 0);
    assert_int_equal(h5s_attr_i64(g, "ranks"), P);
    h5s_check_str(g, "kind", kind);
    assert_int_equal(h5s_attr_i64(g, "edge_cut"), EDGE_CUT);
    double imb = h5s_attr_f64(g, "imbalance"), want = wmax * P / wsum;
    if (fabs(imb - want) > 1e-12 * want) fail_msg("imbalance %.17g, expected %.17g", imb, want);
    assert_true(H5Gclose(g) >= 0);
    free(owner);
}

/* Totals (counters summed, agreed counters and wall times the largest rank's)
 * and per-rank values. */
static void check_stats(hid_t f, int P, uint64_t events_passed) {
    hid_t g = H5Gopen2(f, "stats", H5P_DEFAULT);
    assert_true(g >= 0);
    hsize_t pdims[1] = {(hsize_t)P};
    for (size_t j = 0; j < NFIELDS; j++) {
        char path[64];
        snprintf(path, sizeof path, "per_rank/%s", fields[j].name);
        if (fields[j].is_double) {
            double v[4], want = wall_of(j, P - 1);
            h5s_read(g, path, 1, pdims, H5T_NATIVE_DOUBLE, H5T_FLOAT, 8, v);
            for (int r = 0; r < P; r++)
                assert_true(v[r] == wall_of(j, r));
            if (h5s_attr_f64(g, fields[j].name) != want)
                fail_msg("/stats %s = %g, expected %g", fields[j].name,
                         h5s_attr_f64(g, fields[j].name), want);
        } else {
            unsigned long long v[4], want = 0;
            h5s_read(g, path, 1, pdims, H5T_NATIVE_ULLONG, H5T_INTEGER, 8, v);
            for (int r = 0; r < P; r++) {
                assert_int_equal(v[r], counter_of(j, r));
                want = fields[j].agreed ? (counter_of(j, r) > want ? counter_of(j, r) : want)
                                        : want + counter_of(j, r);
            }
            assert_int_equal(h5s_attr_u64(g, fields[j].name), want);
        }
    }
    unsigned long long events = h5s_attr_u64(g, "events");
    assert_int_equal(events, events_passed);
    double wi = h5s_attr_f64(g, "wall_integrate");
    assert_true(h5s_attr_f64(g, "events_per_second") == (double)events / wi);
    assert_true(H5Gclose(g) >= 0);
}

/* Writes through comm; rank 0 of comm checks the file (the others go on to
 * the teardown's barrier, which waits for it). */
static void write_and_check(const char *path, int64_t n, MPI_Comm comm, const char *kind) {
    int P = comm_size(comm), r = comm_rank(comm);
    write_run(path, n, comm, kind);
    /* the events the ranks passed, added up here rather than by the writer */
    unsigned long long mine = stats_of(r).events, passed = 0;
    MPI_Allreduce(&mine, &passed, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
    if (r == 0) {
        hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
        assert_true(f >= 0);
        check_states(f, n);
        check_partition(f, n, P, kind);
        check_stats(f, P, passed);
        assert_true(H5Fclose(f) >= 0);
        assert_int_equal(h5out_info(path), 0);
    }
}

/* ---- tests ---- */

/* The blocks tile 0..n-1 in rank order. */
static void test_blocks(void **state) {
    char *path = h5s_join(*state, "out.h5");
    qmol_problem p = problem(NS);
    h5out_meta m = meta(&p, MPI_COMM_NULL);
    char err[1024];
    h5out *w = h5out_create(path, &m, err, sizeof err);
    assert_non_null(w);
    int64_t fc[2], *all = malloc(2 * (size_t)h5s_size() * sizeof *all);
    assert_non_null(all);
    h5out_block(w, &fc[0], &fc[1]);
    MPI_Allgather(fc, 2, MPI_INT64_T, all, 2, MPI_INT64_T, MPI_COMM_WORLD);
    int64_t next = 0;
    for (int r = 0; r < h5s_size(); r++) {
        assert_int_equal(all[2 * r], next);
        assert_true(all[2 * r + 1] >= NS / h5s_size());
        next += all[2 * r + 1];
    }
    assert_int_equal(next, NS);
    h5out_abort(w);
    free(all);
    free(path);
}

/* The writer's communicator numbers the ranks in reverse: its rank r (world
 * rank P - 1 - r) must write block r, and its rank 0 checks the file. */
static void test_distributed_write(void **state) {
    char *path = h5s_join(*state, "out.h5");
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, h5s_size() - 1 - h5s_rank(), &rev);
    assert_int_equal(comm_rank(rev), h5s_size() - 1 - h5s_rank());
    write_and_check(path, NS, rev, "metis");
    MPI_Comm_free(&rev);
    assert_true(h5s_exists(path));
    free(path);
}

/* n < P: the ranks past n have empty blocks (and pass NULL). */
static void test_empty_blocks(void **state) {
    char *path = h5s_join(*state, "out.h5");
    write_and_check(path, 2, MPI_COMM_WORLD, "block");
    free(path);
}

/* Two writers at once on disjoint halves of the ranks, each its own file:
 * nothing may use MPI_COMM_WORLD. */
static void test_sub_communicators(void **state) {
    int color = h5s_rank() % 2;
    char *path = h5s_join(*state, color ? "out1.h5" : "out.h5");
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, color, h5s_rank(), &half);
    write_and_check(path, NS, half, "file");
    MPI_Comm_free(&half);
    free(path);
}

/* Aborted on every rank: neither FILE nor FILE.partial is left. */
static void test_abort(void **state) {
    char *path = h5s_join(*state, "out.h5");
    char *partial = h5s_join(*state, "out.h5.partial");
    qmol_problem p = problem(NS);
    h5out_meta m = meta(&p, 0);
    char err[1024];
    h5out *w = h5out_create(path, &m, err, sizeof err);
    assert_non_null(w);
    int64_t first, count;
    h5out_block(w, &first, &count);
    double *x = calloc((size_t)count + 1, sizeof *x);
    assert_non_null(x);
    assert_int_equal(h5out_sample(w, 1, sample_time(1), x), 0);
    h5out_abort(w);
    MPI_Barrier(MPI_COMM_WORLD);
    assert_false(h5s_exists(path));
    assert_false(h5s_exists(partial));
    free(x);
    free(path);
    free(partial);
}

/* Finishing w must fail on every rank with want in the message, and leave
 * no file behind. */
static void expect_finish_fails(h5out *w, const char *path, const char *want) {
    char err[1024];
    qmol_stats s = stats_of(h5s_rank());
    assert_int_equal(h5out_finish(w, &s, err, sizeof err), -1);
    if (!strstr(err, want)) fail_msg("finish: '%s' does not say '%s'", err, want);
    size_t len = strlen(path) + sizeof ".partial";
    char *partial = malloc(len);
    assert_non_null(partial);
    snprintf(partial, len, "%s.partial", path);
    MPI_Barrier(MPI_COMM_WORLD);
    assert_false(h5s_exists(path));
    assert_false(h5s_exists(partial));
    free(partial);
}

/* One rank alone passes a bad sample number: every rank fails, no hang. */
static void test_sample_disagreement(void **state) {
    char *path = h5s_join(*state, "out.h5");
    qmol_problem p = problem(NS);
    h5out_meta m = meta(&p, 0);
    char err[1024];
    int P = h5s_size(), last = h5s_rank() == P - 1;
    double *x = calloc(NS, sizeof *x);
    assert_non_null(x);

    h5out *w = h5out_create(path, &m, err, sizeof err);
    assert_non_null(w);
    assert_int_equal(h5out_sample(w, last ? KS + 1 : 1, sample_time(1), x), -1);
    assert_non_null(h5out_error(w));
    assert_non_null(strstr(h5out_error(w), "out of range"));
    expect_finish_fails(w, path, "out of range");

    if (P > 1) { /* valid but different sample numbers */
        w = h5out_create(path, &m, err, sizeof err);
        assert_non_null(w);
        assert_int_equal(h5out_sample(w, last ? 2 : 1, sample_time(1), x), -1);
        assert_non_null(strstr(h5out_error(w), "different sample numbers"));
        expect_finish_fails(w, path, "different sample numbers");
    }
    char *partial = h5s_join(*state, "out.h5.partial");
    assert_false(h5s_exists(path));
    assert_false(h5s_exists(partial));
    free(partial);
    free(x);
    free(path);
}

/* A bad partition call found on one rank (the last) fails on all of them
 * with that rank's reason; the file cannot be finished. */
static void check_bad_partition(const char *path, int bad_owner, int bad_owned, const char *kind,
                                int twice, const char *want) {
    int P = h5s_size(), r = h5s_rank(), last = r == P - 1;
    qmol_problem p = problem(NS);
    h5out_meta m = meta(&p, 0);
    char err[1024];
    h5out *w = h5out_create(path, &m, err, sizeof err);
    assert_non_null(w);
    int64_t first, count;
    h5out_block(w, &first, &count);
    int32_t *owner = malloc((size_t)count * sizeof *owner);
    assert_non_null(owner);
    for (int64_t i = 0; i < count; i++)
        owner[i] = owner_of(first + i, P);
    if (bad_owner && last) owner[count - 1] = (int32_t)P;
    h5out_rank_info mine = rank_info(NS, P, r);
    if (bad_owned && last) mine.owned += 1;
    if (twice) assert_int_equal(h5out_partition(w, owner, &mine, EDGE_CUT, kind, err, 1024), 0);
    assert_int_equal(h5out_partition(w, owner, &mine, EDGE_CUT, kind, err, sizeof err), -1);
    if (!strstr(err, want)) fail_msg("partition: '%s' does not say '%s'", err, want);
    assert_non_null(h5out_error(w));
    double *x = calloc((size_t)count + 1, sizeof *x);
    assert_non_null(x);
    for (int64_t k = 1; k <= KS; k++)
        assert_int_equal(h5out_sample(w, k, sample_time(k), x), 0);
    expect_finish_fails(w, path, want);
    free(x);
    free(owner);
}

static void test_partition_errors(void **state) {
    char *path = h5s_join(*state, "out.h5");
    char want[64];
    snprintf(want, sizeof want, "state %d has owner %d", NS - 1, h5s_size());
    check_bad_partition(path, 1, 0, "metis", 0, want);
    snprintf(want, sizeof want, "rank %d owns", h5s_size() - 1);
    check_bad_partition(path, 0, 1, "metis", 0, want);
    check_bad_partition(path, 0, 0, "magic", 0, "partition kind 'magic' unknown");
    check_bad_partition(path, 0, 0, "block", 1, "already written");
    assert_false(h5s_exists(path));
    free(path);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_blocks, h5s_setup_dir, h5s_teardown_dir),
        cmocka_unit_test_setup_teardown(test_distributed_write, h5s_setup_dir, h5s_teardown_dir),
        cmocka_unit_test_setup_teardown(test_empty_blocks, h5s_setup_dir, h5s_teardown_dir),
        cmocka_unit_test_setup_teardown(test_sub_communicators, h5s_setup_dir, h5s_teardown_dir),
        cmocka_unit_test_setup_teardown(test_abort, h5s_setup_dir, h5s_teardown_dir),
        cmocka_unit_test_setup_teardown(test_sample_disagreement, h5s_setup_dir, h5s_teardown_dir),
        cmocka_unit_test_setup_teardown(test_partition_errors, h5s_setup_dir, h5s_teardown_dir),
    };
    return QMOL_RUN_TESTS(argc, argv, tests);
}
