#!/usr/bin/env python3
"""What ParaView must show for qmol result files, from the HDF5 files (h5py):
tests/paraview_test.py runs under pvpython, which has no h5py, and reads this
script's JSON.

usage: paraview_expect.py FILE.h5... > expected.json

For each file: "names" (the written components, as the XDMF attributes are
named), "times" (/time), "ranges" (per name, [min, max] of every sample),
"last" (per name, the last sample's values, x fastest, as VTK orders the
points), "points" (cells of the written box) and "bounds" (x y z min and max
of the mesh: the box's first and last cell coordinates; 0 0 for missing
dimensions).
"""
import json
import sys

import h5py


def expect(path):
    with h5py.File(path, "r") as f:
        box = f["fields"].attrs
        names = str(f.attrs["component_names"]).split()
        kept = [names[c] for c in box["components"]]
        dims, origin, spacing = list(box["dims"]), list(box["origin"]), list(box["spacing"])
        bounds = []
        for a in range(3):
            if a < len(dims):
                bounds += [float(origin[a]), float(origin[a] + (dims[a] - 1) * spacing[a])]
            else:
                bounds += [0.0, 0.0]
        ranges, last = {}, {}
        for name in kept:
            v = f["fields/" + name][()]
            ranges[name] = [[float(v[k].min()), float(v[k].max())] for k in range(v.shape[0])]
            last[name] = [float(x) for x in v[-1].reshape(-1)]
        points = 1
        for d in dims:
            points *= int(d)
        return {"names": kept, "times": [float(t) for t in f["time"][()]], "ranges": ranges,
                "last": last, "points": points, "bounds": bounds}


def main():
    json.dump({path: expect(path) for path in sys.argv[1:]}, sys.stdout, indent=1)


if __name__ == "__main__":
    main()
