#!/usr/bin/env python3
"""expect_exit.py RC TEXT -- COMMAND...: runs COMMAND and fails unless it exits
with code RC and its standard error contains TEXT (used for mpiexec runs,
whose exit code is that of the first rank to fail)."""
import subprocess
import sys


def main():
    if len(sys.argv) < 5 or sys.argv[3] != "--":
        sys.exit("usage: expect_exit.py RC TEXT -- COMMAND...")
    rc, text, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[4:]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=100)
    errs = []
    if p.returncode != rc:
        errs.append(f"exit code {p.returncode}, expected {rc}")
    if text not in p.stderr:
        errs.append(f"standard error lacks {text!r}")
    if errs:
        print("\n".join(errs), file=sys.stderr)
        print("stderr was:\n" + p.stderr, file=sys.stderr)
        sys.exit(1)
    print(f"ok: exit {rc}, {text!r}")


if __name__ == "__main__":
    main()
