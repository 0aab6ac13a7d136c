/* last_window.c: a checkpoint's content kept in memory (last_window.h). */
#include "checkpoint/last_window.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KEPT_FIELD, KEPT_ZERO_FIELD, KEPT_VECTOR, KEPT_SCALAR };

typedef struct kept_item {
    int kind;
    char name[64];
    int64_t len;
    size_t offset; /* into values */
} kept_item;

/* Room for cap values (w->values_cap of them now). Returns 0, or -1 when
 * out of memory or beyond size_t. */
static int values_room(last_window *w, size_t cap) {
    if (cap > SIZE_MAX / sizeof *w->values) return -1;
    double *values = realloc(w->values, cap * sizeof *values);
    if (!values) return -1;
    w->values = values;
    w->values_cap = cap;
    return 0;
}

/* Room for need values: none added when there is, else what is needed and
 * an eighth (at least 1024). Returns 0, or -1 when out of memory. */
static int room_for(last_window *w, size_t need) {
    if (need <= w->values_cap) return 0;
    return values_room(w, need + need / 8 > 1024 ? need + need / 8 : 1024);
}

/* A new item with room for len values at w->values + item->offset, or NULL
 * (io.why says why). The keep_* functions then still return 0, so that every
 * rank goes through the same collective steps of the content; the record is
 * dropped at last_window_finish. */
static kept_item *add(last_window *w, int kind, const char *name, int64_t len) {
    if (w->io.why) return NULL; /* the record is dropped already */
    if (w->count == w->items_cap) {
        size_t cap = w->items_cap ? 2 * w->items_cap : 32;
        kept_item *items = realloc(w->items, cap * sizeof *items);
        if (!items) {
            w->io.why = "out of memory keeping the last window";
            return NULL;
        }
        w->items = items;
        w->items_cap = cap;
    }
    if (len < 0 || (uint64_t)len > SIZE_MAX / sizeof(double) / 2 - w->used) {
        w->io.why = "a checkpoint field too large to keep";
        return NULL;
    }
    size_t need = w->used + (size_t)len;
    if (room_for(w, need)) {
        w->io.why = "out of memory keeping the last window";
        return NULL;
    }
    kept_item *it = &w->items[w->count];
    size_t name_len = strlen(name);
    if (name_len >= sizeof it->name) {
        w->io.why = "a checkpoint field's name is too long to keep";
        return NULL;
    }
    memcpy(it->name, name, name_len + 1);
    it->kind = kind;
    it->len = len;
    it->offset = w->used;
    w->used = need;
    w->count++;
    return it;
}

/* Whether one of v[0 .. len-1] is a NaN: four independent chains of
 * comparisons (one chain, or lanes in an array, cost as much as the
 * record's copies). */
static int has_nan(const double *v, int64_t len) {
    int a = 0, b = 0, c = 0, d = 0;
    int64_t i = 0;
    for (; i + 4 <= len; i += 4) {
        a |= v[i] != v[i];
        b |= v[i + 1] != v[i + 1];
        c |= v[i + 2] != v[i + 2];
        d |= v[i + 3] != v[i + 3];
    }
    for (; i < len; i++)
        a |= v[i] != v[i];
    return a | b | c | d;
}

/* Copies len values into the record (none when the saver wrote them in
 * place, field_room); a NaN drops the record (it would be a checkpoint
 * that no restart can use). */
static void copy_values(last_window *w, const kept_item *it, const double *from) {
    double *to = w->values + it->offset;
    if (from != to && it->len > 0) memcpy(to, from, (size_t)it->len * sizeof *to);
    if (has_nan(to, it->len)) w->io.why = "a NaN in the window's state";
}

/* state_io's field_room: fields are kept one after the other, n values
 * each; NULL when there is no room (add then says why). */
static double *keep_field_room(state_io *io, int ahead) {
    last_window *w = (last_window *)io;
    size_t fields = (size_t)ahead + 1;
    if (w->io.why || ahead < 0 ||
        (w->n > 0 && fields > SIZE_MAX / sizeof(double) / 4 / (size_t)w->n) ||
        w->used > SIZE_MAX / sizeof(double) / 2 - fields * (size_t)w->n)
        return NULL;
    if (room_for(w, w->used + fields * (size_t)w->n)) return NULL;
    return w->values + w->used + (size_t)ahead * (size_t)w->n;
}

static int keep_field(state_io *io, const char *name, double *owned) {
    last_window *w = (last_window *)io;
    kept_item *it = add(w, owned ? KEPT_FIELD : KEPT_ZERO_FIELD, name, owned ? w->n : 0);
    if (it && owned) copy_values(w, it, owned);
    return 0; /* on failure io.why says so; the content's collective steps go on */
}

static int keep_vector(state_io *io, const char *name, int64_t len, double *values) {
    last_window *w = (last_window *)io;
    kept_item *it = add(w, KEPT_VECTOR, name, len);
    if (it) copy_values(w, it, values);
    return 0;
}

static int keep_scalar(state_io *io, const char *name, double *value) {
    last_window *w = (last_window *)io;
    kept_item *it = add(w, KEPT_SCALAR, name, 1);
    if (it) copy_values(w, it, value);
    return 0;
}

void last_window_init(last_window *w, int32_t n) {
    memset(w, 0, sizeof *w);
    w->io = (state_io){.field = keep_field,
                       .vector = keep_vector,
                       .scalar = keep_scalar,
                       .field_room = keep_field_room};
    w->n = n;
    w->t = NAN;
}

int last_window_reserve(last_window *w, size_t values) {
    size_t had = w->values_cap;
    if (values <= had) return 0;
    if (values_room(w, values)) return -1;
    memset(w->values + had, 0, (values - had) * sizeof *w->values); /* touched now */
    return 0;
}

void last_window_begin(last_window *w) {
    w->t = NAN;
    w->count = 0;
    w->used = 0;
    w->io.why = NULL;
}

int last_window_finish(last_window *w, int ok, double t, int64_t next_sample) {
    if (!ok || w->io.why) {
        w->t = NAN;
        return -1;
    }
    w->t = t;
    w->next_sample = next_sample;
    return 0;
}

int last_window_replay(const last_window *w, state_io *io) {
    for (size_t i = 0; i < w->count; i++) {
        const kept_item *it = &w->items[i];
        double *v = w->values + it->offset;
        int rc = it->kind == KEPT_FIELD        ? io->field(io, it->name, v)
                 : it->kind == KEPT_ZERO_FIELD ? io->field(io, it->name, NULL)
                 : it->kind == KEPT_VECTOR     ? io->vector(io, it->name, it->len, v)
                                               : io->scalar(io, it->name, v);
        if (rc) return rc;
    }
    return 0;
}

void last_window_free(last_window *w) {
    free(w->items);
    free(w->values);
    last_window_init(w, 0);
}
