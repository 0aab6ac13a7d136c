"""anchor: the hand-written SUNDIALS program of adr2d (adr2d_cvode.c beside
this file, issue 21's benchmark anchor), built, run and checked against qmol.
Used by scripts/bench-engine (section anchor) and tests/anchor_test.py, so
that both build it the same way.

  build(out_dir)        compile adr2d_cvode.c with the system compiler ($CC,
                        else cc) and Debian's libsundials-dev into
                        out_dir/adr2d_cvode; returns its path
  run_anchor(exe, n, tf, tol, precond, threads, state, env=None, integrator=None)
                        one run (precond jacobi or ilu0, threads "serial" or
                        a count; integrator (name, R): bdf or dirk[2-5],
                        interrupted every R of t, 0 never): its counters
                        (steps, linear_iters, ..., wall_integrate) and the
                        final states in the file state
  build_active(out_dir) the same of adr2d_active.c (issue 20's BDF block
                        whose active states move without a restart)
  run_active(exe, n, tf, tol, precond, state, every, margin, c, env=None)
                        one run of it (plan every `every` of t, `margin`
                        cells, core threshold c): its counters and final
                        states, as run_anchor
  read_state(path)      the final states an anchor run wrote (numpy array)
  qmol_args(n, tf, tol, precond)
                        qmol's run arguments for the same problem (CVODE,
                        SPGMR, --precond precond)
  qmol_final(qmol, n, tf, tol, out, env)
                        qmol's final states at tol (Jacobi), for validation
  validate(qmol, exe, scratch)
                        max |anchor - qmol| of the final states at a tight
                        tolerance, for each preconditioner and vector

Errors (a failed build or run) raise AnchorError with the command's stderr.
"""
import os
import shutil
import subprocess
import sys

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from accuracy import read_stats  # noqa: E402 (scripts/accuracy.py)

SOURCE = os.path.join(HERE, "adr2d_cvode.c")
ACTIVE_SOURCE = os.path.join(HERE, "adr2d_active.c")
CFLAGS = ["-std=c11", "-O2", "-fopenmp", "-Wall", "-Wextra"]
LIBS = ["-lsundials_cvode", "-lsundials_arkode", "-lsundials_sunlinsolspgmr",
        "-lsundials_nvecserial", "-lsundials_nvecopenmp", "-lm"]
SUNDIALS_HEADER = "/usr/include/cvode/cvode.h"  # Debian's libsundials-dev

# validate's problem: small, tight, and long enough for the front to move
VALID_N, VALID_TF, VALID_TOL = 20, 0.5, 1e-8
VALID_MAX_DIFF = 1e-6  # max |anchor - qmol| accepted at VALID_TOL


class AnchorError(Exception):
    pass


def compiler():
    cc = shutil.which(os.environ.get("CC", "cc"))
    if not cc:
        raise AnchorError("no C compiler: set CC or install gcc (Debian: build-essential)")
    return cc


def build(out_dir, source=SOURCE):
    if not os.path.exists(SUNDIALS_HEADER):
        raise AnchorError("%s not found: install the Debian package libsundials-dev"
                          % SUNDIALS_HEADER)
    os.makedirs(out_dir, exist_ok=True)
    exe = os.path.join(out_dir, os.path.splitext(os.path.basename(source))[0])
    cmd = [compiler()] + CFLAGS + [source, "-o", exe] + LIBS
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if done.returncode != 0:
        raise AnchorError("building %s failed: %s\n%s" % (os.path.basename(source),
                                                          " ".join(cmd), done.stdout))
    return exe


def build_active(out_dir):
    return build(out_dir, ACTIVE_SOURCE)


def run_anchor(exe, n, tf, tol, precond, threads, state, env=None, integrator=None):
    cmd = [exe, str(n), repr(tf), repr(tol), precond, str(threads), state]
    if integrator:  # (name, R): bdf or dirk[2-5], interrupted every R (0: never)
        cmd += [integrator[0], repr(integrator[1])]
    return counters_of(cmd, env)


def run_active(exe, n, tf, tol, precond, state, every, margin, c, env=None):
    return counters_of([exe, str(n), repr(tf), repr(tol), precond, state, repr(every),
                        str(margin), repr(c)], env)


def counters_of(cmd, env):
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          env=env)
    if done.returncode != 0:
        raise AnchorError("%s failed (exit %d): %s" % (" ".join(cmd), done.returncode,
                                                       done.stderr.strip()))
    counters = {}
    for line in done.stdout.splitlines():
        name, value = line.split()
        counters[name] = float(value) if name.startswith("wall") else int(value)
    return counters


def read_state(path):
    return np.fromfile(path, dtype=np.float64)


def qmol_args(n, tf, tol, precond):
    return ["--problem", "adr2d", "--set", "nx=%d" % n, "--set", "ny=%d" % n, "--tf", repr(tf),
            "--method", "cvode", "--linsol", "spgmr", "--precond", precond, "--tol", repr(tol),
            "--checkpoint-every", "off", "--keep-last-window", "off", "--samples", "2"]


def qmol_final(qmol, n, tf, tol, out, env=None):
    cmd = [qmol, "run"] + qmol_args(n, tf, tol, "jacobi") + ["--output", out, "--overwrite",
                                                             "--quiet"]
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          env=env)
    if done.returncode != 0:
        raise AnchorError("%s failed (exit %d): %s" % (" ".join(cmd), done.returncode,
                                                       done.stderr.strip()))
    with h5py.File(out, "r") as f:
        return f["states"][-1], read_stats(out)


def validate(qmol, exe, scratch, n=VALID_N, tf=VALID_TF, tol=VALID_TOL):
    """(qmol's final states, its /stats, {(precond, threads): (max |anchor -
    qmol|, the anchor's counters, its final states)}), qmol on one thread."""
    os.makedirs(scratch, exist_ok=True)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    ref, stats = qmol_final(qmol, n, tf, tol, os.path.join(scratch, "valid-qmol.h5"), env)
    # Untimed: OpenMP threads that sleep at a barrier rather than spin. On a
    # busy machine the 2-thread runs take 0.2 s so, 4 s with libgomp's
    # default and 14 s spinning (20 x 20, load 13 on 2 cores).
    env = dict(os.environ)
    env.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    runs = {}
    for precond in ("jacobi", "ilu0"):
        for threads in ("serial", 2):
            state = os.path.join(scratch, "valid-%s-%s.bin" % (precond, threads))
            counters = run_anchor(exe, n, tf, tol, precond, threads, state, env)
            x = read_state(state)
            runs[(precond, threads)] = (float(np.max(np.abs(x - ref))), counters, x)
    return ref, stats, runs
