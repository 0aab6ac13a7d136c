/* part_deal: pieces dealt to ranks, K each, neighbours on different ranks. */
#include "partition/part_deal.h"
#include "tests/support/test_support.h"

#include <stdlib.h>

/* Pairs of a pw x ph grid of pieces (4-neighbours); returns their count. */
static int64_t grid_pairs(int pw, int ph, int32_t *pairs) {
    int64_t m = 0;
    for (int y = 0; y < ph; y++)
        for (int x = 0; x < pw; x++) {
            int32_t p = x + pw * y;
            if (x + 1 < pw) pairs[2 * m] = p, pairs[2 * m + 1] = p + 1, m++;
            if (y + 1 < ph) pairs[2 * m] = p + pw, pairs[2 * m + 1] = p, m++; /* either order */
        }
    return m;
}

/* Each rank gets K pieces; returns how many adjacent pairs share a rank. */
static int64_t deal_grid(int pw, int ph, int P, int32_t *rank_of) {
    int32_t pairs[2 * 2 * 64];
    int64_t m = grid_pairs(pw, ph, pairs);
    int32_t copy[2 * 2 * 64];
    for (int64_t k = 0; k < 2 * m; k++)
        copy[k] = pairs[k];
    assert_int_equal(part_deal(pw * ph, P, pairs, m, rank_of), 0);
    int count[8] = {0};
    for (int p = 0; p < pw * ph; p++) {
        assert_true(rank_of[p] >= 0 && rank_of[p] < P);
        count[rank_of[p]]++;
    }
    for (int r = 0; r < P; r++)
        assert_int_equal(count[r], pw * ph / P);
    int64_t same = 0;
    for (int64_t k = 0; k < m; k++)
        same += rank_of[copy[2 * k]] == rank_of[copy[2 * k + 1]];
    return same;
}

static void chain_alternates(void **state) {
    (void)state;
    int32_t rank_of[8];
    assert_int_equal(deal_grid(8, 1, 2, rank_of), 0);
    for (int p = 1; p < 8; p++)
        assert_int_not_equal(rank_of[p], rank_of[p - 1]);
}

static void grids_of_pieces(void **state) {
    (void)state;
    int32_t rank_of[64];
    /* 2 ranks on a bipartite grid: a perfect alternation exists and is found */
    assert_int_equal(deal_grid(4, 4, 2, rank_of), 0);
    assert_int_equal(deal_grid(8, 2, 2, rank_of), 0);
    /* 4 ranks, 4 pieces each on 4 x 4: few same-rank neighbours (of 24 pairs) */
    int64_t same = deal_grid(4, 4, 4, rank_of);
    if (same > 4) fail_msg("%lld of 24 neighbouring pieces share a rank", (long long)same);
    /* pieces = P: one each */
    assert_int_equal(deal_grid(2, 2, 4, rank_of), 0);
}

/* Repeated and self pairs, and pieces without neighbours. */
static void odd_inputs(void **state) {
    (void)state;
    int32_t pairs[] = {0, 1, 1, 0, 0, 1, 2, 2}, rank_of[6];
    assert_int_equal(part_deal(6, 3, pairs, 4, rank_of), 0);
    int count[3] = {0};
    for (int p = 0; p < 6; p++)
        count[rank_of[p]]++;
    for (int r = 0; r < 3; r++)
        assert_int_equal(count[r], 2);
    assert_int_not_equal(rank_of[0], rank_of[1]);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(chain_alternates),
    cmocka_unit_test(grids_of_pieces),
    cmocka_unit_test(odd_inputs),
};

int main(int argc, char **argv) {
    return QMOL_RUN_TESTS(argc, argv, tests);
}
