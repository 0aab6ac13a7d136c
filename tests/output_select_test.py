#!/usr/bin/env python3
"""Which samples and which states a run writes (--sample-times,
--output-states) and the grid views of /fields.

- /fields/u of a whole 2D run is /states reshaped (K x ny x nx), with the
  cell coordinates x, y; the root attribute component_names names it.
- --sample-times: /time is the list; as samples come from dense output (a
  QSS run's trajectory, CVODE's steps do not depend on them), the values
  equal those of an evenly sampled run at the common times, bit for bit
  (liqss2 and cvode); without --tf the last time is tf.
- --output-states with a box rule, on 1 and 2 ranks: /state_ids are the
  states the rule selects (computed here from the grid geometry), /states
  equals the full run's columns, /fields/u is the box of the full run's
  /fields/u, the XDMF sidecar describes the box.
- a rule that keeps no box: no /fields, no sidecar, a note, and a stale
  sidecar of an earlier run removed with --overwrite; compare refuses two
  files with different written states.
- bad values exit 2 with a message naming the option and leave no file.

usage: output_select_test.py --qmol BIN --mpiexec "mpiexec ..." --scratch DIR
"""
import os
import shlex
import subprocess

import h5py
import numpy as np
from script_support import finish, parse_args

# (mLIQSS2 named: runs compared bit for bit must not be auto's, whose
# switches follow measured wall time; a --method later on the line wins)
GRID = ["--problem", "adr2d", "--set", "nx=16", "--set", "ny=8", "--method", "mliqss2",
        "--tf", "0.4"]


def run(args, extra, out, ranks=1, expect=0):
    cmd = shlex.split(args.mpiexec) + ["-n", str(ranks)] if ranks > 1 else []
    cmd = cmd + [args.qmol, "run"] + extra + ["--output", out, "--overwrite", "--quiet"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    if r.returncode != expect:
        raise RuntimeError("%s: exit %d (expected %d): %s" % (" ".join(cmd), r.returncode,
                                                              expect, r.stderr.strip()))
    return r


def load(path):
    with h5py.File(path, "r") as f:
        d = {k: f[k][()] for k in ("time", "states")}
        d["ids"] = f["state_ids"][()] if "state_ids" in f else None
        d["fields"] = {k: f["fields/" + k][()] for k in f["fields"]} if "fields" in f else None
        d["box"] = dict(f["fields"].attrs) if "fields" in f else None
        d["attrs"] = dict(f.attrs)
    return d


def main():
    args = parse_args("output")
    s = args.scratch
    fails = []

    def path(name):
        return os.path.join(s, name)

    # whole run: /fields/u = /states reshaped, coordinates
    full = load(path("full.h5")) if run(args, GRID + ["--samples", "4"], path("full.h5")) else None
    nx, ny = 16, 8
    a = full["attrs"]
    if not np.array_equal(full["fields"]["u"], full["states"].reshape(4, ny, nx)):
        fails.append("/fields/u is not /states reshaped to (K, ny, nx)")
    xs = a["origin"][0] + a["spacing"][0] * np.arange(nx)
    ys = a["origin"][1] + a["spacing"][1] * np.arange(ny)
    if not (np.array_equal(full["fields"]["x"], xs) and np.array_equal(full["fields"]["y"], ys)):
        fails.append("/fields/x, y are not the cell coordinates")
    if str(a["component_names"]) != "u" or full["ids"] is not None:
        fails.append("component_names %r, state_ids %r" % (a["component_names"], full["ids"]))

    # --sample-times: the values of the even run at the common times
    for method in ("liqss2", "cvode"):
        even, listed = path("even-%s.h5" % method), path("listed-%s.h5" % method)
        run(args, GRID + ["--method", method, "--samples", "8"], even)
        e = load(even)
        times = e["time"][[0, 2, 3, 7]]  # 0.05, 0.15, 0.2, 0.4 as the even run has them
        run(args, GRID[:-2] + ["--method", method, "--sample-times",
                               "%.17g, %.17g,%.17g,%.17g" % tuple(times)], listed)
        li = load(listed)
        if not np.array_equal(li["time"], times) or li["attrs"]["tf"] != 0.4:
            fails.append("%s: /time %s, tf %s" % (method, li["time"], li["attrs"]["tf"]))
        elif not np.array_equal(li["states"], e["states"][[0, 2, 3, 7]]):
            d = np.abs(li["states"] - e["states"][[0, 2, 3, 7]]).max()
            fails.append("%s: --sample-times values differ from the even run's by %g" % (method, d))
        else:
            print("--sample-times %s: equal to the even run at t = 0.05, 0.15, 0.2, 0.4" % method)

    # --output-states, a box, on 1 and 2 ranks
    rule = "x>=2 && x<=5 && y>1 && y<6"
    ix, iy = np.meshgrid(np.arange(nx), np.arange(ny))
    x = a["origin"][0] + a["spacing"][0] * ix.ravel()
    y = a["origin"][1] + a["spacing"][1] * iy.ravel()
    want = np.flatnonzero((x >= 2) & (x <= 5) & (y > 1) & (y < 6))
    bx = np.unique(ix.ravel()[want])
    by = np.unique(iy.ravel()[want])
    for ranks in (1, 2):
        whole, part = path("whole-np%d.h5" % ranks), path("box-np%d.h5" % ranks)
        run(args, GRID + ["--samples", "4"], whole, ranks)
        run(args, GRID + ["--samples", "4", "--output-states", rule], part, ranks)
        w, b = load(whole), load(part)
        label = "--output-states box P=%d" % ranks
        if b["ids"] is None or not np.array_equal(b["ids"], want):
            fails.append("%s: /state_ids %s, expected %s" % (label, b["ids"], want))
            continue
        if not np.array_equal(b["states"], w["states"][:, want]):
            fails.append("%s: /states differ from the whole run's columns" % label)
        sub = w["fields"]["u"][:, by[0]:by[-1] + 1, bx[0]:bx[-1] + 1]
        if b["fields"] is None or not np.array_equal(b["fields"]["u"], sub):
            fails.append("%s: /fields/u is not the box of the whole run" % label)
        elif (list(b["box"]["first"]) != [bx[0], by[0]]
              or list(b["box"]["dims"]) != [len(bx), len(by)]
              or not np.array_equal(b["fields"]["x"], xs[bx])):
            fails.append("%s: box attributes %s" % (label, b["box"]))
        if not os.path.exists(part[:-3] + ".xmf"):
            fails.append("%s: no XDMF sidecar" % label)
        else:
            print("%s: %d states, box %d x %d, equal to the whole run" % (label, len(want),
                                                                        len(bx), len(by)))

    # a rule that keeps no box: no /fields, no sidecar (a stale one removed)
    scattered = path("scattered.h5")
    open(scattered[:-3] + ".xmf", "w").close()
    run(args, GRID + ["--output-states", "i<20", "--samples", "4"], scattered)
    sc = load(scattered)
    if sc["fields"] is not None or os.path.exists(scattered[:-3] + ".xmf"):
        fails.append("scattered states: /fields or a sidecar left")
    if not np.array_equal(sc["ids"], np.arange(20)):
        fails.append("scattered states: /state_ids %s" % sc["ids"])
    cmp = subprocess.run(["/usr/bin/python3", os.path.join(os.path.dirname(__file__), "..",
                                                           "scripts", "qmolpost"),
                          "compare", scattered, path("box-np1.h5")],
                         capture_output=True, text=True)
    if cmp.returncode != 2 or "different written states" not in cmp.stderr:
        fails.append("qmolpost compare of different states: exit %d %r" % (cmp.returncode,
                                                                          cmp.stderr))

    # bad values: exit 2, the option named, no file left
    bad = [(["--sample-times", "0.2,0.1"], "--sample-times"),
           (["--sample-times", "0.1,abc"], "--sample-times"),
           (["--sample-times", "0,0.4"], "after t0"),
           (["--sample-times", "0.1,0.3", "--tf", "0.4"], "must be the final time"),
           (["--sample-times", "0.1,0.4", "--samples", "3"], "--samples"),
           (["--sample-times", "nan"], "--sample-times"),
           (["--output-states", "x>100"], "selects none"),
           (["--output-states", "z<1"], "not a coordinate"),
           (["--output-states", "x<<1"], "--output-states")]
    for extra, needle in bad:
        out = path("bad.h5")
        for f in (out, out + ".partial", out[:-3] + ".xmf"):
            if os.path.exists(f):
                os.remove(f)
        cmd = [args.qmol, "run"] + GRID[:-2] + extra + ["--output", out]
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        left = [f for f in (out, out + ".partial", out[:-3] + ".xmf") if os.path.exists(f)]
        if r.returncode != 2 or needle not in r.stderr or left:
            fails.append("%s: exit %d, %r, left %s" % (" ".join(extra), r.returncode,
                                                      r.stderr.strip(), left))
    finish(fails)


if __name__ == "__main__":
    main()
