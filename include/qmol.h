/* qmol.h: the row-wise model API.
 *
 * A problem is the ODE system dx/dt = f(x, t), x in R^n, described one row at a
 * time: row i lists the global ids of the states that f_i reads (its Jacobian
 * row pattern), and rhs(i, t, vals) evaluates f_i from those states' values,
 * gathered in row order. Quantized-state methods re-evaluate only the rows
 * that read a state when it changes; CVODE loops over all rows. The same code
 * therefore runs under every method and every partition.
 *
 * Discontinuities (zero-crossing functions, time events and their handlers)
 * are optional fields at the end of qmol_problem (left zero: none).
 *
 * Built-in problems and plugins both describe themselves with a qmol_problem_def
 * (name, documented parameters with defaults and ranges, a constructor). A
 * plugin is a shared object exporting QMOL_PLUGIN_SYMBOL (see below).
 */
#ifndef QMOL_H
#define QMOL_H

#include <stddef.h>
#include <stdint.h>

#define QMOL_API_VERSION 1

/* A problem instance, filled by a constructor. Callbacks receive `data`. */
typedef struct qmol_problem {
    int64_t n;  /* number of states */
    double t0;  /* initial time */
    double tf;  /* default final time (the run may override it) */
    void *data; /* the problem's own parameters and tables */

    /* Row i: its length, and the global ids of the states f_i reads, in the
     * order rhs and jac take their values. A row may list a state more than
     * once: a reflecting (Neumann) boundary written as a mirror, u_0' =
     * d (u_1 - 2 u_0 + u_1) / h^2, lists u_1 twice. rhs and jac then get that
     * state's value at each of its positions, exactly as listed; qmol's
     * dependency graph (partition, halo, the QSS readers, CVODE's Jacobian
     * pattern) holds it once, and its entries from jac are summed. */
    int (*row_size)(const void *data, int64_t i);
    void (*row)(const void *data, int64_t i, int64_t *cols);
    /* f_i(t, vals), vals[k] the value of state row(i)[k]. */
    double (*rhs)(const void *data, int64_t i, double t, const double *vals);
    /* Optional: dfdv[k] = d f_i / d vals[k], one per listed position (for
     * u_0' above: c, -2c, c with c = d / h^2; qmol adds the two to d f_0 /
     * d u_1 = 2c). NULL: estimated numerically. */
    void (*jac)(const void *data, int64_t i, double t, const double *vals, double *dfdv);
    /* Initial value of state i. */
    double (*x0)(const void *data, int64_t i);
    /* Optional exact solution of the ODE system (for tests); NULL if none. */
    double (*exact)(const void *data, int64_t i, double t);
    /* Optional: state i's absolute tolerance (minimum quantum) is the run's
     * abstol times abstol_scale(i), for states of very different sizes. */
    double (*abstol_scale)(const void *data, int64_t i);
    /* Set when some f_i depends on t explicitly (not only through x). */
    int explicit_time;

    /* Optional grid geometry: ndims = 0 (none), 1, 2 or 3. dims[0] varies
     * fastest and the components of a cell are consecutive: state id =
     * (ix + nx * (iy + ny * iz)) * components + c, c in [0, components). */
    int ndims;
    int64_t dims[3];
    double origin[3];
    double spacing[3];
    int components; /* states per grid cell (1 unless set) */

    /* Frees data; may be NULL. */
    void (*destroy)(void *data);

    /* Optional discontinuities. Discrete variables (a switch position, a
     * heater's state) live in data: rhs, jac and the crossing functions read
     * them, and only the handlers below change them. */
    /* Zero-crossing functions g_c, c in [0, n_crossings): like a row, each
     * lists the states it reads (each once) and evaluates from their
     * values. A crossing
     * happens when g_c changes sign (along the quantized trajectories under
     * QSS, CVODE's root finding under CVODE). */
    int64_t n_crossings;
    int (*crossing_size)(const void *data, int64_t c);
    void (*crossing_row)(const void *data, int64_t c, int64_t *cols);
    double (*crossing)(const void *data, int64_t c, double t, const double *vals);
    /* Handles crossing c at t: direction +1 when g_c rose through zero, -1
     * when it fell. Changes discrete variables only. */
    void (*on_crossing)(void *data, int64_t c, int direction, double t);
    /* Time events: the first event time strictly after t (INFINITY: none),
     * and its handler (discrete variables only). */
    double (*next_time_event)(const void *data, double t);
    void (*on_time_event)(void *data, double t);
    /* The states whose f_i reads discrete variables that a handler may change:
     * their derivatives are re-evaluated after every handler. */
    int64_t n_affected;
    void (*affected)(const void *data, int64_t *ids);

    /* Optional names of a grid's components (one per component: letters,
     * digits, '_'), used for /fields/NAME and in ParaView; NULL: "u" for
     * one component, "u0", "u1", ... for several. */
    const char *const *component_names;

    /* Optional, for problems with discontinuities: the discrete variables
     * as n_discrete numbers, read into values and set from them, so that a
     * checkpoint saves them and a restart restores them, and so that on
     * several ranks a window whose late updates were too large is taken
     * back and run again. Without them such a problem cannot be
     * checkpointed and its windows are never rejected. */
    int64_t n_discrete;
    void (*get_discrete)(const void *data, double *values);
    void (*set_discrete)(void *data, const double *values);

    /* Optional, with jac: f_i (returned) and its Jacobian row into dfdv in
     * one call, exactly what rhs and jac give. The QSS methods of order 2
     * ask for both at every re-evaluation of a row, so what a row sets up
     * (its place on a grid, its boundary) is then done once. NULL: rhs,
     * then jac. */
    double (*rhs_jac)(const void *data, int64_t i, double t, const double *vals, double *dfdv);

    /* Optional, with jac, for rows that are linear in what they read but
     * for a term of their own state: f_i = b_i + sum_k c_ik vals[k] +
     * own_term(i, x_i), with b_i and c_ik constant (in t, in the states and
     * in discrete variables). Returns that term at v = x_i and its
     * derivative in *dgdv (a linear row: 0 and 0). qmol takes b and c from
     * rhs and jac at values 1, 1.125, 1.25, ... of the row's entries and
     * checks them at a second point (a row undefined there, or that does
     * not read its own state, keeps rhs_jac); where the rows of a grid
     * share them (a shape of the QSS engine), its second-order methods
     * evaluate f_i and its slope from them without calling rhs
     * (docs/performance.md, "Linear rows"). NULL: every row through
     * rhs_jac, as before. */
    double (*own_term)(const void *data, int64_t i, double v, double *dgdv);
} qmol_problem;

/* One named numeric parameter of a problem, with its default and range. */
typedef struct qmol_param_def {
    const char *name;
    double value; /* default */
    double min, max;
    int integer; /* 1: value must be a whole number */
    const char *doc;
} qmol_param_def;

/* A problem family: what `qmol list` shows and how to build an instance. */
typedef struct qmol_problem_def {
    int api_version; /* QMOL_API_VERSION */
    const char *name;
    const char *summary;   /* one line */
    const char *equations; /* the equations, boundary and initial conditions */
    const qmol_param_def *params;
    int nparams;
    /* Build an instance from parameter values (in params order). Returns 0, or
     * non-zero with a one-line reason in err. */
    int (*create)(const double *values, qmol_problem *out, char *err, size_t errlen);
} qmol_problem_def;

/* A plugin shared object exports this function (C linkage):
 *   const qmol_problem_def *qmol_plugin_problem(void);            */
#define QMOL_PLUGIN_SYMBOL "qmol_plugin_problem"
typedef const qmol_problem_def *(*qmol_plugin_fn)(void);

#endif
