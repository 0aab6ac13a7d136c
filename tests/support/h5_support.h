/* h5_support.h: what the HDF5 writer tests share: a temp dir per test (made
 * by rank 0, known to all ranks) and readers that fail the test (cmocka) when
 * an object is missing or has the wrong type or shape. */
#ifndef QMOL_H5_SUPPORT_H
#define QMOL_H5_SUPPORT_H

#include <hdf5.h>
#include <stdint.h>

/* cmocka setup/teardown: *state is the dir (malloc'd); teardown removes the
 * files the tests leave (out.h5, out.h5.partial, out1.h5, text.h5, plain.h5), then the
 * dir, and fails if anything else is left. Collective. */
int h5s_setup_dir(void **state);
int h5s_teardown_dir(void **state);

int h5s_rank(void);
int h5s_size(void);
char *h5s_join(const char *dir, const char *name); /* malloc'd "dir/name" */
int h5s_exists(const char *path);

/* Attributes of obj (scalar): the value, read through the native type. */
double h5s_attr_f64(hid_t obj, const char *name);
long long h5s_attr_i64(hid_t obj, const char *name);
/* Also checks that the stored type is an unsigned 64-bit integer. */
unsigned long long h5s_attr_u64(hid_t obj, const char *name);
void h5s_check_str(hid_t obj, const char *name, const char *want);

/* Reads the whole dataset name (rank dims, shape want_dims) as mtype into
 * buf; checks the stored type class and size (ftype_class, fsize bytes) and,
 * for integers, that the stored sign is mtype's. */
void h5s_read(hid_t file, const char *name, int rank, const hsize_t *want_dims, hid_t mtype,
              H5T_class_t ftype_class, size_t fsize, void *buf);

#endif
