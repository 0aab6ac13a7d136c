"""ParaView opens qmol's XDMF sidecars: a real client, not a look at the XML.

Run under ParaView's Python, with an X server (Debian's pvpython renders
through X; its --force-offscreen-rendering crashes without one):

  xvfb-run -a -s "-screen 0 1024x768x24 -noreset" pvpython --no-mpi \\
      tests/paraview_test.py --qmol build/qmol \\
      --mpiexec "mpiexec --allow-run-as-root --oversubscribe" --scratch /tmp/qmol-pv \\
      [--python /usr/bin/python3] [--docs docs/img]

(-noreset: Xvfb resets when its last client disconnects and drops a
connection made meanwhile, and ParaView opens, closes and reopens the
display: without it pvpython aborted with "bad X server connection" in 1 run
in 5 on a busy machine. --no-mpi: otherwise pvpython starts as an MPI
singleton, whose environment breaks the mpiexec it runs.) qmol writes
heat1d, heat2d, heat3d and diurnal (2 components) on one rank, heat2d on 2
ranks and diurnal on 3; tests/paraview_expect.py (the Python with h5py)
reads from each HDF5 file what ParaView must show. Each .xmf is then opened
with the reader that OpenDataFile picks (Xdmf3ReaderS), Xdmf3ReaderT and the
legacy XDMFReader, and each must give: the sample times; at every time, the
point arrays named as the components, the mesh's points and bounds, and each
array's range equal to that sample's in the HDF5 file; at the last time,
every value of every array equal to the file's, point by point; and no
"Skipping unrecognized array type" on stderr. The last sample of each file
is rendered with the default reader to a PNG in the scratch directory, which
must hold coloured pixels (a field without its array renders in one grey).
With --docs DIR, the heat2d and heat3d pictures are also written to
DIR/paraview-heat2d.png and DIR/paraview-heat3d.png (docs/output.md).

Prints one line per file and reader, "FAIL: ..." for each failure, the time
taken, and exits 1 on any failure.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time

from paraview.servermanager import Fetch
from paraview.simple import (Clip, ColorBy, CreateView, Delete, GetColorTransferFunction,
                             GetScalarBar, Hide, OpenDataFile, SaveScreenshot, Show, Text,
                             XDMFReader, Xdmf3ReaderT)
from vtkmodules.util.numpy_support import vtk_to_numpy

# label, ranks, problem, its settings (4 samples each, CVODE)
CASES = [
    ("heat1d", 1, "heat1d", ["--set", "N=60", "--tf", "0.05"]),
    ("heat2d", 1, "heat2d", ["--set", "nx=60", "--set", "ny=40", "--set", "kx=2", "--tf", "0.01"]),
    ("heat3d", 1, "heat3d", ["--set", "nx=24", "--set", "ny=20", "--set", "nz=12", "--set",
                             "kx=2", "--tf", "0.005"]),
    ("diurnal", 1, "diurnal", ["--set", "mx=20", "--set", "my=16", "--tf", "21600"]),
    ("heat2d-np2", 2, "heat2d", ["--set", "nx=60", "--set", "ny=40", "--set", "kx=2",
                                 "--tf", "0.01"]),
    ("diurnal-np3", 3, "diurnal", ["--set", "mx=20", "--set", "my=16", "--tf", "21600"]),
]
DOCS = {"heat2d": "paraview-heat2d.png", "heat3d": "paraview-heat3d.png"}
READERS = [("default", OpenDataFile), ("Xdmf3ReaderT", lambda f: Xdmf3ReaderT(FileName=[f])),
           ("XDMFReader", lambda f: XDMFReader(FileNames=[f]))]
SIZE = [480, 360]


def close(a, b, tol=1e-13):
    return abs(a - b) <= tol * max(abs(a), abs(b), 1e-300)


class Stderr:
    """What C++ code writes on fd 2 while inside (the Xdmf3 reader's
    "Skipping unrecognized array type [None]" goes there), passed on."""

    def __enter__(self):
        sys.stderr.flush()
        self.tmp = tempfile.TemporaryFile()
        self.saved = os.dup(2)
        os.dup2(self.tmp.fileno(), 2)
        return self

    def __exit__(self, *exc):
        sys.stderr.flush()
        os.dup2(self.saved, 2)
        os.close(self.saved)
        self.tmp.seek(0)
        self.text = self.tmp.read().decode(errors="replace")
        self.tmp.close()
        sys.stderr.write(self.text)


def child_env():
    """The environment for qmol's mpiexec, without an MPI singleton's
    variables (pvpython started without --no-mpi sets them)."""
    keep = ("OMPI_ALLOW_RUN_AS_ROOT", "OMPI_MCA_rmaps_base_oversubscribe")
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("OMPI_", "PMIX_")) or k.startswith(keep)}


def run_qmol(args, failures):
    """Runs the cases; returns {label: path of the .h5}."""
    files = {}
    for label, ranks, problem, sets in CASES:
        out = os.path.join(args.scratch, label + ".h5")
        cmd = shlex.split(args.mpiexec) + ["-n", str(ranks), args.qmol, "run", "--problem",
                                           problem, "--method", "cvode", "--samples", "4",
                                           "--output", out, "--overwrite", "--quiet"] + sets
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=child_env())
        if r.returncode != 0 or not os.path.exists(out[:-3] + ".xmf"):
            failures.append("%s: qmol exit %d, %s" % (label, r.returncode, r.stderr.strip()))
            continue
        files[label] = out
    return files


def first_dataset(obj):
    """obj, or its first leaf dataset when it is a composite (the readers'
    outputs differ)."""
    while obj is not None and obj.IsA("vtkMultiBlockDataSet"):
        obj = obj.GetBlock(0) if obj.GetNumberOfBlocks() else None
    return obj


def check_reader(label, kind, make, xmf, want, failures):
    """Opens xmf with one reader and compares what it shows with want."""
    fails = []
    with Stderr() as err:
        r = make(xmf)
        name = r.GetXMLName()
        if kind == "default" and name not in ("Xdmf3ReaderS", "Xdmf3ReaderT"):
            fails.append("OpenDataFile picked %s, not an Xdmf3 reader" % name)
        times = list(r.TimestepValues)
        if len(times) != len(want["times"]) or not all(
                close(a, b) for a, b in zip(times, want["times"])):
            fails.append("times %s, /time %s" % (times, want["times"]))
        for k, t in enumerate(want["times"]):
            r.UpdatePipeline(t)
            info = r.GetDataInformation()
            if info.GetNumberOfPoints() != want["points"]:
                fails.append("t=%g: %d points, the box has %d"
                             % (t, info.GetNumberOfPoints(), want["points"]))
            bounds = list(info.GetBounds())  # in float precision
            span = max(abs(b) for b in want["bounds"]) or 1.0
            if not all(abs(a - b) <= 1e-6 * span for a, b in zip(bounds, want["bounds"])):
                fails.append("t=%g: bounds %s, the mesh's %s" % (t, bounds, want["bounds"]))
            names = sorted(r.PointData.keys())
            if names != sorted(want["names"]):
                fails.append("t=%g: point arrays %s, components %s" % (t, names, want["names"]))
                continue
            for a in want["names"]:
                got, exp = list(r.PointData[a].GetRange()), want["ranges"][a][k]
                if not (close(got[0], exp[0]) and close(got[1], exp[1])):
                    fails.append("t=%g: %s range %s, HDF5 %s" % (t, a, got, exp))
            if k == len(want["times"]) - 1:  # every value, in place (a swap keeps the range)
                data = first_dataset(Fetch(r))
                for a in want["names"]:
                    arr = data.GetPointData().GetArray(a) if data else None
                    got = list(vtk_to_numpy(arr)) if arr else []
                    if got != want["last"][a]:
                        fails.append("t=%g: %s's values are not the HDF5 file's, point by point"
                                     % (t, a))
        Delete(r)
    if "Skipping unrecognized array type" in err.text:
        fails.append("the reader skipped arrays (\"Skipping unrecognized array type\")")
    for f in fails:
        failures.append("%s, %s (%s): %s" % (label, kind, name, f))
    print("%s: %s (%s): %d times, arrays %s: %s" % (label, kind, name, len(want["times"]),
                                                    " ".join(want["names"]),
                                                    "FAILED" if fails else "ok"), flush=True)


def coloured(png):
    """The fraction of the PNG's pixels left of the colour bar (the right
    28%) that are not grey: 0 for a field drawn without its array."""
    from vtkmodules.vtkIOImage import vtkPNGReader
    rd = vtkPNGReader()
    rd.SetFileName(png)
    rd.Update()
    w, h, _ = rd.GetOutput().GetDimensions()
    px = vtk_to_numpy(rd.GetOutput().GetPointData().GetScalars()).astype(int)
    px = px.reshape(h, w, -1)[:, :int(0.72 * w), :3]
    return float(((px.max(axis=2) - px.min(axis=2)) > 40).mean())


def render(label, xmf, want, png, failures):
    """The last sample with the default reader, coloured by the first array;
    a 3D grid cut in half at its middle z, seen from a corner."""
    r = OpenDataFile(xmf)
    last = want["times"][-1]
    r.UpdatePipeline(last)
    b = want["bounds"]
    solid = b[5] > b[4]
    shown = r
    if solid:
        shown = Clip(Input=r)
        shown.ClipType = "Plane"
        shown.ClipType.Origin = [(b[0] + b[1]) / 2, (b[2] + b[3]) / 2, (b[4] + b[5]) / 2]
        shown.ClipType.Normal = [0, 0, 1]
    view = CreateView("RenderView")
    view.ViewSize = SIZE
    view.ViewTime = last
    view.UseColorPaletteForBackground = 0
    view.Background = [1, 1, 1]
    view.OrientationAxesVisibility = 1
    array = want["names"][0]
    disp = Show(shown, view)
    disp.Representation = "Surface"
    disp.LineWidth = 8
    disp.RenderLinesAsTubes = 1
    ColorBy(disp, ("POINTS", array))
    lut = GetColorTransferFunction(array)
    lut.RescaleTransferFunction(*want["ranges"][array][-1])
    disp.SetScalarBarVisibility(view, True)
    bar = GetScalarBar(lut, view)
    bar.TitleColor = bar.LabelColor = [0, 0, 0]
    title = Text(Text="qmol %s: %s at t = %.4g" % (label, array, last))
    tdisp = Show(title, view)
    tdisp.Color = [0, 0, 0]
    tdisp.FontSize = 14
    tdisp.WindowLocation = "Upper Center"
    view.ResetCamera()
    if solid:
        cam = view.GetActiveCamera()
        cam.Azimuth(30)
        cam.Elevation(35)
        view.ResetCamera()
    SaveScreenshot(png, view, ImageResolution=SIZE)
    Hide(title, view), Hide(shown, view)
    Delete(title), Delete(view)
    if solid:
        Delete(shown)
    Delete(r)
    share = coloured(png) if os.path.exists(png) else 0.0
    if share < 0.003:
        failures.append("%s: %s has %.2f%% coloured pixels (grey: no field)"
                        % (label, png, 100 * share))
    print("%s: %s (last sample, %s, %.1f%% coloured)" % (label, png, array, 100 * share),
          flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qmol", required=True)
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--scratch", required=True)
    ap.add_argument("--python", default="/usr/bin/python3", help="a Python with h5py")
    ap.add_argument("--docs", help="also write the heat2d and heat3d PNGs here")
    args = ap.parse_args()
    t0 = time.time()
    args.scratch = os.path.abspath(os.path.join(args.scratch, "paraview"))
    os.makedirs(args.scratch, exist_ok=True)
    failures = []
    files = run_qmol(args, failures)
    t_runs = time.time() - t0
    here = os.path.dirname(os.path.abspath(__file__))
    r = subprocess.run([args.python, os.path.join(here, "paraview_expect.py")]
                       + list(files.values()), capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        failures.append("paraview_expect.py: exit %d: %s" % (r.returncode, r.stderr))
        files = {}
    expected = json.loads(r.stdout) if r.returncode == 0 else {}
    for label, h5 in files.items():
        # an absolute path: Xdmf3 finds the HDF5 file by joining the .xmf's
        # directory, which it takes as "run.xmf" for a bare "run.xmf"
        xmf, want = os.path.abspath(h5[:-3] + ".xmf"), expected[h5]
        for kind, make in READERS:
            check_reader(label, kind, make, xmf, want, failures)
        png = os.path.join(args.scratch, label + ".png")
        render(label, xmf, want, png, failures)
        if args.docs and label in DOCS and os.path.exists(png):
            with open(png, "rb") as src, open(os.path.join(args.docs, DOCS[label]), "wb") as dst:
                dst.write(src.read())
    print("paraview: %d files x %d readers in %.1f s (qmol runs %.1f s)"
          % (len(files), len(READERS), time.time() - t0, t_runs))
    for f in failures:
        print("FAIL: " + f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
