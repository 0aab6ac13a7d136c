/* h5out_partition.c: /partition, who owns which state and how much work.
 *
 * The owner map is written like a state row: each rank writes its directory
 * block (comm/directory.h). The per-rank sizes are P-element datasets, each
 * rank writing its own element. Before anything is written the ranks check
 * the call together (owners in range, owned counts matching the owner map,
 * the same kind and edge cut everywhere), so a bad call leaves no half-written
 * group behind.
 */
#include "io/h5out_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MSG_LEN 1024

static const char *const kinds[] = {"metis", "block", "file", "single"};
#define NKINDS ((int)(sizeof(kinds) / sizeof(kinds[0])))

static int kind_index(const char *kind) {
    for (int i = 0; kind && i < NKINDS; i++)
        if (!strcmp(kind, kinds[i])) return i;
    return -1;
}

/* Checks this rank's arguments alone; counts its owners into hist (P). */
static int check_local(const h5out *w, const int32_t *owner_block, const h5out_rank_info *mine,
                       int64_t edge_cut, const char *kind, int64_t *hist, char *msg,
                       size_t msglen) {
    const char *f = w->partial;
    if (w->has_partition) {
        h5u_set_err(msg, msglen, "%s: the partition was already written", f);
        return 0;
    }
    if (kind_index(kind) < 0) {
        h5u_set_err(msg, msglen,
                    "%s: partition kind '%s' unknown (allowed: metis, block, file, single)", f,
                    kind ? kind : "(null)");
        return 0;
    }
    if (!mine || (!owner_block && w->count > 0)) {
        h5u_set_err(msg, msglen, "%s: rank %d: no partition data given", f, w->rank);
        return 0;
    }
    if (mine->owned < 0 || mine->ghosts < 0 || mine->boundary < 0 || mine->boundary > mine->owned ||
        !isfinite(mine->weight) || mine->weight < 0 || edge_cut < 0) {
        h5u_set_err(msg, msglen,
                    "%s: rank %d: bad partition sizes (owned %lld, ghosts %lld, boundary %lld, "
                    "weight %g, edge cut %lld)",
                    f, w->rank, (long long)mine->owned, (long long)mine->ghosts,
                    (long long)mine->boundary, mine->weight, (long long)edge_cut);
        return 0;
    }
    if (mine->has_methods && (mine->bdf_owned < 0 || mine->bdf_owned > mine->owned ||
                              (!mine->method_block && w->count > 0))) {
        h5u_set_err(msg, msglen, "%s: rank %d: bad method assignment (%lld BDF of %lld owned)", f,
                    w->rank, (long long)mine->bdf_owned, (long long)mine->owned);
        return 0;
    }
    for (int64_t i = 0; i < w->count; i++) {
        int32_t o = owner_block[i];
        if (o < 0 || o >= w->nranks) {
            h5u_set_err(msg, msglen, "%s: state %lld has owner %d, outside 0..%d", f,
                        (long long)(w->first + i), (int)o, w->nranks - 1);
            return 0;
        }
        hist[o]++;
    }
    return 1;
}

/* Collective checks; imbalance (max/mean of weight, 1 if all are 0). */
static int check_global(const h5out *w, const h5out_rank_info *mine, int64_t edge_cut,
                        const char *kind, const int64_t *hist, double *imbalance, char *msg,
                        size_t msglen) {
    int64_t owned = 0;
    long long v[4] = {edge_cut, -edge_cut, kind_index(kind), -kind_index(kind)};
    double wmax = mine->weight, wsum = mine->weight;
    MPI_Reduce_scatter_block(hist, &owned, 1, MPI_INT64_T, MPI_SUM, w->comm);
    MPI_Allreduce(MPI_IN_PLACE, v, 4, MPI_LONG_LONG, MPI_MAX, w->comm);
    MPI_Allreduce(MPI_IN_PLACE, &wmax, 1, MPI_DOUBLE, MPI_MAX, w->comm);
    MPI_Allreduce(MPI_IN_PLACE, &wsum, 1, MPI_DOUBLE, MPI_SUM, w->comm);
    *imbalance = wsum > 0 ? wmax * w->nranks / wsum : 1.0;
    if (v[0] != -v[1] || v[2] != -v[3]) {
        h5u_set_err(msg, msglen, "%s: the ranks passed different %s", w->partial,
                    v[0] != -v[1] ? "edge cuts" : "partition kinds");
        return 0;
    }
    if (owned != mine->owned) {
        h5u_set_err(msg, msglen, "%s: rank %d owns %lld states by the owner map, not %lld",
                    w->partial, w->rank, (long long)owned, (long long)mine->owned);
        return 0;
    }
    return 1;
}

static int write_partition(h5out *w, const int32_t *owner_block, const h5out_rank_info *mine,
                           int64_t edge_cut, const char *kind, double imbalance,
                           const h5u_ectx *c) {
    hid_t g = h5u_group(c, w->file, "partition");
    if (g < 0) return -1;
    int64_t P = w->nranks, r = w->rank;
    int rc = h5u_write_1d(c, g, "owner", H5T_STD_I32LE, H5T_NATIVE_INT32, w->n, w->first, w->count,
                          owner_block, w->dxpl) ||
                     h5u_write_1d(c, g, "owned", H5T_STD_I64LE, H5T_NATIVE_INT64, P, r, 1,
                                  &mine->owned, w->dxpl) ||
                     h5u_write_1d(c, g, "ghosts", H5T_STD_I64LE, H5T_NATIVE_INT64, P, r, 1,
                                  &mine->ghosts, w->dxpl) ||
                     h5u_write_1d(c, g, "boundary", H5T_STD_I64LE, H5T_NATIVE_INT64, P, r, 1,
                                  &mine->boundary, w->dxpl) ||
                     h5u_write_1d(c, g, "weight", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, P, r, 1,
                                  &mine->weight, w->dxpl) ||
                     h5u_put_int(c, g, "ranks", w->nranks) || h5u_put_str(c, g, "kind", kind) ||
                     h5u_put_i64(c, g, "edge_cut", &edge_cut, 0) ||
                     h5u_put_f64(c, g, "imbalance", &imbalance, 0)
                 ? -1
                 : 0;
    if (rc == 0 && mine->has_methods) {
        int64_t qss_owned = mine->owned - mine->bdf_owned;
        rc = h5u_write_1d(c, g, "method", H5T_STD_I8LE, H5T_NATIVE_INT8, w->n, w->first, w->count,
                          mine->method_block, w->dxpl) ||
                     h5u_put_str(c, g, "method_names", "0 = qss, 1 = bdf") ||
                     h5u_write_1d(c, g, "bdf_owned", H5T_STD_I64LE, H5T_NATIVE_INT64, P, r, 1,
                                  &mine->bdf_owned, w->dxpl) ||
                     h5u_write_1d(c, g, "qss_owned", H5T_STD_I64LE, H5T_NATIVE_INT64, P, r, 1,
                                  &qss_owned, w->dxpl)
                 ? -1
                 : 0;
    }
    return h5u_close_group(c, g, "/partition", rc);
}

int h5out_partition(h5out *w, const int32_t *owner_block, const h5out_rank_info *mine,
                    int64_t edge_cut, const char *partition_kind, char *err, size_t errlen) {
    h5u_set_err(err, errlen, "%s", "");
    if (!w) {
        h5u_set_err(err, errlen, "no output file for the partition");
        return -1;
    }
    char msg[MSG_LEN] = "";
    int64_t *hist = calloc((size_t)w->nranks, sizeof *hist);
    int ok = hist != NULL;
    if (!ok) h5u_set_err(msg, sizeof msg, "%s: out of memory", w->partial);
    ok = ok && check_local(w, owner_block, mine, edge_cut, partition_kind, hist, msg, sizeof msg);
    double imbalance = 1.0;
    ok = h5out_agree(w, ok, msg, sizeof msg) &&
         h5out_agree(
             w, check_global(w, mine, edge_cut, partition_kind, hist, &imbalance, msg, sizeof msg),
             msg, sizeof msg);
    free(hist);
    if (ok) {
        h5u_quiet q;
        h5u_quiet_on(&q);
        h5u_ectx c = {w->partial, msg, sizeof msg};
        ok = h5out_agree(w,
                         write_partition(w, owner_block, mine, edge_cut, partition_kind, imbalance,
                                         &c) == 0,
                         msg, sizeof msg) &&
             /* its kind is a string: the working file stays verifiable */
             h5out_agree(w, h5u_mark_strings(&c, w->file) == 0, msg, sizeof msg) &&
             h5out_flushed(w, &c, 1);
        h5u_quiet_off(&q);
    }
    if (!ok) return h5out_fail(w, msg, err, errlen);
    w->has_partition = 1;
    return 0;
}
