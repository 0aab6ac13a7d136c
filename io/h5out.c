/* h5out.c: the HDF5 result file, written through parallel HDF5 (MPI-IO).
 *
 * Every rank calls every function (HDF5 metadata operations and collective
 * transfers need all ranks). Each rank writes its own block of every state
 * row (h5out_block); rank 0 writes the time. Before a collective HDF5 call
 * the ranks agree that all of them will make it, so that a failure found on
 * one rank does not leave the others waiting.
 */
#define _POSIX_C_SOURCE 200809L

#include "io/h5out_internal.h"

#include "comm/agree.h"
#include "comm/directory.h"
#include "io/workfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef QMOL_VERSION
#define QMOL_VERSION "unknown"
#endif

/* Largest chunk along the state axis: 1 MiB of doubles. */
#define H5OUT_CHUNK_ELEMS ((int64_t)((1 << 20) / sizeof(double)))

#define MSG_LEN 1024

static int agree_comm(MPI_Comm comm, int ok, char *msg, size_t msglen) {
    return comm_agree(comm, ok ? 0 : 1, msg, msglen) == 0;
}

int h5out_agree(const h5out *w, int ok, char *msg, size_t msglen) {
    return agree_comm(w->comm, ok, msg, msglen);
}

void h5out_keep_error(h5out *w, const char *msg) {
    if (!w->error) w->error = h5u_asprintf("%s", msg && *msg ? msg : "output failed");
}

int h5out_fail(h5out *w, const char *msg, char *err, size_t errlen) {
    h5out_keep_error(w, msg);
    h5u_set_err(err, errlen, "%s", msg);
    return -1;
}

/* ---- the file ----------------------------------------------------------- */

static int mark_written(h5out *w, const h5u_ectx *c);

static int write_root_attrs(const h5u_ectx *c, hid_t file, const h5out_meta *m) {
    const qmol_problem *p = m->prob;
    int64_t n = p->n, k = m->samples;
    if (h5u_put_str(c, file, "layout", H5OUT_LAYOUT) ||
        h5u_put_str(c, file, "qmol_version", QMOL_VERSION) ||
        h5u_put_str(c, file, "problem", m->problem) || h5u_put_str(c, file, "method", m->method) ||
        h5u_put_f64(c, file, "reltol", &m->reltol, 0) ||
        h5u_put_f64(c, file, "abstol", &m->abstol, 0) || h5u_put_f64(c, file, "t0", &m->t0, 0) ||
        h5u_put_f64(c, file, "tf", &m->tf, 0) || h5u_put_i64(c, file, "samples", &k, 0) ||
        h5u_put_i64(c, file, "samples_written", &(int64_t){0}, 0) ||
        h5u_put_i64(c, file, "n", &n, 0))
        return -1;
    if (m->linsol && h5u_put_str(c, file, "linsol", m->linsol)) return -1;
    if (m->precond && h5u_put_str(c, file, "precond", m->precond)) return -1;
    if (m->cvode_norm && h5u_put_str(c, file, "cvode_norm", m->cvode_norm)) return -1;
    if (m->qss_method && h5u_put_str(c, file, "qss_method", m->qss_method)) return -1;
    int np = m->def ? m->def->nparams : 0;
    for (int i = 0; i < np; i++) {
        const char *pn = m->def->params[i].name;
        char *name = h5u_asprintf("param.%s", pn ? pn : "");
        if (!name) {
            h5u_set_err(c->err, c->errlen, "%s: out of memory", c->file);
            return -1;
        }
        int rc = h5u_put_f64(c, file, name, &m->param_values[i], 0);
        free(name);
        if (rc) return -1;
    }
    if (p->ndims > 0) {
        hsize_t nd = (hsize_t)p->ndims;
        int comps = p->components > 0 ? p->components : 1;
        if (h5u_put_int(c, file, "ndims", p->ndims) || h5u_put_i64(c, file, "dims", p->dims, nd) ||
            h5u_put_f64(c, file, "origin", p->origin, nd) ||
            h5u_put_f64(c, file, "spacing", p->spacing, nd) ||
            h5u_put_int(c, file, "components", comps))
            return -1;
        /* "u" or "u0 u1 ..." (or the problem's names), space-separated */
        size_t len = 1;
        char buf[32];
        for (int k = 0; k < comps; k++)
            len += strlen(h5out_component_name(p, k, buf, sizeof buf)) + 1;
        char *names = malloc(len);
        if (!names) {
            h5u_set_err(c->err, c->errlen, "%s: out of memory", c->file);
            return -1;
        }
        names[0] = '\0';
        for (int k = 0; k < comps; k++) {
            if (k) strcat(names, " ");
            strcat(names, h5out_component_name(p, k, buf, sizeof buf));
        }
        int rc = h5u_put_str(c, file, "component_names", names);
        free(names);
        if (rc) return -1;
    }
    return 0;
}

/* Creates a dataset of doubles with the given shape (and chunking if chunk). */
hid_t h5out_make_dataset(const h5u_ectx *c, hid_t file, const char *name, int rank,
                         const hsize_t *dims, const hsize_t *chunk, int deflate, int fletcher) {
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t d = H5I_INVALID_HID;
    /* Every sample is written before finish, so skip writing fill values;
     * the space is allocated at creation, as parallel HDF5 does (h5u_early) */
    if (space >= 0 && dcpl >= 0 && h5u_early(dcpl) == 0 &&
        (!chunk || H5Pset_chunk(dcpl, rank, chunk) >= 0) &&
        (!chunk || deflate <= 0 || H5Pset_deflate(dcpl, (unsigned)deflate) >= 0) &&
        (!chunk || !fletcher || H5Pset_fletcher32(dcpl) >= 0))
        d = H5Dcreate2(file, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (d < 0) {
        char *what = h5u_asprintf("cannot create dataset /%s", name);
        h5u_fail(c, what ? what : "cannot create a dataset");
        free(what);
    }
    if (dcpl >= 0 && H5Pclose(dcpl) < 0 && d >= 0) {
        h5u_fail(c, "cannot close a property list");
        h5u_close(&d, H5Dclose);
    }
    if (space >= 0 && H5Sclose(space) < 0 && d >= 0) {
        h5u_fail(c, "cannot close a dataspace");
        h5u_close(&d, H5Dclose);
    }
    return d;
}

void h5out_row_chunk(const h5out *w, hsize_t chunk[2]) {
    chunk[0] = 1;
    chunk[1] = (hsize_t)(w->columns < H5OUT_CHUNK_ELEMS ? w->columns : H5OUT_CHUNK_ELEMS);
}

/* /states_checksum: K uint64, contiguous, not filled. */
static hid_t make_row_sums(const h5u_ectx *c, hid_t file, const hsize_t *dims) {
    hid_t space = H5Screate_simple(1, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t d = H5I_INVALID_HID;
    if (space >= 0 && dcpl >= 0 && h5u_early(dcpl) == 0)
        d = H5Dcreate2(file, "states_checksum", H5T_STD_U64LE, space, H5P_DEFAULT, dcpl,
                       H5P_DEFAULT);
    if (d < 0) h5u_fail(c, "cannot create dataset /states_checksum");
    h5u_close(&dcpl, H5Pclose);
    h5u_close(&space, H5Sclose);
    return d;
}

/* Creates the HDF5 file at w->partial with datasets and root attributes. */
static int build_file(h5out *w, const h5out_meta *m, const h5u_ectx *c) {
    hid_t fapl = h5u_file_access(w->comm, 1);
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    if (fapl < 0 || fcpl < 0 || H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST) < 0 ||
        H5Pset_attr_creation_order(fcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) < 0) {
        h5u_fail(c, "cannot set up file properties");
    } else {
        w->file = H5Fcreate(w->partial, H5F_ACC_TRUNC, fcpl, fapl);
        if (w->file < 0) h5u_fail(c, "cannot create HDF5 file");
    }
    int rc = w->file >= 0 ? 0 : -1;
    if (fapl >= 0 && H5Pclose(fapl) < 0 && rc == 0) {
        h5u_fail(c, "cannot close a property list");
        rc = -1;
    }
    if (fcpl >= 0 && H5Pclose(fcpl) < 0 && rc == 0) {
        h5u_fail(c, "cannot close a property list");
        rc = -1;
    }
    if (rc) return -1;

    /* One row per chunk, at most 1 MiB along the states: a rank's block of a
     * row spans whole chunks plus at most two shared at its ends, which
     * collective MPI-IO merges (no filters, so no chunk is rewritten). */
    hsize_t tdims[1] = {(hsize_t)w->samples};
    hsize_t sdims[2] = {(hsize_t)w->samples, (hsize_t)w->columns};
    hsize_t chunk[2];
    h5out_row_chunk(w, chunk);
    /* /time: one chunk with HDF5's Fletcher32 checksum. /states: not filtered
     * (parallel HDF5 writes every filtered chunk when it creates the dataset:
     * 4.6 s and 1.6 GB before the first step for 10^6 states and 200
     * samples); /states_checksum holds each row's h5u_checksum_part */
    w->time = h5out_make_dataset(c, w->file, "time", 1, tdims, tdims, 0, 1);
    if (w->time < 0) return -1;
    w->states = h5out_make_dataset(c, w->file, "states", 2, sdims, chunk, w->deflate, 0);
    if (w->states < 0) return -1;
    w->row_sums = make_row_sums(c, w->file, tdims);
    if (w->row_sums < 0) return -1;
    w->time_space = H5Dget_space(w->time);
    w->states_space = H5Dget_space(w->states);
    w->dxpl = h5u_transfer(w->file);
    if (w->time_space < 0 || w->states_space < 0 || w->dxpl < 0) {
        h5u_fail(c, "cannot set up data transfers");
        return -1;
    }
    if (write_root_attrs(c, w->file, m) || h5out_write_selection(w, m, c)) return -1;
    return h5u_mark_strings(c, w->file);
}

/* Closes every HDF5 object of w; returns -1 (with err) if one close failed. */
static int close_all(h5out *w, const h5u_ectx *c) {
    int rc = 0;
    hid_t *ids[] = {&w->time_space, &w->states_space,     &w->time,       &w->states,
                    &w->dxpl,       &w->per_sample_space, &w->per_sample, &w->row_sums};
    herr_t (*fns[])(hid_t) = {H5Sclose, H5Sclose, H5Dclose, H5Dclose,
                              H5Pclose, H5Sclose, H5Dclose, H5Dclose};
    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        if (*ids[i] >= 0 && fns[i](*ids[i]) < 0 && rc == 0) {
            if (c) h5u_fail(c, "cannot close an HDF5 object");
            rc = -1;
        }
        *ids[i] = H5I_INVALID_HID;
    }
    if (w->file >= 0 && H5Fclose(w->file) < 0 && rc == 0) {
        if (c) h5u_fail(c, "cannot close HDF5 file");
        rc = -1;
    }
    w->file = H5I_INVALID_HID;
    return rc;
}

static void free_writer(h5out *w) {
    if (w->lock_fd >= 0) close(w->lock_fd);
    free(w->path);
    free(w->partial);
    free(w->written);
    free(w->error);
    free(w->col_index);
    free(w->packed);
    free(w->grid.component);
    free(w);
}

/* Closes everything, removes the partial file (rank 0, after all ranks closed
 * it; gone for every rank on return) and frees w. */
static void discard(h5out *w) {
    h5u_empty_before_close(w->partial, w->rank, w->comm);
    (void)close_all(w, NULL);
    MPI_Barrier(w->comm);
    if (w->rank == 0 && w->partial) unlink(w->partial);
    MPI_Barrier(w->comm);
    free_writer(w);
}

/* ---- create ------------------------------------------------------------- */

/* Checks meta; the same verdict on every rank, as meta is the same. */
static int check_meta(const char *path, const h5out_meta *meta, char *err, size_t errlen) {
    int mpi = 0;
    if (MPI_Initialized(&mpi) != MPI_SUCCESS || !mpi) {
        h5u_set_err(err, errlen, "cannot create %s: MPI is not initialized",
                    path ? path : "(null)");
        return -1;
    }
    if (!path || !*path) {
        h5u_set_err(err, errlen, "no output file name given");
        return -1;
    }
    if (!meta || !meta->prob || !meta->problem || !meta->method) {
        h5u_set_err(err, errlen, "cannot create %s: incomplete run description", path);
        return -1;
    }
    const qmol_problem *p = meta->prob;
    if (p->n < 1) {
        h5u_set_err(err, errlen, "cannot create %s: the problem has no states (n = %lld)", path,
                    (long long)p->n);
        return -1;
    }
    if (meta->samples < 1) {
        h5u_set_err(err, errlen,
                    "cannot create %s: the number of samples must be at least 1 (got %lld)", path,
                    (long long)meta->samples);
        return -1;
    }
    if (meta->def && meta->def->nparams > 0 && (!meta->param_values || !meta->def->params)) {
        h5u_set_err(err, errlen, "cannot create %s: parameter values missing", path);
        return -1;
    }
    if (p->ndims < 0 || p->ndims > 3) {
        h5u_set_err(err, errlen, "cannot create %s: invalid grid dimension count %d", path,
                    p->ndims);
        return -1;
    }
    char why[256];
    if (h5out_check_component_names(p, why, sizeof why)) {
        h5u_set_err(err, errlen, "cannot create %s: %s", path, why);
        return -1;
    }
    return 0;
}

/* A writer with names and this rank's block, no file yet; NULL (agreed,
 * message in msg) if memory ran out on some rank. */
static h5out *new_writer(const char *path, const h5out_meta *meta, MPI_Comm comm, char *msg,
                         size_t msglen) {
    h5out *w = calloc(1, sizeof *w);
    if (w) {
        w->file = w->time = w->states = H5I_INVALID_HID;
        w->time_space = w->states_space = w->dxpl = H5I_INVALID_HID;
        w->per_sample = w->per_sample_space = w->row_sums = H5I_INVALID_HID;
        w->comm = comm;
        w->lock_fd = -1;
        w->replace = meta->replace;
        MPI_Comm_rank(comm, &w->rank);
        MPI_Comm_size(comm, &w->nranks);
        w->n = meta->prob->n;
        w->samples = meta->samples;
        w->deflate = meta->deflate;
        w->first = dir_first(w->n, w->nranks, w->rank);
        w->count = dir_first(w->n, w->nranks, w->rank + 1) - w->first;
        w->path = h5u_asprintf("%s", path);
        w->partial = h5u_asprintf("%s.partial", path);
        w->written = calloc((size_t)meta->samples, 1);
    }
    int ok = w && w->path && w->partial && w->written;
    if (!ok) h5u_set_err(msg, msglen, "cannot create %s: out of memory", path);
    if (!agree_comm(comm, ok, msg, msglen)) {
        if (w) free_writer(w);
        return NULL;
    }
    return w;
}

char *h5out_sibling_path(const char *h5path, const char *suffix) {
    size_t len = strlen(h5path);
    int h5 = len > 3 && !strcmp(h5path + len - 3, ".h5");
    return h5u_asprintf("%.*s%s", (int)(h5 ? len - 3 : len), h5path, suffix);
}

/* What h5out_create and h5out_reopen share: meta checked, the writer with
 * its block and its columns (h5out_select); NULL with err set (agreed). */
static h5out *prepare(const char *path, const h5out_meta *meta, char *err, size_t errlen) {
    h5u_set_err(err, errlen, "%s", "");
    if (check_meta(path, meta, err, errlen)) return NULL;
    MPI_Comm comm =
        meta->comm == MPI_COMM_NULL || meta->comm == (MPI_Comm)0 ? MPI_COMM_WORLD : meta->comm;
    char msg[MSG_LEN] = "";
    h5out *w = new_writer(path, meta, comm, msg, sizeof msg);
    if (!w) {
        h5u_set_err(err, errlen, "%s", msg);
        return NULL;
    }
    if (h5out_select(w, meta, msg, sizeof msg)) {
        h5u_set_err(err, errlen, "%s", msg);
        free_writer(w);
        return NULL;
    }
    return w;
}

/* Rank 0 claims w's working file (workfile.h); the verdict is agreed. On
 * failure w is freed and err set. */
static int claim(h5out *w, workfile_mode mode, char *err, size_t errlen) {
    char msg[MSG_LEN] = "";
    if (w->rank == 0) w->lock_fd = workfile_claim(w->partial, mode, msg, sizeof msg);
    if (comm_agree(w->comm, w->rank == 0 && w->lock_fd < 0, msg, sizeof msg)) {
        h5u_set_err(err, errlen, "%s", msg);
        free_writer(w);
        return -1;
    }
    return 0;
}

h5out *h5out_create(const char *path, const h5out_meta *meta, char *err, size_t errlen) {
    h5out *w = prepare(path, meta, err, errlen);
    if (!w) return NULL;
    char msg[MSG_LEN] = "";

    /* The working file is claimed with open(2) first: exclusively, never
     * through a link, locked against another run; and MPI-IO errors do not
     * carry errno, this gives "Permission denied" or "No such file". */
    if (claim(w, meta->replace ? WORKFILE_DISCARD : WORKFILE_NEW, err, errlen)) return NULL;

    h5u_quiet q;
    h5u_quiet_on(&q);
    h5u_ectx c = {w->partial, msg, sizeof msg};
    /* flushed at once: the working file opens (samples_written 0) from the
     * start, not only after the first sample */
    int ok =
        h5out_agree(w, build_file(w, meta, &c) == 0, msg, sizeof msg) && h5out_flushed(w, &c, 0);
    if (!ok) {
        h5u_set_err(err, errlen, "%s", msg);
        discard(w);
        w = NULL;
    }
    h5u_quiet_off(&q);
    return w;
}

/* Opens w->partial (left by a stopped run) and its datasets; removes what
 * the run writes at its end (/partition, /events, /stats, /activity/events),
 * which a restart on other ranks writes anew. */
static int reopen_file(h5out *w, const h5u_ectx *c) {
    hid_t fapl = h5u_file_access(w->comm, 1);
    if (fapl < 0) {
        h5u_fail(c, "cannot set up file properties");
        return -1;
    }
    w->file = H5Fopen(w->partial, H5F_ACC_RDWR, fapl);
    h5u_close(&fapl, H5Pclose);
    if (w->file < 0) {
        h5u_fail(c, "cannot open the stopped run's output");
        return -1;
    }
    w->time = H5Dopen2(w->file, "time", H5P_DEFAULT);
    w->states = H5Dopen2(w->file, "states", H5P_DEFAULT);
    if (H5Lexists(w->file, "states_checksum", H5P_DEFAULT) > 0) /* not in older files */
        w->row_sums = H5Dopen2(w->file, "states_checksum", H5P_DEFAULT);
    w->time_space = w->time >= 0 ? H5Dget_space(w->time) : H5I_INVALID_HID;
    w->states_space = w->states >= 0 ? H5Dget_space(w->states) : H5I_INVALID_HID;
    hsize_t dims[2] = {0, 0};
    if (w->states_space < 0 || w->time_space < 0 ||
        H5Sget_simple_extent_dims(w->states_space, dims, NULL) != 2 ||
        dims[0] != (hsize_t)w->samples || dims[1] != (hsize_t)w->columns) {
        h5u_fail(c, "its /states does not match this run (samples, written states)");
        return -1;
    }
    if (H5Lexists(w->file, "activity", H5P_DEFAULT) > 0 &&
        H5Lexists(w->file, "activity/per_sample", H5P_DEFAULT) > 0) {
        w->per_sample = H5Dopen2(w->file, "activity/per_sample", H5P_DEFAULT);
        w->per_sample_space = w->per_sample >= 0 ? H5Dget_space(w->per_sample) : H5I_INVALID_HID;
    }
    static const char *const rewritten[] = {"partition", "events", "stats", "activity/events"};
    for (size_t k = 0; k < sizeof rewritten / sizeof rewritten[0]; k++) {
        if (!strcmp(rewritten[k], "activity/events") &&
            H5Lexists(w->file, "activity", H5P_DEFAULT) <= 0)
            continue;
        if (H5Lexists(w->file, rewritten[k], H5P_DEFAULT) > 0 &&
            H5Ldelete(w->file, rewritten[k], H5P_DEFAULT) < 0) {
            h5u_fail(c, "cannot remove what the run rewrites");
            return -1;
        }
    }
    w->dxpl = h5u_transfer(w->file);
    if (w->dxpl < 0) {
        h5u_fail(c, "cannot set up data transfers");
        return -1;
    }
    return 0;
}

/* A file written before the per-sample views existed (its /fields but no
 * /xdmf) gets them, so that the sidecar written at the end names datasets
 * that are there. */
static int add_sample_views(h5out *w, const h5out_meta *meta, const h5u_ectx *c) {
    if (w->grid.ndims <= 0 || H5Lexists(w->file, "fields", H5P_DEFAULT) <= 0 ||
        H5Lexists(w->file, H5OUT_SAMPLE_VIEWS, H5P_DEFAULT) > 0)
        return 0;
    return h5out_write_sample_views(w, meta->prob, c);
}

h5out *h5out_reopen(const char *path, const h5out_meta *meta, int64_t next_sample, char *err,
                    size_t errlen) {
    h5out *w = prepare(path, meta, err, errlen);
    if (!w) return NULL;
    char msg[MSG_LEN] = "";
    if (next_sample < 1 || next_sample > w->samples + 1) {
        h5u_set_err(err, errlen, "%s: sample %lld to resume at is outside 1..%lld", w->partial,
                    (long long)next_sample, (long long)w->samples + 1);
        free_writer(w);
        return NULL;
    }
    for (int64_t k = 0; k < next_sample - 1; k++)
        w->written[k] = 1;
    w->nwritten = next_sample - 1;
    if (claim(w, WORKFILE_RESUME, err, errlen)) return NULL;
    h5u_quiet q;
    h5u_quiet_on(&q);
    h5u_ectx c = {w->partial, msg, sizeof msg};
    int ok = reopen_file(w, &c) == 0 && mark_written(w, &c) == 0 &&
             add_sample_views(w, meta, &c) == 0 &&
             h5u_mark_strings(&c, w->file) == 0; /* (the removed ones' strings) */
    if (!h5out_agree(w, ok, msg, sizeof msg)) {
        h5u_set_err(err, errlen, "%s", msg);
        (void)close_all(w, NULL);
        free_writer(w); /* the stopped run's file stays */
        w = NULL;
    }
    h5u_quiet_off(&q);
    return w;
}

int h5out_flushed(h5out *w, const h5u_ectx *c, int durable) {
    int ok = h5u_flush(w->file, durable) == 0;
    if (!ok) h5u_fail(c, "cannot flush");
    return h5out_agree(w, ok, c->err, c->errlen);
}

int h5out_flush(h5out *w, char *err, size_t errlen) {
    h5u_quiet q;
    h5u_quiet_on(&q);
    char msg[MSG_LEN] = "";
    h5u_ectx c = {w->partial, msg, sizeof msg};
    int ok = h5out_flushed(w, &c, 1);
    if (!ok && !w->error) h5out_keep_error(w, msg);
    h5u_quiet_off(&q);
    if (!ok) h5u_set_err(err, errlen, "%s", msg);
    return ok ? 0 : -1;
}

int h5out_suspend(h5out *w, char *err, size_t errlen) {
    h5u_quiet q;
    h5u_quiet_on(&q);
    char msg[MSG_LEN] = "";
    h5u_ectx c = {w->partial, msg, sizeof msg};
    if (!h5out_flushed(w, &c, 1)) { /* what it holds is not on disk: it cannot be kept */
        h5u_quiet_off(&q);
        h5u_set_err(err, errlen, "%s (removed: it could not be kept for a restart)", msg);
        discard(w);
        return -1;
    }
    int ok = h5out_agree(w, close_all(w, &c) == 0, msg, sizeof msg);
    h5u_quiet_off(&q);
    if (!ok) h5u_set_err(err, errlen, "%s", msg);
    free_writer(w);
    return ok ? 0 : -1;
}

void h5out_block(const h5out *w, int64_t *first, int64_t *count) {
    if (first) *first = w ? w->first : 0;
    if (count) *count = w ? w->count : 0;
}

/* ---- samples ------------------------------------------------------------ */

/* Writes d[row, col_first : col_first + col_count) from the kept states of
 * this rank's block, as a collective transfer (a rank without kept states
 * selects nothing). */
int h5out_write_row(h5out *w, hid_t d, hid_t space, int64_t row, const double *block) {
    static const double none[1]; /* HDF5 wants a buffer even for nothing */
    hsize_t start[2] = {(hsize_t)row, (hsize_t)w->col_first};
    hsize_t cnt[2] = {1, (hsize_t)w->col_count};
    hsize_t mlen = w->col_count > 0 ? (hsize_t)w->col_count : 1;
    if (w->col_index && block) {
        for (int64_t j = 0; j < w->col_count; j++)
            w->packed[j] = block[w->col_index[j]];
        block = w->packed;
    }
    if (d == w->states)
        w->row_sum = block ? h5u_checksum_part(block, w->col_first, w->col_count) : 0;
    hid_t mem = H5Screate_simple(1, &mlen, NULL);
    if (mem < 0) return -1;
    int rc = 0;
    if (w->col_count > 0) {
        if (H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, cnt, NULL) < 0) rc = -1;
    } else if (H5Sselect_none(space) < 0 || H5Sselect_none(mem) < 0) {
        rc = -1;
    }
    if (rc == 0 && H5Dwrite(d, H5T_NATIVE_DOUBLE, mem, space, w->dxpl, block ? block : none) < 0)
        rc = -1;
    if (H5Sclose(mem) < 0) rc = -1;
    return rc;
}

/* Writes element row of the 1-D dataset d (space: its dataspace) from value,
 * of memory type type (collective; only rank 0 selects the element). */
static int write_element(h5out *w, hid_t d, hid_t space, hid_t type, int64_t row,
                         const void *value) {
    hsize_t one = 1, start = (hsize_t)row;
    hid_t mem = H5Screate_simple(1, &one, NULL);
    if (mem < 0) return -1;
    int rc = 0;
    if (w->rank == 0) {
        if (H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &one, NULL) < 0) rc = -1;
    } else if (H5Sselect_none(space) < 0 || H5Sselect_none(mem) < 0) {
        rc = -1;
    }
    if (rc == 0 && H5Dwrite(d, type, mem, space, w->dxpl, value) < 0) rc = -1;
    if (H5Sclose(mem) < 0) rc = -1;
    return rc;
}

static int write_time(h5out *w, int64_t row, double t) {
    return write_element(w, w->time, w->time_space, H5T_NATIVE_DOUBLE, row, &t);
}

/* /states_checksum[row]: the sum of the ranks' parts of the row just written
 * (a file from before it has none). Collective. */
static int write_row_sum(h5out *w, int64_t row) {
    uint64_t sum = w->row_sum;
    MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_UINT64_T, MPI_SUM, w->comm);
    if (w->row_sums < 0) return 0;
    hid_t space = H5Dget_space(w->row_sums);
    int rc = space < 0 ? -1 : write_element(w, w->row_sums, space, H5T_NATIVE_UINT64, row, &sum);
    if (space >= 0 && H5Sclose(space) < 0) rc = -1;
    return rc;
}

/* Collective: 0 if every rank passed a valid call with the same k, else -1
 * with the lowest failing rank's message in msg on every rank. */
static int check_sample(h5out *w, int64_t k, const double *block, char *msg, size_t msglen) {
    int bad = 1;
    if (k < 1 || k > w->samples)
        h5u_set_err(msg, msglen, "%s: sample %lld out of range 1..%lld", w->partial, (long long)k,
                    (long long)w->samples);
    else if (!block && w->count > 0)
        h5u_set_err(msg, msglen, "%s: sample %lld: no state vector", w->partial, (long long)k);
    else
        bad = 0;
    long long v[3] = {bad, (long long)k, -(long long)k};
    if (MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_LONG_LONG, MPI_MAX, w->comm) != MPI_SUCCESS) {
        h5u_set_err(msg, msglen, "%s: sample %lld: MPI_Allreduce failed", w->partial, (long long)k);
        return -1; /* MPI errors abort by default: not reached in practice */
    }
    if (v[0]) { /* a rank's own reason comes first */
        (void)agree_comm(w->comm, !bad, msg, msglen);
        return -1;
    }
    if (v[1] == -v[2]) return 0;
    h5u_set_err(msg, msglen, "%s: the ranks passed different sample numbers (%lld to %lld)",
                w->partial, -v[2], v[1]);
    return -1;
}

/* The root attribute samples_written: how many samples, from the first, the
 * file holds (the rows after them are not data: a stopped or killed run's
 * file, read by qmol info, qmolpost and the Python readers). Collective. */
static int mark_written(h5out *w, const h5u_ectx *c) {
    while (w->valid < w->samples && w->written[w->valid]) /* written[] only gains */
        w->valid++;
    /* (created when a file from before the attribute is resumed) */
    return h5u_set_attr(c, w->file, "samples_written", H5T_STD_I64LE, H5T_NATIVE_INT64, &w->valid);
}

int h5out_sample(h5out *w, int64_t k, double t, const double *block) {
    if (!w) return -1;
    char msg[MSG_LEN] = "";
    if (check_sample(w, k, block, msg, sizeof msg)) {
        h5out_keep_error(w, msg);
        return -1;
    }
    /* room first: HDF5 cannot close a file whose flush failed (h5u_room) */
    double row = 8.0 * (double)(w->columns + 1);
    if (!h5out_agree(w, w->rank != 0 || h5u_room(w->partial, row, msg, sizeof msg) == 0, msg,
                     sizeof msg)) {
        h5out_keep_error(w, msg);
        return -1;
    }
    h5u_quiet q;
    h5u_quiet_on(&q);
    int ok = write_time(w, k - 1, t) == 0 &&
             h5out_write_row(w, w->states, w->states_space, k - 1, block) == 0 &&
             write_row_sum(w, k - 1) == 0;
    if (!ok) {
        char what[64];
        snprintf(what, sizeof what, "cannot write sample %lld", (long long)k);
        h5u_ectx c = {w->partial, msg, sizeof msg};
        h5u_fail(&c, what);
    }
    h5u_quiet_off(&q);
    if (!h5out_agree(w, ok, msg, sizeof msg)) {
        h5out_keep_error(w, msg);
        return -1;
    }
    if (!w->written[k - 1]) {
        w->written[k - 1] = 1;
        w->nwritten++;
    }
    /* flushed at every sample: the file opens after a SIGKILL, and says how
     * many samples it holds. On disk (fsync) at checkpoints and at the end
     * (docs/reliability.md): 20 syncs cost a small run a third of its time */
    h5u_quiet_on(&q);
    h5u_ectx c = {w->partial, msg, sizeof msg};
    ok = h5out_agree(w, mark_written(w, &c) == 0, msg, sizeof msg) && h5out_flushed(w, &c, 0);
    h5u_quiet_off(&q);
    if (!ok) {
        h5out_keep_error(w, msg);
        return -1;
    }
    return 0;
}

const char *h5out_error(const h5out *w) {
    return w ? w->error : NULL;
}

/* ---- finish ------------------------------------------------------------- */

/* Local reasons not to finish, in msg; 1 if there are none. */
static int ready(const h5out *w, const qmol_stats *stats, char *msg, size_t msglen) {
    if (w->error)
        h5u_set_err(msg, msglen, "%s", w->error);
    else if (w->nwritten < w->samples)
        h5u_set_err(msg, msglen, "%s: only %lld of %lld samples were written", w->partial,
                    (long long)w->nwritten, (long long)w->samples);
    else if (!stats)
        h5u_set_err(msg, msglen, "%s: no run statistics given", w->partial);
    else
        return 1;
    return 0;
}

int h5out_finish(h5out *w, const qmol_stats *stats, char *err, size_t errlen) {
    h5u_set_err(err, errlen, "%s", "");
    if (!w) {
        h5u_set_err(err, errlen, "no output file to finish");
        return -1;
    }
    h5u_quiet q;
    h5u_quiet_on(&q);
    char msg[MSG_LEN] = "";
    h5u_ectx c = {w->partial, msg, sizeof msg};
    int ok = h5out_agree(w, ready(w, stats, msg, sizeof msg), msg, sizeof msg) &&
             h5out_agree(w, h5out_write_stats(w, stats, &c) == 0, msg, sizeof msg) &&
             h5out_agree(w, h5u_mark_strings(&c, w->file) == 0, msg, sizeof msg) &&
             h5out_flushed(w, &c, 1) && h5out_agree(w, close_all(w, &c) == 0, msg, sizeof msg);
    h5u_quiet_off(&q);
    if (!ok) {
        h5u_set_err(err, errlen, "%s", msg);
        discard(w);
        return -1;
    }

    /* Every rank has closed the file: rename it on rank 0. On failure the
     * complete data stays in the .partial file, which we keep. */
    MPI_Barrier(w->comm);
    int failed = w->rank == 0 && workfile_publish(w->partial, w->path, w->replace, msg, sizeof msg);
    failed = comm_agree(w->comm, failed, msg, sizeof msg);
    if (failed) h5u_set_err(err, errlen, "%s", msg);
    free_writer(w);
    return failed ? -1 : 0;
}

void h5out_abort(h5out *w) {
    if (!w) return;
    h5u_quiet q;
    h5u_quiet_on(&q);
    discard(w);
    h5u_quiet_off(&q);
}
