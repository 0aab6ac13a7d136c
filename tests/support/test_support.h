/* test_support.h: helpers shared by the unit tests. */
#ifndef QMOL_TEST_SUPPORT_H
#define QMOL_TEST_SUPPORT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "qmol.h"

/* Runs a cmocka group between MPI_Init and MPI_Finalize. */
int test_run_mpi(int argc, char **argv, const char *group, const struct CMUnitTest *tests,
                 size_t count);

/* MPI_COMM_WORLD's size and this rank. */
int test_nranks(void);
int test_rank(void);
/* A condition every rank must see true (so no rank leaves a collective
 * sequence early while the others wait). */
int test_all_true(int ok);
/* Built-in problem `name` with "key=value" overrides; fails the test on a
 * bad name or value. */
qmol_problem test_problem(const char *name, const char *const *sets, int nsets);
/* The model of p (core/model.h), whole (n_owned 0), or a rank's part of
 * it: rows 0 .. n_owned, then n_cols - n_owned ghost columns, local ids
 * equal to global ones. Returns the part's global ids (they must outlive
 * m; NULL for the whole). Fails the test on an error. */
struct model;
int64_t *test_model(struct model *m, const qmol_problem *p, int32_t n_owned, int32_t n_cols);
/* The tests' pseudo-random numbers: a linear congruence on *seed, its high
 * 24 bits (the same sequence for the same seed everywhere). */
unsigned test_random(unsigned *seed);

#define QMOL_RUN_TESTS(argc, argv, tests)                                                          \
    test_run_mpi(argc, argv, #tests, tests, sizeof(tests) / sizeof((tests)[0]))

#endif
