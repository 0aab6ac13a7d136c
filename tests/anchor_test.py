"""The benchmark anchor (scripts/anchor/adr2d_cvode.c, issue 21), built as
scripts/bench-engine builds it (scripts/anchor/anchor.py), against qmol.

- adr2d 20 x 20, tf 0.5, tol 1e-8: the anchor's final states with each
  preconditioner (jacobi, ilu0) and vector (serial, OpenMP on 2 threads)
  agree with qmol's CVODE (one thread, Jacobi) to 1e-6, where the states
  moved by more than 0.1 from u(0) (the front advanced): the same system;
- the anchor's Jacobi run on serial vectors takes qmol's steps and linear
  iterations (within 3% + 2): CVODE set up alike (tolerances, SPGMR's
  Krylov dimension, restarts and side, the stored Jacobian in J v);
- the same at tol 1e-8 with CVODE started again every 0.1 of t, and with
  ARKStep's DIRK, whole and resized every 0.1 (issue 20's restart
  measurements, docs/methods.md): within 1e-6 of qmol, 4 restarts each;
  an integrator or interval it does not know: exit 2 with its usage;
- adr2d 100 x 100, tf 0.5, tol 1e-3: ILU(0) agrees with Jacobi within
  2 tol and takes fewer linear iterations (it is a better preconditioner
  than Jacobi, so it is the factorization it claims).
- adr2d_active (issue 20's BDF block whose states move without a restart,
  scripts/anchor/adr2d_active.c) on 60 x 60, tf 3, tol 1e-3 and 1e-4, with
  ILU(0) and Jacobi, a margin of 4 cells: its final e_rr against qmol's CVODE at 1e-8 is at most
  1.5 times the whole CVODE's (the anchor's) at the same tol, with states
  entering and leaving the set at 20 plans or more and under half of the
  states active on average; bad arguments exit 2 with the usage.
"""
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "scripts", "anchor"))
sys.path.insert(0, HERE)
import anchor  # noqa: E402
from script_support import finish, parse_args  # noqa: E402


def initial(n):
    """u(0) of adr2d (problems/adr2d.c): 1 on ix < 0.2 n, iy < 0.5 n."""
    ix, iy = np.meshgrid(np.arange(n), np.arange(n))
    return ((ix < int(0.2 * n + 1e-9)) & (iy < int(0.5 * n + 1e-9))).astype(float).ravel()


def close_counts(a, b):
    return abs(a - b) <= 0.03 * max(a, b) + 2


def main():
    args = parse_args("anchor")
    failures = []
    exe = anchor.build(args.scratch)

    ref, stats, runs = anchor.validate(args.qmol, exe, args.scratch)
    moved = np.max(np.abs(ref - initial(anchor.VALID_N)))
    print("qmol: %d steps, %d linear iterations; max |u(tf) - u(0)| %.3g"
          % (stats["nst"], stats["nli"], moved))
    if moved < 0.1:
        failures.append("qmol's states at tf moved by only %.3g from u(0)" % moved)
    for (precond, threads), (diff, c, _) in sorted(runs.items(), key=str):
        print("anchor %s %s: %d steps, %d linear iterations, max |anchor - qmol| %.3g"
              % (precond, threads, c["steps"], c["linear_iters"], diff))
        if not diff < anchor.VALID_MAX_DIFF:
            failures.append("anchor %s %s: max |anchor - qmol| = %.3g (at most %g)"
                            % (precond, threads, diff, anchor.VALID_MAX_DIFF))
    jac, ilu = runs[("jacobi", "serial")], runs[("ilu0", "serial")]
    if not np.max(np.abs(jac[2] - ilu[2])) < anchor.VALID_MAX_DIFF:
        failures.append("anchor ilu0 and jacobi differ by %.3g at tol %g"
                        % (np.max(np.abs(jac[2] - ilu[2])), anchor.VALID_TOL))
    for name, q in (("steps", "nst"), ("linear_iters", "nli")):
        if not close_counts(jac[1][name], stats[q]):
            failures.append("anchor jacobi serial: %s %d, qmol's %s %d: not set up alike"
                            % (name, jac[1][name], q, stats[q]))

    # issue 20's variants: CVODE started again every 0.1 of t, ARKStep's
    # DIRK whole and resized every 0.1: the same system, to the same 1e-6
    every = 0.1
    for integrator in (("bdf", every), ("dirk", 0.0), ("dirk", every)):
        state = os.path.join(args.scratch, "valid-%s-%g.bin" % integrator)
        c = anchor.run_anchor(exe, anchor.VALID_N, anchor.VALID_TF, anchor.VALID_TOL, "ilu0",
                              "serial", state, integrator=integrator)
        diff = float(np.max(np.abs(anchor.read_state(state) - ref)))
        want = round(anchor.VALID_TF / every) - 1 if integrator[1] else 0
        print("anchor %s every %g: %d steps, %d restarts, max |anchor - qmol| %.3g"
              % (integrator + (c["steps"], c["restarts"], diff)))
        if not diff < anchor.VALID_MAX_DIFF:
            failures.append("anchor %s every %g: max |anchor - qmol| = %.3g (at most %g)"
                            % (integrator + (diff, anchor.VALID_MAX_DIFF)))
        if c["restarts"] != want:
            failures.append("anchor %s every %g: %d restarts, not %d"
                            % (integrator + (c["restarts"], want)))

    # bad integrator arguments: a usage message, exit 2, nothing written
    for bad in (["dirk7", "0"], ["rk4", "0"], ["bdf", "-1"], ["bdf", "x"]):
        state = os.path.join(args.scratch, "bad.bin")
        if os.path.exists(state):
            os.remove(state)
        done = subprocess.run([exe, "8", "0.1", "1e-3", "ilu0", "serial", state] + bad,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if done.returncode != 2 or "usage" not in done.stderr or os.path.exists(state):
            failures.append("anchor %s: exit %d, stderr %r, %s written"
                            % (" ".join(bad), done.returncode, done.stderr.strip(),
                               "something" if os.path.exists(state) else "nothing"))

    n, tf, tol = 100, 0.5, 1e-3
    loose = {}
    for precond in ("jacobi", "ilu0"):
        state = os.path.join(args.scratch, "loose-%s.bin" % precond)
        loose[precond] = (anchor.run_anchor(exe, n, tf, tol, precond, "serial", state),
                          anchor.read_state(state))
    (cj, xj), (ci, xi) = loose["jacobi"], loose["ilu0"]
    diff = np.max(np.abs(xj - xi))
    print("%d x %d tol %g: linear iterations jacobi %d, ilu0 %d; max |ilu0 - jacobi| %.3g"
          % (n, n, tol, cj["linear_iters"], ci["linear_iters"], diff))
    if not diff < 2 * tol:
        failures.append("%d x %d tol %g: ilu0 and jacobi differ by %.3g" % (n, n, tol, diff))
    if not ci["linear_iters"] < cj["linear_iters"]:
        failures.append("%d x %d tol %g: ilu0 took %d linear iterations, jacobi %d"
                        % (n, n, tol, ci["linear_iters"], cj["linear_iters"]))
    active_block(args, exe, failures)
    finish(failures)


def e_rr(x, ref):
    return float(np.linalg.norm(x - ref) / np.linalg.norm(ref))


def active_block(args, exe, failures):
    """adr2d_active (issue 20): CVODE over the states near the front, the set
    moving without a restart, against the whole CVODE at the same tol."""
    active = anchor.build_active(args.scratch)
    n, tf = 60, 3.0
    ref, _ = anchor.qmol_final(args.qmol, n, tf, 1e-8,
                               os.path.join(args.scratch, "active-ref.h5"),
                               dict(os.environ, OMP_NUM_THREADS="1"))
    for tol in (1e-3, 1e-4):
        state = os.path.join(args.scratch, "whole.bin")
        whole = anchor.run_anchor(exe, n, tf, tol, "ilu0", "serial", state)
        e_whole = e_rr(anchor.read_state(state), ref)
        for precond in ("ilu0", "jacobi"):
            state = os.path.join(args.scratch, "active-%s.bin" % precond)
            c = anchor.run_active(active, n, tf, tol, precond, state, 0.1, 4, 1.0)
            e = e_rr(anchor.read_state(state), ref)
            what = "active %s tol %g" % (precond, tol)
            print("%s: %d steps (whole %d), %d plans, %d entered, %d left, %d active of %d "
                  "on average; e_rr %.3g (whole %.3g)"
                  % (what, c["steps"], whole["steps"], c["plans"], c["entered"], c["left"],
                     c["mean_active"], c["states"], e, e_whole))
            # the same accuracy as the whole CVODE (measured 0.25-0.9x of
            # its e_rr), on under half of the states, moving both ways
            if not e <= 1.5 * e_whole:
                failures.append("%s: e_rr %.3g, whole CVODE's %.3g" % (what, e, e_whole))
            if not (c["entered"] > 0 and c["left"] > 0 and c["plans"] >= 20):
                failures.append("%s: %d plans, %d entered, %d left: the set did not move"
                                % (what, c["plans"], c["entered"], c["left"]))
            if not c["mean_active"] < 0.5 * c["states"]:
                failures.append("%s: %d of %d states active on average"
                                % (what, c["mean_active"], c["states"]))
    for bad in (["0", "8", "1"], ["0.1", "-1", "1"], ["0.1", "2.5", "1"], ["0.1", "8", "0"],
                ["0.1", "8"]):
        state = os.path.join(args.scratch, "bad-active.bin")
        if os.path.exists(state):
            os.remove(state)
        done = subprocess.run([active, "8", "0.1", "1e-3", "ilu0", state] + bad,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if done.returncode != 2 or "usage" not in done.stderr or os.path.exists(state):
            failures.append("adr2d_active %s: exit %d, stderr %r" % (" ".join(bad),
                            done.returncode, done.stderr.strip()))


if __name__ == "__main__":
    main()
