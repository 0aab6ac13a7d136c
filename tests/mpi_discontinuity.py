#!/usr/bin/env python3
"""Discontinuities on several ranks: heat2d-thermostat under CVODE and the
mixed method (--bdf "x>0.6", the heater and sensor on QSS) at P = 1, 2 and
4, and under LIQSS2 and QSS2 at P = 1 and 2, switches the heater as often as
a tight one-rank reference (CVODE, tol 1e-9) and each switch lies within the
tolerance's time equivalent of it (10 (tol |u_s| + abstol) / |du_s/dt| + 3
tol t, as tests/test_discontinuity.c); /events lists each crossing once.
QSS stays at P <= 2: oversubscribed, each of its ~2e4 windows waits
milliseconds for the busy-polling ranks (P = 4 on two cores: 157 s).

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


def main():
    args = parse_args()
    mpiexec = shlex.split(args.mpiexec)
    base = ["run", "--problem", "heat2d-thermostat", "--set", "nx=12", "--set", "ny=12",
            "--overwrite", "--quiet"]
    ref = os.path.join(args.scratch, "thermostat-ref.h5")
    subprocess.run([args.qmol] + base + ["--method", "cvode", "--tol", "1e-9", "--abstol",
                                         "1e-10", "--samples", "2000", "--output", ref],
                   check=True)
    rt, _ = switch_times(ref)
    with h5py.File(ref, "r") as f:
        times, us = f["time"][()], f["states"][:, 6 + 12 * 6]
    dt = times[1] - times[0]
    speed = np.abs(np.interp(rt + dt, times, us) - np.interp(rt - dt, times, us)) / (2 * dt)
    allowed = 10 * (TOL * 1.1 + TOL / 10) / speed + 3 * TOL * rt
    failures = []
    runs = [("cvode", 1), ("cvode", 2), ("cvode", 4), ("liqss2", 1), ("liqss2", 2),
            ("qss2", 1), ("qss2", 2), ("mixed", 1), ("mixed", 2), ("mixed", 4)]
    extra = {"mixed": ["--bdf", "x>0.6"]}
    for method, p in runs:
        out = os.path.join(args.scratch, "thermostat-%s-np%d.h5" % (method, p))
        cmd = mpiexec + ["-np", str(p), args.qmol] + base + ["--method", method, "--tol",
                                                             str(TOL), "--output", out]
        cmd += extra.get(method, [])
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            failures.append("%s P=%d: exit %d: %s" % (method, p, r.returncode, r.stderr.strip()))
            continue
        t, ncross = switch_times(out)
        with h5py.File(out, "r") as f:
            counted = int(f["stats"].attrs["crossings"])
        if counted != ncross:
            failures.append("%s P=%d: /stats/crossings %d but %d in /events"
                            % (method, p, counted, ncross))
        if len(t) != len(rt):
            failures.append("%s P=%d: %d switches, reference %d" % (method, p, len(t), len(rt)))
            continue
        worst = float((np.abs(t - rt) / allowed).max())
        print("%-6s P=%d: %d switches, %d crossings in /events, worst |dt| / allowed = %.3f"
              % (method, p, len(t), ncross, worst))
        if worst > 1.0:
            failures.append("%s P=%d: a switch is %.2f allowed times off" % (method, p, worst))
    finish(failures)


if __name__ == "__main__":
    main()
