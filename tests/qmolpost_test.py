#!/usr/bin/env python3
"""scripts/qmolpost on small runs: adr2d on 2 ranks (LIQSS2), the same on one
rank, heat3d and heat1d (QSS2) and heat1d under CVODE.

  - plot, activity and partition write the PNG files they print (real PNGs,
    not empty), for 2D, 3D and 1D grids;
  - compare prints, per sample and over all, e_rr and max |a - b| equal (to
    the printed digits) to the values computed here from the two files;
  - errors exit with code 2 and one line naming the file: a missing file,
    activity of a CVODE run, compare of different problems.

usage: qmolpost_test.py --qmol BIN --mpiexec "mpiexec ..." --scratch DIR
"""
import argparse
import os
import shlex
import subprocess
import sys

import h5py
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
POST = os.path.join(ROOT, "scripts", "qmolpost")


def post(*args):
    return subprocess.run(["/usr/bin/python3", POST] + list(args), capture_output=True,
                          text=True, timeout=300)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qmol", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--scratch", required=True)
    args = ap.parse_args()
    d = os.path.join(args.scratch, "qmolpost")
    os.makedirs(d, exist_ok=True)
    failures = []
    runs = {"adr2d-np2": (2, ["--problem", "adr2d", "--set", "nx=30", "--set", "ny=20",
                              "--method", "liqss2", "--tf", "1"]),
            "adr2d-np1": (1, ["--problem", "adr2d", "--set", "nx=30", "--set", "ny=20",
                              "--method", "liqss2", "--tf", "1"]),
            "heat3d": (1, ["--problem", "heat3d", "--set", "nx=6", "--set", "ny=5", "--set",
                           "nz=4", "--method", "qss2", "--tf", "0.01"]),
            "heat1d": (1, ["--problem", "heat1d", "--set", "N=40", "--method", "qss2", "--tf",
                           "0.01"]),
            "heat1d-cvode": (1, ["--problem", "heat1d", "--set", "N=40", "--method", "cvode",
                                 "--tf", "0.01"])}
    for name, (p, extra) in runs.items():
        cmd = shlex.split(args.mpiexec) + ["-n", str(p), args.qmol, "run", "--samples", "4",
                                           "--output", os.path.join(d, name + ".h5"),
                                           "--overwrite", "--quiet"] + extra
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            sys.exit("FAIL: %s: exit %d: %s" % (name, r.returncode, r.stderr))
    for name in ("adr2d-np2", "heat3d", "heat1d"):
        h5 = os.path.join(d, name + ".h5")
        for kind in ("plot", "activity", "partition"):
            if kind == "partition" and name != "adr2d-np2":
                continue
            png = os.path.join(d, "%s-%s.png" % (name, kind))
            if os.path.exists(png):
                os.remove(png)
            r = post(kind, h5)
            ok = r.returncode == 0 and ("qmolpost: wrote " + png) in r.stdout and \
                os.path.exists(png)
            if ok:
                with open(png, "rb") as f:
                    ok = f.read(8) == b"\x89PNG\r\n\x1a\n" and os.path.getsize(png) > 5000
            if not ok:
                failures.append("%s %s: exit %d, %r %r" % (kind, name, r.returncode, r.stdout,
                                                         r.stderr))
            else:
                print("%s %s: %s" % (kind, name, png))
    a, b = os.path.join(d, "adr2d-np2.h5"), os.path.join(d, "adr2d-np1.h5")
    r = post("compare", a, b)
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        sa, sb = fa["states"][()], fb["states"][()]
    rows = [ln.split() for ln in r.stdout.splitlines()[2:]]
    want = [(np.linalg.norm(sa[k] - sb[k]) / np.linalg.norm(sb[k]), np.abs(sa[k] - sb[k]).max())
            for k in range(len(sa))]
    want.append((np.linalg.norm(sa - sb) / np.linalg.norm(sb), np.abs(sa - sb).max()))
    got = [(float(row[-2]), float(row[-1])) for row in rows]
    if r.returncode != 0 or len(got) != len(want) or any(
            abs(g[0] - w[0]) > 1e-3 * w[0] + 1e-15 or abs(g[1] - w[1]) > 1e-3 * w[1] + 1e-15
            for g, w in zip(got, want)):
        failures.append("compare: exit %d, printed %s, expected %s" % (r.returncode, got, want))
    else:
        print("compare: %d rows match (all: e_rr %.3e)" % (len(got), want[-1][0]))
    for argv, needle in ((["plot", os.path.join(d, "missing.h5")], "missing.h5"),
                         (["activity", os.path.join(d, "heat1d-cvode.h5")], "no /activity"),
                         (["compare", a, os.path.join(d, "heat1d.h5")], "shapes")):
        r = post(*argv)
        if r.returncode != 2 or needle not in r.stderr or len(r.stderr.splitlines()) != 1:
            failures.append("%s: exit %d, stderr %r (expected exit 2 naming %r)"
                            % (" ".join(argv[:1]), r.returncode, r.stderr, needle))
    for f in failures:
        print("FAIL: " + f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
