/* mpi_window.c: window_agree's verdicts at 1-4 ranks, from its contract in
 * qss_window.h (not from its implementation).
 *   stops: ranks that stopped at different times (or none) all get
 *     WINDOW_STOPPED and the earliest time; no rank stopped: the drift
 *     decides as before; a NULL stop never stops.
 *   precedence: a rank failed in the window wins over a stop (-1
 *     everywhere); a stop wins over a failure only in the window end's
 *     exchange (cleared: the window is taken back) and over a drift that would reject or count
 * towards failing the run, and does not count towards WINDOW_FAIL_RUN.
 *   ceiling: after a rejection windows grow from ceiling_cut of its length
 *     by WINDOW_CEILING_LIFT a window, not twofold (none without ceiling_cut).
 * Distributed checks are agreed (test_all_true): all ranks pass or fail. */
#include "tests/support/test_support.h"
#include "comm/halo.h"
#include "qss/qss_journal.h"
#include "qss/qss_window.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

typedef struct window_fixture {
    halo_plan halo;
    integrator_options o;
    qmol_stats stats;
    qss_engine e;
    qss_journal journal;
    window_control ctl;
} window_fixture;

/* An engine with only what window_agree reads: its halo's communicator,
 * options without progress reports, stats, failure and (redo possible) a
 * journal; adaptive windows in [1e-6, 1]. */
static void fixture(window_fixture *f) {
    memset(f, 0, sizeof *f);
    f->halo.comm = MPI_COMM_WORLD;
    f->e.halo = &f->halo;
    f->e.o = &f->o;
    f->e.stats = &f->stats;
    f->e.journal = &f->journal;
    f->ctl =
        (window_control){.adaptive = 1, .wmin = 1e-6, .wmax = 1.0, .target = 0.5, .reject = 1.0};
}

static void agreed(int ok, const char *what) {
    if (!ok) print_error("rank %d of %d: %s wrong\n", test_rank(), test_nranks(), what);
    assert_true(test_all_true(ok));
}

static void stops_agreed(void **state) {
    (void)state;
    window_fixture f;
    int report = 0, r = test_rank();
    double W = 0.01;
    /* odd ranks did not stop; even rank r stopped at 2 - r / 10: the
     * earliest is the last even rank's */
    fixture(&f);
    int last_even = (test_nranks() - 1) / 2 * 2;
    double stop = r % 2 ? INFINITY : 2.0 - 0.1 * r;
    int v = window_agree(&f.ctl, &f.e, 0.1, INFINITY, 0.01, &W, &stop, &report);
    agreed(v == WINDOW_STOPPED && stop == 2.0 - 0.1 * last_even, "the earliest stop");
    /* no rank stopped: accepted, the stop left as it was, W grows */
    fixture(&f);
    stop = INFINITY, W = 0.01;
    v = window_agree(&f.ctl, &f.e, 0.1, INFINITY, 0.01, &W, &stop, &report);
    agreed(v == WINDOW_ACCEPTED && isinf(stop) && W > 0.01, "no stop");
    /* no stop pointer: the drift decides (rejected: above reject) */
    fixture(&f);
    W = 0.01;
    v = window_agree(&f.ctl, &f.e, 5.0, INFINITY, 0.01, &W, NULL, &report);
    agreed(v == WINDOW_REJECTED && W < 0.01, "a NULL stop");
}

static void stop_precedence(void **state) {
    (void)state;
    window_fixture f;
    int report = 0, r = test_rank(), last = test_nranks() - 1;
    double W = 0.01, stop = r == 0 ? 1.5 : INFINITY;
    /* the last rank failed in the window, rank 0 stopped: failure
     * everywhere */
    char err[64];
    fixture(&f);
    f.e.err = err, f.e.errlen = sizeof err;
    f.e.failed = r == last;
    int v = window_agree(&f.ctl, &f.e, 0.1, INFINITY, 0.01, &W, &stop, &report);
    agreed(v == -1 && f.e.failed == (r == last), "a failure with a stop");
    /* ... only in the window end's exchange: the stop takes it back */
    fixture(&f);
    f.e.err = err, f.e.errlen = sizeof err;
    snprintf(err, sizeof err, "%s", r == last ? "a derivative at T_end" : "");
    f.e.failed = f.e.failed_in_exchange = r == last;
    W = 0.01, stop = r == 0 ? 1.5 : INFINITY;
    v = window_agree(&f.ctl, &f.e, 0.1, INFINITY, 0.01, &W, &stop, &report);
    agreed(v == WINDOW_STOPPED && stop == 1.5 && !f.e.failed && err[0] == '\0',
           "an exchange's failure with a stop");
    /* ... and without a stop it stands */
    fixture(&f);
    f.e.err = err, f.e.errlen = sizeof err;
    f.e.failed = f.e.failed_in_exchange = r == last;
    W = 0.01, stop = INFINITY;
    v = window_agree(&f.ctl, &f.e, 0.1, INFINITY, 0.01, &W, &stop, &report);
    agreed(v == -1 && f.e.failed == (r == last), "an exchange's failure without a stop");
    /* rank 0 stopped, the last rank drifted far: stopped, not rejected; a
     * window that cannot run again (no journal) drifting far is not
     * counted towards failing the run while stops take it back */
    for (int journal = 0; journal < 2; journal++) {
        fixture(&f);
        if (!journal) f.e.journal = NULL;
        for (int k = 0; k < WINDOW_FAIL_RUN + 1; k++) {
            W = 0.01, stop = r == 0 ? 1.5 : INFINITY;
            double drift = r == last ? 100.0 * WINDOW_DRIFT_FAIL : 0.0;
            v = window_agree(&f.ctl, &f.e, drift, INFINITY, 0.01, &W, &stop, &report);
            agreed(v == WINDOW_STOPPED && stop == 1.5 && f.ctl.over_fail == 0 && !f.e.failed,
                   "a stop with a drift");
        }
    }
}

/* A rejected window of length L (one rank drifted past reject) leaves a
 * ceiling of ceiling_cut L: the accepted windows after it, drifting nothing
 * (the controller would double them), grow by WINDOW_CEILING_LIFT a window
 * from there, on every rank, until the ceiling passes wmax and is dropped;
 * without ceiling_cut (the mixed method) they double at once (after the
 * one window that may not grow). */
static void ceiling_after_rejection(void **state) {
    (void)state;
    window_fixture f;
    int report = 0, last = test_nranks() - 1;
    for (int with = 0; with < 2; with++) {
        fixture(&f);
        f.ctl.wmax = 0.02; /* (the ceiling passes it within the 40 windows) */
        f.ctl.ceiling_cut = with ? WINDOW_CEILING_CUT : 0.0;
        double W = 0.01, L = 0.01;
        int v = window_agree(&f.ctl, &f.e, test_rank() == last ? 5.0 : 0.0, INFINITY, L, &W, NULL,
                             &report);
        agreed(v == WINDOW_REJECTED, "the rejection");
        int ok = 1;
        double bound = WINDOW_CEILING_CUT * L, length = W;
        for (int k = 1; k <= 40; k++) {
            v = window_agree(&f.ctl, &f.e, 0.0, INFINITY, length, &W, NULL, &report);
            bound *= WINDOW_CEILING_LIFT;
            double grown = fmin(k == 1 ? length : 2.0 * length, f.ctl.wmax);
            double want = with ? fmin(bound, grown) : grown;
            ok = ok && v == WINDOW_ACCEPTED && fabs(W - want) <= 1e-12 * want;
            length = W;
        }
        /* ... and, lifted past wmax, the ceiling is dropped */
        ok = ok && W == f.ctl.wmax && f.ctl.ceiling == 0.0;
        agreed(ok, with ? "windows under the ceiling" : "windows without a ceiling");
    }
}

int main(int argc, char **argv) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stops_agreed),
        cmocka_unit_test(stop_precedence),
        cmocka_unit_test(ceiling_after_rejection),
    };
    return QMOL_RUN_TESTS(argc, argv, tests);
}
