/* memory_check.c: the memory a run will take, against what it may use
 * (memory_check.h). */
#include "driver/memory_check.h"

#include "comm/agree.h"

#include <math.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

/* Mean row size over up to MEMORY_SAMPLE_ROWS rows spread over [0, n): all
 * rows when n is that small, else rows at the fractional parts of k times the
 * golden ratio, which no grid's stride lines up with (an even stride of
 * n / 1000 rows falls on the same column of an nx x ny grid every time:
 * heat2d 3000 x 3000 counted only boundary rows). *longest: the longest
 * row sampled. */
static double mean_row(const qmol_problem *p, double *longest) {
    int64_t count = p->n < MEMORY_SAMPLE_ROWS ? p->n : MEMORY_SAMPLE_ROWS;
    double sum = 0.0;
    *longest = 0.0;
    for (int64_t k = 0; k < count; k++) {
        int64_t i = k;
        if (count < p->n) {
            double spread = (double)k * 0.6180339887498949;
            i = (int64_t)((spread - floor(spread)) * (double)p->n);
        }
        double row = p->row_size(p->data, i < p->n ? i : p->n - 1);
        sum += row;
        if (row > *longest) *longest = row;
    }
    return count > 0 ? sum / (double)count : 0.0;
}

/* What helps when METIS's phase on rank 0 is the larger: more ranks do not
 * (rank 0 holds the whole graph). */
#define METIS_ADVICE                                                                               \
    "partition a coarsened graph (--coarsen-above below n), partition without METIS "              \
    "(--partition block), or give rank 0 more memory"

/* "3.2 GiB" */
static void human(double bytes, char *buf, size_t len) {
    static const char *const unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 6) {
        bytes /= 1024.0;
        u++;
    }
    snprintf(buf, len, u ? "%.1f %s" : "%.0f %s", bytes, unit[u]);
}

/* This process's own limit: the smaller of RLIMIT_AS and RLIMIT_DATA, or
 * INFINITY; *which names it. */
static double process_limit(const char **which) {
    double lim = INFINITY;
    struct rlimit r;
    if (getrlimit(RLIMIT_AS, &r) == 0 && r.rlim_cur != RLIM_INFINITY) {
        lim = (double)r.rlim_cur;
        *which = "address-space limit (ulimit -v)";
    }
    if (getrlimit(RLIMIT_DATA, &r) == 0 && r.rlim_cur != RLIM_INFINITY &&
        (double)r.rlim_cur < lim) {
        lim = (double)r.rlim_cur;
        *which = "data-size limit (ulimit -d)";
    }
    return lim;
}

int memory_check(const qmol_problem *p, const memory_extra *extra, MPI_Comm comm, char *err,
                 size_t errlen) {
    int64_t metis_vertices = extra->metis_vertices;
    int size, rank;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    double longest, row = mean_row(p, &longest);
    /* the kept window's fields per entry are as many as the longest row's */
    double kept = 8.0 * (extra->kept_doubles + extra->kept_entry_doubles * longest);
    double per_state = extra->state_bytes + extra->entry_bytes * row + kept;
    double share = ceil((double)p->n / (double)size);
    /* two phases: partitioning (rank 0 holds the graph METIS partitions),
     * then the states */
    double metis =
        rank == 0 && metis_vertices > 0
            ? (MEMORY_METIS_VERTEX_BYTES + MEMORY_METIS_ENTRY_BYTES * row) * (double)metis_vertices
            : 0.0;
    double phase[2] = {MEMORY_BASE_BYTES + MEMORY_PARTITION_STATE_BYTES * share + metis,
                       MEMORY_BASE_BYTES + per_state * share};
    int partitioning = phase[0] > phase[1]; /* this rank's peak is METIS's */
    double mine = partitioning ? phase[0] : phase[1];
    /* the ranks sharing this node's memory, phase by phase */
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int on_node;
    MPI_Comm_size(node, &on_node);
    double node_phase[2];
    MPI_Allreduce(phase, node_phase, 2, MPI_DOUBLE, MPI_SUM, node);
    MPI_Comm_free(&node);
    int node_partitioning = node_phase[0] > node_phase[1];
    double node_need = node_partitioning ? node_phase[0] : node_phase[1];
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    double node_memory = pages > 0 && page > 0 ? (double)pages * (double)page : INFINITY;
    const char *which = "";
    double limit = process_limit(&which);
    int bad = 0;
    char need[32], have[32];
    /* the states' phase: more nodes or ranks, and the kept window's share */
    char states_advice[192], ranks_advice[192];
    char off[96] = "";
    if (kept > 0.0)
        snprintf(off, sizeof off, ", or --keep-last-window off (%.0f bytes per state less)", kept);
    snprintf(states_advice, sizeof states_advice, "run on more nodes or a smaller problem%s", off);
    snprintf(ranks_advice, sizeof ranks_advice, "run on more ranks or raise the limit%s", off);
    if (node_need > node_memory) {
        human(node_need, need, sizeof need);
        human(node_memory, have, sizeof have);
        snprintf(err, errlen,
                 "n = %.4g states need about %s of memory on this node (%d of %d ranks here; "
                 "about %.0f bytes per state with %.1f Jacobian entries per row%s), more than its "
                 "%s: %s",
                 (double)p->n, need, on_node, size, per_state, row,
                 node_partitioning ? ", while METIS partitions the graph on rank 0" : "", have,
                 node_partitioning ? METIS_ADVICE : states_advice);
        bad = 1;
    } else if (mine > limit) {
        human(mine, need, sizeof need);
        human(limit, have, sizeof have);
        char graph[96] = "";
        if (partitioning) {
            char g[32];
            human(metis, g, sizeof g);
            snprintf(graph, sizeof graph, ", %s of it for METIS partitioning %.4g vertices", g,
                     (double)metis_vertices);
        }
        snprintf(err, errlen,
                 "n = %.4g states need about %s of memory on rank %d of %d (about %.0f "
                 "bytes per state with %.1f Jacobian entries per row%s), more than its %s %s: "
                 "%s",
                 (double)p->n, need, rank, size, per_state, row, graph, which, have,
                 partitioning ? METIS_ADVICE : ranks_advice);
        bad = 1;
    }
    return comm_agree(comm, bad, err, errlen) ? -1 : 0;
}
