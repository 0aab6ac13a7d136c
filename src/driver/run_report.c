/* run_report.c: the summary a finished run prints (run_internal.h). */
#include "core/integrator_registry.h"
#include "cvode/cvode_vector.h"
#include "driver/run_internal.h"

#include <omp.h>

#include <stdio.h>
#include <sys/resource.h>
#include <sys/stat.h>

/* Below this many owned states on a rank the peak memory is mostly fixed
 * costs (libraries, MPI and HDF5 buffers: 143,483 bytes "per state" at
 * n = 200), and a figure per state would mean nothing. */
#define MEMORY_PER_STATE_MIN 100000

/* Peak resident memory of this process per owned state, in bytes, the
 * largest over ranks, or 0 when some rank owns fewer than
 * MEMORY_PER_STATE_MIN states (collective). */
static double peak_bytes_per_state(const run_layout *l, int64_t n, double *peak_mb) {
    struct rusage ru;
    double rss = getrusage(RUSAGE_SELF, &ru) == 0 ? (double)ru.ru_maxrss * 1024.0 : 0.0;
    int64_t owned = l->size == 1 ? n : l->n_owned;
    double v[3] = {rss / (double)(owned > 0 ? owned : 1), rss / 1048576.0, -(double)owned};
    MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_DOUBLE, MPI_MAX, l->comm);
    *peak_mb = v[1];
    return -v[2] >= MEMORY_PER_STATE_MIN ? v[0] : 0.0;
}

/* One row of the summary table: a label, a count and a note. */
static void count_row(const char *label, uint64_t v, const char *note) {
    printf("    %-24s %13llu%s%s\n", label, (unsigned long long)v, *note ? "  " : "", note);
}

/* CVODE's counters after its steps, with SUNDIALS' names (stats.h); the
 * ones that are 0 for the linear solver that ran are left out. */
static void cvode_rows(const qmol_stats *s) {
    count_row("rhs evaluations (nfe)", s->nfe, "whole system");
    if (s->nfeLS) count_row("  for Jv (nfeLS)", s->nfeLS, "");
    count_row("newton iterations (nni)", s->nni, "");
    if (s->ncfn) count_row("  failed (ncfn)", s->ncfn, "");
    count_row("linear set-ups (nsetups)", s->nsetups, "");
    if (s->nli) count_row("linear iters (nli)", s->nli, "");
    if (s->ncfl) count_row("  failed (ncfl)", s->ncfl, "");
    count_row("jacobians (nje)", s->nje, "whole system");
    if (s->npe || s->nps) {
        count_row("precond evals (npe)", s->npe, "");
        count_row("precond solves (nps)", s->nps, "");
    }
    if (s->njvevals) count_row("J v products (njvevals)", s->njvevals, "");
    count_row("error test fails (netf)", s->netf, "");
}

/* The rejected windows (several ranks) and the events they redid; the
 * windows a stop request ended, where there were any. */
static void rejected_row(const qmol_stats *s) {
    char why[96];
    snprintf(why, sizeof why, "run again shorter; %llu events redone",
             (unsigned long long)s->events_rejected);
    count_row("  rejected", s->windows_rejected, why);
    if (s->windows_stopped)
        count_row("  stopped", s->windows_stopped, "run again up to a rank's stop request");
}

/* One wall-time row: seconds and share of the total. */
static void wall_row(const char *label, double v, double total, const char *note) {
    printf("    %-24s %11.3f s  %5.1f%%%s%s\n", label, v, total > 0 ? 100.0 * v / total : 0.0,
           *note ? "  " : "", note);
}

/* What the integrator did (totals over ranks), and on several ranks what
 * they exchanged. */
static void work_rows(const integrator_def *m, const qmol_stats *s, int size) {
    char rate[64];
    double per_s = s->wall_integrate > 0 ? (double)s->events / s->wall_integrate : 0.0;
    printf("  work%s\n", size > 1 ? " (totals over ranks)" : "");
    if (!integrator_has(m, INTEGRATOR_QSS_ENGINE)) { /* steps */
        per_s = s->wall_integrate > 0 ? (double)s->nst / s->wall_integrate : 0.0;
        snprintf(rate, sizeof rate, "%.3g per second", per_s);
        count_row("steps (nst)", s->nst, rate);
        cvode_rows(s);
    } else {
        snprintf(rate, sizeof rate, "%.3g per second", per_s);
        int bdf = integrator_has(m, INTEGRATOR_BDF); /* and a QSS block */
        count_row(bdf ? "QSS events" : "events", s->events, rate);
        if (bdf) {
            count_row("BDF steps (nst)", s->nst, "");
            count_row("windows", s->windows, size > 1 ? "agreed" : "");
            if (size > 1) rejected_row(s);
            count_row("  cut by the step limit", s->step_limits, "");
            count_row("  cut by extrapolation", s->extrap_limits, "");
            if (s->to_bdf || s->to_qss) {
                count_row("states moved to BDF", s->to_bdf, "moving block");
                count_row("states moved to QSS", s->to_qss, "");
            }
            cvode_rows(s);
        }
        count_row("jacobian rows", s->jac_rows, "scalar rows, QSS and BDF");
        if (s->pair_steps) count_row("pair steps", s->pair_steps, "mLIQSS");
    }
    count_row("row evaluations", s->row_evals, "scalar f_i");
    if (s->crossings || s->time_events) {
        count_row("zero crossings", s->crossings, "/events");
        count_row("time events", s->time_events, "");
    }
    if (size > 1) {
        printf("  %d ranks\n", size);
        if (!integrator_has(m, INTEGRATOR_BDF)) { /* QSS alone: its windows */
            count_row("windows", s->windows, "agreed");
            rejected_row(s);
        }
        count_row("messages", s->messages, "");
        count_row("bytes sent", s->bytes_sent, "");
        count_row("late updates", s->late_updates, "ghost changes applied at window ends");
    }
}

static void print_summary(const run_config *c, const qmol_problem *p, const char *path,
                          const char *xmf, const qmol_stats *s, int size, double bytes_per_state,
                          double peak_mb, const method_log *methods) {
    const integrator_def *m = c->method;
    const char *precond = precond_name(c->linsol, c->precond);
    char solver[128] = "";
    const char *norm = integrator_has(m, INTEGRATOR_BDF) && c->cvode_norm == CVODE_NORM_MAX
                           ? ", CVODE's max error norm"
                           : "";
    if (integrator_has(m, INTEGRATOR_BDF_ALL))
        snprintf(solver, sizeof solver, ", linear solver %s%s%s%s", linsol_name(c->linsol),
                 precond ? " with " : "", precond ? precond : "", norm);
    else
        snprintf(solver, sizeof solver, "%s", norm);
    char method[96];
    snprintf(method, sizeof method,
             integrator_has(m, INTEGRATOR_CHOOSES) ? "%s (QSS method %s)" : "%s", m->name,
             c->qss_method->name);
    printf("qmol: %s, n=%lld, %s, tol=%g abstol=%g, t in [%g, %g], %lld samples%s\n", c->problem,
           (long long)p->n, method, c->reltol, c->abstol, p->t0, c->tf, (long long)c->samples,
           solver);
    if (integrator_has(m, INTEGRATOR_BDF)) {
        int threads = omp_get_max_threads();
        int vectors = integrator_has(m, INTEGRATOR_BDF_ALL) && cvv_threads_for(p->n, size, threads);
        printf("  %d OpenMP thread%s per rank for CVODE's rows%s\n", threads,
               threads > 1 ? "s" : "", vectors ? " and vectors" : "");
    }
    const char *max = size > 1 ? "(slowest rank)" : "";
    printf("  wall time\n");
    wall_row("set-up", s->wall_setup - s->wall_partition, s->wall_total, "problem, model, file");
    if (size > 1) wall_row("partition", s->wall_partition, s->wall_total, max);
    wall_row("integrate", s->wall_integrate, s->wall_total, max);
    if (size > 1) {
        wall_row("  of which exchange", s->wall_exchange, s->wall_total, max);
        wall_row("  of which waiting", s->wall_wait, s->wall_total, max);
    }
    wall_row("output", s->wall_output, s->wall_total, "samples written");
    wall_row("total", s->wall_total, s->wall_total, "");
    work_rows(m, s, size);
    method_log_print(methods, stdout);
    char per_state[64] = "";
    if (bytes_per_state > 0.0)
        snprintf(per_state, sizeof per_state, ", %.0f bytes per owned state", bytes_per_state);
    printf("  memory      peak RSS %.1f MiB%s%s\n", peak_mb, size > 1 ? " (largest rank)" : "",
           per_state);
    struct stat st;
    if (stat(path, &st) == 0)
        printf("  output      %s (%.3g MiB)\n", path, (double)st.st_size / 1048576.0);
    else
        printf("  output      %s\n", path);
    if (xmf) printf("  ParaView    %s (XDMF time series of the grid)\n", xmf);
}

void run_report(run_ctx *r, const qmol_stats *total) {
    double peak_mb = 0.0, per_state = peak_bytes_per_state(&r->layout, r->prob.n, &peak_mb);
    if (!r->c.quiet && r->rank == 0)
        print_summary(&r->c, &r->prob, r->path, r->xmf, total, r->size, per_state, peak_mb,
                      &r->methods);
}
