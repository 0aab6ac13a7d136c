/* discrete_undo.c: taking back a rejected window's discontinuities
 * (discrete_undo.h). */
#include "qss/discrete_undo.h"

#include "qss/discrete.h"
#include "qss/qss_engine.h"

#include <stdlib.h>
#include <string.h>

struct undo_entry {
    int64_t c;
    double time;
    signed char sign;
};

struct undo_report {
    double t;
    int64_t c;
    int direction;
};

int discrete_undo_init(discrete *d) {
    const qmol_problem *p = d->p;
    discrete_undo *u = &d->undo;
    /* collective: handlers run at window ends, after the verdict; in one
     * rank's loop they change the discrete variables, which must be saved */
    if (!d->collective && p->n_discrete <= 0) return 0;
    u->window = 1;
    u->stamp = calloc((size_t)d->nc + 1, sizeof *u->stamp);
    if (!u->stamp) return -1;
    if (!d->collective && p->n_discrete > 0) {
        u->vars = malloc((size_t)p->n_discrete * sizeof *u->vars);
        if (!u->vars) return -1;
    }
    return 1;
}

void discrete_undo_free(discrete *d) {
    discrete_undo *u = &d->undo;
    free(u->stamp), free(u->log), free(u->vars), free(u->report);
    memset(u, 0, sizeof *u);
}

void discrete_undo_begin(qss_engine *e) {
    discrete *d = e->disc;
    discrete_undo *u = &d->undo;
    if (!u->stamp) return;
    u->open = 1;
    u->used = 0;
    u->nreport = 0;
    u->overflow = 0;
    if (++u->window == 0) { /* the stamps wrapped: start them again */
        u->window = 1;
        memset(u->stamp, 0, ((size_t)d->nc + 1) * sizeof *u->stamp);
    }
    if (u->vars) d->p->get_discrete(d->p->data, u->vars);
    u->handled_at = d->handled_at;
    u->crossings = e->stats->crossings;
    u->time_events = e->stats->time_events;
}

void discrete_undo_keep(discrete *d, int64_t c) {
    discrete_undo *u = &d->undo;
    if (!u->open || u->stamp[c] == u->window) return;
    u->stamp[c] = u->window;
    if (u->used == u->cap) {
        size_t cap = u->cap ? 2 * u->cap : 64;
        struct undo_entry *log = realloc(u->log, cap * sizeof *log);
        if (!log) {
            u->overflow = 1;
            return;
        }
        u->log = log, u->cap = cap;
    }
    u->log[u->used++] =
        (struct undo_entry){c, heap_time(&d->heap, (int32_t)c), c < d->nc ? d->sign[c] : 0};
}

void discrete_report(qss_engine *e, double t, int64_t c, int direction) {
    const integrator_options *o = e->o;
    if (!o->on_discrete) return;
    discrete_undo *u = &e->disc->undo;
    if (!u->open) {
        o->on_discrete(o->discrete_ctx, t, c, direction);
        return;
    }
    if (u->nreport == u->report_cap) {
        size_t cap = u->report_cap ? 2 * u->report_cap : 16;
        struct undo_report *r = realloc(u->report, cap * sizeof *r);
        if (!r) {
            eng_fail(e, "out of memory for the window's discontinuity reports");
            return;
        }
        u->report = r, u->report_cap = cap;
    }
    u->report[u->nreport++] = (struct undo_report){t, c, direction};
}

void discrete_undo_accept(qss_engine *e) {
    discrete_undo *u = &e->disc->undo;
    const integrator_options *o = e->o;
    u->open = 0;
    for (size_t k = 0; k < u->nreport; k++)
        o->on_discrete(o->discrete_ctx, u->report[k].t, u->report[k].c, u->report[k].direction);
    u->nreport = 0;
}

int discrete_undo_restore(qss_engine *e) {
    discrete *d = e->disc;
    discrete_undo *u = &d->undo;
    u->open = 0;
    u->nreport = 0;
    if (u->overflow) return -1;
    for (size_t k = u->used; k-- > 0;) {
        const struct undo_entry *r = &u->log[k];
        heap_update(&d->heap, (int32_t)r->c, r->time);
        if (r->c < d->nc) d->sign[r->c] = r->sign;
    }
    u->used = 0;
    if (u->vars) d->p->set_discrete(d->p->data, u->vars);
    d->handled_at = u->handled_at;
    e->stats->crossings = u->crossings;
    e->stats->time_events = u->time_events;
    return 0;
}
