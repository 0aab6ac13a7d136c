/* plugin.c: loads a problem family from a shared object that exports
 * QMOL_PLUGIN_SYMBOL. Each failure says which of the steps went wrong (file,
 * shared object, entry point, definition), since "cannot load" alone leaves a
 * user guessing between a typo and a build problem. */
#define _POSIX_C_SOURCE 200809L
#include "problems/registry.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* A path with a '/' names a file, which we check first for a clearer message;
 * a bare name is searched by dlopen in the library path, as ld.so does. */
static int check_file(const char *path, char *err, size_t errlen) {
    struct stat st;
    if (!strchr(path, '/')) return 0;
    if (stat(path, &st) != 0) {
        snprintf(err, errlen, "plugin %s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "plugin %s: not a regular file", path);
        return -1;
    }
    return 0;
}

int plugin_load(const char *path, const qmol_problem_def **def, char *err, size_t errlen) {
    *def = NULL;
    if (check_file(path, err, errlen)) return -1;
    /* RTLD_NOW: an unresolved symbol fails here, not in the middle of a run. */
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        snprintf(err, errlen, "plugin %s: not a loadable shared object (%s)", path,
                 why ? why : "unknown dlopen error");
        return -1;
    }
    dlerror();
    void *sym = dlsym(handle, QMOL_PLUGIN_SYMBOL);
    if (!sym) {
        snprintf(err, errlen,
                 "plugin %s: no entry point %s (a plugin exports "
                 "const qmol_problem_def *%s(void))",
                 path, QMOL_PLUGIN_SYMBOL, QMOL_PLUGIN_SYMBOL);
        dlclose(handle);
        return -1;
    }
    /* ISO C has no object-to-function pointer conversion; POSIX guarantees the
     * representation is the same, so copy the bits. */
    qmol_plugin_fn entry;
    memcpy(&entry, &sym, sizeof entry);
    const qmol_problem_def *d = entry();
    char what[1024];
    snprintf(what, sizeof what, "plugin %s", path);
    if (!d) {
        snprintf(err, errlen, "plugin %s: %s() returned NULL", path, QMOL_PLUGIN_SYMBOL);
        dlclose(handle);
        return -1;
    }
    if (registry_check_def(what, d, err, errlen)) {
        dlclose(handle);
        return -1;
    }
    /* The handle stays open for the life of the process: d, its parameters
     * and every problem it creates point into the plugin's memory. */
    *def = d;
    return 0;
}
