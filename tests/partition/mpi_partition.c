/* partition_compute and partition_parse at 1-4 ranks.
 *
 * Every partition is checked to own each state exactly once with no rank
 * empty, and its reported edge cut and imbalance are recomputed serially from
 * all owners (gathered: the test problems are small). Bounds:
 *   - METIS imbalance <= 1.03 + (largest vertex weight) / (mean part weight):
 *     k-way METIS aims at 1.03 (default ufactor 30), and a part may be one
 *     vertex above that. With unit weights this is <= 1.1 for every case here
 *     (the smallest mean, heat3d's 60 states on 4 ranks, gives 1.097), which
 *     is checked too.
 *   - block imbalance on the 12 x 10 grid <= 1.2: the chosen splits (2x1, 3x1,
 *     2x2) divide it exactly (1.0); in general a box split is within
 *     prod ceil(dims / parts) / (n / P), which is checked as well.
 *   - METIS edge cut <= 1.5 x the block cut on the 12 x 10 grid (P >= 2): the
 *     box split is near optimal there, and METIS should match it.
 *   - coarsened METIS: the same 1.03 + one super-vertex bound, with the largest
 *     box as the vertex. On the 20 x 20 grid with coarsen_above = 100 (at most
 *     25 boxes: 5 x 5 boxes of 4 x 4 cells) that is at most 1.03 + 16 / 100 =
 *     1.19 < 1.3 for P <= 4, so imbalance <= 1.3 is checked there; with
 *     coarsen_above = 50 (12 boxes of 30-35 cells) the bound is 1.38 at P = 4.
 *   - vertex classes (two METIS constraints): METIS's tolerance is 1.03 for
 *     each constraint (the default ubvec with ncon = 2 too), so a rank holds
 *     at most 1 + e of its share of a class, e = 0.03 + K x the largest class
 *     weight of one METIS vertex (state or super-vertex) over the class's mean
 *     per rank, K pieces per rank; the other ranks then leave it at least
 *     1 - (P - 1) e. On the chain of 8000 states with K = 1, e <= 0.032: every
 *     share lies in [0.904, 1.032], within 10% (METIS fills P - 1 ranks to
 *     1.03: 0.91 is reached). Without classes METIS cuts the chain into P
 *     segments, the first at least 0.91 n / P >= 0.91 n / 4 long: it holds
 *     91% or more of class 1 (the first quarter), a share >= 0.91 P > 1.5. On
 *     the 80 x 80 grid (coarsened, super-vertices of <= 16 cells) e <= 0.07
 *     with K = 1; without classes class 1 (a corner quarter) gets a share
 *     >= 1.87 there (checked: >= 1.5).
 */
#include "comm/directory.h"
#include "partition/part_coarsen.h"
#include "partition/part_grid.h"
#include "partition/partition.h"
#include "problems/registry.h"
#include "tests/support/test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void drop(qmol_problem *p) {
    if (p->destroy) p->destroy(p->data);
}

typedef struct test_case {
    const char *name;
    const char *sets[3];
    int nsets;
} test_case;

static const test_case cases[] = {
    {"heat2d", {"nx=12", "ny=10"}, 2},
    {"adr1d", {"N=50"}, 1},
    {"heat3d", {"nx=4", "ny=5", "nz=3"}, 3},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

static qmol_problem make_case(int c) {
    return test_problem(cases[c].name, cases[c].sets, cases[c].nsets);
}

static qmol_problem grid_20x20(void) {
    return test_problem("heat2d", (const char *[]){"nx=20", "ny=20"}, 2);
}

/* A partition: this rank's directory block of owners and the report. */
typedef struct result {
    int32_t *owner;
    int64_t first, count;
    partition_report rep;
    int rc;
    char err[512];
} result;

static result run(const qmol_problem *p, partition_options o) {
    result r = {0};
    r.first = dir_first(p->n, test_nranks(), test_rank());
    r.count = dir_first(p->n, test_nranks(), test_rank() + 1) - r.first;
    r.owner = malloc((size_t)(r.count ? r.count : 1) * sizeof *r.owner);
    assert_non_null(r.owner);
    r.rc = partition_compute(p, &o, MPI_COMM_WORLD, r.owner, &r.rep, r.err, sizeof r.err);
    return r;
}

static result run_ok(const qmol_problem *p, partition_options o) {
    result r = run(p, o);
    if (r.rc) fail_msg("partition_compute: %s", r.err);
    return r;
}

static partition_options opts(partition_kind kind) {
    return (partition_options){.kind = kind};
}

/* All n owners on every rank. */
static int32_t *all_owners(const qmol_problem *p, const result *r) {
    int P = test_nranks();
    int *counts = malloc((size_t)P * sizeof *counts), *displs = malloc((size_t)P * sizeof *displs);
    int32_t *all = malloc((size_t)p->n * sizeof *all);
    assert_true(counts && displs && all);
    for (int k = 0; k < P; k++) {
        displs[k] = (int)dir_first(p->n, P, k);
        counts[k] = (int)(dir_first(p->n, P, k + 1) - displs[k]);
    }
    MPI_Allgatherv(r->owner, (int)r->count, MPI_INT32_T, all, counts, displs, MPI_INT32_T,
                   MPI_COMM_WORLD);
    free(counts), free(displs);
    return all;
}

static int cmp_pair(const void *a, const void *b) {
    const int64_t *x = a, *y = b;
    if (x[0] != y[0]) return (x[0] > y[0]) - (x[0] < y[0]);
    return (x[1] > y[1]) - (x[1] < y[1]);
}

/* Undirected edges {i, j}, i != j, j in row(i) or i in row(j), counted once,
 * whose ends have different owners. */
static int64_t serial_cut(const qmol_problem *p, const int32_t *all) {
    int64_t m = 0, cols[64];
    int64_t *pairs = malloc((size_t)p->n * 64 * 2 * sizeof *pairs);
    assert_non_null(pairs);
    for (int64_t i = 0; i < p->n; i++) {
        int s = p->row_size(p->data, i);
        assert_true(s <= 64);
        p->row(p->data, i, cols);
        for (int k = 0; k < s; k++) {
            if (cols[k] == i) continue;
            pairs[2 * m] = i < cols[k] ? i : cols[k];
            pairs[2 * m + 1] = i < cols[k] ? cols[k] : i;
            m++;
        }
    }
    qsort(pairs, (size_t)m, 2 * sizeof *pairs, cmp_pair);
    int64_t cut = 0;
    for (int64_t k = 0; k < m; k++) {
        int dup = k > 0 && pairs[2 * k] == pairs[2 * k - 2] && pairs[2 * k + 1] == pairs[2 * k - 1];
        if (!dup && all[pairs[2 * k]] != all[pairs[2 * k + 1]]) cut++;
    }
    free(pairs);
    return cut;
}

/* Largest owned weight over the mean, weights as partition_options says. */
static double serial_imbalance(const qmol_problem *p, const int32_t *all, int weight_by_row) {
    int P = test_nranks();
    double *w = calloc((size_t)P, sizeof *w), total = 0.0, most = 0.0;
    assert_non_null(w);
    for (int64_t i = 0; i < p->n; i++) {
        int s = weight_by_row ? p->row_size(p->data, i) : 1;
        w[all[i]] += s > 1 ? s : 1;
        total += s > 1 ? s : 1;
    }
    for (int r = 0; r < P; r++)
        most = w[r] > most ? w[r] : most;
    free(w);
    return most * P / total;
}

/* 1.03 + the largest vertex weight over the mean part weight. */
static double metis_bound(const qmol_problem *p, int weight_by_row) {
    double total = 0.0, most = 1.0;
    for (int64_t i = 0; i < p->n; i++) {
        int s = weight_by_row ? p->row_size(p->data, i) : 1;
        double w = s > 1 ? s : 1;
        total += w;
        most = w > most ? w : most;
    }
    return 1.03 + most * test_nranks() / total;
}

/* Each state has one owner in [0, P), every rank owns some, the owned ids
 * (directory_owned_ids) agree with the counts, and the report's edge cut and
 * imbalance are those of the owners. */
static void check_partition(const qmol_problem *p, const result *r, int weight_by_row) {
    int P = test_nranks(), ok = 1;
    int64_t *counts = calloc((size_t)P, sizeof *counts);
    assert_non_null(counts);
    for (int64_t k = 0; k < r->count; k++) {
        if (r->owner[k] < 0 || r->owner[k] >= P)
            ok = 0;
        else
            counts[r->owner[k]]++;
    }
    assert_true(test_all_true(ok));
    MPI_Allreduce(MPI_IN_PLACE, counts, P, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    int64_t total = 0;
    for (int k = 0; k < P; k++) {
        if (counts[k] == 0) fail_msg("rank %d owns nothing", k);
        total += counts[k];
    }
    assert_int_equal(total, p->n);
    int64_t *ids;
    int32_t count;
    char err[256];
    if (directory_owned_ids(p->n, r->owner, MPI_COMM_WORLD, &ids, &count, err, sizeof err))
        fail_msg("%s", err);
    int32_t *back = malloc((size_t)(count ? count : 1) * sizeof *back);
    assert_non_null(back);
    if (directory_lookup(p->n, r->owner, MPI_COMM_WORLD, ids, count, back, err, sizeof err))
        fail_msg("%s", err);
    ok = count == counts[test_rank()];
    for (int32_t k = 0; k < count; k++)
        ok &= back[k] == test_rank() && (k == 0 || ids[k] > ids[k - 1]);
    assert_true(test_all_true(ok));
    int32_t *all = all_owners(p, r);
    assert_int_equal(r->rep.edge_cut, serial_cut(p, all));
    assert_true(fabs(r->rep.imbalance - serial_imbalance(p, all, weight_by_row)) < 1e-12);
    if (P == 1) assert_int_equal(r->rep.edge_cut, 0);
    free(all), free(ids), free(back), free(counts);
}

/* Every rank's cells form one box: the bounding box of its cells holds exactly
 * as many cells as it owns. */
static void check_boxes(const qmol_problem *p, const result *r) {
    part_grid g;
    assert_true(part_grid_of(p, &g));
    int64_t *ids;
    int32_t count;
    char err[256];
    if (directory_owned_ids(p->n, r->owner, MPI_COMM_WORLD, &ids, &count, err, sizeof err))
        fail_msg("%s", err);
    int64_t lo[3] = {INT64_MAX, INT64_MAX, INT64_MAX}, hi[3] = {-1, -1, -1};
    for (int32_t k = 0; k < count; k++) {
        int64_t cell = ids[k] / g.components;
        for (int d = 0; d < 3; d++) {
            int64_t x = cell % g.dims[d];
            cell /= g.dims[d];
            lo[d] = x < lo[d] ? x : lo[d];
            hi[d] = x > hi[d] ? x : hi[d];
        }
    }
    int64_t volume = 1;
    for (int d = 0; d < 3; d++)
        volume *= hi[d] - lo[d] + 1;
    assert_true(test_all_true(count > 0 && volume * g.components == count));
    free(ids);
}

static void free_result(result *r) {
    free(r->owner);
}

static void parse_values(void **state) {
    (void)state;
    partition_options o = {.kind = PARTITION_FILE, .coarsen_above = 7, .weight_by_row = 1};
    char err[256];
    assert_int_equal(partition_parse("metis", &o, err, sizeof err), 0);
    assert_int_equal(o.kind, PARTITION_METIS);
    assert_int_equal(o.coarsen_above, 7); /* untouched */
    assert_int_equal(partition_parse("block", &o, err, sizeof err), 0);
    assert_int_equal(o.kind, PARTITION_BLOCK);
    const char *value = "file:/tmp/owners.txt";
    assert_int_equal(partition_parse(value, &o, err, sizeof err), 0);
    assert_int_equal(o.kind, PARTITION_FILE);
    assert_ptr_equal(o.file, value + 5);
    const char *bad[] = {"", "Metis", "blocks", "file", "file:", "metis ", "parmetis"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        err[0] = '\0';
        if (partition_parse(bad[k], &o, err, sizeof err) == 0) fail_msg("accepted '%s'", bad[k]);
        assert_non_null(strstr(err, "--partition"));
        assert_non_null(strstr(err, "file:PATH"));
    }
    assert_int_equal(partition_parse(NULL, &o, err, sizeof err), -1);
    assert_int_equal(partition_parse("block:1x2", &o, err, sizeof err), 0);
    assert_int_equal(o.kind, PARTITION_BLOCK);
    assert_true(o.boxes[0] == 1 && o.boxes[1] == 2 && o.boxes[2] == 0);
    assert_int_equal(partition_parse("block:2x1x3", &o, err, sizeof err), 0);
    assert_true(o.boxes[0] == 2 && o.boxes[1] == 1 && o.boxes[2] == 3);
    assert_int_equal(partition_parse("block", &o, err, sizeof err), 0);
    assert_true(o.boxes[0] == 0); /* automatic again */
    const char *bad_boxes[] = {"block:",    "block:0x2",     "block:2x",  "block:x2",
                               "block:2y2", "block:1x1x1x1", "block:-1x2"};
    for (size_t k = 0; k < sizeof bad_boxes / sizeof bad_boxes[0]; k++)
        if (partition_parse(bad_boxes[k], &o, err, sizeof err) == 0)
            fail_msg("accepted '%s'", bad_boxes[k]);
}

/* block:1xP on a 2D grid: horizontal bands, one per rank, in y order; a
 * split whose product is not P is refused on every rank. */
static void block_with_given_boxes(void **state) {
    (void)state;
    qmol_problem p = grid_20x20();
    partition_options o = opts(PARTITION_BLOCK);
    o.boxes[0] = 1;
    o.boxes[1] = test_nranks();
    result r = run_ok(&p, o);
    check_partition(&p, &r, 0);
    check_boxes(&p, &r);
    assert_true(r.rep.boxes[0] == 1 && r.rep.boxes[1] == test_nranks());
    for (int64_t k = 0; k < r.count; k++) {
        int64_t iy = (r.first + k) / 20, band = 0;
        while (iy >= (band + 1) * 20 / test_nranks()) /* bands [b 20/P, (b+1) 20/P) */
            band++;
        assert_int_equal(r.owner[k], (int32_t)band);
    }
    free_result(&r);
    o.boxes[1] = test_nranks() + 1;
    result bad = run(&p, o);
    assert_int_equal(bad.rc, -1);
    assert_non_null(strstr(bad.err, "block:1x"));
    free_result(&bad);
    drop(&p);
}

static void block_and_metis_are_partitions(void **state) {
    (void)state;
    partition_kind kinds[] = {PARTITION_BLOCK, PARTITION_METIS};
    for (int c = 0; c < NCASES; c++) {
        qmol_problem p = make_case(c);
        for (int k = 0; k < 2; k++)
            for (int w = 0; w <= 1; w++) {
                partition_options o = opts(kinds[k]);
                o.weight_by_row = w;
                result r = run_ok(&p, o);
                check_partition(&p, &r, w);
                assert_int_equal(r.rep.coarsened, 0);
                assert_int_equal(r.rep.fallback, 0); /* >= 50 states for <= 4 ranks */
                if (kinds[k] == PARTITION_METIS) {
                    assert_true(r.rep.imbalance <= metis_bound(&p, w));
                    if (!w) assert_true(r.rep.imbalance <= 1.1);
                }
                free_result(&r);
            }
        drop(&p);
    }
}

static void metis_matches_block_on_grid(void **state) {
    (void)state;
    qmol_problem p = make_case(0);
    result b = run_ok(&p, opts(PARTITION_BLOCK)), m = run_ok(&p, opts(PARTITION_METIS));
    check_partition(&p, &b, 0);
    check_partition(&p, &m, 0);
    assert_true(b.rep.imbalance <= 1.2);
    assert_int_equal(m.rep.fallback, 0);
    assert_true(m.rep.imbalance <= 1.1);
    if (test_nranks() >= 2) {
        assert_true(b.rep.edge_cut > 0);
        if ((double)m.rep.edge_cut > 1.5 * (double)b.rep.edge_cut)
            fail_msg("METIS cut %lld, block cut %lld", (long long)m.rep.edge_cut,
                     (long long)b.rep.edge_cut);
    }
    /* the box split of 12 x 10: 1x1, 2x1, 3x1, 2x2 */
    static const int expect[5][3] = {{0}, {1, 1, 1}, {2, 1, 1}, {3, 1, 1}, {2, 2, 1}};
    for (int d = 0; d < 3; d++)
        assert_int_equal(b.rep.boxes[d], expect[test_nranks()][d]);
    free_result(&b), free_result(&m);
    drop(&p);
}

static void block_is_boxes(void **state) {
    (void)state;
    for (int c = 0; c < NCASES; c++) {
        qmol_problem p = make_case(c);
        result r = run_ok(&p, opts(PARTITION_BLOCK));
        check_partition(&p, &r, 0);
        check_boxes(&p, &r);
        assert_int_equal(r.rep.fallback, 0);
        part_grid g;
        assert_true(part_grid_of(&p, &g));
        /* ranks per dimension multiply to P; boxes as even as possible */
        double biggest = 1.0;
        for (int d = 0; d < 3; d++)
            biggest *= (double)((g.dims[d] + r.rep.boxes[d] - 1) / r.rep.boxes[d]);
        assert_int_equal(r.rep.boxes[0] * r.rep.boxes[1] * r.rep.boxes[2], test_nranks());
        assert_true(r.rep.imbalance <= biggest * test_nranks() / (double)p.n + 1e-12);
        free_result(&r);
        drop(&p);
    }
}

static void grid_split_minimises_surface(void **state) {
    (void)state;
    part_grid square = {2, {1000, 1000, 1}, 1}, tall = {2, {100, 1000, 1}, 1};
    part_grid small = {2, {2, 2, 1}, 1}, cube = {3, {8, 8, 8}, 1};
    int64_t parts[3];
    assert_int_equal(part_grid_split(&square, 4, parts), 0);
    assert_true(parts[0] == 2 && parts[1] == 2 && parts[2] == 1);
    assert_int_equal(part_grid_split(&square, 3, parts), 0);
    assert_true(parts[0] == 3 && parts[1] == 1);
    assert_int_equal(part_grid_split(&tall, 3, parts), 0);
    assert_true(parts[0] == 1 && parts[1] == 3); /* along the longest dimension */
    assert_int_equal(part_grid_split(&cube, 8, parts), 0);
    assert_true(parts[0] == 2 && parts[1] == 2 && parts[2] == 2);
    assert_int_equal(part_grid_split(&small, 3, parts), -1); /* 3 slabs of 2 cells: none fit */
}

static void non_grid_block_is_id_ranges(void **state) {
    (void)state;
    qmol_problem p = make_case(0);
    p.ndims = 0; /* the same rows, no geometry */
    result r = run_ok(&p, opts(PARTITION_BLOCK));
    check_partition(&p, &r, 0);
    int ok = 1;
    for (int64_t k = 0; k < r.count; k++)
        ok &= r.owner[k] == test_rank();
    assert_true(test_all_true(ok));
    assert_true(r.rep.boxes[0] == 0 && r.rep.boxes[1] == 0 && r.rep.boxes[2] == 0);
    free_result(&r);
    drop(&p);
}

/* Every super-vertex of the map partition.c uses has one owner. Returns
 * 1.03 + the largest super-vertex over the mean part (unit weights). */
static double check_super_vertices(const qmol_problem *p, const result *r, int64_t coarsen_above) {
    int64_t target = coarsen_above / 4 > test_nranks() ? coarsen_above / 4 : test_nranks();
    part_coarse_map m;
    part_coarse_map_init(p, target, &m);
    assert_int_equal(m.nc, r->rep.coarse_vertices);
    assert_true(m.nc <= target);
    int32_t *all = all_owners(p, r), *box = malloc((size_t)m.nc * sizeof *box);
    assert_non_null(box);
    for (int64_t b = 0; b < m.nc; b++)
        box[b] = -1;
    for (int64_t i = 0; i < p->n; i++) {
        int64_t b = part_coarse_of(&m, i);
        if (box[b] < 0) box[b] = all[i];
        if (box[b] != all[i]) fail_msg("super-vertex %lld split between ranks", (long long)b);
    }
    int64_t *size = calloc((size_t)m.nc, sizeof *size), largest = 0;
    assert_non_null(size);
    for (int64_t i = 0; i < p->n; i++)
        size[part_coarse_of(&m, i)]++;
    for (int64_t b = 0; b < m.nc; b++)
        largest = size[b] > largest ? size[b] : largest;
    free(all), free(box), free(size);
    return 1.03 + (double)largest * test_nranks() / (double)p->n;
}

static void coarsened_metis(void **state) {
    (void)state;
    qmol_problem p = grid_20x20();
    partition_options o = opts(PARTITION_METIS);
    for (o.coarsen_above = 50; o.coarsen_above <= 100; o.coarsen_above += 50) {
        result a = run_ok(&p, o), b = run_ok(&p, o);
        check_partition(&p, &a, 0);
        assert_int_equal(a.rep.coarsened, test_nranks() > 1);
        if (test_nranks() > 1) {
            double bound = check_super_vertices(&p, &a, o.coarsen_above);
            assert_int_equal(a.rep.fallback, 0);
            assert_true(a.rep.imbalance <= bound);
            if (o.coarsen_above == 100) assert_true(a.rep.imbalance <= 1.3);
        }
        /* the same partition again */
        assert_true(
            test_all_true(memcmp(a.owner, b.owner, (size_t)a.count * sizeof *a.owner) == 0));
        assert_int_equal(a.rep.edge_cut, b.rep.edge_cut);
        free_result(&a), free_result(&b);
    }
    /* weighted rows, and id blocks when the grid is hidden */
    o.coarsen_above = 50;
    o.weight_by_row = 1;
    result w = run_ok(&p, o);
    check_partition(&p, &w, 1);
    p.ndims = 0;
    o.weight_by_row = 0;
    result ids = run_ok(&p, o);
    check_partition(&p, &ids, 0);
    assert_int_equal(ids.rep.coarsened, test_nranks() > 1);
    if (test_nranks() > 1) check_super_vertices(&p, &ids, o.coarsen_above);
    free_result(&w), free_result(&ids);
    drop(&p);
}

static void metis_is_deterministic(void **state) {
    (void)state;
    qmol_problem p = make_case(2);
    result a = run_ok(&p, opts(PARTITION_METIS)), b = run_ok(&p, opts(PARTITION_METIS));
    assert_true(test_all_true(memcmp(a.owner, b.owner, (size_t)a.count * sizeof *a.owner) == 0));
    free_result(&a), free_result(&b);
    drop(&p);
}

/* Fraction of the 20 x 20 grid's extent in x times that in y covered by
 * the bounding box of rank r's states (state id = ix + 20 iy). */
static double box_cover_of_rank(const int32_t *all, int r) {
    int lo[2] = {20, 20}, hi[2] = {-1, -1};
    for (int64_t s = 0; s < 400; s++) {
        if (all[s] != r) continue;
        int c[2] = {(int)(s % 20), (int)(s / 20)};
        for (int d = 0; d < 2; d++) {
            lo[d] = c[d] < lo[d] ? c[d] : lo[d];
            hi[d] = c[d] > hi[d] ? c[d] : hi[d];
        }
    }
    return (hi[0] - lo[0] + 1) / 20.0 * ((hi[1] - lo[1] + 1) / 20.0);
}

/* --pieces: METIS cuts K P pieces, dealt round-robin: still a balanced
 * partition, and on a grid each rank's states are spread over the domain:
 * their bounding box covers at least half of it and 1.5 times what one METIS
 * piece per rank covers (about 1/P); also on a coarsened graph. */
static void metis_pieces_dealt_round_robin(void **state) {
    (void)state;
    int P = test_nranks();
    qmol_problem p = grid_20x20();
    for (int coarse = 0; coarse <= 1; coarse++) {
        partition_options o = opts(PARTITION_METIS);
        o.pieces_per_rank = 4;
        o.coarsen_above = coarse ? 200 : 0;
        result r = run_ok(&p, o), again = run_ok(&p, o);
        check_partition(&p, &r, 0);
        assert_true(
            test_all_true(memcmp(r.owner, again.owner, (size_t)r.count * sizeof *r.owner) == 0));
        if (P > 1) {
            assert_int_equal(r.rep.pieces, 4 * P);
            assert_int_equal(r.rep.coarsened, coarse);
            assert_true(r.rep.imbalance <= (coarse ? 1.3 : 1.15));
            int32_t *all = all_owners(&p, &r);
            o.pieces_per_rank = 1;
            result one = run_ok(&p, o);
            int32_t *all1 = all_owners(&p, &one);
            for (int k = 0; k < P; k++) {
                double spread = box_cover_of_rank(all, k), single = box_cover_of_rank(all1, k);
                print_message("rank %d: box cover %.2f with 4 pieces, %.2f with 1\n", k, spread,
                              single);
                if (!(spread >= 0.5 && spread >= 1.5 * single))
                    fail_msg("rank %d covers %.2f of the grid with 4 pieces, %.2f with 1", k,
                             spread, single);
            }
            free(all), free(all1);
            free_result(&one);
        }
        free_result(&r), free_result(&again);
    }
    drop(&p);
}

/* Vertex classes of the mixed method. CLASS_QUARTER: class 1 (BDF) is a
 * contiguous quarter of the domain, the ids below n / 4 of a chain or the
 * cells ix < nx / 2, iy < ny / 2 of a 2D grid; the others: every state in
 * class 0 or every state in class 1. */
typedef enum class_layout { CLASS_QUARTER, CLASS_ALL_0, CLASS_ALL_1 } class_layout;

static int class_of(const qmol_problem *p, class_layout layout, int64_t i) {
    if (layout != CLASS_QUARTER) return layout == CLASS_ALL_1;
    if (p->ndims != 2) return i < p->n / 4;
    int64_t cell = i / p->components;
    return cell % p->dims[0] < p->dims[0] / 2 && cell / p->dims[0] < p->dims[1] / 2;
}

/* The classes of this rank's directory block (partition_options.vertex_class). */
static unsigned char *block_classes(const qmol_problem *p, class_layout layout) {
    int64_t first = dir_first(p->n, test_nranks(), test_rank());
    int64_t count = dir_first(p->n, test_nranks(), test_rank() + 1) - first;
    unsigned char *cls = malloc((size_t)(count ? count : 1));
    assert_non_null(cls);
    for (int64_t k = 0; k < count; k++)
        cls[k] = (unsigned char)class_of(p, layout, first + k);
    return cls;
}

static double state_weight(const qmol_problem *p, int64_t i, int weight_by_row) {
    int s = weight_by_row ? p->row_size(p->data, i) : 1;
    return s > 1 ? s : 1;
}

/* share[r] = rank r's weight of class c over the class's mean per rank (all:
 * every owner). Returns the largest share, the class's imbalance. */
static double class_shares(const qmol_problem *p, const int32_t *all, class_layout layout, int c,
                           int weight_by_row, double *share) {
    int P = test_nranks();
    double total = 0.0, most = 0.0;
    for (int r = 0; r < P; r++)
        share[r] = 0.0;
    for (int64_t i = 0; i < p->n; i++)
        if (class_of(p, layout, i) == c) {
            share[all[i]] += state_weight(p, i, weight_by_row);
            total += state_weight(p, i, weight_by_row);
        }
    for (int r = 0; r < P; r++) {
        share[r] = share[r] * P / total;
        most = share[r] > most ? share[r] : most;
    }
    return most;
}

/* The largest weight of class c in one vertex METIS sees: a state, or with
 * coarsen_above set a super-vertex (the map of check_super_vertices), over
 * the class's mean per rank. */
static double largest_vertex_share(const qmol_problem *p, const partition_options *o,
                                   class_layout layout, int c) {
    int64_t target = o->coarsen_above / 4 > test_nranks() ? o->coarsen_above / 4 : test_nranks();
    part_coarse_map m = {.nc = p->n};
    if (o->coarsen_above > 0) part_coarse_map_init(p, target, &m);
    double *w = calloc((size_t)m.nc, sizeof *w), total = 0.0, most = 0.0;
    assert_non_null(w);
    for (int64_t i = 0; i < p->n; i++) {
        if (class_of(p, layout, i) != c) continue;
        int64_t v = o->coarsen_above > 0 ? part_coarse_of(&m, i) : i;
        w[v] += state_weight(p, i, o->weight_by_row);
        total += state_weight(p, i, o->weight_by_row);
        most = w[v] > most ? w[v] : most;
    }
    free(w);
    return most * test_nranks() / total;
}

/* METIS with the classes of layout: a partition whose class_imbalance is the
 * largest share of each class, and every rank's share of each class within
 * [1 - (P - 1) e, 1 + e] (see the top of the file). Returns e, the larger of
 * the two classes'. */
static double check_class_balance(const qmol_problem *p, partition_options o, class_layout layout) {
    int P = test_nranks(), k = o.pieces_per_rank > 1 ? o.pieces_per_rank : 1;
    unsigned char *cls = block_classes(p, layout);
    o.vertex_class = cls;
    result r = run_ok(p, o);
    check_partition(p, &r, o.weight_by_row);
    if (P > 1 && o.coarsen_above > 0) check_super_vertices(p, &r, o.coarsen_above);
    int32_t *all = all_owners(p, &r);
    double *share = malloc((size_t)P * sizeof *share), most_e = 0.0;
    assert_non_null(share);
    for (int c = 0; c < 2; c++) {
        double most = class_shares(p, all, layout, c, o.weight_by_row, share);
        assert_true(fabs(r.rep.class_imbalance[c] - most) < 1e-12);
        if (P == 1) assert_true(r.rep.class_imbalance[c] == 1.0);
        double e = 0.03 + k * largest_vertex_share(p, &o, layout, c);
        for (int q = 0; q < P; q++)
            if (share[q] > 1.0 + e || share[q] < 1.0 - (P - 1) * e)
                fail_msg("rank %d holds %.3f times its share of class %d (bound e %.3f)", q,
                         share[q], c, e);
        most_e = e > most_e ? e : most_e;
    }
    free(share), free(all), free(cls);
    free_result(&r);
    return most_e;
}

/* The same partition without classes: both class_imbalance 0; returns class
 * 1's largest share. */
static double class1_without_classes(const qmol_problem *p, partition_options o) {
    int P = test_nranks();
    o.vertex_class = NULL;
    result r = run_ok(p, o);
    assert_true(r.rep.class_imbalance[0] == 0.0 && r.rep.class_imbalance[1] == 0.0);
    int32_t *all = all_owners(p, &r);
    double *share = malloc((size_t)P * sizeof *share);
    assert_non_null(share);
    double most = class_shares(p, all, CLASS_QUARTER, 1, o.weight_by_row, share);
    free(share), free(all);
    free_result(&r);
    return most;
}

/* A chain of 8000 states, class 1 its first quarter. With classes each rank
 * holds its share of each class, within 10% with one piece per rank; without,
 * METIS cuts the chain into P segments and one or two of them hold class 1. */
static void metis_balances_each_class(void **state) {
    (void)state;
    qmol_problem p = test_problem("heat1d", (const char *[]){"N=8000"}, 1);
    for (int w = 0; w <= 1; w++)
        for (int k = 1; k <= 4; k += 3) {
            partition_options o = opts(PARTITION_METIS);
            o.weight_by_row = w;
            o.pieces_per_rank = k;
            double e = check_class_balance(&p, o, CLASS_QUARTER);
            if (k > 1 || test_nranks() == 1) continue;
            assert_true((test_nranks() - 1) * e <= 0.1);
            double unbalanced = class1_without_classes(&p, o);
            if (test_rank() == 0)
                print_message("class 1: largest share %.3f without classes\n", unbalanced);
            assert_true(unbalanced >= 1.5);
        }
    drop(&p);
}

/* The coarsened path: an 80 x 80 grid in 25 x 25 boxes; the quarter's edges
 * x = 40 and y = 40 run inside slabs, so 25 boxes hold both classes. */
static void coarsened_metis_balances_each_class(void **state) {
    (void)state;
    qmol_problem p = test_problem("heat2d", (const char *[]){"nx=80", "ny=80"}, 2);
    for (int w = 0; w <= 1; w++)
        for (int k = 1; k <= 4; k += 3) {
            partition_options o = opts(PARTITION_METIS);
            o.coarsen_above = 2500;
            o.weight_by_row = w;
            o.pieces_per_rank = k;
            double e = check_class_balance(&p, o, CLASS_QUARTER);
            if (k > 1 || test_nranks() == 1) continue;
            assert_true(e <= 0.1);
            assert_true(class1_without_classes(&p, o) >= 1.5);
        }
    drop(&p);
}

/* o with the classes of layout: the owners, edge cut and imbalance of plain
 * (o without classes). */
static result same_as_plain(const qmol_problem *p, partition_options o, class_layout layout,
                            const result *plain) {
    unsigned char *cls = block_classes(p, layout);
    o.vertex_class = cls;
    result r = run_ok(p, o);
    free(cls);
    assert_true(
        test_all_true(memcmp(r.owner, plain->owner, (size_t)r.count * sizeof *r.owner) == 0));
    assert_int_equal(r.rep.edge_cut, plain->rep.edge_cut);
    assert_true(r.rep.imbalance == plain->rep.imbalance);
    return r;
}

/* With every state in one class METIS runs on one constraint: the partition
 * without classes bit for bit (also coarsened, in pieces), that class's
 * imbalance the total's and the other's 0. Block partitions ignore the
 * classes and measure them. */
/* The states of p's discontinuities and their neighbours up to `hops` edges
 * of the symmetrized rows away, as flags over all states (serial). */
static unsigned char *near_discontinuities(const qmol_problem *p, int hops) {
    unsigned char *in = calloc((size_t)p->n, 1);
    int64_t ids[64];
    assert_non_null(in);
    assert_true(p->n_affected <= 64);
    p->affected(p->data, ids);
    for (int64_t k = 0; k < p->n_affected; k++)
        in[ids[k]] = 1;
    for (int64_t c = 0; c < p->n_crossings; c++) {
        int len = p->crossing_size(p->data, c);
        assert_true(len <= 64);
        p->crossing_row(p->data, c, ids);
        for (int k = 0; k < len; k++)
            in[ids[k]] = 1;
    }
    for (int h = 0; h < hops; h++) {
        unsigned char *next = malloc((size_t)p->n);
        assert_non_null(next);
        memcpy(next, in, (size_t)p->n);
        for (int64_t i = 0; i < p->n; i++) {
            int len = p->row_size(p->data, i);
            assert_true(len <= 64);
            p->row(p->data, i, ids);
            for (int k = 0; k < len; k++)
                if (in[i] || in[ids[k]]) next[i] = next[ids[k]] = 1;
        }
        free(in);
        in = next;
    }
    return in;
}

/* gather_discrete: buck-heatsink's circuit and the rod sections within 3
 * hops end up on one rank; heat2d-thermostat's 36 heater nodes and sensor
 * move on 2 ranks (at most 400 / 8 states) but not on 4 (400 / 16), where
 * the owners are those of the plain partition. */
static void discontinuity_states_gathered(void **state) {
    (void)state;
    int P = test_nranks();
    qmol_problem buck = test_problem("buck-heatsink", NULL, 0);
    for (int hops = 0; hops <= 3; hops += 3) {
        partition_options o = {.kind = PARTITION_METIS,
                               .pieces_per_rank = 4,
                               .gather_discrete = 1,
                               .gather_hops = hops};
        result r = run_ok(&buck, o);
        int32_t *all = all_owners(&buck, &r);
        unsigned char *near = near_discontinuities(&buck, hops);
        int32_t owner = -1, count = 0;
        for (int64_t i = 0; i < buck.n; i++) {
            if (!near[i]) continue;
            if (owner < 0) owner = all[i];
            assert_int_equal(all[i], owner);
            count++;
        }
        assert_int_equal(count, hops ? 6 : 2); /* i_L and section 1; then u_C, sections 2-4 */
        free(all), free(near), free(r.owner);
    }
    drop(&buck);
    qmol_problem th = test_problem("heat2d-thermostat", NULL, 0);
    partition_options plain = {.kind = PARTITION_METIS, .pieces_per_rank = 4};
    partition_options gather = plain;
    gather.gather_discrete = 1;
    result a = run_ok(&th, plain), b = run_ok(&th, gather);
    int32_t *all = all_owners(&th, &b);
    unsigned char *near = near_discontinuities(&th, 0);
    int32_t first = -1, together = 1;
    for (int64_t i = 0; i < th.n; i++)
        if (near[i]) {
            if (first < 0) first = all[i];
            together &= all[i] == first;
        }
    if (P == 2) {
        assert_true(together);
        assert_int_equal(b.rep.gathered, 1);
    }
    if (P == 4) {
        assert_int_equal(b.rep.gathered, 0);
        for (int64_t k = 0; k < a.count; k++)
            assert_int_equal(a.owner[k], b.owner[k]);
    }
    free(all), free(near), free(a.owner), free(b.owner);
    drop(&th);
}

static void one_class_is_no_class(void **state) {
    (void)state;
    qmol_problem p = grid_20x20();
    partition_options metis[2] = {opts(PARTITION_METIS), opts(PARTITION_METIS)};
    metis[1].coarsen_above = 100;
    metis[1].pieces_per_rank = 4;
    for (int m = 0; m < 2; m++) {
        result plain = run_ok(&p, metis[m]);
        for (int c = 0; c < 2; c++) {
            result r = same_as_plain(&p, metis[m], c ? CLASS_ALL_1 : CLASS_ALL_0, &plain);
            assert_true(r.rep.class_imbalance[c] == r.rep.imbalance);
            assert_true(r.rep.class_imbalance[1 - c] == 0.0);
            free_result(&r);
        }
        free_result(&plain);
    }
    result plain = run_ok(&p, opts(PARTITION_BLOCK));
    result r = same_as_plain(&p, opts(PARTITION_BLOCK), CLASS_QUARTER, &plain);
    int32_t *all = all_owners(&p, &r);
    double *share = malloc((size_t)test_nranks() * sizeof *share);
    assert_non_null(share);
    for (int c = 0; c < 2; c++)
        assert_true(fabs(r.rep.class_imbalance[c] -
                         class_shares(&p, all, CLASS_QUARTER, c, 0, share)) < 1e-12);
    free(share), free(all);
    free_result(&r), free_result(&plain);
    drop(&p);
}

/* States that read only themselves: a graph without edges. */
static int self_row_size(const void *data, int64_t i) {
    (void)data, (void)i;
    return 1;
}
static void self_row(const void *data, int64_t i, int64_t *cols) {
    (void)data;
    cols[0] = i;
}
/* State 37 reads state 40 of 40: a row out of range. */
static int bad_row_size(const void *data, int64_t i) {
    (void)data;
    return i == 37 ? 2 : 1;
}
static void bad_row(const void *data, int64_t i, int64_t *cols) {
    (void)data;
    cols[0] = i;
    if (i == 37) cols[1] = 40;
}

static void graph_without_edges(void **state) {
    (void)state;
    qmol_problem p = {.n = 40, .row_size = self_row_size, .row = self_row, .components = 1};
    for (int k = 0; k < 2; k++) {
        result r = run_ok(&p, opts(k ? PARTITION_METIS : PARTITION_BLOCK));
        check_partition(&p, &r, 0);
        assert_int_equal(r.rep.edge_cut, 0);
        free_result(&r);
    }
}

/* Two states per cell of an 8 x 6 grid: each reads both states of its cell
 * and the same component of its 4 neighbours. */
enum { CELLS_X = 8, CELLS_Y = 6 };

static int pair_row(const void *data, int64_t i, int64_t *cols) {
    (void)data;
    int64_t cell = i / 2, c = i % 2, ix = cell % CELLS_X, iy = cell / CELLS_X;
    int n = 0;
    cols[n++] = 2 * cell, cols[n++] = 2 * cell + 1;
    if (ix > 0) cols[n++] = 2 * (cell - 1) + c;
    if (ix < CELLS_X - 1) cols[n++] = 2 * (cell + 1) + c;
    if (iy > 0) cols[n++] = 2 * (cell - CELLS_X) + c;
    if (iy < CELLS_Y - 1) cols[n++] = 2 * (cell + CELLS_X) + c;
    return n;
}
static int pair_row_size(const void *data, int64_t i) {
    int64_t cols[6];
    return pair_row(data, i, cols);
}
static void pair_row_cols(const void *data, int64_t i, int64_t *cols) {
    pair_row(data, i, cols);
}

/* Both components of every cell have the same owner. */
static void check_cells_whole(const qmol_problem *p, const result *r) {
    int32_t *all = all_owners(p, r);
    for (int64_t cell = 0; cell < p->n / 2; cell++)
        if (all[2 * cell] != all[2 * cell + 1]) fail_msg("cell %lld split", (long long)cell);
    free(all);
}

static void components_stay_together(void **state) {
    (void)state;
    qmol_problem p = {.n = 2 * CELLS_X * CELLS_Y,
                      .row_size = pair_row_size,
                      .row = pair_row_cols,
                      .ndims = 2,
                      .dims = {CELLS_X, CELLS_Y, 1},
                      .components = 2};
    result b = run_ok(&p, opts(PARTITION_BLOCK));
    check_partition(&p, &b, 0);
    check_boxes(&p, &b);
    check_cells_whole(&p, &b);
    partition_options o = opts(PARTITION_METIS);
    o.coarsen_above = 40; /* at most max(10, P) boxes of whole cells */
    result m = run_ok(&p, o);
    check_partition(&p, &m, 0);
    check_cells_whole(&p, &m);
    if (test_nranks() > 1) check_super_vertices(&p, &m, o.coarsen_above);
    free_result(&b), free_result(&m);
}

/* A 2 x 2 grid has no box split for 3 ranks: id ranges, reported. */
static void block_without_box_split(void **state) {
    (void)state;
    qmol_problem p = test_problem("heat2d", (const char *[]){"nx=2", "ny=2"}, 2);
    result r = run_ok(&p, opts(PARTITION_BLOCK));
    check_partition(&p, &r, 0);
    assert_int_equal(r.rep.fallback, test_nranks() == 3);
    if (test_nranks() == 3) {
        int ok = 1;
        for (int64_t k = 0; k < r.count; k++)
            ok &= r.owner[k] == test_rank();
        assert_true(test_all_true(ok));
        assert_int_equal(r.rep.boxes[0], 0);
    } else {
        check_boxes(&p, &r);
    }
    free_result(&r);
    drop(&p);
}

/* partition_compute fails on every rank with the message want. */
static void refused(const qmol_problem *p, partition_options o, const char *want) {
    result r = run(p, o);
    char root[512];
    memcpy(root, r.err, sizeof root);
    MPI_Bcast(root, (int)sizeof root, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (r.rc != -1) fail_msg("accepted (rc %d), expected \"%s\"", r.rc, want);
    if (strcmp(r.err, want) != 0) fail_msg("message \"%s\", expected \"%s\"", r.err, want);
    assert_string_equal(r.err, root);
    free_result(&r);
}

static void bad_requests(void **state) {
    (void)state;
    char want[256];
    qmol_problem bad = {.n = 40, .row_size = bad_row_size, .row = bad_row, .components = 1};
    refused(&bad, opts(PARTITION_METIS), "row 37 reads state 40, outside [0, 40)");
    if (test_nranks() >= 2) {
        char n[32];
        snprintf(n, sizeof n, "N=%d", test_nranks() - 1);
        qmol_problem few = test_problem("heat1d", (const char *[]){n}, 1);
        snprintf(want, sizeof want, "%d ranks for %d states: use at most %d ranks", test_nranks(),
                 test_nranks() - 1, test_nranks() - 1);
        refused(&few, opts(PARTITION_BLOCK), want);
        drop(&few);
    }
    qmol_problem p = make_case(1);
    partition_options o = opts(PARTITION_METIS);
    o.coarsen_above = -1;
    refused(&p, o, "coarsen_above is -1: it must be >= 0 (0: the default 20000000)");
    o.coarsen_above = 0;
    o.pieces_per_rank = -2;
    refused(&p, o, "pieces_per_rank is -2: it must be >= 0 (0: one piece per rank)");
    o.pieces_per_rank = 0;
    unsigned char *cls = block_classes(&p, CLASS_ALL_1);
    if (test_rank() == 0) cls[7] = 2; /* state 7: rank 0's block for P <= 4 */
    o.vertex_class = cls;
    refused(&p, o, "state 7 has vertex class 2: the classes are 0 and 1");
    free(cls);
    drop(&p);
}

/* A file name unique to this run: rank 0's pid, broadcast. */
static void temp_path(char *path, size_t len, const char *tag) {
    int pid = (int)getpid();
    MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(path, len, "/tmp/qmol_mpi_partition_%d_%s.txt", pid, tag);
}

/* Rank 0 writes lines[0..count) (one per line) to path. */
static void write_lines(const char *path, const char *const *lines, int64_t count) {
    if (test_rank() == 0) {
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        for (int64_t k = 0; k < count; k++)
            fprintf(f, "%s\n", lines[k]);
        fclose(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void remove_file(const char *path) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (test_rank() == 0) remove(path);
}

/* Owner lines for n states: state i on rank (i / 7) % P. */
static char **owner_lines(int64_t n) {
    char **lines = malloc((size_t)(n + 1) * sizeof *lines);
    assert_non_null(lines);
    for (int64_t i = 0; i <= n; i++) {
        lines[i] = malloc(16);
        assert_non_null(lines[i]);
        snprintf(lines[i], 16, "%d", (int)((i / 7) % test_nranks()));
    }
    return lines;
}

static void free_lines(char **lines, int64_t n) {
    for (int64_t i = 0; i <= n; i++)
        free(lines[i]);
    free(lines);
}

static void file_round_trip(void **state) {
    (void)state;
    qmol_problem p = make_case(1); /* 50 states: (i / 7) % P leaves no rank empty */
    char path[256];
    temp_path(path, sizeof path, "good");
    char **lines = owner_lines(p.n);
    write_lines(path, (const char *const *)lines, p.n);
    partition_options o = opts(PARTITION_FILE);
    o.file = path;
    result r = run_ok(&p, o);
    check_partition(&p, &r, 0);
    int ok = 1;
    for (int64_t k = 0; k < r.count; k++)
        ok &= r.owner[k] == ((r.first + k) / 7) % test_nranks();
    assert_true(test_all_true(ok));
    free_result(&r);
    free_lines(lines, p.n);
    remove_file(path);
    drop(&p);
}

/* A file made of lines is refused on every rank with the message want
 * (PATH in want stands for the file's path). */
static void file_refused(const qmol_problem *p, const char *tag, const char *const *lines,
                         int64_t count, const char *want) {
    char path[256], message[512];
    temp_path(path, sizeof path, tag);
    write_lines(path, lines, count);
    const char *at = strstr(want, "PATH");
    if (at)
        snprintf(message, sizeof message, "%.*s%s%s", (int)(at - want), want, path, at + 4);
    else
        snprintf(message, sizeof message, "%s", want);
    partition_options o = opts(PARTITION_FILE);
    o.file = path;
    refused(p, o, message);
    remove_file(path);
}

static void file_errors(void **state) {
    (void)state;
    qmol_problem p = make_case(1);
    int P = test_nranks();
    char **lines = owner_lines(p.n), want[256];
    const char *const *l = (const char *const *)lines;
    file_refused(&p, "short", l, p.n - 1,
                 "PATH has 49 lines, expected n = 50, one owner per state");
    file_refused(&p, "long", l, p.n + 1, "PATH has 51 lines, expected n = 50, one owner per state");
    snprintf(lines[2], 16, "x3");
    file_refused(&p, "word", l, p.n,
                 "PATH line 3: 'x3' is not an integer (one owner rank per line)");
    snprintf(lines[2], 16, "%s", "");
    file_refused(&p, "blank", l, p.n,
                 "PATH line 3: '' is not an integer (one owner rank per line)");
    snprintf(lines[2], 16, "0");
    snprintf(lines[4], 16, "%d", P);
    snprintf(want, sizeof want, "PATH line 5: owner %d is outside [0, %d) for %d ranks", P, P, P);
    file_refused(&p, "range", l, p.n, want);
    snprintf(lines[4], 16, "-1");
    snprintf(want, sizeof want, "PATH line 5: owner -1 is outside [0, %d) for %d ranks", P, P);
    file_refused(&p, "negative", l, p.n, want);
    if (P >= 2) {
        for (int64_t i = 0; i < p.n; i++)
            snprintf(lines[i], 16, "0");
        snprintf(want, sizeof want, "partition in PATH leaves rank 1 without states");
        file_refused(&p, "empty", l, p.n, want);
    }
    partition_options o = opts(PARTITION_FILE);
    o.file = "/nonexistent/qmol/owners.txt";
    refused(&p, o,
            "cannot open partition file /nonexistent/qmol/owners.txt: "
            "No such file or directory");
    free_lines(lines, p.n);
    drop(&p);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_values),
        cmocka_unit_test(block_and_metis_are_partitions),
        cmocka_unit_test(metis_matches_block_on_grid),
        cmocka_unit_test(block_is_boxes),
        cmocka_unit_test(block_with_given_boxes),
        cmocka_unit_test(grid_split_minimises_surface),
        cmocka_unit_test(non_grid_block_is_id_ranges),
        cmocka_unit_test(coarsened_metis),
        cmocka_unit_test(metis_is_deterministic),
        cmocka_unit_test(metis_pieces_dealt_round_robin),
        cmocka_unit_test(metis_balances_each_class),
        cmocka_unit_test(coarsened_metis_balances_each_class),
        cmocka_unit_test(one_class_is_no_class),
        cmocka_unit_test(discontinuity_states_gathered),
        cmocka_unit_test(graph_without_edges),
        cmocka_unit_test(components_stay_together),
        cmocka_unit_test(block_without_box_split),
        cmocka_unit_test(bad_requests),
        cmocka_unit_test(file_round_trip),
        cmocka_unit_test(file_errors),
    };
    return QMOL_RUN_TESTS(argc, argv, tests);
}
