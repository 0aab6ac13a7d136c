/* part_deal.h: deals METIS pieces to ranks (--pieces).
 *
 * With K pieces per rank, each rank gets K pieces (one more or less when the
 * count does not divide), and neighbouring pieces go to different ranks
 * where the counts allow: pieces are visited breadth-first over their
 * adjacency and dealt round-robin, skipping the ranks of the pieces already
 * dealt next to them. A rank's pieces are then spread over the domain, so a
 * front crossing it keeps every rank busy. Deterministic (no randomness).
 */
#ifndef QMOL_PART_DEAL_H
#define QMOL_PART_DEAL_H

#include <stdint.h>

/* pairs[2k], pairs[2k + 1]: two adjacent pieces (any order, repeats
 * allowed; the array is sorted in place). Fills rank_of[piece] in [0, P).
 * Returns 0 or -1 (out of memory). pieces >= P >= 1. */
int part_deal(int32_t pieces, int P, int32_t *pairs, int64_t npairs, int32_t *rank_of);

#endif
