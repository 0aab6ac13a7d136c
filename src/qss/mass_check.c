/* mass_check.c: the balance of the states' sum (mass_check.h). */
#include "qss/mass_check.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Row i's Jacobian at c->x into e->dfdv: the problem's, or forward
 * differences entry by entry. Returns f_i(x). */
static double row_at_x(mass_check *c, qss_engine *e, int32_t i, double t) {
    const model *m = e->m;
    int64_t start = m->row_ptr[i], len = model_gather(m, i, c->x, e->vals);
    double f = model_rhs(m, i, t, e->vals, e->listed);
    e->stats->row_evals++;
    if (e->analytic_jac) {
        model_jac(m, i, t, e->vals, e->dfdv, e->listed);
        e->stats->jac_rows++;
        return f;
    }
    for (int64_t k = 0; k < len; k++) {
        double v = e->vals[k];
        double h = sqrt(DBL_EPSILON) * fmax(fabs(v), eng_quantum(e, m->row_col[start + k], v));
        e->vals[k] = v + h;
        e->dfdv[k] = (model_rhs(m, i, t, e->vals, e->listed) - f) / h;
        e->vals[k] = v;
    }
    e->stats->row_evals += (uint64_t)len;
    return f;
}

/* D and B at t (mass_check.h), with the states at t; returns sum dQ_i. */
static double balance_at(mass_check *c, qss_engine *e, double t) {
    const model *m = e->m;
    for (int32_t j = 0; j < m->n_cols; j++) {
        c->x[j] = eng_x_at(e, j, t);
        c->colsum[j] = 0.0;
    }
    double rate = 0.0, bound = 0.0, dq = 0.0;
    for (int32_t i = 0; i < m->n; i++) {
        rate += eng_xdot_at(e, i, t) - row_at_x(c, e, i, t);
        for (int64_t k = m->row_ptr[i]; k < m->row_ptr[i + 1]; k++)
            c->colsum[m->row_col[k]] += e->dfdv[k - m->row_ptr[i]];
    }
    for (int32_t i = 0; i < m->n; i++) {
        double q = eng_quantum(e, i, c->x[i]);
        bound += fabs(c->colsum[i]) * 2.0 * q;
        dq += q;
    }
    c->t = t;
    c->rate = rate;
    c->bound = bound;
    return dq;
}

int mass_check_init(mass_check *c, qss_engine *e, double t) {
    *c = (mass_check){0};
    size_t n = (size_t)e->m->n_cols + 1;
    c->x = malloc(n * sizeof *c->x);
    c->colsum = malloc(n * sizeof *c->colsum);
    if (!c->x || !c->colsum) return -1;
    balance_at(c, e, t);
    return 0;
}

int mass_check_window(mass_check *c, qss_engine *e, double T, char *err, size_t errlen) {
    double H = T - c->t, rate0 = c->rate, bound0 = c->bound;
    if (!(H > 0.0)) return 0;
    double quanta = balance_at(c, e, T);
    c->drift += 0.5 * H * (c->rate + rate0);
    c->allowed += 0.5 * H * (c->bound + bound0);
    double beyond = (fabs(c->drift) - c->allowed) / quanta;
    if (!(beyond > MASS_CHECK_LIMIT)) return 0;
    snprintf(err, errlen,
             "stopped at t=%.9g: the states' sum has drifted %.3g from the balance of their "
             "right-hand sides, %.3g times their summed quantum beyond what quantization "
             "allows (limit %g): its levels have frozen states away from where their ODE goes "
             "(fine diffusion grids at loose tolerances, docs/methods.md); use liqss1 or "
             "mliqss1, or a tighter --tol",
             T, fabs(c->drift), beyond, MASS_CHECK_LIMIT);
    return 1;
}

void mass_check_free(mass_check *c) {
    free(c->x);
    free(c->colsum);
    c->x = c->colsum = NULL;
}
