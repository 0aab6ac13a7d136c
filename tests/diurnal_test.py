#!/usr/bin/env python3
"""The diurnal problem against SUNDIALS' published cvDiurnal_kry output
(registered by tests/problems.cmake as problem.diurnal_example).

usage: diurnal_test.py --qmol QMOL --scratch DIR

Runs `qmol run --problem diurnal --method cvode` at a tight tolerance
(--tol 1e-8) at the example's 12 output times and compares c1 and c2 at the
three grid points the example prints (bottom left (0, 0), middle (4, 4), top
right (9, 9)) with cvDiurnal_kry.out. Exits 1 on any mismatch.

How close the values must be. The example prints 4 significant digits
(%12.3e), so a printed value v stands for [v - h, v + h], h half a unit in
its last digit (up to 5e-4 of v). The example itself ran at reltol 1e-5,
abstol 1e-3, so its values are off by its own global error as well: qmol's
CVODE at the same tolerances is off by up to 2.1e-4 (relative) at these
points against a 1e-10 run, so the allowance is h + 2e-4 |v|. A run at
1e-8 is within 1e-6 of the 1e-10 one there; the largest excess over h
measured is 3.1e-5 |v| (c2 in the middle at t = 86400), so the check has a
margin of about 6.

At night (t >= 43200) the example's c1 is noise below its abstol (|c1| <
1e-3: the exact c1 decays to about 1e-17 and below); there both c1 must be
within 1e-3 of 0.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import h5py

# cvDiurnal_kry.out (SUNDIALS 6, examples/cvode/serial): t, then c1 and c2 at
# the bottom left, the middle and the top right.
EXAMPLE = [
    (7200, (1.047e+04, 2.964e+04, 1.119e+04), (2.527e+11, 7.154e+11, 2.700e+11)),
    (14400, (6.659e+06, 5.316e+06, 7.301e+06), (2.582e+11, 2.057e+11, 2.833e+11)),
    (21600, (2.665e+07, 1.036e+07, 2.931e+07), (2.993e+11, 1.028e+11, 3.313e+11)),
    (28800, (8.702e+06, 1.292e+07, 9.650e+06), (3.380e+11, 5.029e+11, 3.751e+11)),
    (36000, (1.404e+04, 2.029e+04, 1.561e+04), (3.387e+11, 4.894e+11, 3.765e+11)),
    (43200, (-7.891e-06, -1.123e-06, -8.723e-06), (3.382e+11, 1.355e+11, 3.804e+11)),
    (50400, (-1.595e-08, -1.771e-06, -3.117e-08), (3.358e+11, 4.930e+11, 3.864e+11)),
    (57600, (-2.127e-06, -1.513e-04, -2.951e-06), (3.320e+11, 9.650e+11, 3.909e+11)),
    (64800, (-1.084e-09, -7.686e-08, -1.499e-09), (3.313e+11, 8.922e+11, 3.963e+11)),
    (72000, (-1.093e-10, -7.736e-09, -1.510e-10), (3.330e+11, 6.186e+11, 4.039e+11)),
    (79200, (-1.624e-12, -1.151e-10, -2.246e-12), (3.334e+11, 6.669e+11, 4.120e+11)),
    (86400, (3.501e-14, 2.474e-12, 4.816e-14), (3.352e+11, 9.107e+11, 4.163e+11)),
]
POINTS = [("bottom left", 0, 0), ("middle", 4, 4), ("top right", 9, 9)]  # (name, jx, jy)
EXAMPLE_ABSTOL = 1e-3
EXAMPLE_ERROR = 2e-4  # relative, see the module docstring
TIMEOUT = 120


def half_unit(v):
    """Half a unit in the last digit of v printed with %.3e."""
    exponent = int(f"{v:.3e}".split("e")[1])
    return 0.5 * 10.0 ** (exponent - 3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--qmol", required=True)
    ap.add_argument("--scratch", required=True)
    a = ap.parse_args()
    os.makedirs(a.scratch, exist_ok=True)
    out = os.path.join(a.scratch, "diurnal-cvode.h5")
    times = ",".join(str(t) for t, _, _ in EXAMPLE)
    args = [os.path.abspath(a.qmol), "run", "--problem", "diurnal", "--method", "cvode",
            "--tol", "1e-8", "--sample-times", times, "--output", out, "--overwrite", "--quiet"]
    session = tempfile.mkdtemp(prefix="qmol-diurnal-ompi-")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_orte_tmpdir_base=session)
    try:
        p = subprocess.run(args, env=env, capture_output=True, text=True, timeout=TIMEOUT)
    finally:
        shutil.rmtree(session, ignore_errors=True)
    if p.returncode != 0:
        print(f"FAIL: {' '.join(args)}: exit {p.returncode}\n{p.stdout}\n{p.stderr}")
        return 1

    failures = 0
    with h5py.File(out, "r") as f:
        t = f["time"][:]
        c1, c2 = f["fields/c1"][:], f["fields/c2"][:]  # (K, my, mx)
        if c1.shape != (12, 10, 10) or c2.shape != (12, 10, 10):
            print(f"FAIL: fields of shape {c1.shape}, {c2.shape}, expected (12, 10, 10)")
            return 1
    for k, (tk, ex1, ex2) in enumerate(EXAMPLE):
        if t[k] != tk:
            print(f"FAIL: sample {k + 1} at t = {t[k]}, expected {tk}")
            failures += 1
            continue
        for p_index, (name, jx, jy) in enumerate(POINTS):
            for species, ex, field in (("c1", ex1, c1), ("c2", ex2, c2)):
                v, ours = ex[p_index], field[k, jy, jx]
                if abs(v) < EXAMPLE_ABSTOL:  # c1 at night: below the example's abstol
                    ok, allowed = abs(ours) < EXAMPLE_ABSTOL, EXAMPLE_ABSTOL
                    diff = abs(ours)
                else:
                    allowed = half_unit(v) + EXAMPLE_ERROR * abs(v)
                    diff = abs(ours - v)
                    ok = diff <= allowed
                line = (f"t={tk:6d} {species} {name:11s}: qmol {ours:13.6e}, example {v:10.3e}, "
                        f"|diff| {diff:.2e} (allowed {allowed:.2e})")
                print(("ok    " if ok else "FAIL  ") + line)
                failures += not ok
    print(f"{failures} mismatch(es)" if failures else "all 72 values agree")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
