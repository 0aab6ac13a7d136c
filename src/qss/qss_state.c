/* qss_state.c: the QSS engine's state in a checkpoint, and back
 * (eng_state_io, qss_engine.h).
 *
 * Per owned state: x's polynomial (x0 .. x<order>) about tx, q's (q0 ..
 * q<order-1>) about tq, the quantum dq, the next event time, LIQSS's
 * Jacobian estimates (diag, or the row entries entry0 .. entry<W-1>, W the
 * longest row of the whole problem, so that the fields do not depend on the
 * number of ranks), at order >= 2 the age the unseen check verified
 * (checked_age), and the method's own fields. Ghost
 * q's are not saved: at a window end they equal their owners' (every
 * change was sent), so a load sends the owners' to the ghosts as the window
 * exchange would have. Loaded on the same ranks the engine is then what it
 * was, and the run goes on event for event.
 */
#include "comm/agree.h"
#include "comm/halo.h"
#include "qss/qss_engine.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One field through a column buffer: get fills col from e, put stores it. */
static int column(state_io *io, const char *name, double *col, qss_engine *e,
                  void (*get)(const qss_engine *, int32_t, int, double *),
                  void (*put)(qss_engine *, int32_t, int, const double *), int arg) {
    if (!io->loading) get(e, e->n, arg, col);
    if (io->field(io, name, col)) return -1;
    if (io->loading) put(e, e->n, arg, col);
    return 0;
}

static void get_next(const qss_engine *e, int32_t n, int arg, double *col) {
    (void)arg;
    for (int32_t j = 0; j < n; j++)
        col[j] = heap_time(&e->heap, j);
}

static void put_next(qss_engine *e, int32_t n, int arg, const double *col) {
    (void)arg;
    for (int32_t j = 0; j < n; j++)
        heap_update(&e->heap, j, col[j]);
}

/* One field of the x or q records (the owned n of them, `size` bytes each)
 * through the column buffer, by its byte offset in the record. */
static int record_column(state_io *io, const char *name, double *col, void *records, size_t size,
                         int32_t n, size_t offset) {
    char *field = (char *)records + offset;
    if (!io->loading)
        for (int32_t j = 0; j < n; j++)
            memcpy(&col[j], field + (size_t)j * size, sizeof(double));
    if (io->field(io, name, col)) return -1;
    if (io->loading)
        for (int32_t j = 0; j < n; j++)
            memcpy(field + (size_t)j * size, &col[j], sizeof(double));
    return 0;
}

/* Entry w of every row (0 past a row's end). */
static void get_entry(const qss_engine *e, int32_t n, int w, double *col) {
    const model *m = e->m;
    for (int32_t j = 0; j < n; j++)
        col[j] = w < model_row_length(m, j) ? e->entry[eng_entry_pos(e, j, w)] : 0.0;
}

static void put_entry(qss_engine *e, int32_t n, int w, const double *col) {
    const model *m = e->m;
    for (int32_t j = 0; j < n; j++)
        if (w < model_row_length(m, j)) e->entry[eng_entry_pos(e, j, w)] = col[j];
}

/* Sends the owned q's to the ghosts, whose quanta follow from them as in the
 * window exchange (qss_window.c). */
static void refresh_ghosts(qss_engine *e) {
    for (int k = 0; k < e->order; k++)
        halo_exchange_strided(e->halo, &e->q[0].c[k], QSS_Q_DOUBLES);
    halo_exchange_strided(e->halo, &e->q[0].tq, QSS_Q_DOUBLES);
    for (int32_t g = e->n; g < e->n_cols; g++)
        e->x[g].dq = eng_quantum(e, g, e->q[g].c[0]);
}

/* After a load: every owned quantum within what the tolerances give for a
 * state near its q and x (eng_quantum), else a damaged or edited checkpoint
 * (a quantum of 1e10 ran to exit 0 with a wrong result). Collective. */
static int check_quanta(qss_engine *e, MPI_Comm comm, state_io *io) {
    static char why[320];
    int bad = 0;
    for (int32_t j = 0; j < e->n && !bad; j++) {
        double dq = e->x[j].dq, low = eng_quantum(e, j, 0.0);
        double near = fabs(e->q[j].c[0]) + fabs(e->x[j].c[0]) + 4.0 * fabs(dq);
        double high = fmax(low, e->o->reltol * near);
        if (!(dq >= low * (1.0 - 1e-9) && dq <= high * (1.0 + 1e-9))) {
            snprintf(why, sizeof why,
                     "integrator/dq: the quantum %.17g of state %lld is outside what the "
                     "tolerances give there (%.3g .. %.3g): the checkpoint is damaged",
                     dq, (long long)model_gid(e->m, j), low, high);
            bad = 1;
        }
    }
    if (!comm_agree(comm, bad, why, sizeof why)) return 0;
    io->why = why;
    return -1;
}

/* A field of the x or q records, or the next event times (records NULL). */
typedef struct record_field {
    const char *name;
    void *records;
    size_t size, offset;
} record_field;

#define RECORD_FIELDS_MAX 16

static int add_field(record_field *f, int count, const char *name, void *records, size_t size,
                     size_t offset) {
    f[count] = (record_field){name, records, size, offset};
    return count + 1;
}

/* The record fields in checkpoint order: x0 .. x<order>, q0 .. q<order-1>,
 * tx, tq, dq, next, diag (LIQSS1, LIQSS2), checked_age (order >= 2 and
 * with_age). Returns how many. */
static int record_fields(qss_engine *e, int with_age, record_field *f) {
    /* literal names (one per coefficient of qss_x.c and qss_q.c): a kept
     * window saves at every window end */
    static const char *const x_names[] = {"x0", "x1", "x2", "x3"};
    static const char *const q_names[] = {"q0", "q1", "q2"};
    int count = 0;
    size_t xs = sizeof *e->x, qs = sizeof *e->q;
    for (int k = 0; k <= e->order; k++)
        count = add_field(f, count, x_names[k], e->x, xs,
                          offsetof(qss_x, c) + (size_t)k * sizeof(double));
    for (int k = 0; k < e->order; k++)
        count = add_field(f, count, q_names[k], e->q, qs,
                          offsetof(qss_q, c) + (size_t)k * sizeof(double));
    count = add_field(f, count, "tx", e->x, xs, offsetof(qss_x, tx));
    count = add_field(f, count, "tq", e->q, qs, offsetof(qss_q, tq));
    count = add_field(f, count, "dq", e->x, xs, offsetof(qss_x, dq));
    count = add_field(f, count, "next", NULL, 0, 0);
    if (e->has_diag) count = add_field(f, count, "diag", e->x, xs, offsetof(qss_x, diag));
    if (with_age)
        count = add_field(f, count, "checked_age", e->x, xs, offsetof(qss_x, checked_age));
    return count;
}

/* Saving into io's own places for the fields (field_room), all in one pass
 * over the records: a kept window (last_window.h) saves at every window
 * end, where a pass per field cost as much as the window's events. Returns
 * 1 when io has no places (nothing was done), else 0 or -1 as io->field. */
static int save_in_place(qss_engine *e, state_io *io, const record_field *f, int count) {
    double *room[RECORD_FIELDS_MAX];
    if (io->loading || !io->field_room || !io->field_room(io, count - 1)) return 1;
    for (int k = 0; k < count; k++)
        if (!(room[k] = io->field_room(io, k))) return 1;
    for (int32_t j = 0; j < e->n; j++)
        for (int k = 0; k < count; k++) {
            const char *from =
                f[k].records ? (const char *)f[k].records + (size_t)j * f[k].size : NULL;
            if (from)
                memcpy(&room[k][j], from + f[k].offset, sizeof(double));
            else
                room[k][j] = heap_time(&e->heap, j);
        }
    for (int k = 0; k < count; k++)
        if (io->field(io, f[k].name, room[k])) return -1;
    return 0;
}

int eng_state_io(qss_engine *e, state_io *io) {
    MPI_Comm comm = e->halo ? e->halo->comm : MPI_COMM_SELF;
    int width = e->m->max_row;
    if (e->halo) MPI_Allreduce(MPI_IN_PLACE, &width, 1, MPI_INT, MPI_MAX, comm);
    /* kept between saves: a run that keeps its last window saves often
     * (last_window.h), and fresh pages each time cost more than the copy */
    if (!e->io_column) e->io_column = malloc(((size_t)e->n + 1) * sizeof *e->io_column);
    double *col = e->io_column;
    if (comm_agree(comm, col ? 0 : -1, NULL, 0)) {
        io->why = "out of memory for the checkpoint's QSS state";
        return -1;
    }
    char name[32];
    /* a checkpoint from before the unseen check's ages: none checked yet */
    int with_age = e->order >= 2;
    if (with_age && io->loading && io->has_field && !io->has_field(io, "checked_age")) {
        with_age = 0;
        for (int32_t j = 0; j < e->n; j++)
            e->x[j].checked_age = INFINITY;
    }
    record_field f[RECORD_FIELDS_MAX];
    int count = record_fields(e, with_age, f);
    int rc = save_in_place(e, io, f, count);
    for (int k = 0; rc == 1 && k < count; k++)
        if (f[k].records
                ? record_column(io, f[k].name, col, f[k].records, f[k].size, e->n, f[k].offset)
                : column(io, f[k].name, col, e, get_next, put_next, 0))
            rc = -1;
    if (rc == 1) rc = 0;
    for (int w = 0; rc == 0 && e->entry && w < width; w++) {
        snprintf(name, sizeof name, "entry%d", w);
        rc = column(io, name, col, e, get_entry, put_entry, w);
    }
    if (rc == 0 && e->method->state_io) rc = e->method->state_io(e, io);
    if (rc == 0 && io->loading) rc = check_quanta(e, comm, io);
    if (rc == 0 && io->loading && e->halo) refresh_ghosts(e);
    return rc;
}
