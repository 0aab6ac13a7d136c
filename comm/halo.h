/* halo.h: which states a rank owns, which it reads from others (ghosts), and
 * the send/receive lists that keep ghosts current. Built once per run.
 *
 * Local numbering: owned states 0 .. n_owned-1 in ascending global id, then
 * ghosts n_owned .. n_owned+n_ghost-1 grouped by owner rank (sources in
 * ascending rank order), ascending global id within a group. A source's
 * group is received as one contiguous block. The owner sends the same states
 * in the same order: position p of its send list to rank r is position p of
 * r's ghost group from it, so a message needs no ids.
 *
 * Communication goes through a distributed-graph communicator (sources: the
 * ranks we read from; destinations: the ranks that read us) with MPI-3
 * neighborhood collectives.
 */
#ifndef QMOL_HALO_H
#define QMOL_HALO_H

#include "qmol.h"
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

typedef struct halo_plan {
    MPI_Comm comm;  /* the run's communicator (not owned) */
    MPI_Comm graph; /* distributed graph over sources and destinations */
    int rank, size;
    int64_t n_global;
    int32_t n_owned, n_ghost;
    int64_t *gid; /* n_owned + n_ghost: global id of each local state */
    int nsources, ndests;
    int *source, *dest;   /* ranks, ascending */
    int32_t *recv_ptr;    /* nsources + 1: ghost offsets (from n_owned) per source */
    int32_t *send_ptr;    /* ndests + 1 */
    int32_t *send_idx;    /* send_ptr[ndests]: owned local ids, per destination */
    int32_t *reader_ptr;  /* n_owned + 1: an owned state's entries in reader_slot */
    int32_t *reader_slot; /* positions in send_idx of every copy of that state */
    int *send_count, *send_displ, *recv_count, *recv_displ; /* for MPI (one value each) */
    double *send_buf;                                       /* send_ptr[ndests] */
    int64_t edge_entries; /* entries of owned rows that read a ghost (once per row) */
} halo_plan;

/* Collective over comm: builds the plan for the owned ids (ascending, from
 * directory_owned_ids) with the directory's owner_block. Calls the problem's
 * row functions for owned states only. Returns 0, or -1 with err set (the
 * same on all ranks). */
int halo_build(halo_plan *h, const qmol_problem *p, const int64_t *owned, int32_t n_owned,
               const int32_t *owner_block, MPI_Comm comm, char *err, size_t errlen);
void halo_free(halo_plan *h);

/* Collective over h->graph: local[n_owned ..] (the ghosts) receive the
 * owners' current local values. */
void halo_exchange(halo_plan *h, double *local);
/* The same for a field of records of `stride` doubles: local state i's
 * value is first[i * stride]. */
void halo_exchange_strided(halo_plan *h, double *first, size_t stride);

/* Collective over full->comm: the plan of the states with keep[k] set (k a
 * local index of full, owned or ghost): a rank receives the ghosts it keeps
 * (their owners must keep them too), and an owner sends them. Local
 * numbering: the kept owned states, then the kept ghosts, each in full's
 * order. Returns 0, or -1 (out of memory, agreed). */
int halo_subset(halo_plan *sub, const halo_plan *full, const unsigned char *keep);

/* Number of owned states read by another rank. */
int32_t halo_boundary_count(const halo_plan *h);

#endif
