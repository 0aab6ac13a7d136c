#!/usr/bin/env python3
"""Checks the layout of a qmol HDF5 result file (docs/output.md) with h5py.

usage: check_h5.py FILE --n N --samples K [--t0 T0] [--tf TF] [--ranks P]
                   [--partition]

Verifies: layout attribute "qmol-1" and the required root attributes; n and
samples as given; /time of length K equal to t0 + (tf - t0) * k / K for
k = 1..K (relative 1e-12; t0 and tf default to the file's attributes);
/states of shape (K, n), float64, all finite; the /stats group with its
totals and /stats/per_rank (P entries per field, P as given or the length
found; counters add up to the totals, wall-time totals are the maxima); grid
attributes consistent with n; /partition when present (required with
--partition): owner in [0, P) with owned[r] = count of r, boundary <= owned,
imbalance = max/mean of weight. Exits 0, or prints each problem and exits 1.
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
STATS_INT = ["events", "pair_steps", "row_evals", "jac_rows", "nst", "nfe", "nfeLS", "nni",
             "ncfn", "netf", "nsetups", "nli", "ncfl", "nje", "npe", "nps", "njvevals", "windows",
             "windows_rejected", "windows_stopped", "events_rejected", "crossings", "time_events", "step_limits",
             "extrap_limits", "to_bdf", "to_qss", "messages", "bytes_sent", "late_updates"]
# the same on every rank: /stats holds that count, not the sum over ranks
STATS_AGREED = ["windows", "windows_rejected", "windows_stopped"]
STATS_FLOAT = ["wall_setup", "wall_partition", "wall_integrate", "wall_exchange", "wall_wait",
               "wall_output", "wall_total"]
PARTITION_KINDS = {"metis", "block", "file", "single"}
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


def check_per_rank(g, ranks):
    """/stats/per_rank against the /stats totals; returns (errors, P)."""
    errs = []
    pr = g.get("per_rank")
    if not isinstance(pr, h5py.Group):
        return ["group /stats/per_rank missing"], ranks
    for name in STATS_INT + STATS_FLOAT:
        d = pr.get(name)
        if not isinstance(d, h5py.Dataset):
            errs.append(f"/stats/per_rank/{name} missing")
            continue
        if ranks is None:
            ranks = d.shape[0] if len(d.shape) == 1 else None
        if d.shape != (ranks,):
            errs.append(f"/stats/per_rank/{name} has shape {d.shape}, expected ({ranks},)")
            continue
        want = np.uint64 if name in STATS_INT else np.float64
        if d.dtype != want:
            errs.append(f"/stats/per_rank/{name} has type {d.dtype}, expected {np.dtype(want)}")
            continue
        if name not in g.attrs:
            continue
        v = d[()]
        summed = name in STATS_INT and name not in STATS_AGREED
        total = int(v.sum(dtype=np.uint64)) if summed else (
            int(v.max()) if name in STATS_INT else float(v.max()))
        if total != attr(g, name):
            how = "sum" if summed else "max"
            errs.append(f"/stats {name} = {attr(g, name)}, but the {how} over ranks is {total}")
    return errs, ranks


def check_partition(f, n, ranks):
    errs = []
    g = f.get("partition")
    if not isinstance(g, h5py.Group):
        return ["group /partition missing"]
    for name in ("ranks", "kind", "edge_cut", "imbalance"):
        if name not in g.attrs:
            errs.append(f"/partition attribute '{name}' missing")
    if errs:
        return errs
    p = int(attr(g, "ranks"))
    if ranks is not None and p != ranks:
        errs.append(f"/partition ranks = {p}, expected {ranks}")
    if attr(g, "kind") not in PARTITION_KINDS:
        errs.append(f"/partition kind '{attr(g, 'kind')}' not one of {sorted(PARTITION_KINDS)}")
    if int(attr(g, "edge_cut")) < 0:
        errs.append("/partition edge_cut is negative")
    shapes = {"owner": ((n,), np.int32), "owned": ((p,), np.int64), "ghosts": ((p,), np.int64),
              "boundary": ((p,), np.int64), "weight": ((p,), np.float64)}
    v = {}
    for name, (shape, dtype) in shapes.items():
        d = g.get(name)
        if not isinstance(d, h5py.Dataset) or d.shape != shape or d.dtype != dtype:
            errs.append(f"/partition/{name} missing or not {np.dtype(dtype)} of shape {shape}")
        else:
            v[name] = d[()]
    if errs:
        return errs
    if v["owner"].min() < 0 or v["owner"].max() >= p:
        errs.append(f"/partition/owner has values outside 0..{p - 1}")
    elif not np.array_equal(np.bincount(v["owner"], minlength=p), v["owned"]):
        errs.append("/partition/owned does not count the states of each rank in owner")
    if np.any(v["boundary"] > v["owned"]) or np.any(v["boundary"] < 0) or np.any(v["ghosts"] < 0):
        errs.append("/partition boundary or ghosts out of range")
    w = v["weight"]
    want = float(w.max() / w.mean()) if w.sum() > 0 else 1.0
    if not close(float(attr(g, "imbalance")), want, 1e-9):
        errs.append(f"/partition imbalance = {attr(g, 'imbalance')}, expected {want}")
    return errs


def check(path, n, samples, t0, tf, ranks=None, need_partition=False):
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
            more, ranks = check_per_rank(g, ranks)
            errs += more
        if need_partition or "partition" in f:
            errs += check_partition(f, n, ranks)
    return errs


def main():
    ap = argparse.ArgumentParser(description="Check a qmol HDF5 result file.")
    ap.add_argument("file")
    ap.add_argument("--n", type=int, required=True, help="number of states")
    ap.add_argument("--samples", type=int, required=True, help="number of samples K")
    ap.add_argument("--t0", type=float, default=None, help="initial time (default: file's)")
    ap.add_argument("--tf", type=float, default=None, help="final time (default: file's)")
    ap.add_argument("--ranks", type=int, default=None,
                    help="ranks that wrote the file (default: the per-rank length found)")
    ap.add_argument("--partition", action="store_true", help="require a /partition group")
    a = ap.parse_args()
    errs = check(a.file, a.n, a.samples, a.t0, a.tf, a.ranks, a.partition)
    for e in errs:
        print(f"{a.file}: {e}")
    if not errs:
        print(f"{a.file}: ok (n = {a.n}, samples = {a.samples})")
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
