/* mpi_comm.c: the comm/ layer at 1-4 ranks, checked against answers the
 * test works out from the header contracts (not from the implementation).
 *   sorted_ids: ids_compare's sign, also at INT64_MIN/MAX; ids_find on every
 *     prefix of a sorted array, present and absent ids.
 *   directory: dir_first = floor(r n / P) (also where r n overflows int64)
 *     and dir_rank_of for n = 1..30, P = 1..6 (n < P: empty blocks);
 *     directory_owned_ids and directory_lookup under reversed-block, cyclic
 *     and rank-0-empty owner maps; an owner outside [0, P) refused by all.
 *   agree: no failure; the last rank failing alone; the lowest failing rank
 *     with a message wins over a lower one without; with no message, the
 *     lowest failing rank's rc; a rank with rc 0 and stale err never speaks.
 *   halo: a ring of 12 states (row i reads i-1, i, i+1) under reversed
 *     blocks and with state 0 alone on rank 0 (read by two ranks at P >= 3):
 *     ghost ids and order, sources, boundary count, sends, halo_exchange
 *     delivering f(global id); halo_subset keeping the even ids.
 *   redistribute: the owner maps above (n = 2, 23) to the directory blocks
 *     and back; a partition missing a state refused by all.
 * Distributed checks are agreed (test_all_true): all ranks pass or fail. */
#include "tests/support/test_support.h"
#include "comm/agree.h"
#include "comm/directory.h"
#include "comm/halo.h"
#include "comm/redistribute.h"
#include "comm/sorted_ids.h"

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ok on every rank; a rank where it is not says so, then all fail. */
static void agreed(int ok, const char *what) {
    if (!ok) print_error("rank %d of %d: %s wrong\n", test_rank(), test_nranks(), what);
    assert_true(test_all_true(ok));
}

/* A refusal every rank sees: rc -1 and rank 0's message, not empty. */
static void refused_by_all(int rc, const char *err, const char *what) {
    char root[256] = {0};
    snprintf(root, sizeof root, "%s", err);
    MPI_Bcast(root, (int)sizeof root, MPI_CHAR, 0, MPI_COMM_WORLD);
    agreed(rc == -1 && err[0] != '\0' && strcmp(root, err) == 0, what);
}

/* The value state g carries in round 0, 1, ... of a test. */
static double value_of(int64_t g, int round) {
    return 1000.0 * round + 0.5 * (double)g + 1.0;
}

/* Owner maps: who owns state g of n among P ranks. */
enum layout { REVERSED_BLOCKS, CYCLIC, RANK0_EMPTY, RANK0_LONE };
/* the maps for directory and redistribute (RANK0_LONE is for the halo) */
static const enum layout owner_maps[] = {REVERSED_BLOCKS, CYCLIC, RANK0_EMPTY};

/* The directory block start floor(r n / P), written out here (small n). */
static int64_t block_start(int64_t n, int P, int r) {
    return (int64_t)r * n / P;
}

static int owner_of(enum layout layout, int64_t n, int P, int64_t g) {
    int block = 0;
    switch (layout) {
    case REVERSED_BLOCKS: /* directory block b is owned by rank P-1-b */
        while (g >= block_start(n, P, block + 1))
            block++;
        return P - 1 - block;
    case CYCLIC:
        return (int)(g % P);
    case RANK0_EMPTY: /* cyclic over ranks 1 .. P-1 */
        return P == 1 ? 0 : 1 + (int)(g % (P - 1));
    default: /* RANK0_LONE: state 0 alone, 1 .. n-1 in runs over 1 .. P-1 */
        return P == 1 || g == 0 ? 0 : 1 + (int)((g - 1) * (P - 1) / (n - 1));
    }
}

/* This rank's owned ids, ascending (malloc'd). */
static int64_t *owned_ids(enum layout layout, int64_t n, int32_t *count) {
    int64_t *ids = malloc((size_t)(n + 1) * sizeof *ids);
    assert_non_null(ids);
    *count = 0;
    for (int64_t g = 0; g < n; g++)
        if (owner_of(layout, n, test_nranks(), g) == test_rank()) ids[(*count)++] = g;
    return ids;
}

/* This rank's directory block of owners (malloc'd). */
static int32_t *owner_block(enum layout layout, int64_t n) {
    int P = test_nranks(), r = test_rank();
    int64_t first = block_start(n, P, r), len = block_start(n, P, r + 1) - first;
    int32_t *owners = malloc((size_t)(len + 1) * sizeof *owners);
    assert_non_null(owners);
    for (int64_t k = 0; k < len; k++)
        owners[k] = owner_of(layout, n, P, first + k);
    return owners;
}

static void sorted_ids_compare_and_find(void **state) {
    (void)state;
    int64_t lo = INT64_MIN, hi = INT64_MAX, a = -5, b = 3;
    assert_true(ids_compare(&a, &b) < 0);
    assert_true(ids_compare(&b, &a) > 0);
    assert_int_equal(ids_compare(&b, &b), 0);
    assert_true(ids_compare(&lo, &hi) < 0); /* a difference would overflow */
    assert_true(ids_compare(&hi, &lo) > 0);
    int64_t ids[] = {40, -3, 17, 8, 1000000000000, 0, 9};
    const int64_t sorted[] = {-3, 0, 8, 9, 17, 40, 1000000000000};
    const int64_t absent[] = {INT64_MIN, -4, 1, 10, 41, 999999999999, INT64_MAX};
    qsort(ids, 7, sizeof ids[0], ids_compare);
    for (int32_t m = 0; m <= 7; m++) /* every prefix, odd and even lengths */
        for (int32_t k = 0; k < 7; k++) {
            assert_int_equal(ids[k], sorted[k]);
            assert_int_equal(ids_find(ids, m, sorted[k]), k < m ? k : -1);
            assert_int_equal(ids_find(ids, m, absent[k]), -1);
        }
}

static void directory_blocks(void **state) {
    (void)state;
    for (int64_t n = 1; n <= 30; n++)
        for (int P = 1; P <= 6; P++) {
            for (int r = 0; r <= P; r++)
                assert_int_equal(dir_first(n, P, r), block_start(n, P, r));
            for (int64_t g = 0; g < n; g++) {
                int want = 0; /* the one block holding g; empty ones hold nothing */
                while (!(block_start(n, P, want) <= g && g < block_start(n, P, want + 1)))
                    want++;
                assert_int_equal(dir_rank_of(n, P, g), want);
            }
        }
    const int64_t big = 6000000000000000000, /* r big overflows int64 from r = 2 */
        big_first[] = {0, 1500000000000000000, 3000000000000000000, 4500000000000000000, big};
    for (int r = 0; r <= 4; r++)
        assert_int_equal(dir_first(big, 4, r), big_first[r]);
    assert_int_equal(dir_rank_of(big, 4, 4499999999999999999), 2);
    assert_int_equal(dir_rank_of(big, 4, 4500000000000000000), 3);
    assert_int_equal(dir_rank_of(big, 4, big - 1), 3);
}

/* directory_owned_ids and directory_lookup under one owner map. */
static void check_directory(enum layout layout, int64_t n) {
    int P = test_nranks(), r = test_rank();
    int32_t *block = owner_block(layout, n), want_count, count;
    int64_t *want = owned_ids(layout, n, &want_count), *ids;
    char err[256];
    if (directory_owned_ids(n, block, MPI_COMM_WORLD, &ids, &count, err, sizeof err))
        fail_msg("directory_owned_ids: %s", err); /* agreed: on every rank */
    int ok = count == want_count && memcmp(ids, want, (size_t)count * sizeof *ids) == 0;
    agreed(ok, "directory_owned_ids");
    /* any order, repeats, and no query at all on rank 1 */
    int64_t nq = r == 1 ? 0 : n + 3, query[40];
    int32_t owners[40];
    for (int64_t k = 0; k < nq; k++)
        query[k] = (7 * (nq - k) + r) % n;
    if (directory_lookup(n, block, MPI_COMM_WORLD, query, nq, owners, err, sizeof err))
        fail_msg("directory_lookup: %s", err);
    ok = 1;
    for (int64_t k = 0; k < nq; k++)
        ok &= owners[k] == owner_of(layout, n, P, query[k]);
    agreed(ok, "directory_lookup");
    free(block), free(want), free(ids);
}

static void directory_owners(void **state) {
    (void)state;
    for (int l = 0; l < 3; l++) {
        check_directory(owner_maps[l], 2); /* 2 < P: empty blocks and owners */
        check_directory(owner_maps[l], 13);
    }
    /* the last rank's block starts with owner P: refused everywhere */
    int P = test_nranks(), r = test_rank();
    int32_t *block = owner_block(CYCLIC, 13), count;
    if (r == P - 1) block[0] = P;
    int64_t *ids = NULL;
    char err[256] = "", bad_state[32];
    snprintf(bad_state, sizeof bad_state, "state %lld", (long long)block_start(13, P, P - 1));
    int rc = directory_owned_ids(13, block, MPI_COMM_WORLD, &ids, &count, err, sizeof err);
    refused_by_all(rc, err, "refusal of owner P");
    agreed(strstr(err, bad_state) != NULL, "message naming the bad state");
    free(block);
}

/* comm_agree with this rank's rc and err text: every rank must get want_rc
 * and, when it is not 0, want_msg. */
static void agree_case(int rc, const char *text, int want_rc, const char *want_msg) {
    char err[128];
    snprintf(err, sizeof err, "%s", text);
    int got = comm_agree(MPI_COMM_WORLD, rc, err, sizeof err);
    int ok = got == want_rc && (want_rc == 0 || strcmp(err, want_msg) == 0);
    if (!ok)
        print_error("rank %d: got %d \"%s\", expected %d \"%s\"\n", test_rank(), got, err, want_rc,
                    want_msg);
    assert_true(test_all_true(ok));
}

static void agree_verdicts(void **state) {
    (void)state;
    int P = test_nranks(), r = test_rank();
    char mine[64], want[64];
    agree_case(0, "", 0, "");
    agree_case(0, "stale text", 0, ""); /* rc 0 everywhere: no failure */
    /* the last rank alone fails; the others hold stale text */
    snprintf(want, sizeof want, "rank %d: bad row 12", P - 1);
    agree_case(r == P - 1 ? -7 : 0, r == P - 1 ? want : "stale text", -7, want);
    /* rank 0 stops without a message, ranks >= 1 fail (rc 10 + r) with one:
     * the lowest with a message, rank 1, speaks */
    snprintf(mine, sizeof mine, "rank %d failed", r);
    agree_case(r == 0 ? -1 : 10 + r, r == 0 ? "" : mine, P == 1 ? -1 : 11,
               P == 1 ? "" : "rank 1 failed");
    /* ranks >= P/2 fail (rc 20 + r) without messages: the lowest one's rc
     * and its empty message, not the stale text of the ranks below */
    agree_case(r >= P / 2 ? 20 + r : 0, r >= P / 2 ? "" : "stale text", 20 + P / 2, "");
}

/* The halo's ring of RING_N states: row i = {i-1, i, i+1} mod RING_N. */
enum { RING_N = 12 };

static int ring_row_size(const void *data, int64_t i) {
    (void)data, (void)i;
    return 3;
}

static void ring_row(const void *data, int64_t i, int64_t *cols) {
    (void)data;
    cols[0] = (i + RING_N - 1) % RING_N, cols[1] = i, cols[2] = (i + 1) % RING_N;
}

/* What this rank should see in the ring, worked out from the owner map:
 * ghosts (by owner rank, then id), the ranks they come from, boundary
 * states (also the even ones), (owned row, ghost) entries, (reader, state)
 * sends and the reading ranks. */
typedef struct ring_expect {
    int64_t ghost[RING_N];
    int32_t n_ghost, sources, boundary, even_boundary, edge_entries, sends, readers;
} ring_expect;

static ring_expect ring_expected(enum layout layout) {
    int P = test_nranks(), me = test_rank();
    ring_expect e = {0};
    int owner[RING_N];
    for (int64_t g = 0; g < RING_N; g++)
        owner[g] = owner_of(layout, RING_N, P, g);
    for (int64_t g = 0; g < RING_N; g++) {
        int left = owner[(g + RING_N - 1) % RING_N], right = owner[(g + 1) % RING_N];
        int read_elsewhere = owner[g] == me && (left != me || right != me);
        e.boundary += read_elsewhere;
        e.even_boundary += read_elsewhere && g % 2 == 0;
        e.edge_entries += owner[g] == me ? (left != me) + (right != me) : 0;
    }
    for (int o = 0; o < P; o++) {
        int reads_me = 0, ghosts_before = e.n_ghost;
        for (int64_t g = 0; o != me && g < RING_N; g++) {
            int left = owner[(g + RING_N - 1) % RING_N], right = owner[(g + 1) % RING_N];
            if (owner[g] == o && (left == me || right == me)) e.ghost[e.n_ghost++] = g;
            if (owner[g] == me && (left == o || right == o)) e.sends++, reads_me = 1;
        }
        e.readers += reads_me;
        e.sources += e.n_ghost > ghosts_before;
    }
    return e;
}

/* After halo_exchange every ghost holds its owner's value, twice over with
 * new values (no stale copies). */
static int exchange_delivers(halo_plan *h) {
    int32_t nl = h->n_owned + h->n_ghost;
    double *local = malloc((size_t)(nl + 1) * sizeof *local);
    assert_non_null(local);
    int ok = 1;
    for (int round = 0; round < 2; round++) {
        for (int32_t i = 0; i < nl; i++)
            local[i] = i < h->n_owned ? value_of(h->gid[i], round) : -1.0;
        halo_exchange(h, local);
        for (int32_t i = h->n_owned; i < nl; i++)
            ok &= local[i] == value_of(h->gid[i], round);
    }
    free(local);
    return ok;
}

/* The plan's numbering, neighbours and counts are those of e. */
static int plan_matches(const halo_plan *h, const int64_t *owned, int32_t n_owned,
                        const ring_expect *e, enum layout layout) {
    int ok = h->n_owned == n_owned && h->n_ghost == e->n_ghost && h->nsources == e->sources &&
             h->ndests == e->readers && halo_boundary_count(h) == e->boundary &&
             h->send_ptr[h->ndests] == e->sends && h->edge_entries == e->edge_entries &&
             memcmp(h->gid, owned, (size_t)n_owned * sizeof *owned) == 0 &&
             memcmp(h->gid + n_owned, e->ghost, (size_t)e->n_ghost * sizeof *owned) == 0;
    for (int s = 0; ok && s < h->nsources; s++) /* ascending, one group each */
        for (int32_t k = h->recv_ptr[s]; k < h->recv_ptr[s + 1]; k++)
            ok &= (s == 0 || h->source[s] > h->source[s - 1]) &&
                  owner_of(layout, RING_N, h->size, h->gid[n_owned + k]) == h->source[s];
    return ok && h->recv_ptr[0] == 0 && h->recv_ptr[h->nsources] == e->n_ghost;
}

/* halo_subset keeping the even ids: the even owned states and ghosts, and
 * ghosts still delivered. */
static void check_even_subset(const halo_plan *full, const ring_expect *e) {
    int32_t nl = full->n_owned + full->n_ghost, even_owned = 0, even_ghosts = 0;
    unsigned char *keep = malloc((size_t)nl + 1);
    assert_non_null(keep);
    for (int32_t k = 0; k < nl; k++) {
        keep[k] = full->gid[k] % 2 == 0;
        even_owned += k < full->n_owned && keep[k];
    }
    for (int32_t k = 0; k < e->n_ghost; k++)
        even_ghosts += e->ghost[k] % 2 == 0;
    halo_plan sub;
    assert_int_equal(halo_subset(&sub, full, keep), 0); /* agreed */
    int ok = sub.n_owned == even_owned && sub.n_ghost == even_ghosts &&
             halo_boundary_count(&sub) == e->even_boundary;
    for (int32_t k = 0, s = 0; ok && k < nl; k++)
        if (keep[k]) ok = sub.gid[s++] == full->gid[k];
    agreed(ok, "halo_subset plan");
    agreed(exchange_delivers(&sub), "halo_exchange on the subset");
    halo_free(&sub);
    free(keep);
}

static void check_ring(enum layout layout) {
    qmol_problem p = {.n = RING_N, .row_size = ring_row_size, .row = ring_row, .components = 1};
    int32_t *block = owner_block(layout, RING_N), n_owned;
    int64_t *owned = owned_ids(layout, RING_N, &n_owned);
    ring_expect e = ring_expected(layout);
    halo_plan h;
    char err[256];
    if (halo_build(&h, &p, owned, n_owned, block, MPI_COMM_WORLD, err, sizeof err))
        fail_msg("halo_build: %s", err);
    agreed(plan_matches(&h, owned, n_owned, &e, layout), "halo plan");
    agreed(exchange_delivers(&h), "halo_exchange");
    check_even_subset(&h, &e);
    halo_free(&h);
    free(block), free(owned);
}

static void halo_ring(void **state) {
    (void)state;
    int P = test_nranks(), r = test_rank();
    /* reversed blocks of >= 3 states: the two ends of each block are read
     * by the neighbouring blocks' ranks (one rank on both sides at P = 2) */
    ring_expect e = ring_expected(REVERSED_BLOCKS);
    agreed(e.n_ghost == (P > 1 ? 2 : 0) && e.boundary == (P > 1 ? 2 : 0) &&
               e.readers == (P > 2 ? 2 : P - 1),
           "hand count, reversed blocks");
    check_ring(REVERSED_BLOCKS);
    /* state 0 alone on rank 0: read by rank 1 (state 1) and rank P-1
     * (state 11), two ranks at P >= 3, sent once to each */
    e = ring_expected(RANK0_LONE);
    agreed(r != 0 || P == 1 ||
               (e.n_ghost == 2 && e.boundary == 1 && e.sends == (P > 2 ? 2 : 1) &&
                e.readers == (P > 2 ? 2 : 1) && e.edge_entries == 2),
           "hand count, lone state");
    check_ring(RANK0_LONE);
}

static void check_redistribute(enum layout layout, int64_t n) {
    int P = test_nranks(), r = test_rank();
    int32_t n_owned;
    int64_t *owned = owned_ids(layout, n, &n_owned);
    int64_t first = block_start(n, P, r), len = block_start(n, P, r + 1) - first;
    double *x = malloc((size_t)(n_owned + 1) * sizeof *x);
    double *block = malloc((size_t)(len + 1) * sizeof *block);
    assert_true(x && block);
    redistribute_plan plan;
    char err[256];
    if (redistribute_build(&plan, n, owned, n_owned, MPI_COMM_WORLD, err, sizeof err))
        fail_msg("redistribute_build: %s", err);
    for (int32_t k = 0; k < n_owned; k++)
        x[k] = value_of(owned[k], 0);
    for (int64_t j = 0; j < len; j++)
        block[j] = -1.0;
    redistribute(&plan, x, block);
    int ok = plan.block_first == first && plan.block_count == len;
    for (int64_t j = 0; j < len; j++) {
        ok &= block[j] == value_of(first + j, 0);
        block[j] = value_of(first + j, 1); /* x still holds round 0 */
    }
    redistribute_back(&plan, block, x);
    for (int32_t k = 0; k < n_owned; k++)
        ok &= x[k] == value_of(owned[k], 1);
    agreed(ok, "redistribute to the blocks and back");
    redistribute_free(&plan);
    free(owned), free(x), free(block);
}

static void redistribute_layouts(void **state) {
    (void)state;
    for (int l = 0; l < 3; l++) {
        check_redistribute(owner_maps[l], 2); /* P > 2: empty blocks */
        check_redistribute(owner_maps[l], 23);
    }
    /* the last rank leaves out its last state: refused on every rank */
    int32_t n_owned;
    int64_t *owned = owned_ids(CYCLIC, 23, &n_owned);
    if (test_rank() == test_nranks() - 1) n_owned--;
    redistribute_plan plan;
    char err[256] = "";
    int rc = redistribute_build(&plan, 23, owned, n_owned, MPI_COMM_WORLD, err, sizeof err);
    refused_by_all(rc, err, "refusal of a partition missing a state");
    free(owned);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sorted_ids_compare_and_find),
        cmocka_unit_test(directory_blocks),
        cmocka_unit_test(directory_owners),
        cmocka_unit_test(agree_verdicts),
        cmocka_unit_test(halo_ring),
        cmocka_unit_test(redistribute_layouts),
    };
    return QMOL_RUN_TESTS(argc, argv, tests);
}
