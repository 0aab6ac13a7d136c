/* h5out_internal.h: the writer's state, shared by io/h5out*.c (not public). */
#ifndef QMOL_H5OUT_INTERNAL_H
#define QMOL_H5OUT_INTERNAL_H

#include "io/h5out.h"
#include "io/h5util.h"

#include <hdf5.h>
#include <mpi.h>

#define H5OUT_LAYOUT "qmol-1"

struct h5out {
    char *path, *partial;
    MPI_Comm comm; /* every collective call and all HDF5 file access */
    int rank, nranks;
    int lock_fd; /* rank 0: the working file's claim (workfile.h); -1 elsewhere */
    int replace; /* --overwrite: the finished file may replace an existing one */
    int64_t n, samples, nwritten;
    int64_t valid;                /* samples written from the first on: the first `valid` */
    int deflate;                  /* deflate level of the (K x n) datasets, 0: none */
    int64_t first, count;         /* this rank's block of states */
    int64_t columns;              /* columns of /states: the kept states (all: n) */
    int64_t col_first, col_count; /* this rank's columns */
    int64_t *col_index;           /* the kept states' positions in the block; NULL: all */
    double *packed;               /* col_count values gathered for a write */
    h5out_grid grid;              /* the box of cells the columns hold (grid problems) */
    unsigned char *written;       /* written[k - 1]: sample k was written */
    int has_partition;
    hid_t file, time, states, time_space, states_space, dxpl;
    hid_t per_sample, per_sample_space; /* /activity/per_sample, once created */
    hid_t row_sums;                     /* /states_checksum (none in older files) */
    uint64_t row_sum;                   /* this rank's part of the row last written */
    char *error; /* first failure of h5out_sample or h5out_partition, or NULL */
};

/* Collective: 1 if ok on every rank; else 0, and msg (msglen bytes) holds
 * the message of the lowest failing rank on every rank. */
int h5out_agree(const h5out *w, int ok, char *msg, size_t msglen);
/* H5Fflush of w's file (durable: on disk, h5u_flush), agreed (0 on every
 * rank, c->err set, when it failed on one). Before every close of a file to
 * keep: a close whose flush fails (a full disk) leaves the file open inside
 * HDF5, which then crashed in MPI_Finalize (exit 139); a failed flush is
 * followed by discard, which makes room first. */
int h5out_flushed(h5out *w, const h5u_ectx *c, int durable);
/* Creates a float64 dataset of the given shape (chunk: NULL or per dim;
 * chunked ones deflated at level `deflate` when > 0, and with HDF5's
 * Fletcher32 checksum when fletcher: parallel HDF5 then writes every chunk
 * at creation, so only for small ones), written later without fill values;
 * reports through c. */
hid_t h5out_make_dataset(const h5u_ectx *c, hid_t parent, const char *name, int rank,
                         const hsize_t *dims, const hsize_t *chunk, int deflate, int fletcher);
/* Collective: row `row` of a (K x columns) dataset from this rank's block
 * (the kept states' values). */
int h5out_write_row(h5out *w, hid_t d, hid_t space, int64_t row, const double *block);
/* The chunk shape of a (K x columns) row dataset: one row, at most 1 MiB. */
void h5out_row_chunk(const h5out *w, hsize_t chunk[2]);
/* Keeps msg as w's first failure (h5out_finish then fails). */
void h5out_keep_error(h5out *w, const char *msg);
/* A collective write's failure, agreed in msg: kept (h5out_keep_error) and
 * copied to err. Returns -1. */
int h5out_fail(h5out *w, const char *msg, char *err, size_t errlen);
/* Collective (in h5out_create): the kept states (meta->keep) as columns,
 * this rank's share, and the grid box they form. Returns 0, or -1 with the
 * reason in msg (agreed). */
int h5out_select(h5out *w, const h5out_meta *meta, char *msg, size_t msglen);
/* Collective: /state_ids (when not all states are kept), the root attribute
 * output_states, and /fields for a grid box. */
int h5out_write_selection(h5out *w, const h5out_meta *meta, const h5u_ectx *c);
/* Collective: /xdmf/NAME/k, the per-sample views of /fields/NAME the XDMF
 * sidecar names (a grid problem's file; also added on a restart to a file
 * written before they existed). Returns 0, or -1 with c's message. */
int h5out_write_sample_views(h5out *w, const qmol_problem *p, const h5u_ectx *c);

/* Collective: sums the counters and takes the maximum wall times over ranks
 * into the attributes of /stats, and writes each rank's values to
 * /stats/per_rank. */
int h5out_write_stats(h5out *w, const qmol_stats *mine, const h5u_ectx *c);

#endif
