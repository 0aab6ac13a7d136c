/* wallclock.h: monotonic wall-clock seconds, for the phase timers. */
#ifndef QMOL_WALLCLOCK_H
#define QMOL_WALLCLOCK_H

#include <time.h>

static inline double wallclock_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
