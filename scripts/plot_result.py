#!/usr/bin/python3
"""Plots the last sample of a qmol result: a heat map for 2D grids, a profile
for 1D grids or gridless problems. Usage: plot_result.py FILE.h5 OUT.png"""
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot_result.py FILE.h5 OUT.png")
    path, out = sys.argv[1], sys.argv[2]
    with h5py.File(path, "r") as f:
        time = f["time"][...]
        last = f["states"][-1, :]
        problem = f.attrs["problem"]
        method = f.attrs["method"]
        ndims = int(f.attrs.get("ndims", 0))
        dims = f.attrs.get("dims", None)
        origin = f.attrs.get("origin", None)
        spacing = f.attrs.get("spacing", None)
    fig, ax = plt.subplots(figsize=(7, 5))
    title = f"{problem} ({method}), t = {time[-1]:g}"
    if ndims == 2 and int(f"{len(last)}") == int(dims[0]) * int(dims[1]):
        nx, ny = int(dims[0]), int(dims[1])
        x0 = origin[0] - 0.5 * spacing[0]
        y0 = origin[1] - 0.5 * spacing[1]
        extent = [x0, x0 + nx * spacing[0], y0, y0 + ny * spacing[1]]
        im = ax.imshow(last.reshape(ny, nx), origin="lower", extent=extent, aspect="auto")
        fig.colorbar(im, ax=ax, label="u")
        ax.set_xlabel("x")
        ax.set_ylabel("y")
    else:
        if ndims == 1 and len(last) == int(dims[0]):
            xs = origin[0] + spacing[0] * np.arange(len(last))
            ax.set_xlabel("x")
        else:
            xs = np.arange(len(last))
            ax.set_xlabel("state index")
        ax.plot(xs, last)
        ax.set_ylabel("value")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    print(f"plot: {out}")


if __name__ == "__main__":
    main()
