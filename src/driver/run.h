/* run.h: executes `qmol run` from a validated configuration. */
#ifndef QMOL_RUN_H
#define QMOL_RUN_H

#include "driver/config.h"

/* Returns the process exit code: 0 done, 2 bad input (nothing written),
 * 1 the integration failed (no output file left). Messages go to stderr. */
int run_execute(const run_config *c);

#endif
