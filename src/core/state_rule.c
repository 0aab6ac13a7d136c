/* state_rule.c: rules selecting states (state_rule.h). */
#include "core/state_rule.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE };

static const char *skip_space(const char *s) {
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* Parses clause k of r at s; returns the position after it or NULL. */
static const char *parse_clause(const char *s, state_rule *r, int k, char *err, size_t errlen) {
    s = skip_space(s);
    if (!*s || !strchr("ixyzc", *s)) {
        snprintf(err, errlen,
                 "expected a variable at \"%s\" (allowed: i = state id, x y z = grid "
                 "coordinates, c = component)",
                 s);
        return NULL;
    }
    r->clause[k].var = *s++;
    s = skip_space(s);
    static const struct {
        const char *text;
        int op;
    } ops[] = {{"<=", OP_LE}, {">=", OP_GE}, {"==", OP_EQ},
               {"!=", OP_NE}, {"<", OP_LT},  {">", OP_GT}};
    size_t o;
    for (o = 0; o < sizeof ops / sizeof ops[0]; o++)
        if (!strncmp(s, ops[o].text, strlen(ops[o].text))) break;
    if (o == sizeof ops / sizeof ops[0]) {
        snprintf(err, errlen, "expected a comparison after '%c' at \"%s\" (< <= > >= == !=)",
                 r->clause[k].var, s);
        return NULL;
    }
    r->clause[k].op = ops[o].op;
    s = skip_space(s + strlen(ops[o].text));
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno == ERANGE || !isfinite(v)) {
        snprintf(err, errlen, "expected a finite number at \"%s\"", s);
        return NULL;
    }
    r->clause[k].value = v;
    return skip_space(end);
}

int state_rule_parse(const char *text, const qmol_problem *p, state_rule *r, char *err,
                     size_t errlen) {
    const char *s = text ? text : "";
    r->count = 0;
    for (;;) {
        if (r->count == STATE_RULE_MAX_CLAUSES) {
            snprintf(err, errlen, "more than %d clauses", STATE_RULE_MAX_CLAUSES);
            return -1;
        }
        s = parse_clause(s, r, r->count, err, errlen);
        if (!s) return -1;
        r->count++;
        if (!*s) break;
        if (strncmp(s, "&&", 2)) {
            snprintf(err, errlen, "expected \"&&\" or the end at \"%s\"", s);
            return -1;
        }
        s += 2;
    }
    for (int k = 0; p && k < r->count; k++) {
        int d = r->clause[k].var - 'x';
        if (d >= 0 && d < 3 && d >= p->ndims) {
            snprintf(err, errlen,
                     "'%c' is not a coordinate of this problem (it has %d grid dimensions; use "
                     "i, the state id)",
                     r->clause[k].var, p->ndims);
            return -1;
        }
    }
    return 0;
}

static int compare(double v, int op, double w) {
    switch (op) {
    case OP_LT:
        return v < w;
    case OP_LE:
        return v <= w;
    case OP_GT:
        return v > w;
    case OP_GE:
        return v >= w;
    case OP_EQ:
        return v == w;
    default:
        return v != w;
    }
}

/* The value of variable var for global state g. */
static double variable(const qmol_problem *p, char var, int64_t g) {
    if (var == 'i') return (double)g;
    int comps = p->components > 0 ? p->components : 1;
    if (var == 'c') return (double)(g % comps);
    int64_t cell = g / comps;
    int64_t idx[3] = {0, 0, 0};
    for (int d = 0; d < p->ndims; d++) {
        idx[d] = cell % p->dims[d];
        cell /= p->dims[d];
    }
    int d = var - 'x';
    return p->origin[d] + (double)idx[d] * p->spacing[d];
}

int state_rule_match(const state_rule *r, const qmol_problem *p, int64_t g) {
    for (int k = 0; k < r->count; k++)
        if (!compare(variable(p, r->clause[k].var, g), r->clause[k].op, r->clause[k].value))
            return 0;
    return 1;
}
