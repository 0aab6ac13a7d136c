/* part_quality.h: edge cut, balance and state counts of a partition. */
#ifndef QMOL_PART_QUALITY_H
#define QMOL_PART_QUALITY_H

#include "partition/part_graph.h"
#include "partition/partition.h"

/* Collective. owner: this rank's directory block of owners of g's vertices.
 * Sets rep->edge_cut: total weight of the undirected edges whose ends have
 * different owners; rep->imbalance: the largest owned vertex weight (all
 * constraints) over the mean; rep->class_imbalance[c] with g->ncon = 2: the
 * same for constraint c alone (0 when it totals 0), else 0. counts[r] (P
 * entries, on every rank): vertices owned by rank r. Owners of neighbours
 * held on other ranks come from directory_lookup. Returns 0, or -1 with err
 * set (an owner outside [0, P), out of memory); verdict agreed. */
int part_quality(const part_graph *g, const int32_t *owner, MPI_Comm comm, partition_report *rep,
                 int64_t *counts, char *err, size_t errlen);

#endif
