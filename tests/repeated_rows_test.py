#!/usr/bin/env python3
"""Rows that list a state more than once (registered by tests/repeated_rows.cmake).

A plugin integrates u' = d u_xx on [0, 1] with reflecting (Neumann) ends on N
states, the ends written as a reflection, so that their rows repeat a state:

  nodes (cells=0), x_i = i h, h = 1/(N-1): the ghost beyond an end node is
    its neighbour, u_0' = d (u_1 - 2 u_0 + u_1) / h^2 lists u_1 twice;
  cells (cells=1), x_i = (i + 1/2) h, h = 1/N: the ghost beyond an end cell
    is the cell itself, u_0' = d (u_0 - 2 u_0 + u_1) / h^2 lists u_0 twice
    (its diagonal entry).

Either way the semi-discrete system has the eigenvectors cos(pi k x_i) with
the eigenvalues lambda_k = -(4 d / h^2) sin^2(pi k h / 2) (check: at the end
node, 2 (cos(pi k h) - 1) = -4 sin^2(pi k h / 2)), so from u_i(0) =
cos(pi k x_i)

    u_i(t) = cos(pi k x_i) exp(lambda_k t)

exactly: no discretization error to allow for. Each run (CVODE, LIQSS2,
mLIQSS2 and the mixed method; the problem's Jacobian and differences; 1 rank,
and 2 ranks with the states dealt alternately, so that on nodes each end row
reads its repeated neighbour as a ghost) must end with max |u - exact| <=
10 tol. The same system with each state listed once and the stencil folded
(repeat=0) runs alongside as the control: on cells the two runs must agree
bit for bit, on nodes within tol.

usage: repeated_rows_test.py --qmol QMOL --mpiexec "MPIEXEC ..." --source-dir DIR
                             --scratch DIR
"""
import argparse
import math
import os
import shlex
import shutil
import subprocess
import sys

import h5py
import numpy as np

PLUGIN = r"""#include "qmol.h"
#include <math.h>
#include <stdlib.h>

typedef struct reflect {
    int64_t n;
    double d, k, h;
    int cells, repeat;
} reflect;

static int rf_end(const reflect *p, int64_t i) {
    return i == 0 || i == p->n - 1;
}

static int rf_size(const void *data, int64_t i) {
    const reflect *p = data;
    return rf_end(p, i) && !p->repeat ? 2 : 3;
}

/* An end reflects its neighbour nb about itself (nodes: the ghost is nb)
 * or about its outer face (cells: the ghost is the cell itself), listed as
 * such (repeat = 1), or once with the stencil folded (repeat = 0). */
static void rf_row(const void *data, int64_t i, int64_t *cols) {
    const reflect *p = data;
    int64_t nb = i == 0 ? 1 : i - 1;
    if (!rf_end(p, i)) {
        cols[0] = i - 1, cols[1] = i, cols[2] = i + 1;
    } else if (!p->repeat) {
        cols[0] = i, cols[1] = nb;
    } else if (p->cells) {
        cols[0] = i, cols[1] = i, cols[2] = nb;
    } else {
        cols[0] = nb, cols[1] = i, cols[2] = nb;
    }
}

static double rf_rhs(const void *data, int64_t i, double t, const double *v) {
    (void)t;
    const reflect *p = data;
    double c = p->d / (p->h * p->h);
    if (rf_size(data, i) == 2) return (p->cells ? 1.0 : 2.0) * c * (v[1] - v[0]);
    return c * (v[0] - 2.0 * v[1] + v[2]);
}

/* Per listed position: a repeated state gets one entry per listing. */
static void rf_jac(const void *data, int64_t i, double t, const double *v, double *dfdv) {
    (void)t, (void)v;
    const reflect *p = data;
    double c = p->d / (p->h * p->h);
    if (rf_size(data, i) == 2) {
        double w = p->cells ? c : 2.0 * c;
        dfdv[0] = -w, dfdv[1] = w;
        return;
    }
    dfdv[0] = c, dfdv[1] = -2.0 * c, dfdv[2] = c;
}

/* The mode k: cos(pi k x) at the nodes x = i h, h = 1/(N-1), or at the cell
 * centres x = (i + 1/2) h, h = 1/N. */
static double rf_x0(const void *data, int64_t i) {
    const reflect *p = data;
    return cos(M_PI * p->k * ((double)i + (p->cells ? 0.5 : 0.0)) * p->h);
}

static const qmol_param_def params[] = {
    {"N", 20, 2, 1e6, 1, "states"},
    {"d", 1.0, 0.0, 1e3, 0, "diffusivity"},
    {"k", 2, 0, 1e6, 1, "mode of the initial cosine"},
    {"jac", 1, 0, 1, 1, "1: the problem's Jacobian, 0: none"},
    {"repeat", 1, 0, 1, 1, "1: an end lists the reflected state twice, 0: once"},
    {"cells", 0, 0, 1, 1, "0: nodes on the ends (x = i/(N-1)), 1: cells (x = (i+1/2)/N)"},
};

static int rf_create(const double *v, qmol_problem *out, char *err, size_t errlen) {
    (void)err, (void)errlen;
    reflect *p = malloc(sizeof *p);
    if (!p) return 1;
    int cells = v[5] != 0.0;
    *p = (reflect){.n = (int64_t)v[0], .d = v[1], .k = v[2],
                   .h = 1.0 / (cells ? v[0] : v[0] - 1.0), .cells = cells,
                   .repeat = v[4] != 0.0};
    *out = (qmol_problem){.n = p->n, .t0 = 0.0, .tf = 0.05, .data = p, .row_size = rf_size,
                          .row = rf_row, .rhs = rf_rhs, .jac = v[3] != 0.0 ? rf_jac : NULL,
                          .x0 = rf_x0, .destroy = free, .components = 1};
    return 0;
}

static const qmol_problem_def def = {.api_version = QMOL_API_VERSION,
                                     .name = "reflect",
                                     .summary = "1D heat, reflecting ends as repeated states",
                                     .equations = "u' = d u_xx, u_x = 0 at both ends",
                                     .params = params,
                                     .nparams = 6,
                                     .create = rf_create};

const qmol_problem_def *qmol_plugin_problem(void) { return &def; }
"""

N, D, K, TF = 20, 1.0, 2, 0.05
ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
# method: (tol, C) with max |u - exact| <= C tol over the run. CVODE at 1e-6
# with abstol 1e-8; the QSS methods at 1e-3 (abstol 1e-4: their error is a
# few quanta); the mixed method (cells 10.. on BDF) likewise.
RUNS = {"cvode": (1e-6, 10.0), "liqss2": (1e-3, 10.0), "mliqss2": (1e-3, 10.0),
        "mixed": (1e-3, 10.0)}


def exact(t, cells):
    """The mode K of the reflecting Laplacian: cos(pi K x_i) exp(lambda t),
    lambda = -(4 D / h^2) sin^2(pi K h / 2), at the nodes x_i = i h, h = 1/(N-1)
    (an end's row reads its neighbour twice), or at the cell centres x_i =
    (i + 1/2) h, h = 1/N (an end's row reads itself twice)."""
    h = 1.0 / N if cells else 1.0 / (N - 1)
    x = (np.arange(N) + (0.5 if cells else 0.0)) * h
    lam = -(4.0 * D / h ** 2) * math.sin(math.pi * K * h / 2.0) ** 2
    return np.cos(math.pi * K * x)[None, :] * np.exp(lam * np.asarray(t))[:, None]


def run(args, so, scratch, method, ranks, sets):
    tol, bound = RUNS[method]
    name = "%s-np%d-%s" % (method, ranks, "-".join(s.replace("=", "") for s in sets))
    out = os.path.join(scratch, name + ".h5")
    cmd = (shlex.split(args.mpiexec) + ["-n", str(ranks)] if ranks > 1 else []) + [
        args.qmol, "run", "--problem", so, "--method", method, "--tol", repr(tol),
        "--abstol", repr(tol / 100 if method == "cvode" else tol / 10), "--samples", "5",
        "--output", out, "--overwrite", "--quiet"]
    for s in sets:
        cmd += ["--set", s]
    if method == "mixed":
        cmd += ["--bdf", "i>=10"]
    if ranks > 1:
        cmd += ["--partition", "file:" + os.path.join(scratch, "alternate.txt")]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=ENV)
    if p.returncode != 0:
        return name, None, None, "exit %d: %s%s" % (p.returncode, p.stdout, p.stderr)
    with h5py.File(out, "r") as f:
        t, u = f["time"][()], f["states"][()]
    err = float(np.max(np.abs(u - exact(t, "cells=1" in sets))))
    return name, err, u, None if err <= bound * tol else "max error %.3g > %g x tol %g" % (
        err, bound, tol)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qmol", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--scratch", required=True)
    args = ap.parse_args()
    args.qmol = os.path.abspath(args.qmol)
    scratch = os.path.abspath(args.scratch)
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    src, so = os.path.join(scratch, "reflect.c"), os.path.join(scratch, "reflect.so")
    with open(src, "w") as fh:
        fh.write(PLUGIN)
    cc = shutil.which("cc") or shutil.which("gcc")
    r = subprocess.run([cc, "-std=c11", "-D_DEFAULT_SOURCE", "-Wall", "-Wextra", "-Werror",
                        "-shared", "-fPIC", "-I", os.path.join(args.source_dir, "include"),
                        "-o", so, src, "-lm"], capture_output=True, text=True)
    if r.returncode != 0:
        print("FAIL: cc: " + r.stderr)
        return 1
    with open(os.path.join(scratch, "alternate.txt"), "w") as fh:
        fh.write("".join("%d\n" % (i % 2) for i in range(N)))
    failures = []
    for ranks in (1, 2):
        for method in RUNS:
            for cells in (0, 1):
                for jac in (1, 0):
                    u = {}
                    for repeat in (1, 0):
                        sets = ["cells=%d" % cells, "jac=%d" % jac, "repeat=%d" % repeat]
                        name, err, u[repeat], why = run(args, so, scratch, method, ranks, sets)
                        print("%-4s %-34s max |u - exact| %s" % (
                            "ok" if why is None else "FAIL", name,
                            "-" if err is None else "%.3g" % err), flush=True)
                        if why:
                            failures.append("%s: %s" % (name, why))
                    if u[0] is None or u[1] is None:
                        continue
                    # the listing against the control: the same system; on
                    # cells, (i, i, nb) is the control's (i, nb) once merged and
                    # its f and Jacobian round alike (v0 - 2 v0 = -v0, c - 2c =
                    # -c): bit for bit; on nodes, (nb, i, nb) becomes (nb, i),
                    # the control's order reversed: within the tolerance
                    gap = float(np.max(np.abs(u[1] - u[0])))
                    tol = RUNS[method][0]
                    ok = gap == 0.0 if cells else gap <= tol
                    print("%-4s %-34s max |repeat=1 - repeat=0| %.3g" % (
                        "ok" if ok else "FAIL", name.replace("-repeat0", ""), gap), flush=True)
                    if not ok:
                        failures.append("%s: repeat=1 and repeat=0 differ by %.3g" % (name, gap))
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
