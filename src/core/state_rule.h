/* state_rule.h: a rule selecting states, as `--bdf` and `--output-states`
 * take it: clauses `VAR OP NUMBER` joined by "&&", VAR one of i (state id),
 * x y z (grid coordinates of the state's cell), c (component), OP one of
 * < <= > >= == !=. Example: "x >= 0.2 && x <= 0.4 && c == 0".
 */
#ifndef QMOL_STATE_RULE_H
#define QMOL_STATE_RULE_H

#include "qmol.h"

#include <stddef.h>
#include <stdint.h>

#define STATE_RULE_MAX_CLAUSES 16

typedef struct state_rule {
    int count;
    struct {
        char var; /* 'i', 'x', 'y', 'z' or 'c' */
        int op;
        double value;
    } clause[STATE_RULE_MAX_CLAUSES];
} state_rule;

/* Parses text. With p set, also checks that x, y, z are grid dimensions of
 * p. Returns 0, or -1 with the reason (without the option's name) in err. */
int state_rule_parse(const char *text, const qmol_problem *p, state_rule *r, char *err,
                     size_t errlen);
/* 1 if global state g of p satisfies every clause. */
int state_rule_match(const state_rule *r, const qmol_problem *p, int64_t g);

#endif
