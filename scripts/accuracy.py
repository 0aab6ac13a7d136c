"""accuracy: what the accuracy scripts and tests share about result files.

  read_result(path)      a qmol result file as a Result: time, states, attrs, stats
  methods_logged(f)      /methods of an open file (--method auto's segments) as
                         [(start t, method name)], [] without it
  stats_of(f)            /stats's attributes of an open file: seconds (wall_*,
                         events_per_second) as float, counts as int
  read_stats(path)       the same from a path, without reading /states
  e_rr(x, ref)           ||x - ref||_2 / ||ref||_2 over all samples and states
                         (thesis eq. 4.11)
  e_rr_files(p, ref_p)   the same of two result files, a sample row at a time
  work_done(stats, m)    "N events", "N steps" or both, for method m's stats
  default_mpiexec()      mpiexec --oversubscribe (--allow-run-as-root as root)
  max_error(x, ref)      max |x - ref|
  heat_exact(f)          the exact semi-discrete solution of heat1d/2d/3d at a
                         file's sample times (f: an open h5py.File or a Result)
  markdown_table(h, r)   a markdown table, columns padded to line up

Used by scripts/accuracy-matrix, bench-auto, bench-builds, bench-engine, bench-mixed,
bench-serial, scaling, qmolpost and the Python tests (which add this
directory to sys.path; an installed qmolpost finds it in
share/qmol/python). Needs h5py and numpy: Debian's /usr/bin/python3 has
them (python3-h5py, python3-numpy).
"""
import math
import os

import h5py
import numpy as np


def stats_of(f):
    """/stats's attributes of an open h5py.File: float for wall_* and
    events_per_second, int for the counts."""
    return {k: (float(v) if k.startswith("wall") or k == "events_per_second" else int(v))
            for k, v in f["stats"].attrs.items()}


def read_stats(path):
    """stats_of the file at path."""
    with h5py.File(path, "r") as f:
        return stats_of(f)


def text(v):
    """An HDF5 attribute as str when it is a string (h5py may give bytes)."""
    return v.decode() if isinstance(v, bytes) else v


def methods_logged(f):
    """/methods of an open h5py.File (a run whose method changed as it ran,
    --method auto) as [(t, method name)], each segment's start and method in
    order; [] without /methods."""
    if "methods" not in f:
        return []
    g = f["methods"]
    names = str(text(g.attrs["names"])).split()
    return [(float(t), names[int(k)]) for t, k in zip(g["t"][()], g["method"][()])]


class Result:
    """A result file read whole: time (K,), states (K, n), attrs (the file's
    attributes, strings decoded), stats (/stats attributes: the totals over
    ranks) and per_rank (/stats/per_rank/<name>: one value per rank)."""

    def __init__(self, path):
        self.path = path
        with h5py.File(path, "r") as f:
            # a run that did not finish: the samples it wrote (samples_written)
            K = f["time"].shape[0]
            valid = min(K, int(f.attrs.get("samples_written", K)))
            self.time = f["time"][:valid]
            self.states = f["states"][:valid]
            self.attrs = {k: text(v) for k, v in f.attrs.items()}
            st = f["stats"] if "stats" in f else None
            self.stats = {k: v for k, v in st.attrs.items()} if st is not None else {}
            self.per_rank = ({k: st["per_rank"][k][()] for k in st["per_rank"]}
                             if st is not None and "per_rank" in st else {})

    def ranks(self):
        """P, the number of ranks the run used (1 without /stats/per_rank)."""
        return len(next(iter(self.per_rank.values()))) if self.per_rank else 1

    def rank_max(self, name, default=None):
        """The largest rank's value of a per-rank statistic: for `windows` and
        `windows_rejected`, which every rank counts alike, the run's count."""
        if name in self.per_rank:
            return np.max(self.per_rank[name]).item()
        return np.asarray(self.stats[name]).item() if name in self.stats else default


def read_result(path):
    return Result(path)


def e_rr(x, ref):
    """||x - ref|| / ||ref|| over all samples and states (NaN if x is not
    finite; ||x - ref|| itself where the reference is all zero)."""
    x, ref = np.asarray(x, dtype=float), np.asarray(ref, dtype=float)
    if x.shape != ref.shape:
        raise ValueError("states of shape %s against a reference of shape %s"
                         % (x.shape, ref.shape))
    if not np.all(np.isfinite(x)):
        return float("nan")
    norm = np.linalg.norm(ref)
    return float(np.linalg.norm(x - ref) / norm if norm > 0 else np.linalg.norm(x - ref))


def e_rr_files(path, ref_path):
    """e_rr of the result file at path against the one at ref_path, read one
    sample row at a time (grids too large to hold whole); the states' shapes
    and the sample times must agree (ValueError otherwise)."""
    num = den = 0.0
    with h5py.File(path, "r") as f, h5py.File(ref_path, "r") as g:
        x, xr = f["states"], g["states"]
        if x.shape != xr.shape:
            raise ValueError("%s has states %s, %s has %s" % (path, x.shape, ref_path, xr.shape))
        if not np.allclose(f["time"][:], g["time"][:], rtol=0, atol=1e-12):
            raise ValueError("%s: sample times differ from %s" % (path, ref_path))
        for k in range(x.shape[0]):
            a, b = x[k, :], xr[k, :]
            if not np.all(np.isfinite(a)):
                return float("nan")
            num += float(np.dot(a - b, a - b))
            den += float(np.dot(b, b))
    return math.sqrt(num / den) if den > 0 else math.sqrt(num)


def work_done(stats, method):
    """A run's work from its stats: QSS events, CVODE steps, or both (the
    mixed method's blocks)."""
    events, steps = int(stats.get("events", 0)), int(stats.get("nst", 0))
    if method == "cvode":
        return "{:,} steps".format(steps)
    if not steps:
        return "{:,} events".format(events)
    return "{:,} events + {:,} steps".format(events, steps)


def default_mpiexec():
    """mpiexec oversubscribed (a small machine runs more ranks than cores),
    with --allow-run-as-root as root."""
    m = "mpiexec --oversubscribe"
    return m + " --allow-run-as-root" if os.geteuid() == 0 else m


def max_error(x, ref):
    """max |x - ref| over all samples and states."""
    return float(np.abs(np.asarray(x, dtype=float) - np.asarray(ref, dtype=float)).max())


def heat_exact(f):
    """x(t) = A prod_d sin(k_d pi x_d / L) exp(-lambda t) at the grid nodes and
    sample times of result f, lambda = d sum_d (4/h_d^2) sin^2(k_d pi h_d / (2L))
    (problems/heat.c): the exact solution of the semi-discrete system, so the
    error against it is the time integration's only."""
    if isinstance(f, Result):
        attrs, t = f.attrs, f.time
    else:
        attrs, t = {k: text(v) for k, v in f.attrs.items()}, f["time"][()]
    dims = [int(v) for v in attrs["dims"]]
    origin, spacing = attrs["origin"], attrs["spacing"]
    d, length, amp = (float(attrs["param." + k]) for k in ("d", "L", "A"))
    modes = [float(attrs["param.k" + "xyz"[i]]) for i in range(len(dims))]
    lam, shape = 0.0, 1.0
    for i, (nd, o, h, k) in enumerate(zip(dims, origin, spacing, modes)):
        x = o + h * np.arange(nd)
        lam += d * 4.0 / h ** 2 * math.sin(k * math.pi * h / (2.0 * length)) ** 2
        s = np.sin(k * math.pi * x / length)
        # state id = ix + nx (iy + ny iz): dimension 0 varies fastest
        shape = np.multiply.outer(s, shape) if i else s
    x0 = np.asarray(shape).reshape(-1)
    return amp * x0[None, :] * np.exp(-lam * t)[:, None]


def markdown_table(header, rows, align=None):
    """The lines of a markdown table; cells are str()'d, columns padded. align:
    one of "l" or "r" per column (default: left)."""
    rows = [[str(c) for c in r] for r in rows]
    align = align or "l" * len(header)
    width = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]

    def line(cells):
        return "| " + " | ".join(c.rjust(w) if a == "r" else c.ljust(w)
                                 for c, w, a in zip(cells, width, align)) + " |"

    rule = "|" + "|".join(("-" * (w + 1) + ":") if a == "r" else ("-" * (w + 2))
                          for w, a in zip(width, align)) + "|"
    return [line(header), rule] + [line(r) for r in rows]
