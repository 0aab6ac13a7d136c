/* sorted_ids.h: ascending arrays of global state ids (owned lists, ghost
 * lists, adjacency lists): the qsort comparison and the binary search. */
#ifndef QMOL_SORTED_IDS_H
#define QMOL_SORTED_IDS_H

#include <stdint.h>

/* qsort comparison of int64_t ids. */
int ids_compare(const void *a, const void *b);

/* Index of g in the ascending array a[0 .. n), or -1. */
int32_t ids_find(const int64_t *a, int32_t n, int64_t g);

#endif
