/* place.c: whether files can be written beside a path (place.h). */
/* realpath is XSI (POSIX with the X/Open extension) */
#define _XOPEN_SOURCE 700
#include "io/place.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *place_problem(const char *path, char **dir) {
    struct stat st;
    const char *slash = strrchr(path, '/');
    *dir = slash ? strndup(path, (size_t)(slash - path) + 1) : strdup(".");
    return !*dir                            ? "out of memory"
           : stat(*dir, &st) != 0           ? strerror(errno)
           : !S_ISDIR(st.st_mode)           ? "not a directory"
           : access(*dir, W_OK | X_OK) != 0 ? strerror(errno)
                                            : NULL;
}

/* path's directory by its real path, then its base name (malloc'd). */
static char *canonical_name(const char *path) {
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char *dir = slash ? strndup(path, (size_t)(slash - path) + 1) : strdup(".");
    char real[PATH_MAX];
    const char *d = dir && realpath(dir, real) ? real : dir;
    char *out = NULL;
    if (d) {
        size_t len = strlen(d) + strlen(base) + 2;
        out = malloc(len);
        if (out) snprintf(out, len, "%s/%s", d, base);
    }
    free(dir);
    return out;
}

int place_same_file(const char *a, const char *b) {
    char *ca = canonical_name(a), *cb = canonical_name(b);
    int same = ca && cb ? strcmp(ca, cb) == 0 : strcmp(a, b) == 0;
    free(ca), free(cb);
    return same;
}
