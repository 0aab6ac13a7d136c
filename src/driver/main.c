/* main.c: the qmol binary: MPI around qmol_main (src/driver/cli.c, libqmol). */
#include "qmol_main.h"

#include <mpi.h>
#include <stdlib.h>

/* True when a launcher (mpirun, srun, hydra) started this process: each sets
 * one of these before the program runs. */
static int started_by_launcher(void) {
    static const char *const launcher_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK",
                                                "PMI_SIZE", "SLURM_PROCID"};
    for (size_t i = 0; i < sizeof launcher_vars / sizeof launcher_vars[0]; i++)
        if (getenv(launcher_vars[i])) return 1;
    return 0;
}

/* A run started without a launcher is one rank alone. Open MPI's defaults
 * then start a helper daemon and probe every network transport (UCX, OFI):
 * 0.33 s before main's work on Debian 12's Open MPI 4.1, against 0.02 s
 * for an isolated singleton on the ob1 point-to-point layer with the self
 * transport (docs/performance.md). Isolated singletons all take job family
 * 0, so their session directories are one path, /tmp/ompi.HOST.UID/jf.0/1,
 * that the first to finish removes under the others: MPI-IO's shared-memory
 * file pointer (sharedfp sm) kept its file there, and 2 of 180 concurrent
 * runs failed to create their output. Hence no session directory and no
 * sharedfp sm (HDF5 does not use shared file pointers): 0 of 360. A user's
 * own OMPI_MCA_* settings win. */
static void prefer_quick_singleton(void) {
    if (started_by_launcher()) return;
    setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
    setenv("OMPI_MCA_pml", "ob1", 0);
    setenv("OMPI_MCA_btl", "self", 0);
    setenv("OMPI_MCA_orte_create_session_dirs", "0", 0);
    setenv("OMPI_MCA_sharedfp", "^sm", 0);
}

int main(int argc, char **argv) {
    prefer_quick_singleton();
    MPI_Init(&argc, &argv);
    int rc = qmol_main(argc, argv);
    MPI_Finalize();
    return rc;
}
