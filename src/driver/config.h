/* config.h: a run's configuration, from the command line and an INI file.
 *
 * `qmol run` options and INI keys are the same names ([run] section for run
 * options, [problem] section for problem parameters); the command line wins.
 * Everything is validated before any work starts: a bad value gives one line
 * naming the option, the value and what is allowed.
 */
#ifndef QMOL_CONFIG_H
#define QMOL_CONFIG_H

#include "core/integrator_registry.h"

#include <stddef.h>

/* abstol when --abstol is not given: tol / 10. With abstol = tol the cells
 * ahead of a reaction front are quantized too coarsely and the front speed is
 * off (docs/methods.md, "Default absolute tolerance"). */
#define DEFAULT_ABSTOL_RATIO 0.1
/* The smallest --tol: a relative quantum near the rounding of doubles (2.2e-16)
 * cannot be resolved (below 1e-308 the default abstol even becomes 0). */
#define MIN_RELTOL 1e-15
/* Room for the options of run_options.c's table (checked there). */
#define RUN_OPTIONS_MAX 64

typedef struct run_config {
    char *problem;      /* built-in name or path of a plugin .so */
    char **sets;        /* "key=value" problem parameter assignments, in order */
    char **set_origins; /* per assignment: "FILE:LINE: [problem] key = value" when it
                         * comes from an INI file (for messages), NULL from --set */
    int nsets;
    const integrator_def *method;
    int method_given; /* --method given, on the command line or in an INI file */
    double reltol, abstol;
    int abstol_given;
    double tf; /* NAN: the problem's default */
    int64_t samples;
    int samples_given;     /* --samples given (conflicts with --sample-times) */
    double *sample_times;  /* --sample-times, or NULL (uniform samples) */
    int64_t nsample_times; /* their count */
    char *output_states;   /* --output-states RULE, or NULL (all states) */
    char *output;          /* NULL: <problem>.h5 */
    int overwrite;
    int use_jacobian;
    int linsol; /* LINSOL_* */
    int max_order;
    int precond;                           /* PRECOND_* */
    int cvode_norm;                        /* CVODE_NORM_* */
    double window, window_min, window_max; /* 0: adaptive / defaults */
    char *partition;                       /* --partition value, NULL: metis */
    int64_t coarsen_above;                 /* 0: the partitioner's default */
    int pieces;                            /* METIS pieces per rank, 0: the method's default */
    /* --method mixed */
    const integrator_def *qss_method; /* the QSS block's method (auto's QSS method) */
    int qss_method_given; /* --qss-method given, on the command line or in an INI file */
    char *bdf_rule;       /* --bdf RULE */
    char *bdf_file;       /* --bdf-file PATH */
    int assign_auto;      /* --assign auto */
    double assign_threshold;
    int assign_depth; /* -1: not given (ASSIGN_DEPTH) */
    int coupling;     /* COUPLING_* */
    int quiet, verbose;
    double progress;                        /* seconds between progress reports; < 0: the default */
    int activity_per_sample;                /* --activity samples: also /activity/per_sample */
    int compress;                           /* deflate level of /states (0: none) */
    double checkpoint_sim, checkpoint_wall; /* --checkpoint-every: one > 0, or both 0 */
    int checkpoint_off;                     /* --checkpoint-every off: not even the default */
    char *checkpoint_file;                  /* NULL: the output's name with .ckpt.h5 */
    int keep_last_window;                   /* --keep-last-window on: a failed run's checkpoint is
                                               its last good window (last_window.h) */
    char *restart;                          /* --restart CKPT, or NULL */
    /* --restart: the checkpoint's time, next sample and number of states,
     * read with its stored arguments (cli.c), once */
    double restart_t;
    int64_t restart_next_sample, restart_n;
    char *args_text; /* the arguments, one per line, without --restart (for checkpoints) */
    /* per option of the table (run_options.c, in its order): where it was
     * last given, as written ("--tf 5", "run.ini:3: [run] tf = 5"), or NULL */
    char *origin[RUN_OPTIONS_MAX];
} run_config;

/* Parses `qmol run` arguments (argv after "run"). Returns 0, or 2 with a
 * one-line message in err. */
int config_parse(run_config *c, int argc, char **argv, char *err, size_t errlen);
/* Appends a problem parameter assignment "key=value"; origin (may be NULL)
 * says where it came from. Returns 0 or -1 (out of memory). */
int config_add_set(run_config *c, const char *assignment, const char *origin);
void config_free(run_config *c);
/* The help text for `qmol run`. */
void config_usage(void);

#endif
