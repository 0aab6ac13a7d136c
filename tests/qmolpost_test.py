#!/usr/bin/env python3
"""scripts/qmolpost on small runs: adr2d on 2 ranks (LIQSS2), the same on one
rank, heat3d and heat1d (QSS2) and heat1d under CVODE.

  - plot, activity and partition write the PNG files they print (real PNGs,
    not empty), for 2D, 3D and 1D grids;
  - scaling plots a scripts/scaling CSV (failed rows left out);
  - compare prints, per sample and over all, e_rr and max |a - b| equal (to
    the printed digits) to the values computed here from the two files;
  - the file of a run that did not finish (samples_written < samples): plot and
    compare use the samples it holds and say so; one without any is refused;
  - errors exit with code 2 and one line naming the file: a missing file,
    activity of a CVODE run, compare of different problems.

usage: qmolpost_test.py --qmol BIN --mpiexec "mpiexec ..." --scratch DIR
"""
import os
import shlex
import shutil
import subprocess
import sys

import h5py
import numpy as np
from script_support import finish, parse_args

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
POST = os.path.join(ROOT, "scripts", "qmolpost")


def post(*args):
    return subprocess.run(["/usr/bin/python3", POST] + list(args), capture_output=True,
                          text=True, timeout=300)


def is_png(path):
    """A real PNG of some content (more than 5000 bytes)."""
    if not os.path.exists(path):
        return False
    with open(path, "rb") as f:
        return f.read(8) == b"\x89PNG\r\n\x1a\n" and os.path.getsize(path) > 5000


def main():
    args = parse_args("qmolpost")
    d = args.scratch
    failures = []
    runs = {"adr2d-np2": (2, ["--problem", "adr2d", "--set", "nx=30", "--set", "ny=20",
                              "--method", "liqss2", "--tf", "1", "--activity", "samples"]),
            "adr2d-np1": (1, ["--problem", "adr2d", "--set", "nx=30", "--set", "ny=20",
                              "--method", "liqss2", "--tf", "1"]),
            "heat3d": (1, ["--problem", "heat3d", "--set", "nx=6", "--set", "ny=5", "--set",
                           "nz=4", "--method", "qss2", "--tf", "0.01", "--samples", "10"]),
            "heat1d": (1, ["--problem", "heat1d", "--set", "N=40", "--method", "qss2", "--tf",
                           "0.01"]),
            "heat1d-cvode": (1, ["--problem", "heat1d", "--set", "N=40", "--method", "cvode",
                                 "--tf", "0.01"]),
            # two species of very different size (c2 / c1 ~ 1e5 by t = 12 h)
            "diurnal-qss": (1, ["--problem", "diurnal", "--set", "mx=4", "--set", "my=4",
                                "--method", "liqss2", "--tf", "43200"]),
            "diurnal-cvode": (1, ["--problem", "diurnal", "--set", "mx=4", "--set", "my=4",
                                  "--method", "cvode", "--tol", "1e-6", "--tf", "43200"]),
            # auto switches as the front reaches the diffusive half (/methods)
            "vardiff-auto": (1, ["--problem", "adr1d-vardiff", "--set", "N=400", "--method",
                                 "auto", "--activity", "samples"])}
    for name, (p, extra) in runs.items():
        cmd = shlex.split(args.mpiexec) + ["-n", str(p), args.qmol, "run", "--samples", "4",
                                           "--output", os.path.join(d, name + ".h5"),
                                           "--overwrite", "--quiet"] + extra
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            sys.exit("FAIL: %s: exit %d: %s" % (name, r.returncode, r.stderr))
    for name in ("adr2d-np2", "heat3d", "heat1d"):
        h5 = os.path.join(d, name + ".h5")
        for kind in ("plot", "activity", "partition"):
            if kind == "partition" and name != "adr2d-np2":
                continue
            png = os.path.join(d, "%s-%s.png" % (name, kind))
            if os.path.exists(png):
                os.remove(png)
            r = post(kind, h5)
            ok = r.returncode == 0 and ("qmolpost: wrote " + png) in r.stdout and is_png(png)
            if not ok:
                failures.append("%s %s: exit %d, %r %r" % (kind, name, r.returncode, r.stdout,
                                                         r.stderr))
            else:
                print("%s %s: %s" % (kind, name, png))
    # --activity samples on 2 ranks: the rows add up to the run's counts
    with h5py.File(os.path.join(d, "adr2d-np2.h5"), "r") as f:
        rows, total = f["activity/per_sample"][()], f["activity/events"][()]
        if rows.shape != (4, 600) or not np.array_equal(rows.sum(axis=0), total) or \
                int(total.sum()) != int(f["stats"].attrs["events"]):
            failures.append("/activity/per_sample %s sums to %s, /activity/events %s"
                            % (rows.shape, rows.sum(), total.sum()))
    png = os.path.join(d, "adr2d-np2-activity.png")
    r = post("activity", os.path.join(d, "adr2d-np2.h5"), "--sample", "2", "--out", png)
    if r.returncode != 0 or not os.path.exists(png):
        failures.append("activity --sample 2: exit %d %r" % (r.returncode, r.stderr))
    # activity of an auto run names the methods that ran in the shown span,
    # as /methods has them
    with h5py.File(os.path.join(d, "vardiff-auto.h5"), "r") as f:
        g, t = f["methods"], f["time"][()]
        names = g.attrs["names"]
        names = (names.decode() if isinstance(names, bytes) else str(names)).split()
        seg = list(zip(g["t"][()], [names[int(k)] for k in g["method"][()]]))
        split = f["partition/method"][()]
    for k in range(1, 5):
        ta, tb = (t[k - 2] if k > 1 else 0.0), t[k - 1]
        want = []
        for j, (s, m) in enumerate(seg):
            end = seg[j + 1][0] if j + 1 < len(seg) else np.inf
            if s < tb and end > ta and m not in want:
                want.append(m)
        png = os.path.join(d, "vardiff-auto-%d.png" % k)
        r = post("activity", os.path.join(d, "vardiff-auto.h5"), "--sample", str(k), "--out", png)
        line = "methods in t = %g..%g: %s" % (ta, tb, ", ".join(want))
        if r.returncode != 0 or line not in r.stdout:
            failures.append("activity --sample %d of an auto run: exit %d, %r (wanted %r)"
                            % (k, r.returncode, r.stdout, line))
        # and the method map at tb: the segment that started last before tb;
        # CVODE every state on BDF, the mixed method its split, QSS none
        now = [m for s, m in seg if s < tb][-1]
        bdf = {"cvode": split.size, "mixed": int(split.sum())}.get(now, 0)
        line = "method map at t = %g: %s, %s states on QSS, %s on BDF" % (
            tb, now, format(split.size - bdf, ","), format(bdf, ","))
        if line not in r.stdout or not is_png(png):
            failures.append("activity --sample %d of an auto run: %r (wanted %r)"
                            % (k, r.stdout, line))
    if not 0 < int(split.sum()) < split.size:
        failures.append("vardiff-auto: /partition/method has %d of %d on BDF, not the split"
                        % (int(split.sum()), split.size))
    # what plot draws: of 10 samples four equally spaced ending at the last,
    # the 3D slice's z (node 2 of 4: z = 3 / 5), one scale or one per panel
    h3 = os.path.join(d, "heat3d.h5")
    with h5py.File(h3, "r") as f:
        x = f["states"][()]
        sl = x[[3, 5, 7, 9]].reshape(4, 4, 5, 6)[:, 2]
    r = post("plot", h3, "--out", os.path.join(d, "h3.png"))
    want = ["qmolpost: plot: samples 4, 6, 8, 10 (t = 0.004, 0.006, 0.008, 0.01)",
            "qmolpost: plot: colour scale shared [%.6g, %.6g] (middle slice, z = 0.6)"
            % (sl.min(), sl.max())]
    if r.returncode != 0 or r.stdout.splitlines()[:2] != want:
        failures.append("plot heat3d: exit %d, %r, expected %r" % (r.returncode, r.stdout, want))
    r = post("plot", h3, "--scale", "panel", "--out", os.path.join(d, "h3p.png"))
    if r.returncode != 0 or "colour scale per panel" not in r.stdout:
        failures.append("plot --scale panel: exit %d, %r" % (r.returncode, r.stdout))
    a, b = os.path.join(d, "adr2d-np2.h5"), os.path.join(d, "adr2d-np1.h5")
    r = post("compare", a, b)
    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        sa, sb = fa["states"][()], fb["states"][()]
    rows = [ln.split() for ln in r.stdout.splitlines()[2:]]
    want = [(np.linalg.norm(sa[k] - sb[k]) / np.linalg.norm(sb[k]), np.abs(sa[k] - sb[k]).max())
            for k in range(len(sa))]
    want.append((np.linalg.norm(sa - sb) / np.linalg.norm(sb), np.abs(sa - sb).max()))
    got = [(float(row[-2]), float(row[-1])) for row in rows]
    if r.returncode != 0 or len(got) != len(want) or any(
            abs(g[0] - w[0]) > 1e-3 * w[0] + 1e-15 or abs(g[1] - w[1]) > 1e-3 * w[1] + 1e-15
            for g, w in zip(got, want)):
        failures.append("compare: exit %d, printed %s, expected %s" % (r.returncode, got, want))
    else:
        print("compare: %d rows match (all: e_rr %.3e)" % (len(got), want[-1][0]))
    # a multi-species pair: e_rr per component (state id % 2) besides the whole
    # norm, and --component C alone
    da, db = os.path.join(d, "diurnal-qss.h5"), os.path.join(d, "diurnal-cvode.h5")
    with h5py.File(da, "r") as fa, h5py.File(db, "r") as fb:
        qa, qb = fa["states"][()], fb["states"][()]

    def rel(x, y):
        return np.linalg.norm(x - y) / np.linalg.norm(y)

    r = post("compare", da, db)
    rows = [ln.split() for ln in r.stdout.splitlines()[2:]]
    want = [(rel(qa[k], qb[k]), rel(qa[k, 0::2], qb[k, 0::2]), rel(qa[k, 1::2], qb[k, 1::2]))
            for k in range(len(qa))]
    want.append((rel(qa, qb), rel(qa[:, 0::2], qb[:, 0::2]), rel(qa[:, 1::2], qb[:, 1::2])))
    got = [(float(row[-4]), float(row[-2]), float(row[-1])) for row in rows]
    header = r.stdout.splitlines()[1] if r.returncode == 0 else ""
    if r.returncode != 0 or not header.endswith("e_rr c1      e_rr c2") or len(got) != len(want) or any(
            abs(g - w) > 1e-3 * w + 1e-15 for gr, wr in zip(got, want) for g, w in zip(gr, wr)):
        failures.append("compare per component: exit %d, printed %s, expected %s"
                        % (r.returncode, got, want))
    r = post("compare", da, db, "--component", "0")
    last = r.stdout.splitlines()[-1].split() if r.returncode == 0 else ["", "nan", "nan"]
    if r.returncode != 0 or "component 0 (c1)" not in r.stdout or \
            abs(float(last[1]) - want[-1][1]) > 1e-3 * want[-1][1]:
        failures.append("compare --component 0: exit %d, %r (expected e_rr %.3e)"
                        % (r.returncode, r.stdout, want[-1][1]))
    # the file of a run that did not finish (samples_written 2 of 4, the later rows
    # garbage): plot and compare use its 2 samples and say so; none written: refused
    part = os.path.join(d, "adr2d-np2-unfinished.h5")
    shutil.copy(a, part)
    with h5py.File(part, "r+") as f:
        f.attrs.modify("samples_written", np.int64(2))
        f["states"][2:, :] = 1e300
    r = post("compare", part, b)
    rows = [ln.split() for ln in r.stdout.splitlines()[2:]]
    e2 = np.linalg.norm(sa[:2] - sb[:2]) / np.linalg.norm(sb[:2])
    if r.returncode != 0 or len(rows) != 3 or abs(float(rows[-1][-2]) - e2) > 1e-3 * e2 or \
            "samples 1..2 of 4 hold data" not in r.stderr:
        failures.append("compare of an unfinished file: exit %d, %r %r (expected 2 samples, "
                        "e_rr %.3e)" % (r.returncode, r.stdout, r.stderr, e2))
    png = os.path.join(d, "unfinished.png")
    r = post("plot", part, "--out", png)
    if r.returncode != 0 or not os.path.exists(png) or "samples 1..2 of 4" not in r.stderr:
        failures.append("plot of an unfinished file: exit %d, %r" % (r.returncode, r.stderr))
    with h5py.File(part, "r+") as f:
        f.attrs.modify("samples_written", np.int64(0))
    r = post("plot", part, "--out", png)
    if r.returncode != 2 or "no sample was written" not in r.stderr:
        failures.append("plot of a file without samples: exit %d, %r" % (r.returncode, r.stderr))
    # scaling: a CSV as scripts/scaling writes it (its columns), two series
    csv_path = os.path.join(d, "strong.csv")
    with open(csv_path, "w") as fh:
        fh.write("series,P,status,problem,method,wall_integrate_s,efficiency\n"
                 "reference,1,ok,adr2d,cvode,0.24,\n"
                 "strong,1,ok,adr2d,liqss2,10.0,1\nstrong,2,ok,adr2d,liqss2,5.5,0.909\n"
                 "strong,4,failed,adr2d,liqss2,,\nweak,1,ok,adr2d,liqss2,10.0,1\n"
                 "weak,2,ok,adr2d,liqss2,11.0,0.909\n")
    png = os.path.join(d, "strong-scaling.png")
    r = post("scaling", csv_path)
    # the curves' points: each series its own, the CVODE reference none
    if r.returncode != 0 or ("qmolpost: wrote " + png) not in r.stdout or \
            os.path.getsize(png) < 5000 or \
            "qmolpost: strong adr2d liqss2: P=1 10 s, P=2 5.5 s\n" not in r.stdout or \
            "qmolpost: weak adr2d liqss2: P=1 10 s, P=2 11 s\n" not in r.stdout or \
            "reference" in r.stdout or "0.24" in r.stdout:
        failures.append("scaling: exit %d, %r %r" % (r.returncode, r.stdout, r.stderr))
    bad_csv = os.path.join(d, "bad.csv")
    with open(bad_csv, "w") as fh:
        fh.write("a,b\n1,2\n")
    for argv, needle in ((["plot", os.path.join(d, "missing.h5")], "missing.h5"),
                         (["scaling", bad_csv], "not a scripts/scaling CSV"),
                         (["activity", os.path.join(d, "heat1d.h5"), "--sample", "1"],
                          "--activity samples"),
                         (["activity", os.path.join(d, "heat1d-cvode.h5")], "no /activity"),
                         (["compare", a, os.path.join(d, "heat1d.h5")], "shapes"),
                         (["compare", da, db, "--component", "2"], "2 component(s)")):
        r = post(*argv)
        if r.returncode != 2 or needle not in r.stderr or len(r.stderr.splitlines()) != 1:
            failures.append("%s: exit %d, stderr %r (expected exit 2 naming %r)"
                            % (" ".join(argv[:1]), r.returncode, r.stderr, needle))
    finish(failures)


if __name__ == "__main__":
    main()
