#!/usr/bin/env python3
"""Many one-rank runs at once, started without mpirun, as a parameter study
starts them: every run must succeed.

qmol runs such a process as an isolated Open MPI singleton (src/driver/main.c). All
isolated singletons share one session directory path, which the first to
finish removes; while MPI-IO kept its shared-file-pointer file there, about
1 run in 90 failed with "cannot create HDF5 file: MPI_File_open failed"
(2 of 180 in 30 rounds of 6). This test runs 50 rounds of 6 (300 runs):
with that failure rate it fails 96 times in 100.

usage: singleton_runs_test.py --qmol BIN --scratch DIR
"""
import argparse
import os
import subprocess
import sys

ROUNDS, AT_ONCE = 50, 6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qmol", required=True)
    ap.add_argument("--scratch", required=True)
    args = ap.parse_args()
    os.makedirs(args.scratch, exist_ok=True)
    env = {k: v for k, v in os.environ.items()
           if not (k.startswith("OMPI_") or k.startswith("PMIX_") or k.startswith("PMI_"))}
    failures = []
    for r in range(ROUNDS):
        procs = []
        for j in range(AT_ONCE):
            out = os.path.join(args.scratch, "run-%d.h5" % j)
            cmd = [args.qmol, "run", "--problem", "heat1d", "--set", "N=20", "--method", "qss1",
                   "--tol", "1e-2", "--samples", "3", "--quiet", "--output", out, "--overwrite"]
            procs.append((cmd, subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                                stderr=subprocess.STDOUT, text=True, env=env)))
        for cmd, p in procs:
            text, _ = p.communicate(timeout=120)
            if p.returncode != 0:
                failures.append("round %d: %s: exit %d\n%s" % (r, " ".join(cmd), p.returncode,
                                                               text))
    print("%d runs, %d at a time: %d failed" % (ROUNDS * AT_ONCE, AT_ONCE, len(failures)))
    for msg in failures[:3]:
        print("FAIL: " + msg, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
