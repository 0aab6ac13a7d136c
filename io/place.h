/* place.h: whether files can be written beside a path.
 *
 * The output and the checkpoint are checked at the start of a run (so that
 * nothing is computed for a file that cannot be written), and a file that
 * could not be created later says why in the operating system's words
 * rather than HDF5's.
 */
#ifndef QMOL_PLACE_H
#define QMOL_PLACE_H

/* Why files cannot be written in path's directory (it is missing, not a
 * directory, or not writable: strerror's text, or "not a directory"), or
 * NULL when they can. *dir gets the directory with its trailing slash, or
 * "." (malloc'd; NULL and "out of memory" when out of memory). */
const char *place_problem(const char *path, char **dir);

/* Whether a and b name the same file: the same name in the same directory
 * (directories compared by their real paths, so "./x" and "x", or a
 * symlinked directory, are caught; a missing directory compares by name).
 * Files need not exist. */
int place_same_file(const char *a, const char *b);

#endif
