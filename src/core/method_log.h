/* method_log.h: which method ran from when, for a method that chooses as it
 * runs (--method auto).
 *
 * The chooser appends a segment whenever it switches; every rank holds the
 * same log (the switches are agreed). The summary prints it and the output
 * keeps it (/methods, docs/output.md). It grows as needed: no cap on the
 * number of switches.
 */
#ifndef QMOL_METHOD_LOG_H
#define QMOL_METHOD_LOG_H

#include <stdint.h>
#include <stdio.h>

struct integrator_def;

typedef struct method_log {
    int count, cap;
    double *t;                            /* segment k runs from t[k] */
    const struct integrator_def **method; /* ... with method[k] */
    int64_t *bdf_states;                  /* ... and that many states on BDF (all ranks;
                                             -1: they move, --method moving) */
    int64_t *moved_in, *moved_out;        /* ... states moved to BDF and back to QSS in it
                                             (--method moving) */
    int64_t n;                            /* the run's states */
    int probes;                           /* methods tried beside the running one */
    double probe_wall;                    /* their wall time, seconds */
    int races;                            /* switches to a probe that lost, which the run then
                                             outspent over the probe's span */
    int kept;                             /* switches that went on from the winning probe's end */
    int ahead;                            /* switches to the mixed method ahead of activity
                                             reaching its BDF states */
    /* the first segment, from t[0] to dropped_to, was dropped for a probe
     * from t[0] that won (its method is replaced) */
    int dropped;
    double dropped_to;
    int no_probes; /* the problem's discrete variables cannot be saved */
    int failed;    /* out of memory: segments are missing */
} method_log;

/* Appends a segment, bdf_states of the run's n on BDF (one that starts
 * where the last one started replaces it: that one was dropped); returns 0,
 * or -1 (out of memory: failed is set). */
int method_log_add(method_log *l, double t, const struct integrator_def *method,
                   int64_t bdf_states);
/* Adds the states moved to BDF and back to QSS to the last segment of
 * method (nothing when there is none). */
void method_log_moves(method_log *l, const struct integrator_def *method, uint64_t to_bdf,
                      uint64_t to_qss);
/* The summary's lines (nothing when the log is empty). */
void method_log_print(const method_log *l, FILE *out);
void method_log_free(method_log *l);

#endif
