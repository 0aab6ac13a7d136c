/* test_support.h: helpers shared by the unit tests. */
#ifndef QMOL_TEST_SUPPORT_H
#define QMOL_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

/* Runs a cmocka group between MPI_Init and MPI_Finalize. */
int test_run_mpi(int argc, char **argv, const char *group, const struct CMUnitTest *tests,
                 size_t count);

#define QMOL_RUN_TESTS(argc, argv, tests)                                                          \
    test_run_mpi(argc, argv, #tests, tests, sizeof(tests) / sizeof((tests)[0]))

#endif
