/* halo_records.h: variable numbers of fixed-size records (stride doubles
 * each) sent to the neighbours of a halo plan's graph (halo.h), the counts
 * first, then the records: the QSS window-end exchange's transport
 * (src/qss/qss_window.c), which says what a record holds.
 */
#ifndef QMOL_HALO_RECORDS_H
#define QMOL_HALO_RECORDS_H

#include "comm/halo.h"

#include <stddef.h>
#include <stdint.h>

typedef struct halo_records {
    int stride; /* doubles per record */
    /* per destination: records to send and their first record's index in
     * send; per source: doubles received and where they start in recv
     * (after halo_records_exchange) */
    int *scount, *sdispl, *rcount, *rdispl;
    double *send, *recv;
    size_t send_cap, recv_cap; /* in doubles */
} halo_records;

/* Allocates the counts for h's neighbours. Returns 0, or -1 (out of
 * memory). */
int halo_records_init(halo_records *r, const halo_plan *h, int stride);
void halo_records_free(halo_records *r);
/* Room in send for `records` records. Returns 0, or -1 (out of memory). */
int halo_records_room(halo_records *r, size_t records);
/* Collective over h's graph: sends scount[d] records from send + sdispl[d]
 * stride to destination d, receives into recv (rcount and rdispl then in
 * doubles), adds to *messages and *bytes what this rank sent. A rank that
 * could not make room (failed) still takes part, sending nothing, so that
 * the others keep step. Returns 0, or -1 (failed, or out of memory for
 * recv). */
int halo_records_exchange(halo_records *r, const halo_plan *h, int failed, uint64_t *messages,
                          uint64_t *bytes);

#endif
