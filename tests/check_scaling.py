#!/usr/bin/env python3
"""Runs scripts/scaling and checks what it wrote (CTest scaling.quick).

usage: check_scaling.py --script scripts/scaling --ranks 1,2 --oversubscribed 3
                        [--n 14400] -- SCALING ARGS...

Passes when the script exits 0, prints its CSV and PNG paths, and the CSV has
every column and one row per P (strong series), each completed, with sane
figures: positive times, events and row evaluations, speed-up 1 and e_rr 0 at
P = 1, finite e_rr against P = 1 elsewhere, partition kind 'single' on one
rank with no edge cut, and the oversubscribed flag on the right rows. The PNG
must be a PNG. The figures themselves (speed) are not judged.
"""
import argparse
import csv
import math
import subprocess
import sys

COLUMNS = [
    "series", "P", "oversubscribed", "status", "problem", "sets", "n", "states_per_rank",
    "method", "tol", "abstol", "tf", "samples", "partition", "window", "repeat",
    "wall_total_s", "wall_process_s", "wall_integrate_s", "speedup", "efficiency",
    "events", "row_evals", "nst", "windows", "messages", "bytes_sent",
    "messages_per_window", "bytes_per_window", "late_updates", "wall_exchange_s",
    "wall_wait_s", "partition_kind", "edge_cut", "imbalance", "e_rr_vs_p1", "e_rr_vs_ref",
    "ref_tol", "output", "message", "command",
]


def fail(msg):
    print("check_scaling: FAIL: " + msg)
    sys.exit(1)


def num(row, key):
    try:
        v = float(row[key])
    except ValueError:
        fail("P=%s: %s = %r is not a number" % (row["P"], key, row[key]))
    if not math.isfinite(v):
        fail("P=%s: %s = %r is not finite" % (row["P"], key, row[key]))
    return v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--script", required=True)
    ap.add_argument("--ranks", required=True)
    ap.add_argument("--oversubscribed", default="")
    ap.add_argument("--n", type=int, default=14400)
    ap.add_argument("rest", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    rest = args.rest[1:] if args.rest[:1] == ["--"] else args.rest

    cmd = [args.python, args.script] + rest
    print("$ " + " ".join(cmd), flush=True)
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    sys.stdout.write(p.stdout)
    sys.stdout.write(p.stderr)
    if p.returncode != 0:
        fail("scaling exited with %d" % p.returncode)
    paths = dict(l.split(": ", 1) for l in p.stdout.splitlines()
                 if l.startswith(("CSV: ", "PNG: ")))
    if "CSV" not in paths or "PNG" not in paths:
        fail("no 'CSV: path' or 'PNG: path' line in the output")
    with open(paths["PNG"], "rb") as fh:
        if fh.read(8) != b"\x89PNG\r\n\x1a\n":
            fail("%s is not a PNG" % paths["PNG"])
    with open(paths["CSV"], newline="") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            fail("CSV lacks the columns %s" % ", ".join(missing))
        rows = list(reader)

    real = [int(x) for x in args.ranks.split(",") if x.strip()]
    over = [int(x) for x in args.oversubscribed.split(",") if x.strip()]
    want = {P: 0 for P in real}
    want.update({P: 1 for P in over})
    want.setdefault(1, 0)
    strong = [r for r in rows if r["series"] == "strong"]
    got = sorted(int(r["P"]) for r in strong)
    if got != sorted(want):
        fail("strong rows for P = %s, expected %s" % (got, sorted(want)))
    if len(rows) != len(strong):
        fail("%d rows that are not strong-series runs (no reference expected)"
             % (len(rows) - len(strong)))
    for r in strong:
        P = int(r["P"])
        if r["status"] != "ok":
            fail("P=%d: status %r (%s)" % (P, r["status"], r["message"]))
        if int(r["oversubscribed"]) != want[P]:
            fail("P=%d: oversubscribed = %s, expected %d" % (P, r["oversubscribed"], want[P]))
        if int(r["n"]) != args.n:
            fail("P=%d: n = %s, expected %d" % (P, r["n"], args.n))
        for key in ("wall_total_s", "wall_process_s", "events", "row_evals", "windows",
                    "speedup", "efficiency"):
            if num(r, key) <= 0:
                fail("P=%d: %s = %s, expected > 0" % (P, key, r[key]))
        for key in ("messages", "bytes_sent", "late_updates", "wall_exchange_s",
                    "wall_wait_s", "edge_cut"):
            if num(r, key) < 0:
                fail("P=%d: %s = %s, expected >= 0" % (P, key, r[key]))
        if num(r, "imbalance") < 1:
            fail("P=%d: imbalance %s < 1" % (P, r["imbalance"]))
        err = num(r, "e_rr_vs_p1")
        if r["e_rr_vs_ref"] != "":
            fail("P=%d: e_rr_vs_ref %s with --no-ref" % (P, r["e_rr_vs_ref"]))
        if P == 1:
            if num(r, "speedup") != 1 or err != 0:
                fail("P=1: speedup %s, e_rr_vs_p1 %s; expected 1 and 0"
                     % (r["speedup"], r["e_rr_vs_p1"]))
            if r["partition_kind"] != "single" or num(r, "edge_cut") != 0:
                fail("P=1: partition %s, edge cut %s" % (r["partition_kind"], r["edge_cut"]))
        else:
            if err > 0.1:
                fail("P=%d: e_rr_vs_p1 = %g: not the same solution" % (P, err))
            if r["partition_kind"] in ("", "single"):
                fail("P=%d: partition kind %r" % (P, r["partition_kind"]))
    print("check_scaling: OK (%d rows, P = %s)" % (len(rows), got))


if __name__ == "__main__":
    main()
