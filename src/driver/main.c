/* main.c: the qmol binary: MPI around qmol_main (src/driver/cli.c, libqmol). */
#define _GNU_SOURCE /* sched_getaffinity */
#include "qmol_main.h"

#include <mpi.h>
#include <omp.h>
#include <sched.h>
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
    /* hwloc's discovery of PCI devices, which a process alone has no use
     * for, took a quarter of MPI_Init (10 ms of 40) */
    setenv("HWLOC_COMPONENTS", "-linuxio,-pci", 0);
}

/* OpenMP threads per rank (CVODE's rows and vectors), unless OMP_NUM_THREADS
 * says: the cores this process may run on, shared by the ranks on its node.
 * libgomp's default, every core the process may use, put 2 threads on each
 * of 4 unbound ranks on 2 cores, whose idle threads spin on the cores the
 * others need. Collective (the node's ranks are counted). */
static void share_cores_among_ranks(void) {
    MPI_Comm node;
    int ranks_here = 1;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) ==
        MPI_SUCCESS) {
        MPI_Comm_size(node, &ranks_here);
        MPI_Comm_free(&node);
    }
    if (getenv("OMP_NUM_THREADS")) return;
    cpu_set_t mine;
    int cores = sched_getaffinity(0, sizeof mine, &mine) == 0 ? CPU_COUNT(&mine) : 1;
    int threads = cores / (ranks_here > 0 ? ranks_here : 1);
    omp_set_num_threads(threads > 1 ? threads : 1);
}

int main(int argc, char **argv) {
    prefer_quick_singleton();
    MPI_Init(&argc, &argv);
    share_cores_among_ranks();
    int rc = qmol_main(argc, argv);
    MPI_Finalize();
    return rc;
}
