/* qss_explicit.c: QSS1, QSS2, QSS3 (thesis Algorithms 3.1, 3.2; QSS3 the
 * cubic analogue). At an event q_i takes x_i's value and its first order-1
 * Taylor coefficients; the next event is when |x_i - q_i| reaches dQ_i. */
#include "qss/qss_engine.h"

static int explicit_init(qss_engine *e) {
    for (int32_t j = 0; j < e->n; j++)
        eng_schedule_qss(e, j, e->o->t0);
    return 0;
}

static void explicit_event(qss_engine *e, int32_t i, double t) {
    eng_advance_x(e, i, t);
    eng_update_quantum(e, i);
    eng_set_q(e, i, t, e->x[i].c[0], e->order >= 2 ? e->x[i].c[1] : 0.0,
              e->order >= 3 ? e->x[i].c[2] : 0.0);
    eng_readers_changed(e, i, t);
    if (!eng_reads_self(e, i)) eng_schedule_qss(e, i, t);
}

const qss_method qss1_method = {.name = "qss1",
                                .order = 1,
                                .init = explicit_init,
                                .event = explicit_event,
                                .reschedule = eng_schedule_qss};
const qss_method qss2_method = {.name = "qss2",
                                .order = 2,
                                .init = explicit_init,
                                .event = explicit_event,
                                .reschedule = eng_schedule_qss};
const qss_method qss3_method = {.name = "qss3",
                                .order = 3,
                                .init = explicit_init,
                                .event = explicit_event,
                                .reschedule = eng_schedule_qss};
