/* auto_meter.c: measuring a method's cost as it integrates (auto_meter.h). */
#include "auto/auto_meter.h"

#include "core/wallclock.h"

#include <math.h>

/* Seconds (agreed) that were not the integration's: out of its cost and
 * of the stretch under way. */
static void leave_out(meter *M, double seconds) {
    M->excluded += seconds;
    M->mark_wall += seconds;
}

double meter_now(meter *M) {
    double v[2] = {wallclock_seconds(), M->away};
    if (M->size > 1) MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, M->comm);
    leave_out(M, v[1]);
    M->away = 0.0;
    return v[0];
}

void meter_away(meter *M, double seconds) {
    M->away += seconds;
}

int meter_any_failed(const meter *M, int failed) {
    if (M->size > 1) MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, M->comm);
    return failed;
}

void meter_start(meter *M, MPI_Comm comm, int probe, double t_a, double t_b, double span) {
    *M = (meter){.comm = comm, .probe = probe, .span = span, .t_a = t_a, .t_b = t_b, .t_end = t_b};
    MPI_Comm_rank(comm, &M->rank);
    MPI_Comm_size(comm, &M->size);
    M->wall_a = M->mark_wall = meter_now(M);
    M->mark_t = M->last_t = t_a;
    M->last_rate = M->first_budget = M->budget_rate = M->watch_rate = INFINITY;
    M->first_allowance = INFINITY;
}

double meter_window_cap(double span) {
    return PROBE_STRETCH * span / STRETCH_WINDOWS;
}

/* The integrator's set-up so far (collective: the slowest rank's). */
static double set_up(const meter *M) {
    double s = M->setup ? *M->setup : 0.0;
    if (M->setup && M->size > 1) MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_MAX, M->comm);
    return s;
}

double meter_cost(meter *M) {
    return meter_now(M) - M->wall_a - M->excluded;
}

double meter_cost_local(const meter *M) {
    return wallclock_seconds() - M->wall_a - M->excluded;
}

void meter_pause(meter *M) {
    M->paused_at = meter_now(M);
}

void meter_resume(meter *M) {
    leave_out(M, meter_now(M) - M->paused_at);
}

/* A probe that spent `spent` (its set-up left out) is over its budget: its
 * first stretch's, then the whole probe's. */
static int over_budget(const meter *M, double spent) {
    return M->stretches == 0 ? spent > M->first_budget
                             : spent - M->first_cost > M->budget_rate * (M->t_b - M->t_first);
}

/* The run's stretch under way, `cost` so far of one `stretch` long (or
 * as far as t, when windows made it longer), already costs WATCH_FACTOR^2
 * times the watch: the alarm at once. The first stretch holds the run's
 * start: beyond that, its set-up (`setup`) and first_allowance too. */
static int far_over_watch(const meter *M, double cost, double stretch, double t, double setup) {
    double allowed = WATCH_FACTOR * WATCH_FACTOR * M->watch_rate * fmax(stretch, t - M->mark_t);
    if (M->stretches == 0) allowed += setup + M->first_allowance;
    return cost > NOISE_FLOOR && cost > allowed;
}

int meter_over(const meter *M, double t) {
    double w = wallclock_seconds(), setup = M->setup ? *M->setup : 0.0;
    if (M->probe) return over_budget(M, w - M->wall_a - M->excluded - setup);
    return far_over_watch(M, w - M->mark_wall, RUN_STRETCH * M->span, t, setup);
}

/* Whether a probe's QSS events are past its warm-up (collective). */
static int warmed_up(const meter *M) {
    if (!M->events) return 1;
    double e = (double)*M->events;
    if (M->size > 1) MPI_Allreduce(MPI_IN_PLACE, &e, 1, MPI_DOUBLE, MPI_SUM, M->comm);
    return e >= M->warmup;
}

/* A stretch ends at t (wall w): its cost, and whether a probe settled or
 * lost, or the run's watch raised the alarm. */
static int stretch_end(meter *M, double t, double w) {
    double cost = w - M->mark_wall, rate = cost / (t - M->mark_t);
    if (M->stretches++ == 0) {
        M->setup_cost = set_up(M);
        M->first_cost = w - M->wall_a - M->excluded - M->setup_cost, M->t_first = t;
    }
    int settled = M->stretches >= 2 && rate <= SETTLE * M->last_rate &&
                  rate * SETTLE >= M->last_rate && (!M->probe || warmed_up(M));
    /* a probe over the budget whose cost no longer falls fast (its start
     * is over) lost */
    int lost =
        M->probe && M->stretches >= 2 && rate > M->budget_rate && rate * SETTLE >= M->last_rate;
    if (settled || M->stretches >= SETTLE_MOST) M->settled = 1;
    M->last_wall = cost, M->last_windows = M->windows;
    M->mark_t = t, M->mark_wall = w, M->windows = 0;
    M->last_rate = rate;
    if (M->probe) {
        M->lost = lost;
        return settled || lost;
    }
    /* a run: its first stretch holds its start-up */
    /* (two stretches in a row: one can be the system's noise) */
    int over = M->stretches >= 2 && cost > NOISE_FLOOR && rate > WATCH_FACTOR * M->watch_rate;
    int alarm = over && M->over_before;
    M->over_before = over;
    return alarm;
}

int meter_window_end(meter *M, double t) {
    double w = meter_now(M);
    M->cost_now = w - M->wall_a - M->excluded;
    M->windows++;
    M->last_t = t;
    if (M->probe) {
        double su = set_up(M), spent = w - M->wall_a - M->excluded - su;
        if (M->stretches == 0) M->setup_cost = su;
        M->lost = over_budget(M, spent);
        if (M->lost) return M->ended = 1;
    }
    /* (a run's stretches are short until its cost settles: the first
     * probes wait for that) */
    double stretch = (M->probe || !M->settled ? PROBE_STRETCH : RUN_STRETCH) * M->span;
    /* a run's stretch that already cost more than the watch allows ends
     * here, with the alarm (the run's stop request, meter_over, ended its
     * window for this) */
    int far = !M->probe &&
              far_over_watch(M, w - M->mark_wall, stretch, t, M->stretches ? 0.0 : set_up(M));
    if (far || (t - M->mark_t >= stretch && M->windows >= STRETCH_WINDOWS)) {
        int end = stretch_end(M, t, w);
        if (M->probe) M->ended = end;
        return end || far;
    }
    return 0;
}
