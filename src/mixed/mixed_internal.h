/* mixed_internal.h: the state of a mixed QSS / CVODE-BDF run, shared by its
 * set-up (mixed_setup.c) and its run (mixed_run.c).
 *
 * Three numberings meet here. The layout's (the rank's local model: owned
 * states, then ghosts; global ids on one rank) is the one of the run's halo,
 * of the samples and of the exchanges between the blocks. The QSS block's
 * model has the owned QSS states as rows, then as columns the other ranks'
 * QSS states the rank holds (in the layout's ghost order: the QSS halo is
 * the layout's halo cut to them), then the BDF states its rows read. The BDF
 * block's model has the owned BDF states as rows, then as inputs every other
 * state its rows read (QSS states, other ranks' BDF states).
 */
#ifndef QMOL_MIXED_INTERNAL_H
#define QMOL_MIXED_INTERNAL_H

#include "cvode/cvode_block.h"
#include "comm/halo.h"
#include "qss/qss_engine.h"
#include "qss/qss_journal.h"
#include "mixed/q_history.h"
#include "qss/qss_window.h"

typedef struct mixed {
    qss_engine e;              /* the QSS block (first: the engine points back through driver) */
    integrator_options oq, ob; /* the blocks' options (their halos differ) */
    const integrator_options *o;
    const model *m;        /* the layout's model */
    const halo_plan *halo; /* the layout's halo, NULL on one rank */
    halo_plan qhalo;       /* the QSS block's (several ranks) */
    int distributed, rank;
    MPI_Comm comm;
    model mq, mb;           /* QSS and BDF block models */
    int64_t *gid_q, *gid_b; /* their columns' global ids */
    int32_t nq, nb;         /* rows of each */
    int32_t *lay_q, *lay_b; /* their rows' layout indices */
    int32_t qss_ghosts;     /* QSS columns nq .. nq + qss_ghosts: other ranks' QSS states */
    int32_t first_bdf_col;  /* QSS columns from here on: BDF states */
    int32_t *bdf_col_lay;   /* their layout indices */
    int32_t ninputs;        /* BDF columns nb ..: inputs */
    int32_t *input_lay;     /* their layout indices */
    /* exported QSS states: owned ones the BDF block reads here or another
     * rank may read (boundary); their q is logged for the BDF block */
    int32_t nexports;
    int32_t *export_q;  /* export -> QSS row */
    int32_t *export_of; /* QSS row -> export, -1 */
    unsigned char *watched;
    double *q_start, *q_integral, *q_upto; /* per export (interp, sample) */
    /* interp, sample (one rank): the BDF rows reading each export, with
     * their Jacobian entries */
    int64_t *reader_ptr, *reader_entry;
    int32_t *reader_row;
    q_history history;                  /* COUPLING_HISTORY: every q of the exports in the window */
    int32_t *history_last;              /* per export: its newest piece */
    int32_t *bdf_readers, nbdf_readers; /* QSS rows reading a BDF state */
    /* per reader r, its BDF columns read_col[read_ptr[r] .. read_ptr[r + 1])
     * and |df / dcolumn| as last measured (measure_readers), measured again
     * after read_age more windows, or when the handler rounds run here
     * differ from read_handled */
    int64_t *read_ptr;
    int32_t *read_col;
    double *read_sens;
    int read_age;
    uint64_t read_handled;
    int32_t *slope_rows, nslope_rows; /* BDF rows whose slope QSS may read */
    cvode_block *bdf;
    const double *y;    /* BDF states at the window start (CVODE's vector) */
    double *y0;         /* the initial values, before CVODE exists */
    double *ydot;       /* per BDF row: its slope at the last window end */
    double *col_slope;  /* per QSS BDF column: its slope at the window start */
    double *col_anchor; /* per QSS BDF column: its slope at anchor_t */
    double *col_curv;   /* per QSS BDF column: y'' from the slopes since anchor_t */
    double anchor_t;    /* where the curvatures were last measured from */
    double view_drift;  /* the last window's worst view drift, in quanta (control_view) */
    double read_drift;  /* ... and its readers' worst drift, in their quanta */
    double view_window; /* the view drift controller's next window (infinity at first) */
    double *lay_vals;   /* layout-sized: the inputs' exchange (BDF values at T after a renewal) */
    double *lay_slope;  /* layout-sized: BDF slopes at T */
    double *view_area;  /* per QSS column c >= nq: integral of BDF value - view, last window */
    double *unit_area;  /* ... zeros (measure_readers' scratch) */
    double *bdf_work;   /* the BDF block's columns at T */
    double *vals;       /* scratch of the longest BDF row */
    double *listed;     /* model_rhs's scratch for mb */
    double *abstol_b;   /* BDF states' absolute tolerances */
    double tk, T;       /* the window */
    int limited;        /* the step limit has cut this window */
    int coupling;
    qss_exchange qx;    /* several ranks: the QSS block's window exchange */
    window_watch watch; /* several ranks without undo: the window watch */
    int use_watch;
    window_control ctl;  /* several ranks: the window controller (docs/parallel.md) */
    double W;            /* its next window length */
    qss_journal journal; /* several ranks, adaptive windows: the window's undo log */
    uint64_t exchanges;  /* layout halo exchanges (several ranks) */
} mixed;

/* Builds everything for the layout model m (collective on several ranks).
 * Returns 0, or -1 with err (agreed). */
int mixed_setup(mixed *x, const model *m, const integrator_options *o, qmol_stats *stats, char *err,
                size_t errlen);
void mixed_free(mixed *x);

/* Coupling callbacks (mixed_run.c) that set-up installs. */
void mixed_bdf_inputs(void *ctx, double t, const double *y, int product, double *v);
void mixed_on_export_change(qss_engine *e, int32_t i, double t, const double *old, double old_tq);

#endif
