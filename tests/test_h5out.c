/* test_h5out.c: the HDF5 result writer, read back with the HDF5 C API.
 *
 * Runs on one rank or more (mpiexec -n 2: the writer's collective calls with
 * ranks that select nothing); rank 0 makes the temp dir and the files that
 * are not written by h5out.
 *
 * With QMOL_H5OUT_KEEP=FILE set, test_write_read also leaves a finished file
 * at FILE (n = 7, K = 3, t0 = 0, tf = 2) for tests/check_h5.py. */
#define _POSIX_C_SOURCE 200809L

#include "test_support.h"
#include "h5out.h"

#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

static qmol_stats fake_stats(void) {
    qmol_stats s = {0};
    s.events = 1000;
    s.rhs_evals = 4000;
    s.jac_evals = 12;
    s.steps = 5;
    s.wall_setup = 0.5;
    s.wall_integrate = 2.0;
    s.wall_output = 0.25;
    s.wall_total = 3.0;
    return s;
}

static char *join(const char *dir, const char *name) {
    size_t len = strlen(dir) + strlen(name) + 2;
    char *s = malloc(len);
    assert_non_null(s);
    snprintf(s, len, "%s/%s", dir, name);
    return s;
}

static int exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

static int rank(void) {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

/* Per-test temp dir, made by rank 0: state is the dir path (malloc'd). */
static int setup_dir(void **state) {
    char tmpl[] = "/tmp/qmol_h5out_XXXXXX";
    int ok = rank() != 0 || mkdtemp(tmpl) != NULL;
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(tmpl, (int)sizeof tmpl, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!ok) return -1;
    *state = strdup(tmpl);
    return *state ? 0 : -1;
}

static int teardown_dir(void **state) {
    const char *dir = *state;
    const char *names[] = {"out.h5", "out.h5.partial", "text.h5", "plain.h5"};
    int rc = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank() == 0) {
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
            char *p = join(dir, names[i]);
            unlink(p);
            free(p);
        }
        rc = rmdir(dir);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(*state);
    return rc;
}

/* Writes a complete file at path: K samples of the fake problem. */
static void write_file(const char *path) {
    qmol_problem p = fake_problem();
    h5out_meta m = fake_meta(&p);
    char err[512];
    h5out *w = h5out_create(path, &m, err, sizeof err);
    assert_non_null(w);
    double x[N];
    for (int64_t k = 1; k <= K; k++) {
        for (int64_t i = 0; i < N; i++)
            x[i] = state_value(k, i);
        assert_int_equal(h5out_sample(w, k, sample_time(k), x), 0);
    }
    assert_null(h5out_error(w));
    qmol_stats s = fake_stats();
    int rc = h5out_finish(w, &s, err, sizeof err);
    if (rc) print_error("h5out_finish: %s\n", err);
    assert_int_equal(rc, 0);
}

/* ---- readers ---- */

static double read_f64(hid_t obj, const char *name) {
    double v = -1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    assert_true(a >= 0);
    assert_true(H5Aread(a, H5T_NATIVE_DOUBLE, &v) >= 0);
    assert_true(H5Aclose(a) >= 0);
    return v;
}

static long long read_i64(hid_t obj, const char *name) {
    long long v = -1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    assert_true(a >= 0);
    assert_true(H5Aread(a, H5T_NATIVE_LLONG, &v) >= 0);
    assert_true(H5Aclose(a) >= 0);
    return v;
}

static unsigned long long read_u64(hid_t obj, const char *name) {
    unsigned long long v = 0;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    assert_true(a >= 0);
    hid_t t = H5Aget_type(a);
    assert_true(t >= 0);
    assert_int_equal(H5Tget_sign(t), H5T_SGN_NONE);
    assert_int_equal(H5Tget_size(t), 8);
    assert_true(H5Tclose(t) >= 0);
    assert_true(H5Aread(a, H5T_NATIVE_ULLONG, &v) >= 0);
    assert_true(H5Aclose(a) >= 0);
    return v;
}

static void check_str(hid_t obj, const char *name, const char *want) {
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    assert_true(a >= 0);
    hid_t t = H5Tcopy(H5T_C_S1);
    assert_true(t >= 0);
    assert_true(H5Tset_size(t, H5T_VARIABLE) >= 0);
    assert_true(H5Tset_cset(t, H5T_CSET_UTF8) >= 0);
    char *v = NULL;
    assert_true(H5Aread(a, t, &v) >= 0);
    assert_non_null(v);
    assert_string_equal(v, want);
    assert_true(H5free_memory(v) >= 0);
    assert_true(H5Tclose(t) >= 0);
    assert_true(H5Aclose(a) >= 0);
}

static void read_dataset(hid_t file, const char *name, int rank, const hsize_t *want_dims,
                         double *buf) {
    hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
    assert_true(d >= 0);
    hid_t s = H5Dget_space(d);
    assert_true(s >= 0);
    hsize_t dims[2] = {0, 0};
    assert_int_equal(H5Sget_simple_extent_ndims(s), rank);
    assert_int_equal(H5Sget_simple_extent_dims(s, dims, NULL), rank);
    for (int i = 0; i < rank; i++)
        assert_int_equal(dims[i], want_dims[i]);
    assert_true(H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    assert_true(H5Sclose(s) >= 0);
    assert_true(H5Dclose(d) >= 0);
}

/* ---- tests ---- */

static void test_write_read(void **state) {
    char *path = join(*state, "out.h5");
    char *partial = join(*state, "out.h5.partial");
    write_file(path);
    assert_true(exists(path));
    assert_false(exists(partial));

    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    assert_true(f >= 0);

    double t[K];
    hsize_t tdims[1] = {K};
    read_dataset(f, "time", 1, tdims, t);
    for (int k = 1; k <= K; k++)
        assert_true(t[k - 1] == sample_time(k));

    double x[K * N];
    hsize_t sdims[2] = {K, N};
    read_dataset(f, "states", 2, sdims, x);
    for (int k = 1; k <= K; k++)
        for (int i = 0; i < N; i++)
            assert_true(x[(k - 1) * N + i] == state_value(k, i));

    check_str(f, "layout", "qmol-1");
    check_str(f, "qmol_version", QMOL_VERSION);
    check_str(f, "problem", "fake");
    check_str(f, "method", "liqss2");
    assert_true(read_f64(f, "reltol") == 1e-6);
    assert_true(read_f64(f, "abstol") == 1e-9);
    assert_true(read_f64(f, "t0") == T0);
    assert_true(read_f64(f, "tf") == TF);
    assert_int_equal(read_i64(f, "samples"), K);
    assert_int_equal(read_i64(f, "n"), N);
    assert_true(read_f64(f, "param.alpha") == 0.25);
    assert_true(read_f64(f, "param.nx") == 7);
    assert_int_equal(read_i64(f, "ndims"), 1);
    assert_int_equal(read_i64(f, "dims"), N);
    assert_true(read_f64(f, "origin") == -1.0);
    assert_true(read_f64(f, "spacing") == 0.5);
    assert_int_equal(read_i64(f, "components"), 1);

    hid_t g = H5Gopen2(f, "stats", H5P_DEFAULT);
    assert_true(g >= 0);
    assert_int_equal(read_u64(g, "events"), 1000);
    assert_int_equal(read_u64(g, "rhs_evals"), 4000);
    assert_int_equal(read_u64(g, "jac_evals"), 12);
    assert_int_equal(read_u64(g, "pair_steps"), 0);
    assert_int_equal(read_u64(g, "steps"), 5);
    assert_int_equal(read_u64(g, "jac_setups"), 0);
    assert_true(read_f64(g, "wall_setup") == 0.5);
    assert_true(read_f64(g, "wall_integrate") == 2.0);
    assert_true(read_f64(g, "wall_output") == 0.25);
    assert_true(read_f64(g, "wall_total") == 3.0);
    assert_true(read_f64(g, "events_per_second") == 500.0);
    assert_true(H5Gclose(g) >= 0);
    assert_true(H5Fclose(f) >= 0);

    const char *keep = getenv("QMOL_H5OUT_KEEP");
    if (keep && *keep) {
        if (rank() == 0) unlink(keep);
        MPI_Barrier(MPI_COMM_WORLD);
        write_file(keep);
    }
    free(path);
    free(partial);
}

static void test_stale_partial_truncated(void **state) {
    char *path = join(*state, "out.h5");
    char *partial = join(*state, "out.h5.partial");
    if (rank() == 0) {
        FILE *fp = fopen(partial, "w");
        assert_non_null(fp);
        fputs("stale junk from an interrupted run\n", fp);
        assert_int_equal(fclose(fp), 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    write_file(path);
    assert_true(exists(path));
    assert_false(exists(partial));
    assert_int_equal(h5out_info(path), 0);
    free(path);
    free(partial);
}

static void test_abort_removes_file(void **state) {
    char *path = join(*state, "out.h5");
    char *partial = join(*state, "out.h5.partial");
    qmol_problem p = fake_problem();
    h5out_meta m = fake_meta(&p);
    char err[512];
    h5out *w = h5out_create(path, &m, err, sizeof err);
    assert_non_null(w);
    assert_true(exists(partial));
    double x[N] = {0};
    assert_int_equal(h5out_sample(w, 1, sample_time(1), x), 0);
    h5out_abort(w);
    assert_false(exists(partial));
    assert_false(exists(path));
    free(path);
    free(partial);
}

static void test_missing_samples_fail(void **state) {
    char *path = join(*state, "out.h5");
    char *partial = join(*state, "out.h5.partial");
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
    qmol_stats s = fake_stats();
    assert_int_equal(h5out_finish(w, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "out of range"));
    assert_false(exists(partial));
    assert_false(exists(path));

    w = h5out_create(path, &m, err, sizeof err);
    assert_non_null(w);
    assert_int_equal(h5out_sample(w, 1, sample_time(1), x), 0);
    assert_int_equal(h5out_finish(w, &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "only 1 of 3 samples"));
    assert_false(exists(partial));
    assert_false(exists(path));
    free(path);
    free(partial);
}

static void test_bad_directory(void **state) {
    char *path = join(*state, "no/such/dir/out.h5");
    qmol_problem p = fake_problem();
    h5out_meta m = fake_meta(&p);
    char err[512] = "";
    h5out *w = h5out_create(path, &m, err, sizeof err);
    assert_null(w);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "No such file or directory"));
    char *nodir = join(*state, "no");
    assert_false(exists(nodir));
    free(nodir);
    free(path);
}

/* A row longer than one chunk: chunks of 1 x 2^17 doubles (1 MiB); no grid. */
static void test_large_rows(void **state) {
    enum { BIG = 300000, KB = 2 };
    char *path = join(*state, "out.h5");
    qmol_problem p = {0};
    p.n = BIG;
    p.tf = 1.0;
    h5out_meta m = fake_meta(&p);
    m.tf = 1.0;
    m.samples = KB;
    m.def = NULL;
    m.param_values = NULL;
    char err[512];
    h5out *w = h5out_create(path, &m, err, sizeof err);
    assert_non_null(w);
    double *x = malloc(BIG * sizeof *x);
    assert_non_null(x);
    for (int k = 1; k <= KB; k++) {
        for (int i = 0; i < BIG; i++)
            x[i] = state_value(k, i);
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
    read_dataset(f, "states", 2, dims, y);
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

static void test_info(void **state) {
    char *path = join(*state, "out.h5");
    write_file(path);
    if (rank() != 0) { /* the rest is serial */
        free(path);
        return;
    }
    assert_int_equal(h5out_info(path), 0);

    char *missing = join(*state, "missing.h5");
    assert_int_equal(h5out_info(missing), 2);

    char *text = join(*state, "text.h5");
    FILE *fp = fopen(text, "w");
    assert_non_null(fp);
    fputs("this is not HDF5\n", fp);
    assert_int_equal(fclose(fp), 0);
    assert_int_equal(h5out_info(text), 2);

    char *plain = join(*state, "plain.h5");
    hid_t f = H5Fcreate(plain, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(f >= 0);
    assert_true(H5Fclose(f) >= 0);
    assert_int_equal(h5out_info(plain), 2);

    assert_int_equal(h5out_info(*state), 2); /* a directory */
    free(path);
    free(missing);
    free(text);
    free(plain);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_write_read, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_stale_partial_truncated, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_abort_removes_file, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_missing_samples_fail, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_bad_directory, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_large_rows, setup_dir, teardown_dir),
        cmocka_unit_test_setup_teardown(test_info, setup_dir, teardown_dir),
    };
    return QMOL_RUN_TESTS(argc, argv, tests);
}
