/* test_h5out.c: the HDF5 result writer, read back with the HDF5 C API.
 *
 * Runs on one rank or more (mpiexec -n 2: each rank writes its block of every
 * row, rows longer than a chunk split between ranks); rank 0 makes the temp
 * dir and the files that are not written by h5out. tests/io/mpi_h5out.c checks
 * the distributed writer at 1-4 ranks.
 *
 * With QMOL_H5OUT_KEEP=FILE set, test_write_read also leaves a finished file
 * with a /partition group at FILE (n = 7, K = 3, t0 = 0, tf = 2) for
 * tests/check_h5.py. */
#define _POSIX_C_SOURCE 200809L

#include "tests/support/test_support.h"
#include "tests/support/h5_support.h"
#include "io/h5out.h"

#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 7
#define K 3
#define T0 0.0
#define TF 2.0

static const qmol_param_def fake_params[] = {
    {"alpha", 0.5, 0.0, 10.0, 0, "diffusivity"},
    {"nx", 7, 1, 1e6, 1, "grid points"},
};

static const qmol_problem_def fake_def = {
    .api_version = QMOL_API_VERSION,
    .name = "fake",
    .summary = "a fake problem",
    .equations = "none",
    .params = fake_params,
    .nparams = 2,
    .create = NULL,
};

static const double fake_values[] = {0.25, 7};

static qmol_problem fake_problem(void) {
    qmol_problem p = {0};
    p.n = N;
    p.t0 = T0;
    p.tf = TF;
    p.ndims = 1;
    p.dims[0] = N;
    p.origin[0] = -1.0;
    p.spacing[0] = 0.5;
    p.components = 1;
    return p;
}

static h5out_meta fake_meta(const qmol_problem *p) {
    h5out_meta m = {0};
    m.problem = "fake";
    m.method = "liqss2";
    m.reltol = 1e-6;
    m.abstol = 1e-9;
    m.t0 = T0;
    m.tf = TF;
    m.samples = K;
    m.def = &fake_def;
    m.param_values = fake_values;
    m.prob = p;
    return m;
}

static double sample_time(int64_t k) {
    return T0 + (TF - T0) * (double)k / (double)K;
}

static double state_value(int64_t k, int64_t i) {
    return 10.0 * (double)k + 0.125 * (double)i;
}

/* Rank r's statistics: totals over P ranks are checked in test_write_read. */
static qmol_stats fake_stats(int r) {
    qmol_stats s = {0};
    s.events = 1000 * (uint64_t)(r + 1);
    s.row_evals = 4000;
    s.jac_rows = 12;
    s.nst = 5;
    s.wall_setup = 0.5;
    s.wall_integrate = 2.0 + r;
    s.wall_output = 0.25;
    s.wall_total = 3.0 + r;
    return s;
}

/* Writes K samples of the fake problem at path, each rank its block. */
static void write_samples(h5out *w, int64_t k_last) {
    int64_t first, count;
    h5out_block(w, &first, &count);
    double x[N];
    for (int64_t k = 1; k <= k_last; k++) {
        for (int64_t i = 0; i < count; i++)
            x[i] = state_value(k, first + i);
        assert_int_equal(h5out_sample(w, k, sample_time(k), x), 0);
    }
}

/* A block partition: every rank owns its own block of states. */
static void write_block_partition(h5out *w) {
    int64_t first, count;
    h5out_block(w, &first, &count);
    int32_t owner[N];
    for (int64_t i = 0; i < count; i++)
        owner[i] = h5s_rank();
    h5out_rank_info mine = {.owned = count, .weight = (double)count};
    char err[512];
    int rc = h5out_partition(w, owner, &mine, (int64_t)h5s_size() - 1, "block", err, sizeof err);
    if (rc) print_error("h5out_partition: %s\n", err);
    assert_int_equal(rc, 0);
}

/* Writes a complete file at path: K samples of the fake problem. */
static void write_file(const char *path, int with_partition) {
    qmol_problem p = fake_problem();
    h5out_meta m = fake_meta(&p);
    char err[512];
    h5out *w = h5out_create(path, &m, err, sizeof err);
    assert_non_null(w);
    if (with_partition) write_block_partition(w);
    write_samples(w, K);
    assert_null(h5out_error(w));
    qmol_stats s = fake_stats(h5s_rank());
    int rc = h5out_finish(w, &s, err, sizeof err);
    if (rc) print_error("h5out_finish: %s\n", err);
    assert_int_equal(rc, 0);
}

/* ---- tests ---- */

static void test_write_read(void **state) {
    char *path = h5s_join(*state, "out.h5");
    char *partial = h5s_join(*state, "out.h5.partial");
    write_file(path, 0);
    assert_true(h5s_exists(path));
    assert_false(h5s_exists(partial));

    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);

    double t[K];
    hsize_t tdims[1] = {K};
    h5s_read(f, "time", 1, tdims, H5T_NATIVE_DOUBLE, H5T_FLOAT, 8, t);
    for (int k = 1; k <= K; k++)
        assert_true(t[k - 1] == sample_time(k));

    double x[K * N];
    hsize_t sdims[2] = {K, N};
    h5s_read(f, "states", 2, sdims, H5T_NATIVE_DOUBLE, H5T_FLOAT, 8, x);
    for (int k = 1; k <= K; k++)
        for (int i = 0; i < N; i++)
            assert_true(x[(k - 1) * N + i] == state_value(k, i));

    h5s_check_str(f, "layout", "qmol-1");
    h5s_check_str(f, "qmol_version", QMOL_VERSION);
    h5s_check_str(f, "problem", "fake");
    h5s_check_str(f, "method", "liqss2");
    assert_true(h5s_attr_f64(f, "reltol") == 1e-6);
    assert_true(h5s_attr_f64(f, "abstol") == 1e-9);
    assert_true(h5s_attr_f64(f, "t0") == T0);
    assert_true(h5s_attr_f64(f, "tf") == TF);
    assert_int_equal(h5s_attr_i64(f, "samples"), K);
    assert_int_equal(h5s_attr_i64(f, "n"), N);
    assert_true(h5s_attr_f64(f, "param.alpha") == 0.25);
    assert_true(h5s_attr_f64(f, "param.nx") == 7);
    assert_int_equal(h5s_attr_i64(f, "ndims"), 1);
    assert_int_equal(h5s_attr_i64(f, "dims"), N);
    assert_true(h5s_attr_f64(f, "origin") == -1.0);
    assert_true(h5s_attr_f64(f, "spacing") == 0.5);
    assert_int_equal(h5s_attr_i64(f, "components"), 1);
    assert_int_equal(H5Lexists(f, "partition", H5P_DEFAULT), 0); /* never written */

    /* totals: counters summed, wall times the slowest rank */
    int P = h5s_size();
    hid_t g = H5Gopen2(f, "stats", H5P_DEFAULT);
    assert_true(g >= 0);
    unsigned long long events = 1000ull * (unsigned long long)(P * (P + 1) / 2);
    assert_int_equal(h5s_attr_u64(g, "events"), events);
    assert_int_equal(h5s_attr_u64(g, "row_evals"), 4000ull * P);
    assert_int_equal(h5s_attr_u64(g, "jac_rows"), 12ull * P);
    assert_int_equal(h5s_attr_u64(g, "pair_steps"), 0);
    assert_int_equal(h5s_attr_u64(g, "nst"), 5ull * P);
    assert_int_equal(h5s_attr_u64(g, "nje"), 0);
    assert_int_equal(h5s_attr_u64(g, "windows"), 0);
    assert_int_equal(h5s_attr_u64(g, "bytes_sent"), 0);
    assert_true(h5s_attr_f64(g, "wall_setup") == 0.5);
    assert_true(h5s_attr_f64(g, "wall_integrate") == 2.0 + (P - 1));
    assert_true(h5s_attr_f64(g, "wall_output") == 0.25);
    assert_true(h5s_attr_f64(g, "wall_total") == 3.0 + (P - 1));
    assert_true(h5s_attr_f64(g, "wall_wait") == 0.0);
    assert_true(h5s_attr_f64(g, "events_per_second") == (double)events / (2.0 + (P - 1)));
    unsigned long long ev[4];
    double wi[4];
    hsize_t pdims[1] = {(hsize_t)P};
    assert_true(P <= 4);
    h5s_read(g, "per_rank/events", 1, pdims, H5T_NATIVE_ULLONG, H5T_INTEGER, 8, ev);
    h5s_read(g, "per_rank/wall_integrate", 1, pdims, H5T_NATIVE_DOUBLE, H5T_FLOAT, 8, wi);
    for (int r = 0; r < P; r++) {
        assert_int_equal(ev[r], 1000ull * (unsigned long long)(r + 1));
        assert_true(wi[r] == 2.0 + r);
    }
    assert_true(H5Gclose(g) >= 0);
    assert_true(H5Fclose(f) >= 0);

    const char *keep = getenv("QMOL_H5OUT_KEEP");
    if (keep && *keep) {
        if (h5s_rank() == 0) unlink(keep);
        MPI_Barrier(MPI_COMM_WORLD);
        write_file(keep, 1);
    }
    free(path);
    free(partial);
}

/* A working file that a stopped or killed run left holds its samples: refused
 * (named) without replace, discarded with it (--overwrite). */
static void test_stale_partial(void **state) {
    char *path = h5s_join(*state, "out.h5");
    char *partial = h5s_join(*state, "out.h5.partial");
    static const char junk[] = "samples of an interrupted run\n";
    if (h5s_rank() == 0) {
        FILE *fp = fopen(partial, "w");
        assert_non_null(fp);
        fputs(junk, fp);
        assert_int_equal(fclose(fp), 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    qmol_problem p = fake_problem();
    h5out_meta m = fake_meta(&p);
    char err[512];
    assert_null(h5out_create(path, &m, err, sizeof err));
    assert_non_null(strstr(err, "out.h5.partial exists, left by a run that stopped"));
    if (h5s_rank() == 0) {
        char back[sizeof junk] = "";
        FILE *fp = fopen(partial, "r");
        assert_non_null(fp);
        assert_non_null(fgets(back, sizeof back, fp));
        fclose(fp);
        assert_string_equal(back, junk);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    m.replace = 1;
    h5out *w = h5out_create(path, &m, err, sizeof err);
    assert_non_null(w);
    write_samples(w, K);
    qmol_stats s = fake_stats(h5s_rank());
    assert_int_equal(h5out_finish(w, &s, err, sizeof err), 0);
    assert_true(h5s_exists(path));
    assert_false(h5s_exists(partial));
    if (h5s_rank() == 0) assert_int_equal(h5out_info(path), 0);
    free(path);
    free(partial);
}

static void test_abort_removes_file(void **state) {
    char *path = h5s_join(*state, "out.h5");
    char *partial = h5s_join(*state, "out.h5.partial");
    qmol_problem p = fake_problem();
    h5out_meta m = fake_meta(&p);
    char err[512];
    h5out *w = h5out_create(path, &m, err, sizeof err);
    assert_non_null(w);
    assert_true(h5s_exists(partial));
    write_samples(w, 1);
    h5out_abort(w);
    assert_false(h5s_exists(partial));
    assert_false(h5s_exists(path));
    free(path);
    free(partial);
}

static void test_missing_samples_fail(void **state) {
    char *path = h5s_join(*state, "out.h5");
    char *partial = h5s_join(*state, "out.h5.partial");
    qmol_problem p = fake_problem();
    h5out_meta m = fake_meta(&p);
    char err[512];
    h5out *w = h5out_create(path, &m, err, sizeof err);
    assert_non_null(w);
    double x[N] = {0};
    assert_int_equal(h5out_sample(w, 1, sample_time(1), x), 0);
    assert_int_equal(h5out_sample(w, K + 1, TF, x), -1); /* out of range */
    assert_non_null(h5out_error(w));
    assert_int_equal(h5out_sample(w, 2, sample_time(2), x), 0);
    qmol_stats s = fake_stats(h5s_rank());
    assert_int_equal(h5out_finish(w, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "out of range"));
    assert_false(h5s_exists(partial));
    assert_false(h5s_exists(path));

    w = h5out_create(path, &m, err, sizeof err);
    assert_non_null(w);
    assert_int_equal(h5out_sample(w, 1, sample_time(1), x), 0);
    assert_int_equal(h5out_finish(w, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "only 1 of 3 samples"));
    assert_false(h5s_exists(partial));
    assert_false(h5s_exists(path));
    free(path);
    free(partial);
}

static void test_bad_directory(void **state) {
    char *path = h5s_join(*state, "no/such/dir/out.h5");
    qmol_problem p = fake_problem();
    h5out_meta m = fake_meta(&p);
    char err[512] = "";
    h5out *w = h5out_create(path, &m, err, sizeof err);
    assert_null(w);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "No such file or directory"));
    char *nodir = h5s_join(*state, "no");
    assert_false(h5s_exists(nodir));
    free(nodir);
    free(path);
}

/* A row longer than one chunk: chunks of 1 x 2^17 doubles (1 MiB) whatever
 * the rank count; on 2 ranks each block ends inside a chunk. No grid. */
static void test_large_rows(void **state) {
    enum { BIG = 300000, KB = 2 };
    char *path = h5s_join(*state, "out.h5");
    qmol_problem p = {0};
    p.n = BIG;
    p.tf = 1.0;
    h5out_meta m = fake_meta(&p);
    m.tf = 1.0;
    m.samples = KB;
    m.def = NULL;
    m.param_values = NULL;
    m.comm = MPI_COMM_WORLD; /* explicitly, rather than 0 */
    char err[512];
    h5out *w = h5out_create(path, &m, err, sizeof err);
    assert_non_null(w);
    int64_t first, count;
    h5out_block(w, &first, &count);
    double *x = malloc(BIG * sizeof *x);
    assert_non_null(x);
    for (int k = 1; k <= KB; k++) {
        for (int64_t i = 0; i < count; i++)
            x[i] = state_value(k, first + i);
        assert_int_equal(h5out_sample(w, k, (double)k / KB, x), 0);
    }
    qmol_stats s = {0}; /* wall_integrate == 0: no events_per_second */
    assert_int_equal(h5out_finish(w, &s, err, sizeof err), 0);

    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);
    assert_int_equal(H5Aexists(f, "ndims"), 0);
    assert_int_equal(H5Aexists(f, "dims"), 0);
    hid_t d = H5Dopen2(f, "states", H5P_DEFAULT);
    assert_true(d >= 0);
    hid_t pl = H5Dget_create_plist(d);
    assert_true(pl >= 0);
    hsize_t chunk[2] = {0, 0};
    assert_int_equal(H5Pget_chunk(pl, 2, chunk), 2);
    assert_int_equal(chunk[0], 1);
    assert_int_equal(chunk[1], (1 << 20) / sizeof(double));
    assert_true(H5Pclose(pl) >= 0);
    assert_true(H5Dclose(d) >= 0);
    double *y = malloc((size_t)KB * BIG * sizeof *y);
    assert_non_null(y);
    hsize_t dims[2] = {KB, BIG};
    h5s_read(f, "states", 2, dims, H5T_NATIVE_DOUBLE, H5T_FLOAT, 8, y);
    for (int k = 1; k <= KB; k++)
        for (int i = 0; i < BIG; i++)
            if (y[(size_t)(k - 1) * BIG + i] != state_value(k, i))
                fail_msg("states[%d, %d] = %g", k - 1, i, y[(size_t)(k - 1) * BIG + i]);
    hid_t g = H5Gopen2(f, "stats", H5P_DEFAULT);
    assert_true(g >= 0);
    assert_int_equal(H5Aexists(g, "events_per_second"), 0);
    assert_true(H5Gclose(g) >= 0);
    assert_true(H5Fclose(f) >= 0);
    free(x);
    free(y);
    free(path);
}

/* Runs h5out_info(path) with stdout sent to out_path; returns its status and
 * the output in *text (malloc'd). */
static int info_output(const char *path, const char *out_path, char **text) {
    fflush(stdout);
    int saved = dup(1);
    assert_true(saved >= 0);
    FILE *fp = fopen(out_path, "w+");
    assert_non_null(fp);
    assert_true(dup2(fileno(fp), 1) >= 0);
    int rc = h5out_info(path);
    fflush(stdout);
    assert_true(dup2(saved, 1) >= 0);
    close(saved);
    assert_int_equal(fseek(fp, 0, SEEK_END), 0);
    long len = ftell(fp);
    assert_true(len >= 0);
    rewind(fp);
    *text = calloc((size_t)len + 1, 1);
    assert_non_null(*text);
    assert_int_equal(fread(*text, 1, (size_t)len, fp), (size_t)len);
    assert_int_equal(fclose(fp), 0);
    unlink(out_path);
    return rc;
}

static void test_info(void **state) {
    char *path = h5s_join(*state, "out.h5");
    write_file(path, 1);
    if (h5s_rank() != 0) { /* the rest is serial */
        free(path);
        return;
    }
    char *listing = h5s_join(*state, "text.h5");
    char *text = NULL;
    assert_int_equal(info_output(path, listing, &text), 0);
    int P = h5s_size();
    long long last = N - (long long)N * (P - 1) / P; /* the last, largest block */
    char want[160];
    snprintf(want, sizeof want, "partition    block, %d rank%s, edge cut %d, imbalance %.10g\n", P,
             P > 1 ? "s" : "", P - 1, (double)last * P / N);
    if (!strstr(text, want)) fail_msg("no line '%s' in:\n%s", want, text);
    /* the per-rank table only for several ranks; its last row is rank P - 1:
     * owned = its block, no ghosts or boundary, events 1000 P */
    assert_true((strstr(text, "per rank") != NULL) == (P > 1));
    if (P > 1) {
        char wi[16];
        snprintf(wi, sizeof wi, "%.3f s", 2.0 + (P - 1));
        snprintf(want, sizeof want, "%5d %11lld %9d %9d %14d %15s %10s\n", P - 1, last, 0, 0,
                 1000 * P, wi, "0.000 s");
        if (!strstr(text, want)) fail_msg("no row '%s' in:\n%s", want, text);
    }
    snprintf(want, sizeof want, "events             %d\n", 1000 * P * (P + 1) / 2);
    if (!strstr(text, want)) fail_msg("no line '%s' in:\n%s", want, text);
    free(text);
    free(listing);

    char *missing = h5s_join(*state, "missing.h5");
    assert_int_equal(h5out_info(missing), 2);

    char *textf = h5s_join(*state, "text.h5");
    FILE *fp = fopen(textf, "w");
    assert_non_null(fp);
    fputs("this is not HDF5\n", fp);
    assert_int_equal(fclose(fp), 0);
    assert_int_equal(h5out_info(textf), 2);

    char *plain = h5s_join(*state, "plain.h5");
    hid_t f = H5Fcreate(plain, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(f >= 0);
    assert_true(H5Fclose(f) >= 0);
    assert_int_equal(h5out_info(plain), 2);

    assert_int_equal(h5out_info(*state), 2); /* a directory */
    free(path);
    free(missing);
    free(textf);
    free(plain);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_write_read, h5s_setup_dir, h5s_teardown_dir),
        cmocka_unit_test_setup_teardown(test_stale_partial, h5s_setup_dir, h5s_teardown_dir),
        cmocka_unit_test_setup_teardown(test_abort_removes_file, h5s_setup_dir, h5s_teardown_dir),
        cmocka_unit_test_setup_teardown(test_missing_samples_fail, h5s_setup_dir, h5s_teardown_dir),
        cmocka_unit_test_setup_teardown(test_bad_directory, h5s_setup_dir, h5s_teardown_dir),
        cmocka_unit_test_setup_teardown(test_large_rows, h5s_setup_dir, h5s_teardown_dir),
        cmocka_unit_test_setup_teardown(test_info, h5s_setup_dir, h5s_teardown_dir),
    };
    return QMOL_RUN_TESTS(argc, argv, tests);
}
