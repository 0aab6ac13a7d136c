/* cvode_integrate.c: the model integrated by SUNDIALS CVODE (BDF, Newton).
 *
 * One CVODE block (cvode_block.c) run alone from t0 to tf. The right-hand
 * side loops over the local rows (cvode_rows.c), so the same problem code
 * serves QSS and BDF; the linear solvers are in cvode_linsol.c. Samples come
 * from CVODE's dense output (CVodeGetDky) of the owned states; the
 * integration never stops on the output grid.
 *
 * On P ranks CVODE makes the same calls on every rank (its norms are
 * global) and our callbacks agree on their results, so every rank takes the
 * same path. Errors found on one rank only (set-up, a sample callback) are
 * agreed with comm_agree before the next collective step; all ranks return
 * the same rc and message.
 */
#include "agree.h"
#include "cvode_block.h"
#include "cvode_internal.h"

#include <cvode/cvode.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CV_ONE_STEP makes CVODE's mxstep apply per call, so the total is capped here. */
#define CV_MAX_STEPS 10000000L
/* Consecutive steps that leave t unchanged before the run is declared stalled. */
#define CV_MAX_STALLED 100

/* Delivers the samples at or before tret (all remaining ones at the stop
 * time). Returns 0 or the run's rc with err set (agreed on P ranks). */
static int deliver(cvode_block *b, double tret, int at_stop, int64_t *k, sample_fn sample,
                   void *ctx, double *sample_wall, char *err, size_t errlen) {
    const integrator_options *o = &b->o;
    cv_run *r = &b->r;
    while (*k <= o->samples) {
        double tk = sample_time(o->t0, o->tf, *k, o->samples);
        if (!(tk <= tret || at_stop)) break;
        int flag = CVodeGetDky(b->mem, tk, 0, b->yk);
        if (flag < 0) {
            char name[64];
            cvl_flag_name(flag, name, sizeof name);
            snprintf(err, errlen, "CVodeGetDky failed for sample %lld at t=%.17g: %s%s%s",
                     (long long)*k, tk, name, r->cvmsg[0] ? ": " : "", r->cvmsg);
            return -1;
        }
        double s0 = MPI_Wtime();
        int src = sample(ctx, *k, tk, N_VGetArrayPointer(b->yk));
        *sample_wall += MPI_Wtime() - s0;
        if (src != 0 && !err[0])
            snprintf(err, errlen, "sample %lld at t=%.17g stopped the run (code %d)", (long long)*k,
                     tk, src);
        src = cvk_agree(r, src, err, errlen);
        if (src != 0) return src;
        (*k)++;
    }
    return 0;
}

/* One step at a time; after each, deliver every sample it passed. */
static int integrate(cvode_block *b, sample_fn sample, void *ctx, double *sample_wall, char *err,
                     size_t errlen) {
    const integrator_options *o = &b->o;
    cv_run *r = &b->r;
    int64_t k = 1;
    double tret = o->t0;
    long nsteps = 0, stalled = 0;
    while (k <= o->samples) {
        if (++nsteps > CV_MAX_STEPS) {
            snprintf(err, errlen, "CVODE took %ld steps and stopped at t=%.17g before tf=%.17g",
                     CV_MAX_STEPS, tret, o->tf);
            return -1;
        }
        double tprev = tret;
        int flag = CVode(b->mem, o->tf, b->y, &tret, CV_ONE_STEP);
        /* CVODE only warns when t + h == t and then keeps going; so can a run
         * whose right-hand side fails (recoverably) beyond some time. */
        stalled = tret > tprev ? 0 : stalled + 1;
        if (flag >= 0 && stalled >= CV_MAX_STALLED) {
            snprintf(err, errlen,
                     "CVODE stalled at t=%.17g: %ld steps without progress (step size below "
                     "roundoff, or the right-hand side fails just beyond t)",
                     tret, stalled);
            return -1;
        }
        if (flag < 0) {
            char name[64];
            cvl_flag_name(flag, name, sizeof name);
            snprintf(err, errlen, "CVODE failed at t=%.17g: %s%s%s%s%s", tret, name,
                     r->cvmsg[0] ? ": " : "", r->cvmsg, r->cbmsg[0] ? ": " : "", r->cbmsg);
            return -1;
        }
        int rc =
            deliver(b, tret, flag == CV_TSTOP_RETURN, &k, sample, ctx, sample_wall, err, errlen);
        if (rc) return rc;
    }
    return 0;
}

int cvode_integrate(const model *m, const integrator_options *o, sample_fn sample, void *ctx,
                    qmol_stats *stats, char *err, size_t errlen) {
    double wall0 = MPI_Wtime();
    if (errlen) err[0] = '\0';
    if (!sample) {
        snprintf(err, errlen, "cvode_integrate: a sample callback is required");
        return -1;
    }
    if (o && o->samples < 1) {
        snprintf(err, errlen, "samples=%lld: at least 1 sample is needed", (long long)o->samples);
        return -1;
    }
    cvode_block *b = cvode_block_open(m, o, NULL, err, errlen);
    if (!b) return -1;
    double wall1 = MPI_Wtime(), sample_wall = 0.0;
    if (stats) stats->wall_setup += wall1 - wall0;
    int rc = integrate(b, sample, ctx, &sample_wall, err, errlen);
    /* Statistics also on failure: they help to explain it. */
    char serr[512] = "";
    if (cvode_block_add_stats(b, stats, 1, serr, sizeof serr) && rc == 0) {
        snprintf(err, errlen, "%s", serr);
        rc = -1;
    }
    if (stats) {
        stats->wall_integrate += MPI_Wtime() - wall1 - sample_wall;
        stats->wall_output += sample_wall;
    }
    rc = cvk_agree(&b->r, rc, err, errlen);
    cvode_block_close(b);
    return rc;
}
