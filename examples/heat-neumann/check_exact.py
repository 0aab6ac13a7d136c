#!/usr/bin/env python3
"""A heat-neumann result against the exact solution (docs/tutorial.md):
python3 check_exact.py FILE.h5 prints max |u - exact| over the samples and
exits 1 if it is above 2 tol (the run's --tol)."""
import sys

import h5py
import numpy as np

f = h5py.File(sys.argv[1], "r")
p = {key[6:]: float(v) for key, v in f.attrs.items() if key.startswith("param.")}
t, u, tol = f["time"][()], f["states"][()], float(f.attrs["reltol"])
n, L, k = int(p["N"]), p["L"], p["k"]
h = L / (n - 1)
mu = -4.0 / h**2 * np.sin(np.pi * k * h / (2.0 * L)) ** 2  # the mode's eigenvalue
D = p["d0"] * (t + p["a"] * (1.0 - np.cos(p["w"] * t)) / p["w"])  # int_0^t d(s) ds
exact = np.cos(np.pi * k * np.arange(n) * h / L)[None, :] * np.exp(mu * D)[:, None]
err = np.abs(u - exact).max()
print("max |u - exact| = %.3g (bound 2 tol = %.3g)" % (err, 2 * tol))
sys.exit(0 if err <= 2 * tol else 1)
