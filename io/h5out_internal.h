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
    int64_t first, count;   /* this rank's block of states */
    unsigned char *written; /* written[k - 1]: sample k was written */
    int has_partition;
    hid_t file, time, states, time_space, states_space, dxpl;
    char *error; /* first failure of h5out_sample or h5out_partition, or NULL */
};

/* Collective: 1 if ok on every rank; else 0, and msg (msglen bytes) holds
 * the message of the lowest failing rank on every rank. */
int h5out_agree(const h5out *w, int ok, char *msg, size_t msglen);
/* Keeps msg as w's first failure (h5out_finish then fails). */
void h5out_keep_error(h5out *w, const char *msg);
/* Collective: sums the counters and takes the maximum wall times over ranks
 * into the attributes of /stats, and writes each rank's values to
 * /stats/per_rank. */
int h5out_write_stats(h5out *w, const qmol_stats *mine, const h5u_ectx *c);

#endif
