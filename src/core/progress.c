/* progress.c: progress reports on stderr (see progress.h). */
#include "core/progress.h"

#include "core/wallclock.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define BAR_WIDTH 24

void progress_init(progress *p, MPI_Comm comm, double t0, double t_start, double tf, int quiet,
                   int verbose, double interval, const char *unit) {
    memset(p, 0, sizeof *p);
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    p->comm = comm;
    p->show = rank == 0 && !quiet;
    p->verbose = verbose && !quiet;
    p->tty = isatty(STDERR_FILENO);
    p->interval = interval >= 0.0 ? interval
                  : p->tty        ? PROGRESS_TTY_INTERVAL
                                  : PROGRESS_LOG_INTERVAL;
    p->t0 = t0;
    p->t_start = t_start;
    p->tf = tf;
    p->unit = unit;
    p->wall_start = p->wall_last = wallclock_seconds();
}

void progress_switch(progress *p, const char *unit) {
    p->unit = unit;
    p->count_last = 0.0;
}

int progress_due(const progress *p) {
    return p->show && wallclock_seconds() - p->wall_last >= p->interval;
}

/* "12 s", "3.4 min", "2.1 h" */
static void duration(char *buf, size_t len, double s) {
    if (!isfinite(s) || s < 0.0)
        snprintf(buf, len, "?");
    else if (s < 10.0)
        snprintf(buf, len, "%.1f s", s);
    else if (s < 120.0)
        snprintf(buf, len, "%.0f s", s);
    else if (s < 7200.0)
        snprintf(buf, len, "%.1f min", s / 60.0);
    else
        snprintf(buf, len, "%.1f h", s / 3600.0);
}

static void print(progress *p, double t, double count, double window) {
    double now = wallclock_seconds(), span = p->tf - p->t0, left = p->tf - p->t_start;
    double done = span > 0.0 ? (t - p->t0) / span : 1.0;
    /* of what this process has to do: the pace for the ETA */
    double done_here = left > 0.0 ? (t - p->t_start) / left : 1.0;
    double rate = now > p->wall_last ? (count - p->count_last) / (now - p->wall_last) : 0.0;
    double elapsed = now - p->wall_start;
    char eta[32], spent[32], win[48] = "";
    duration(eta, sizeof eta, done_here > 0.0 ? elapsed * (1.0 - done_here) / done_here : NAN);
    duration(spent, sizeof spent, elapsed);
    if (window > 0.0) snprintf(win, sizeof win, ", window %.3g", window);
    if (p->tty) {
        char bar[BAR_WIDTH + 1];
        int fill = (int)(done * BAR_WIDTH + 0.5);
        for (int k = 0; k < BAR_WIDTH; k++)
            bar[k] = k < fill ? '#' : '.';
        bar[BAR_WIDTH] = '\0';
        fprintf(stderr, "\rqmol: [%s] %5.1f%%  t = %.6g  %.3g %s/s%s  ETA %s\033[K", bar,
                100.0 * done, t, rate, p->unit, win, eta);
        p->line_open = 1;
    } else {
        fprintf(stderr, "qmol: t = %.6g of %.6g (%.1f%%), %.3g %s/s%s, elapsed %s, ETA %s\n", t,
                p->tf, 100.0 * done, rate, p->unit, win, spent, eta);
    }
    fflush(stderr);
    p->wall_last = now;
    p->count_last = count;
}

void progress_local(progress *p, double t, uint64_t count, double window) {
    if (p->show) print(p, t, (double)count, window);
}

void progress_collect(progress *p, double t, uint64_t count, double wait, double window) {
    double sum = (double)count;
    MPI_Allreduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, p->comm);
    double spread[4] = {(double)count, -(double)count, wait, -wait};
    if (p->verbose) MPI_Allreduce(MPI_IN_PLACE, spread, 4, MPI_DOUBLE, MPI_MIN, p->comm);
    if (!p->show) return;
    print(p, t, sum, window);
    if (p->verbose) {
        if (p->line_open) fputc('\n', stderr);
        p->line_open = 0;
        fprintf(stderr, "qmol:   per rank: %s %.0f..%.0f, waiting %.3f..%.3f s\n", p->unit,
                spread[0], -spread[1], spread[2], -spread[3]);
    }
}

void progress_end(progress *p) {
    if (p->line_open) fputc('\n', stderr);
    p->line_open = 0;
}
