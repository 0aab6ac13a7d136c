/* output_plan.c: sample times and written states of a run (output_plan.h). */
#include "driver/output_plan.h"

#include "core/integrator.h"
#include "driver/run_options.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CHECKPOINTS 1e6

int output_plan_build(output_plan *o, const run_config *c, const qmol_problem *p, char *err,
                      size_t errlen) {
    memset(o, 0, sizeof *o);
    o->prob = p;
    o->samples = c->samples;
    o->tf = !isnan(c->tf) ? c->tf : c->sample_times ? c->sample_times[c->nsample_times - 1] : p->tf;
    if (!isfinite(p->t0) || !isfinite(o->tf)) {
        snprintf(err, errlen,
                 "the time span [%g, %g] is not finite (problem parameters too large? give a "
                 "finite --tf)",
                 p->t0, o->tf);
        return -1;
    }
    if (!(o->tf > p->t0)) {
        if (!isnan(c->tf))
            snprintf(err, errlen, "%s: must be greater than t0 = %g", run_option_given(c, "tf"),
                     p->t0);
        else if (c->sample_times)
            snprintf(err, errlen, "--sample-times: the last time %g must be greater than t0 = %g",
                     o->tf, p->t0);
        else
            snprintf(err, errlen, "the problem's final time %g is not after t0 = %g (give --tf)",
                     o->tf, p->t0);
        return -1;
    }
    /* each simulated-time checkpoint ends a window: a million is plenty */
    if (c->checkpoint_sim > 0.0 && c->checkpoint_sim < (o->tf - p->t0) / MAX_CHECKPOINTS) {
        snprintf(err, errlen,
                 "--checkpoint-every t=%g: more than %.0f checkpoints over [%g, %g]; the "
                 "simulated-time interval must be at least (tf - t0) / %.0f = %g",
                 c->checkpoint_sim, MAX_CHECKPOINTS, p->t0, o->tf, MAX_CHECKPOINTS,
                 (o->tf - p->t0) / MAX_CHECKPOINTS);
        return -1;
    }
    if (c->sample_times) {
        double first = c->sample_times[0], last = c->sample_times[c->nsample_times - 1];
        if (!(first > p->t0)) {
            snprintf(err, errlen, "--sample-times: the first time %g must be after t0 = %g", first,
                     p->t0);
            return -1;
        }
        if (last != o->tf) {
            snprintf(err, errlen,
                     "--sample-times: the last time %.17g must be the final time tf = %.17g (the "
                     "run ends at its last sample; leave out --tf to end at the last time)",
                     last, o->tf);
            return -1;
        }
    }
    o->times = malloc((size_t)o->samples * sizeof *o->times);
    if (!o->times) {
        snprintf(err, errlen, "out of memory for %lld sample times", (long long)o->samples);
        return -1;
    }
    for (int64_t k = 1; k <= o->samples; k++)
        o->times[k - 1] =
            c->sample_times ? c->sample_times[k - 1] : sample_time(p->t0, o->tf, k, o->samples);
    if (c->output_states) {
        char why[256];
        if (state_rule_parse(c->output_states, p, &o->rule, why, sizeof why)) {
            snprintf(err, errlen, "--output-states \"%s\": %s", c->output_states, why);
            output_plan_free(o);
            return -1;
        }
        o->has_rule = 1;
    }
    return 0;
}

int output_plan_keep(const void *ctx, int64_t id) {
    const output_plan *o = ctx;
    return state_rule_match(&o->rule, o->prob, id);
}

void output_plan_free(output_plan *o) {
    free(o->times);
    o->times = NULL;
}
