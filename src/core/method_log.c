/* method_log.c: which method ran from when (method_log.h). */
#include "core/method_log.h"

#include "core/integrator_registry.h"

#include <stdlib.h>
#include <string.h>

int method_log_add(method_log *l, double t, const integrator_def *method, int64_t bdf_states) {
    if (l->count > 0 && l->t[l->count - 1] == t) l->count--;
    if (l->count == l->cap) {
        int cap = l->cap ? 2 * l->cap : 8;
        double *nt = realloc(l->t, (size_t)cap * sizeof *nt);
        if (nt) l->t = nt;
        const integrator_def **nm = realloc(l->method, (size_t)cap * sizeof *nm);
        if (nm) l->method = nm;
        int64_t *nb = realloc(l->bdf_states, (size_t)cap * sizeof *nb);
        if (nb) l->bdf_states = nb;
        int64_t *ni = realloc(l->moved_in, (size_t)cap * sizeof *ni);
        if (ni) l->moved_in = ni;
        int64_t *no = realloc(l->moved_out, (size_t)cap * sizeof *no);
        if (no) l->moved_out = no;
        if (!nt || !nm || !nb || !ni || !no) {
            l->failed = 1;
            return -1;
        }
        l->cap = cap;
    }
    l->t[l->count] = t;
    l->method[l->count] = method;
    l->bdf_states[l->count] = bdf_states;
    l->moved_in[l->count] = l->moved_out[l->count] = 0;
    l->count++;
    return 0;
}

void method_log_moves(method_log *l, const integrator_def *method, uint64_t to_bdf,
                      uint64_t to_qss) {
    for (int k = l->count - 1; k >= 0; k--)
        if (l->method[k] == method) {
            l->moved_in[k] += (int64_t)to_bdf;
            l->moved_out[k] += (int64_t)to_qss;
            return;
        }
}

void method_log_print(const method_log *l, FILE *out) {
    if (l->count == 0) return;
    fprintf(out, "  methods     from t on, as chosen by their measured cost\n");
    for (int k = 0; k < l->count; k++) {
        char split[160] = "";
        if (l->bdf_states[k] > 0 && l->bdf_states[k] < l->n)
            snprintf(split, sizeof split, " (%lld states on BDF, %lld on QSS)",
                     (long long)l->bdf_states[k], (long long)(l->n - l->bdf_states[k]));
        else if (l->bdf_states[k] < 0)
            snprintf(split, sizeof split,
                     " (its BDF states follow the activity: %lld moved to BDF, %lld back to QSS)",
                     (long long)l->moved_in[k], (long long)l->moved_out[k]);
        fprintf(out, "    t = %-12.6g %s%s%s\n", l->t[k], l->method[k]->name, split,
                k == 0 && l->no_probes ? " (its discrete variables cannot be saved: no probes)"
                                       : "");
    }
    fprintf(out,
            "    %d segments; %d probes (%.3g s); switches: %d after a race, %d going on from the "
            "winning probe's end, %d ahead of activity%s\n",
            l->count, l->probes, l->probe_wall, l->races, l->kept, l->ahead,
            l->failed ? "; out of memory: later switches are not listed" : "");
    if (l->dropped)
        fprintf(out,
                "    the start (CVODE's, to t = %.6g) was dropped: a probe from t = %.6g won and "
                "the run went on from its end\n",
                l->dropped_to, l->t[0]);
}

void method_log_free(method_log *l) {
    free(l->t);
    free(l->method);
    free(l->bdf_states);
    free(l->moved_in);
    free(l->moved_out);
    memset(l, 0, sizeof *l);
}
