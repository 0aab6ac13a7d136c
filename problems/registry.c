/* registry.c: the table of built-in problem families, in `qmol list` order. */
#include "registry.h"

#include "builtin.h"
#include <string.h>

static const qmol_problem_def *const builtins[] = {
    &problem_adr1d,
    &problem_adr1d_vardiff,
    &problem_adr2d,
    &problem_heat1d,
    &problem_heat2d,
    &problem_heat3d,
    &problem_heat2d_thermostat,
    &problem_pulse,
    &problem_buck_heatsink,
    &problem_liqss_pair,
    &problem_relax,
    &problem_bqss_a1,
    &problem_bqss_a2,
    &problem_offdiag_stiff,
};

const qmol_problem_def *const *registry_all(int *count) {
    *count = (int)(sizeof builtins / sizeof builtins[0]);
    return builtins;
}

const qmol_problem_def *registry_find(const char *name) {
    if (!name) return NULL;
    for (size_t k = 0; k < sizeof builtins / sizeof builtins[0]; k++)
        if (strcmp(builtins[k]->name, name) == 0) return builtins[k];
    return NULL;
}
