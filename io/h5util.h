/* h5util.h: small helpers shared by the HDF5 writer and reader (internal to
 * io/): one-line messages, quiet HDF5 error stacks, attribute and 1-D dataset
 * writers. Every writer helper reports failure as -1 (or a negative id) with
 * "<file>: <what>: <innermost HDF5 reason>" in the context's err. */
#ifndef QMOL_H5UTIL_H
#define QMOL_H5UTIL_H

#include <hdf5.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* printf into err (nothing if err is NULL or errlen is 0). */
void h5u_set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* malloc'd printf; NULL when out of memory. */
char *h5u_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* HDF5's automatic error printing, off between quiet_on and quiet_off (the
 * previous handler is restored), so users see only our one-line messages. */
typedef struct h5u_quiet {
    H5E_auto2_t func;
    void *data;
    int saved;
} h5u_quiet;
void h5u_quiet_on(h5u_quiet *q);
void h5u_quiet_off(h5u_quiet *q);

/* The innermost HDF5 error description (malloc'd, or NULL); clears the stack. */
char *h5u_reason(void);

/* Error context of a writer: which file, where the message goes. */
typedef struct h5u_ectx {
    const char *file;
    char *err;
    size_t errlen;
} h5u_ectx;

/* Sets "<file>: <what>: <innermost HDF5 reason>". */
void h5u_fail(const h5u_ectx *c, const char *what);
/* Whether file's file system has room for `bytes` more plus the metadata
 * HDF5 writes when it closes the file (H5U_ROOM_MARGIN): 0 when it has, or
 * cannot tell; -1 with "FILE: No space left on device: ..." in err when not.
 * Checked before a write, because HDF5 (1.10, MPI-IO) cannot close a file
 * whose flush failed: it stays open inside HDF5 and MPI_Finalize crashes. */
int h5u_room(const char *file, double bytes, char *err, size_t errlen);
#define H5U_ROOM_MARGIN (512.0 * 1024.0)
/* File access for the ranks of comm: MPI-IO across several (with
 * collective metadata operations when collective_metadata); on one, HDF5's
 * POSIX driver: the same file, without loading MPI-IO's components or its
 * collective machinery (which cost a small run more than its integration).
 * HDF5's own file lock is off on one rank: the working file's flock
 * (workfile.h) guards the file, and HDF5's exclusive lock would conflict
 * with it. Returns the list, or a negative id. */
hid_t h5u_file_access(MPI_Comm comm, int collective_metadata);
/* A dataset's creation list: its space allocated at creation and never
 * filled (every element is written). Parallel HDF5 allocates early anyway;
 * a file written on one rank (the POSIX driver) then has the same layout,
 * and a restart on several ranks writes into it (HDF5 1.10's MPI-IO wrote
 * into late-allocated chunks at an invalid offset). Returns 0 or -1. */
int h5u_early(hid_t dcpl);
/* A data transfer list for obj's file: collective on MPI-IO, HDF5's
 * default otherwise. Close it with H5Pclose; negative on failure. */
hid_t h5u_transfer(hid_t obj);
/* H5Fflush of file: to the operating system, which keeps it when the
 * process is killed; durable: on disk (fsync on the POSIX driver; MPI-IO's
 * flush always syncs), as what a checkpoint counts as written must be.
 * Returns 0, or -1 (HDF5's error stack, or errno, says why). */
int h5u_flush(hid_t file, int durable);
/* Closes *id with fn if valid (best effort) and invalidates it. */
void h5u_close(hid_t *id, herr_t (*fn)(hid_t));
/* Closes group g (ignored when invalid) after writes that returned rc:
 * returns rc, or -1 with "cannot close group <path>" when rc was 0 and the
 * close failed. */
int h5u_close_group(const h5u_ectx *c, hid_t g, const char *path, int rc);

/* Attribute name on obj: a scalar if len == 0, else a 1-D array of len. */
int h5u_put_attr(const h5u_ectx *c, hid_t obj, const char *name, hid_t ftype, hid_t mtype,
                 hsize_t len, const void *buf);
int h5u_put_str(const h5u_ectx *c, hid_t obj, const char *name, const char *value);
int h5u_put_f64(const h5u_ectx *c, hid_t obj, const char *name, const double *v, hsize_t len);
int h5u_put_i64(const h5u_ectx *c, hid_t obj, const char *name, const int64_t *v, hsize_t len);
int h5u_put_u64(const h5u_ectx *c, hid_t obj, const char *name, const uint64_t *v);
/* The scalar attribute name of obj set to *v (memory type mtype): rewritten
 * when it exists, else created with file type ftype. 0, or -1 with err. */
int h5u_set_attr(const h5u_ectx *c, hid_t obj, const char *name, hid_t ftype, hid_t mtype,
                 const void *v);
/* Reads the attribute name of obj into v (memory type mtype): 1 when read,
 * 0 when obj has no such attribute, -1 when it cannot be read. */
int h5u_get_attr(hid_t obj, const char *name, hid_t mtype, void *v);
/* Before the close of a working file that will be removed: rank 0 empties
 * it, so that HDF5's closing flush finds room on a full disk (a close that
 * failed leaves the file open inside HDF5, and MPI_Finalize then crashed:
 * exit 139 after the right message). Collective over comm. */
void h5u_empty_before_close(const char *path, int rank, MPI_Comm comm);
int h5u_put_int(const h5u_ectx *c, hid_t obj, const char *name, int v);

/* Creates group name in parent, attributes in creation order. */
hid_t h5u_group(const h5u_ectx *c, hid_t parent, const char *name);

/* The checksum term sum of v[0 .. count), which sit at positions first ..
 * first + count of a vector: the sum, modulo 2^64, of mix(bits ^
 * mix(position)) over the elements, mix being splitmix64's finalizer. The
 * sums of the parts of a vector add up to the whole vector's, whatever the
 * split between ranks; one flipped bit changes one term. Checkpoint
 * datasets and the rows of /states carry it (docs/reliability.md). */
uint64_t h5u_checksum_part(const double *v, int64_t first, int64_t count);

/* An attribute opened with its type and dataspace (h5u_attr_open: 0, or -1
 * with whatever opened closed again); h5u_attr_close closes all three and
 * returns -1 if a close failed. */
typedef struct h5u_attr {
    hid_t id, type, space;
} h5u_attr;
int h5u_attr_open(hid_t obj, const char *name, h5u_attr *a);
int h5u_attr_close(h5u_attr *a);

/* The file's string attributes' checksum: the sum modulo 2^64, over every
 * variable-length string attribute of every object, of FNV-1a of "object
 * path, name, value". Those values live in the file's global heap, which
 * HDF5 does not checksum; the root attribute H5U_STRINGS_CHECKSUM holds the
 * sum (h5u_mark_strings), which readers recompute. Collective for a
 * parallel file. Returns 0, or -1 when an attribute cannot be read. */
int h5u_strings_checksum(hid_t file, uint64_t *sum);
/* Writes (or rewrites) the root attribute H5U_STRINGS_CHECKSUM. */
int h5u_mark_strings(const h5u_ectx *c, hid_t file);
/* 1 when the file has the attribute and it differs from the recomputed sum,
 * 0 when it matches or is absent (an older file), -1 when unreadable. */
int h5u_strings_damaged(hid_t file);
#define H5U_STRINGS_CHECKSUM "strings_checksum"

/* Elements per chunk of the checksummed 1-D datasets (8 MiB of doubles). */
#define H5U_CHUNK_ELEMS ((hsize_t)1 << 20)
/* Creates the 1-D dataset name (len elements of ftype, chunked with Fletcher32
 * checksums, no fill)
 * in parent and writes elements [first, first + count) from buf (count
 * values of mtype) with transfer list dxpl. Collective when the file is
 * parallel: every rank calls it, a rank with count == 0 takes part with an
 * empty selection (buf may then be NULL). */
int h5u_write_1d(const h5u_ectx *c, hid_t parent, const char *name, hid_t ftype, hid_t mtype,
                 int64_t len, int64_t first, int64_t count, const void *buf, hid_t dxpl);
/* The same, contiguous and without the checksum filter: parallel HDF5's
 * filtered collective writes made a checkpoint of 250,000 LIQSS2 states
 * cost 0.1 s more (bench-checkpoint: 1.03x -> 1.49x for 10 checkpoints in a
 * 3 s run); the checkpoint keeps its own checksums (ckpt.c). */
int h5u_write_1d_plain(const h5u_ectx *c, hid_t parent, const char *name, hid_t ftype, hid_t mtype,
                       int64_t len, int64_t first, int64_t count, const void *buf, hid_t dxpl);

#endif
