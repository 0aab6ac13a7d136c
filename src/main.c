/* main.c: the qmol binary: MPI around qmol_main (src/cli.c, libqmol). */
#include "qmol_main.h"

#include <mpi.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rc = qmol_main(argc, argv);
    MPI_Finalize();
    return rc;
}
