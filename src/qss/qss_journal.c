/* qss_journal.c: undo log of a QSS window (see qss_journal.h). */
#include "qss/qss_journal.h"

#include "qss/discrete.h"

#include <stdlib.h>
#include <string.h>

/* Engine fields every state has: its x and q records. */
#define COMMON_FIELDS (QSS_X_DOUBLES + QSS_Q_DOUBLES)

/* A state_io that only notes where the method keeps its fields. */
static int note_field(state_io *io, const char *name, double *owned) {
    (void)name;
    qss_journal *j = io->ctx;
    if (j->nmethod == JOURNAL_MAX_FIELDS) return -1;
    j->method_field[j->nmethod++] = owned;
    return 0;
}

static int no_scalar(state_io *io, const char *name, double *value) {
    (void)io, (void)name, (void)value;
    return -1;
}

static int no_vector(state_io *io, const char *name, int64_t len, double *values) {
    (void)io, (void)name, (void)len, (void)values;
    return -1;
}

int journal_init(qss_journal *j, qss_engine *e) {
    memset(j, 0, sizeof *j);
    j->window = 1;
    j->nstamps = (size_t)e->n_cols + 1;
    j->stamp = calloc(j->nstamps, sizeof *j->stamp);
    if (!j->stamp) return -1;
    if (e->method->state_io) {
        state_io io = {.field = note_field, .scalar = no_scalar, .vector = no_vector, .ctx = j};
        if (e->method->state_io(e, &io)) return -1;
    }
    e->journal = j;
    return 0;
}

void journal_free(qss_journal *j) {
    free(j->stamp);
    free(j->log);
    memset(j, 0, sizeof *j);
}

void journal_begin(qss_engine *e) {
    qss_journal *j = e->journal;
    if (!j) return;
    if (e->disc) discrete_undo_begin(e);
    j->used = 0;
    j->overflow = 0;
    if (++j->window == 0) { /* the stamps wrapped: start them again */
        j->window = 1;
        memset(j->stamp, 0, j->nstamps * sizeof *j->stamp);
    }
}

/* Doubles in state i's record. */
static size_t record_size(const qss_engine *e, int32_t i) {
    size_t size = 1 + COMMON_FIELDS;
    if (i >= e->n) return size;
    const qss_journal *j = e->journal;
    size += 1 + (e->activity != NULL) + (size_t)j->nmethod;
    if (e->entry) size += (size_t)model_row_length(e->m, i); /* its Jacobian estimates */
    return size;
}

void journal_save(qss_engine *e, int32_t i) {
    qss_journal *j = e->journal;
    j->stamp[i] = j->window;
    size_t size = record_size(e, i);
    if (j->used + size > j->cap) {
        size_t cap = j->cap ? 2 * j->cap : 4096;
        while (cap < j->used + size)
            cap *= 2;
        double *log = realloc(j->log, cap * sizeof *log);
        if (!log) {
            j->overflow = 1;
            return;
        }
        j->log = log;
        j->cap = cap;
    }
    double *r = j->log + j->used;
    j->used += size;
    *r++ = (double)i;
    memcpy(r, &e->x[i], sizeof e->x[i]);
    memcpy(r + QSS_X_DOUBLES, &e->q[i], sizeof e->q[i]);
    r += COMMON_FIELDS;
    if (i >= e->n) return;
    *r++ = heap_time(&e->heap, i);
    if (e->activity) *r++ = e->activity[i];
    for (int k = 0; k < j->nmethod; k++)
        *r++ = j->method_field[k][i];
    if (e->entry)
        for (int64_t p = eng_entry_pos(e, i, 0), end = p + model_row_length(e->m, i); p < end; p++)
            *r++ = e->entry[p];
}

int journal_restore(qss_engine *e) {
    qss_journal *j = e->journal;
    if (j->overflow) return -1;
    for (const double *r = j->log, *end = j->log + j->used; r < end;) {
        int32_t i = (int32_t)*r++;
        memcpy(&e->x[i], r, sizeof e->x[i]);
        memcpy(&e->q[i], r + QSS_X_DOUBLES, sizeof e->q[i]);
        r += COMMON_FIELDS;
        if (i >= e->n) continue;
        heap_update(&e->heap, i, *r++);
        if (e->activity) e->activity[i] = *r++;
        for (int k = 0; k < j->nmethod; k++)
            j->method_field[k][i] = *r++;
        if (e->entry)
            for (int64_t p = eng_entry_pos(e, i, 0), end = p + model_row_length(e->m, i); p < end;
                 p++)
                e->entry[p] = *r++;
    }
    j->used = 0;
    return 0;
}

void journal_accept(qss_engine *e) {
    if (e->journal && e->disc) discrete_undo_accept(e);
}

int journal_setup_agreed(qss_journal *j, qss_engine *e, int adaptive, MPI_Comm comm) {
    int undo =
        adaptive && (!e->disc || discrete_undo_init(e->disc) == 1) && journal_init(j, e) == 0;
    MPI_Allreduce(MPI_IN_PLACE, &undo, 1, MPI_INT, MPI_MIN, comm); /* all or none */
    if (!undo) e->journal = NULL;
    return undo;
}

void journal_take_back(qss_engine *e, const window_mark *m, double *last_t, uint64_t *same_time,
                       uint64_t *windows) {
    if (journal_restore(e) != 0 || (e->disc && discrete_undo_restore(e) != 0))
        eng_fail(e, "out of memory for the window's undo log");
    *last_t = m->last_t, *same_time = m->same_time;
    ++*windows;
    e->stats->events_rejected += e->stats->events - m->events;
    e->stats->events = m->events;
}
