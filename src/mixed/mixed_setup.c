/* mixed_setup.c: the blocks of a mixed run and the maps between them (see
 * mixed_internal.h). On several ranks every step here that can fail is
 * agreed on before the next collective call.
 */
#include "comm/agree.h"
#include "mixed/assign.h"
#include "qss/discrete.h"
#include "core/integrator_registry.h"
#include "mixed/mixed_internal.h"
#include "comm/sorted_ids.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mixed_free(mixed *x) {
    free(x->e.activity);
    eng_free(&x->e);
    if (x->bdf) cvode_block_close(x->bdf);
    if (x->distributed) halo_free(&x->qhalo);
    qssx_free(&x->qx);
    watch_free(&x->watch);
    journal_free(&x->journal);
    model_free(&x->mq);
    model_free(&x->mb);
    free(x->gid_q), free(x->gid_b), free(x->lay_q), free(x->lay_b), free(x->bdf_col_lay);
    free(x->input_lay), free(x->export_q), free(x->export_of), free(x->watched);
    free(x->q_start), free(x->q_integral), free(x->q_upto);
    free(x->reader_ptr), free(x->reader_entry), free(x->reader_row);
    qh_free(&x->history), free(x->history_last), free(x->bdf_readers), free(x->slope_rows);
    free(x->read_ptr), free(x->read_col), free(x->read_sens);
    free(x->y0), free(x->ydot), free(x->col_slope), free(x->col_anchor), free(x->col_curv);
    free(x->lay_vals), free(x->lay_slope), free(x->view_area), free(x->unit_area),
        free(x->bdf_work), free(x->abstol_b), free(x->vals);
    free(x->listed);
    memset(x, 0, sizeof *x);
}

/* Whether layout state L is read by another rank. */
static int on_boundary(const mixed *x, int32_t L) {
    const halo_plan *h = x->halo;
    return h && h->reader_ptr[L + 1] > h->reader_ptr[L];
}

/* Each block's columns (global ids) and their layout indices. method and
 * keep (qss_keep) have the layout's n_cols entries. Returns 0 or -1 (out of
 * memory). */
static int split_columns(mixed *x, const unsigned char *method, const unsigned char *keep) {
    const model *m = x->m;
    int32_t n = m->n, nl = m->n_cols;
    unsigned char *readq = calloc((size_t)nl + 1, 1), *readb = calloc((size_t)nl + 1, 1);
    x->gid_q = malloc(((size_t)nl + 1) * sizeof *x->gid_q);
    x->gid_b = malloc(((size_t)nl + 1) * sizeof *x->gid_b);
    x->lay_q = malloc(((size_t)n + 1) * sizeof *x->lay_q);
    x->lay_b = malloc(((size_t)n + 1) * sizeof *x->lay_b);
    x->bdf_col_lay = malloc(((size_t)nl + 1) * sizeof *x->bdf_col_lay);
    x->input_lay = malloc(((size_t)nl + 1) * sizeof *x->input_lay);
    int rc = readq && readb && x->gid_q && x->gid_b && x->lay_q && x->lay_b && x->bdf_col_lay &&
                     x->input_lay
                 ? 0
                 : -1;
    if (rc == 0) {
        for (int32_t j = 0; j < n; j++) {
            int bdf = method[j] == ASSIGN_BDF;
            if (bdf) {
                x->lay_b[x->nb] = j, x->gid_b[x->nb++] = model_gid(m, j);
            } else {
                x->lay_q[x->nq] = j, x->gid_q[x->nq++] = model_gid(m, j);
            }
            for (int64_t e = m->row_ptr[j]; e < m->row_ptr[j + 1]; e++) {
                int32_t c = m->row_col[e];
                if (bdf && (c >= n || method[c] != ASSIGN_BDF)) readb[c] = 1;
                if (!bdf && method[c] == ASSIGN_BDF) readq[c] = 1;
            }
        }
        int32_t cq = x->nq;
        for (int32_t L = n; L < nl; L++) /* the QSS halo's ghosts (qss_keep) */
            if (keep[L]) x->gid_q[cq++] = model_gid(m, L);
        x->qss_ghosts = cq - x->nq;
        x->first_bdf_col = cq;
        for (int32_t L = 0; L < nl; L++)
            if (readq[L])
                x->bdf_col_lay[cq - x->first_bdf_col] = L, x->gid_q[cq++] = model_gid(m, L);
        x->mq.n_cols = cq; /* provisional: model_build_local sets it again */
        int32_t cb = x->nb;
        for (int32_t L = 0; L < nl; L++)
            if (readb[L]) x->input_lay[cb - x->nb] = L, x->gid_b[cb++] = model_gid(m, L);
        x->ninputs = cb - x->nb;
        x->mb.n_cols = cb;
    }
    free(readq), free(readb);
    return rc;
}

/* The QSS rows that read BDF states (bdf_readers, room for nq) and each
 * one's BDF columns (read_ptr, read_col; read_sens measured at the first
 * window end). Returns 0 or -1 (out of memory). */
static int build_bdf_readers(mixed *x) {
    const model *mq = &x->mq;
    x->read_ptr = malloc(((size_t)x->nq + 1) * sizeof *x->read_ptr);
    if (!x->read_ptr) return -1;
    int64_t len = 0;
    x->nbdf_readers = 0;
    for (int32_t j = 0; j < x->nq; j++) {
        int64_t first = len;
        for (int64_t e = mq->row_ptr[j]; e < mq->row_ptr[j + 1]; e++)
            len += mq->row_col[e] >= x->first_bdf_col;
        if (len == first) continue;
        x->read_ptr[x->nbdf_readers] = first;
        x->bdf_readers[x->nbdf_readers++] = j;
    }
    x->read_ptr[x->nbdf_readers] = len;
    x->read_col = malloc(((size_t)len + 1) * sizeof *x->read_col);
    x->read_sens = calloc((size_t)len + 1, sizeof *x->read_sens);
    if (!x->read_col || !x->read_sens) return -1;
    for (int32_t r = 0; r < x->nbdf_readers; r++) {
        int32_t j = x->bdf_readers[r];
        int64_t k = x->read_ptr[r];
        for (int64_t e = mq->row_ptr[j]; e < mq->row_ptr[j + 1]; e++)
            if (mq->row_col[e] >= x->first_bdf_col) x->read_col[k++] = mq->row_col[e];
    }
    return 0;
}

/* The exported QSS states, the BDF rows whose slopes are needed, the QSS
 * readers of BDF states, per-export storage. Returns 0 or -1. */
static int build_coupling(mixed *x) {
    int32_t nl = x->m->n_cols, nbcols = x->mq.n_cols - x->first_bdf_col;
    unsigned char *input = calloc((size_t)nl + 1, 1), *sloped = calloc((size_t)nl + 1, 1);
    x->export_q = malloc(((size_t)x->nq + 1) * sizeof *x->export_q);
    x->export_of = malloc(((size_t)x->nq + 1) * sizeof *x->export_of);
    x->watched = calloc((size_t)x->mq.n_cols + 1, 1);
    x->bdf_readers = malloc(((size_t)x->nq + 1) * sizeof *x->bdf_readers);
    x->slope_rows = malloc(((size_t)x->nb + 1) * sizeof *x->slope_rows);
    size_t nb = (size_t)x->nb + 1, nc = (size_t)nbcols + 1;
    x->y0 = calloc(nb, sizeof(double));
    x->ydot = calloc(nb, sizeof(double));
    x->abstol_b = calloc(nb, sizeof(double));
    x->col_slope = calloc(nc, sizeof(double));
    x->col_curv = calloc(nc, sizeof(double));
    x->col_anchor = calloc(nc, sizeof(double));
    x->lay_vals = calloc((size_t)nl + 1, sizeof(double));
    x->lay_slope = calloc((size_t)nl + 1, sizeof(double));
    x->view_area = calloc((size_t)(x->mq.n_cols - x->nq) + 1, sizeof(double));
    x->unit_area = calloc((size_t)(x->mq.n_cols - x->nq) + 1, sizeof(double));
    x->bdf_work = calloc((size_t)x->mb.n_cols + 1, sizeof(double));
    x->vals = malloc(((size_t)x->mb.max_row + 1) * sizeof(double));
    x->listed = malloc((model_scratch_size(&x->mb) + 1) * sizeof(double));
    if (!x->vals || !x->listed || !input || !sloped || !x->export_q || !x->export_of ||
        !x->watched || !x->bdf_readers || !x->slope_rows || !x->y0 || !x->ydot || !x->abstol_b ||
        !x->col_slope || !x->col_curv || !x->col_anchor || !x->lay_vals || !x->lay_slope ||
        !x->view_area || !x->unit_area || !x->bdf_work) {
        free(input), free(sloped);
        return -1;
    }
    for (int32_t k = 0; k < x->ninputs; k++)
        input[x->input_lay[k]] = 1;
    for (int32_t c = 0; c < nbcols; c++)
        sloped[x->bdf_col_lay[c]] = 1;
    x->nexports = 0;
    for (int32_t i = 0; i < x->nq; i++) {
        int32_t L = x->lay_q[i];
        x->export_of[i] = -1;
        if (!input[L] && !on_boundary(x, L)) continue;
        x->export_of[i] = x->nexports;
        x->export_q[x->nexports++] = i;
        x->watched[i] = WATCH_BDF;
    }
    x->nslope_rows = 0;
    for (int32_t b = 0; b < x->nb; b++)
        if (sloped[x->lay_b[b]] || on_boundary(x, x->lay_b[b])) x->slope_rows[x->nslope_rows++] = b;
    free(input), free(sloped);
    size_t ne = (size_t)x->nexports + 1;
    x->q_start = calloc(ne, sizeof(double));
    x->q_integral = calloc(ne, sizeof(double));
    x->q_upto = calloc(ne, sizeof(double));
    x->history_last = malloc(ne * sizeof *x->history_last);
    x->reader_ptr = calloc(ne + 1, sizeof *x->reader_ptr);
    if (!x->q_start || !x->q_integral || !x->q_upto || !x->history_last || !x->reader_ptr)
        return -1;
    if (build_bdf_readers(x)) return -1;
    const qmol_problem *p = x->m->problem;
    for (int32_t b = 0; b < x->nb; b++) {
        double scale = p->abstol_scale ? p->abstol_scale(p->data, x->gid_b[b]) : 1.0;
        x->abstol_b[b] = x->o->abstol * scale;
    }
    return 0;
}

/* interp and sample (one rank): the BDF rows reading each export and their
 * entries, for the step limit. Returns 0 or -1. */
static int build_readers(mixed *x) {
    const model *mb = &x->mb;
    int32_t *col = malloc(((size_t)x->nexports + 1) * sizeof *col);
    if (!col) return -1;
    for (int32_t k = 0; k < x->nexports; k++) {
        /* one rank: the inputs' global ids are their layout indices, ascending */
        int32_t c = ids_find(x->gid_b + x->nb, x->ninputs, x->gid_q[x->export_q[k]]);
        col[k] = c < 0 ? -1 : x->nb + c;
        int64_t len = col[k] < 0 ? 0 : mb->dep_ptr[col[k] + 1] - mb->dep_ptr[col[k]];
        x->reader_ptr[k + 1] = x->reader_ptr[k] + len;
    }
    size_t nr = (size_t)x->reader_ptr[x->nexports] + 1;
    x->reader_row = malloc(nr * sizeof *x->reader_row);
    x->reader_entry = malloc(nr * sizeof *x->reader_entry);
    if (!x->reader_row || !x->reader_entry) {
        free(col);
        return -1;
    }
    for (int32_t k = 0; k < x->nexports; k++) {
        if (col[k] < 0) continue;
        int64_t d0 = mb->dep_ptr[col[k]], r0 = x->reader_ptr[k];
        for (int64_t d = d0; d < mb->dep_ptr[col[k] + 1]; d++) {
            x->reader_row[r0 + d - d0] = mb->dep_row[d];
            x->reader_entry[r0 + d - d0] = mb->dep_entry[d];
        }
    }
    free(col);
    return 0;
}

/* A handler may affect BDF rows: they restart at its time (mixed_run.c). */
static int is_bdf_state(void *ctx, int64_t gid) {
    const mixed *x = ctx;
    return ids_find(x->gid_b, x->nb, gid) >= 0;
}

/* The methods of the layout's states, ghosts included (exchanged). */
static unsigned char *layout_methods(const mixed *x, const unsigned char *owned) {
    int32_t nl = x->m->n_cols;
    unsigned char *method = malloc((size_t)nl + 1);
    double *v = x->halo ? malloc(((size_t)nl + 1) * sizeof *v) : NULL;
    int ok = method && (!x->halo || v);
    if (x->halo && comm_agree(x->comm, ok ? 0 : -1, NULL, 0)) ok = 0;
    if (!ok) {
        free(method), free(v);
        return NULL;
    }
    memcpy(method, owned, (size_t)x->m->n);
    if (x->halo) {
        for (int32_t j = 0; j < x->m->n; j++)
            v[j] = owned[j];
        halo_exchange((halo_plan *)x->halo, v);
        for (int32_t L = x->m->n; L < nl; L++)
            method[L] = v[L] != 0.0 ? ASSIGN_BDF : ASSIGN_QSS;
    }
    free(v);
    return method;
}

/* The layout states the QSS block holds: its owned states and the other
 * ranks' QSS states its rows read (those that only BDF rows read reach them
 * through the BDF block's inputs). NULL when out of memory. */
static unsigned char *qss_keep(const model *m, const unsigned char *method) {
    unsigned char *keep = calloc((size_t)m->n_cols + 1, 1);
    if (!keep) return NULL;
    for (int32_t j = 0; j < m->n; j++) {
        if (method[j] == ASSIGN_BDF) continue;
        keep[j] = 1;
        for (int64_t e = m->row_ptr[j]; e < m->row_ptr[j + 1]; e++)
            if (m->row_col[e] >= m->n && method[m->row_col[e]] != ASSIGN_BDF)
                keep[m->row_col[e]] = 1;
    }
    return keep;
}

/* Local set-up (no communication). Returns 0 or -1 with err. */
static int setup_blocks(mixed *x, const unsigned char *method, const unsigned char *keep,
                        const qss_method *qm, qmol_stats *stats, char *err, size_t errlen) {
    const model *m = x->m;
    if (split_columns(x, method, keep)) {
        snprintf(err, errlen, "out of memory splitting the states");
        return -1;
    }
    if (model_build_local(&x->mq, m->problem, x->gid_q, x->nq, x->mq.n_cols, err, errlen) ||
        model_build_local(&x->mb, m->problem, x->gid_b, x->nb, x->mb.n_cols, err, errlen))
        return -1;
    if (eng_setup(&x->e, &x->mq, &x->oq, qm, stats, err, errlen) || build_coupling(x) ||
        (x->coupling != COUPLING_HISTORY && build_readers(x))) {
        snprintf(err, errlen, "out of memory for the mixed method's storage");
        return -1;
    }
    if (x->o->activity && !(x->e.activity = calloc((size_t)x->nq + 1, sizeof(double)))) {
        snprintf(err, errlen, "out of memory for the event counts");
        return -1;
    }
    x->e.driver = x;
    x->e.watched_q = x->watched;
    x->e.on_q_change = mixed_on_export_change;
    return 0;
}

int mixed_check_coupling(int coupling, int ranks, char *err, size_t errlen) {
    if (ranks <= 1 || coupling == COUPLING_HISTORY) return 0;
    snprintf(err, errlen,
             "--coupling %s: runs on one rank only (started on %d ranks; its step limit needs "
             "every reader's Jacobian entry); on several ranks use the default, history",
             coupling == COUPLING_SAMPLE ? "sample" : "interp", ranks);
    return -1;
}

static int check(const model *m, const integrator_options *o, int distributed, char *err,
                 size_t errlen) {
    if (!integrator_is_qss(o->qss_method)) {
        snprintf(err, errlen, "mixed: the QSS block's method %s is not a QSS method",
                 o->qss_method ? o->qss_method->name : "unknown");
        return -1;
    }
    if (!o->assignment) {
        snprintf(err, errlen, "mixed: no QSS/BDF assignment given");
        return -1;
    }
    int ranks = 1;
    if (distributed) MPI_Comm_size(o->halo->comm, &ranks);
    if (mixed_check_coupling(o->coupling, ranks, err, errlen)) return -1;
    if (!distributed && m->n_cols != m->n) {
        snprintf(err, errlen, "mixed: a model with ghosts needs the run's halo");
        return -1;
    }
    return 0;
}

int mixed_setup(mixed *x, const model *m, const integrator_options *o, qmol_stats *stats, char *err,
                size_t errlen) {
    x->o = o;
    x->m = m;
    x->halo = o->halo;
    x->distributed = o->halo != NULL;
    x->comm = o->halo ? o->halo->comm : MPI_COMM_SELF;
    MPI_Comm_rank(x->comm, &x->rank);
    x->coupling = o->coupling;
    x->oq = *o;
    x->ob = *o;
    x->ob.halo = NULL; /* the BDF block exchanges through mixed_bdf_inputs */
    int rc = check(m, o, x->distributed, err, errlen);
    if (rc) return -1;
    int64_t count[2] = {0, 0};
    for (int32_t j = 0; j < m->n; j++)
        count[o->assignment[j] == ASSIGN_BDF]++;
    if (x->distributed) MPI_Allreduce(MPI_IN_PLACE, count, 2, MPI_INT64_T, MPI_SUM, x->comm);
    if (assign_check_split(count, err, errlen)) return -1;
    unsigned char *method = layout_methods(x, o->assignment);
    if (!method) {
        snprintf(err, errlen, "out of memory for the states' methods");
        return -1;
    }
    unsigned char *keep = qss_keep(m, method);
    rc = keep ? 0 : -1;
    if (x->distributed) rc = comm_agree(x->comm, rc, NULL, 0);
    if (rc == 0 && x->distributed) rc = halo_subset(&x->qhalo, x->halo, keep);
    if (rc) {
        free(method), free(keep);
        snprintf(err, errlen, "out of memory for the QSS block's halo");
        return -1;
    }
    x->oq.halo = x->distributed ? &x->qhalo : NULL;
    rc = setup_blocks(x, method, keep, o->qss_method->qss, stats, err, errlen);
    free(method), free(keep);
    if (x->distributed) {
        if (rc == 0 && (qssx_setup_boundary(&x->e) || qssx_init(&x->qx, &x->e) ||
                        watch_init(&x->e, &x->watch))) {
            snprintf(err, errlen, "out of memory for the QSS block's exchange");
            rc = -1;
        }
        rc = comm_agree(x->comm, rc, err, errlen);
    }
    if (rc) return -1;
    /* discrete_attach reports through the engine (collective ranks agree) */
    rc = discrete_attach(&x->e, x->watched, is_bdf_state, x) != 0 ? -1 : 0;
    if (x->distributed) rc = comm_agree(x->comm, rc, err, errlen);
    if (rc) return -1;
    int64_t nb_global = x->nb;
    if (x->distributed) MPI_Allreduce(MPI_IN_PLACE, &nb_global, 1, MPI_INT64_T, MPI_SUM, x->comm);
    cvode_inputs in = {.first = x->nb,
                       .values = mixed_bdf_inputs,
                       .ctx = x,
                       .comm = x->comm,
                       .n_global = x->distributed ? nb_global : 0};
    x->bdf = cvode_block_open(&x->mb, &x->ob, &in, err, errlen);
    return x->bdf ? 0 : -1;
}
