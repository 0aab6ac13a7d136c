#!/usr/bin/python3
"""Plots a qmol result at four sample times (a quarter, half, three quarters
and all of the run): heat maps with one shared colour scale for 2D grids,
overlaid profiles for 1D grids or gridless problems.
Usage: plot_result.py FILE.h5 OUT.png"""
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def chosen_samples(count):
    """Up to four distinct sample indices spread over the run, the last one included."""
    picks = sorted({max(0, min(count - 1, int(round(count * q)) - 1)) for q in (0.25, 0.5, 0.75, 1.0)})
    return picks


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: plot_result.py FILE.h5 OUT.png")
    path, out = sys.argv[1], sys.argv[2]
    with h5py.File(path, "r") as f:
        time = f["time"][...]
        picks = chosen_samples(len(time))
        rows = np.array([f["states"][k, :] for k in picks])
        problem, method = text(f.attrs["problem"]), text(f.attrs["method"])
        ndims = int(f.attrs.get("ndims", 0))
        dims = f.attrs.get("dims", None)
        origin = f.attrs.get("origin", None)
        spacing = f.attrs.get("spacing", None)
        components = int(f.attrs.get("components", 1))
    n = rows.shape[1]
    if ndims == 2 and components == 1 and n == int(dims[0]) * int(dims[1]):
        nx, ny = int(dims[0]), int(dims[1])
        x0 = origin[0] - 0.5 * spacing[0]
        y0 = origin[1] - 0.5 * spacing[1]
        extent = [x0, x0 + nx * spacing[0], y0, y0 + ny * spacing[1]]
        cols = 2 if len(picks) > 1 else 1
        nrows = (len(picks) + cols - 1) // cols
        fig, axes = plt.subplots(nrows, cols, figsize=(5 * cols + 1, 4 * nrows), squeeze=False,
                                 constrained_layout=True)
        lo, hi = float(rows.min()), float(rows.max())
        im = None
        for ax, k, row in zip(axes.flat, picks, rows):
            im = ax.imshow(row.reshape(ny, nx), origin="lower", extent=extent, aspect="auto",
                           vmin=lo, vmax=hi)
            ax.set_title(f"t = {time[k]:g}")
            ax.set_xlabel("x")
            ax.set_ylabel("y")
        for ax in list(axes.flat)[len(picks):]:
            ax.axis("off")
        fig.colorbar(im, ax=axes.ravel().tolist(), label="u")
        fig.suptitle(f"{problem} ({method}), n = {n:,}")
    else:
        fig, ax = plt.subplots(figsize=(7, 5))
        if ndims == 1 and components == 1 and n == int(dims[0]):
            xs = origin[0] + spacing[0] * np.arange(n)
            ax.set_xlabel("x")
        else:
            xs = np.arange(n)
            ax.set_xlabel("state index")
        for k, row in zip(picks, rows):
            ax.plot(xs, row, label=f"t = {time[k]:g}")
        ax.set_ylabel("value")
        ax.legend()
        ax.set_title(f"{problem} ({method}), n = {n:,}")
        fig.tight_layout()
    fig.savefig(out, dpi=100)
    print(f"plot: {out}")


if __name__ == "__main__":
    main()
