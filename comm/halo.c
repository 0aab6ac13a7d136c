/* halo.c: owned/ghost sets and the exchange lists (see halo.h). */
#include "comm/halo.h"

#include "comm/agree.h"
#include "comm/directory.h"
#include "comm/sorted_ids.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void halo_free(halo_plan *h) {
    if (h->graph != MPI_COMM_NULL && h->graph != 0) MPI_Comm_free(&h->graph);
    free(h->gid);
    free(h->source);
    free(h->dest);
    free(h->recv_ptr);
    free(h->send_ptr);
    free(h->send_idx);
    free(h->reader_ptr);
    free(h->reader_slot);
    free(h->send_count);
    free(h->send_displ);
    free(h->recv_count);
    free(h->recv_displ);
    free(h->send_buf);
    memset(h, 0, sizeof *h);
    h->graph = MPI_COMM_NULL;
}

/* The sorted distinct ids that owned rows read but this rank does not own. */
static int collect_ghosts(const qmol_problem *p, const int64_t *owned, int32_t n_owned,
                          int64_t **ghosts, int64_t *count, int64_t *edge_entries, char *err,
                          size_t errlen) {
    int64_t cap = 1024, len = 0;
    int64_t *g = malloc((size_t)cap * sizeof *g);
    int max_row = 0;
    for (int32_t j = 0; j < n_owned; j++) {
        int r = p->row_size(p->data, owned[j]);
        if (r > max_row) max_row = r;
    }
    int64_t *cols = malloc(((size_t)max_row + 1) * sizeof *cols);
    if (!g || !cols) goto oom;
    *edge_entries = 0;
    for (int32_t j = 0; j < n_owned; j++) {
        int r = p->row_size(p->data, owned[j]);
        int64_t row_start = len;
        if (r <= 0) continue;
        p->row(p->data, owned[j], cols);
        for (int k = 0; k < r; k++) {
            if (cols[k] < 0 || cols[k] >= p->n) {
                snprintf(err, errlen,
                         "problem row %lld reads state %lld, outside [0, %lld): the problem's row "
                         "function is wrong",
                         (long long)owned[j], (long long)cols[k], (long long)p->n);
                free(g);
                free(cols);
                return -1;
            }
            if (ids_find(owned, n_owned, cols[k]) >= 0) continue;
            if (len == cap) {
                int64_t *bigger = realloc(g, (size_t)(2 * cap) * sizeof *g);
                if (!bigger) goto oom;
                g = bigger;
                cap *= 2;
            }
            g[len++] = cols[k];
        }
        /* a ghost the row lists more than once is one entry */
        if (len - row_start > 1) {
            qsort(g + row_start, (size_t)(len - row_start), sizeof *g, ids_compare);
            int64_t kept = row_start + 1;
            for (int64_t k = row_start + 1; k < len; k++)
                if (g[kept - 1] != g[k]) g[kept++] = g[k];
            len = kept;
        }
        *edge_entries += len - row_start;
    }
    free(cols);
    qsort(g, (size_t)len, sizeof *g, ids_compare);
    int64_t u = 0;
    for (int64_t k = 0; k < len; k++)
        if (u == 0 || g[u - 1] != g[k]) g[u++] = g[k];
    *ghosts = g;
    *count = u;
    return 0;
oom:
    free(g);
    free(cols);
    snprintf(err, errlen, "out of memory collecting ghost states");
    return -1;
}

typedef struct ghost {
    int64_t id;
    int32_t owner;
} ghost;

static int cmp_ghost(const void *a, const void *b) {
    const ghost *x = a, *y = b;
    if (x->owner != y->owner) return x->owner < y->owner ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* Receive side: gid[] of ghosts, sources, recv_ptr. */
static int place_ghosts(halo_plan *h, const int64_t *ids, const int32_t *owners, int64_t count,
                        char *err, size_t errlen) {
    ghost *gs = malloc((size_t)(count ? count : 1) * sizeof *gs);
    if (!gs) {
        snprintf(err, errlen, "out of memory placing %lld ghosts", (long long)count);
        return -1;
    }
    for (int64_t k = 0; k < count; k++) {
        gs[k].id = ids[k];
        gs[k].owner = owners[k];
        if (owners[k] == h->rank) {
            snprintf(err, errlen,
                     "state %lld: directory says rank %d owns it, but it is not in "
                     "its owned list",
                     (long long)ids[k], h->rank);
            free(gs);
            return -1;
        }
    }
    qsort(gs, (size_t)count, sizeof *gs, cmp_ghost);
    int ns = 0;
    for (int64_t k = 0; k < count; k++)
        if (k == 0 || gs[k].owner != gs[k - 1].owner) ns++;
    h->nsources = ns;
    h->source = malloc((size_t)(ns ? ns : 1) * sizeof *h->source);
    h->recv_ptr = malloc((size_t)(ns + 1) * sizeof *h->recv_ptr);
    if (!h->source || !h->recv_ptr) {
        free(gs);
        snprintf(err, errlen, "out of memory placing ghosts");
        return -1;
    }
    int s = -1;
    for (int64_t k = 0; k < count; k++) {
        if (k == 0 || gs[k].owner != gs[k - 1].owner) {
            h->source[++s] = gs[k].owner;
            h->recv_ptr[s] = (int32_t)k;
        }
        h->gid[h->n_owned + k] = gs[k].id;
    }
    h->recv_ptr[ns] = (int32_t)count;
    free(gs);
    return 0;
}

/* Send side: each owner learns which of its states each reader needs. */
static int plan_sends(halo_plan *h, const int64_t *owned, char *err, size_t errlen) {
    int P = h->size;
    int *qcount = calloc((size_t)P, sizeof *qcount), *qdispl = calloc((size_t)P, sizeof *qdispl);
    int *acount = calloc((size_t)P, sizeof *acount), *adispl = calloc((size_t)P, sizeof *adispl);
    int64_t *asks = NULL;
    int rc = -1;
    if (!qcount || !qdispl || !acount || !adispl) goto done;
    for (int s = 0; s < h->nsources; s++) {
        qcount[h->source[s]] = h->recv_ptr[s + 1] - h->recv_ptr[s];
        qdispl[h->source[s]] = h->recv_ptr[s];
    }
    MPI_Alltoall(qcount, 1, MPI_INT, acount, 1, MPI_INT, h->comm);
    int64_t total = 0;
    int nd = 0;
    for (int r = 0; r < P; r++) {
        adispl[r] = (int)total;
        total += acount[r];
        nd += acount[r] > 0;
    }
    asks = malloc((size_t)(total ? total : 1) * sizeof *asks);
    h->ndests = nd;
    h->dest = malloc((size_t)(nd ? nd : 1) * sizeof *h->dest);
    h->send_ptr = malloc((size_t)(nd + 1) * sizeof *h->send_ptr);
    h->send_idx = malloc((size_t)(total ? total : 1) * sizeof *h->send_idx);
    h->send_buf = malloc((size_t)(total ? total : 1) * sizeof *h->send_buf);
    int ok = asks && h->dest && h->send_ptr && h->send_idx && h->send_buf;
    if (comm_agree(h->comm, ok ? 0 : -1, NULL, 0)) goto done;
    MPI_Alltoallv(h->gid + h->n_owned, qcount, qdispl, MPI_INT64_T, asks, acount, adispl,
                  MPI_INT64_T, h->comm);
    int d = 0;
    for (int r = 0; r < P; r++) {
        if (!acount[r]) continue;
        h->dest[d] = r;
        h->send_ptr[d] = adispl[r];
        d++;
    }
    h->send_ptr[nd] = (int32_t)total;
    rc = 0;
    for (int64_t k = 0; k < total; k++) {
        int32_t i = ids_find(owned, h->n_owned, asks[k]);
        if (i < 0 && rc == 0) {
            snprintf(err, errlen, "rank %d was asked for state %lld, which it does not own",
                     h->rank, (long long)asks[k]);
            rc = -1;
        }
        h->send_idx[k] = i < 0 ? 0 : i;
    }
done:
    if (rc && err[0] == '\0') snprintf(err, errlen, "out of memory planning the halo exchange");
    free(qcount), free(qdispl), free(acount), free(adispl), free(asks);
    return rc;
}

/* For every owned state, the send-list positions that carry it. */
static int index_readers(halo_plan *h) {
    int32_t n = h->n_owned, total = h->send_ptr[h->ndests];
    h->reader_ptr = calloc((size_t)n + 1, sizeof *h->reader_ptr);
    h->reader_slot = malloc((size_t)(total ? total : 1) * sizeof *h->reader_slot);
    if (!h->reader_ptr || !h->reader_slot) return -1;
    for (int32_t p = 0; p < total; p++)
        h->reader_ptr[h->send_idx[p] + 1]++;
    for (int32_t i = 0; i < n; i++)
        h->reader_ptr[i + 1] += h->reader_ptr[i];
    int32_t *fill = calloc((size_t)n + 1, sizeof *fill);
    if (!fill) return -1;
    for (int32_t p = 0; p < total; p++) {
        int32_t i = h->send_idx[p];
        h->reader_slot[h->reader_ptr[i] + fill[i]++] = p;
    }
    free(fill);
    return 0;
}

static int make_graph(halo_plan *h) {
    h->send_count = malloc((size_t)(h->ndests ? h->ndests : 1) * sizeof(int));
    h->send_displ = malloc((size_t)(h->ndests ? h->ndests : 1) * sizeof(int));
    h->recv_count = malloc((size_t)(h->nsources ? h->nsources : 1) * sizeof(int));
    h->recv_displ = malloc((size_t)(h->nsources ? h->nsources : 1) * sizeof(int));
    if (!h->send_count || !h->send_displ || !h->recv_count || !h->recv_displ) return -1;
    for (int d = 0; d < h->ndests; d++) {
        h->send_count[d] = h->send_ptr[d + 1] - h->send_ptr[d];
        h->send_displ[d] = h->send_ptr[d];
    }
    for (int s = 0; s < h->nsources; s++) {
        h->recv_count[s] = h->recv_ptr[s + 1] - h->recv_ptr[s];
        h->recv_displ[s] = h->recv_ptr[s];
    }
    return 0;
}

int halo_build(halo_plan *h, const qmol_problem *p, const int64_t *owned, int32_t n_owned,
               const int32_t *owner_block, MPI_Comm comm, char *err, size_t errlen) {
    memset(h, 0, sizeof *h);
    h->graph = MPI_COMM_NULL;
    h->comm = comm;
    MPI_Comm_rank(comm, &h->rank);
    MPI_Comm_size(comm, &h->size);
    h->n_global = p->n;
    h->n_owned = n_owned;
    if (errlen) err[0] = '\0';
    int64_t *ghost_ids = NULL, nghost = 0;
    int32_t *owners = NULL;
    int rc = collect_ghosts(p, owned, n_owned, &ghost_ids, &nghost, &h->edge_entries, err, errlen);
    if (rc == 0 && nghost + n_owned > INT32_MAX - 1) {
        snprintf(err, errlen, "rank %d would hold %lld states with its ghosts, more than %d",
                 h->rank, (long long)(nghost + n_owned), INT32_MAX - 1);
        rc = -1;
    }
    if (rc == 0) {
        owners = malloc((size_t)(nghost ? nghost : 1) * sizeof *owners);
        h->gid = malloc((size_t)(n_owned + nghost) * sizeof *h->gid);
        if (!owners || !h->gid) {
            snprintf(err, errlen, "out of memory for %lld ghosts", (long long)nghost);
            rc = -1;
        }
    }
    if (comm_agree(comm, rc, err, errlen)) goto fail;
    h->n_ghost = (int32_t)nghost;
    memcpy(h->gid, owned, (size_t)n_owned * sizeof *h->gid);
    if (directory_lookup(p->n, owner_block, comm, ghost_ids, nghost, owners, err, errlen))
        goto fail;
    rc = place_ghosts(h, ghost_ids, owners, nghost, err, errlen);
    if (comm_agree(comm, rc, err, errlen)) goto fail;
    rc = plan_sends(h, owned, err, errlen);
    if (rc == 0 && (index_readers(h) || make_graph(h))) {
        snprintf(err, errlen, "out of memory indexing the halo");
        rc = -1;
    }
    if (comm_agree(comm, rc, err, errlen)) goto fail;
    /* edge weights: the number of states each message carries */
    MPI_Dist_graph_create_adjacent(comm, h->nsources, h->source, h->recv_count, h->ndests, h->dest,
                                   h->send_count, MPI_INFO_NULL, 0, &h->graph);
    free(ghost_ids);
    free(owners);
    return 0;
fail:
    free(ghost_ids);
    free(owners);
    halo_free(h);
    return -1;
}

/* Collective over h->comm: per send-list position, whether its reader keeps
 * that ghost (keep[n_owned + g] there), or NULL on every rank when one is
 * out of memory. */
static unsigned char *wanted_slots(const halo_plan *h, const unsigned char *keep) {
    int P = h->size, *scount = calloc((size_t)P, sizeof(int)),
        *sdispl = calloc((size_t)P, sizeof(int));
    int *rcount = calloc((size_t)P, sizeof(int)), *rdispl = calloc((size_t)P, sizeof(int));
    int32_t total = h->send_ptr[h->ndests];
    unsigned char *wanted = malloc((size_t)total + 1);
    int ok =
        comm_agree(h->comm, scount && sdispl && rcount && rdispl && wanted ? 0 : -1, NULL, 0) == 0;
    if (ok) {
        for (int s = 0; s < h->nsources; s++) {
            scount[h->source[s]] = h->recv_ptr[s + 1] - h->recv_ptr[s];
            sdispl[h->source[s]] = h->recv_ptr[s];
        }
        for (int d = 0; d < h->ndests; d++) {
            rcount[h->dest[d]] = h->send_ptr[d + 1] - h->send_ptr[d];
            rdispl[h->dest[d]] = h->send_ptr[d];
        }
    }
    if (ok)
        MPI_Alltoallv(keep + h->n_owned, scount, sdispl, MPI_UNSIGNED_CHAR, wanted, rcount, rdispl,
                      MPI_UNSIGNED_CHAR, h->comm);
    free(scount), free(sdispl), free(rcount), free(rdispl);
    if (!ok) free(wanted);
    return ok ? wanted : NULL;
}

int halo_subset(halo_plan *sub, const halo_plan *full, const unsigned char *keep) {
    memset(sub, 0, sizeof *sub);
    sub->graph = MPI_COMM_NULL;
    sub->comm = full->comm;
    sub->rank = full->rank;
    sub->size = full->size;
    sub->n_global = full->n_global;
    int32_t nl = full->n_owned + full->n_ghost, total = full->send_ptr[full->ndests];
    int32_t *local = malloc(((size_t)nl + 1) * sizeof *local); /* full -> sub, or -1 */
    int ns = full->nsources ? full->nsources : 1, nd = full->ndests ? full->ndests : 1;
    sub->gid = malloc(((size_t)nl + 1) * sizeof *sub->gid);
    sub->source = malloc((size_t)ns * sizeof *sub->source);
    sub->dest = malloc((size_t)nd * sizeof *sub->dest);
    sub->recv_ptr = malloc(((size_t)ns + 1) * sizeof *sub->recv_ptr);
    sub->send_ptr = malloc(((size_t)nd + 1) * sizeof *sub->send_ptr);
    sub->send_idx = malloc(((size_t)total + 1) * sizeof *sub->send_idx);
    sub->send_buf = malloc(((size_t)total + 1) * sizeof *sub->send_buf);
    int rc = local && sub->gid && sub->source && sub->dest && sub->recv_ptr && sub->send_ptr &&
                     sub->send_idx && sub->send_buf
                 ? 0
                 : -1;
    /* what each reader keeps of what it receives: the owner sends those */
    unsigned char *wanted = wanted_slots(full, keep);
    if (!wanted) rc = -1;
    if (rc == 0) {
        int32_t count = 0;
        for (int32_t k = 0; k < nl; k++) {
            if (k == full->n_owned) sub->n_owned = count;
            local[k] = keep[k] ? count : -1;
            if (keep[k]) sub->gid[count++] = full->gid[k];
        }
        if (full->n_ghost == 0) sub->n_owned = count;
        sub->n_ghost = count - sub->n_owned;
        /* the same neighbours, with what is kept of each message */
        sub->nsources = full->nsources;
        sub->ndests = full->ndests;
        sub->recv_ptr[0] = sub->send_ptr[0] = 0;
        for (int s = 0; s < full->nsources; s++) {
            sub->source[s] = full->source[s];
            int32_t kept = 0;
            for (int32_t g = full->recv_ptr[s]; g < full->recv_ptr[s + 1]; g++)
                kept += keep[full->n_owned + g] != 0;
            sub->recv_ptr[s + 1] = sub->recv_ptr[s] + kept;
        }
        int32_t out = 0;
        for (int d = 0; d < full->ndests; d++) {
            sub->dest[d] = full->dest[d];
            for (int32_t p = full->send_ptr[d]; p < full->send_ptr[d + 1]; p++)
                if (wanted[p]) sub->send_idx[out++] = local[full->send_idx[p]];
            sub->send_ptr[d + 1] = out;
        }
        if (index_readers(sub) || make_graph(sub)) rc = -1;
    }
    free(local), free(wanted);
    if (comm_agree(full->comm, rc, NULL, 0)) {
        halo_free(sub);
        return -1;
    }
    sub->edge_entries = full->edge_entries;
    MPI_Dist_graph_create_adjacent(sub->comm, sub->nsources, sub->source, sub->recv_count,
                                   sub->ndests, sub->dest, sub->send_count, MPI_INFO_NULL, 0,
                                   &sub->graph);
    return 0;
}

void halo_exchange(halo_plan *h, double *local) {
    halo_exchange_strided(h, local, 1);
}

void halo_exchange_strided(halo_plan *h, double *first, size_t stride) {
    int32_t total = h->send_ptr ? h->send_ptr[h->ndests] : 0;
    for (int32_t p = 0; p < total; p++)
        h->send_buf[p] = first[(size_t)h->send_idx[p] * stride];
    /* received in place: one double every stride (displacements count
     * whole records) */
    MPI_Datatype every = MPI_DOUBLE;
    if (stride > 1) {
        MPI_Type_create_resized(MPI_DOUBLE, 0, (MPI_Aint)(stride * sizeof(double)), &every);
        MPI_Type_commit(&every);
    }
    MPI_Neighbor_alltoallv(h->send_buf, h->send_count, h->send_displ, MPI_DOUBLE,
                           first + (size_t)h->n_owned * stride, h->recv_count, h->recv_displ, every,
                           h->graph);
    if (stride > 1) MPI_Type_free(&every);
}

int32_t halo_boundary_count(const halo_plan *h) {
    int32_t count = 0;
    for (int32_t i = 0; i < h->n_owned; i++)
        count += h->reader_ptr[i + 1] > h->reader_ptr[i];
    return count;
}
