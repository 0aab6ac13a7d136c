#include "test_support.h"
#include <mpi.h>

int test_run_mpi(int argc, char **argv, const char *group, const struct CMUnitTest *tests,
                 size_t count) {
    MPI_Init(&argc, &argv);
    int failed = _cmocka_run_group_tests(group, tests, count, NULL, NULL);
    MPI_Finalize();
    return failed;
}
