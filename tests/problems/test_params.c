/* params_resolve (every accepted and rejected form), plugin_load (the
 * example plugin and each way a load can fail) and registry_add (the
 * library's qmol_register_problem). */
#include "problems/registry.h"
#include "tests/support/test_support.h"

#include <stdlib.h>
#include <string.h>

static const qmol_problem_def *adr1d(void) {
    const qmol_problem_def *def = registry_find("adr1d");
    assert_non_null(def);
    return def;
}

/* The value of the parameter called name after resolving sets. */
static double resolved(const qmol_problem_def *def, const char *const *sets, int count,
                       const char *name) {
    double values[32];
    char err[512];
    if (params_resolve(def, sets, count, values, err, sizeof err)) fail_msg("%s", err);
    for (int k = 0; k < def->nparams; k++)
        if (strcmp(def->params[k].name, name) == 0) return values[k];
    fail_msg("no parameter %s", name);
    return 0.0;
}

/* Resolving sets fails, and the message contains every one of needles. */
static void rejects(const char *const *sets, int count, const char *const *needles, int nneedles) {
    double values[32];
    char err[512] = "";
    if (params_resolve(adr1d(), sets, count, values, err, sizeof err) == 0)
        fail_msg("accepted %s", sets[count - 1]);
    assert_null(strchr(err, '\n'));
    for (int k = 0; k < nneedles; k++)
        if (!strstr(err, needles[k])) fail_msg("message \"%s\" lacks \"%s\"", err, needles[k]);
}

static void defaults_without_assignments(void **state) {
    (void)state;
    const qmol_problem_def *def = adr1d();
    double values[32];
    char err[256];
    assert_int_equal(params_resolve(def, NULL, 0, values, err, sizeof err), 0);
    for (int k = 0; k < def->nparams; k++)
        assert_true(values[k] == def->params[k].value);
}

static void good_assignments(void **state) {
    (void)state;
    const qmol_problem_def *def = adr1d();
    const char *later_wins[] = {"N=50", "d=0.5", "N=60"};
    assert_true(resolved(def, later_wins, 3, "N") == 60.0);
    assert_true(resolved(def, later_wins, 3, "d") == 0.5);
    assert_true(resolved(def, later_wins, 3, "a") == 1.0); /* untouched: default */
    const char *forms[] = {"N=1e2", "r=-3.5", "d=0", "u0= 2 ", "init_frac=1"};
    assert_true(resolved(def, forms, 5, "N") == 100.0);
    assert_true(resolved(def, forms, 5, "r") == -3.5);
    assert_true(resolved(def, forms, 5, "d") == 0.0);
    assert_true(resolved(def, forms, 5, "u0") == 2.0);
    assert_true(resolved(def, forms, 5, "init_frac") == 1.0);
    const char *max[] = {"N=2147483647"};
    assert_true(resolved(def, max, 1, "N") == 2147483647.0);
}

static void not_a_number(void **state) {
    (void)state;
    const char *sets[] = {"N=abc"};
    double values[32];
    char err[512];
    assert_int_equal(params_resolve(adr1d(), sets, 1, values, err, sizeof err), -1);
    assert_string_equal(err, "--set N=abc: not a number (N is a whole number in [2, 2147483647])");
    const char *empty[] = {"d="}, *trailing[] = {"d=12abc"};
    const char *d_needles[] = {"d=", "not a number", "d is a number >= 0"};
    rejects(empty, 1, d_needles, 3);
    rejects(trailing, 1, (const char *[]){"d=12abc", "not a number"}, 2);
}

static void not_finite(void **state) {
    (void)state;
    const char *cases[] = {"d=inf", "d=nan", "d=1e999", "r=-inf"};
    for (int k = 0; k < 4; k++) {
        const char *needles[] = {cases[k], "not finite"};
        rejects(&cases[k], 1, needles, 2);
    }
}

static void out_of_range(void **state) {
    (void)state;
    rejects((const char *[]){"N=1"}, 1, (const char *[]){"N=1", "out of range", "[2, 2147483647]"},
            3);
    rejects((const char *[]){"N=2147483648"}, 1, (const char *[]){"N=2147483648", "out of range"},
            2);
    rejects((const char *[]){"d=-1"}, 1, (const char *[]){"d=-1", "out of range", ">= 0"}, 3);
    rejects((const char *[]){"L=0"}, 1, (const char *[]){"L=0", "out of range", "> 0"}, 3);
    rejects((const char *[]){"init_frac=1.5"}, 1,
            (const char *[]){"init_frac=1.5", "out of range", "[0, 1]"}, 3);
}

static void not_whole(void **state) {
    (void)state;
    rejects((const char *[]){"N=2.5"}, 1,
            (const char *[]){"N=2.5", "not a whole number", "whole number in [2"}, 3);
}

static void unknown_key(void **state) {
    (void)state;
    const char *needles[] = {"foo=1", "unknown", "adr1d", "N, a, d, r, L, u0, init_frac"};
    rejects((const char *[]){"foo=1"}, 1, needles, 4);
    rejects((const char *[]){"=5"}, 1, (const char *[]){"=5", "unknown"}, 2);
    /* Names are exact: no prefixes, no case folding. */
    rejects((const char *[]){"n=5"}, 1, (const char *[]){"n=5", "unknown"}, 2);
    rejects((const char *[]){"init=0.1"}, 1, (const char *[]){"init=0.1", "unknown"}, 2);
}

static void missing_equals(void **state) {
    (void)state;
    rejects((const char *[]){"N"}, 1, (const char *[]){"--set N:", "missing '='", "init_frac"}, 3);
}

/* A bad assignment after good ones still fails, and names the bad one. */
static void first_error_reported(void **state) {
    (void)state;
    rejects((const char *[]){"N=10", "a=x", "d=y"}, 3, (const char *[]){"a=x"}, 1);
}

static void example_plugin_loads(void **state) {
    (void)state;
    const char *path = getenv("QMOL_EXAMPLE_PLUGIN");
    if (!path || !path[0]) skip();
    const qmol_problem_def *def = NULL;
    char err[512];
    if (plugin_load(path, &def, err, sizeof err)) fail_msg("%s", err);
    assert_non_null(def);
    assert_int_equal(def->api_version, QMOL_API_VERSION);
    assert_string_equal(def->name, "example-brusselator");
    double values[32];
    assert_int_equal(params_resolve(def, (const char *[]){"N=5"}, 1, values, err, sizeof err), 0);
    qmol_problem p;
    assert_int_equal(def->create(values, &p, err, sizeof err), 0);
    assert_int_equal(p.n, 10);
    assert_int_equal(p.components, 2);
    p.destroy(p.data);
    /* Loading again gives the same, still-loaded definition. */
    const qmol_problem_def *again = NULL;
    assert_int_equal(plugin_load(path, &again, err, sizeof err), 0);
    assert_ptr_equal(again, def);
}

static void load_fails(const char *path, const char *const *needles, int nneedles) {
    static const qmol_problem_def sentinel; /* plugin_load must reset def */
    const qmol_problem_def *def = &sentinel;
    char err[1024] = "";
    if (plugin_load(path, &def, err, sizeof err) == 0) fail_msg("loaded %s", path);
    assert_null(def);
    if (!strstr(err, path)) fail_msg("message \"%s\" does not name %s", err, path);
    for (int k = 0; k < nneedles; k++)
        if (!strstr(err, needles[k])) fail_msg("message \"%s\" lacks \"%s\"", err, needles[k]);
}

static void plugin_load_errors(void **state) {
    (void)state;
    load_fails("/nonexistent/dir/libnope.so", (const char *[]){"No such file"}, 1);
    load_fails("/", (const char *[]){"not a regular file"}, 1);
    /* A text file: this test's own source, when the compiler saw its full path. */
    if (__FILE__[0] == '/')
        load_fails(__FILE__, (const char *[]){"not a loadable shared object"}, 1);
    /* A real shared object without the entry point: the message names it. */
    load_fails("libm.so.6", (const char *[]){"no entry point", QMOL_PLUGIN_SYMBOL}, 2);
}

static int fake_create(const double *values, qmol_problem *out, char *err, size_t errlen) {
    (void)values, (void)out, (void)err, (void)errlen;
    return 0;
}

/* A registered problem is found by name and listed after the built-ins;
 * NULL, incomplete, other-version and duplicate definitions are refused. */
static void registered_problems(void **state) {
    (void)state;
    int before;
    registry_all(&before);
    static const qmol_problem_def mine = {QMOL_API_VERSION, "my-problem", "mine", "", NULL, 0,
                                          fake_create};
    char err[512];
    assert_int_equal(registry_add(&mine, err, sizeof err), 0);
    int after;
    const qmol_problem_def *const *all = registry_all(&after);
    assert_int_equal(after, before + 1);
    assert_ptr_equal(all[after - 1], &mine);
    assert_ptr_equal(registry_find("my-problem"), &mine);
    assert_non_null(registry_find("adr1d"));
    assert_int_equal(registry_add(&mine, err, sizeof err), -1);
    assert_non_null(strstr(err, "exists already"));
    assert_int_equal(registry_add(NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "NULL"));
    static const qmol_problem_def old = {QMOL_API_VERSION + 1, "old", "", "", NULL, 0, fake_create};
    assert_int_equal(registry_add(&old, err, sizeof err), -1);
    assert_non_null(strstr(err, "API version"));
    static const qmol_problem_def nameless = {QMOL_API_VERSION, "", "", "", NULL, 0, fake_create};
    assert_int_equal(registry_add(&nameless, err, sizeof err), -1);
    assert_non_null(strstr(err, "incomplete"));
    registry_all(&after);
    assert_int_equal(after, before + 1);
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_without_assignments),
        cmocka_unit_test(good_assignments),
        cmocka_unit_test(not_a_number),
        cmocka_unit_test(not_finite),
        cmocka_unit_test(out_of_range),
        cmocka_unit_test(not_whole),
        cmocka_unit_test(unknown_key),
        cmocka_unit_test(missing_equals),
        cmocka_unit_test(first_error_reported),
        cmocka_unit_test(example_plugin_loads),
        cmocka_unit_test(plugin_load_errors),
        cmocka_unit_test(registered_problems),
    };
    return QMOL_RUN_TESTS(argc, argv, tests);
}
