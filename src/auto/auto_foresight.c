/* auto_foresight.c: when activity will reach the mixed split's BDF states
 * (auto_foresight.h). */
#include "auto/auto_foresight.h"

#include "comm/halo.h"
#include "mixed/assign.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void foresight_restart(foresight *F) {
    F->look_t = F->from_t = -INFINITY;
    F->near = F->from_near = -1;
    F->approach = 0;
}

int foresight_init(foresight *F, const model *m, struct halo_plan *halo,
                   const unsigned char *assignment) {
    memset(F, 0, sizeof *F);
    F->hops = malloc(((size_t)m->n_cols + 1) * sizeof *F->hops);
    F->seen = malloc(((size_t)m->n + 1) * sizeof *F->seen);
    int failed = !F->hops || !F->seen;
    if (halo) MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, halo->comm);
    if (failed || assign_hops(m, halo, assignment, FORESIGHT_HOPS, F->hops) != 0) {
        foresight_free(F);
        return -1;
    }
    foresight_restart(F);
    return 0;
}

void foresight_free(foresight *F) {
    free(F->hops);
    free(F->seen);
    F->hops = NULL;
    F->seen = NULL;
}

void foresight_start(foresight *F, const double *events, int32_t n) {
    memcpy(F->seen, events, (size_t)n * sizeof *events);
    foresight_restart(F);
}

int foresight_look(foresight *F, MPI_Comm comm, const double *events, int32_t n, double t,
                   double span, double lead) {
    if (t < F->look_t + LOOK_EVERY * span) return 0;
    /* the fewest hops from a state with events since the last look */
    int32_t near = INT32_MAX;
    for (int32_t j = 0; j < n; j++) {
        if (events[j] == F->seen[j]) continue;
        F->seen[j] = events[j];
        if (F->hops[j] >= 0 && F->hops[j] < near) near = F->hops[j];
    }
    MPI_Allreduce(MPI_IN_PLACE, &near, 1, MPI_INT32_T, MPI_MIN, comm);
    if (near == INT32_MAX) near = -1;
    int32_t before = F->near;
    double before_t = F->look_t;
    F->near = near, F->look_t = t;
    if (near < 0 || before < 0 || near >= before) { /* no approach: it may begin here */
        F->from_t = t, F->from_near = near, F->approach = 0;
        return 0;
    }
    if (F->approach++ == 0) F->from_t = before_t, F->from_near = before;
    /* approaching, not there yet: arrives in near / speed */
    if (near == 0 || F->approach < APPROACH_LOOKS) return 0;
    double speed = (double)(F->from_near - near) / (t - F->from_t);
    return (double)near / speed <= lead;
}
