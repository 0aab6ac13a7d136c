#!/usr/bin/env python3
"""Runs must not destroy, fake or lose each other's results (issue 17,
docs/reliability.md "Files a run writes"): on 1 and 2 ranks,

- two runs aimed at one output at the same time: the second is refused (exit
  2) naming the first one's working file, and the first one's result is whole;
  the first one's working file opens with h5py while it runs;
- a file that appears at the output's name while a run goes on is not
  replaced (exit 1, the results kept in OUT.partial; with --overwrite it is);
- symbolic links at the working files of the checkpoint and the XDMF file
  are removed, never written through (their targets unchanged), and
  --overwrite removes one at OUT.partial the same way.

- a full disk (a small tmpfs, mounted when the test runs as root; skipped with a
  message elsewhere): samples or a checkpoint that do not fit end the run with
  exit 1 and "No space left on device", never a crash (before: 139 in
  MPI_Finalize) or "the integration failed"; the last checkpoint and
  OUT.partial stay, and a restart once there is room gives the same result.

The refusals at start (a link or a stopped run's working file at OUT.partial,
--overwrite on a symlinked output) are bad-input cases (tests/bad_input_test.py).
"""
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from script_support import finish, parse_args  # noqa: E402

import h5py  # noqa: E402
import numpy as np  # noqa: E402

# about 1 s on one rank (2026-12): long enough to place a file beside it; the
# concurrent case holds it stopped while the second run starts
LONG = ["--problem", "adr2d", "--set", "nx=200", "--set", "ny=100", "--tf", "20",
        "--method", "liqss2", "--samples", "4", "--quiet"]
SHORT = ["--problem", "heat2d", "--set", "nx=12", "--set", "ny=12", "--tf", "0.01",
         "--samples", "3", "--quiet"]
PRECIOUS = "a file that is not qmol's\n"


def cmd(args, ranks):
    pre = shlex.split(args.mpiexec) + ["-n", str(ranks)] if ranks > 1 else []
    return pre + [args.qmol, "run"]


def fresh(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def wait_for(path, proc, seconds=120):
    """Until path exists (True) or proc has ended (False)."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        if os.path.exists(path):
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.02)
    return False


def run_processes(proc, ranks):
    """The qmol processes of a run: proc itself on one rank, else mpirun's
    children (Open MPI gives each rank a process group of its own, so
    stopping mpirun's group would leave the ranks running)."""
    if ranks == 1:
        return [proc.pid]
    r = subprocess.run(["ps", "-o", "pid=", "--ppid", str(proc.pid)], capture_output=True,
                       text=True)
    return [int(x) for x in r.stdout.split()]


def hold(pids, sig):
    for pid in pids:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def complete(path, samples):
    """Whether path is a finished result with every sample's time set."""
    try:
        with h5py.File(path, "r") as f:
            t = f["time"][()]
            return len(t) == samples and np.all(np.diff(t) > 0) and "stats" in f
    except (OSError, KeyError):
        return False


def concurrent(args, ranks, fails):
    where = fresh(os.path.join(args.scratch, "concurrent-%d" % ranks))
    first = subprocess.Popen(cmd(args, ranks) + LONG + ["--output", "out.h5"], cwd=where,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if not wait_for(os.path.join(where, "out.h5.partial"), first):
        fails.append("concurrent, %d ranks: the first run made no out.h5.partial" % ranks)
        first.communicate()
        return
    # while it goes on, the working file opens with h5py (the run's lock is shared
    # with HDF5 readers; an exclusive one made h5py fail with errno 11)
    # (from its first flush, just after it is claimed). A read that meets the
    # writer mid-flush can see torn metadata (no SWMR: h5py raised KeyError
    # "addr overflow" once in a loaded suite): tried again, as an OSError is
    live_ok, why = False, ""
    deadline = time.time() + 20
    while not live_ok and first.poll() is None and time.time() < deadline:
        try:
            with h5py.File(os.path.join(where, "out.h5.partial"), "r") as f:
                live_ok = "samples_written" in f.attrs
        except (OSError, KeyError) as e:
            why = str(e)
            time.sleep(0.05)
    if not live_ok:
        fails.append("concurrent, %d ranks: the live run's out.h5.partial does not open: %s"
                     % (ranks, why))
    print("concurrent, %d ranks: the live working file opens with h5py %s" % (ranks, live_ok))
    # The first run is held (SIGSTOP) while the second starts: a live run keeps
    # its lock whatever it is doing, and without the hold a fast machine ends
    # the first run before the second one's mpirun is up (CI, 2026-12-01: the
    # second, with --overwrite, then ran and exited 0).
    pids = run_processes(first, ranks)
    hold(pids, signal.SIGSTOP)
    try:
        held = (first.poll() is None and len(pids) == ranks
                and os.path.exists(os.path.join(where, "out.h5.partial")))
        # --overwrite too: it discards a stopped run's working file, never a live one's
        second = subprocess.run(cmd(args, ranks) + LONG + ["--output", "out.h5", "--overwrite"],
                                cwd=where, capture_output=True, text=True, timeout=300)
    finally:
        hold(pids, signal.SIGCONT)
    out1, err1 = first.communicate(timeout=300)
    if not held:
        fails.append("concurrent, %d ranks: the first run could not be held while the second "
                     "started (it ended first, or its %d processes were not found: %s); "
                     "LONG must run longer" % (ranks, ranks, pids))
        return
    lines = [ln for ln in second.stderr.splitlines() if ln.startswith("qmol:")]
    print("concurrent, %d ranks: second run exit %d (%s); first run exit %d, result whole %s"
          % (ranks, second.returncode, lines[0] if lines else second.stderr[-200:],
             first.returncode, complete(os.path.join(where, "out.h5"), 4)))
    if second.returncode != 2 or not lines or "out.h5.partial is being written by another" \
            not in lines[0]:
        fails.append("concurrent, %d ranks: the second run exit %d, %r (expected 2, naming "
                     "out.h5.partial)" % (ranks, second.returncode, second.stderr[-600:]))
    if first.returncode != 0 or not complete(os.path.join(where, "out.h5"), 4):
        fails.append("concurrent, %d ranks: the first run exit %d, %r, result whole %s"
                     % (ranks, first.returncode, err1[-600:],
                        complete(os.path.join(where, "out.h5"), 4)))


def appeared(args, ranks, fails):
    for overwrite in (False, True):
        where = fresh(os.path.join(args.scratch, "appeared-%d-%d" % (ranks, overwrite)))
        extra = ["--overwrite"] if overwrite else []
        p = subprocess.Popen(cmd(args, ranks) + LONG + ["--output", "out.h5"] + extra, cwd=where,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if not wait_for(os.path.join(where, "out.h5.partial"), p):
            fails.append("appeared, %d ranks: no out.h5.partial" % ranks)
            p.communicate()
            continue
        with open(os.path.join(where, "out.h5"), "w") as fh:
            fh.write(PRECIOUS)
        _, err = p.communicate(timeout=300)
        with open(os.path.join(where, "out.h5"), "rb") as fh:
            kept = fh.read() == PRECIOUS.encode()
        partial = os.path.join(where, "out.h5.partial")
        print("appeared, %d ranks, --overwrite %s: exit %d, the other file kept %s, results in "
              "out.h5.partial %s" % (ranks, overwrite, p.returncode, kept, complete(partial, 4)))
        if overwrite:
            if p.returncode != 0 or kept or not complete(os.path.join(where, "out.h5"), 4):
                fails.append("appeared with --overwrite, %d ranks: exit %d, %r" %
                             (ranks, p.returncode, err[-600:]))
        elif (p.returncode != 1 or not kept or not complete(partial, 4)
              or "appeared while the run went on" not in err):
            fails.append("appeared, %d ranks: exit %d (expected 1), other file kept %s, "
                         "results in the .partial %s, %r"
                         % (ranks, p.returncode, kept, complete(partial, 4), err[-600:]))


def links(args, ranks, fails):
    """Links at the working files of the checkpoint, the XDMF file and (with
    --overwrite) the output: removed, their targets unchanged. (The run is
    the default method's, auto's: its checkpoint by simulated time must be
    written, and so the link at its working file removed, though CVODE
    takes 4 steps: auto once called its checkpointer at stretch ends only.)"""
    where = fresh(os.path.join(args.scratch, "links-%d" % ranks))
    names = ["out.ckpt.h5.partial", "out.xmf.partial", "out.h5.partial"]
    for i, name in enumerate(names):
        with open(os.path.join(where, "target%d" % i), "w") as fh:
            fh.write(PRECIOUS)
        os.symlink("target%d" % i, os.path.join(where, name))
    r = subprocess.run(cmd(args, ranks) + SHORT + ["--output", "out.h5", "--overwrite",
                                                   "--checkpoint-every", "t=0.004"],
                       cwd=where, capture_output=True, text=True, timeout=300)
    targets = []
    for i in range(len(names)):
        with open(os.path.join(where, "target%d" % i)) as fh:
            targets.append(fh.read() == PRECIOUS)
    left = [n for n in names if os.path.lexists(os.path.join(where, n))]
    print("links, %d ranks: exit %d, targets unchanged %s, links left %s, result whole %s"
          % (ranks, r.returncode, targets, left, complete(os.path.join(where, "out.h5"), 3)))
    if r.returncode != 0 or not all(targets) or left or \
            not complete(os.path.join(where, "out.h5"), 3):
        fails.append("links, %d ranks: exit %d, targets unchanged %s, left %s, %r"
                     % (ranks, r.returncode, targets, left, r.stderr[-600:]))


DISK = ["--problem", "heat2d", "--set", "nx=100", "--set", "ny=100", "--quiet"]


def mount_tmpfs(path, size):
    os.makedirs(path, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%s" % size, "tmpfs", path],
                       capture_output=True, text=True)
    return r.returncode == 0, r.stderr.strip()


def disk_full(args, ranks, fails):
    top = os.path.join(args.scratch, "disk-%d" % ranks)
    fresh(top)
    disk = os.path.join(top, "tmpfs")
    ok, why = mount_tmpfs(disk, "4m")
    if not ok:
        print("disk full, %d ranks: skipped (cannot mount a tmpfs here: %s)" % (ranks, why))
        return
    try:
        # 80 samples of 80 KB fill 4 MB (no checkpoint; the default method);
        # 40 samples with an mLIQSS2 checkpoint (1.3 MB, two while one is
        # written) every 0.02 (CVODE's, which auto runs here, holds x alone:
        # 80 KB)
        for label, extra, expect in (
                ("samples", ["--samples", "80"], "writing the output failed"),
                ("checkpoint", ["--samples", "40", "--checkpoint-every", "t=0.02",
                                "--method", "mliqss2"],
                 "a checkpoint could not be written")):
            for f in os.listdir(disk):
                os.remove(os.path.join(disk, f))
            out = os.path.join(disk, "a.h5")
            # (short timeouts: the finally below must unmount before CTest's own)
            r = subprocess.run(cmd(args, ranks) + DISK + extra + ["--output", out], cwd=top,
                               capture_output=True, text=True, timeout=100)
            lines = [ln for ln in r.stderr.splitlines() if ln.startswith("qmol")]
            left = sorted(os.listdir(disk))
            print("disk full (%s), %d ranks: exit %d, %s; left %s"
                  % (label, ranks, r.returncode, lines[0][:220] if lines else r.stderr[-300:],
                     left))
            if (r.returncode != 1 or len(lines) != 1 or "No space left on device" not in lines[0]
                    or expect not in lines[0] or "integration failed" in lines[0]
                    or "a.h5" in left):
                fails.append("disk full (%s), %d ranks: exit %d, %r, left %s"
                             % (label, ranks, r.returncode, r.stderr[-800:], left))
                continue
            if label != "checkpoint":
                continue
            if left != ["a.ckpt.h5", "a.h5.partial"]:
                fails.append("disk full (checkpoint), %d ranks: left %s, expected the last "
                             "checkpoint and a.h5.partial" % (ranks, left))
                continue
            subprocess.run(["mount", "-o", "remount,size=32m", disk], check=True)
            resumed = subprocess.run(cmd(args, ranks) + ["--restart", "a.ckpt.h5"], cwd=disk,
                                     capture_output=True, text=True, timeout=100)
            ref = os.path.join(top, "ref.h5")
            subprocess.run(cmd(args, ranks) + DISK + extra + ["--output", ref], cwd=top,
                           check=True, capture_output=True, timeout=100)
            same = False
            if resumed.returncode == 0:
                with h5py.File(out, "r") as a, h5py.File(ref, "r") as b:
                    same = np.array_equal(a["states"][()], b["states"][()])
            print("  resumed with room: exit %d, identical to an uninterrupted run %s"
                  % (resumed.returncode, same))
            if not same:
                fails.append("disk full (checkpoint), %d ranks: resumed exit %d, identical %s, "
                             "%r" % (ranks, resumed.returncode, same, resumed.stderr[-600:]))
    finally:
        subprocess.run(["umount", disk], capture_output=True)


def main():
    args = parse_args("data-safety")
    fails = []
    for ranks in (1, 2):
        concurrent(args, ranks, fails)
        appeared(args, ranks, fails)
        links(args, ranks, fails)
        disk_full(args, ranks, fails)
    finish(fails)


if __name__ == "__main__":
    main()
