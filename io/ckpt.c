/* ckpt.c: checkpoint files (ckpt.h). */
#define _POSIX_C_SOURCE 200809L
#include "io/ckpt.h"

#include "comm/agree.h"
#include "io/h5util.h"
#include "io/place.h"
#include "io/workfile.h"

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

struct ckpt_file {
    MPI_Comm comm;
    int rank, writing, failed;
    int lock_fd;          /* rank 0, writing: the working file's claim (workfile.h) */
    char *path, *partial; /* partial: the file written (NULL when reading) */
    hid_t file, group, dxpl;
    int64_t n, first, count;
    h5u_quiet quiet;
    char msg[1024];
};

/* The 1.8 file format and later: its metadata (superblock, object headers,
 * attributes' heaps and B-trees) carries checksums, as the datasets do
 * (h5u_write_1d), so a damaged checkpoint is refused, not used. */
static hid_t file_access(MPI_Comm comm) {
    hid_t fapl = h5u_file_access(comm, 0);
    if (fapl >= 0 && H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST) < 0)
        h5u_close(&fapl, H5Pclose);
    return fapl;
}

/* Closes every handle of f (best effort); returns -1 if the file's close
 * failed. */
static int close_handles(ckpt_file *f) {
    h5u_close(&f->dxpl, H5Pclose);
    h5u_close(&f->group, H5Gclose);
    int rc = f->file >= 0 && H5Fclose(f->file) < 0 ? -1 : 0;
    f->file = H5I_INVALID_HID;
    h5u_quiet_off(&f->quiet);
    return rc;
}

static void free_file(ckpt_file *f) {
    if (f->lock_fd >= 0) close(f->lock_fd);
    free(f->path), free(f->partial), free(f);
}

/* The common start of ckpt_create and ckpt_open: f with the file opened by
 * `open` (H5Fcreate or H5Fopen through a parallel access list). */
static ckpt_file *start(const char *path, MPI_Comm comm, int writing, int64_t n, int64_t first,
                        int64_t count) {
    ckpt_file *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->comm = comm;
    f->lock_fd = -1;
    MPI_Comm_rank(comm, &f->rank);
    f->writing = writing;
    f->n = n, f->first = first, f->count = count;
    f->file = f->group = f->dxpl = H5I_INVALID_HID;
    f->path = strdup(path);
    f->partial = writing ? h5u_asprintf("%s.partial", path) : NULL;
    if (!f->path || (writing && !f->partial)) f->failed = 1;
    /* a stale working file (a killed run's) is removed, a link never
     * followed, another live run's refused */
    if (writing && !f->failed && f->rank == 0) {
        f->lock_fd = workfile_claim(f->partial, WORKFILE_DISCARD, f->msg, sizeof f->msg);
        f->failed = f->lock_fd < 0;
    }
    if (writing) f->failed = comm_agree(comm, f->failed, f->msg, sizeof f->msg) != 0;
    h5u_quiet_on(&f->quiet);
    hid_t fapl = f->failed ? H5I_INVALID_HID : file_access(comm);
    if (fapl >= 0)
        f->file = writing ? H5Fcreate(f->partial, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)
                          : H5Fopen(path, H5F_ACC_RDONLY, fapl);
    h5u_close(&fapl, H5Pclose);
    f->dxpl = f->file >= 0 ? h5u_transfer(f->file) : H5I_INVALID_HID;
    if (f->file < 0 || f->dxpl < 0) f->failed = 1;
    return f;
}

/* Agrees on f's failure; on failure closes and frees f (a partial file is
 * removed) and copies the message into err. Returns f or NULL. */
static ckpt_file *started(ckpt_file *f, MPI_Comm comm, const char *path, const char *what,
                          char *err, size_t errlen) {
    char msg[sizeof f->msg] = "out of memory";
    int bad = !f || f->failed;
    if (f && bad) snprintf(msg, sizeof msg, "%s", f->msg[0] ? f->msg : "");
    if (f && bad && !msg[0]) snprintf(msg, sizeof msg, "%s: %s", path, what);
    if (!comm_agree(comm, bad, msg, sizeof msg)) return f;
    snprintf(err, errlen, "%s", msg);
    if (f) {
        if (f->writing) h5u_empty_before_close(f->partial, f->rank, f->comm);
        close_handles(f);
        if (f->partial && f->rank == 0) unlink(f->partial);
        free_file(f);
    }
    return NULL;
}

ckpt_file *ckpt_create(const char *path, MPI_Comm comm, const ckpt_info *info, int64_t first,
                       int64_t count, char *err, size_t errlen) {
    ckpt_file *f = start(path, comm, 1, info->n, first, count);
    if (f && !f->failed) {
        h5u_ectx c = {f->partial, f->msg, sizeof f->msg};
        f->failed = h5u_put_str(&c, f->file, "layout", CKPT_LAYOUT) ||
                    h5u_put_str(&c, f->file, "qmol_version", QMOL_VERSION) ||
                    h5u_put_f64(&c, f->file, "t", &info->t, 0) ||
                    h5u_put_i64(&c, f->file, "next_sample", &info->next_sample, 0) ||
                    h5u_put_i64(&c, f->file, "n", &info->n, 0) ||
                    h5u_put_str(&c, f->file, "args", info->args) ||
                    h5u_put_str(&c, f->file, "output", info->output) ||
                    (f->group = h5u_group(&c, f->file, CKPT_INTEGRATOR)) < 0;
    } else if (f && !f->msg[0]) { /* (a refused claim has said why) */
        h5u_ectx c = {f->partial ? f->partial : path, f->msg, sizeof f->msg};
        char *dir = NULL;
        const char *why = place_problem(path, &dir); /* the system's reason, if it has one */
        if (why)
            h5u_set_err(f->msg, sizeof f->msg, "%s: cannot create the checkpoint in %s: %s", c.file,
                        dir ? dir : "its directory", why);
        else
            h5u_fail(&c, "cannot create the checkpoint");
        free(dir);
    }
    return started(f, comm, path, "cannot create the checkpoint", err, errlen);
}

ckpt_file *ckpt_open(const char *path, MPI_Comm comm, int64_t n, int64_t first, int64_t count,
                     char *err, size_t errlen) {
    ckpt_file *f = start(path, comm, 0, n, first, count);
    if (f && !f->failed &&
        (H5Lexists(f->file, CKPT_INTEGRATOR, H5P_DEFAULT) <= 0 ||
         (f->group = H5Gopen2(f->file, CKPT_INTEGRATOR, H5P_DEFAULT)) < 0))
        f->failed = 1;
    return started(f, comm, path, "cannot open the checkpoint, or it has no integrator group", err,
                   errlen);
}

const char *ckpt_error(const ckpt_file *f) {
    return f->msg;
}

/* Reads [first, first + count) of the 1-D dataset name (n doubles). */
static int read_part(ckpt_file *f, const char *name, int64_t n, int64_t first, int64_t count,
                     double *buf) {
    hid_t d = H5Lexists(f->file, name, H5P_DEFAULT) > 0 ? H5Dopen2(f->file, name, H5P_DEFAULT)
                                                        : H5I_INVALID_HID;
    hid_t fs = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
    hsize_t len = (hsize_t)(count > 0 ? count : 1), start = (hsize_t)first, cnt = (hsize_t)count;
    hid_t ms = H5Screate_simple(1, &len, NULL);
    static double none[1];
    int rc = fs < 0 || ms < 0 || H5Sget_simple_extent_npoints(fs) != (hssize_t)n;
    if (!rc)
        rc = count > 0 ? H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &cnt, NULL) < 0
                       : (H5Sselect_none(fs) < 0 || H5Sselect_none(ms) < 0);
    if (!rc) rc = H5Dread(d, H5T_NATIVE_DOUBLE, ms, fs, f->dxpl, count > 0 ? buf : none) < 0;
    for (int64_t k = 0; !rc && k < count; k++)
        rc = isnan(buf[k]);
    h5u_close(&ms, H5Sclose);
    h5u_close(&fs, H5Sclose);
    h5u_close(&d, H5Dclose);
    return rc ? -1 : 0;
}

/* ---- checksums -----------------------------------------------------------
 * Each dataset carries the attribute "checksum" (h5u_checksum_part over all
 * of it): the parts of any split between ranks add up to it, so a checkpoint
 * written on P ranks is checked on any other number. A checkpoint without
 * the attribute (an older qmol's) is read unchecked. HDF5's Fletcher32 filter
 * would do it too, but parallel HDF5's filtered writes made each checkpoint
 * of 250,000 LIQSS2 states cost 0.1 s more (bench-checkpoint 1.03x -> 1.49x). */

/* The dataset's sum: this rank's part [first, first + count) added over the
 * ranks when the parts split it (split), else this rank's own (it holds all). */
static uint64_t dataset_sum(ckpt_file *f, const double *v, int64_t first, int64_t count,
                            int split) {
    uint64_t sum = h5u_checksum_part(v, first, count);
    if (split) MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_UINT64_T, MPI_SUM, f->comm);
    return sum;
}

/* Writes the checksum attribute on dataset name (collective). */
static int put_checksum(ckpt_file *f, const char *name, uint64_t sum) {
    h5u_ectx c = {f->partial, f->msg, sizeof f->msg};
    hid_t d = H5Dopen2(f->file, name, H5P_DEFAULT);
    int rc = d < 0 || h5u_put_u64(&c, d, "checksum", &sum) != 0;
    if (d >= 0 && H5Dclose(d) < 0) rc = 1;
    if (rc && !f->msg[0]) h5u_fail(&c, "cannot write a checksum");
    return rc ? -1 : 0;
}

/* 1 when dataset name has a checksum other than sum, 0 when it matches or
 * has none (-1 when it cannot be read). */
static int checksum_differs(ckpt_file *f, const char *name, uint64_t sum) {
    hid_t d = H5Dopen2(f->file, name, H5P_DEFAULT);
    if (d < 0) return -1;
    uint64_t stored = 0;
    int found = h5u_get_attr(d, "checksum", H5T_NATIVE_UINT64, &stored);
    H5Dclose(d);
    return found <= 0 ? found : stored != sum;
}

/* The first failure of a collective step, agreed. */
static int agreed(ckpt_file *f, int bad) {
    if (comm_agree(f->comm, bad, f->msg, sizeof f->msg)) {
        f->failed = 1;
        return -1;
    }
    return 0;
}

/* Collective: the 1-D dataset name of n doubles, this rank's part: a write
 * writes [first, first + write_count), a read reads [first, first + count);
 * split: the ranks' parts split the dataset (blocks), else every rank reads
 * all of it (a vector). Its checksum is written, and checked on a read. */
static int dataset(ckpt_file *f, const char *name, int64_t n, int64_t first, int64_t count,
                   int64_t write_count, int split, double *buf) {
    if (f->failed) return -1;
    int bad;
    /* room first: HDF5 cannot close a file whose flush failed (h5u_room) */
    if (f->writing &&
        agreed(f, f->rank == 0 && h5u_room(f->partial, 8.0 * (double)n, f->msg, sizeof f->msg)))
        return -1;
    if (f->writing) {
        h5u_ectx c = {f->partial, f->msg, sizeof f->msg};
        bad = h5u_write_1d_plain(&c, f->file, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, first,
                                 write_count, buf, f->dxpl) != 0;
        if (agreed(f, bad)) return -1;
        uint64_t sum = dataset_sum(f, buf, first, write_count, 1);
        return agreed(f, put_checksum(f, name, sum) != 0);
    }
    bad = read_part(f, name, n, first, count, buf) != 0;
    if (bad)
        snprintf(f->msg, sizeof f->msg,
                 "%s: cannot read dataset %s (%lld numbers): the checkpoint is "
                 "damaged or was written by another qmol version",
                 f->path, name, (long long)n);
    if (agreed(f, bad)) return -1;
    uint64_t sum = dataset_sum(f, buf, first, count, split);
    int differs = checksum_differs(f, name, sum);
    if (differs)
        snprintf(f->msg, sizeof f->msg,
                 "%s: dataset %s does not match its checksum: the checkpoint is damaged", f->path,
                 name);
    return agreed(f, differs != 0);
}

int ckpt_block(ckpt_file *f, const char *name, double *block) {
    return dataset(f, name, f->n, f->first, f->count, f->count, 1, block);
}

int ckpt_vector(ckpt_file *f, const char *name, int64_t len, double *values) {
    return dataset(f, name, len, 0, len, f->rank == 0 ? len : 0, 0, values);
}

int ckpt_scalar(ckpt_file *f, const char *name, double *value) {
    if (f->failed) return -1;
    int bad;
    if (f->writing) {
        h5u_ectx c = {f->partial, f->msg, sizeof f->msg};
        bad = h5u_put_f64(&c, f->group, name, value, 0) != 0;
    } else {
        hid_t a =
            H5Aexists(f->group, name) > 0 ? H5Aopen(f->group, name, H5P_DEFAULT) : H5I_INVALID_HID;
        bad = a < 0 || H5Aread(a, H5T_NATIVE_DOUBLE, value) < 0 || isnan(*value);
        h5u_close(&a, H5Aclose);
        if (bad)
            snprintf(f->msg, sizeof f->msg,
                     "%s: cannot read attribute %s/%s (a number): the checkpoint is "
                     "damaged or was written by another qmol version",
                     f->path, CKPT_INTEGRATOR, name);
    }
    return agreed(f, bad);
}

int ckpt_has_scalar(ckpt_file *f, const char *name) {
    return !f->writing && H5Aexists(f->group, name) > 0;
}

int ckpt_has_block(ckpt_file *f, const char *name) {
    if (f->writing) return 0;
    char path[256];
    snprintf(path, sizeof path, "%s", name);
    /* each link on the way: H5Lexists wants its parent to exist */
    for (char *slash = strchr(path, '/');; slash = strchr(slash + 1, '/')) {
        if (slash) *slash = '\0';
        int there = H5Lexists(f->file, path, H5P_DEFAULT) > 0;
        if (!there || !slash) return there;
        *slash = '/';
    }
}

int ckpt_close(ckpt_file *f, int commit, char *err, size_t errlen) {
    /* its strings' checksum, then flushed and agreed: a close whose flush
     * fails leaves the file open inside HDF5 (h5u_empty_before_close) */
    if (f->writing && !f->failed && commit) {
        h5u_ectx c = {f->partial, f->msg, sizeof f->msg};
        if (h5u_mark_strings(&c, f->file) != 0) {
            f->failed = 1;
        } else if (h5u_flush(f->file, 1) != 0) {
            h5u_fail(&c, "cannot write the checkpoint");
            f->failed = 1;
        }
    }
    if (f->writing && (comm_agree(f->comm, f->failed, NULL, 0) || !commit))
        h5u_empty_before_close(f->partial, f->rank, f->comm);
    int bad = close_handles(f) != 0 && f->writing && !f->failed;
    if (bad) {
        h5u_ectx c = {f->partial, f->msg, sizeof f->msg};
        h5u_fail(&c, "cannot close the checkpoint");
    }
    int rc = comm_agree(f->comm, bad || f->failed, f->msg, sizeof f->msg) ? -1 : 0;
    if (rc) snprintf(err, errlen, "%s", f->msg[0] ? f->msg : "cannot write the checkpoint");
    if (f->writing) {
        int failed = 0; /* every rank has closed the file: rank 0 puts it in place */
        if (f->rank == 0) {
            if (rc || !commit)
                unlink(f->partial);
            else
                failed = workfile_publish(f->partial, f->path, 1, f->msg, sizeof f->msg) != 0;
        }
        if (comm_agree(f->comm, failed, f->msg, sizeof f->msg)) {
            snprintf(err, errlen, "%s", f->msg);
            rc = -1;
        }
    }
    free_file(f);
    return rc;
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
    return h5u_get_attr(file, name, mtype, v) == 1 ? 0 : -1;
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
        int damaged = h5u_strings_damaged(file);
        if (damaged) {
            snprintf(err, errlen, "--restart %s: %s: the checkpoint is damaged", path,
                     damaged > 0 ? "its string attributes (args, output, ...) do not match their "
                                   "checksum (" H5U_STRINGS_CHECKSUM ")"
                                 : "its attributes cannot be read");
            rc = -1;
        } else if (!layout || strcmp(layout, CKPT_LAYOUT)) {
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
