/* h5out_select.c: which states a result file holds, and its grid views.
 *
 * /states keeps the columns of the states meta->keep selects, in id order
 * (all when keep is NULL). A rank's kept states lie in its block, so its
 * columns are one contiguous range, after those of the ranks before it.
 * When the kept states of a grid problem are all kept components of every
 * cell of a box, /fields holds one K x [nz x] [ny x] nx view of /states per
 * component: an HDF5 virtual dataset whose single mapping is the strided
 * hyperslab /states[:, r::ncomponents] (no data is copied), and the box's
 * cell coordinates x, y, z; /xdmf holds the same per sample, for the XDMF
 * sidecar (io/xdmf.h).
 */
#include "io/h5out_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *h5out_component_name(const qmol_problem *p, int c, char *buf, size_t len) {
    int nc = p->components > 0 ? p->components : 1;
    if (p->component_names && p->component_names[c]) return p->component_names[c];
    if (nc == 1)
        snprintf(buf, len, "u");
    else
        snprintf(buf, len, "u%d", c);
    return buf;
}

int h5out_check_component_names(const qmol_problem *p, char *err, size_t errlen) {
    if (!p->component_names) return 0;
    int nc = p->components > 0 ? p->components : 1;
    for (int c = 0; c < nc; c++) {
        const char *s = p->component_names[c];
        int ok = s && *s && !isdigit((unsigned char)*s) && strlen(s) <= 64;
        for (const char *q = s; ok && *q; q++)
            ok = isalnum((unsigned char)*q) || *q == '_';
        if (ok) ok = strcmp(s, "x") && strcmp(s, "y") && strcmp(s, "z");
        for (int d = 0; ok && d < c; d++)
            ok = strcmp(s, p->component_names[d]) != 0;
        if (!ok) {
            h5u_set_err(err, errlen,
                        "component_names[%d] \"%s\": each of the %d components needs a distinct "
                        "name of at most 64 letters, digits and '_', not starting with a digit, "
                        "and not x, y or z",
                        c, s ? s : "(null)", nc);
            return -1;
        }
    }
    return 0;
}

/* The grid box of the kept states, when they form one (w->grid.ndims = 0
 * otherwise). Collective. */
static int find_box(h5out *w, const qmol_problem *p, char *msg, size_t msglen) {
    int nd = p->ndims, nc = p->components > 0 ? p->components : 1;
    unsigned char *seen = calloc((size_t)nc, 1);
    int ok = seen != NULL;
    h5u_set_err(msg, msglen, "%s: out of memory for the output grid", w->path);
    if (!h5out_agree(w, ok, msg, msglen)) {
        free(seen);
        return -1;
    }
    long long box[6] = {-INT64_MAX, -INT64_MAX, -INT64_MAX, -1, -1, -1}; /* -min, max */
    for (int64_t j = 0; j < w->col_count; j++) {
        int64_t id = w->first + (w->col_index ? w->col_index[j] : j), cell = id / nc;
        seen[id % nc] = 1;
        for (int a = 0; a < nd; a++) {
            long long i = (long long)(cell % p->dims[a]);
            cell /= p->dims[a];
            if (-i > box[a]) box[a] = -i;
            if (i > box[3 + a]) box[3 + a] = i;
        }
    }
    MPI_Allreduce(MPI_IN_PLACE, box, 6, MPI_LONG_LONG, MPI_MAX, w->comm);
    MPI_Allreduce(MPI_IN_PLACE, seen, nc, MPI_UNSIGNED_CHAR, MPI_MAX, w->comm);
    int64_t cells = 1, kept = 0;
    for (int a = 0; a < nd; a++)
        cells *= box[3 + a] + box[a] + 1;
    for (int c = 0; c < nc; c++)
        kept += seen[c];
    h5out_grid *g = &w->grid;
    if (cells * kept == w->columns) {
        g->component = malloc((size_t)kept * sizeof *g->component);
        ok = g->component != NULL;
    }
    if (!h5out_agree(w, ok, msg, msglen)) {
        free(seen);
        return -1;
    }
    if (g->component) {
        g->ndims = nd;
        for (int a = 0; a < nd; a++) {
            g->first[a] = -box[a];
            g->dims[a] = box[3 + a] + box[a] + 1;
            g->spacing[a] = p->spacing[a];
            g->origin[a] = p->origin[a] + p->spacing[a] * (double)g->first[a];
        }
        for (int c = 0; c < nc; c++)
            if (seen[c]) g->component[g->ncomponents++] = c;
    }
    free(seen);
    msg[0] = '\0';
    return 0;
}

int h5out_select(h5out *w, const h5out_meta *m, char *msg, size_t msglen) {
    int64_t kept = w->count;
    int ok = 1;
    if (m->keep) {
        w->col_index = malloc((size_t)(w->count > 0 ? w->count : 1) * sizeof *w->col_index);
        ok = w->col_index != NULL;
        kept = 0;
        for (int64_t i = 0; ok && i < w->count; i++)
            if (m->keep(m->keep_ctx, w->first + i)) w->col_index[kept++] = i;
        w->packed = malloc((size_t)(kept > 0 ? kept : 1) * sizeof *w->packed);
        ok = ok && w->packed;
    }
    if (!ok) h5u_set_err(msg, msglen, "%s: out of memory for the output selection", w->path);
    if (!h5out_agree(w, ok, msg, msglen)) return -1;
    long long mine = kept, before = 0, total = 0;
    MPI_Exscan(&mine, &before, 1, MPI_LONG_LONG, MPI_SUM, w->comm);
    MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, w->comm);
    w->col_first = w->rank == 0 ? 0 : before;
    w->col_count = kept;
    w->columns = w->grid.columns = total;
    if (total == 0) {
        h5u_set_err(msg, msglen, "--output-states \"%s\": selects none of the %lld states",
                    m->keep_rule ? m->keep_rule : "", (long long)w->n);
        return -1;
    }
    return m->prob->ndims > 0 ? find_box(w, m->prob, msg, msglen) : 0;
}

int h5out_get_grid(const h5out *w, h5out_grid *g) {
    *g = w->grid;
    g->component = NULL;
    if (w->grid.ncomponents > 0) {
        g->component = malloc((size_t)w->grid.ncomponents * sizeof *g->component);
        if (!g->component) return -1;
        memcpy(g->component, w->grid.component, (size_t)w->grid.ncomponents * sizeof *g->component);
    }
    return 0;
}

/* What a view maps: the hyperslab (start, stride, count, block) of the
 * dataset path (of this file) of rank dimensions dims. */
typedef struct view_source {
    const char *path;
    int rank;
    hsize_t dims[4], start[4], stride[4], count[4], block[4];
} view_source;

/* The virtual dataset name in parent, of vrank dimensions vdims, whose single
 * mapping is src; what it is called in messages: what. */
static int make_view(const h5u_ectx *c, hid_t parent, const char *name, int vrank,
                     const hsize_t *vdims, const view_source *src, const char *what) {
    hid_t vspace = H5Screate_simple(vrank, vdims, NULL);
    hid_t sspace = H5Screate_simple(src->rank, src->dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    hid_t d = H5I_INVALID_HID;
    if (vspace >= 0 && sspace >= 0 && dcpl >= 0 &&
        H5Sselect_hyperslab(sspace, H5S_SELECT_SET, src->start, src->stride, src->count,
                            src->block) >= 0 &&
        H5Pset_virtual(dcpl, vspace, ".", src->path, sspace) >= 0)
        d = H5Dcreate2(parent, name, H5T_IEEE_F64LE, vspace, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    int rc = d >= 0 ? 0 : -1;
    if (rc) {
        char *msg = h5u_asprintf("cannot create the view %s", what);
        h5u_fail(c, msg ? msg : "cannot create a view");
        free(msg);
    }
    h5u_close(&d, H5Dclose);
    h5u_close(&dcpl, H5Pclose);
    h5u_close(&sspace, H5Sclose);
    h5u_close(&vspace, H5Sclose);
    return rc;
}

/* /fields/NAME: the virtual K x box view of component r (of the kept ones),
 * every row's columns r::ncomponents of /states. */
static int write_view(h5out *w, const h5u_ectx *c, hid_t g, int r, const char *name) {
    const h5out_grid *b = &w->grid;
    hsize_t vdims[4] = {(hsize_t)w->samples, 1, 1, 1}, cells = 1;
    for (int a = 0; a < b->ndims; a++) {
        vdims[b->ndims - a] = (hsize_t)b->dims[a];
        cells *= (hsize_t)b->dims[a];
    }
    view_source src = {.path = "/states",
                       .rank = 2,
                       .dims = {(hsize_t)w->samples, (hsize_t)w->columns},
                       .start = {0, (hsize_t)r},
                       .stride = {1, (hsize_t)b->ncomponents},
                       .count = {1, cells},
                       .block = {(hsize_t)w->samples, 1}};
    char what[96];
    snprintf(what, sizeof what, "/fields/%s", name);
    return make_view(c, g, name, 1 + b->ndims, vdims, &src, what);
}

/* /xdmf/NAME/k for k = 1..K: sample k of the view /fields/NAME, shaped as
 * the sidecar's mesh (nz, ny, nx; 1 for missing dimensions). Plain datasets
 * for the XDMF sidecar, whose hyperslab DataItems ParaView's Xdmf3 readers
 * do not read. Each maps one contiguous block of /fields/NAME (a view of a
 * view), not /states' strided columns: HDF5 1.10 stores a strided selection
 * as one block per element (16 bytes a cell), a contiguous one in a few
 * bytes (measured, docs/output.md). */
static int write_sample_views(h5out *w, const h5u_ectx *c, hid_t top, const char *name) {
    const h5out_grid *b = &w->grid;
    view_source src = {.rank = 1 + b->ndims, .dims = {(hsize_t)w->samples}, .count = {1}};
    hsize_t vdims[3] = {1, 1, 1};
    for (int a = 0; a < b->ndims; a++) {
        vdims[2 - a] = (hsize_t)b->dims[a];
        src.dims[b->ndims - a] = src.count[b->ndims - a] = (hsize_t)b->dims[a];
    }
    for (int a = 0; a < src.rank; a++)
        src.stride[a] = src.block[a] = 1;
    char source[96], group[96];
    snprintf(source, sizeof source, "/fields/%s", name);
    snprintf(group, sizeof group, "/" H5OUT_SAMPLE_VIEWS "/%s", name);
    src.path = source;
    hid_t g = h5u_group(c, top, name);
    int rc = g < 0 ? -1 : 0;
    for (int64_t k = 0; !rc && k < w->samples; k++) {
        char num[24], what[128];
        snprintf(num, sizeof num, "%lld", (long long)k + 1);
        snprintf(what, sizeof what, "%s/%s", group, num);
        src.start[0] = (hsize_t)k;
        rc = make_view(c, g, num, 3, vdims, &src, what);
    }
    return g < 0 ? -1 : h5u_close_group(c, g, group, rc);
}

static int write_fields(h5out *w, const qmol_problem *p, const h5u_ectx *c) {
    const h5out_grid *b = &w->grid;
    int64_t most = 1;
    for (int a = 0; a < b->ndims; a++)
        if (b->dims[a] > most) most = b->dims[a];
    double *coord = w->rank == 0 ? malloc((size_t)most * sizeof *coord) : NULL;
    int64_t *kept = malloc((size_t)b->ncomponents * sizeof *kept);
    int ok = (w->rank != 0 || coord) && kept;
    if (!ok) h5u_set_err(c->err, c->errlen, "%s: out of memory for /fields", c->file);
    if (!h5out_agree(w, ok, c->err, c->errlen)) {
        free(coord), free(kept);
        return -1;
    }
    for (int r = 0; r < b->ncomponents; r++)
        kept[r] = b->component[r];
    hid_t g = h5u_group(c, w->file, "fields");
    hsize_t nd = (hsize_t)b->ndims;
    int rc = g < 0 || h5u_put_i64(c, g, "dims", b->dims, nd) ||
             h5u_put_i64(c, g, "first", b->first, nd) ||
             h5u_put_f64(c, g, "origin", b->origin, nd) ||
             h5u_put_f64(c, g, "spacing", b->spacing, nd) ||
             h5u_put_i64(c, g, "components", kept, (hsize_t)b->ncomponents);
    static const char *const axis[3] = {"x", "y", "z"};
    for (int a = 0; !rc && a < b->ndims; a++) { /* rank 0 writes the coordinates */
        int64_t len = w->rank == 0 ? b->dims[a] : 0;
        for (int64_t i = 0; i < len; i++)
            coord[i] = b->origin[a] + b->spacing[a] * (double)i;
        rc = h5u_write_1d(c, g, axis[a], H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, b->dims[a], 0, len,
                          coord, w->dxpl);
    }
    free(coord), free(kept);
    for (int r = 0; !rc && r < b->ncomponents; r++) {
        char buf[32];
        rc = write_view(w, c, g, r, h5out_component_name(p, b->component[r], buf, sizeof buf));
    }
    rc = g < 0 ? -1 : h5u_close_group(c, g, "/fields", rc);
    return rc ? -1 : h5out_write_sample_views(w, p, c);
}

int h5out_write_sample_views(h5out *w, const qmol_problem *p, const h5u_ectx *c) {
    const h5out_grid *b = &w->grid;
    hid_t top = h5u_group(c, w->file, H5OUT_SAMPLE_VIEWS);
    if (top < 0) return -1;
    int rc = 0;
    for (int r = 0; !rc && r < b->ncomponents; r++) {
        char buf[32];
        rc = write_sample_views(w, c, top,
                                h5out_component_name(p, b->component[r], buf, sizeof buf));
    }
    return h5u_close_group(c, top, "/" H5OUT_SAMPLE_VIEWS, rc);
}

int h5out_write_selection(h5out *w, const h5out_meta *m, const h5u_ectx *c) {
    if (m->keep) {
        int64_t *ids = malloc((size_t)(w->col_count > 0 ? w->col_count : 1) * sizeof *ids);
        if (!ids) {
            h5u_set_err(c->err, c->errlen, "%s: out of memory", c->file);
            return -1;
        }
        for (int64_t j = 0; j < w->col_count; j++)
            ids[j] = w->first + w->col_index[j];
        int rc = h5u_put_str(c, w->file, "output_states", m->keep_rule ? m->keep_rule : "") ||
                 h5u_write_1d(c, w->file, "state_ids", H5T_STD_I64LE, H5T_NATIVE_INT64, w->columns,
                              w->col_first, w->col_count, ids, w->dxpl);
        free(ids);
        if (rc) return -1;
    }
    return w->grid.ndims > 0 ? write_fields(w, m->prob, c) : 0;
}
