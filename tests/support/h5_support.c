/* h5_support.c: temp dirs and checked HDF5 readers for the writer tests. */
#define _POSIX_C_SOURCE 200809L

#include "tests/support/h5_support.h"
#include "tests/support/test_support.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int h5s_rank(void) {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int h5s_size(void) {
    int p = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    return p;
}

char *h5s_join(const char *dir, const char *name) {
    size_t len = strlen(dir) + strlen(name) + 2;
    char *s = malloc(len);
    assert_non_null(s);
    snprintf(s, len, "%s/%s", dir, name);
    return s;
}

int h5s_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

int h5s_setup_dir(void **state) {
    char tmpl[] = "/tmp/qmol_h5out_XXXXXX";
    int ok = h5s_rank() != 0 || mkdtemp(tmpl) != NULL;
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(tmpl, (int)sizeof tmpl, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (!ok) return -1;
    *state = strdup(tmpl);
    return *state ? 0 : -1;
}

int h5s_teardown_dir(void **state) {
    const char *dir = *state;
    const char *names[] = {"out.h5", "out.h5.partial", "out1.h5", "text.h5", "plain.h5"};
    int rc = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (h5s_rank() == 0) {
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
            char *p = h5s_join(dir, names[i]);
            unlink(p);
            free(p);
        }
        rc = rmdir(dir);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(*state);
    return rc;
}

static void read_attr(hid_t obj, const char *name, hid_t mtype, void *v) {
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) fail_msg("attribute '%s' missing", name);
    assert_true(H5Aread(a, mtype, v) >= 0);
    assert_true(H5Aclose(a) >= 0);
}

double h5s_attr_f64(hid_t obj, const char *name) {
    double v = -1;
    read_attr(obj, name, H5T_NATIVE_DOUBLE, &v);
    return v;
}

long long h5s_attr_i64(hid_t obj, const char *name) {
    long long v = -1;
    read_attr(obj, name, H5T_NATIVE_LLONG, &v);
    return v;
}

unsigned long long h5s_attr_u64(hid_t obj, const char *name) {
    unsigned long long v = 0;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) fail_msg("attribute '%s' missing", name);
    hid_t t = H5Aget_type(a);
    assert_true(t >= 0);
    assert_int_equal(H5Tget_sign(t), H5T_SGN_NONE);
    assert_int_equal(H5Tget_size(t), 8);
    assert_true(H5Tclose(t) >= 0);
    assert_true(H5Aread(a, H5T_NATIVE_ULLONG, &v) >= 0);
    assert_true(H5Aclose(a) >= 0);
    return v;
}

void h5s_check_str(hid_t obj, const char *name, const char *want) {
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) fail_msg("attribute '%s' missing", name);
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

void h5s_read(hid_t file, const char *name, int rank, const hsize_t *want_dims, hid_t mtype,
              H5T_class_t ftype_class, size_t fsize, void *buf) {
    hid_t d = H5Dopen2(file, name, H5P_DEFAULT);
    if (d < 0) fail_msg("dataset '%s' missing", name);
    hid_t s = H5Dget_space(d);
    hid_t t = H5Dget_type(d);
    assert_true(s >= 0 && t >= 0);
    assert_int_equal(H5Tget_class(t), ftype_class);
    assert_int_equal(H5Tget_size(t), fsize);
    if (ftype_class == H5T_INTEGER) assert_int_equal(H5Tget_sign(t), H5Tget_sign(mtype));
    hsize_t dims[2] = {0, 0};
    assert_int_equal(H5Sget_simple_extent_ndims(s), rank);
    assert_int_equal(H5Sget_simple_extent_dims(s, dims, NULL), rank);
    for (int i = 0; i < rank; i++)
        if (dims[i] != want_dims[i])
            fail_msg("dataset '%s' dimension %d is %llu, expected %llu", name, i,
                     (unsigned long long)dims[i], (unsigned long long)want_dims[i]);
    assert_true(H5Dread(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) >= 0);
    assert_true(H5Tclose(t) >= 0);
    assert_true(H5Sclose(s) >= 0);
    assert_true(H5Dclose(d) >= 0);
}
