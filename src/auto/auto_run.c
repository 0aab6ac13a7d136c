/* auto_run.c: --method auto, which chooses as it runs, from their measured
 * costs, among CVODE (every state on BDF), the QSS method (--qss-method,
 * every state on QSS), when --assign auto's rule (or --bdf) splits the
 * states, the mixed method with that split, and on one rank without
 * discontinuities --method moving, at the whole run's rhythm
 * (docs/methods.md, "--method auto", "auto and the moving block"). No cost
 * is predicted from constants: each candidate's cost, wall
 * seconds per unit of simulated time, is measured on the run itself; what
 * is predicted is where activity goes (the hand-over ahead of it, below).
 *
 *  - Measuring (auto_meter.h): a method runs in stretches of simulated
 *    time; a probe goes on until the cost of a stretch settles, and gives
 *    up (the candidate lost) when it costs CUT_FACTOR times the best
 *    estimate.
 *  - CVODE runs first (its cost per stretch is bounded whatever the
 *    problem); once its cost settles the others are probed beside it.
 *  - While a method runs, the others are probed from its states now and
 *    then: a probe integrates a short span beside the run, its samples
 *    dropped, and the run goes on undisturbed unless the probe was cheaper,
 *    by SWITCH_MARGIN and its start-up (weighed over the rest of the run,
 *    SWITCH_HORIZON at most). Then the run stops there and the
 *    cheaper method goes on from where its probe ended (go_on_from_probe:
 *    the probe's samples and counts kept), or from the run's states where
 *    the probe could not be kept (probes rather than trial segments of the
 *    run: CVODE restarted for every trial loses accuracy, adr2d 100 x 100,
 *    tol 1e-3, CVODE in 11 pieces gave e_rr 5.6e-3 against 1.1e-3 in one).
 *  - A probe that lost is raced by the run over the span it covered: a run
 *    that spends SWITCH_MARGIN times the probe's cost before getting as far
 *    hands over to it (race_switch).
 *  - A probe that lost is not made again for a while: HORIZON of the
 *    span, times what it lost by (at most BACKOFF_MOST), doubled at each
 *    further loss, and probes take at most PROBE_SHARE of the run's time.
 *    Two stretches of the running method that cost WATCH_FACTOR times the
 *    best other estimate or its own cost when last weighed (activity
 *    switched on) make due for a probe at once every candidate that may be
 *    cheaper than the run now, and those whose back-off is over within
 *    PROBE_SHARE (but a QSS method held after a hand-over ahead of
 *    activity, the mixed split while its floor says it cannot win:
 *    mixed_floor, and CVODE while the time events' floor says so:
 *    bdf_floor).
 *  - While the QSS method runs the states the mixed candidate puts on BDF,
 *    the run looks ahead (auto_foresight.h): when activity approaching them
 *    will reach them within LEAD of the span, the mixed method takes over
 *    before it does (the measurements cannot see that coming; a mixed start
 *    in the middle of the front costs decades more than one ahead of it).
 *  - While CVODE runs, the QSS method is due again when the activity on
 *    CVODE's states (auto_activity.h: the events an order-2 QSS method would
 *    need on them) has fallen so far since its last probe beside CVODE that
 *    its cost then, scaled by that fall, beats CVODE's by SWITCH_MARGIN:
 *    CVODE's own cost does not fall with the activity, so no alarm sounds.
 *  - A run's measurement counts for more than a probe's: a candidate's
 *    estimate is never below what it measured while running, as much of
 *    that as still counts (halved every MEMORY_SPAN of the span): a short
 *    measurement can miss what builds up later (the stiff oscillations of
 *    QSS on a diffusion grid).
 *
 * A segment is an integration of its own from the states where the last one
 * ended (integrator_options.start), delivering the run's samples that fall
 * in it. On several ranks every decision is agreed (the wall times are the
 * slowest rank's) and probes run on every rank at the same window end.
 * Problems with discontinuities are probed only when their discrete
 * variables can be saved and put back (qmol.h get_discrete, set_discrete).
 */
#include "auto/auto_activity.h"
#include "auto/auto_floor.h"
#include "auto/auto_foresight.h"
#include "auto/auto_meter.h"
#include "comm/halo.h"
#include "core/discontinuities.h"
#include "core/initial.h"
#include "core/integrator_registry.h"
#include "core/method_log.h"
#include "core/progress.h"
#include "core/wallclock.h"
#include "mixed/assign.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SWITCH_MARGIN 1.25
/* A candidate that lost backs off HORIZON of the span times what it lost
 * by; the first probes, from the run's start, are weighed over HORIZON. */
#define HORIZON (1.0 / 32.0)
/* A switch is weighed over the rest of the run, SWITCH_HORIZON of the span
 * at most: the start-up is paid once, what the switch saves accrues while
 * the costs hold. */
#define SWITCH_HORIZON (1.0 / 4.0)
#define BACKOFF_MOST 8.0
/* Probes made while a method runs take at most this share of its time. */
#define PROBE_SHARE 0.05
#define MEMORY_SPAN (1.0 / 16.0)
/* A candidate is switched to only on a measurement this recent (choose). */
#define STALE MEMORY_SPAN
/* The foresight hands over this long (a fraction of the span: a probe's
 * longest) before activity arrives, and the QSS method is not probed again
 * for twice as long after. */
#define LEAD PROBE_LONGEST
/* A probe on the activity's word (activity_fell) is made when the saving it
 * predicts over the switch's horizon is this many times its last cost. */
#define ACTIVITY_PAYBACK 2.0
/* A candidate whose run, once settled, cost more than its probe had
 * measured has its later probes scaled by that much, BIAS_MOST at most. */
#define BIAS_MOST 8.0
/* The shortest QSS window on several ranks, as a fraction of the span,
 * unless --window-min says otherwise (set_candidates). */
#define AUTO_WINDOW_MIN 1e-9
/* A run's cost is projected from its change over TREND_BASE of the span
 * at least, to TREND_MOST times its cost now at most (projected). */
#define TREND_BASE (1.0 / 16.0)
#define TREND_MOST 2.0

/* CVODE and the QSS method are always candidates, at these slots; the mixed
 * split and the moving block, where they apply, take the next ones
 * (auto_run.mixed, .moving; -1: not a candidate). */
enum { CAND_BDF, CAND_QSS, NCAND = 4 };

/* A probe's integration, kept while it may take over: where it started (t)
 * and settled (t_end), its states there (owned, then room for the ghosts),
 * the run's samples it passed (at most KEEP_SAMPLES, sample[j] at
 * sample_t[j], the run's sample first_k + j), what it counted (its wall
 * times left out: they are the running segment's) and its events per
 * state (where the run counts them), also as they stood at each sample
 * (activity_at[j]: a sample's events per state are the change since the
 * one before). */
#define KEEP_SAMPLES 4
typedef struct kept_probe {
    int valid;
    double t, t_end;
    double *x;
    int64_t first_k;
    int nsamples, nreal;
    double sample_t[KEEP_SAMPLES];
    double *sample[KEEP_SAMPLES];
    qmol_stats stats;
    double *activity;
    double *activity_at[KEEP_SAMPLES];
    int counts; /* its events per state are counted (activity) */
} kept_probe;

/* What auto knows of a candidate. */
typedef struct candidate {
    integrator_options o;
    double rate;     /* last measured cost, wall s per unit of t (INFINITY: none) */
    double run_rate; /* measured while it ran (0: never), at run_t */
    double run_t;
    double startup;     /* what a fresh start costs beyond its rate */
    double first_cost;  /* its last measurement's first stretch (its set-up not) */
    double retry_at;    /* not probed before this time (back-off) */
    double floor_until; /* ... nor before this one, alarm or not (mixed_floor) */
    double hold_until;  /* ... nor before this one, alarm or not (a hand-over ahead) */
    double retry_gap;   /* the next back-off (0: none yet) */
    double probe_cost;  /* its last probe's wall time, and when it was made */
    double probe_t;
    double probe_against; /* the run's cost then (projected; 0: none) */
    /* the activity (auto_activity.h) when it was last probed beside CVODE
     * (0: not known) */
    double activity_base;
    double probe_clock; /* the run's wall time then (run_clock) */
    /* what its last settled probe from probed_t measured (0: none), and its
     * runs' cost over that when one was first weighed after winning such a
     * probe (at least 1: later probes are scaled by it); probed_run: the
     * probe's measure the running segment started on (0: weighed already,
     * or it did not start on a probe's word) */
    double probed, probed_t, bias, probed_run;
    /* its last probe lost, having covered [race_t, race_until] for
     * race_cost: the run races it there (race_until > race_t), its cost
     * counted from race_from (its meter's cost at race_t) */
    double race_t, race_until, race_cost, race_from;
    int64_t bdf_states; /* its states on BDF over all ranks (the log's) */
    kept_probe kept;    /* its last probe, if it settled */
} candidate;

typedef struct auto_run {
    const model *m;
    const integrator_options *o;
    sample_fn sample;
    void *sample_ctx;
    qmol_stats *stats; /* the run's */
    int in_segment;    /* a segment's integration is under way */
    MPI_Comm comm;
    candidate cand[NCAND];
    int ncand;
    int mixed, moving; /* their slots, or -1 */
    double span;
    int64_t n_global; /* states over all ranks */
    int can_probe;    /* discrete variables, if any, can be saved and put back */
    double *discrete;
    /* the segment that runs */
    int running;
    meter seg;
    double *seg_times;
    int64_t seg_first, seg_real; /* the run's first sample in it, and how many */
    int seg_index;               /* segments run before it */
    int seg_delivered;           /* samples it delivered so far */
    int from_start;              /* this window end's probes started where it started */
    int dropped;                 /* the run's start was dropped for a probe from t0 ... */
    double dropped_to;           /* ... and had got here */
    double *x;                   /* local states (owned, then ghosts) where it ended */
    int64_t *gid;                /* their global ids */
    double t_end;
    initial_values start;
    int switch_to;           /* a probe won: the candidate to go on with (-1: none) */
    double switch_t;         /* ... from this time (its probe's start when kept) */
    int can_keep;            /* a probe's integration may be kept (no discrete variables) */
    int kept_probes;         /* switches that went on from the winning probe's end */
    integrator_state *inner; /* the running integrator's state at at_window_end */
    method_log *log;         /* the switches, for the summary and /methods (or NULL) */
    int probes;
    double probe_wall;
    double runs_wall; /* the segments' wall time before the one that runs */
    int races;        /* switches after a race the run lost */
    /* the foresight, when there is a mixed candidate (fs_on), with the QSS
     * runs' events per state (the run's own counters, or these) */
    foresight fs;
    int fs_on;
    double *events;
    int ahead; /* switches ahead of activity */
    /* the mixed split's least share of CVODE's cost (0: none), found at
     * mixed_share_t while CVODE ran */
    double mixed_share, mixed_share_t;
    /* the running segment's counters (NULL: none runs) and its start; what
     * a CVODE start evaluates at least, the slowest rank's (auto_floor.h; 0:
     * not timed yet) */
    const qmol_stats *seg_stats;
    double seg_stats_t, start_wall;
    /* the running segment's cost when first weighed, and when (NAN: not
     * yet): the base of its projected cost */
    double trend_t, trend_rate;
    /* a CVODE probe that won went on as the run (adopt): that run goes on
     * inside the segment it was probed from (adopting), which ends at once
     * when it has (adopted); that segment's plan of samples meanwhile */
    int adopting, adopted;
    int lone_probe; /* the look's only probe due */
    double *outer_times;
    int adopted_rc;          /* how that run ended: 0, stopped (a signal) or failed */
    char fail[512];          /* why it failed */
    double adopted_output;   /* its samples' wall time */
    activity_watch activity; /* while CVODE runs: the QSS method's events */
} auto_run;

/* QMOL_AUTO_TRACE in the environment: rank 0 prints what auto does. */
static int tracing(const auto_run *A) {
    return A->seg.rank == 0 && getenv("QMOL_AUTO_TRACE");
}

/* (s: its counters, this rank's QSS events) */
static void trace(const auto_run *A, const char *what, int c, const meter *M, double cost,
                  const qmol_stats *s) {
    if (!tracing(A)) return;
    fprintf(
        stderr,
        "auto: %-8s %-5s [%.6g, %.6g] -> %.6g  wall %.4g  rate %.4g%s  (%llu events, %llu "
        "steps, %llu linear set-ups, %llu windows)\n",
        A->cand[c].o.method->name, what, M->t_a, M->t_b, M->t_end, cost, A->cand[c].rate,
        M->lost ? "  lost" : "",
        /* (CVODE counts its steps as events) */
        (unsigned long long)(integrator_has(A->cand[c].o.method, INTEGRATOR_QSS_ENGINE) ? s->events
                                                                                        : 0),
        (unsigned long long)s->nst, (unsigned long long)s->nsetups, (unsigned long long)s->windows);
}

/* ---- estimates and choices ------------------------------------------------ */

/* c's expected cost at t. */
static double estimate(const auto_run *A, int c, double t) {
    const candidate *k = &A->cand[c];
    return fmax(k->rate, k->run_rate * exp2(-(t - k->run_t) / (MEMORY_SPAN * A->span)));
}

/* The running segment's cost `now` at t, as it will be on average over the
 * next `ahead` of t if it goes on changing as it has since the segment was
 * first weighed: not below now (a falling cost counts as now), TREND_MOST
 * times now at most; now itself until TREND_BASE of the span has passed.
 * A cost that climbs as activity spreads makes a switch pay over the
 * horizon before the cost now shows it (adr2d 1000 x 1000, tol 1e-3:
 * LIQSS2 at 5.4 s per unit of t at t = 0.03, 12 at 1.3 and 21 at 1.9,
 * CVODE steady at 8-10 from 1.3 on). */
static double projected(const auto_run *A, double now, double t, double ahead) {
    double dt = t - A->trend_t;
    if (isnan(A->trend_t) || dt < TREND_BASE * A->span || !isfinite(now)) return now;
    double slope = (now - A->trend_rate) / dt;
    return fmin(TREND_MOST * now, fmax(now, now + 0.5 * slope * ahead));
}

/* Whether c's cost was measured (a probe, settled or not, or its run)
 * within STALE of the span before t. */
static int measured_lately(const auto_run *A, int c, double t) {
    const candidate *k = &A->cand[c];
    return fmax(fmax(k->probe_t, k->probed_t), k->run_t) >= t - STALE * A->span;
}

/* The cheapest measured candidate at t but skip, of those not on hold and,
 * with `lately`, measured lately (-1: none). */
static int cheapest(const auto_run *A, double t, int skip, int lately) {
    int best = -1;
    for (int c = 0; c < A->ncand; c++)
        if (c != skip && !isinf(A->cand[c].rate) && t >= A->cand[c].hold_until &&
            (!lately || measured_lately(A, c, t)) &&
            (best < 0 || estimate(A, c, t) < estimate(A, best, t)))
            best = c;
    return best;
}

/* What a probe of c gave (meter M over its span, cost wall seconds). */
static void record(auto_run *A, int c, const meter *M, double cost) {
    candidate *k = &A->cand[c];
    double dt = M->t_end - M->t_a;
    /* (lost in its first stretch: at least its cost over a stretch) */
    double whole = cost / fmax(dt, M->lost ? PROBE_STRETCH * A->span : 0.0);
    int settled = !M->lost && M->stretches >= 2;
    k->rate = settled ? M->last_rate : dt > 0.0 || M->lost ? whole : INFINITY;
    /* one that lost costs more than its budget: never below the best's */
    if (M->lost && !isinf(M->budget_rate)) k->rate = fmax(k->rate, M->budget_rate);
    if (settled) {
        /* scaled by what the runs since such probes cost more (QSS's stiff
         * oscillations build up over a run longer than a probe:
         * buck-heatsink's LIQSS2 probes 0.031-0.048 s per unit of t, its
         * runs 0.077-0.16, and the run went back and forth with the mixed
         * method) */
        k->probed = k->rate, k->probed_t = M->t_a, k->rate *= k->bias;
        k->first_cost = M->first_cost;
        k->startup = M->setup_cost + fmax(0.0, M->first_cost - k->rate * (M->t_first - M->t_a));
    } else if (M->lost) { /* what its start cost at least */
        k->first_cost = fmax(k->first_cost, M->stretches ? M->first_cost : cost - M->setup_cost);
    }
}

/* The candidate to go on with at t (current: the one running, or -1), of
 * those measured lately (a switch on an old measurement went wrong: adr2d
 * 300 x 300, tol 1e-3, --method moving chosen at t = 0 and running at 0.52
 * s per unit of t at t = 4.2, handed over to LIQSS2 on its probe at t = 0,
 * 0.39, whose run then cost 0.6-0.7); the others back off: as long as they
 * lost by (BACKOFF_MOST times at most), twice as long at each further
 * loss. */
static int choose(auto_run *A, int current, double t) {
    int best = cheapest(A, t, -1, 0);
    if (best >= 0 && best != current && !measured_lately(A, best, t)) {
        int other = cheapest(A, t, current, 1);
        best = other >= 0 && (current < 0 || estimate(A, other, t) < estimate(A, current, t))
                   ? other
                   : current;
    }
    if (best < 0) best = 0;
    if (current >= 0 && best != current) { /* worth a fresh start? */
        /* (the first probes, from the run's start, weigh against the
         * start's cost, which CVODE's tiny first steps make a transient:
         * over the next HORIZON only) */
        double L = A->from_start ? HORIZON * A->span : fmin(A->o->tf - t, SWITCH_HORIZON * A->span);
        if (estimate(A, best, t) * L + A->cand[best].startup >
            estimate(A, current, t) * L / SWITCH_MARGIN)
            best = current;
    }
    for (int c = 0; c < A->ncand; c++) {
        candidate *k = &A->cand[c];
        if (c == best) {
            k->retry_gap = 0.0;
        } else if (t >= k->retry_at) {
            double by = fmin(estimate(A, c, t) / estimate(A, best, t), BACKOFF_MOST);
            k->retry_gap = fmax(2.0 * k->retry_gap, HORIZON * A->span * fmax(by, 1.0));
            k->retry_at = t + k->retry_gap;
        }
    }
    return best;
}

/* How a measurement of c starting at t is judged: against the best other. */
static void set_budget(const auto_run *A, int c, double t, meter *M) {
    int best = cheapest(A, t, c, 0);
    if (best < 0) return;
    /* the first stretch: FIRST_FACTOR times the best's, fresh or as it runs
     * now, and c's own start as last measured (never measured: what the
     * whole probe may cost, BDF methods' first steps are short); then
     * CUT_FACTOR its cost */
    double rate = estimate(A, best, t), own = A->cand[c].first_cost;
    if (!(own > 0.0)) own = CUT_FACTOR * rate * PROBE_LONGEST * A->span;
    M->first_budget =
        FIRST_FACTOR * fmax(A->cand[best].first_cost, rate * PROBE_STRETCH * A->span) + own;
    M->budget_rate = CUT_FACTOR * rate;
}

/* The running method's watch: the best other estimate, or its own cost
 * when the others were last weighed, whichever is lower (a cost that grew
 * WATCH_FACTOR times since is activity that changed, whatever the others'
 * estimates, which may be old). */
static void set_watch(auto_run *A, double t) {
    int other = cheapest(A, t, A->running, 0);
    double own = estimate(A, A->running, t);
    A->seg.watch_rate = fmin(other < 0 ? INFINITY : estimate(A, other, t), own);
}

/* Windows short enough to time the stretches: one rank's QSS windows, and
 * on several ranks the adaptive windows of probes (a QSS window whose cost
 * jumped would otherwise run on to its end; a fixed --window stays). The
 * QSS method's run on several ranks takes windows of RUN_STRETCH at most
 * (its stretches, two of which raise the alarm): its stop request ends a
 * window on every rank (stop_mid_window), and adr1d N = 1000 on 2 ranks took
 * 7,000 windows of the probes' length where mLIQSS2 alone takes 123
 * (0.053-0.062 s against 0.025). The mixed
 * method's run (not its probe) takes windows of PROBE_LONGEST at most: its
 * windows end its BDF block's steps, and on 2 ranks adr1d-vardiff N = 1e4
 * took 3,700 windows of the probes' length over [2.98, 7.5], 3.2 s, where
 * the static split takes 123 in 0.37 s; with RUN_STRETCH, 486 BDF steps
 * over [2.98, 10] (0.43 s), the diffusive half's long steps cut once the
 * front had gone, against 251 (0.26 s). */
static void cap_windows(const auto_run *A, int c, int run, integrator_options *o) {
    double cap = meter_window_cap(A->span);
    if (run && c == A->mixed) {
        cap = PROBE_LONGEST * A->span;
    } else if (run && c == CAND_QSS && o->halo && o->stop_mid_window) {
        o->window_cap = cap; /* (where its windows cannot be run again) */
        cap = RUN_STRETCH * A->span;
    }
    if (!o->halo)
        o->window_cap = cap;
    else if (!(o->window > 0.0) && !(o->window_max > 0.0 && o->window_max < cap))
        o->window_max = cap;
}

/* The first of the run's samples from k on that comes after t. */
static int64_t sample_after(const integrator_options *o, int64_t k, double t) {
    while (k <= o->samples && sample_at(o, k) <= t)
        k++;
    return k;
}

/* A method's counters as the run's total takes them: CVODE's solver
 * counters once over the ranks, events only from a QSS engine (CVODE's
 * count its steps). */
static void segment_counts(const integrator_def *method, qmol_stats *s, int rank) {
    if (integrator_has(method, INTEGRATOR_GLOBAL_COUNTERS)) stats_count_global_once(s, rank);
    if (!integrator_has(method, INTEGRATOR_QSS_ENGINE)) s->events = 0;
}

/* ---- probes --------------------------------------------------------------- */

/* A probe under way: its meter, and where it keeps its integration (NULL:
 * dropped). */
typedef struct probe_run {
    meter M;
    kept_probe *keep;
    int32_t n;     /* owned states */
    int64_t count; /* its samples, the last at its end */
    /* a probe that may go on as the run (adoptable): the run's samples from
     * its start to tf (times), those it passed so far (held in hold's
     * sample arrays, at most KEEP_SAMPLES: more, and it cannot: overflow),
     * whether it was weighed where its measurement ended, and whether it
     * won there and goes on (adopted) */
    auto_run *A;
    int c, adoptable, adopted, weighed, overflow, held;
    kept_probe *hold;
    double *times;
    int64_t first, real; /* the run's first sample in times, and how many */
    qmol_stats *stats;
} probe_run;

static int probe_window_end(void *ctx, double t, const integrator_state *s) {
    probe_run *P = ctx;
    /* (the same verdict on every rank: a failure is not yet agreed) */
    int ends = meter_window_end(&P->M, t);
    if (meter_any_failed(&P->M, s->failed) || !ends) return 0;
    if (P->keep && !P->M.lost) { /* settled: its states here */
        s->states(s->ictx, t, P->keep->x);
        P->keep->t_end = t;
        P->keep->valid = 1;
    }
    return INTEGRATOR_STOPPED;
}

/* The run's wall time so far (its segments', probes left out), as agreed at
 * the last window end. */
static double run_clock(const auto_run *A) {
    return A->runs_wall + (A->in_segment ? A->seg.cost_now : 0.0);
}

static int probe_over(void *ctx, double t) {
    return meter_over(&((probe_run *)ctx)->M, t);
}

/* The run's samples a probe passes, kept, and its states at its end (its
 * last sample) when it got there. */
static int probe_sample(void *ctx, int64_t k, double t, const double *x) {
    probe_run *P = ctx;
    kept_probe *kp = P->keep;
    if (!kp) return 0;
    if (k <= kp->nreal) {
        memcpy(kp->sample[k - 1], x, (size_t)P->n * sizeof *x);
        if (kp->counts) memcpy(kp->activity_at[k - 1], kp->activity, (size_t)P->n * sizeof *x);
        kp->sample_t[k - 1] = t;
        kp->nsamples = (int)k;
    }
    if (k == P->count) {
        memcpy(kp->x, x, (size_t)P->n * sizeof *x);
        kp->t_end = t;
        kp->valid = 1;
    }
    return 0;
}

/* Room for keeping candidate c's probe from t to end, with the run's
 * samples in (t, end] (times[0 .. *count), then end if it is not one):
 * 0, or -1 when it is not kept (discrete variables, more than KEEP_SAMPLES
 * samples, out of memory; CVODE: a fresh CVODE started where its probe
 * ended, a dozen steps into the probe's own start, took 343 steps over
 * [2.56, 10] on adr2d 300 x 300 where one started at the probe's start, from
 * mLIQSS2's states at 2.40, took 270; a winning CVODE probe goes on as the
 * run instead: adopt). Local: probe agrees it. */
static int keep_room(auto_run *A, int c, double t, double end, double *times, int64_t *count) {
    const integrator_options *o = A->o;
    kept_probe *kp = &A->cand[c].kept;
    kp->valid = 0;
    if (!A->can_keep || c == CAND_BDF) return -1;
    int64_t k = sample_after(o, A->seg_first, t), real = sample_after(o, k, end) - k;
    if (real > KEEP_SAMPLES) return -1;
    kp->first_k = k;
    size_t n = (size_t)A->m->n, cols = (size_t)A->m->n_cols;
    if (!kp->x && !(kp->x = malloc((cols + 1) * sizeof *kp->x))) return -1;
    int counts = o->activity && integrator_has(A->cand[c].o.method, INTEGRATOR_QSS_ENGINE);
    for (int64_t j = 0; j < real; j++) {
        if (!kp->sample[j] && !(kp->sample[j] = malloc((n + 1) * sizeof(double)))) return -1;
        if (counts && !kp->activity_at[j] &&
            !(kp->activity_at[j] = malloc((n + 1) * sizeof(double))))
            return -1;
    }
    if (counts && !kp->activity && !(kp->activity = malloc((n + 1) * sizeof *kp->activity)))
        return -1;
    if (kp->activity) memset(kp->activity, 0, n * sizeof *kp->activity);
    kp->counts = counts;
    kp->t = t;
    kp->nreal = (int)real;
    kp->nsamples = 0;
    for (int64_t j = 0; j < real; j++)
        times[j] = sample_at(o, k + j);
    *count = real;
    if (real == 0 || times[real - 1] < end) times[(*count)++] = end;
    return 0;
}

static void keep_free(kept_probe *kp) {
    free(kp->x);
    for (int j = 0; j < KEEP_SAMPLES; j++)
        free(kp->sample[j]), free(kp->activity_at[j]);
    free(kp->activity);
}

/* What a probe of c measured over M (cost: its wall time; next_step:
 * CVODE's step where it ended, 0: none). */
static void weigh_probe(auto_run *A, int c, meter *M, double cost, double next_step) {
    record(A, c, M, cost);
    /* CVODE's steps were still growing when a short probe ended: at the
     * step it would take next its cost per unit of t comes to less */
    if (c == CAND_BDF && !M->lost && M->last_windows > 0 && next_step > 0.0)
        A->cand[c].rate = fmin(A->cand[c].rate, M->last_wall / M->last_windows / next_step);
}

static int adoptable(const auto_run *A, int c);
static int adopt_sample(void *ctx, int64_t k, double t, const double *x);
static int adoptable_setup(auto_run *A, double t, probe_run *P, integrator_options *o);
static int adopted_end(auto_run *A, probe_run *P, int rc, const char *err);

/* Probes candidate c from the states `from` at t, beside the run: its
 * samples and counts are dropped, the problem's discrete variables put
 * back, unless it goes on as the run (adopt). Returns 0, or the
 * integrator's failing code (err says why). */
static int probe(auto_run *A, int c, double t, const initial_values *from, char *err,
                 size_t errlen) {
    const qmol_problem *p = A->m->problem;
    if (p->n_discrete > 0) p->get_discrete(p->data, A->discrete);
    probe_run P = {.n = A->m->n};
    meter_start(&P.M, A->comm, 1, t, fmin(A->o->tf, t + PROBE_LONGEST * A->span), A->span);
    set_budget(A, c, t, &P.M);
    integrator_options o = A->cand[c].o;
    double end = P.M.t_b, times[KEEP_SAMPLES + 1];
    int64_t count = 0; /* (set below either way) */
    int keep = keep_room(A, c, t, end, times, &count) == 0;
    if (P.M.size > 1) MPI_Allreduce(MPI_IN_PLACE, &keep, 1, MPI_INT, MPI_MIN, A->comm);
    if (keep)
        P.keep = &A->cand[c].kept;
    else
        count = 1, times[0] = end;
    P.count = count;
    o.t0 = t, o.tf = end;
    o.samples = count, o.sample_times = times, o.first_sample = 1;
    o.start = from, o.resume = NULL;
    o.at_window_end = probe_window_end, o.window_ctx = &P;
    o.stop_requested = probe_over, o.stop_ctx = &P;
    o.on_discrete = NULL, o.progress = NULL, o.trace = NULL;
    o.activity = P.keep && P.keep->counts ? P.keep->activity : NULL;
    /* (CVODE finds its first step itself, in probes as in runs: started
     * with the step the last CVODE integration left, from other states, it
     * stayed at order 1 on that step with its error near the tolerance,
     * adr2d 300 x 300 at t = 2.3: 12 steps of 0.0095 where CVODE's own start
     * reached the steps of its runs, and its probes measured 0.67-0.94 s
     * per unit of t against 0.35-0.5 for its runs, mLIQSS2 then running at
     * 1.1-1.2; a run started with a probe's step lost accuracy,
     * heat2d-thermostat, tol 1e-3: e_rr 5.3e-2 against 7.6e-3) */
    double next_step = 0.0; /* (CVODE's, where the probe ended) */
    o.last_step = c == CAND_BDF ? &next_step : NULL;
    cap_windows(A, c, 0, &o);
    qmol_stats s;
    memset(&s, 0, sizeof s);
    if (integrator_has(o.method, INTEGRATOR_QSS_ENGINE))
        P.M.events = &s.events, P.M.warmup = WARMUP_EVENTS * (double)A->n_global;
    P.M.setup = &s.wall_setup;
    P.A = A, P.c = c, P.stats = &s;
    if (adoptable(A, c) && adoptable_setup(A, t, &P, &o) != 0) {
        snprintf(err, errlen, "out of memory planning auto's probes");
        return -1;
    }
    sample_fn to = P.adoptable ? adopt_sample : probe_sample;
    int rc = o.method->integrate(A->m, &o, to, &P, &s, err, errlen);
    free(P.times);
    if (P.adopted) return adopted_end(A, &P, rc, err);
    if (p->n_discrete > 0) p->set_discrete(p->data, A->discrete);
    double cost = meter_cost(&P.M);
    if (P.keep && P.M.lost) P.keep->valid = 0;
    if (P.keep) { /* its counters as a segment's, its wall times the running one's */
        segment_counts(o.method, &s, P.M.rank);
        P.keep->stats = s;
        for (size_t f = 0; f < stats_nfields; f++)
            if (stats_fields[f].is_double) *stats_wall(&P.keep->stats, f) = 0.0;
    }
    A->probes++, A->probe_wall += cost;
    candidate *k = &A->cand[c];
    k->probe_cost = cost, k->probe_t = t, k->probe_clock = run_clock(A);
    k->probe_against = A->in_segment ? A->cand[A->running].rate : 0.0;
    k->race_until = -INFINITY;
    if (P.M.lost && P.M.last_t > t) k->race_t = t, k->race_until = P.M.last_t, k->race_cost = cost;
    if (!A->in_segment) A->stats->wall_integrate += cost; /* (inside one: the segment's) */
    if (rc == INTEGRATOR_STOPPED && (P.M.ended || P.weighed)) rc = 0;
    if (rc) return rc;
    if (!P.weighed) {
        P.M.t_end = P.M.ended ? P.M.mark_t : end;
        weigh_probe(A, c, &P.M, cost, next_step);
    }
    trace(A, "probe", c, &P.M, cost, &s);
    return 0;
}

/* While CVODE runs: whether the QSS method is worth a probe again on the
 * activity's word: the activity (auto_activity.h) fell by SWITCH_MARGIN since
 * its last probe beside CVODE, its cost as then measured, scaled by that
 * fall, is below CVODE's by SWITCH_MARGIN, and the saving pays for the
 * probe (below; collective, as every choice). CVODE's cost does not fall
 * when activity dies out, so no alarm calls for that probe: on adr2d
 * 300 x 300 (tol 1e-3) LIQSS2, probed at t = 2.47 and 0.37 s per unit of
 * t against CVODE's 0.33, backed off to t = 6.88, where it cost 0.012
 * against CVODE's 0.46. A probe on this word measures again (and its loss
 * sets a new base: the activity must fall further before the next). */
static int activity_fell(const auto_run *A, int c, int current, double t) {
    const candidate *k = &A->cand[c];
    activity_watch *W = (activity_watch *)&A->activity; /* (its cache) */
    if (c != CAND_QSS || current != CAND_BDF || !(k->activity_base > 0.0) ||
        activity_time(W) <= k->probe_t)
        return 0;
    /* (the level this needs: the sum stops there). CVODE's cost at the
     * lower of now and when c was probed, and the activity itself fallen
     * by SWITCH_MARGIN: a stretch of CVODE's that a loaded machine made
     * dearer is not activity that fell (heat3d 20^3 on 2 ranks beside
     * other runs: CVODE's stretches measured 1-11 s per unit of t) */
    double cvode = estimate(A, current, t), qss = estimate(A, c, t);
    if (k->probe_against > 0.0) cvode = fmin(cvode, k->probe_against);
    double below = k->activity_base * fmin(cvode / qss, 1.0) / SWITCH_MARGIN;
    double level =
        activity_level(W, A->m, k->o.reltol, k->o.abstol, below, A->comm, A->o->halo != NULL);
    if (!(level < below)) return 0;
    /* ... and what that saves over the switch's horizon pays for the probe
     * ACTIVITY_PAYBACK times over, at its last cost (Gray-Scott on 2 ranks,
     * tol 1e-4: LIQSS2 due at t = 164 at 0.42 of the activity, predicted
     * 0.00028 s per unit of t against CVODE's 0.00036, 0.02 s saved over
     * the horizon for a probe of 0.0125 s; it won, ran 36 of t, and CVODE
     * took over again: 0.236 s against CVODE alone's 0.16) */
    double expected = qss * level / k->activity_base;
    double horizon = fmin(A->o->tf - t, SWITCH_HORIZON * A->span);
    return (cvode - expected) * horizon > ACTIVITY_PAYBACK * k->probe_cost;
}

/* The QSS method is probed beside CVODE at t: the activity then, the base of
 * activity_fell (0: not known). Collective. */
static void activity_base(auto_run *A, int c, int current, double t) {
    candidate *k = &A->cand[c];
    if (c != CAND_QSS || current != CAND_BDF) return;
    int fell = activity_fell(A, c, current, t); /* (collective) */
    if (tracing(A) && fell)
        fprintf(stderr, "auto: %-8s due at %.6g: activity %.4g, %.4g at its last probe\n",
                k->o.method->name, t, A->activity.level, k->activity_base);
    double level = activity_level(&A->activity, A->m, k->o.reltol, k->o.abstol, INFINITY, A->comm,
                                  A->o->halo != NULL);
    k->activity_base = level > 0.0 ? level : 0.0;
}

/* Whether c is due for a probe at t beside the running `current`: its
 * back-off is over (or the alarm sounded and c, as last measured, may be
 * cheaper than the run is now: within CUT_FACTOR of it), and the rest of
 * the run costs more than the probe may: one that costs more than it could
 * save is not made (tiny runs). (buck-heatsink: CVODE, measured 70 times
 * the mixed method's cost, was probed again at every alarm of the mixed
 * run's, for 0.15 s of a 2.5 s run each.) */
static int due_alone(const auto_run *A, int c, int current, double t, int alarm) {
    const candidate *k = &A->cand[c];
    int fell = activity_fell(A, c, current, t);
    alarm |= fell;
    if (c == current || (!alarm && t < k->retry_at) || t < k->hold_until || t < k->floor_until)
        return 0;
    int may_be_cheaper = estimate(A, c, t) <= CUT_FACTOR * estimate(A, current, t);
    /* c as last measured wins against the run as it is projected now, and
     * the run's cost rose by SWITCH_MARGIN since c's last probe: c's
     * back-off and the probes' share give way (adr2d 1000 x 1000: a CVODE
     * probe costs 1.1-1.4 s, the share allowed one per 20 s of LIQSS2's
     * run, whose cost grew from 4 to 21 s per unit of t while CVODE's fell
     * to 8-10; the alarm sounded at t = 0.7, or not at all) */
    double run = estimate(A, current, t);
    int expect_win =
        run > SWITCH_MARGIN * estimate(A, c, t) && !(run <= SWITCH_MARGIN * k->probe_against);
    alarm |= expect_win, may_be_cheaper |= expect_win | fell;
    if (alarm && t < k->retry_at && !may_be_cheaper) return 0;
    /* the run's time since c's last probe pays for the probe PROBE_SHARE of
     * it at most: the wall time it took, or at its cost now where that is
     * less; on an alarm, unless c may be cheaper than the run is now
     * (heat3d 40^3 under CVODE: an alarm at t = 0.073 probed mLIQSS2, which
     * had lost by 190x, for 0.025 s of a 0.3 s run). (At the cost now
     * alone, diurnal's CVODE, whose cost rose 6x by midday, probed both
     * others again for 0.006 s of a 0.03 s run.) */
    double since = fmin(estimate(A, current, t) * (t - k->probe_t), run_clock(A) - k->probe_clock);
    if (!(alarm && may_be_cheaper) && k->probe_cost > PROBE_SHARE * since) return 0;
    meter M = {.first_budget = INFINITY, .budget_rate = INFINITY};
    set_budget(A, c, t, &M);
    double most = M.first_budget + M.budget_rate * PROBE_LONGEST * A->span;
    return estimate(A, current, t) * (A->o->tf - t) > most;
}

/* Whether c is due at t (due_alone), but for the moving block where CVODE is
 * due too: CVODE is then probed alone, so that if it wins it goes on as the
 * run (adopt: it cannot where other probes are due), and the moving block
 * waits for a later look (adr1d-vardiff N = 4e4, LIQSS2 running away at
 * t = 3.98: both probed, the moving block lost after 0.75 s, and CVODE,
 * the winner, started again from the probe's start). */
static int worth_probing(const auto_run *A, int c, int current, double t, int alarm) {
    if (c == A->moving && due_alone(A, CAND_BDF, current, t, alarm)) return 0;
    return due_alone(A, c, current, t, alarm);
}

/* While CVODE runs (s): the least share of CVODE's cost the mixed split
 * can cost. Its BDF block keeps the states the split puts there, and their
 * share of CVODE's local error sets its steps as the whole error sets
 * CVODE's: with CVODE's error norm R times the block's part of it (the RMS
 * over its n_B states, or the largest), the block's steps grow at most
 * sqrt(R) (CVODE's step goes as the norm to -1/(q+1), q >= 1), and each
 * costs about its n_B / n share of CVODE's (a model: a smaller block's
 * linear solves may take fewer iterations): n_B / n / sqrt(R). 0: none
 * known (discontinuities: CVODE restarts at each, while the split keeps
 * the states they touch on QSS). Collective. */
static double mixed_share(auto_run *A, const integrator_state *s) {
    const model *m = A->m;
    int64_t n_bdf = A->cand[A->mixed].bdf_states;
    if (!s->local_errors || problem_has_discontinuities(m->problem) || n_bdf <= 0) return 0.0;
    double *we = A->x; /* (scratch: refilled with the states before any use) */
    s->local_errors(s->ictx, we);
    /* sums of squares (all, the block's) and largest (all, the block's) */
    double sum[2] = {0.0, 0.0}, most[2] = {0.0, 0.0};
    for (int32_t j = 0; j < m->n; j++) {
        int bdf = A->o->assignment[j] == ASSIGN_BDF;
        double e = we[j];
        sum[0] += e * e, most[0] = fmax(most[0], e);
        if (bdf) sum[1] += e * e, most[1] = fmax(most[1], e);
    }
    if (A->o->halo) {
        MPI_Allreduce(MPI_IN_PLACE, sum, 2, MPI_DOUBLE, MPI_SUM, A->comm);
        MPI_Allreduce(MPI_IN_PLACE, most, 2, MPI_DOUBLE, MPI_MAX, A->comm);
    }
    if (!(sum[0] > 0.0)) return 0.0; /* no error estimate yet */
    double share = (double)n_bdf / (double)A->n_global;
    /* (RMS: sqrt(S / n) over sqrt(S_B / n_B)) */
    double R =
        A->o->cvode_norm == CVODE_NORM_MAX ? most[0] / most[1] : sqrt(sum[0] * share / sum[1]);
    /* (x / 0, and inf / inf: the block has none of it; below 1: rounding) */
    if (!(R >= 1.0)) R = isnan(R) ? INFINITY : 1.0;
    return share / sqrt(R);
}

/* The mixed split is probed only where it can win: it costs at least
 * mixed_share of CVODE's cost, as CVODE runs now or, beside another method,
 * as last measured with the share found when CVODE last ran, unless the
 * split was measured since (a probe, a run). Not probed, alarm or not,
 * for HORIZON of the span (floor_until; its back-off stays). heat2d
 * 200 x 200: --assign auto puts the 4 corners on QSS; each probe of that
 * split beside CVODE, a CVODE start of 39,996 states, took 0.06 s of a
 * 0.4 s run and lost by 300x. adr1d N = 1e4: 9,999 states on BDF; beside
 * mLIQSS2 (0.05 s per unit of t, CVODE 1.8) its probe took 0.04-0.05 s of
 * a 0.35 s run and lost by 50x. Collective. */
static void mixed_floor(auto_run *A, const integrator_state *s, int current, double t, double now,
                        int alarm) {
    if (A->mixed < 0 || !worth_probing(A, A->mixed, current, t, alarm)) return;
    const candidate *mixed = &A->cand[A->mixed];
    if (current == CAND_BDF)
        A->mixed_share = mixed_share(A, s), A->mixed_share_t = t;
    else if (mixed->probe_t >= A->mixed_share_t || mixed->run_t >= A->mixed_share_t)
        return; /* measured since */
    double floor = A->mixed_share * (current == CAND_BDF ? now : estimate(A, CAND_BDF, t));
    if (!(A->mixed_share > 0.0) || floor * SWITCH_MARGIN < now) return;
    A->cand[A->mixed].floor_until = t + HORIZON * A->span;
    if (tracing(A))
        fprintf(stderr, "auto: mixed    not probed at %.6g: it costs at least %.4g\n", t, floor);
}

/* The moving block is probed only where it can win: the states its plan
 * would take now (moving_plan.h, at the run's states and slopes) hold the
 * activity whose error sets CVODE's steps, and its CVODE steps them at
 * least as often as CVODE alone steps the whole (its windows are capped
 * besides), so it costs at least their share of CVODE's cost, as CVODE runs
 * now or as last measured. Not probed, alarm or not, for HORIZON of the
 * span where that is above the run's cost now over SWITCH_MARGIN (its
 * back-off stays). heat2d 200 x 200, tol 1e-3: every state active, the
 * block all of them; its probe beside CVODE's start took 0.056 s of a 0.3 s
 * run, 2 steps, and lost by 700x. One rank, as the moving block. */
static void moving_floor(auto_run *A, const integrator_state *s, int current, double t, double now,
                         int alarm) {
    if (A->moving < 0 || !worth_probing(A, A->moving, current, t, alarm)) return;
    double bdf = current == CAND_BDF ? now : estimate(A, CAND_BDF, t);
    if (!(bdf > 0.0 && bdf < INFINITY)) return;
    candidate *moving = &A->cand[A->moving];
    s->states(s->ictx, t, A->x);
    int32_t size = moving_block_size(A->m, t, A->x, moving->o.reltol, moving->o.abstol, A->span,
                                     &A->stats->row_evals);
    double floor = (double)size / (double)A->m->n * bdf;
    if (size < 0 || !(floor * SWITCH_MARGIN >= now)) return;
    moving->floor_until = t + HORIZON * A->span;
    /* (its cost as last measured, when less, is gone: it would set the
     * budgets of the other probes, CVODE's lost beside LIQSS2 running away
     * on adr1d-vardiff N = 4e4 at t = 3.98, to a rate measured at t = 0) */
    moving->rate = fmax(moving->rate, floor);
    if (tracing(A))
        fprintf(stderr,
                "auto: moving   not probed at %.6g: its block would hold %d of %d states, it "
                "costs at least %.4g\n",
                t, (int)size, (int)A->m->n, floor);
}

/* On a problem with time events, CVODE is probed only where it can win:
 * it costs at least the running segment's time events per unit of t times
 * what each of its starts evaluates (auto_floor.h: f twice over every row,
 * and the Jacobian once when it has the problem's). Not probed, alarm or
 * not, for HORIZON of the span when that floor is above the run's cost now
 * over SWITCH_MARGIN (its back-off stays). Crossings are not counted: the
 * running method may find more of them than CVODE would. Collective. */
static void bdf_floor(auto_run *A, const integrator_state *s, int current, double t, double now,
                      int alarm) {
    const qmol_problem *p = A->m->problem;
    if (current == CAND_BDF || !A->seg_stats || !(t > A->seg_stats_t) || !p->next_time_event ||
        !worth_probing(A, CAND_BDF, current, t, alarm))
        return;
    if (!(A->start_wall > 0.0)) { /* (timed once, at the run's states now) */
        s->states(s->ictx, t, A->x);
        if (A->o->halo) halo_exchange(A->o->halo, A->x);
        int jac = A->cand[CAND_BDF].o.use_jacobian && p->jac;
        qmol_stats *st = A->stats; /* (its evaluations are the run's work) */
        double f = rows_wall(A->m, t, A->x, 0, &st->row_evals);
        A->start_wall = 2.0 * f + (jac ? rows_wall(A->m, t, A->x, 1, &st->jac_rows) : f);
        if (A->o->halo)
            MPI_Allreduce(MPI_IN_PLACE, &A->start_wall, 1, MPI_DOUBLE, MPI_MAX, A->comm);
    }
    double events = (double)A->seg_stats->time_events / (t - A->seg_stats_t);
    if (A->o->halo) MPI_Allreduce(MPI_IN_PLACE, &events, 1, MPI_DOUBLE, MPI_MAX, A->comm);
    double floor = events * A->start_wall;
    if (!(floor * SWITCH_MARGIN >= now)) return;
    A->cand[CAND_BDF].floor_until = t + HORIZON * A->span;
    if (tracing(A))
        fprintf(stderr, "auto: %-8s not probed at %.6g: it costs at least %.4g\n",
                A->cand[CAND_BDF].o.method->name, t, floor);
}

/* The run's cost now: its last stretch (on an alarm, the stretch so far);
 * CVODE's at the step it would take next, if less (its steps may still be
 * growing from its start). */
static double run_cost_now(const auto_run *A, const integrator_state *s) {
    double now = A->seg.last_rate;
    if (s->next_step > 0.0 && A->seg.last_windows > 0)
        now = fmin(now, A->seg.last_wall / A->seg.last_windows / s->next_step);
    return now;
}

/* At a window end of the run (t, its state s): probes the candidates due
 * (more on an alarm: worth_probing) from its states, and sets A->switch_to
 * when one should take over. Returns 0, or a probe's failing code. */
static int probe_due(auto_run *A, double t, const integrator_state *s, int alarm, char *err,
                     size_t errlen) {
    int current = A->running, due = 0;
    candidate *k = &A->cand[current];
    double rate = k->rate, run_rate = k->run_rate, run_t = k->run_t, now = run_cost_now(A, s);
    if (isnan(A->trend_t)) A->trend_t = t, A->trend_rate = now;
    k->run_rate = now, k->run_t = t;
    /* (weighed over the switch's horizon, as choose does) */
    k->rate = projected(A, now, t, fmin(A->o->tf - t, SWITCH_HORIZON * A->span));
    if (k->probed_run > 0.0) { /* first weighed since the probe it started on */
        k->bias = fmin(BIAS_MOST, fmax(1.0, now / k->probed_run));
        k->probed_run = 0.0;
    }
    mixed_floor(A, s, current, t, now, alarm);
    moving_floor(A, s, current, t, now, alarm);
    bdf_floor(A, s, current, t, now, alarm);
    for (int c = 0; c < A->ncand; c++)
        due |= worth_probing(A, c, current, t, alarm);
    if (!due) {
        k->rate = rate, k->run_rate = run_rate, k->run_t = run_t;
        /* (an alarm that found nothing to probe: the watch is the cost now,
         * or the run's stop requests would end every window from here on) */
        if (alarm) A->seg.watch_rate = fmax(A->seg.watch_rate, now);
        return 0;
    }
    meter_pause(&A->seg);
    /* the first probes beside the run's start (CVODE's, no sample passed
     * yet) start where it started: a winner kept goes on from its own end,
     * and the start is dropped, its error with it (adr1d-vardiff N = 1000,
     * tol 1e-4: CVODE's start to t = 0.026 left e_rr 2.9e-4 at t = 0.5,
     * where mLIQSS2 and the static split have 4e-5, and 6.9e-5 over the
     * run against the split's 2.9e-5) */
    A->from_start =
        A->seg_index == 0 && A->can_keep && A->seg.t_a == A->o->t0 && A->seg_delivered == 0;
    double t_from = A->from_start ? A->seg.t_a : t;
    initial_values from = {0};
    int rc = 0;
    if (!A->from_start) {
        s->states(s->ictx, t, A->x);
        if (A->o->halo) halo_exchange(A->o->halo, A->x);
        rc = initial_values_set(&from, A->gid, A->x, A->m->n_cols);
        if (rc) snprintf(err, errlen, "out of memory for auto's probes");
    }
    /* (a probe that may go on as the run is weighed inside its
     * integration: where it is the only one due, so that the choice is the
     * one weighed after all the look's probes) */
    A->lone_probe = 0;
    for (int c = 0; c < A->ncand; c++)
        A->lone_probe += worth_probing(A, c, current, t, alarm);
    A->lone_probe = A->lone_probe == 1;
    for (int c = 0; rc == 0 && !A->adopted && c < A->ncand; c++) {
        if (!worth_probing(A, c, current, t, alarm)) continue;
        activity_base(A, c, current, t);
        rc = probe(A, c, t_from, A->from_start ? &A->start : &from, err, errlen);
    }
    initial_values_free(&from);
    if (rc || A->adopted) return rc;
    int best = choose(A, current, t);
    if (best != current) A->switch_to = best;
    if (tracing(A)) {
        fprintf(stderr, "auto: weigh    at %.6g%s: %s now %.4g, projected %.4g;", t,
                alarm ? " (alarm)" : "", A->cand[current].o.method->name, now, k->rate);
        for (int c = 0; c < A->ncand; c++)
            if (c != current)
                fprintf(stderr, " %s %.4g (start-up %.3g s)", A->cand[c].o.method->name,
                        estimate(A, c, t), A->cand[c].startup);
        fprintf(stderr, " -> %s\n", A->cand[best].o.method->name);
    }
    set_watch(A, t);
    meter_resume(&A->seg);
    double cost = meter_cost(&A->seg);
    /* (a race from the start: the run's cost since its start) */
    for (int c = 0; c < A->ncand; c++)
        if (A->cand[c].race_t == t_from) A->cand[c].race_from = A->from_start ? 0.0 : cost;
    return 0;
}

/* ---- races ---------------------------------------------------------------- */

/* A probe that lost is raced by the run over the span it covered: if the
 * run, from the same states, spends SWITCH_MARGIN times what the probe
 * spent there before it gets as far, the probe's candidate was the cheaper
 * one, its start-up included, and takes over. A probe loses against the
 * run's cost as last measured; where that cost climbs by decades within a
 * stretch (adr1d-vardiff N = 1e4 under mLIQSS2 as the front reaches the
 * diffusive half at t = 3.29: 26, 290 then 1,100 s per unit of t over
 * 0.0005, 0.0022 and 0.0063 of t) the measurement lags and every probe
 * loses on its start while the run burns. The race bounds that burn by
 * what the probe cost, measured on the run, not predicted.
 * Whether c's race is on. */
static int race_on(const auto_run *A, int c) {
    return c != A->running && A->cand[c].race_until > A->cand[c].race_t;
}

/* Whether the run, at its meter's cost `cost`, outspent c's probe. */
static int race_beaten(const auto_run *A, int c, double cost) {
    const candidate *k = &A->cand[c];
    return cost - k->race_from > SWITCH_MARGIN * k->race_cost;
}

/* The candidate whose race the run lost at t with its meter's cost
 * `cost`, the cheapest probe of those (-1: none); races the run won or
 * that it passed end. */
static int race_lost(auto_run *A, double t, double cost) {
    int won = -1;
    for (int c = 0; c < A->ncand; c++) {
        if (!race_on(A, c)) continue;
        if (t > A->cand[c].race_until) {
            A->cand[c].race_until = -INFINITY;
            continue;
        }
        if (race_beaten(A, c, cost) && (won < 0 || A->cand[c].race_cost < A->cand[won].race_cost))
            won = c;
    }
    return won;
}

static int racing(const auto_run *A) {
    for (int c = 0; c < A->ncand; c++)
        if (race_on(A, c)) return 1;
    return 0;
}

/* Between window ends, the events at t: whether the run already lost a
 * race it is still in, so that its window ends now. Local. */
static int race_over(const auto_run *A, double t) {
    if (!racing(A)) return 0;
    double cost = meter_cost_local(&A->seg);
    for (int c = 0; c < A->ncand; c++)
        if (race_on(A, c) && t <= A->cand[c].race_until && race_beaten(A, c, cost)) return 1;
    return 0;
}

/* At a window end (t) of the run: whether it lost a race, and then the
 * switch to the winner (collective: the costs are agreed). */
static int race_switch(auto_run *A, double t) {
    if (!racing(A)) return 0;
    double cost = meter_cost(&A->seg);
    int c = race_lost(A, t, cost);
    if (c < 0) return 0;
    candidate *run = &A->cand[A->running], *won = &A->cand[c];
    if (t > won->race_t) { /* what the run cost since, for the estimates */
        run->rate = run->run_rate = (cost - won->race_from) / (t - won->race_t);
        run->run_t = t;
    }
    won->retry_gap = 0.0;
    A->switch_to = c;
    A->races++;
    if (tracing(A))
        fprintf(stderr,
                "auto: %-8s race  [%.6g, %.6g] at %.6g: the run spent %.4g, the probe %.4g\n",
                won->o.method->name, won->race_t, won->race_until, t, cost - won->race_from,
                won->race_cost);
    return 1;
}

/* The states a segment of method moved to BDF and back (s: its counts),
 * in the log's last segment of it (the moving block's). */
static void log_moves(auto_run *A, const integrator_def *method, const qmol_stats *s) {
    if (A->log && (s->to_bdf || s->to_qss)) method_log_moves(A->log, method, s->to_bdf, s->to_qss);
}

/* ---- segments ------------------------------------------------------------- */

/* The run's samples in (t_a, t_b], then t_b itself when it is not one. */
static int plan_samples(auto_run *A, int64_t next_k, double t_b) {
    const integrator_options *o = A->o;
    int64_t count = sample_after(o, next_k, t_b) - next_k;
    double *t = realloc(A->seg_times, (size_t)(count + 1) * sizeof *t);
    if (!t) return -1;
    A->seg_times = t;
    for (int64_t j = 0; j < count; j++)
        t[j] = sample_at(o, next_k + j);
    A->seg_first = next_k;
    A->seg_real = count;
    if (count == 0 || t[count - 1] < t_b) t[count] = t_b;
    return 0;
}

static int64_t seg_samples(const auto_run *A) {
    return A->seg_real + (A->seg_real == 0 || A->seg_times[A->seg_real - 1] < A->seg.t_b);
}

/* The owned states at t become the next segment's start. */
static int keep_end(auto_run *A, double t, const double *owned) {
    const model *m = A->m;
    if (owned != A->x) memcpy(A->x, owned, (size_t)m->n * sizeof *A->x);
    if (A->o->halo) halo_exchange(A->o->halo, A->x);
    A->t_end = t;
    initial_values_free(&A->start);
    return initial_values_set(&A->start, A->gid, A->x, m->n_cols);
}

static int segment_sample(void *ctx, int64_t k, double t, const double *x) {
    auto_run *A = ctx;
    if (k <= A->seg_real) {
        A->seg_delivered++;
        int rc = A->sample(A->sample_ctx, A->seg_first + k - 1, t, x);
        if (rc) return rc;
    }
    if (k == seg_samples(A)) return keep_end(A, t, x) ? -1 : 0;
    return 0;
}

/* A probe from t won (A->switch_to): where its integration was kept and
 * passed every sample of the run up to where it settled, the run goes on
 * from there, with the probe's samples and counts, instead of starting the
 * winner again at t and integrating the probe's span twice (the mixed
 * method's probe as adr1d-vardiff's front enters its BDF block: about 0.2
 * s of a 0.7 s run).
 * Returns 1 when it did, 0 when the winner starts at t, -1 when a sample
 * or the states could not be passed on (collective: the verdicts are
 * agreed). */
static int go_on_from_probe(auto_run *A, double t) {
    const integrator_options *o = A->o;
    kept_probe *kp = &A->cand[A->switch_to].kept;
    if (!kp->valid || kp->t != t) return 0;
    int passed = (int)(sample_after(o, kp->first_k, kp->t_end) - kp->first_k);
    if (passed != kp->nsamples) return 0; /* a sample at its end not yet passed */
    /* each sample after the events up to it (a sample's events per state
     * are the change since the one before), then the rest */
    int32_t n = A->m->n;
    int failed = 0;
    for (int j = 0; j <= passed; j++) {
        const double *now = j < passed ? kp->activity_at[j] : kp->activity;
        for (int32_t i = 0; kp->counts && o->activity && i < n; i++)
            o->activity[i] += now[i] - (j > 0 ? kp->activity_at[j - 1][i] : 0.0);
        if (j < passed && !failed)
            failed = A->sample(A->sample_ctx, kp->first_k + j, kp->sample_t[j], kp->sample[j]);
    }
    stats_add(A->stats, &kp->stats);
    log_moves(A, A->cand[A->switch_to].o.method, &kp->stats);
    kp->valid = 0;
    /* (a rank whose sample failed must not leave the others waiting) */
    if (A->seg.size > 1) MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, A->comm);
    if (failed) return -1;
    if (tracing(A))
        fprintf(stderr, "auto: %-8s kept  [%.6g, %.6g], %d samples\n",
                A->cand[A->switch_to].o.method->name, t, kp->t_end, passed);
    return keep_end(A, kp->t_end, kp->x) ? -1 : 1;
}

/* The QSS run's events per state (the run's counters when it keeps them). */
static double *qss_events(const auto_run *A) {
    return A->o->activity ? A->o->activity : A->events;
}

/* At a window end (t) of the QSS run: whether activity will reach the mixed
 * candidate's BDF states within LEAD, and then the switch to it
 * (collective: the looks are agreed). */
static int hand_over_ahead(auto_run *A, double t) {
    if (!A->fs_on || A->running != CAND_QSS) return 0;
    double lead = LEAD * A->span;
    if (!foresight_look(&A->fs, A->comm, qss_events(A), A->m->n, t, A->span, lead)) return 0;
    A->switch_to = A->mixed;
    A->ahead++;
    /* (the QSS method's cost as measured is that before activity arrives:
     * forgotten, and not probed again, even on the watch's alarm, until
     * activity has; only a probe made after that brings it back) */
    candidate *qss = &A->cand[CAND_QSS];
    qss->hold_until = t + 2.0 * lead;
    qss->rate = INFINITY, qss->run_rate = 0.0;
    A->cand[A->mixed].retry_gap = 0.0;
    if (tracing(A))
        fprintf(stderr, "auto: %-8s ahead at %.6g: activity %d hops from its BDF states\n",
                A->cand[A->mixed].o.method->name, t, (int)A->fs.near);
    return 1;
}

/* The checkpointer sees the states only (save NULL): a restart starts a
 * segment there. */
static void inner_states(void *ictx, double t, double *x) {
    auto_run *A = ictx;
    A->inner->states(A->inner->ictx, t, x);
}

static void inner_stats(void *ictx, qmol_stats *s) {
    auto_run *A = ictx;
    if (A->inner->stats) A->inner->stats(A->inner->ictx, s);
}

/* While CVODE runs, every LOOK_EVERY of the span: its states, for the QSS
 * method's events on them (auto_activity.h). */
static void look_at_activity(auto_run *A, double t, const integrator_state *s) {
    activity_watch *W = &A->activity;
    if (A->running != CAND_BDF || !W->x[0]) return;
    if (W->looks > 0 && t - W->t[W->looks - 1] < LOOK_EVERY * A->span) return;
    s->states(s->ictx, t, A->x);
    activity_look(W, t, A->x);
}

/* Measures the run and probes the others when due (more of them when the
 * watch raised the alarm); ends the segment where a probe won. */
static int segment_window_end(void *ctx, double t, const integrator_state *s) {
    auto_run *A = ctx;
    const integrator_options *o = A->o;
    int alarm = meter_window_end(&A->seg, t);
    /* the checkpointer at every window end, as under the method alone: its
     * checkpoints due by simulated time, its polls of signals and wall time
     * and its budget for keeping the last window go by window ends (at the
     * stretches' ends only, a CVODE run of 4 steps never reached one and
     * skipped --checkpoint-every t=...); its time is not the method's
     * (a checkpoint written, the last window kept). The last window is kept
     * at the stretches' ends only: at every one of auto's short windows the
     * records took their whole free share (adr1d N = 1000, tol 1e-3: 0.07 s
     * against 0.027 without them). */
    if (o->at_window_end) {
        A->inner = (integrator_state *)s;
        integrator_state mine = {inner_states, NULL, inner_stats,         A,
                                 s->failed,    0.0,  A->seg.windows != 0, NULL};
        double w0 = wallclock_seconds();
        int rc = o->at_window_end(o->window_ctx, t, &mine);
        meter_away(&A->seg, wallclock_seconds() - w0);
        if (rc) return rc;
    }
    if (!A->can_probe || meter_any_failed(&A->seg, s->failed)) return 0;
    look_at_activity(A, t, s);
    A->from_start = 0; /* (set by this window end's probes) */
    /* (its first stretch is its start-up: the others wait until its cost
     * settled, or an alarm, which in the first two stretches only a cost
     * far over the watch and the start raises: meter.first_allowance) */
    if (!hand_over_ahead(A, t) && !race_switch(A, t)) {
        if (!alarm && (A->seg.stretches < 2 || !A->seg.settled)) return 0;
        char err[512];
        if (probe_due(A, t, s, alarm, err, sizeof err)) return -1;
        if (A->adopted) return INTEGRATOR_STOPPED; /* (a probe went on as the run to its end) */
        if (A->switch_to < 0) return 0;
    }
    /* (a probe from the run's start that won and is kept: the start is
     * dropped) */
    double from = A->switch_to >= 0 && A->from_start ? A->seg.t_a : t;
    A->switch_t = from;
    int kept = go_on_from_probe(A, from);
    if (kept < 0) return -1;
    if (kept) {
        if (from < t)
            A->dropped = 1, A->dropped_to = t;
        else
            A->kept_probes++;
        return INTEGRATOR_STOPPED;
    }
    A->switch_t = t;
    s->states(s->ictx, t, A->x);
    if (keep_end(A, t, A->x)) return -1;
    return INTEGRATOR_STOPPED;
}

/* The run's own stop request (a signal; one rank: on several the
 * checkpointer looks at window ends, and a stop here would take windows
 * back until it does), or the watch's alarm due, or a race lost. */
static int segment_over(void *ctx, double t) {
    auto_run *A = ctx;
    if (!A->o->halo && A->o->stop_requested && A->o->stop_requested(A->o->stop_ctx, t)) return 1;
    return A->can_probe && (meter_over(&A->seg, t) || race_over(A, t));
}

/* The segment that ran (A->running, its meter A->seg) ended at
 * A->switch_t, where the run goes on with c. Its start was a trial of its
 * method, as a probe is: it counts as one for PROBE_SHARE (adr1d-vardiff
 * N = 1e4: CVODE, run first and 50 times dearer than mLIQSS2, was probed
 * again at t = 2.5 for 0.037 s of a 0.39 s run, and lost). The switch goes
 * into the log. */
static void segment_ended(auto_run *A, int c) {
    candidate *ran = &A->cand[A->running];
    if (A->seg.stretches > 0)
        ran->probe_cost = A->seg.setup_cost + A->seg.first_cost, ran->probe_t = A->switch_t,
        ran->probe_clock = A->runs_wall;
    if (A->log) method_log_add(A->log, A->switch_t, A->cand[c].o.method, A->cand[c].bdf_states);
}

/* ---- a CVODE probe that goes on as the run ------------------------------- */

/* The bookkeeping of a segment of c from t: its meter (started, or a probe's
 * that goes on as the run: from), its watch and its start's allowance. */
static void begin_segment(auto_run *A, int c, double t, const meter *from) {
    meter *M = &A->seg;
    A->running = c;
    A->switch_to = -1;
    A->seg_delivered = 0;
    A->trend_t = NAN;
    activity_restart(&A->activity);
    /* (a switch on its probe's word: made where the switch is) */
    candidate *run = &A->cand[c];
    run->activity_base = 0.0; /* (its cost will be the run's: the base is gone) */
    run->probed_run = run->probed > 0.0 && run->probed_t == A->switch_t ? run->probed : 0.0;
    for (int k = 0; k < A->ncand; k++)
        A->cand[k].race_until = -INFINITY;
    A->t_end = A->o->tf;
    if (from) { /* its stretches so far are the run's */
        *M = *from;
        M->probe = 0, M->lost = M->ended = 0, M->events = NULL;
        M->t_b = M->t_end = A->o->tf;
    } else {
        meter_start(M, A->comm, 0, t, A->o->tf, A->span);
    }
    set_watch(A, t);
    /* the run's start may cost what its last probe's did, FIRST_FACTOR
     * times, before the alarm can sound in its first stretch. Without that
     * a run that went wrong at once went on unwatched until its first
     * stretch ended: adr1d-vardiff N = 1e4 on 2 ranks at tol 1e-3, LIQSS2
     * taken over from the split at t = 3.9 on a probe of 0.033 s per unit
     * of t, ran away as the front met the diffusive half, windows of 1e-7:
     * 22 M events in 37 s for t = 4.023 .. 4.028 */
    if (!from && run->first_cost > 0.0) M->first_allowance = FIRST_FACTOR * run->first_cost;
}

/* A CVODE probe that wins goes on as the run from where it got, with its
 * history, instead of a new CVODE started at the probe's start: that one
 * integrates the probe's span twice and climbs its orders again (adr2d
 * 300 x 300, CVODE from t = 2.4: 260-270 steps where going on takes 215).
 * Where it can: beside a run of another method, not inside a run that went
 * on so, without discrete variables (nothing of the problem to put back),
 * and as the look's only probe (where others are due, each probe's budget
 * rests on those made before it, CVODE's first: adr1d-vardiff N = 1e4 on
 * 2 ranks, the mixed split probed before CVODE at t = 4.02 ran its whole
 * span, 0.165 s, where after CVODE's it lost in 0.012 s). Its integration
 * then holds the run's samples up to where it is weighed, and goes on to
 * tf, inside the running segment's window end. */
static int adoptable(const auto_run *A, int c) {
    return c == CAND_BDF && A->in_segment && A->can_keep && !A->adopting && !A->from_start &&
           A->running != CAND_BDF && A->lone_probe;
}

static int adopt_sample(void *ctx, int64_t k, double t, const double *x) {
    probe_run *P = ctx;
    if (P->adopted) return segment_sample(P->A, k, t, x);
    kept_probe *kp = P->hold;
    size_t bytes = ((size_t)P->n + 1) * sizeof *x;
    if (k > KEEP_SAMPLES || (!kp->sample[k - 1] && !(kp->sample[k - 1] = malloc(bytes)))) {
        P->overflow = 1; /* (it cannot go on as the run) */
        return 0;
    }
    memcpy(kp->sample[k - 1], x, (size_t)P->n * sizeof *x);
    kp->sample_t[k - 1] = t;
    P->held = (int)k;
    return 0;
}

static int adopt_over(void *ctx, double t) {
    probe_run *P = ctx;
    return P->adopted ? segment_over(P->A, t) : probe_over(ctx, t);
}

/* The probe (P, weighed at t, its state s) won: the run goes on with it.
 * The segment it was probed from ends where the probe started. Returns 0,
 * or -1 when a held sample could not be passed on (collective). */
static int adopt(auto_run *A, probe_run *P, double t, const integrator_state *s) {
    double t_w = P->M.t_a;
    meter *seg = &A->seg; /* (paused for the probe) */
    double outer_cost = seg->paused_at - seg->wall_a - seg->excluded;
    A->runs_wall += outer_cost;
    A->seg_index++;
    A->switch_t = t_w;
    segment_ended(A, P->c);
    A->probes++, A->kept_probes++;
    if (tracing(A)) {
        fprintf(stderr, "auto: %-8s run   [%.6g, %.6g] -> %.6g  wall %.4g\n",
                A->cand[A->running].o.method->name, seg->t_a, A->o->tf, t_w, outer_cost);
        fprintf(stderr, "auto: %-8s goes on as the run from %.6g (weighed at %.6g), %d samples\n",
                A->cand[P->c].o.method->name, t_w, t, P->held);
    }
    A->outer_times = A->seg_times;
    A->seg_times = P->times, P->times = NULL;
    A->seg_first = P->first, A->seg_real = P->real;
    begin_segment(A, P->c, t_w, &P->M);
    A->seg.setup = &P->stats->wall_setup;
    if (A->o->progress) progress_switch(A->o->progress, "steps");
    A->inner = (integrator_state *)s;
    A->adopting = 1, P->adopted = 1;
    int failed = 0;
    for (int j = 0; j < P->held && !failed; j++)
        failed = segment_sample(A, j + 1, P->hold->sample_t[j], P->hold->sample[j]) != 0;
    if (A->seg.size > 1) MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, A->comm);
    return failed ? -1 : 0;
}

/* The probe's window ends: weighed where its measurement ends (settled, or
 * at the end of its span), and the run goes on with it if it wins. */
static int adopt_window_end(void *ctx, double t, const integrator_state *s) {
    probe_run *P = ctx;
    auto_run *A = P->A;
    if (P->adopted) return segment_window_end(A, t, s);
    int ends = meter_window_end(&P->M, t);
    if (meter_any_failed(&P->M, s->failed) || (!ends && t < P->M.t_b)) return 0;
    if (P->M.lost) return INTEGRATOR_STOPPED; /* (weighed as any probe that lost) */
    P->M.t_end = P->M.ended ? P->M.mark_t : t;
    weigh_probe(A, P->c, &P->M, meter_cost(&P->M), s->next_step);
    P->weighed = 1;
    int overflow = P->overflow;
    if (P->M.size > 1) MPI_Allreduce(MPI_IN_PLACE, &overflow, 1, MPI_INT, MPI_MAX, A->comm);
    if (overflow || choose(A, A->running, P->M.t_a) != P->c) return INTEGRATOR_STOPPED;
    return adopt(A, P, t, s);
}

/* A probe of c from t that may go on as the run: to tf, with the run's
 * samples after t (o, P). Returns 0, or -1 when out of memory (agreed). */
static int adoptable_setup(auto_run *A, double t, probe_run *P, integrator_options *o) {
    double *times = A->seg_times;
    int64_t first = A->seg_first, real = A->seg_real;
    A->seg_times = NULL;
    int failed = plan_samples(A, sample_after(A->o, first, t), A->o->tf) != 0;
    P->times = A->seg_times, P->first = A->seg_first, P->real = A->seg_real;
    A->seg_times = times, A->seg_first = first, A->seg_real = real;
    if (A->o->halo) MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, A->comm);
    if (failed) return -1;
    P->adoptable = 1;
    P->hold = &A->cand[P->c].kept;
    o->tf = A->o->tf;
    o->samples = P->real + (P->real == 0 || P->times[P->real - 1] < A->o->tf);
    o->sample_times = P->times;
    o->at_window_end = adopt_window_end;
    o->stop_requested = adopt_over;
    return 0;
}

/* The run that went on from probe P ended (rc: its integration's code, err
 * its message): counted as a segment. The segment it was probed from ends
 * at once (A->adopted), and returns rc (A->adopted_rc: a stop for a
 * signal, a failure and why) once it has. Returns 0. */
static int adopted_end(auto_run *A, probe_run *P, int rc, const char *err) {
    A->adopting = 0, A->adopted = 1;
    double cost = meter_cost(&A->seg);
    A->runs_wall += cost;
    A->seg_index++;
    qmol_stats *s = P->stats;
    segment_counts(A->cand[P->c].o.method, s, A->seg.rank);
    A->adopted_output = s->wall_output;
    qmol_stats counts = *s; /* (its wall times are the segment's it ran in) */
    for (size_t f = 0; f < stats_nfields; f++)
        if (stats_fields[f].is_double) *stats_wall(&counts, f) = 0.0;
    stats_add(A->stats, &counts);
    if (rc == INTEGRATOR_STOPPED && A->switch_to >= 0) rc = 0;
    A->adopted_rc = rc;
    if (rc && rc != INTEGRATOR_STOPPED) snprintf(A->fail, sizeof A->fail, "%s", err);
    A->seg.t_end = A->switch_to >= 0 ? A->switch_t : A->t_end;
    if (!rc) trace(A, "run", P->c, &A->seg, cost, s);
    return 0;
}

/* The segment (method, its integration's code rc and counts s) in whose
 * window end a probe went on as the run, which has ended: its counts, and
 * the run's next sample. */
static int adopted_outer(auto_run *A, const integrator_def *method, int rc, qmol_stats *s,
                         int64_t *next_k, qmol_stats *total, char *err, size_t errlen) {
    A->adopted = 0;
    free(A->outer_times);
    A->outer_times = NULL;
    segment_counts(method, s, A->seg.rank);
    /* (the samples the run that went on wrote: output, not integration) */
    s->wall_integrate -= A->adopted_output, s->wall_output += A->adopted_output;
    stats_add(total, s);
    log_moves(A, method, s);
    if (rc != INTEGRATOR_STOPPED && rc != 0) return rc; /* (its own failure) */
    if (A->adopted_rc) {
        if (A->adopted_rc != INTEGRATOR_STOPPED) snprintf(err, errlen, "%s", A->fail);
        return A->adopted_rc;
    }
    *next_k = sample_after(A->o, *next_k, A->t_end);
    return 0;
}

/* Runs candidate c from t until tf, or until a probe wins (A->switch_to),
 * delivering the samples from *next_k on. Returns 0 (A->t_end: where it
 * ended) or the integrator's failing code. */
static int run_segment(auto_run *A, int c, double t, int64_t *next_k, qmol_stats *total, char *err,
                       size_t errlen) {
    double t_b = A->o->tf;
    if (plan_samples(A, *next_k, t_b)) {
        snprintf(err, errlen, "out of memory planning auto's segments");
        return -1;
    }
    meter *M = &A->seg;
    begin_segment(A, c, t, NULL);
    qmol_stats s;
    memset(&s, 0, sizeof s);
    M->setup = &s.wall_setup;
    integrator_options o = A->cand[c].o;
    o.t0 = t, o.tf = t_b;
    o.samples = seg_samples(A);
    o.sample_times = A->seg_times;
    o.first_sample = 1;
    o.start = &A->start;
    o.resume = NULL;
    o.at_window_end = A->can_probe || o.at_window_end ? segment_window_end : NULL;
    o.window_ctx = A;
    o.stop_requested = segment_over, o.stop_ctx = A;
    o.stop_mid_window = 1;
    o.methods = NULL;
    if (o.progress)
        progress_switch(o.progress,
                        integrator_has(o.method, INTEGRATOR_QSS_ENGINE) ? "events" : "steps");
    if (A->can_probe) cap_windows(A, c, 1, &o);
    if (c == CAND_QSS && A->fs_on) {
        o.activity = qss_events(A);
        foresight_start(&A->fs, o.activity, A->m->n);
    }
    A->in_segment = 1;
    A->seg_stats = &s, A->seg_stats_t = t;
    int rc = o.method->integrate(A->m, &o, segment_sample, A, &s, err, errlen);
    A->seg_stats = NULL;
    A->in_segment = 0;
    if (A->adopted) return adopted_outer(A, o.method, rc, &s, next_k, total, err, errlen);
    double cost = meter_cost(M);
    A->runs_wall += cost;
    A->seg_index++;
    segment_counts(o.method, &s, M->rank);
    stats_add(total, &s);
    log_moves(A, o.method, &s);
    if (rc == INTEGRATOR_STOPPED && A->switch_to >= 0) rc = 0;
    if (rc) return rc;
    *next_k = sample_after(A->o, *next_k, A->t_end);
    M->t_end = A->switch_to >= 0 ? A->switch_t : A->t_end;
    trace(A, "run", c, M, cost, &s);
    return 0;
}

/* CVODE runs first (its cost per stretch is bounded whatever the problem:
 * a step's, and a few dozen steps to start; QSS on a stiff grid can cost a
 * hundred times more), except on a problem with discontinuities that the
 * assignment splits: there CVODE restarts at every discontinuity, while the
 * mixed method keeps the states they touch on QSS (buck-heatsink's
 * switching circuit: 0.30 s for CVODE's first 1/1024 of the span, 0.003 s
 * for the mixed method's), so the mixed method runs first. Without
 * discontinuities a mixed start cost more than CVODE's (heat2d 200 x 200,
 * 4 of 40,000 states on QSS: 0.84-1.0 s against 0.53-0.85; diurnal 0.054-
 * 0.063 against 0.033-0.044). The others are probed beside it once it has
 * run two stretches; then the chosen method runs until a probe says
 * otherwise. A problem whose discrete variables cannot be saved cannot be
 * probed: CVODE runs it all. */
static int run_segments(auto_run *A, qmol_stats *stats, char *err, size_t errlen) {
    const integrator_options *o = A->o;
    int64_t next_k = o->first_sample > 0 ? o->first_sample : 1;
    double t = o->t0;
    int current = A->mixed >= 0 && A->can_probe && problem_has_discontinuities(A->m->problem)
                      ? A->mixed
                      : CAND_BDF;
    if (A->log) {
        A->log->no_probes = !A->can_probe;
        A->log->n = A->n_global;
        method_log_add(A->log, t, A->cand[current].o.method, A->cand[current].bdf_states);
    }
    for (;;) {
        int rc = run_segment(A, current, t, &next_k, stats, err, errlen);
        if (rc) return rc;
        t = A->t_end;
        /* (a switch at tf starts nothing; a kept probe may have run to tf) */
        if (A->switch_to < 0 || A->switch_t >= o->tf) break;
        current = A->switch_to;
        segment_ended(A, current);
        if (t >= o->tf) break;
    }
    return 0;
}

/* Whether --method moving is a candidate: on one rank, on a problem
 * without discontinuities (what it runs). */
static int moving_applies(const auto_run *A) {
    return !A->o->halo && !problem_has_discontinuities(A->m->problem);
}

/* The candidates' options: CVODE with the solver --linsol auto stands for,
 * the QSS method, and the mixed method when the assignment splits. */
static void set_candidates(auto_run *A) {
    const integrator_options *o = A->o;
    candidate *bdf = &A->cand[CAND_BDF], *qss = &A->cand[CAND_QSS];
    bdf->o = *o;
    bdf->o.method = integrator_by_name(o->method->bdf_alone);
    if (bdf->o.linsol == LINSOL_AUTO) bdf->o.linsol = cvode_choose_linsol(A->m, o->halo);
    if (bdf->o.linsol == LINSOL_SPGMR) bdf->o.precond = precond_resolve(bdf->o.precond);
    bdf->o.assignment = NULL;
    int rank = 0;
    if (o->halo) MPI_Comm_rank(o->halo->comm, &rank);
    /* CVODE handles every discontinuity on every rank: rank 0 logs them */
    if (rank > 0) bdf->o.on_discrete = NULL;
    qss->o = *o;
    qss->o.method = o->qss_method;
    qss->o.assignment = NULL;
    A->ncand = 2;
    A->mixed = A->moving = -1;
    if (o->assignment) {
        candidate *mixed = &A->cand[A->mixed = A->ncand++];
        mixed->o = *o;
        mixed->o.method = integrator_by_name("mixed");
    }
    if (moving_applies(A)) {
        candidate *moving = &A->cand[A->moving = A->ncand++];
        moving->o = *o;
        moving->o.method = integrator_by_name("moving");
        moving->o.assignment = NULL;
        moving->o.rhythm_span = A->span;
    }
    for (int c = 0; c < NCAND; c++) {
        A->cand[c].rate = INFINITY, A->cand[c].retry_at = A->cand[c].hold_until = -INFINITY;
        A->cand[c].floor_until = A->cand[c].probe_t = A->cand[c].run_t = -INFINITY;
        A->cand[c].probe_clock = -INFINITY;
        A->cand[c].bias = 1.0;
        /* On several ranks a QSS window that cannot follow at its shortest
         * stops the run (qss_window.c: its result would be wrong), and the
         * default shortest is 1e-6 of the integration's span, a probe's or
         * a segment's. Under auto a method that needs shorter windows is
         * slow, not wrong: the watch measures it and another method takes
         * over (adr1d-vardiff N = 1e4 on 2 ranks, where the front reaches
         * the ranks' boundary at t = 3.29, stopped there under mLIQSS2; it
         * finishes with windows down to 1e-8 of the span). --window-min
         * still holds when given. */
        if (o->halo && !(o->window_min > 0.0)) A->cand[c].o.window_min = AUTO_WINDOW_MIN * A->span;
    }
}

/* The states on BDF of each candidate, for the log (collective). */
static void count_bdf(auto_run *A) {
    A->cand[CAND_BDF].bdf_states = A->n_global;
    int64_t b = 0;
    for (int32_t j = 0; A->o->assignment && j < A->m->n; j++)
        b += A->o->assignment[j] == ASSIGN_BDF;
    if (A->o->halo) MPI_Allreduce(MPI_IN_PLACE, &b, 1, MPI_INT64_T, MPI_SUM, A->comm);
    if (A->mixed >= 0) A->cand[A->mixed].bdf_states = b;
    if (A->moving >= 0) A->cand[A->moving].bdf_states = -1; /* (they move: the log's -1) */
}

/* The states where the run starts, by global id, and room for the
 * discrete variables. Returns 0 or -1 (out of memory, agreed: collective). */
static int set_start(auto_run *A) {
    const model *m = A->m;
    const qmol_problem *p = m->problem;
    A->x = malloc(((size_t)m->n_cols + 1) * sizeof *A->x);
    A->gid = malloc(((size_t)m->n_cols + 1) * sizeof *A->gid);
    A->discrete = malloc(((size_t)p->n_discrete + 1) * sizeof *A->discrete);
    int failed = !A->x || !A->gid || !A->discrete;
    if (A->o->halo) MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, A->comm);
    if (failed) return -1;
    for (int32_t j = 0; j < m->n_cols; j++) {
        A->gid[j] = model_gid(m, j);
        A->x[j] = initial_value(A->o->start, p, A->gid[j]);
    }
    A->can_probe = !problem_has_discontinuities(p) || p->n_discrete > 0;
    A->can_keep = !problem_has_discontinuities(p);
    A->n_global = p->n;
    count_bdf(A);
    failed = initial_values_set(&A->start, A->gid, A->x, m->n_cols) != 0;
    if (A->o->halo) MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, A->comm);
    return failed ? -1 : 0;
}

/* The foresight, when the mixed candidate splits the states and probes can
 * be made (collective). Returns 0, or -1 (out of memory, err). */
static int set_foresight(auto_run *A, char *err, size_t errlen) {
    if (A->mixed < 0 || !A->can_probe) return 0;
    const model *m = A->m;
    int failed = 0;
    if (!A->o->activity && !(A->events = calloc((size_t)m->n + 1, sizeof *A->events))) failed = 1;
    if (A->o->halo) MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, A->comm);
    if (failed || foresight_init(&A->fs, m, A->o->halo, A->o->assignment) != 0) {
        snprintf(err, errlen, "out of memory for auto's foresight (%lld states)", (long long)m->n);
        return -1;
    }
    A->fs_on = 1;
    return 0;
}

/* The watch on activity while CVODE runs, where the QSS method can be probed
 * (collective). Returns 0, or -1 (out of memory, err). */
static int set_activity(auto_run *A, char *err, size_t errlen) {
    if (!A->can_probe) return 0;
    int failed = activity_init(&A->activity, A->m->n) != 0;
    if (A->o->halo) MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, A->comm);
    if (failed) {
        activity_free(&A->activity);
        snprintf(err, errlen, "out of memory for auto's activity watch (%lld states)",
                 (long long)A->m->n);
        return -1;
    }
    return 0;
}

int auto_integrate(const model *m, const integrator_options *o, sample_fn sample, void *ctx,
                   qmol_stats *stats, char *err, size_t errlen) {
    if (errlen) err[0] = '\0';
    auto_run A;
    memset(&A, 0, sizeof A);
    A.m = m, A.o = o, A.sample = sample, A.sample_ctx = ctx, A.stats = stats;
    A.comm = o->halo ? o->halo->comm : MPI_COMM_SELF;
    A.span = o->tf - o->t0;
    A.log = o->methods;
    set_candidates(&A);
    int rc = set_start(&A);
    if (rc != 0)
        snprintf(err, errlen, "out of memory for auto's states (%lld)", (long long)m->n_cols);
    if (rc == 0) rc = set_foresight(&A, err, errlen);
    if (rc == 0) rc = set_activity(&A, err, errlen);
    if (rc == 0) rc = run_segments(&A, stats, err, errlen);
    if (rc == 0 && A.log) {
        A.log->probes = A.probes;
        A.log->probe_wall = A.probe_wall;
        A.log->races = A.races;
        A.log->kept = A.kept_probes;
        A.log->ahead = A.ahead;
        A.log->dropped = A.dropped, A.log->dropped_to = A.dropped_to;
    }
    free(A.x);
    free(A.gid);
    free(A.discrete);
    free(A.seg_times);
    free(A.events);
    foresight_free(&A.fs);
    activity_free(&A.activity);
    for (int c = 0; c < NCAND; c++)
        keep_free(&A.cand[c].kept);
    initial_values_free(&A.start);
    return rc;
}
