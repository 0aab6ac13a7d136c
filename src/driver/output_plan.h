/* output_plan.h: when a run writes samples and which states it writes.
 *
 * The sample times are --sample-times (increasing, in (t0, tf], the last one
 * tf; it sets tf when --tf is not given) or --samples K evenly spaced ones,
 * t0 + (tf - t0) k / K. The written states are those --output-states RULE
 * selects (state_rule.h), or all.
 */
#ifndef QMOL_OUTPUT_PLAN_H
#define QMOL_OUTPUT_PLAN_H

#include "driver/config.h"
#include "core/state_rule.h"

typedef struct output_plan {
    double tf; /* the run's final time */
    int64_t samples;
    double *times; /* samples entries */
    const qmol_problem *prob;
    state_rule rule;
    int has_rule; /* --output-states given */
} output_plan;

/* Builds the plan for problem p (t0, default tf, grid) from c. Returns 0,
 * or -1 with a message naming the option in err. */
int output_plan_build(output_plan *o, const run_config *c, const qmol_problem *p, char *err,
                      size_t errlen);
/* h5out_meta.keep for a plan with a rule (ctx: the plan). */
int output_plan_keep(const void *ctx, int64_t id);
void output_plan_free(output_plan *o);

#endif
