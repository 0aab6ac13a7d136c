/* discontinuities.c: a problem's discontinuity fields checked, and the
 * states they touch (discontinuities.h). */
#include "core/discontinuities.h"

#include "comm/sorted_ids.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int discrete_check(const qmol_problem *p, char *err, size_t errlen) {
    if (p->n_crossings < 0 || p->n_crossings > INT32_MAX - 1) {
        snprintf(err, errlen, "n_crossings = %lld: must be in 0..%d", (long long)p->n_crossings,
                 INT32_MAX - 1);
        return -1;
    }
    if (p->n_crossings > 0 &&
        (!p->crossing_size || !p->crossing_row || !p->crossing || !p->on_crossing)) {
        snprintf(err, errlen,
                 "n_crossings = %lld but crossing_size, crossing_row, crossing or on_crossing is "
                 "NULL (all four are needed)",
                 (long long)p->n_crossings);
        return -1;
    }
    for (int64_t c = 0; c < p->n_crossings; c++) {
        int len = p->crossing_size(p->data, c);
        if (len < 0 || len > 1000000) {
            snprintf(err, errlen, "crossing function %lld: %d inputs (allowed 0..1000000)",
                     (long long)c, len);
            return -1;
        }
    }
    if (p->next_time_event && !p->on_time_event) {
        snprintf(err, errlen, "next_time_event is set but on_time_event is NULL");
        return -1;
    }
    if (p->n_discrete < 0 || p->n_discrete > INT32_MAX ||
        (p->n_discrete > 0 && (!p->get_discrete || !p->set_discrete))) {
        snprintf(err, errlen,
                 "n_discrete = %lld: must be in 0..%d, with get_discrete and set_discrete set "
                 "when > 0",
                 (long long)p->n_discrete, INT32_MAX);
        return -1;
    }
    if (p->n_affected < 0 || p->n_affected > p->n || (p->n_affected > 0 && !p->affected)) {
        snprintf(err, errlen,
                 "n_affected = %lld: must be in 0..n = %lld, with affected set when > 0",
                 (long long)p->n_affected, (long long)p->n);
        return -1;
    }
    return 0;
}

int64_t *discrete_states(const qmol_problem *p, int64_t limit, int64_t *count) {
    int64_t total = p->n_affected > 0 ? p->n_affected : 0;
    for (int64_t c = 0; c < p->n_crossings && total <= limit; c++)
        total += p->crossing_size(p->data, c);
    *count = total == 0 ? 0 : -1;
    if (total == 0 || total > limit) return NULL;
    int64_t *ids = malloc((size_t)total * sizeof *ids);
    if (!ids) {
        *count = -2;
        return NULL;
    }
    int64_t len = 0;
    if (p->n_affected > 0) p->affected(p->data, ids), len = p->n_affected;
    for (int64_t c = 0; c < p->n_crossings; c++) {
        int size = p->crossing_size(p->data, c);
        if (size > 0) p->crossing_row(p->data, c, ids + len);
        len += size;
    }
    qsort(ids, (size_t)len, sizeof *ids, ids_compare);
    int64_t out = 0;
    for (int64_t k = 0; k < len; k++)
        if (ids[k] >= 0 && ids[k] < p->n && (out == 0 || ids[out - 1] != ids[k]))
            ids[out++] = ids[k];
    *count = out;
    return ids;
}
