/* gray_scott_main.c: the Gray-Scott problem compiled into a program of its
 * own, linked with libqmol (docs/tutorial.md, "Your own executable"). It
 * takes the qmol command's arguments: gray_scott_run run --problem
 * gray-scott --method liqss2 ... */
#include "qmol_main.h"

#include <mpi.h>

/* gray_scott.c's definition, the one a plugin exports */
const qmol_problem_def *qmol_plugin_problem(void);

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rc = qmol_register_problem(qmol_plugin_problem()) ? 2 : qmol_main(argc, argv);
    MPI_Finalize();
    return rc;
}
