"""What the Python test scripts that run qmol share: their command line
(--qmol BIN, --mpiexec "mpiexec ...", --scratch DIR) and their verdict (every
failure printed as FAIL: ..., exit 1 if any)."""
import argparse
import os
import sys


def parse_args(subdir=None, parts=None):
    """The arguments; args.scratch (scratch/subdir with subdir) exists. With
    parts (names), --part NAME chooses one (args.part)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--qmol", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--scratch", required=True)
    if parts:
        ap.add_argument("--part", required=True, choices=parts)
    args = ap.parse_args()
    if subdir:
        args.scratch = os.path.join(args.scratch, subdir)
    if parts:
        args.scratch = os.path.join(args.scratch, args.part)
    os.makedirs(args.scratch, exist_ok=True)
    return args


def finish(failures):
    for f in failures:
        print("FAIL: " + f)
    sys.exit(1 if failures else 0)
