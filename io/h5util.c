/* h5util.c: helpers shared by the HDF5 writer and reader (see h5util.h). */
#include "io/h5util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

void h5u_set_err(char *err, size_t errlen, const char *fmt, ...) {
    if (!err || errlen == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

char *h5u_asprintf(const char *fmt, ...) {
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = len < 0 ? NULL : malloc((size_t)len + 1);
    if (s) vsnprintf(s, (size_t)len + 1, fmt, aq);
    va_end(aq);
    return s;
}

hid_t h5u_file_access(MPI_Comm comm, int collective_metadata) {
    int size = 1;
    MPI_Comm_size(comm, &size);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0) return fapl;
    int ok = size > 1 ? H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL) >= 0 &&
                            (!collective_metadata || (H5Pset_all_coll_metadata_ops(fapl, 1) >= 0 &&
                                                      H5Pset_coll_metadata_write(fapl, 1) >= 0))
                      : H5Pset_fapl_sec2(fapl) >= 0 && H5Pset_file_locking(fapl, 0, 1) >= 0;
    if (!ok) h5u_close(&fapl, H5Pclose);
    return fapl;
}

/* Whether obj's file is open through MPI-IO. */
static int on_mpio(hid_t obj) {
    hid_t file = H5Iget_file_id(obj);
    hid_t fapl = file >= 0 ? H5Fget_access_plist(file) : H5I_INVALID_HID;
    int mpio = fapl >= 0 && H5Pget_driver(fapl) == H5FD_MPIO;
    h5u_close(&fapl, H5Pclose);
    h5u_close(&file, H5Fclose);
    return mpio;
}

int h5u_early(hid_t dcpl) {
    return H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) >= 0 &&
                   H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY) >= 0
               ? 0
               : -1;
}

hid_t h5u_transfer(hid_t obj) {
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    if (dxpl >= 0 && on_mpio(obj) && H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) < 0)
        h5u_close(&dxpl, H5Pclose);
    return dxpl;
}

int h5u_flush(hid_t file, int durable) {
    if (H5Fflush(file, H5F_SCOPE_GLOBAL) < 0) return -1;
    if (!durable || on_mpio(file)) return 0; /* MPI-IO's flush is MPI_File_sync */
    void *handle = NULL;
    if (H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) < 0 || !handle) return -1;
    return fsync(*(int *)handle) == 0 ? 0 : -1;
}

/* Failing to switch printing off is harmless (only noisier). */
void h5u_quiet_on(h5u_quiet *q) {
    q->saved = H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data) >= 0;
    if (H5Eset_auto2(H5E_DEFAULT, NULL, NULL) < 0) q->saved = 0;
}

void h5u_quiet_off(h5u_quiet *q) {
    if (q->saved && H5Eset_auto2(H5E_DEFAULT, q->func, q->data) < 0) q->saved = 0;
}

static herr_t innermost_cb(unsigned n, const H5E_error2_t *e, void *data) {
    char **desc = data;
    if (n == 0 && e->desc && *e->desc) *desc = h5u_asprintf("%s", e->desc);
    return 0;
}

char *h5u_reason(void) {
    char *desc = NULL;
    if (H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost_cb, &desc) < 0) {
        free(desc);
        desc = NULL;
    }
    if (H5Eclear2(H5E_DEFAULT) < 0) { /* nothing more to do */
    }
    return desc;
}

static uint64_t mix(uint64_t z) { /* splitmix64's finalizer */
    z += 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

uint64_t h5u_checksum_part(const double *v, int64_t first, int64_t count) {
    uint64_t sum = 0;
    for (int64_t k = 0; k < count; k++) {
        uint64_t bits;
        memcpy(&bits, &v[k], sizeof bits);
        sum += mix(bits ^ mix((uint64_t)(first + k)));
    }
    return sum;
}

/* ---- the string attributes' checksum ---------------------------------- */

static uint64_t fnv1a(uint64_t h, const char *s, size_t len) {
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 0x100000001b3u;
    }
    return h;
}

typedef struct strings_sum {
    const char *object;
    uint64_t sum;
    int failed;
} strings_sum;

int h5u_attr_close(h5u_attr *a) {
    int rc = 0;
    if (a->space >= 0 && H5Sclose(a->space) < 0) rc = -1;
    if (a->type >= 0 && H5Tclose(a->type) < 0) rc = -1;
    if (a->id >= 0 && H5Aclose(a->id) < 0) rc = -1;
    a->id = a->type = a->space = H5I_INVALID_HID;
    return rc;
}

int h5u_attr_open(hid_t obj, const char *name, h5u_attr *a) {
    a->id = H5Aopen(obj, name, H5P_DEFAULT);
    a->type = a->id >= 0 ? H5Aget_type(a->id) : H5I_INVALID_HID;
    a->space = a->id >= 0 ? H5Aget_space(a->id) : H5I_INVALID_HID;
    if (a->id >= 0 && a->type >= 0 && a->space >= 0) return 0;
    h5u_attr_close(a);
    return -1;
}

static herr_t add_string(hid_t obj, const char *name, const H5A_info_t *info, void *data) {
    (void)info;
    strings_sum *ss = data;
    h5u_attr a;
    int ok = h5u_attr_open(obj, name, &a) == 0;
    if (ok && H5Tget_class(a.type) == H5T_STRING && H5Tis_variable_str(a.type) > 0 &&
        H5Sget_simple_extent_npoints(a.space) == 1) {
        char *v = NULL;
        hid_t m = H5Tcopy(a.type);
        ok = m >= 0 && H5Aread(a.id, m, &v) >= 0;
        if (ok) {
            uint64_t h = fnv1a(0xcbf29ce484222325u, ss->object, strlen(ss->object) + 1);
            h = fnv1a(h, name, strlen(name) + 1);
            h = fnv1a(h, v ? v : "", v ? strlen(v) : 0);
            ss->sum += h;
        }
        if (v) H5free_memory(v);
        if (m >= 0) H5Tclose(m);
    }
    if (ok && h5u_attr_close(&a) != 0) ok = 0;
    if (!ok) ss->failed = 1;
    return ok ? 0 : -1;
}

static herr_t add_object(hid_t root, const char *name, const H5O_info_t *info, void *data) {
    strings_sum *ss = data;
    if (info->num_attrs == 0) return 0; /* opening it costs (a sample view's layout is copied) */
    hid_t obj = H5Oopen(root, name, H5P_DEFAULT);
    if (obj < 0) return -1;
    ss->object = name;
    herr_t rc = H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, NULL, add_string, ss);
    H5Oclose(obj);
    return rc < 0 ? -1 : 0;
}

int h5u_strings_checksum(hid_t file, uint64_t *sum) {
    strings_sum ss = {"", 0, 0};
    if (H5Ovisit2(file, H5_INDEX_NAME, H5_ITER_INC, add_object, &ss, H5O_INFO_NUM_ATTRS) < 0 ||
        ss.failed)
        return -1;
    *sum = ss.sum;
    return 0;
}

int h5u_mark_strings(const h5u_ectx *c, hid_t file) {
    uint64_t sum = 0;
    if (h5u_strings_checksum(file, &sum)) {
        h5u_fail(c, "cannot read back the string attributes");
        return -1;
    }
    return h5u_set_attr(c, file, H5U_STRINGS_CHECKSUM, H5T_STD_U64LE, H5T_NATIVE_UINT64, &sum);
}

int h5u_strings_damaged(hid_t file) {
    uint64_t stored = 0, sum = 0;
    int found = h5u_get_attr(file, H5U_STRINGS_CHECKSUM, H5T_NATIVE_UINT64, &stored);
    if (found <= 0) return found; /* none (an older file), or unreadable */
    if (h5u_strings_checksum(file, &sum)) return -1;
    return stored != sum;
}

void h5u_empty_before_close(const char *path, int rank, MPI_Comm comm) {
    if (rank == 0 && path && truncate(path, 0) != 0) { /* best effort */
    }
    MPI_Barrier(comm);
}

/* file's directory (malloc'd), "./" when it has none; NULL out of memory */
static char *dir_of(const char *file) {
    const char *slash = file ? strrchr(file, '/') : NULL;
    return slash ? h5u_asprintf("%.*s", (int)(slash - file) + 1, file) : h5u_asprintf("./");
}

/* The operating system's reason for a failed write, when it has one: errno as
 * the failing call left it (MPI-IO does not pass it on to HDF5, whose own
 * text is "file write failed"), or else a full file system. NULL otherwise. */
static const char *system_reason(int eno, const char *file) {
    if (eno == ENOSPC || eno == EDQUOT || eno == EFBIG || eno == EIO || eno == EROFS)
        return strerror(eno);
    char *dir = dir_of(file);
    struct statvfs st;
    int full = dir && statvfs(dir, &st) == 0 && st.f_bavail == 0;
    free(dir);
    return full ? strerror(ENOSPC) : NULL;
}

int h5u_room(const char *file, double bytes, char *err, size_t errlen) {
    char *dir = dir_of(file);
    struct statvfs st;
    int known = dir && statvfs(dir, &st) == 0;
    free(dir);
    if (!known) return 0;
    double avail = (double)st.f_bavail * (double)st.f_frsize, need = bytes + H5U_ROOM_MARGIN;
    if (avail >= need) return 0;
    h5u_set_err(err, errlen,
                "%s: %s: the next write needs %.0f KiB with HDF5's metadata, %.0f KiB are free "
                "(nothing more was written to it)",
                file, strerror(ENOSPC), need / 1024.0, avail / 1024.0);
    return -1;
}

void h5u_fail(const h5u_ectx *c, const char *what) {
    int eno = errno;
    char *why = h5u_reason();
    const char *sys = system_reason(eno, c->file);
    if (sys && why)
        h5u_set_err(c->err, c->errlen, "%s: %s: %s (HDF5: %s)", c->file, what, sys, why);
    else if (sys)
        h5u_set_err(c->err, c->errlen, "%s: %s: %s", c->file, what, sys);
    else
        h5u_set_err(c->err, c->errlen, "%s: %s: %s", c->file, what, why ? why : "HDF5 error");
    free(why);
}

void h5u_close(hid_t *id, herr_t (*fn)(hid_t)) {
    if (*id >= 0 && fn(*id) < 0) { /* best effort: only used on error paths */
    }
    *id = H5I_INVALID_HID;
}

static void fail_named(const h5u_ectx *c, const char *fmt, const char *name) {
    char *what = h5u_asprintf(fmt, name);
    h5u_fail(c, what ? what : "cannot write an HDF5 object");
    free(what);
}

int h5u_put_attr(const h5u_ectx *c, hid_t obj, const char *name, hid_t ftype, hid_t mtype,
                 hsize_t len, const void *buf) {
    hid_t space = len ? H5Screate_simple(1, &len, NULL) : H5Screate(H5S_SCALAR);
    if (space < 0) {
        fail_named(c, "cannot write attribute '%s'", name);
        return -1;
    }
    hid_t a = H5Acreate2(obj, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a >= 0 && H5Awrite(a, mtype, buf) >= 0 ? 0 : -1;
    if (rc) fail_named(c, "cannot write attribute '%s'", name);
    if (a >= 0 && H5Aclose(a) < 0 && rc == 0) {
        fail_named(c, "cannot write attribute '%s'", name);
        rc = -1;
    }
    if (H5Sclose(space) < 0 && rc == 0) {
        fail_named(c, "cannot write attribute '%s'", name);
        rc = -1;
    }
    return rc;
}

/* Variable-length, which h5py reads as str. Its value lives in the file's
 * global heap, which HDF5 does not checksum (the 1.8 format checksums every
 * attribute message and the object headers, not that heap): a flipped bit
 * in a string's value goes unseen (docs/reliability.md). */
int h5u_put_str(const h5u_ectx *c, hid_t obj, const char *name, const char *value) {
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0 || H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
        fail_named(c, "cannot write attribute '%s'", name);
        if (t >= 0) h5u_close(&t, H5Tclose);
        return -1;
    }
    const char *v = value ? value : "";
    int rc = h5u_put_attr(c, obj, name, t, t, 0, &v);
    if (H5Tclose(t) < 0 && rc == 0) {
        fail_named(c, "cannot write attribute '%s'", name);
        rc = -1;
    }
    return rc;
}

int h5u_put_f64(const h5u_ectx *c, hid_t obj, const char *name, const double *v, hsize_t len) {
    return h5u_put_attr(c, obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, len, v);
}

int h5u_put_i64(const h5u_ectx *c, hid_t obj, const char *name, const int64_t *v, hsize_t len) {
    return h5u_put_attr(c, obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, len, v);
}

int h5u_put_u64(const h5u_ectx *c, hid_t obj, const char *name, const uint64_t *v) {
    return h5u_put_attr(c, obj, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, 0, v);
}

int h5u_set_attr(const h5u_ectx *c, hid_t obj, const char *name, hid_t ftype, hid_t mtype,
                 const void *v) {
    if (H5Aexists(obj, name) <= 0) return h5u_put_attr(c, obj, name, ftype, mtype, 0, v);
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    int ok = a >= 0 && H5Awrite(a, mtype, v) >= 0;
    if (a >= 0 && H5Aclose(a) < 0) ok = 0;
    if (!ok) fail_named(c, "cannot write attribute '%s'", name);
    return ok ? 0 : -1;
}

int h5u_get_attr(hid_t obj, const char *name, hid_t mtype, void *v) {
    htri_t exists = H5Aexists(obj, name);
    if (exists <= 0) return exists == 0 ? 0 : -1;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    int ok = a >= 0 && H5Aread(a, mtype, v) >= 0;
    if (a >= 0 && H5Aclose(a) < 0) ok = 0;
    return ok ? 1 : -1;
}

int h5u_put_int(const h5u_ectx *c, hid_t obj, const char *name, int v) {
    return h5u_put_attr(c, obj, name, H5T_STD_I32LE, H5T_NATIVE_INT, 0, &v);
}

int h5u_close_group(const h5u_ectx *c, hid_t g, const char *path, int rc) {
    if (g >= 0 && H5Gclose(g) < 0 && rc == 0) {
        fail_named(c, "cannot close group %s", path);
        return -1;
    }
    return rc;
}

hid_t h5u_group(const h5u_ectx *c, hid_t parent, const char *name) {
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    hid_t g = H5I_INVALID_HID;
    if (gcpl >= 0 &&
        H5Pset_attr_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) >= 0 &&
        H5Pset_link_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) >= 0)
        g = H5Gcreate2(parent, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
    if (g < 0) fail_named(c, "cannot create group '%s'", name);
    if (gcpl >= 0 && H5Pclose(gcpl) < 0 && g >= 0) {
        h5u_fail(c, "cannot close a property list");
        h5u_close(&g, H5Gclose);
    }
    return g;
}

static int write_1d(const h5u_ectx *c, hid_t parent, const char *name, hid_t ftype, hid_t mtype,
                    int64_t len, int64_t first, int64_t count, const void *buf, hid_t dxpl,
                    int fletcher) {
    hsize_t dims = (hsize_t)len, start = (hsize_t)first, cnt = (hsize_t)count;
    hsize_t mlen = count > 0 ? (hsize_t)count : 1;
    hid_t fspace = H5Screate_simple(1, &dims, NULL);
    hid_t mspace = H5Screate_simple(1, &mlen, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t d = H5I_INVALID_HID;
    /* checksummed (Fletcher32, which needs chunks): a damaged value is
     * refused when it is read, not used. Parallel HDF5 writes filtered data
     * only collectively, and a type conversion breaks collective transfers:
     * those few datasets (counts stored as integers) go without. */
    hsize_t chunk = dims < H5U_CHUNK_ELEMS ? dims : H5U_CHUNK_ELEMS;
    int checksum = fletcher && len > 0 && H5Tget_class(ftype) == H5Tget_class(mtype) &&
                   H5Tget_size(ftype) == H5Tget_size(mtype);
    hid_t own = checksum && dxpl == H5P_DEFAULT ? h5u_transfer(parent) : H5I_INVALID_HID;
    if (own >= 0) dxpl = own;
    if (fspace >= 0 && mspace >= 0 && dcpl >= 0 && h5u_early(dcpl) == 0 &&
        (!checksum || (H5Pset_chunk(dcpl, 1, &chunk) >= 0 && H5Pset_fletcher32(dcpl) >= 0)))
        d = H5Dcreate2(parent, name, ftype, fspace, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    int rc = d >= 0 ? 0 : -1;
    if (rc) {
        fail_named(c, "cannot create dataset '%s'", name);
    } else {
        int sel = count > 0 ? H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &cnt, NULL)
                            : (H5Sselect_none(fspace) < 0 ? -1 : H5Sselect_none(mspace));
        static const double none[1]; /* HDF5 wants a buffer even for nothing */
        /* an empty dataset has no storage to write to (HDF5 fails on it) */
        if (sel < 0 ||
            (len > 0 && H5Dwrite(d, mtype, mspace, fspace, dxpl, buf ? buf : none) < 0)) {
            fail_named(c, "cannot write dataset '%s'", name);
            rc = -1;
        }
    }
    hid_t *ids[] = {&d, &dcpl, &mspace, &fspace, &own};
    herr_t (*fns[])(hid_t) = {H5Dclose, H5Pclose, H5Sclose, H5Sclose, H5Pclose};
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        if (*ids[i] >= 0 && fns[i](*ids[i]) < 0 && rc == 0) {
            fail_named(c, "cannot close dataset '%s'", name);
            rc = -1;
        }
        *ids[i] = H5I_INVALID_HID;
    }
    return rc;
}

int h5u_write_1d(const h5u_ectx *c, hid_t parent, const char *name, hid_t ftype, hid_t mtype,
                 int64_t len, int64_t first, int64_t count, const void *buf, hid_t dxpl) {
    return write_1d(c, parent, name, ftype, mtype, len, first, count, buf, dxpl, 1);
}

int h5u_write_1d_plain(const h5u_ectx *c, hid_t parent, const char *name, hid_t ftype, hid_t mtype,
                       int64_t len, int64_t first, int64_t count, const void *buf, hid_t dxpl) {
    return write_1d(c, parent, name, ftype, mtype, len, first, count, buf, dxpl, 0);
}
