/* ckpt.c: checkpoint files (ckpt.h). */
#define _POSIX_C_SOURCE 200809L
#include "ckpt.h"

#include "agree.h"
#include "h5util.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef QMOL_VERSION
#define QMOL_VERSION "unknown"
#endif

static hid_t mpio_fapl(MPI_Comm comm) {
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl >= 0 && H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL) < 0) h5u_close(&fapl, H5Pclose);
    return fapl;
}

int ckpt_write(const char *path, MPI_Comm comm, const ckpt_info *info, int64_t first, int64_t count,
               const double *x_block, const double *activity_block, char *err, size_t errlen) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    char *partial = h5u_asprintf("%s.partial", path);
    char msg[1024] = "";
    h5u_ectx c = {partial ? partial : path, msg, sizeof msg};
    h5u_quiet q;
    h5u_quiet_on(&q);
    hid_t fapl = partial ? mpio_fapl(comm) : H5I_INVALID_HID;
    hid_t file = fapl >= 0 ? H5Fcreate(partial, H5F_ACC_TRUNC, H5P_DEFAULT, fapl) : H5I_INVALID_HID;
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    int rc = file < 0 || dxpl < 0 || H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) < 0;
    if (rc) h5u_fail(&c, "cannot create the checkpoint");
    rc = rc || h5u_put_str(&c, file, "layout", CKPT_LAYOUT) ||
         h5u_put_str(&c, file, "qmol_version", QMOL_VERSION) ||
         h5u_put_f64(&c, file, "t", &info->t, 0) ||
         h5u_put_i64(&c, file, "next_sample", &info->next_sample, 0) ||
         h5u_put_i64(&c, file, "n", &info->n, 0) || h5u_put_str(&c, file, "args", info->args) ||
         h5u_put_str(&c, file, "output", info->output) ||
         h5u_write_1d(&c, file, "x", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, info->n, first, count,
                      x_block, dxpl) ||
         h5u_write_1d(&c, file, "activity", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, info->n, first,
                      count, activity_block, dxpl);
    h5u_close(&dxpl, H5Pclose);
    h5u_close(&fapl, H5Pclose);
    if (file >= 0 && H5Fclose(file) < 0 && !rc) {
        h5u_fail(&c, "cannot close the checkpoint");
        rc = 1;
    }
    h5u_quiet_off(&q);
    if (comm_agree(comm, rc, msg, sizeof msg)) {
        if (rank == 0 && partial) unlink(partial);
        snprintf(err, errlen, "%s", msg[0] ? msg : "cannot write the checkpoint");
        free(partial);
        return -1;
    }
    int eno = 0; /* every rank has closed the file: rank 0 puts it in place */
    if (rank == 0 && rename(partial, path) != 0) eno = errno ? errno : EIO;
    MPI_Bcast(&eno, 1, MPI_INT, 0, comm);
    if (eno) snprintf(err, errlen, "cannot rename %s to %s: %s", partial, path, strerror(eno));
    free(partial);
    return eno ? -1 : 0;
}

/* A string attribute, malloc'd, or NULL. */
static char *read_str(hid_t file, const char *name) {
    hid_t a = H5Aexists(file, name) > 0 ? H5Aopen(file, name, H5P_DEFAULT) : H5I_INVALID_HID;
    hid_t t = a >= 0 ? H5Aget_type(a) : H5I_INVALID_HID;
    char *out = NULL;
    if (t >= 0 && H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) > 0) {
        char *v = NULL;
        hid_t mt = H5Tcopy(t);
        if (mt >= 0 && H5Aread(a, mt, &v) >= 0 && v) {
            out = strdup(v);
            H5free_memory(v);
        }
        h5u_close(&mt, H5Tclose);
    }
    h5u_close(&t, H5Tclose);
    h5u_close(&a, H5Aclose);
    return out;
}

static int read_num(hid_t file, const char *name, hid_t mtype, void *v) {
    hid_t a = H5Aexists(file, name) > 0 ? H5Aopen(file, name, H5P_DEFAULT) : H5I_INVALID_HID;
    int rc = a >= 0 && H5Aread(a, mtype, v) >= 0 ? 0 : -1;
    h5u_close(&a, H5Aclose);
    return rc;
}

int ckpt_read_info(const char *path, ckpt_info *info, char *err, size_t errlen) {
    memset(info, 0, sizeof *info);
    if (access(path, R_OK) != 0) {
        snprintf(err, errlen, "--restart %s: cannot read: %s", path, strerror(errno));
        return -1;
    }
    h5u_quiet q;
    h5u_quiet_on(&q);
    hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    int rc = 0;
    if (file < 0) {
        snprintf(err, errlen, "--restart %s: not an HDF5 file, or a truncated one", path);
        rc = -1;
    } else {
        char *layout = read_str(file, "layout");
        if (!layout || strcmp(layout, CKPT_LAYOUT)) {
            snprintf(err, errlen, "--restart %s: not a qmol checkpoint (layout %s, expected %s)",
                     path, layout ? layout : "missing", CKPT_LAYOUT);
            rc = -1;
        } else {
            info->args = read_str(file, "args");
            info->output = read_str(file, "output");
            if (!info->args || !info->output || read_num(file, "t", H5T_NATIVE_DOUBLE, &info->t) ||
                read_num(file, "next_sample", H5T_NATIVE_INT64, &info->next_sample) ||
                read_num(file, "n", H5T_NATIVE_INT64, &info->n) || info->n < 1 ||
                info->next_sample < 1) {
                snprintf(err, errlen, "--restart %s: incomplete checkpoint (missing attributes)",
                         path);
                ckpt_info_free(info);
                rc = -1;
            }
        }
        free(layout);
        H5Fclose(file);
    }
    h5u_quiet_off(&q);
    return rc;
}

void ckpt_info_free(ckpt_info *info) {
    free(info->args);
    free(info->output);
    memset(info, 0, sizeof *info);
}

/* Reads [first, first + count) of the 1-D dataset name (n doubles). */
static int read_block(hid_t file, const char *name, int64_t n, int64_t first, int64_t count,
                      double *buf, hid_t dxpl) {
    hid_t d = H5Lexists(file, name, H5P_DEFAULT) > 0 ? H5Dopen2(file, name, H5P_DEFAULT)
                                                     : H5I_INVALID_HID;
    hid_t fs = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
    hsize_t len = (hsize_t)(count > 0 ? count : 1), start = (hsize_t)first, cnt = (hsize_t)count;
    hid_t ms = H5Screate_simple(1, &len, NULL);
    static double none[1];
    int rc = fs < 0 || ms < 0 || H5Sget_simple_extent_npoints(fs) != (hssize_t)n;
    if (!rc)
        rc = count > 0 ? H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &cnt, NULL) < 0
                       : (H5Sselect_none(fs) < 0 || H5Sselect_none(ms) < 0);
    if (!rc) rc = H5Dread(d, H5T_NATIVE_DOUBLE, ms, fs, dxpl, count > 0 ? buf : none) < 0;
    h5u_close(&ms, H5Sclose);
    h5u_close(&fs, H5Sclose);
    h5u_close(&d, H5Dclose);
    return rc ? -1 : 0;
}

int ckpt_read_block(const char *path, MPI_Comm comm, int64_t n, int64_t first, int64_t count,
                    double *x_block, double *activity_block, char *err, size_t errlen) {
    h5u_quiet q;
    h5u_quiet_on(&q);
    hid_t fapl = mpio_fapl(comm);
    hid_t file = fapl >= 0 ? H5Fopen(path, H5F_ACC_RDONLY, fapl) : H5I_INVALID_HID;
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    int rc = file < 0 || dxpl < 0 || H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) < 0;
    rc = rc || read_block(file, "x", n, first, count, x_block, dxpl) ||
         read_block(file, "activity", n, first, count, activity_block, dxpl);
    for (int64_t k = 0; !rc && k < count; k++)
        if (!isfinite(x_block[k])) rc = 1;
    h5u_close(&dxpl, H5Pclose);
    h5u_close(&fapl, H5Pclose);
    if (file >= 0) H5Fclose(file);
    h5u_quiet_off(&q);
    char msg[512];
    snprintf(msg, sizeof msg,
             "--restart %s: cannot read the states (datasets x and activity of %lld "
             "values, finite)",
             path, (long long)n);
    if (comm_agree(comm, rc, msg, sizeof msg)) {
        snprintf(err, errlen, "%s", msg);
        return -1;
    }
    return 0;
}
