/* registry.c: the table of built-in problem families, in `qmol list` order. */
#include "problems/registry.h"

#include "problems/builtin.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const qmol_problem_def *const builtins[] = {
    &problem_adr1d,
    &problem_adr1d_vardiff,
    &problem_adr2d,
    &problem_heat1d,
    &problem_heat2d,
    &problem_heat3d,
    &problem_heat2d_thermostat,
    &problem_diurnal,
    &problem_pulse,
    &problem_buck_heatsink,
    &problem_liqss_pair,
    &problem_relax,
    &problem_bqss_a1,
    &problem_bqss_a2,
    &problem_offdiag_stiff,
};

#define NBUILTINS ((int)(sizeof builtins / sizeof builtins[0]))

/* The built-ins followed by the problems qmol_register_problem added (NULL
 * until the first one). */
static const qmol_problem_def **all;
static int nall;

const qmol_problem_def *const *registry_all(int *count) {
    *count = all ? nall : NBUILTINS;
    return all ? (const qmol_problem_def *const *)all : builtins;
}

const qmol_problem_def *registry_find(const char *name) {
    int count;
    const qmol_problem_def *const *defs = registry_all(&count);
    if (!name) return NULL;
    for (int k = 0; k < count; k++)
        if (strcmp(defs[k]->name, name) == 0) return defs[k];
    return NULL;
}

int registry_is_plugin_path(const char *name) {
    size_t len = strlen(name);
    return strchr(name, '/') != NULL || (len > 3 && !strcmp(name + len - 3, ".so"));
}

void registry_names(char *buf, size_t len) {
    int count;
    const qmol_problem_def *const *all = registry_all(&count);
    buf[0] = '\0';
    for (int k = 0; k < count; k++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%s%s", k ? " " : "", all[k]->name);
    }
}

int registry_resolve(const char *what, const char *name, const qmol_problem_def **def, char *err,
                     size_t errlen) {
    if (registry_is_plugin_path(name)) {
        char why[512];
        if (plugin_load(name, def, why, sizeof why) == 0) return 0;
        snprintf(err, errlen, "%s %s: %s", what, name, why);
        return -1;
    }
    if ((*def = registry_find(name))) return 0;
    char names[1024];
    registry_names(names, sizeof names);
    snprintf(err, errlen, "%s %s: unknown problem (allowed: %s, or a plugin .so path)", what, name,
             names);
    return -1;
}

int registry_check_def(const char *what, const qmol_problem_def *d, char *err, size_t errlen) {
    if (!d) {
        snprintf(err, errlen, "%s: no problem definition (NULL)", what);
        return -1;
    }
    if (d->api_version != QMOL_API_VERSION) {
        snprintf(err, errlen,
                 "%s: built for plugin API version %d, this qmol uses version %d "
                 "(rebuild it against this qmol.h)",
                 what, d->api_version, QMOL_API_VERSION);
        return -1;
    }
    if (!d->name || !d->name[0] || !d->create || d->nparams < 0 || (d->nparams > 0 && !d->params)) {
        snprintf(err, errlen,
                 "%s: incomplete problem definition (needs a name, a create function "
                 "and, when nparams > 0, a params array)",
                 what);
        return -1;
    }
    for (int k = 0; k < d->nparams; k++) {
        if (!d->params[k].name) {
            snprintf(err, errlen, "%s: problem %s: parameter %d has no name", what, d->name, k);
            return -1;
        }
    }
    return 0;
}

int registry_add(const qmol_problem_def *d, char *err, size_t errlen) {
    if (registry_check_def("qmol_register_problem", d, err, errlen)) return -1;
    if (registry_find(d->name)) {
        snprintf(err, errlen, "qmol_register_problem: a problem named %s exists already", d->name);
        return -1;
    }
    int count;
    const qmol_problem_def *const *defs = registry_all(&count);
    const qmol_problem_def **grown = malloc((size_t)(count + 1) * sizeof *grown);
    if (!grown) {
        snprintf(err, errlen, "qmol_register_problem: out of memory");
        return -1;
    }
    memcpy(grown, defs, (size_t)count * sizeof *grown);
    grown[count] = d;
    free(all);
    all = grown;
    nall = count + 1;
    return 0;
}
