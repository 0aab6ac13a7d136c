#!/usr/bin/env python3
"""The XDMF sidecar of grid results: qmol runs heat1d (1D), adr2d (2D, also on
2 ranks, and a box of it written with --output-states on 2 ranks), heat3d
(3D, also a box) and diurnal (2 components, on 3 ranks, and one component
of a box on 2); for each, FILE.xmf must be valid XML whose every sample
grid has the run's time, a mesh of the written box's dims (XDMF order z y x,
1 for missing dimensions), origin and spacing, and whose every attribute is a
plain HDF5 DataItem (float64, no hyperslab: ParaView's Xdmf3 readers skip
those) naming /xdmf/NAME/k (k = sample, from 1), a dataset of the file whose
shape is the mesh's and whose values are exactly that sample's states
(compared value by value with /states reshaped as docs/output.md says, and
with /fields/NAME). tests/paraview_test.py opens the files in ParaView.

usage: check_xdmf.py --qmol BIN --mpiexec "mpiexec ..." --scratch DIR
"""
import os
import shlex
import subprocess
import xml.etree.ElementTree as ET

import h5py
import numpy as np
from script_support import finish, parse_args

RUNS = [("heat1d", ["--set", "N=30"], 1), ("adr2d", ["--set", "nx=12", "--set", "ny=9"], 1),
        ("adr2d", ["--set", "nx=12", "--set", "ny=9"], 2),
        ("heat3d", ["--set", "nx=4", "--set", "ny=5", "--set", "nz=3"], 1),
        ("adr2d", ["--set", "nx=12", "--set", "ny=9", "--output-states", "x>=2 && y<4"], 2),
        ("heat3d", ["--set", "nx=4", "--set", "ny=5", "--set", "nz=3",
                    "--output-states", "z>0.5 && y<=0.5"], 1),
        ("diurnal", ["--set", "mx=6", "--set", "my=5"], 3),
        ("diurnal", ["--set", "mx=6", "--set", "my=5", "--output-states", "c==1 && x<10"], 2)]


def ints(text):
    return [int(v) for v in text.split()]


def check(xmf, h5path, failures, label):
    try:
        root = ET.parse(xmf).getroot()
    except ET.ParseError as e:
        failures.append("%s: %s is not valid XML: %s" % (label, xmf, e))
        return
    with h5py.File(h5path, "r") as f:
        times, states = f["time"][()], f["states"][()]
        box = f["fields"].attrs  # the written box (all of the grid without --output-states)
        dims = list(box["dims"])
        origin, spacing = list(box["origin"]), list(box["spacing"])
        names = str(f.attrs["component_names"]).split()
        kept = [names[c] for c in box["components"]]
        nc = len(kept)
        views = {name: f["fields/" + name][()] for name in kept}
    want = [1] * (3 - len(dims)) + dims[::-1]
    grids = root.findall("./Domain/Grid/Grid")
    if len(grids) != len(times):
        failures.append("%s: %d sample grids, %d samples" % (label, len(grids), len(times)))
    for k, g in enumerate(grids):
        t = float(g.find("Time").get("Value"))
        if t != times[k]:
            failures.append("%s: grid %d at t=%r, /time %r" % (label, k, t, times[k]))
        topo = ints(g.find("Topology").get("Dimensions"))
        if topo != want:
            failures.append("%s: grid %d topology %s, dims %s" % (label, k, topo, want))
        geo = [[float(v) for v in d.text.split()] for d in g.findall("Geometry/DataItem")]
        pad = 3 - len(dims)
        if geo[0][pad:] != origin[::-1] or geo[1][pad:] != spacing[::-1]:
            failures.append("%s: grid %d geometry %s, origin %s spacing %s"
                            % (label, k, geo, origin, spacing))
        attrs = g.findall("Attribute")
        if len(attrs) != nc:
            failures.append("%s: grid %d has %d attributes for %d components"
                            % (label, k, len(attrs), nc))
        for c, a in enumerate(attrs):
            item = a.findall("DataItem")
            if len(item) != 1 or item[0].findall("DataItem"):
                failures.append("%s: grid %d attribute %d is not one plain DataItem" % (label, k, c))
                continue
            item = item[0]
            how = {key: item.get(key) for key in ("NumberType", "Precision", "Format", "ItemType")}
            if how != {"NumberType": "Float", "Precision": "8", "Format": "HDF", "ItemType": None}:
                failures.append("%s: grid %d attribute %d: DataItem %s" % (label, k, c, how))
            name, path = item.text.strip().split(":")
            if name != os.path.basename(h5path):
                failures.append("%s: names file %s" % (label, name))
                continue
            if a.get("Name") != kept[c] or path != "/xdmf/%s/%d" % (kept[c], k + 1):
                failures.append("%s: grid %d attribute %s names %s, not /xdmf/%s/%d"
                                % (label, k, a.get("Name"), path, kept[c], k + 1))
            with h5py.File(os.path.join(os.path.dirname(xmf), name), "r") as f:
                if path.lstrip("/") not in f:
                    failures.append("%s: %s has no %s" % (label, name, path))
                    continue
                picked = f[path][()]
            if list(picked.shape) != ints(item.get("Dimensions")) or list(picked.shape) != want:
                failures.append("%s: %s is %s, the XDMF says %s, the mesh is %s"
                                % (label, path, list(picked.shape), item.get("Dimensions"), want))
            if not np.array_equal(picked.reshape(-1), states[k, c::nc]):
                failures.append("%s: grid %d attribute %d holds other values" % (label, k, c))
            if not np.array_equal(picked.reshape(-1), views[kept[c]][k].reshape(-1)):
                failures.append("%s: grid %d attribute %s is not /fields/%s[%d]"
                                % (label, k, a.get("Name"), kept[c], k))


def main():
    args = parse_args("xdmf")
    scratch = args.scratch
    failures = []
    for problem, sets, p in RUNS:
        label = "%s P=%d%s" % (problem, p, " box" if "--output-states" in sets else "")
        out = os.path.join(scratch, "%s-np%d%s.h5" % (problem, p,
                                                     "-box" if "--output-states" in sets else ""))
        cmd = shlex.split(args.mpiexec) + ["-n", str(p), args.qmol, "run", "--problem", problem,
                                           "--tf", "0.01", "--samples", "3", "--output", out,
                                           "--overwrite"] + sets
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        xmf = out[:-3] + ".xmf"
        if r.returncode != 0:
            failures.append("%s: exit %d: %s" % (label, r.returncode, r.stderr))
            continue
        if not any(ln.split()[:2] == ["ParaView", xmf] for ln in r.stdout.splitlines()):
            failures.append("%s: the summary does not name %s: %r" % (label, xmf, r.stdout))
        check(xmf, out, failures, label)
        print("%s: %s checked" % (label, xmf))
    # --compress 6 on 2 ranks: deflated /states, the same values, a smaller
    # file, and the sidecar still names a readable dataset
    plain, packed = os.path.join(scratch, "plain.h5"), os.path.join(scratch, "packed.h5")
    for out, extra in ((plain, []), (packed, ["--compress", "6"])):
        cmd = shlex.split(args.mpiexec) + ["-n", "2", args.qmol, "run", "--problem", "adr2d",
                                           "--method", "mliqss2",
                                           "--set", "nx=60", "--set", "ny=40", "--tf", "1",
                                           "--output", out, "--overwrite", "--quiet"] + extra
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            failures.append("--compress: exit %d: %s" % (r.returncode, r.stderr))
    if os.path.exists(packed) and os.path.exists(plain):
        with h5py.File(plain, "r") as a, h5py.File(packed, "r") as b:
            same = np.array_equal(a["states"][()], b["states"][()])
            how = (b["states"].compression, b["states"].compression_opts)
        small = os.path.getsize(packed) < 0.5 * os.path.getsize(plain)
        if not same or how != ("gzip", 6) or not small:
            failures.append("--compress 6: same values %s, filter %s, %d vs %d bytes"
                            % (same, how, os.path.getsize(packed), os.path.getsize(plain)))
        check(packed[:-3] + ".xmf", packed, failures, "compressed")
    # without --overwrite an existing sidecar stops the run (exit 2, no file)
    out = os.path.join(scratch, "taken.h5")
    for path in (out, out[:-3] + ".xmf"):
        if os.path.exists(path):
            os.remove(path)
    open(out[:-3] + ".xmf", "w").close()
    r = subprocess.run([args.qmol, "run", "--problem", "heat1d", "--set", "N=10", "--tf", "0.01",
                        "--output", out], capture_output=True, text=True, timeout=120)
    if r.returncode != 2 or "taken.xmf" not in r.stderr or os.path.exists(out):
        failures.append("existing sidecar: exit %d, %r" % (r.returncode, r.stderr))
    finish(failures)


if __name__ == "__main__":
    main()
