/* params.c: resolves "key=value" assignments against a problem's parameter
 * definitions. Every rejection is one line naming the assignment, what is wrong
 * with it and what is allowed, so a user can fix the command line at once. */
#include "problems/registry.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends formatted text to buf at *used, never past len (truncates). */
static void append(char *buf, size_t len, size_t *used, const char *text) {
    if (*used >= len) return;
    int w = snprintf(buf + *used, len - *used, "%s", text);
    if (w > 0) *used += (size_t)w < len - *used ? (size_t)w : len - *used - 1;
}

/* "a whole number in [2, 2147483647]", "a number > 0", "any finite number"...
 * DBL_MIN as a minimum means strictly positive, +-DBL_MAX means unbounded
 * (see builtin.h); plugins get the plain closed interval otherwise. */
static void describe_range(const qmol_param_def *p, char *buf, size_t len) {
    int has_min = p->min > -DBL_MAX, has_max = p->max < DBL_MAX;
    const char *kind = p->integer ? "a whole number" : "a number";
    if (p->min == DBL_MIN && !has_max)
        snprintf(buf, len, "%s > 0", kind);
    else if (p->min == DBL_MIN)
        snprintf(buf, len, "%s in (0, %.15g]", kind, p->max);
    else if (has_min && has_max)
        snprintf(buf, len, "%s in [%.15g, %.15g]", kind, p->min, p->max);
    else if (has_min)
        snprintf(buf, len, "%s >= %.15g", kind, p->min);
    else if (has_max)
        snprintf(buf, len, "%s <= %.15g", kind, p->max);
    else
        snprintf(buf, len, "%s", p->integer ? "any whole number" : "any finite number");
}

/* "N, a, d" or "none": what a user may write on the left of '='. */
static void list_keys(const qmol_problem_def *def, char *buf, size_t len) {
    size_t used = 0;
    buf[0] = '\0';
    if (def->nparams == 0) append(buf, len, &used, "none");
    for (int k = 0; k < def->nparams; k++) {
        if (k > 0) append(buf, len, &used, ", ");
        append(buf, len, &used, def->params[k].name);
    }
}

static int find_param(const qmol_problem_def *def, const char *key, size_t keylen) {
    for (int k = 0; k < def->nparams; k++)
        if (strlen(def->params[k].name) == keylen && strncmp(def->params[k].name, key, keylen) == 0)
            return k;
    return -1;
}

/* Parses the whole of text as a double; trailing blanks are tolerated, any
 * other leftover (e.g. "3x", "") makes it not a number. */
static int parse_number(const char *text, double *out) {
    char *end;
    *out = strtod(text, &end);
    if (end == text) return -1;
    while (isspace((unsigned char)*end))
        end++;
    return *end == '\0' ? 0 : -1;
}

/* Why value is not acceptable for p, or NULL if it is. */
static const char *value_problem(const qmol_param_def *p, double value) {
    if (!isfinite(value)) return "not finite";
    if (p->integer && value != floor(value)) return "not a whole number";
    if (value < p->min || value > p->max) return "out of range";
    return NULL;
}

static int resolve_one(const qmol_problem_def *def, const char *assignment, double *values,
                       char *err, size_t errlen) {
    char keys[512], range[128];
    const char *eq = strchr(assignment, '=');
    if (!eq) {
        list_keys(def, keys, sizeof keys);
        snprintf(err, errlen, "--set %s: missing '=' (expected key=value; parameters of %s: %s)",
                 assignment, def->name, keys);
        return -1;
    }
    size_t keylen = (size_t)(eq - assignment);
    int k = find_param(def, assignment, keylen);
    if (k < 0) {
        list_keys(def, keys, sizeof keys);
        snprintf(err, errlen, "--set %s: unknown parameter '%.*s' of %s (parameters: %s)",
                 assignment, (int)keylen, assignment, def->name, keys);
        return -1;
    }
    const qmol_param_def *p = &def->params[k];
    double value;
    const char *why = parse_number(eq + 1, &value) ? "not a number" : value_problem(p, value);
    if (why) {
        describe_range(p, range, sizeof range);
        snprintf(err, errlen, "--set %s: %s (%s is %s)", assignment, why, p->name, range);
        return -1;
    }
    values[k] = value;
    return 0;
}

int params_resolve(const qmol_problem_def *def, const char *const *assignments, int count,
                   double *values, char *err, size_t errlen) {
    for (int k = 0; k < def->nparams; k++)
        values[k] = def->params[k].value;
    /* Applied in order, so a later assignment of the same key wins. */
    for (int a = 0; a < count; a++)
        if (resolve_one(def, assignments[a], values, err, errlen)) return -1;
    return 0;
}
