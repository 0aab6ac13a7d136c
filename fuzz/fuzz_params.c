/* fuzz_params.c: libFuzzer target for problem-parameter parsing,
 * params_resolve() in problems/params.c, and the built-in problems'
 * constructors (fuzz/README.md).
 *
 * The input is split at '\n' and '\0' into words. The first names the
 * problem: a built-in name from the registry, or else any word, mapped onto
 * the built-ins by its first byte. The others are "key=value" assignments,
 * resolved as src/driver/run.c does: each alone first (so that the message names
 * it), then all together, into an array of exactly nparams doubles (run.c
 * allocates one more, which would hide a write past the end).
 *
 * Accepted values go to the problem's create() and the instance is probed
 * cheaply (a few rows, the crossings, the time event, the affected states
 * when there are few) and destroyed. Every built-in constructor allocates
 * O(1) memory whatever the parameters (grid sizes only set n), so the
 * parameter ranges alone keep this bounded; the "affected" list is the one
 * callback whose buffer grows with the parameters, and it is only called up
 * to MAX_AFFECTED entries.
 *
 * Findings (fuzz_common.h): a rejection without a one-line message, an
 * accepted value outside its documented range, an instance with no states,
 * a non-finite or non-increasing default time span, grid dimensions that do
 * not multiply to n, or a row or crossing naming a state outside [0, n).
 */
#include "problems/registry.h"
#include "fuzz/fuzz_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define TARGET "fuzz_params"
#define MAX_WORDS 256
#define MAX_ROW 64
#define MAX_CROSSINGS 64
#define MAX_AFFECTED 65536

typedef struct input {
    const uint8_t *data;
    size_t size;
} input;

static const qmol_problem_def *pick_problem(const char *name) {
    const qmol_problem_def *def = registry_find(name);
    if (def) return def;
    int count;
    const qmol_problem_def *const *all = registry_all(&count);
    return all[(unsigned char)name[0] % (unsigned)count];
}

static int resolve_checked(const qmol_problem_def *def, const char *const *sets, int count,
                           double *values, const input *in) {
    char err[512];
    memset(err, 0x7f, sizeof err);
    int rc = params_resolve(def, sets, count, values, err, sizeof err);
    if (rc != 0 && rc != -1)
        fuzz_finding(TARGET, "bad-return", in->data, in->size, "%s: params_resolve returned %d",
                     def->name, rc);
    if (rc == -1 && !fuzz_message_ok(err, sizeof err))
        fuzz_finding(TARGET, "empty-message", in->data, in->size,
                     "%s: rejected with an empty or unterminated message", def->name);
    else if (rc == -1 && strchr(err, '\n'))
        fuzz_finding(TARGET, "multiline-message", in->data, in->size, "%s: message spans lines: %s",
                     def->name, err);
    return rc;
}

static void check_values(const qmol_problem_def *def, const double *values, const input *in) {
    for (int k = 0; k < def->nparams; k++) {
        const qmol_param_def *p = &def->params[k];
        double v = values[k];
        if (isfinite(v) && v >= p->min && v <= p->max && (!p->integer || v == floor(v))) continue;
        fuzz_finding(TARGET, "accepted-invalid", in->data, in->size,
                     "%s: %s = %.17g accepted, outside [%.17g, %.17g]%s", def->name, p->name, v,
                     p->min, p->max, p->integer ? " or not whole" : "");
    }
}

/* Checks that ids[0..count) are states of pr. */
static int ids_in_range(const qmol_problem *pr, const int64_t *ids, int64_t count) {
    for (int64_t k = 0; k < count; k++)
        if (ids[k] < 0 || ids[k] >= pr->n) return 0;
    return 1;
}

static void probe_row(const qmol_problem_def *def, const qmol_problem *pr, int64_t i,
                      const input *in) {
    int size = pr->row_size(pr->data, i);
    if (size < 0 || size > MAX_ROW) {
        fuzz_finding(TARGET, "row-size", in->data, in->size, "%s: row %lld of %lld has size %d",
                     def->name, (long long)i, (long long)pr->n, size);
        return;
    }
    /* exactly sized blocks (at least one byte): ASan sees any overrun */
    int64_t *cols = malloc(sizeof *cols * (size_t)(size ? size : 1));
    double *vals = malloc(sizeof *vals * (size_t)(size ? size : 1));
    double *dfdv = malloc(sizeof *dfdv * (size_t)(size ? size : 1));
    if (!cols || !vals || !dfdv) goto done;
    pr->row(pr->data, i, cols);
    if (!ids_in_range(pr, cols, size)) {
        fuzz_finding(TARGET, "row-state-range", in->data, in->size,
                     "%s: row %lld names a state outside [0, %lld)", def->name, (long long)i,
                     (long long)pr->n);
        goto done;
    }
    for (int k = 0; k < size; k++)
        vals[k] = pr->x0(pr->data, cols[k]);
    volatile double sink = pr->rhs(pr->data, i, pr->t0, vals);
    if (pr->jac) pr->jac(pr->data, i, pr->t0, vals, dfdv);
    if (pr->exact) sink = pr->exact(pr->data, i, pr->t0);
    if (pr->abstol_scale) sink = pr->abstol_scale(pr->data, i);
    (void)sink;
done:
    free(cols);
    free(vals);
    free(dfdv);
}

static void probe_crossings(const qmol_problem_def *def, const qmol_problem *pr, const input *in) {
    if (pr->n_crossings < 0 || pr->n_crossings > MAX_CROSSINGS || !pr->crossing_size) return;
    for (int64_t c = 0; c < pr->n_crossings; c++) {
        int size = pr->crossing_size(pr->data, c);
        if (size < 1 || size > MAX_ROW) {
            fuzz_finding(TARGET, "crossing-size", in->data, in->size,
                         "%s: crossing %lld has size %d", def->name, (long long)c, size);
            return;
        }
        int64_t *cols = malloc(sizeof *cols * (size_t)size);
        double *vals = malloc(sizeof *vals * (size_t)size);
        if (cols && vals) {
            pr->crossing_row(pr->data, c, cols);
            if (!ids_in_range(pr, cols, size)) {
                fuzz_finding(TARGET, "crossing-state-range", in->data, in->size,
                             "%s: crossing %lld names a state outside [0, %lld)", def->name,
                             (long long)c, (long long)pr->n);
            } else {
                for (int k = 0; k < size; k++)
                    vals[k] = pr->x0(pr->data, cols[k]);
                volatile double sink = pr->crossing(pr->data, c, pr->t0, vals);
                (void)sink;
            }
        }
        free(cols);
        free(vals);
    }
}

static void probe(const qmol_problem_def *def, const qmol_problem *pr, const input *in) {
    if (pr->n < 1) {
        fuzz_finding(TARGET, "no-states", in->data, in->size, "%s: n = %lld", def->name,
                     (long long)pr->n);
        return;
    }
    if (!isfinite(pr->t0) || !isfinite(pr->tf) || !(pr->tf > pr->t0))
        fuzz_finding(TARGET, "default-time-span", in->data, in->size,
                     "%s: default time span [%g, %g] is not finite and increasing", def->name,
                     pr->t0, pr->tf);
    if (pr->ndims > 0) {
        int64_t cells = 1;
        int ok = pr->ndims <= 3;
        for (int d = 0; ok && d < pr->ndims; d++) {
            ok = pr->dims[d] >= 1 && cells <= INT64_MAX / pr->dims[d];
            if (ok) cells *= pr->dims[d];
        }
        int comps = pr->components > 0 ? pr->components : 1;
        if (!ok || cells > INT64_MAX / comps || cells * comps != pr->n)
            fuzz_finding(TARGET, "grid-size", in->data, in->size,
                         "%s: grid dimensions do not multiply to n = %lld", def->name,
                         (long long)pr->n);
    }
    const int64_t rows[] = {0, 1, 2, pr->n / 2, pr->n - 2, pr->n - 1};
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++)
        if (rows[k] >= 0 && rows[k] < pr->n && (k == 0 || rows[k] > rows[k - 1]))
            probe_row(def, pr, rows[k], in);
    probe_crossings(def, pr, in);
    if (pr->next_time_event) {
        volatile double sink = pr->next_time_event(pr->data, pr->t0);
        (void)sink;
    }
    if (pr->affected && pr->n_affected > 0 && pr->n_affected <= MAX_AFFECTED) {
        int64_t *ids = malloc(sizeof *ids * (size_t)pr->n_affected);
        if (ids) {
            pr->affected(pr->data, ids);
            if (!ids_in_range(pr, ids, pr->n_affected))
                fuzz_finding(TARGET, "affected-state-range", in->data, in->size,
                             "%s: an affected state is outside [0, %lld)", def->name,
                             (long long)pr->n);
        }
        free(ids);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const input in = {data, size};
    fuzz_words w;
    if (fuzz_split(data, size, MAX_WORDS, &w) != 0 || w.count == 0) return 0;
    const qmol_problem_def *def = pick_problem(w.word[0]);
    const char *const *sets = (const char *const *)(w.word + 1);
    int nsets = w.count - 1;
    double *values = malloc(sizeof *values * (size_t)(def->nparams > 0 ? def->nparams : 1));
    if (!values) goto done;
    /* as run.c: each assignment alone, then all of them in order */
    int alone_ok = 1;
    for (int k = 0; k < nsets && alone_ok; k++)
        alone_ok = resolve_checked(def, sets + k, 1, values, &in) == 0;
    int rc = resolve_checked(def, sets, nsets, values, &in);
    if (alone_ok != (rc == 0))
        fuzz_finding(TARGET, "resolve-inconsistent", data, size,
                     "%s: each assignment alone %s, all of them together %s", def->name,
                     alone_ok ? "resolves" : "fails", rc == 0 ? "resolve" : "fail");
    if (rc != 0) goto done;
    check_values(def, values, &in);
    qmol_problem pr;
    memset(&pr, 0, sizeof pr);
    char err[512];
    memset(err, 0x7f, sizeof err);
    if (def->create(values, &pr, err, sizeof err) != 0) {
        if (!fuzz_message_ok(err, sizeof err) || strchr(err, '\n'))
            fuzz_finding(TARGET, "create-message", data, size,
                         "%s: create failed without a one-line message", def->name);
        goto done;
    }
    probe(def, &pr, &in);
    if (pr.destroy) pr.destroy(pr.data);
done:
    free(values);
    fuzz_words_free(&w);
    return 0;
}
