#!/usr/bin/env python3
"""CVODE's results do not depend on the thread count, bit for bit.

Above CV_ILU_THREADED_ROWS owned rows (200,000) on a 2D or 3D grid, ILU(0)'s
set-up and substitutions run on the threads in slabs of x that wait on each
other (src/cvode/cvode_ilu_plan.c), and the vectors' sums are taken in parts
fixed by the length (src/cvode/cvode_vector.c). Each is the one-thread
arithmetic, so runs on 1, 2 and 3 threads must write the same /states:

  - adr2d 460 x 460 (211,600 states), tf 0.05, tol 1e-3, the default
    preconditioner (ILU(0));
  - heat3d 60^3 (216,000 states, slabs of x across y and z), tf 1e-3.

usage: cvode_threads_test.py --qmol BIN --mpiexec "mpiexec ..." --scratch DIR
"""
import os
import subprocess
import sys

import h5py
import numpy as np

from script_support import finish, parse_args

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from accuracy import read_stats  # noqa: E402

CASES = {
    "adr2d-460": ["--problem", "adr2d", "--set", "nx=460", "--set", "ny=460", "--tf", "0.05"],
    "heat3d-60": ["--problem", "heat3d", "--set", "nx=60", "--set", "ny=60", "--set", "nz=60",
                  "--tf", "1e-3"],
}


def run(args, name, problem, threads):
    path = os.path.join(args.scratch, "%s-t%d.h5" % (name, threads))
    cmd = [args.qmol, "run"] + problem + ["--method", "cvode", "--tol", "1e-3", "--samples", "3",
                                          "--output", path, "--overwrite", "--quiet"]
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd), r.returncode, r.stderr))
    with h5py.File(path, "r") as f:
        return f["states"][()], read_stats(path)["nst"]


def main():
    args = parse_args("cvode-threads")
    fails = []
    for name, problem in CASES.items():
        one, steps = run(args, name, problem, 1)
        for threads in (2, 3):
            other, _ = run(args, name, problem, threads)
            same = one.shape == other.shape and np.array_equal(one, other)
            diff = float(np.max(np.abs(one - other))) if one.shape == other.shape else float("nan")
            print("%s: %d threads against 1: identical %s (max difference %.3g, %s steps)"
                  % (name, threads, same, diff, steps))
            if not same:
                fails.append("%s: %d threads differ from 1 (max %.3g)" % (name, threads, diff))
    finish(fails)


if __name__ == "__main__":
    main()
