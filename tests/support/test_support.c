#include "tests/support/test_support.h"

#include "core/model.h"
#include "problems/registry.h"

#include <mpi.h>
#include <stdlib.h>

int test_run_mpi(int argc, char **argv, const char *group, const struct CMUnitTest *tests,
                 size_t count) {
    MPI_Init(&argc, &argv);
    int failed = _cmocka_run_group_tests(group, tests, count, NULL, NULL);
    MPI_Finalize();
    return failed;
}

int test_nranks(void) {
    int P;
    MPI_Comm_size(MPI_COMM_WORLD, &P);
    return P;
}

int test_rank(void) {
    int r;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int test_all_true(int ok) {
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return ok;
}

qmol_problem test_problem(const char *name, const char *const *sets, int nsets) {
    const qmol_problem_def *def = registry_find(name);
    assert_non_null(def);
    double values[64];
    char err[256];
    qmol_problem p;
    if (params_resolve(def, sets, nsets, values, err, sizeof err) ||
        def->create(values, &p, err, sizeof err))
        fail_msg("%s: %s", name, err);
    return p;
}

unsigned test_random(unsigned *seed) {
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 8;
}

int64_t *test_model(struct model *m, const qmol_problem *p, int32_t n_owned, int32_t n_cols) {
    char err[256] = "";
    if (!n_owned) {
        if (model_build(m, p, err, sizeof err) != 0) fail_msg("model: %s", err);
        return NULL;
    }
    int64_t *gid = malloc((size_t)n_cols * sizeof *gid);
    assert_non_null(gid);
    for (int32_t j = 0; j < n_cols; j++)
        gid[j] = j;
    if (model_build_local(m, p, gid, n_owned, n_cols, err, sizeof err) != 0)
        fail_msg("local model: %s", err);
    return gid;
}
