#!/usr/bin/python3
"""Valgrind memcheck over small single-rank qmol runs (singleton MPI_Init, no
mpiexec): a QSS run (heat1d, LIQSS2), a CVODE run (heat2d: SPGMR + ILU(0)),
a mixed QSS/BDF run with zero crossings and time events (buck-heatsink,
--assign auto), a 2D grid run with its XDMF sidecar (adr2d, mLIQSS2) and
one refused run (bad --set: exit 2, the error path must free what it
allocated too).

Each run must exit with its expected code (valgrind turns any unsuppressed
error into exit 99), its valgrind log must say "ERROR SUMMARY: 0 errors" and
"definitely lost: 0 bytes", and its result files must be there: the .h5
with --samples entries in /time, the .xmf (grid runs) valid XML with one
time grid per sample. Errors counted: invalid reads/writes/frees,
uninitialised values that matter, bad syscall params, overlapping copies,
and definitely lost blocks (--errors-for-leak-kinds=definite: a block whose
last pointer qmol dropped; "indirectly lost" blocks hang off a definite one
and "possibly lost" ones are interior pointers, reported but not failed).
Open MPI's own leaks and noise are suppressed by tests/valgrind/openmpi.supp,
which names no qmol code.

usage: valgrind_test.py --qmol BIN --scratch DIR [--valgrind PATH]
                        [--suppressions FILE] [--only NAME[,NAME]]
Exit 0 pass, 1 fail, 77 skipped (the binary is built with a sanitizer).
"""
import argparse
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
SKIP = 77

# name: (qmol arguments after `run`, expected exit code, samples or None,
#        writes an XDMF sidecar). Sizes keep each run to a few seconds under
# memcheck (most of it MPI_Init); every run still takes every code path of
# its method: set-up, the integration loop, the samples, the file.
RUNS = {
    "qss": (["--problem", "heat1d", "--method", "liqss2", "--set", "N=20",
             "--tf", "0.02", "--samples", "5"], 0, 5, True),
    "cvode": (["--problem", "heat2d", "--method", "cvode", "--set", "nx=6", "--set", "ny=5",
               "--tf", "0.02", "--samples", "5"], 0, 5, True),
    # 6 states on LIQSS2 (i_L, u_C, sections 1-4), 6 on BDF; ~40 crossings and
    # ~80 time events in 20 switching periods: handlers, CVodeReInit
    "mixed": (["--problem", "buck-heatsink", "--method", "mixed", "--qss-method", "liqss2",
               "--assign", "auto", "--assign-threshold", "0.01", "--set", "N=10",
               "--tf", "0.002", "--samples", "5"], 0, 5, False),
    "grid": (["--problem", "adr2d", "--method", "mliqss2", "--set", "nx=8", "--set", "ny=6",
              "--tf", "1", "--samples", "4"], 0, 4, True),
    "refused": (["--problem", "heat1d", "--set", "N=abc", "--samples", "3"], 2, None, False),
}

VALGRIND_OPTIONS = [
    "--tool=memcheck", "--error-exitcode=99", "--leak-check=full",
    "--errors-for-leak-kinds=definite", "--track-origins=yes", "--num-callers=30",
    # keep the symbols of Open MPI's MCA components after it dlclose()s them
    # (and with them libpmix): without it their frames print as ??? and the
    # obj:*/libpmix.so* suppressions cannot match
    "--keep-debuginfo=yes",
    # print suppression text for whatever is reported, to extend the file
    "--gen-suppressions=all",
]


def sanitized(binary):
    """True when BIN links a sanitizer runtime (valgrind and ASan do not mix)."""
    try:
        out = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    except OSError:
        return False
    return re.search(r"lib(asan|tsan|msan|lsan|ubsan)\.so", out) is not None


def check_outputs(name, h5, samples, xdmf, failures):
    if not os.path.isfile(h5) or os.path.getsize(h5) == 0:
        failures.append("%s: no result file %s" % (name, h5))
        return
    try:
        import h5py
        with h5py.File(h5, "r") as f:
            n = f["time"].shape[0]
        if n != samples:
            failures.append("%s: %s has %d samples in /time, expected %d" % (name, h5, n, samples))
    except ImportError:  # the signature is enough without h5py
        with open(h5, "rb") as f:
            if f.read(8) != b"\x89HDF\r\n\x1a\n":
                failures.append("%s: %s is not an HDF5 file" % (name, h5))
    except Exception as e:  # noqa: BLE001 - any read error is the failure
        failures.append("%s: cannot read %s: %s" % (name, h5, e))
    xmf = h5[:-3] + ".xmf"
    if not xdmf:
        return
    if not os.path.isfile(xmf):
        failures.append("%s: no XDMF sidecar %s" % (name, xmf))
        return
    try:
        grids = ET.parse(xmf).getroot().findall("./Domain/Grid/Grid")
        if len(grids) != samples:
            failures.append("%s: %s has %d time grids, expected %d"
                            % (name, xmf, len(grids), samples))
    except ET.ParseError as e:
        failures.append("%s: %s is not valid XML: %s" % (name, xmf, e))


def report(log):
    """The part of a valgrind log worth printing: from the first report on."""
    with open(log) as f:
        lines = f.read().splitlines()
    body = [ln for ln in lines if not re.match(r"==\d+== (Memcheck|Copyright|Using|Command|"
                                                 r"Parent PID|$)", ln)]
    return "\n".join(body[-400:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--qmol", required=True)
    ap.add_argument("--scratch", required=True)
    ap.add_argument("--valgrind", default="valgrind")
    ap.add_argument("--suppressions", default=os.path.join(HERE, "valgrind", "openmpi.supp"))
    ap.add_argument("--only", default="", help="comma-separated run names (default: all)")
    args = ap.parse_args()

    if sanitized(args.qmol):
        print("SKIP: %s is built with a sanitizer; valgrind cannot run it" % args.qmol)
        return SKIP
    os.makedirs(args.scratch, exist_ok=True)
    env = dict(os.environ)
    env.update({"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
                # hwloc's x86 CPUID backend refuses valgrind and says so on stderr
                "HWLOC_COMPONENTS": "-x86"})
    names = [n for n in args.only.split(",") if n] or list(RUNS)
    failures = []
    start = time.monotonic()
    for name in names:
        qargs, want, samples, xdmf = RUNS[name]
        h5 = os.path.join(args.scratch, name + ".h5")
        log = os.path.join(args.scratch, name + ".valgrind.log")
        for path in (h5, h5[:-3] + ".xmf", log):
            if os.path.exists(path):
                os.remove(path)
        cmd = ([args.valgrind] + VALGRIND_OPTIONS
               + ["--suppressions=" + args.suppressions, "--log-file=" + log,
                  args.qmol, "run"] + qargs + ["--output", h5, "--quiet"])
        t0 = time.monotonic()
        r = subprocess.run(cmd, env=env, capture_output=True, text=True)
        dt = time.monotonic() - t0
        text = open(log).read() if os.path.exists(log) else ""
        summary = re.findall(r"ERROR SUMMARY: (\d+) errors", text)
        lost = re.search(r"definitely lost: ([\d,]+) bytes", text)
        problems = []
        if r.returncode == 99:
            problems.append("valgrind found errors (exit 99)")
        elif r.returncode != want:
            problems.append("exit %d, expected %d" % (r.returncode, want))
        if not summary:
            problems.append("no ERROR SUMMARY in the valgrind log (did valgrind run?)")
        elif any(s != "0" for s in summary):
            problems.append("ERROR SUMMARY: %s errors" % "+".join(summary))
        if lost and lost.group(1) != "0":
            problems.append("definitely lost: %s bytes" % lost.group(1))
        print("%-8s %5.1f s  exit %d  %s" % (name, dt, r.returncode,
                                            "; ".join(problems) if problems else "clean"))
        if problems:
            failures.append("%s: %s\n  command: %s\n  qmol stderr: %s\n  valgrind log %s:\n%s"
                            % (name, "; ".join(problems), " ".join(cmd), r.stderr.strip(),
                               log, report(log) if text else "(none)"))
            continue
        if want == 0:
            check_outputs(name, h5, samples, xdmf, failures)
        elif os.path.exists(h5):
            failures.append("%s: refused run left %s" % (name, h5))
    print("total %.1f s" % (time.monotonic() - start))
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
