#!/usr/bin/env python3
"""Checks the layout of a qmol HDF5 result file (docs/output.md) with h5py.

usage: check_h5.py FILE --n N --samples K [--t0 T0] [--tf TF]

Verifies: layout attribute "qmol-1" and the required root attributes; n and
samples as given; /time of length K equal to t0 + (tf - t0) * k / K for
k = 1..K (relative 1e-12; t0 and tf default to the file's attributes);
/states of shape (K, n), float64, all finite; the /stats group; grid
attributes consistent with n. Exits 0, or prints each problem and exits 1.
Needs Debian's /usr/bin/python3 (h5py, numpy).
"""
import argparse
import math
import sys

import h5py
import numpy as np

REQUIRED = {
    "layout": str, "qmol_version": str, "problem": str, "method": str,
    "reltol": float, "abstol": float, "t0": float, "tf": float,
    "samples": int, "n": int,
}
STATS_INT = ["events", "rhs_evals", "jac_evals", "pair_steps", "steps", "newton_iters",
             "lin_iters", "err_test_fails", "conv_fails", "jac_setups"]
STATS_FLOAT = ["wall_setup", "wall_integrate", "wall_output", "wall_total"]
ROWS_PER_BLOCK = 64


def attr(obj, name):
    v = obj.attrs[name]
    if isinstance(v, bytes):
        v = v.decode()
    if isinstance(v, np.ndarray) and v.shape == ():
        v = v[()]
    return v


def close(a, b, rel=1e-12):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1e-300)


def check(path, n, samples, t0, tf):
    errs = []
    if path.endswith(".partial"):
        errs.append("is an unfinished (.partial) file")
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        return [f"cannot open: {e}"]
    with f:
        good = {}  # required attributes present with the right type
        for name, kind in REQUIRED.items():
            if name not in f.attrs:
                errs.append(f"missing root attribute '{name}'")
                continue
            v = attr(f, name)
            ok = isinstance(v, str) if kind is str else (
                isinstance(v, (np.integer, int)) if kind is int else isinstance(v, (np.floating, float)))
            if ok:
                good[name] = v
            else:
                errs.append(f"attribute '{name}' has type {type(v).__name__}, expected {kind.__name__}")
        if "layout" in good and good["layout"] != "qmol-1":
            errs.append(f"layout is '{good['layout']}', expected 'qmol-1'")
        if "n" in good and good["n"] != n:
            errs.append(f"attribute n = {good['n']}, expected {n}")
        if "samples" in good and good["samples"] != samples:
            errs.append(f"attribute samples = {good['samples']}, expected {samples}")
        for name, want in (("t0", t0), ("tf", tf)):
            if name in good and want is not None and float(good[name]) != want:
                errs.append(f"attribute {name} = {float(good[name])!r}, expected {want!r}")
        t0 = t0 if t0 is not None else float(good.get("t0", math.nan))
        tf = tf if tf is not None else float(good.get("tf", math.nan))
        for name in f.attrs:
            if name.startswith("param.") and not isinstance(attr(f, name), (np.floating, float)):
                errs.append(f"parameter attribute '{name}' is not a double")

        if "ndims" in f.attrs:
            nd = int(attr(f, "ndims"))
            for name in ("dims", "origin", "spacing"):
                if name not in f.attrs:
                    errs.append(f"grid attribute '{name}' missing")
                elif np.asarray(f.attrs[name]).shape != (nd,):
                    errs.append(f"grid attribute '{name}' has shape "
                                f"{np.asarray(f.attrs[name]).shape}, expected ({nd},)")
            comps = int(attr(f, "components")) if "components" in f.attrs else 1
            if "dims" in f.attrs and int(np.prod(f.attrs["dims"])) * comps != n:
                errs.append(f"grid dims {list(f.attrs['dims'])} x {comps} components != n = {n}")

        t = f.get("time")
        if not isinstance(t, h5py.Dataset):
            errs.append("dataset /time missing")
        elif t.shape != (samples,):
            errs.append(f"/time has shape {t.shape}, expected ({samples},)")
        elif math.isnan(t0) or math.isnan(tf):
            errs.append("/time not checked: t0 or tf unknown (give --t0/--tf)")
        else:
            tv = t[()]
            for k in range(1, samples + 1):
                want = t0 + (tf - t0) * k / samples
                if not close(float(tv[k - 1]), want):
                    errs.append(f"/time[{k - 1}] = {tv[k - 1]!r}, expected {want!r}")
                    break

        s = f.get("states")
        if not isinstance(s, h5py.Dataset):
            errs.append("dataset /states missing")
        elif s.shape != (samples, n):
            errs.append(f"/states has shape {s.shape}, expected ({samples}, {n})")
        elif s.dtype != np.float64:
            errs.append(f"/states has type {s.dtype}, expected float64")
        else:
            if s.chunks is None or s.chunks[0] != 1:
                errs.append(f"/states chunks {s.chunks}, expected one sample row per chunk")
            for r in range(0, samples, ROWS_PER_BLOCK):
                block = s[r:r + ROWS_PER_BLOCK]
                bad = np.argwhere(~np.isfinite(block))
                if bad.size:
                    k, i = bad[0]
                    errs.append(f"/states[{r + k}, {i}] = {block[k, i]!r} is not finite")
                    break

        g = f.get("stats")
        if not isinstance(g, h5py.Group):
            errs.append("group /stats missing")
        else:
            for name in STATS_INT:
                if name not in g.attrs:
                    errs.append(f"/stats attribute '{name}' missing")
                elif not isinstance(attr(g, name), (np.integer, int)):
                    errs.append(f"/stats attribute '{name}' is not an integer")
            for name in STATS_FLOAT:
                if name not in g.attrs:
                    errs.append(f"/stats attribute '{name}' missing")
                elif not math.isfinite(float(attr(g, name))):
                    errs.append(f"/stats attribute '{name}' is not finite")
    return errs


def main():
    ap = argparse.ArgumentParser(description="Check a qmol HDF5 result file.")
    ap.add_argument("file")
    ap.add_argument("--n", type=int, required=True, help="number of states")
    ap.add_argument("--samples", type=int, required=True, help="number of samples K")
    ap.add_argument("--t0", type=float, default=None, help="initial time (default: file's)")
    ap.add_argument("--tf", type=float, default=None, help="final time (default: file's)")
    a = ap.parse_args()
    errs = check(a.file, a.n, a.samples, a.t0, a.tf)
    for e in errs:
        print(f"{a.file}: {e}")
    if not errs:
        print(f"{a.file}: ok (n = {a.n}, samples = {a.samples})")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
