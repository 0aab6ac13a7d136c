/* registry.h: built-in problems by name, plugin loading, parameter parsing. */
#ifndef QMOL_REGISTRY_H
#define QMOL_REGISTRY_H

#include "qmol.h"
#include <stddef.h>

/* The built-in problem families, in `qmol list` order, then those added by
 * registry_add. */
const qmol_problem_def *const *registry_all(int *count);
/* A problem family by name, or NULL. */
const qmol_problem_def *registry_find(const char *name);
/* Whether a --problem or `qmol list` argument names a plugin file (it
 * contains '/' or ends in ".so") rather than a registered problem. */
int registry_is_plugin_path(const char *name);
/* The registered names, separated by spaces, into buf (truncated to len). */
void registry_names(char *buf, size_t len);
/* The definition `name` stands for: a plugin loaded from its path, or a
 * registered problem. Returns 0, or -1 with a message (`what` first, then
 * the plugin's error or the names allowed). */
int registry_resolve(const char *what, const char *name, const qmol_problem_def **def, char *err,
                     size_t errlen);
/* Adds d (checked with registry_check_def; its name must be new) for the
 * rest of the process (qmol_register_problem). Returns 0, or -1 with err. */
int registry_add(const qmol_problem_def *d, char *err, size_t errlen);
/* A definition the rest of qmol can call without further checks: the API
 * version, a name, create, and named parameters. Returns 0, or -1 with a
 * message starting with `what` ("plugin PATH"). */
int registry_check_def(const char *what, const qmol_problem_def *d, char *err, size_t errlen);

/* Loads a plugin shared object and returns its definition (kept loaded for the
 * life of the process). Returns 0, or -1 with a message naming the path. */
int plugin_load(const char *path, const qmol_problem_def **def, char *err, size_t errlen);

/* Resolves "--set key=value" assignments against def's parameters: values
 * (nparams doubles) starts from the defaults, then each assignment overrides.
 * Unknown key, non-numeric, non-finite, out-of-range or non-integral values
 * give -1 and one line in err naming the key, the value and what is allowed. */
int params_resolve(const qmol_problem_def *def, const char *const *assignments, int count,
                   double *values, char *err, size_t errlen);

#endif
