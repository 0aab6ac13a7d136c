/* memory_check.c: the memory a run will take, against what it may use
 * (memory_check.h). */
#include "memory_check.h"

#include "agree.h"

#include <math.h>
#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

/* Mean row size over up to MEMORY_SAMPLE_ROWS rows spread over [0, n): all
 * rows when n is that small, else rows at the fractional parts of k times the
 * golden ratio, which no grid's stride lines up with (an even stride of
 * n / 1000 rows falls on the same column of an nx x ny grid every time:
 * heat2d 3000 x 3000 counted only boundary rows). */
static double mean_row(const qmol_problem *p) {
    int64_t count = p->n < MEMORY_SAMPLE_ROWS ? p->n : MEMORY_SAMPLE_ROWS;
    double sum = 0.0;
    for (int64_t k = 0; k < count; k++) {
        int64_t i = k;
        if (count < p->n) {
            double spread = (double)k * 0.6180339887498949;
            i = (int64_t)((spread - floor(spread)) * (double)p->n);
        }
        sum += p->row_size(p->data, i < p->n ? i : p->n - 1);
    }
    return count > 0 ? sum / (double)count : 0.0;
}

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
    double row = mean_row(p);
    double per_state = MEMORY_STATE_BYTES + MEMORY_ENTRY_BYTES * row +
                       8.0 * (extra->kept_doubles + extra->kept_entry_doubles * row);
    double share = ceil((double)p->n / (double)size);
    double mine = MEMORY_BASE_BYTES + per_state * share;
    double metis = 0.0; /* rank 0 while METIS partitions its graph there */
    if (rank == 0 && metis_vertices > 0) {
        metis =
            (MEMORY_METIS_VERTEX_BYTES + MEMORY_METIS_ENTRY_BYTES * row) * (double)metis_vertices;
        double partitioning = MEMORY_BASE_BYTES + MEMORY_PARTITION_STATE_BYTES * share + metis;
        if (partitioning > mine)
            mine = partitioning;
        else
            metis = 0.0; /* the states' phase is the larger: the message need not name METIS */
    }
    /* the ranks sharing this node's memory */
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    int on_node;
    MPI_Comm_size(node, &on_node);
    double node_need = 0.0;
    MPI_Allreduce(&mine, &node_need, 1, MPI_DOUBLE, MPI_SUM, node);
    MPI_Comm_free(&node);
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    double node_memory = pages > 0 && page > 0 ? (double)pages * (double)page : INFINITY;
    const char *which = "";
    double limit = process_limit(&which);
    int bad = 0;
    char need[32], have[32];
    if (node_need > node_memory) {
        human(node_need, need, sizeof need);
        human(node_memory, have, sizeof have);
        snprintf(err, errlen,
                 "n = %.4g states need about %s of memory on this node (%d of %d ranks here; "
                 "about %.0f bytes per state with %.1f Jacobian entries per row), more than its "
                 "%s: run on more nodes or a smaller problem",
                 (double)p->n, need, on_node, size, per_state, row, have);
        bad = 1;
    } else if (mine > limit) {
        human(mine, need, sizeof need);
        human(limit, have, sizeof have);
        char graph[96] = "";
        if (metis > 0.0) {
            char g[32];
            human(metis, g, sizeof g);
            snprintf(graph, sizeof graph, ", %s of it for METIS partitioning %.4g vertices", g,
                     (double)metis_vertices);
        }
        snprintf(err, errlen,
                 "n = %.4g states need about %s of memory on rank %d of %d (about %.0f "
                 "bytes per state with %.1f Jacobian entries per row%s), more than its %s %s: "
                 "run on more ranks or raise the limit",
                 (double)p->n, need, rank, size, per_state, row, graph, which, have);
        bad = 1;
    }
    return comm_agree(comm, bad, err, errlen) ? -1 : 0;
}
