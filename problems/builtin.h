/* builtin.h: the built-in problem families, one definition each, gathered by
 * registry.c into the `qmol list` table. Internal to problems/.
 *
 * Range convention for parameter definitions: a minimum of DBL_MIN means
 * "strictly positive" (qmol_param_def ranges are closed), and +-DBL_MAX means
 * "no bound"; params.c prints these as "> 0" or leaves the bound out.
 */
#ifndef QMOL_BUILTIN_H
#define QMOL_BUILTIN_H

#include "qmol.h"

extern const qmol_problem_def problem_adr1d;
extern const qmol_problem_def problem_adr1d_vardiff;
extern const qmol_problem_def problem_adr2d;
extern const qmol_problem_def problem_heat1d;
extern const qmol_problem_def problem_heat2d;
extern const qmol_problem_def problem_heat3d;
extern const qmol_problem_def problem_heat2d_thermostat;
extern const qmol_problem_def problem_diurnal;
extern const qmol_problem_def problem_pulse;
extern const qmol_problem_def problem_buck_heatsink;
extern const qmol_problem_def problem_liqss_pair;
extern const qmol_problem_def problem_relax;
extern const qmol_problem_def problem_bqss_a1;
extern const qmol_problem_def problem_bqss_a2;
extern const qmol_problem_def problem_offdiag_stiff;

/* adr1d's and adr2d's reaction r (u^2 - u^3), the one term of their rows
 * not linear in the row's values (their own_term), and its derivative. */
static inline double adr_reaction(double r, double u) {
    return r * (u * u - u * u * u);
}
static inline double adr_reaction_slope(double r, double u) {
    return r * (2.0 * u - 3.0 * u * u);
}

/* Largest number of states a built-in grid may have: keeps n * components and
 * every id arithmetic far from int64_t overflow. */
#define BUILTIN_MAX_STATES ((int64_t)1 << 53)

#endif
