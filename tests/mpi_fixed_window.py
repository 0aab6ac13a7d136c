#!/usr/bin/env python3
"""Fixed windows (`--window DT`) on several ranks: a window is corrected but
never run again, so a length the coupling cannot take must stop the run, not
return a wrong answer (docs/parallel.md "Window length").

heat1d N = 100 (d/h^2 ~ 1e4 across the cut), LIQSS2 tol 1e-3 on 2 ranks:
- --window 3e-4: late updates move a reader by more than WINDOW_DRIFT_FAIL
  quanta. Before the check this ran to exit 0 with a max error of 31 to 147
  in a problem bounded by 1. Now: exit 1, a message naming --window, no
  result file (the working file and a checkpoint stay).
- --window 1e-5: within the rule e(P) <= 1.5 e(1) + tol/10 against the exact
  semi-discrete solution, e(1) the one-rank run's max error.

usage: mpi_fixed_window.py --qmol BIN --mpiexec "mpiexec --oversubscribe ..." --scratch DIR
"""
import argparse
import os
import shlex
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from accuracy import heat_exact  # noqa: E402

TOL = 1e-3


def run(args, ranks, out, extra):
    cmd = shlex.split(args.mpiexec) + ["-n", str(ranks), args.qmol, "run", "--problem",
                                       "heat1d", "--method", "liqss2", "--tol", repr(TOL),
                                       "--samples", "5", "--output", out, "--overwrite",
                                       "--quiet"] + extra
    return cmd, subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def max_error(path):
    with h5py.File(path, "r") as f:
        return float(np.abs(f["states"][()] - heat_exact(f)).max())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qmol", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--scratch", required=True)
    args = ap.parse_args()
    scratch = os.path.join(args.scratch, "fixed-window")
    os.makedirs(scratch, exist_ok=True)
    failures = []

    out = os.path.join(scratch, "long.h5")
    cmd, p = run(args, 2, out, ["--window", "3e-4"])
    text = p.stdout + p.stderr
    if p.returncode != 1:
        failures.append("--window 3e-4: exit %d, expected 1\n%s\n%s" % (p.returncode,
                                                                         " ".join(cmd), text))
    elif "--window" not in text or "quanta" not in text or "would be wrong" not in text:
        failures.append("--window 3e-4: the message does not name the window and its drift:\n"
                        + text)
    if os.path.exists(out):
        failures.append("--window 3e-4: %s was written" % out)
    print("--window 3e-4 on 2 ranks: exit %d" % p.returncode)

    errors = {}
    for ranks in (1, 2):
        out = os.path.join(scratch, "short-np%d.h5" % ranks)
        cmd, p = run(args, ranks, out, ["--window", "1e-5"])
        if p.returncode != 0:
            failures.append("--window 1e-5 P=%d: exit %d\n%s\n%s%s" % (
                ranks, p.returncode, " ".join(cmd), p.stdout, p.stderr))
            continue
        errors[ranks] = max_error(out)
        print("--window 1e-5 P=%d: max error %.3e" % (ranks, errors[ranks]))
    if len(errors) == 2 and errors[2] > 1.5 * errors[1] + TOL / 10:
        failures.append("--window 1e-5: P=2 max error %.3e > 1.5 x P=1 (%.3e) + tol/10"
                        % (errors[2], errors[1]))
    for msg in failures:
        print("FAIL: " + msg, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
