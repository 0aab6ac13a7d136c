/* place.c: whether files can be written beside a path (place.h). */
#include "place.h"

#include <errno.h>
#include <stdlib.h>
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
