/* h5out.c: the HDF5 result file, written through parallel HDF5 (MPI-IO).
 *
 * Every rank calls every function (HDF5 metadata operations and collective
 * transfers need all ranks). In this version rank 0 writes whole state rows;
 * write_row_segment() already takes an owned range [first, first + count) so
 * that a distributed run can pass each rank's own states.
 */
#define _POSIX_C_SOURCE 200809L

#include "h5out.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <mpi.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef QMOL_VERSION
#define QMOL_VERSION "unknown"
#endif

#define H5OUT_LAYOUT "qmol-1"
/* Largest chunk along the state axis: 1 MiB of doubles. */
#define H5OUT_CHUNK_ELEMS ((int64_t)((1 << 20) / sizeof(double)))

struct h5out {
    char *path, *partial;
    int rank;
    int64_t n, samples, nwritten;
    unsigned char *written; /* written[k - 1]: sample k was written */
    hid_t file, time, states, time_space, states_space, dxpl;
    char *error; /* first failure of h5out_sample, or NULL */
};

/* ---- small helpers ------------------------------------------------------ */

static void set_err(char *err, size_t errlen, const char *fmt, ...) {
    if (!err || errlen == 0) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* malloc'd printf; NULL when out of memory. */
static char *xasprintf(const char *fmt, ...) {
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

/* A growable string. On allocation failure it stops growing and sets failed. */
typedef struct sbuf {
    char *s;
    size_t len, cap;
    int failed;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) {
    if (b->failed) return;
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (len < 0) {
        b->failed = 1;
        va_end(aq);
        return;
    }
    size_t need = b->len + (size_t)len + 1;
    if (need > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < need)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->failed = 1;
            va_end(aq);
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, aq);
    va_end(aq);
    b->len += (size_t)len;
}

/* Takes the string out of b (NULL on failure or if empty and never written). */
static char *sb_take(sbuf *b) {
    if (b->failed) {
        free(b->s);
        b->s = NULL;
    }
    char *s = b->s;
    b->s = NULL;
    b->len = b->cap = 0;
    return s;
}

/* HDF5's automatic error printing is switched off inside our public calls so
 * that users see only our one-line messages; the previous handler is restored
 * on return. Failing to switch it off is harmless (only noisier). */
typedef struct quiet {
    H5E_auto2_t func;
    void *data;
    int saved;
} quiet;

static void quiet_on(quiet *q) {
    q->saved = H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data) >= 0;
    if (H5Eset_auto2(H5E_DEFAULT, NULL, NULL) < 0) q->saved = 0;
}

static void quiet_off(quiet *q) {
    if (q->saved && H5Eset_auto2(H5E_DEFAULT, q->func, q->data) < 0) q->saved = 0;
}

/* The innermost HDF5 error description (malloc'd, or NULL); clears the stack. */
static herr_t innermost_cb(unsigned n, const H5E_error2_t *e, void *data) {
    char **desc = data;
    if (n == 0 && e->desc && *e->desc) *desc = xasprintf("%s", e->desc);
    return 0;
}

static char *h5_reason(void) {
    char *desc = NULL;
    if (H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, innermost_cb, &desc) < 0) {
        free(desc);
        desc = NULL;
    }
    if (H5Eclear2(H5E_DEFAULT) < 0) { /* nothing more to do */
    }
    return desc;
}

/* Error context of the writer: which file, where the message goes. */
typedef struct ectx {
    const char *file;
    char *err;
    size_t errlen;
} ectx;

/* "<file>: <what>: <innermost HDF5 reason>" */
static void h5_fail(const ectx *c, const char *what) {
    char *why = h5_reason();
    set_err(c->err, c->errlen, "%s: %s: %s", c->file, what, why ? why : "HDF5 error");
    free(why);
}

static void h5_fail_attr(const ectx *c, const char *name) {
    char *what = xasprintf("cannot write attribute '%s'", name);
    h5_fail(c, what ? what : "cannot write an attribute");
    free(what);
}

static void close_id(hid_t *id, herr_t (*fn)(hid_t)) {
    if (*id >= 0 && fn(*id) < 0) { /* best effort: only used on error paths */
    }
    *id = H5I_INVALID_HID;
}

/* All ranks agree on success (1) or failure (0). */
static int all_ok(int ok) {
    int all = 0;
    if (MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) != MPI_SUCCESS) return 0;
    return all;
}

/* ---- attribute writers -------------------------------------------------- */

/* Writes attribute name on obj: a scalar if len == 0, else a 1-D array. */
static int put_attr(const ectx *c, hid_t obj, const char *name, hid_t ftype, hid_t mtype,
                    hsize_t len, const void *buf) {
    hid_t space = len ? H5Screate_simple(1, &len, NULL) : H5Screate(H5S_SCALAR);
    if (space < 0) {
        h5_fail_attr(c, name);
        return -1;
    }
    hid_t a = H5Acreate2(obj, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
    int rc = a >= 0 && H5Awrite(a, mtype, buf) >= 0 ? 0 : -1;
    if (rc) h5_fail_attr(c, name);
    if (a >= 0 && H5Aclose(a) < 0 && rc == 0) {
        h5_fail_attr(c, name);
        rc = -1;
    }
    if (H5Sclose(space) < 0 && rc == 0) {
        h5_fail_attr(c, name);
        rc = -1;
    }
    return rc;
}

static int put_str(const ectx *c, hid_t obj, const char *name, const char *value) {
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0 || H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0) {
        h5_fail_attr(c, name);
        if (t >= 0) close_id(&t, H5Tclose);
        return -1;
    }
    const char *v = value ? value : "";
    int rc = put_attr(c, obj, name, t, t, 0, &v);
    if (H5Tclose(t) < 0 && rc == 0) {
        h5_fail_attr(c, name);
        rc = -1;
    }
    return rc;
}

static int put_f64(const ectx *c, hid_t obj, const char *name, const double *v, hsize_t len) {
    return put_attr(c, obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, len, v);
}

static int put_i64(const ectx *c, hid_t obj, const char *name, const int64_t *v, hsize_t len) {
    return put_attr(c, obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, len, v);
}

static int put_u64(const ectx *c, hid_t obj, const char *name, const uint64_t *v) {
    return put_attr(c, obj, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, 0, v);
}

static int put_int(const ectx *c, hid_t obj, const char *name, int v) {
    return put_attr(c, obj, name, H5T_STD_I32LE, H5T_NATIVE_INT, 0, &v);
}

/* ---- writer ------------------------------------------------------------- */

static int write_root_attrs(const ectx *c, hid_t file, const h5out_meta *m) {
    const qmol_problem *p = m->prob;
    int64_t n = p->n, k = m->samples;
    if (put_str(c, file, "layout", H5OUT_LAYOUT) ||
        put_str(c, file, "qmol_version", QMOL_VERSION) || put_str(c, file, "problem", m->problem) ||
        put_str(c, file, "method", m->method) || put_f64(c, file, "reltol", &m->reltol, 0) ||
        put_f64(c, file, "abstol", &m->abstol, 0) || put_f64(c, file, "t0", &m->t0, 0) ||
        put_f64(c, file, "tf", &m->tf, 0) || put_i64(c, file, "samples", &k, 0) ||
        put_i64(c, file, "n", &n, 0))
        return -1;
    if (m->linsol && put_str(c, file, "linsol", m->linsol)) return -1;
    int np = m->def ? m->def->nparams : 0;
    for (int i = 0; i < np; i++) {
        const char *pn = m->def->params[i].name;
        char *name = xasprintf("param.%s", pn ? pn : "");
        if (!name) {
            set_err(c->err, c->errlen, "%s: out of memory", c->file);
            return -1;
        }
        int rc = put_f64(c, file, name, &m->param_values[i], 0);
        free(name);
        if (rc) return -1;
    }
    if (p->ndims > 0) {
        hsize_t nd = (hsize_t)p->ndims;
        int comps = p->components > 0 ? p->components : 1;
        if (put_int(c, file, "ndims", p->ndims) || put_i64(c, file, "dims", p->dims, nd) ||
            put_f64(c, file, "origin", p->origin, nd) ||
            put_f64(c, file, "spacing", p->spacing, nd) || put_int(c, file, "components", comps))
            return -1;
    }
    return 0;
}

/* Creates a dataset of doubles with the given shape (and chunking if chunk). */
static hid_t make_dataset(const ectx *c, hid_t file, const char *name, int rank,
                          const hsize_t *dims, const hsize_t *chunk) {
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t d = H5I_INVALID_HID;
    /* Every sample is written before finish, so skip writing fill values (with
     * parallel HDF5 the space is allocated at creation). */
    if (space >= 0 && dcpl >= 0 && H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) >= 0 &&
        (!chunk || H5Pset_chunk(dcpl, rank, chunk) >= 0))
        d = H5Dcreate2(file, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (d < 0) {
        char *what = xasprintf("cannot create dataset /%s", name);
        h5_fail(c, what ? what : "cannot create a dataset");
        free(what);
    }
    if (dcpl >= 0 && H5Pclose(dcpl) < 0 && d >= 0) {
        h5_fail(c, "cannot close a property list");
        close_id(&d, H5Dclose);
    }
    if (space >= 0 && H5Sclose(space) < 0 && d >= 0) {
        h5_fail(c, "cannot close a dataspace");
        close_id(&d, H5Dclose);
    }
    return d;
}

/* Creates the HDF5 file at w->partial with datasets and root attributes. */
static int build_file(h5out *w, const h5out_meta *m, const ectx *c) {
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    if (fapl < 0 || fcpl < 0 || H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL) < 0 ||
        H5Pset_all_coll_metadata_ops(fapl, 1) < 0 || H5Pset_coll_metadata_write(fapl, 1) < 0 ||
        H5Pset_attr_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) < 0) {
        h5_fail(c, "cannot set up file properties");
    } else {
        w->file = H5Fcreate(w->partial, H5F_ACC_TRUNC, fcpl, fapl);
        if (w->file < 0) h5_fail(c, "cannot create HDF5 file");
    }
    int rc = w->file >= 0 ? 0 : -1;
    if (fapl >= 0 && H5Pclose(fapl) < 0 && rc == 0) {
        h5_fail(c, "cannot close a property list");
        rc = -1;
    }
    if (fcpl >= 0 && H5Pclose(fcpl) < 0 && rc == 0) {
        h5_fail(c, "cannot close a property list");
        rc = -1;
    }
    if (rc) return -1;

    hsize_t tdims[1] = {(hsize_t)w->samples};
    hsize_t sdims[2] = {(hsize_t)w->samples, (hsize_t)w->n};
    hsize_t chunk[2] = {1, (hsize_t)(w->n < H5OUT_CHUNK_ELEMS ? w->n : H5OUT_CHUNK_ELEMS)};
    w->time = make_dataset(c, w->file, "time", 1, tdims, NULL);
    if (w->time < 0) return -1;
    w->states = make_dataset(c, w->file, "states", 2, sdims, chunk);
    if (w->states < 0) return -1;
    w->time_space = H5Dget_space(w->time);
    w->states_space = H5Dget_space(w->states);
    w->dxpl = H5Pcreate(H5P_DATASET_XFER);
    if (w->time_space < 0 || w->states_space < 0 || w->dxpl < 0 ||
        H5Pset_dxpl_mpio(w->dxpl, H5FD_MPIO_COLLECTIVE) < 0) {
        h5_fail(c, "cannot set up data transfers");
        return -1;
    }
    return write_root_attrs(c, w->file, m);
}

/* Closes every HDF5 object of w; returns -1 (with err) if one close failed. */
static int close_all(h5out *w, const ectx *c) {
    int rc = 0;
    hid_t *ids[] = {&w->time_space, &w->states_space, &w->time, &w->states, &w->dxpl};
    herr_t (*fns[])(hid_t) = {H5Sclose, H5Sclose, H5Dclose, H5Dclose, H5Pclose};
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        if (*ids[i] >= 0 && fns[i](*ids[i]) < 0 && rc == 0) {
            if (c) h5_fail(c, "cannot close an HDF5 object");
            rc = -1;
        }
        *ids[i] = H5I_INVALID_HID;
    }
    if (w->file >= 0 && H5Fclose(w->file) < 0 && rc == 0) {
        if (c) h5_fail(c, "cannot close HDF5 file");
        rc = -1;
    }
    w->file = H5I_INVALID_HID;
    return rc;
}

static void free_writer(h5out *w) {
    free(w->path);
    free(w->partial);
    free(w->written);
    free(w->error);
    free(w);
}

/* Closes everything, removes the partial file (rank 0, after all ranks closed
 * it; gone for every rank on return) and frees w. */
static void discard(h5out *w) {
    (void)close_all(w, NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    if (w->rank == 0 && w->partial) unlink(w->partial);
    MPI_Barrier(MPI_COMM_WORLD);
    free_writer(w);
}

h5out *h5out_create(const char *path, const h5out_meta *meta, char *err, size_t errlen) {
    set_err(err, errlen, "%s", "");
    int mpi = 0;
    if (MPI_Initialized(&mpi) != MPI_SUCCESS || !mpi) {
        set_err(err, errlen, "cannot create %s: MPI is not initialized", path ? path : "(null)");
        return NULL;
    }
    if (!path || !*path) {
        set_err(err, errlen, "no output file name given");
        return NULL;
    }
    if (!meta || !meta->prob || !meta->problem || !meta->method) {
        set_err(err, errlen, "cannot create %s: incomplete run description", path);
        return NULL;
    }
    const qmol_problem *p = meta->prob;
    if (p->n < 1) {
        set_err(err, errlen, "cannot create %s: the problem has no states (n = %lld)", path,
                (long long)p->n);
        return NULL;
    }
    if (meta->samples < 1) {
        set_err(err, errlen,
                "cannot create %s: the number of samples must be at least 1 (got %lld)", path,
                (long long)meta->samples);
        return NULL;
    }
    if (meta->def && meta->def->nparams > 0 && (!meta->param_values || !meta->def->params)) {
        set_err(err, errlen, "cannot create %s: parameter values missing", path);
        return NULL;
    }
    if (p->ndims < 0 || p->ndims > 3) {
        set_err(err, errlen, "cannot create %s: invalid grid dimension count %d", path, p->ndims);
        return NULL;
    }

    h5out *w = calloc(1, sizeof *w);
    if (!w) {
        set_err(err, errlen, "cannot create %s: out of memory", path);
        return NULL;
    }
    w->file = w->time = w->states = w->time_space = w->states_space = w->dxpl = H5I_INVALID_HID;
    w->n = p->n;
    w->samples = meta->samples;
    w->path = xasprintf("%s", path);
    w->partial = xasprintf("%s.partial", path);
    w->written = calloc((size_t)meta->samples, 1);
    if (!w->path || !w->partial || !w->written) {
        set_err(err, errlen, "cannot create %s: out of memory", path);
        free_writer(w);
        return NULL;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &w->rank);

    /* Check with open(2) first: MPI-IO errors do not carry errno, and this
     * gives "Permission denied" or "No such file or directory". */
    int eno = 0;
    if (w->rank == 0) {
        int fd = open(w->partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
        if (fd < 0)
            eno = errno ? errno : EIO;
        else
            close(fd);
    }
    MPI_Bcast(&eno, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (eno) {
        set_err(err, errlen, "cannot create output file %s: %s", w->partial, strerror(eno));
        free_writer(w);
        return NULL;
    }

    quiet q;
    quiet_on(&q);
    ectx c = {w->partial, err, errlen};
    int ok = build_file(w, meta, &c) == 0;
    if (!all_ok(ok)) {
        if (ok) set_err(err, errlen, "%s: output setup failed on another rank", w->partial);
        discard(w);
        w = NULL;
    }
    quiet_off(&q);
    return w;
}

/* Writes states[row, first : first + count) from seg (count values), as a
 * collective transfer: every rank calls it, a rank with count == 0 takes part
 * with an empty selection. */
static int write_row_segment(h5out *w, int64_t row, int64_t first, int64_t count,
                             const double *seg) {
    hsize_t start[2] = {(hsize_t)row, (hsize_t)first};
    hsize_t cnt[2] = {1, (hsize_t)count};
    hsize_t mlen = count > 0 ? (hsize_t)count : 1;
    hid_t mem = H5Screate_simple(1, &mlen, NULL);
    if (mem < 0) return -1;
    int rc = 0;
    if (count > 0) {
        if (H5Sselect_hyperslab(w->states_space, H5S_SELECT_SET, start, NULL, cnt, NULL) < 0)
            rc = -1;
    } else if (H5Sselect_none(w->states_space) < 0 || H5Sselect_none(mem) < 0) {
        rc = -1;
    }
    if (rc == 0 && H5Dwrite(w->states, H5T_NATIVE_DOUBLE, mem, w->states_space, w->dxpl, seg) < 0)
        rc = -1;
    if (H5Sclose(mem) < 0) rc = -1;
    return rc;
}

/* Writes time[row] = t (collective; only rank 0 selects the element). */
static int write_time(h5out *w, int64_t row, double t) {
    hsize_t one = 1, start = (hsize_t)row;
    hid_t mem = H5Screate_simple(1, &one, NULL);
    if (mem < 0) return -1;
    int rc = 0;
    if (w->rank == 0) {
        if (H5Sselect_hyperslab(w->time_space, H5S_SELECT_SET, &start, NULL, &one, NULL) < 0)
            rc = -1;
    } else if (H5Sselect_none(w->time_space) < 0 || H5Sselect_none(mem) < 0) {
        rc = -1;
    }
    if (rc == 0 && H5Dwrite(w->time, H5T_NATIVE_DOUBLE, mem, w->time_space, w->dxpl, &t) < 0)
        rc = -1;
    if (H5Sclose(mem) < 0) rc = -1;
    return rc;
}

int h5out_sample(h5out *w, int64_t k, double t, const double *x) {
    if (!w) return -1;
    if (k < 1 || k > w->samples || !x) {
        if (!w->error)
            w->error = x ? xasprintf("%s: sample %lld out of range 1..%lld", w->partial,
                                     (long long)k, (long long)w->samples)
                         : xasprintf("%s: sample %lld: no state vector", w->partial, (long long)k);
        return -1;
    }
    quiet q;
    quiet_on(&q);
    int64_t count = w->rank == 0 ? w->n : 0; /* later: this rank's owned range */
    int rc = 0;
    if (write_time(w, k - 1, t) < 0 || write_row_segment(w, k - 1, 0, count, x) < 0) {
        if (!w->error) {
            char *why = h5_reason();
            w->error = xasprintf("%s: cannot write sample %lld: %s", w->partial, (long long)k,
                                 why ? why : "HDF5 error");
            free(why);
        }
        rc = -1;
    } else if (!w->written[k - 1]) {
        w->written[k - 1] = 1;
        w->nwritten++;
    }
    quiet_off(&q);
    return rc;
}

const char *h5out_error(const h5out *w) {
    return w ? w->error : NULL;
}

static const struct {
    const char *name;
    size_t off;
    int is_double;
} stat_fields[] = {
    {"events", offsetof(qmol_stats, events), 0},
    {"rhs_evals", offsetof(qmol_stats, rhs_evals), 0},
    {"jac_evals", offsetof(qmol_stats, jac_evals), 0},
    {"pair_steps", offsetof(qmol_stats, pair_steps), 0},
    {"steps", offsetof(qmol_stats, steps), 0},
    {"newton_iters", offsetof(qmol_stats, newton_iters), 0},
    {"lin_iters", offsetof(qmol_stats, lin_iters), 0},
    {"err_test_fails", offsetof(qmol_stats, err_test_fails), 0},
    {"conv_fails", offsetof(qmol_stats, conv_fails), 0},
    {"jac_setups", offsetof(qmol_stats, jac_setups), 0},
    {"wall_setup", offsetof(qmol_stats, wall_setup), 1},
    {"wall_integrate", offsetof(qmol_stats, wall_integrate), 1},
    {"wall_output", offsetof(qmol_stats, wall_output), 1},
    {"wall_total", offsetof(qmol_stats, wall_total), 1},
};

static int write_stats(h5out *w, const qmol_stats *s, const ectx *c) {
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    hid_t g = H5I_INVALID_HID;
    if (gcpl >= 0 &&
        H5Pset_attr_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) >= 0)
        g = H5Gcreate2(w->file, "stats", H5P_DEFAULT, gcpl, H5P_DEFAULT);
    if (g < 0) h5_fail(c, "cannot create group /stats");
    int rc = g >= 0 ? 0 : -1;
    if (gcpl >= 0 && H5Pclose(gcpl) < 0 && rc == 0) {
        h5_fail(c, "cannot close a property list");
        rc = -1;
    }
    const char *base = (const char *)s;
    for (size_t i = 0; rc == 0 && i < sizeof(stat_fields) / sizeof(stat_fields[0]); i++) {
        const void *v = base + stat_fields[i].off;
        rc = stat_fields[i].is_double ? put_f64(c, g, stat_fields[i].name, v, 0)
                                      : put_u64(c, g, stat_fields[i].name, v);
    }
    if (rc == 0 && s->wall_integrate > 0) {
        double eps = (double)s->events / s->wall_integrate;
        rc = put_f64(c, g, "events_per_second", &eps, 0);
    }
    if (g >= 0 && H5Gclose(g) < 0 && rc == 0) {
        h5_fail(c, "cannot close group /stats");
        rc = -1;
    }
    return rc;
}

int h5out_finish(h5out *w, const qmol_stats *stats, char *err, size_t errlen) {
    set_err(err, errlen, "%s", "");
    if (!w) {
        set_err(err, errlen, "no output file to finish");
        return -1;
    }
    quiet q;
    quiet_on(&q);
    ectx c = {w->partial, err, errlen};
    int ok = 1;
    if (w->error) {
        set_err(err, errlen, "%s", w->error);
        ok = 0;
    } else if (w->nwritten < w->samples) {
        set_err(err, errlen, "%s: only %lld of %lld samples were written", w->partial,
                (long long)w->nwritten, (long long)w->samples);
        ok = 0;
    } else if (!stats) {
        set_err(err, errlen, "%s: no run statistics given", w->partial);
        ok = 0;
    }
    if (ok && write_stats(w, stats, &c) < 0) ok = 0;
    if (!all_ok(ok)) {
        if (ok) set_err(err, errlen, "%s: output failed on another rank", w->partial);
        discard(w);
        quiet_off(&q);
        return -1;
    }
    ok = close_all(w, &c) == 0;
    if (!all_ok(ok)) {
        if (ok) set_err(err, errlen, "%s: closing failed on another rank", w->partial);
        discard(w);
        quiet_off(&q);
        return -1;
    }
    quiet_off(&q);

    /* Every rank has closed the file: rename it on rank 0. On failure the
     * complete data stays in the .partial file, which we keep. */
    MPI_Barrier(MPI_COMM_WORLD);
    int eno = 0;
    if (w->rank == 0 && rename(w->partial, w->path) != 0) eno = errno ? errno : EIO;
    MPI_Bcast(&eno, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (eno)
        set_err(err, errlen, "cannot rename %s to %s: %s (the results are in %s)", w->partial,
                w->path, strerror(eno), w->partial);
    free_writer(w);
    return eno ? -1 : 0;
}

void h5out_abort(h5out *w) {
    if (!w) return;
    quiet q;
    quiet_on(&q);
    discard(w);
    quiet_off(&q);
}

/* ---- h5out_info ---------------------------------------------------------- */

/* An attribute's value as text (arrays joined with ", "); NULL if missing. */
static char *attr_text(hid_t obj, const char *name) {
    if (H5Aexists(obj, name) <= 0) return NULL;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    hid_t t = a >= 0 ? H5Aget_type(a) : H5I_INVALID_HID;
    hid_t s = a >= 0 ? H5Aget_space(a) : H5I_INVALID_HID;
    hssize_t np = s >= 0 ? H5Sget_simple_extent_npoints(s) : -1;
    H5T_class_t cls = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
    sbuf b = {0};
    int bad = np < 0 || cls == H5T_NO_CLASS;
    if (bad) {
        /* fall through to cleanup */
    } else if (cls == H5T_STRING) {
        htri_t vlen = np == 1 ? H5Tis_variable_str(t) : -1;
        size_t size = H5Tget_size(t);
        hid_t m = H5Tcopy(t); /* same character set: no conversion needed */
        if (vlen < 0 || m < 0) {
            bad = 1;
        } else if (vlen) {
            char *v = NULL;
            if (H5Aread(a, m, &v) < 0) {
                bad = 1;
            } else {
                sb_printf(&b, "%s", v ? v : "");
                if (v && H5free_memory(v) < 0) bad = 1;
            }
        } else {
            char *v = size > 0 ? calloc(size + 1, 1) : NULL;
            if (!v || H5Tset_strpad(m, H5T_STR_NULLTERM) < 0 || H5Tset_size(m, size + 1) < 0 ||
                H5Aread(a, m, v) < 0)
                bad = 1;
            else
                sb_printf(&b, "%s", v);
            free(v);
        }
        if (m >= 0 && H5Tclose(m) < 0) bad = 1;
    } else if (cls == H5T_INTEGER || cls == H5T_FLOAT) {
        size_t cnt = np > 0 ? (size_t)np : 1;
        H5T_sign_t sign = cls == H5T_INTEGER ? H5Tget_sign(t) : H5T_SGN_2;
        double *dv = cls == H5T_FLOAT ? malloc(cnt * sizeof *dv) : NULL;
        long long *iv =
            cls == H5T_INTEGER && sign != H5T_SGN_NONE ? malloc(cnt * sizeof *iv) : NULL;
        unsigned long long *uv =
            cls == H5T_INTEGER && sign == H5T_SGN_NONE ? malloc(cnt * sizeof *uv) : NULL;
        if (sign == H5T_SGN_ERROR || (!dv && !iv && !uv) ||
            (dv && H5Aread(a, H5T_NATIVE_DOUBLE, dv) < 0) ||
            (iv && H5Aread(a, H5T_NATIVE_LLONG, iv) < 0) ||
            (uv && H5Aread(a, H5T_NATIVE_ULLONG, uv) < 0)) {
            bad = 1;
        } else {
            for (size_t i = 0; i < (size_t)np; i++) {
                const char *sep = i ? ", " : "";
                if (dv)
                    sb_printf(&b, "%s%.10g", sep, dv[i]);
                else if (iv)
                    sb_printf(&b, "%s%lld", sep, iv[i]);
                else
                    sb_printf(&b, "%s%llu", sep, uv[i]);
            }
        }
        free(dv);
        free(iv);
        free(uv);
    } else {
        sb_printf(&b, "(unsupported type)");
    }
    if (s >= 0 && H5Sclose(s) < 0) bad = 1;
    if (t >= 0 && H5Tclose(t) < 0) bad = 1;
    if (a >= 0 && H5Aclose(a) < 0) bad = 1;
    if (bad) {
        free(sb_take(&b));
        return xasprintf("(unreadable)");
    }
    if (!b.s) sb_printf(&b, "%s", "");
    return sb_take(&b);
}

/* Names of the attributes of an object, in creation order when tracked. */
typedef struct namelist {
    char **names;
    size_t count, cap;
    int failed;
} namelist;

static herr_t collect_cb(hid_t obj, const char *name, const H5A_info_t *info, void *data) {
    (void)obj;
    (void)info;
    namelist *l = data;
    if (l->count == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char **names = realloc(l->names, cap * sizeof *names);
        if (!names) {
            l->failed = 1;
            return -1;
        }
        l->names = names;
        l->cap = cap;
    }
    if (!(l->names[l->count] = xasprintf("%s", name))) {
        l->failed = 1;
        return -1;
    }
    l->count++;
    return 0;
}

static void namelist_free(namelist *l) {
    for (size_t i = 0; i < l->count; i++)
        free(l->names[i]);
    free(l->names);
    memset(l, 0, sizeof *l);
}

static int collect_attrs(hid_t obj, namelist *l) {
    hsize_t idx = 0;
    if (H5Aiterate2(obj, H5_INDEX_CRT_ORDER, H5_ITER_INC, &idx, collect_cb, l) >= 0) return 0;
    namelist_free(l);
    idx = 0;
    if (H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &idx, collect_cb, l) >= 0) return 0;
    namelist_free(l);
    return -1;
}

static void row(const char *label, const char *value) {
    printf("%-12s %s\n", label, value ? value : "(missing)");
}

static void row_attr(hid_t obj, const char *label, const char *name) {
    char *v = attr_text(obj, name);
    row(label, v);
    free(v);
}

/* "/states  K x n doubles, chunks 1 x c" */
static void row_states(hid_t file) {
    htri_t ex = H5Lexists(file, "states", H5P_DEFAULT);
    hid_t d = ex > 0 ? H5Dopen2(file, "states", H5P_DEFAULT) : H5I_INVALID_HID;
    hid_t s = d >= 0 ? H5Dget_space(d) : H5I_INVALID_HID;
    hid_t pl = d >= 0 ? H5Dget_create_plist(d) : H5I_INVALID_HID;
    hsize_t dims[2] = {0, 0}, chunk[2] = {0, 0};
    int ok = s >= 0 && pl >= 0 && H5Sget_simple_extent_ndims(s) == 2 &&
             H5Sget_simple_extent_dims(s, dims, NULL) == 2;
    int chunked = ok && H5Pget_layout(pl) == H5D_CHUNKED && H5Pget_chunk(pl, 2, chunk) == 2;
    if (pl >= 0 && H5Pclose(pl) < 0) ok = 0;
    if (s >= 0 && H5Sclose(s) < 0) ok = 0;
    if (d >= 0 && H5Dclose(d) < 0) ok = 0;
    if (H5Eclear2(H5E_DEFAULT) < 0) { /* nothing to clear */
    }
    if (!ok) {
        row("states", ex > 0 ? "(unreadable)" : "(missing)");
        return;
    }
    char *v = chunked ? xasprintf("%llu x %llu doubles, chunks %llu x %llu",
                                  (unsigned long long)dims[0], (unsigned long long)dims[1],
                                  (unsigned long long)chunk[0], (unsigned long long)chunk[1])
                      : xasprintf("%llu x %llu doubles", (unsigned long long)dims[0],
                                  (unsigned long long)dims[1]);
    row("states", v ? v : "(out of memory)");
    free(v);
}

static void print_info(const char *path, hid_t file) {
    char *ver = attr_text(file, "qmol_version");
    char *lay = xasprintf("%s, written by qmol %s", H5OUT_LAYOUT, ver ? ver : "?");
    free(ver);
    row("file", path);
    row("layout", lay ? lay : H5OUT_LAYOUT);
    free(lay);
    row_attr(file, "problem", "problem");
    row_attr(file, "method", "method");
    char *rt = attr_text(file, "reltol"), *at = attr_text(file, "abstol");
    char *tol = xasprintf("reltol %s, abstol %s", rt ? rt : "?", at ? at : "?");
    row("tolerances", tol);
    free(rt);
    free(at);
    free(tol);
    char *t0 = attr_text(file, "t0"), *tf = attr_text(file, "tf");
    char *span = xasprintf("%s .. %s", t0 ? t0 : "?", tf ? tf : "?");
    row("time", span);
    free(t0);
    free(tf);
    free(span);
    row_attr(file, "n", "n");
    row_attr(file, "samples", "samples");
    row_states(file);

    namelist l = {0};
    const char *label = "parameters";
    if (collect_attrs(file, &l) == 0) {
        for (size_t i = 0; i < l.count; i++) {
            if (strncmp(l.names[i], "param.", 6) != 0) continue;
            char *v = attr_text(file, l.names[i]);
            char *line = xasprintf("%s = %s", l.names[i] + 6, v ? v : "?");
            row(label, line);
            label = "";
            free(v);
            free(line);
        }
    }
    if (*label) row(label, "(none)");
    namelist_free(&l);

    char *nd = attr_text(file, "ndims");
    if (nd) {
        char *dims = attr_text(file, "dims"), *org = attr_text(file, "origin");
        char *sp = attr_text(file, "spacing"), *comp = attr_text(file, "components");
        char *g = xasprintf("ndims %s, dims [%s], origin [%s], spacing [%s], components %s", nd,
                            dims ? dims : "?", org ? org : "?", sp ? sp : "?", comp ? comp : "1");
        row("grid", g);
        free(dims);
        free(org);
        free(sp);
        free(comp);
        free(g);
        free(nd);
    } else {
        row("grid", "(none)");
    }

    htri_t has_stats = H5Lexists(file, "stats", H5P_DEFAULT);
    hid_t g = has_stats > 0 ? H5Gopen2(file, "stats", H5P_DEFAULT) : H5I_INVALID_HID;
    label = "stats";
    if (g >= 0 && collect_attrs(g, &l) == 0) {
        for (size_t i = 0; i < l.count; i++) {
            char *v = attr_text(g, l.names[i]);
            const char *unit = strncmp(l.names[i], "wall_", 5) == 0 ? " s" : "";
            char *line = xasprintf("%-18s %s%s", l.names[i], v ? v : "?", unit);
            row(label, line);
            label = "";
            free(v);
            free(line);
        }
    }
    namelist_free(&l);
    if (*label) row(label, "(missing)");
    if (g >= 0 && H5Gclose(g) < 0) { /* read-only: nothing to lose */
    }
    if (H5Eclear2(H5E_DEFAULT) < 0) { /* nothing to clear */
    }
}

int h5out_info(const char *path) {
    if (!path || !*path) {
        fprintf(stderr, "qmol info: no file given\n");
        return 2;
    }
    struct stat st;
    if (stat(path, &st) != 0) {
        int eno = errno;
        char *partial = xasprintf("%s.partial", path);
        struct stat ps;
        if (partial && stat(partial, &ps) == 0)
            fprintf(stderr, "qmol info: %s: %s (an unfinished run left %s)\n", path, strerror(eno),
                    partial);
        else
            fprintf(stderr, "qmol info: %s: %s\n", path, strerror(eno));
        free(partial);
        return 2;
    }
    if (S_ISDIR(st.st_mode)) {
        fprintf(stderr, "qmol info: %s: is a directory\n", path);
        return 2;
    }
    quiet q;
    quiet_on(&q);
    int rc = 2;
    hid_t file = H5I_INVALID_HID;
    htri_t is = H5Fis_hdf5(path);
    if (is <= 0) {
        fprintf(stderr, "qmol info: %s: not an HDF5 file\n", path);
        goto done;
    }
    file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    if (file < 0) {
        char *why = h5_reason();
        fprintf(stderr, "qmol info: %s: cannot open HDF5 file: %s\n", path,
                why ? why : "HDF5 error");
        free(why);
        goto done;
    }
    char *layout = attr_text(file, "layout");
    if (!layout) {
        fprintf(stderr, "qmol info: %s: not a qmol result file (no 'layout' attribute)\n", path);
    } else if (strcmp(layout, H5OUT_LAYOUT) != 0) {
        fprintf(stderr, "qmol info: %s: unsupported layout '%s' (expected '%s')\n", path, layout,
                H5OUT_LAYOUT);
    } else {
        print_info(path, file);
        rc = 0;
    }
    free(layout);
done:
    if (file >= 0 && H5Fclose(file) < 0) { /* read-only: nothing to lose */
    }
    if (H5Eclear2(H5E_DEFAULT) < 0) { /* nothing to clear */
    }
    quiet_off(&q);
    if (rc == 0 && fflush(stdout) != 0) {
        fprintf(stderr, "qmol info: cannot write to standard output: %s\n", strerror(errno));
        return 2;
    }
    return rc;
}
