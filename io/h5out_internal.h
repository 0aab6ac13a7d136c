/* h5out_internal.h: the writer's state, shared by io/h5out*.c (not public). */
#ifndef QMOL_H5OUT_INTERNAL_H
#define QMOL_H5OUT_INTERNAL_H

#include "h5out.h"
#include "h5util.h"

#include <hdf5.h>
#include <mpi.h>

#define H5OUT_LAYOUT "qmol-1"

struct h5out {
    char *path, *partial;
    MPI_Comm comm; /* every collective call and all HDF5 file access */
    int rank, nranks;
    int64_t n, samples, nwritten;
    int deflate;            /* deflate level of the (K x n) datasets, 0: none */
    int64_t first, count;   /* this rank's block of states */
    unsigned char *written; /* written[k - 1]: sample k was written */
    int has_partition;
    hid_t file, time, states, time_space, states_space, dxpl;
    hid_t per_sample, per_sample_space; /* /activity/per_sample, once created */
    char *error; /* first failure of h5out_sample or h5out_partition, or NULL */
};

/* Collective: 1 if ok on every rank; else 0, and msg (msglen bytes) holds
 * the message of the lowest failing rank on every rank. */
int h5out_agree(const h5out *w, int ok, char *msg, size_t msglen);
/* Creates a float64 dataset of the given shape (chunk: NULL or per dim;
 * chunked ones deflated at level `deflate` when > 0), written later without
 * fill values; reports through c. */
hid_t h5out_make_dataset(const h5u_ectx *c, hid_t parent, const char *name, int rank,
                         const hsize_t *dims, const hsize_t *chunk, int deflate);
/* Collective: row `row` of a (K x n) dataset from this rank's block. */
int h5out_write_row(h5out *w, hid_t d, hid_t space, int64_t row, const double *block);
/* The chunk shape of a (K x n) row dataset: one row, at most 1 MiB. */
void h5out_row_chunk(const h5out *w, hsize_t chunk[2]);
/* Keeps msg as w's first failure (h5out_finish then fails). */
void h5out_keep_error(h5out *w, const char *msg);
/* A collective write's failure, agreed in msg: kept (h5out_keep_error) and
 * copied to err. Returns -1. */
int h5out_fail(h5out *w, const char *msg, char *err, size_t errlen);
/* Collective: sums the counters and takes the maximum wall times over ranks
 * into the attributes of /stats, and writes each rank's values to
 * /stats/per_rank. */
int h5out_write_stats(h5out *w, const qmol_stats *mine, const h5u_ectx *c);

#endif
