#!/usr/bin/env python3
"""Discontinuities on several ranks: heat2d-thermostat under CVODE and the
mixed method (--bdf "x>0.6", the heater and sensor on QSS) at P = 1, 2 and
4, and under LIQSS2 and QSS2 at P = 1 and 2, switches the heater as often as
a tight one-rank reference (CVODE, tol 1e-9) and each switch lies within the
tolerance's time equivalent of it (10 (tol |u_s| + abstol) / |du_s/dt| + 3
tol t, as tests/core/test_discontinuity.c); /events lists each crossing once.
QSS stays at P <= 2 there: oversubscribed, each of its ~2e4 windows waits
milliseconds for the busy-polling ranks (P = 4 on two cores: 157 s).

A second set, 16 x 16 with tf 0.3 and 10 samples, has windows that the
ranks reject and run again (the mixed method at P = 3, mLIQSS2 at P = 4):
the rejected windows' switches are taken back with the heater's state
(discrete_undo.h), so the same checks hold, each run repeats bit for bit,
and at least one of them rejected a window (else this part tests nothing;
which of them do depends on the engine's details)

usage: mpi_discontinuity.py --qmol BIN --mpiexec "mpiexec ..." --scratch DIR
"""
import os
import shlex
import subprocess

import h5py
import numpy as np
from script_support import finish, parse_args

TOL = 1e-4


def switch_times(path):
    with h5py.File(path, "r") as f:
        t, c, d = f["events/time"][()], f["events/crossing"][()], f["events/direction"][()]
    on, out = True, []
    for ti, ci, di in zip(t, c, d):
        if (on and ci == 0 and di > 0) or (not on and ci == 1 and di < 0):
            on = not on
            out.append(ti)
    return np.array(out), len(t)


def check_set(args, failures, n, span, runs, must_reject):
    """The runs on an n x n plate (span: [] or ["--tf", T, "--samples", K])."""
    mpiexec = shlex.split(args.mpiexec)
    base = ["run", "--problem", "heat2d-thermostat", "--set", "nx=%d" % n, "--set",
            "ny=%d" % n, "--overwrite", "--quiet"] + span
    ref = os.path.join(args.scratch, "thermostat%d-ref.h5" % n)
    plate = base[:len(base) - len(span)] + span[:2]  # the reference's own samples
    subprocess.run([args.qmol] + plate + ["--method", "cvode", "--tol", "1e-9", "--abstol",
                                          "1e-10", "--samples", "2000", "--output", ref],
                   check=True)
    rt, _ = switch_times(ref)
    with h5py.File(ref, "r") as f:
        times, us = f["time"][()], f["states"][:, n // 2 + n * (n // 2)]
    dt = times[1] - times[0]
    speed = np.abs(np.interp(rt + dt, times, us) - np.interp(rt - dt, times, us)) / (2 * dt)
    allowed = 10 * (TOL * 1.1 + TOL / 10) / speed + 3 * TOL * rt
    extra = {"mixed": ["--bdf", "x>0.6"]}
    rejections = []
    for method, p in runs:
        out = os.path.join(args.scratch, "thermostat%d-%s-np%d.h5" % (n, method, p))

        def command(path):
            return (mpiexec + ["-np", str(p), args.qmol] + base + extra.get(method, [])
                    + ["--method", method, "--tol", str(TOL), "--output", path])

        r = subprocess.run(command(out), capture_output=True, text=True)
        if r.returncode != 0:
            failures.append("%dx%d %s P=%d: exit %d: %s" % (n, n, method, p, r.returncode,
                                                            r.stderr.strip()))
            continue
        t, ncross = switch_times(out)
        with h5py.File(out, "r") as f:
            counted = int(f["stats"].attrs["crossings"])
            rejected = int(f["stats"].attrs.get("windows_rejected", 0))
            states = f["states"][()]
        name = "%dx%d %s P=%d" % (n, n, method, p)
        if counted != ncross:
            failures.append("%s: /stats/crossings %d but %d in /events" % (name, counted, ncross))
        if must_reject:
            rejections.append(rejected)
            again = out[:-3] + "-again.h5"
            subprocess.run(command(again), check=True, capture_output=True)
            with h5py.File(again, "r") as f:
                if not np.array_equal(f["states"][()], states):
                    failures.append("%s: a second run differs (not bit for bit)" % name)
        if len(t) != len(rt):
            failures.append("%s: %d switches, reference %d" % (name, len(t), len(rt)))
            continue
        worst = float((np.abs(t - rt) / allowed).max())
        print("%-16s: %d switches, %d crossings in /events, %d windows rejected, worst |dt| / "
              "allowed = %.3f" % (name, len(t), ncross, rejected, worst))
        if worst > 1.0:
            failures.append("%s: a switch is %.2f allowed times off" % (name, worst))
    if must_reject and not any(rejections):
        failures.append("%dx%d: no run rejected a window: the undo of switches is not "
                        "exercised" % (n, n))


def main():
    args = parse_args()
    failures = []
    check_set(args, failures, 12, [],
              [("cvode", 1), ("cvode", 2), ("cvode", 4), ("liqss2", 1), ("liqss2", 2),
               ("qss2", 1), ("qss2", 2), ("mixed", 1), ("mixed", 2), ("mixed", 4)], False)
    check_set(args, failures, 16, ["--tf", "0.3", "--samples", "10"],
              [("mixed", 3), ("mliqss2", 4)], True)
    finish(failures)


if __name__ == "__main__":
    main()
