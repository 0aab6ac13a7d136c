/* qmol_main.h: qmol as a library (libqmol, `find_package(qmol)` target
 * qmol::qmol, pkg-config `qmol`).
 *
 * A program of your own can run the qmol command with your problems compiled
 * in, instead of loading them as plugins: register each problem_def, then
 * call qmol_main with the arguments the qmol binary would get. This is the
 * qmol binary's own main:
 *
 *     int main(int argc, char **argv) {
 *         MPI_Init(&argc, &argv);
 *         int rc = qmol_register_problem(&my_problem) ? 2 : qmol_main(argc, argv);
 *         MPI_Finalize();
 *         return rc;
 *     }
 *
 * See docs/tutorial.md, "Your own executable".
 */
#ifndef QMOL_MAIN_H
#define QMOL_MAIN_H

#include "qmol.h"

#if defined(__GNUC__)
#define QMOL_API __attribute__((visibility("default")))
#else
#define QMOL_API
#endif

/* Adds a problem family: `--problem NAME` and `qmol list` find it, as a
 * built-in. def and everything it points to must live until the process
 * ends. Returns 0, or -1 with a message on stderr (NULL or incomplete def,
 * another API version, a name already taken). Call it on every rank. */
QMOL_API int qmol_register_problem(const qmol_problem_def *def);

/* The qmol command line: argv[1] is the command (run, list, info; see `qmol
 * --help`). MPI must be initialized; runs use MPI_COMM_WORLD. Returns the
 * exit code: 0, 1 (a run failed), 2 (bad input). */
QMOL_API int qmol_main(int argc, char **argv);

/* The version of the library, e.g. "0.1.0". */
QMOL_API const char *qmol_version(void);

#endif
