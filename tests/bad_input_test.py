#!/usr/bin/env python3
"""Bad input to qmol: the cases behind docs/bad-input.md (registered by tests/bad_input.cmake).

usage: bad_input_test.py GROUP --qmol QMOL --mpiexec "MPIEXEC ARGS" --plugin PLUGIN.so
                         --scratch DIR [--source-dir DIR] [--case NAME ...] [--messages]

GROUP is numbers, options, files, mpi or all (--list prints the cases). Each case runs qmol
on 1 or 2 ranks in its own empty directory DIR/GROUP/CASE/work, after creating the files it
needs there, and requires what docs/bad-input.md promises for every bad input:

  - exit code 2, from every rank;
  - nothing on stdout and exactly one line on stderr (all ranks together), starting
    "qmol: error: " ("qmol info: " for `qmol info`) and matching the case's regular
    expression, which names the input (the option, key, file or parameter and the value);
  - the directory exactly as it was: no output file, no FILE.partial, no .xmf, nothing
    created, changed or removed.

The options group also checks docs/bad-input.md: it names every case, and every option of
`qmol run --help` has a row. 2-rank cases run under `mpiexec --tag-output` with orte_abort_on_non_zero_status off, so
every rank finishes on its own; a wrapper records each rank's exit code.

Cases in EXPECTED_FAILURES (none today) are what qmol does not do yet: their failure is
printed as "xfail" and does not fail the test, but a pass does ("XPASS": take the case off
the list). Python with h5py: Debian's /usr/bin/python3.
"""
import argparse
import concurrent.futures
import dataclasses
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time

import h5py

from script_support import finish

TIMEOUT = 60  # seconds per qmol (or mpiexec) process
WORKERS = 4  # cases run at the same time
DOC = os.path.join("docs", "bad-input.md")

# Runs qmol ($0) with the rest of the arguments and writes its exit code to
# $1/rc.RANK, so that each rank's verdict is known (mpiexec reports one).
RANK_WRAPPER = ('q="$0"; d="$1"; shift; "$q" "$@"; rc=$?; '
                'echo $rc > "$d/rc.$OMPI_COMM_WORLD_RANK"; exit $rc')

# Address-space limit (KiB) for the memory cases: qmol must refuse from an estimate
# before allocating; should it allocate, it fails here instead of taking the machine.
MEMORY_LIMIT_KIB = 4 * 1024 * 1024

# ---- what qmol does not do yet --------------------------------------------------------
# case name: why it fails today and where the fix belongs. Remove an entry once fixed.
EXPECTED_FAILURES = {
    # empty: every case behaves as required (fixed in src/driver/run.c, cli.c, config.c,
    # memory_check.c, core/layout.c, mixed/assign.c); a case qmol cannot handle yet goes here with
    # its reason and where the fix belongs
}


class Args:  # filled in by main()
    qmol = plugin = scratch = source_dir = None
    mpiexec = []
    messages = False


class Skip(Exception):
    """A case that cannot run here (e.g. no C compiler); the reason is its text."""


@dataclasses.dataclass
class Case:
    """One bad input. In argv, file contents and match, "{d}" stands for the case's work
    directory (absolute) and "{plugin}" for the example plugin."""

    name: str
    argv: list
    match: str  # re.search on the stderr line (after the prefix): names the input
    ranks: int = 1
    files: dict = dataclasses.field(default_factory=dict)  # name: str, bytes or fn(path)
    prefix: str = "qmol: error: "
    memory_limit: int = 0  # KiB of address space to run under (ulimit -v); 0: no limit
    skip: str = ""  # a reason not to run it here


_print_lock = threading.Lock()


def say(text):
    with _print_lock:
        print(text, flush=True)


def expand(text, work):
    return text.replace("{d}", work).replace("{plugin}", Args.plugin)


# ---- building blocks of the cases -------------------------------------------------------


def base(samples=True, problem="heat1d", n=10):
    """A cheap run whose output is {d}/out.h5 (the bad option goes after it: the last
    occurrence of an option wins)."""
    argv = ["run", "--problem", problem]
    if problem == "heat1d":
        argv += ["--set", f"N={n}"]
    argv += ["--tf", "1e-3"]
    if samples:
        argv += ["--samples", "2"]
    return argv + ["--output", "{d}/out.h5"]


def quoted(option, value, sep=" "):
    """The regex for a message that quotes the input as written: --tol nan."""
    return re.escape(f"{option}{sep}{value}")


def hdf5_file(attrs):
    """A file maker: an HDF5 file with root attributes attrs and one dataset."""

    def make(path):
        with h5py.File(path, "w") as f:
            for k, v in attrs.items():
                f.attrs[k] = v
            f["data"] = [1.0, 2.0, 3.0]

    return make


def c_plugin(source):
    """A file maker: source compiled with the system cc into a shared object."""

    def make(path):
        cc = shutil.which("cc") or shutil.which("gcc")
        if not cc:
            raise Skip("no C compiler (cc) to build the test plugin")
        src = path + ".c"
        with open(src, "w") as fh:
            fh.write(source)
        inc = os.path.join(Args.source_dir, "include")
        p = subprocess.run([cc, "-shared", "-fPIC", "-I", inc, "-o", path, src],
                           capture_output=True, text=True, timeout=TIMEOUT)
        os.unlink(src)
        if p.returncode != 0:
            raise RuntimeError(f"cc failed on the test plugin:\n{p.stderr}")

    return make


PLUGIN_NO_ENTRY = "int qmol_not_the_entry_point(void) { return 42; }\n"
PLUGIN_NULL = '#include "qmol.h"\nconst qmol_problem_def *qmol_plugin_problem(void) { return 0; }\n'
PLUGIN_OLD_API = """#include "qmol.h"
static int create(const double *v, qmol_problem *out, char *err, size_t errlen) {
    (void)v, (void)out, (void)err, (void)errlen;
    return 1;
}
static const qmol_problem_def def = {QMOL_API_VERSION + 98, "old-api", "s", "e", 0, 0, create};
const qmol_problem_def *qmol_plugin_problem(void) { return &def; }
"""
PLUGIN_UNDEFINED = """void qmol_test_no_such_function(void);
void *qmol_plugin_problem(void) { qmol_test_no_such_function(); return 0; }
"""
PLUGIN_ENDLESS = """#include "qmol.h"
#include <math.h>
static int row_size(const void *d, int64_t i) { (void)d, (void)i; return 1; }
static void row(const void *d, int64_t i, int64_t *cols) { (void)d; cols[0] = i; }
static double rhs(const void *d, int64_t i, double t, const double *v) {
    (void)d, (void)i, (void)t;
    return -v[0];
}
static double x0(const void *d, int64_t i) { (void)d, (void)i; return 1.0; }
static int create(const double *v, qmol_problem *out, char *err, size_t errlen) {
    (void)v, (void)err, (void)errlen;
    *out = (qmol_problem){.n = 1, .t0 = 0.0, .tf = INFINITY, .row_size = row_size, .row = row,
                          .rhs = rhs, .x0 = x0, .components = 1};
    return 0;
}
static const qmol_problem_def def = {QMOL_API_VERSION, "endless", "s", "e", 0, 0, create};
const qmol_problem_def *qmol_plugin_problem(void) { return &def; }
"""
# a switch flipped by time events, whose position (in data) the plugin does
# not expose (no n_discrete, get_discrete, set_discrete): no checkpoints
PLUGIN_SWITCH = """#include "qmol.h"
#include <math.h>
static int high = 1;
static int row_size(const void *d, int64_t i) { (void)d, (void)i; return 1; }
static void row(const void *d, int64_t i, int64_t *cols) { (void)d; cols[0] = i; }
static double rhs(const void *d, int64_t i, double t, const double *v) {
    (void)d, (void)i, (void)t;
    return high - v[0];
}
static double x0(const void *d, int64_t i) { (void)d, (void)i; return 0.0; }
static double next(const void *d, double t) { (void)d; return floor(2.0 * t + 1.0) / 2.0; }
static void toggle(void *d, double t) { (void)d, (void)t; high = !high; }
static void affected(const void *d, int64_t *ids) { (void)d; ids[0] = 0; }
static int create(const double *v, qmol_problem *out, char *err, size_t errlen) {
    (void)v, (void)err, (void)errlen;
    *out = (qmol_problem){.n = 1, .t0 = 0.0, .tf = 2.0, .row_size = row_size, .row = row,
                          .rhs = rhs, .x0 = x0, .components = 1, .next_time_event = next,
                          .on_time_event = toggle, .n_affected = 1, .affected = affected};
    return 0;
}
static const qmol_problem_def def = {QMOL_API_VERSION, "switch", "s", "e", 0, 0, create};
const qmol_problem_def *qmol_plugin_problem(void) { return &def; }
"""
PLUGIN_CREATE_FAILS = """#include "qmol.h"
#include <stdio.h>
static const qmol_param_def params[] = {{"k", 1.0, 0.0, 10.0, 0, "a parameter"}};
static int create(const double *v, qmol_problem *out, char *err, size_t errlen) {
    (void)out;
    snprintf(err, errlen, "k = %g: this test plugin refuses every k", v[0]);
    return 1;
}
static const qmol_problem_def def = {QMOL_API_VERSION, "refuses", "s", "e", params, 1, create};
const qmol_problem_def *qmol_plugin_problem(void) { return &def; }
"""


def heat1d_ini(run_lines, problem_lines="N = 10\n"):
    return ("[run]\nproblem = heat1d\n" + run_lines + "output = {d}/out.h5\n"
            "[problem]\n" + problem_lines)


def sanitized():
    """Whether qmol (or libqmol beside it) is built with AddressSanitizer."""
    try:
        out = subprocess.run(["ldd", Args.qmol], capture_output=True, text=True).stdout
    except OSError:
        return False
    return "libasan" in out


def memory_total():
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


# A size estimate in the message: "12.3 GiB", "1e+11 bytes", ...
ESTIMATE = r"\d(\.\d+)?(e\+?\d+)?\s*([KMGTPE]i?B|bytes)\b"


def memory_case(name, side, ranks):
    """heat3d on side^3 nodes, far more than the machine's memory at any plausible
    number of bytes per state (>= 100): refused with an estimate, before allocating."""
    n = side ** 3
    case = Case(name, ["run", "--problem", "heat3d", "--set", f"nx={side}", "--set",
                       f"ny={side}", "--set", f"nz={side}", "--tf", "1e-3", "--samples", "2",
                       "--output", "{d}/out.h5"],
                rf"(?=.*(heat3d|\bnx\b))(?=.*memory)(?=.*{ESTIMATE})", ranks=ranks,
                memory_limit=MEMORY_LIMIT_KIB)
    mem = memory_total()
    if mem and n * 100 < 2 * mem:
        case.skip = f"{n} states may fit in this machine's {mem / 2**30:.0f} GiB"
    return case


def memory_constants():
    """The MEMORY_* numbers of src/driver/memory_check.h and the methods'
    INTEGRATOR_MEMORY_* of src/core/integrator_registry.h: {name: float}."""
    text = ""
    for part in (("driver", "memory_check.h"), ("core", "integrator_registry.h")):
        with open(os.path.join(Args.source_dir, "src", *part)) as fh:
            text += fh.read()
    consts = {}
    for name, expr in re.findall(r"#define (?:INTEGRATOR_)?MEMORY_(\w+) \(?([\d. *]+)\)?",
                                 text):
        value = 1.0
        for factor in expr.split("*"):
            value *= float(factor)
        consts[name] = value
    return consts


def auto_memory_case():
    """--method auto (the default) on heat3d 300^3 under 4 GiB: refused with its own
    estimate per state, which holds a running method and a probe beside it (CVODE's and
    a QSS method's structures: integrator_registry.h), the last window's 16 bytes (the
    states) included. It once took the QSS methods' 240 + 10 per entry while a run
    measured 2.3 times that."""
    c = memory_constants()
    row = 7.0 - 6.0 / 300  # 7-point stencil, fewer on the faces
    per_state = c["AUTO_STATE"] + c["AUTO_ENTRY"] * row + 16.0
    around = "|".join(str(v) for v in range(int(per_state) - 4, int(per_state) + 5))
    return Case("memory_auto_estimate",
                ["run", "--problem", "heat3d", "--set", "nx=300", "--set", "ny=300", "--set",
                 "nz=300", "--tf", "1e-3", "--samples", "2", "--output", "{d}/out.h5"],
                rf"(?=.*heat3d)(?=.*memory)(?=.*about ({around}) bytes per state)"
                r"(?=.*(ulimit -v|on this node))(?=.*--keep-last-window off \(16 bytes)",
                memory_limit=MEMORY_LIMIT_KIB)


def metis_memory_case():
    """heat2d 3000 x 3000 on 4 ranks under an address-space limit halfway between the
    estimate of ranks 1-3 (their 2.25e6 states each) and that of rank 0, which partitions
    the graph of all 9e6 states with METIS before the states are allocated: rank 0 alone
    is refused, for METIS (without that term METIS runs out of memory instead)."""
    side, ranks = 3000, 4
    n, row = side * side, 5.0  # 5-point Laplacian; boundary rows, 4 entries, are 0.1 %
    c = memory_constants()
    if 0 < memory_total() < 8 * 2**30:  # the 4 ranks' states phase needs about 2.7 GB
        return Case("memory_rank0_metis_graph", [], "", ranks=ranks,
                    skip=f"the 4 ranks may not fit in this machine's "
                         f"{memory_total() / 2**30:.1f} GiB")
    share = n / ranks
    states = c["BASE_BYTES"] + (c["QSS_STATE"] + c["PAIRS_ENTRY"] * row) * share  # mLIQSS2
    metis = (c["BASE_BYTES"] + c["PARTITION_STATE_BYTES"] * share
             + (c["METIS_VERTEX_BYTES"] + c["METIS_ENTRY_BYTES"] * row) * n)
    assert metis > 1.2 * states, "the case needs rank 0's METIS phase to be the larger"
    limit_kib = int((states + metis) / 2 / 1024)
    return Case("memory_rank0_metis_graph",
                ["run", "--problem", "heat2d", "--set", f"nx={side}", "--set", f"ny={side}",
                 "--method", "mliqss2", "--tf", "1e-3", "--samples", "2", "--output",
                 "{d}/out.h5", "--keep-last-window", "off"],
                rf"(?=.*heat2d)(?=.*memory on rank 0 of {ranks})"
                rf"(?=.*for METIS partitioning 9e\+06 vertices)(?=.*ulimit -v)", ranks=ranks,
                memory_limit=limit_kib)


# ---- the cases ---------------------------------------------------------------------------

# Every numeric option: (option, {name: out-of-range value}, whole number?).
NUMERIC_OPTIONS = [
    ("--tol", {"zero": "0", "one": "1", "negative": "-1e-3"}, False),
    ("--abstol", {"zero": "0", "negative": "-1"}, False),
    ("--tf", {}, False),  # <= t0: options group
    ("--samples", {"zero": "0", "negative": "-1", "too_many": "100000001"}, True),
    ("--window", {"zero": "0", "negative": "-1"}, False),
    ("--window-min", {"zero": "0", "negative": "-1"}, False),
    ("--window-max", {"zero": "0", "negative": "-1"}, False),
    ("--progress", {"negative": "-1"}, False),
    ("--compress", {"negative": "-1", "too_high": "10"}, True),
    ("--max-order", {"zero": "0", "too_high": "6"}, True),
    ("--pieces", {"zero": "0", "too_many": "4097"}, True),
    ("--coarsen-above", {"zero": "0", "too_high": "1e300"}, True),
    ("--assign-threshold", {"zero": "0", "negative": "-1"}, False),
    ("--assign-depth", {"negative": "-1", "too_high": "1000001"}, True),
]
# Bad values of every number: non-finite ones and text; whole numbers also a fraction.
NON_NUMBERS = {"nan": "nan", "inf": "inf", "1e999": "1e999", "text": "abc"}

# heat1d's parameters through --set, see `qmol list`: (key, {name: bad value}).
SET_VALUES = [
    ("N", {"nan": "nan", "inf": "inf", "1e999": "1e999", "fraction": "1.5", "text": "abc",
           "zero": "0", "too_high": "2147483648"}),
    ("d", {"nan": "nan", "inf": "inf", "minus_inf": "-inf", "1e999": "1e999",
           "negative": "-1"}),
    ("L", {"zero": "0", "negative": "-1", "inf": "inf"}),
    ("kx", {"zero": "0", "fraction": "1.5", "text": "abc"}),
    ("A", {"nan": "nan", "minus_1e999": "-1e999"}),
]


def numbers_cases():
    cases = []
    for option, out_of_range, whole in NUMERIC_OPTIONS:
        values = dict(NON_NUMBERS, **out_of_range)
        if whole:
            values["fraction"] = "1.5"
        for suffix, v in values.items():
            name = f"{option[2:].replace('-', '_')}_{suffix}"
            cases.append(Case(name, base() + [option, v], quoted(option, v)))
    cases.append(Case("tf_minus_inf", base() + ["--tf", "-inf"], quoted("--tf", "-inf")))
    # tolerances in range by sign but too small: a subnormal or sub-1e-15 tol, a
    # subnormal abstol (below DBL_MIN); the message gives the range
    for name, option, v, allowed in [
            ("tol_subnormal", "--tol", "1e-323", r"\[1e-15, 1\)"),
            ("tol_below_1e_15", "--tol", "1e-16", r"\[1e-15, 1\)"),
            ("abstol_subnormal", "--abstol", "1e-320", r">= 2\.22507e-308")]:
        cases.append(Case(name, base() + [option, v], quoted(option, v) + r"\b.*" + allowed))
    # --sample-times: a list of finite, increasing times (no --samples with it)
    for suffix, v in [("nan", "nan"), ("inf", "1e-3,inf"), ("1e999", "1e999"),
                      ("text", "abc"), ("decreasing", "5e-4,2e-4,1e-3"),
                      ("repeated", "5e-4,5e-4,1e-3"), ("empty", "")]:
        cases.append(Case(f"sample_times_{suffix}", base(samples=False) + ["--sample-times", v],
                          quoted("--sample-times", v)))
    return cases


def parameter_cases():
    """Problem parameters (--set KEY=VALUE): heat1d's, each checked against its range."""
    cases = []
    for key, values in SET_VALUES:
        for suffix, v in values.items():
            cases.append(Case(f"set_{key}_{suffix}", base() + ["--set", f"{key}={v}"],
                              quoted("--set", f"{key}={v}")))
    return cases


def options_cases():
    cases = parameter_cases() + [
        Case("no_value", base() + ["--tol"], r"--tol: missing value"),
        Case("empty_value", base() + ["--tol="], r"--tol\b.*must be"),
        Case("unknown_option", base() + ["--tolerance", "1e-3"],
             r"--tolerance: unknown option"),
        Case("unknown_option_equals", base() + ["--tolerance=1e-3"],
             r"--tolerance: unknown option"),
        Case("single_dash_option", base() + ["-t", "1"], r"^-t: unexpected argument"),
        Case("bare_argument", ["run", "heat1d"] + base()[1:], r"^heat1d: unexpected argument"),
        Case("double_dash", base() + ["--"], r"^--: unexpected argument"),
        Case("flag_bad_bool", base() + ["--overwrite=maybe"], quoted("--overwrite", "maybe")),
        Case("quiet_bad_bool", base() + ["--quiet=2"], quoted("--quiet", "2")),
        Case("problem_empty", base() + ["--problem="], r"--problem: empty problem name"),
        Case("problem_unknown", base() + ["--problem", "heat4d"],
             r"--problem heat4d: unknown problem"),
        Case("problem_unknown_so", base() + ["--problem", "heat4d.so"],
             r"--problem heat4d\.so\b"),
        Case("method_unknown", base() + ["--method", "rk4"], quoted("--method", "rk4")),
        Case("qss_method_unknown", base() + ["--qss-method", "rk4"],
             quoted("--qss-method", "rk4")),
        Case("set_unknown_parameter", base() + ["--set", "nx=5"],
             r"--set nx=5: unknown parameter 'nx' of heat1d"),
        Case("set_empty_key", base() + ["--set", "=5"], r"--set =5: unknown parameter"),
        Case("set_empty_value", base() + ["--set", "N="], r"--set N=: "),
        Case("set_no_equals", base() + ["--set", "N10"], r"--set N10: "),
        # parameters that are each in range but not together (the problem's create())
        Case("set_inconsistent",
             ["run", "--problem", "heat2d-thermostat", "--set", "Ton=2", "--set", "Toff=1",
              "--tf", "1e-3", "--samples", "2", "--output", "{d}/out.h5"],
             r"heat2d-thermostat.*Ton.*Toff"),
        # a method that does not handle the problem's discontinuities
        Case("moving_with_discontinuities",
             ["run", "--problem", "heat2d-thermostat", "--method", "moving", "--tf", "1e-3",
              "--samples", "2", "--output", "{d}/out.h5"],
             r"--method moving: does not handle discontinuities.*heat2d-thermostat.*mixed or "
             r"auto"),
        # each in range, but two periods (pulse's default tf) overflow: refused by the
        # problem, also when --tf is given
        Case("set_period_tf_overflow", base(problem="pulse") + ["--set", "period=1e308"],
             r"^problem pulse: period = 1e\+308\b"),
        # in range, but Kv(y)/dy^2 overflows on diurnal's grid (the problem's create())
        Case("set_diurnal_coefficient_overflow", base(problem="diurnal") + ["--set", "kv0=1e306"],
             r"^problem diurnal: kv0 = 1e\+306 is too large\b.*overflows"),
        # tf <= t0 (every built-in problem starts at t0 = 0)
        Case("tf_equal_t0", base(problem="relax") + ["--tf", "0"], r"--tf 0\b.*t0"),
        Case("tf_before_t0", base(problem="pulse") + ["--tf", "-1e-300"],
             r"--tf -1e-300\b.*t0"),
        Case("samples_and_sample_times", base() + ["--sample-times", "1e-3"],
             r"--sample-times.*--samples|--samples.*--sample-times"),
        Case("sample_times_not_after_t0", base(samples=False) + ["--sample-times", "0,1e-3"],
             r"--sample-times\b.*t0"),
        Case("sample_times_last_not_tf", base(samples=False) + ["--sample-times", "5e-4"],
             r"--sample-times\b.*tf"),
        Case("output_states_bad_rule", base() + ["--output-states", "q>1"],
             r'--output-states "q>1"'),
        Case("output_states_not_a_grid_axis", base() + ["--output-states", "y>0.5"],
             r'--output-states "y>0.5"'),
        Case("output_states_selects_none", base() + ["--output-states", "i>100"],
             r'--output-states "i>100": selects none of the 10 states'),
        Case("bdf_file_empty_name", base() + ["--method", "mixed", "--bdf-file="],
             r"--bdf-file: empty file name"),
        Case("output_empty", base() + ["--output="], r"--output: empty output path"),
        Case("checkpoint_every_no_unit", base() + ["--checkpoint-every", "10x"],
             quoted("--checkpoint-every", "10x") + r": must be a simulated time > 0 \(t=0\.5\), "
             r"a wall time > 0 with a unit"),
        Case("checkpoint_every_bare_number", base() + ["--checkpoint-every", "600"],
             quoted("--checkpoint-every", "600") + r": a number needs its kind: t=600 for every "
             r"600 of simulated time, 600s \(or m, h\) for wall time"),
        Case("checkpoint_every_zero", base() + ["--checkpoint-every", "t=0"],
             quoted("--checkpoint-every", "t=0") + r": must be a simulated time > 0"),
        Case("checkpoint_every_nan", base() + ["--checkpoint-every", "nan"],
             quoted("--checkpoint-every", "nan") + r": must be a simulated time > 0"),
        Case("checkpoint_every_wall_overflow", base() + ["--checkpoint-every", "1e306h"],
             quoted("--checkpoint-every", "1e306h") + r": must be a simulated time > 0"),
        Case("checkpoint_every_too_small", base() + ["--checkpoint-every", "t=1e-300"],
             quoted("--checkpoint-every", "t=1e-300") + r": more than 1000000 checkpoints over "
             r"\[0, 0\.001\]"),
        Case("keep_last_window_not_on_off", base() + ["--keep-last-window", "yes"],
             quoted("--keep-last-window", "yes") + r": must be on or off"),
        # --partition file:PATH on one rank: still a file that must exist
        Case("partition_file_missing_1rank",
             base() + ["--partition", "file:{d}/missing.txt"], r"missing\.txt"),
        auto_memory_case(),
        # grids beyond the machine's memory: refused from an estimate, before allocating
        memory_case("memory_grid_too_large", 1290, 1),
        # mLIQSS2 fits the machine (13 GiB at about 510 bytes per state with the
        # last window kept) but not the 4 GiB address-space limit of the process (on
        # a smaller machine: the node's memory)
        Case("memory_process_limit",
             ["run", "--problem", "heat3d", "--set", "nx=300", "--set", "ny=300", "--set",
              "nz=300", "--method", "mliqss2", "--tf", "1e-3", "--samples", "2", "--output",
              "{d}/out.h5"],
             rf"(?=.*heat3d)(?=.*memory)(?=.*{ESTIMATE})(?=.*(ulimit -v|on this node))"
             r"(?=.*--keep-last-window off \(160 bytes per state less\))",
             memory_limit=MEMORY_LIMIT_KIB),
        Case("memory_grid_beyond_index",
             ["run", "--problem", "heat3d", "--set", "nx=100000", "--set", "ny=100000",
              "--set", "nz=100000", "--tf", "1e-3", "--samples", "2", "--output",
              "{d}/out.h5"],
             rf"(?=.*(heat3d|\bnx\b))(?=.*memory)(?=.*{ESTIMATE})",
             memory_limit=MEMORY_LIMIT_KIB),
        Case("unknown_command", ["simulate", "--problem", "heat1d"],
             r"^simulate: unknown command"),
    ]
    return cases


def files_cases():
    existing = "an earlier result, not to be touched\n"
    cases = [
        # output: the path's directory must exist and be a directory; the file must not
        # exist (nor its .xmf) unless --overwrite
        Case("output_parent_missing", base()[:-1] + ["{d}/missing/out.h5"],
             r"--output {d}/missing/out\.h5"),
        Case("output_parent_is_file", base()[:-1] + ["{d}/file/out.h5"],
             r"--output {d}/file/out\.h5", files={"file": "a regular file\n"}),
        # the checkpoint's place is checked at the start, not at the first checkpoint
        Case("checkpoint_file_parent_missing",
             base() + ["--checkpoint-file", "{d}/missing/run.ckpt.h5"],
             r"--checkpoint-file {d}/missing/run\.ckpt\.h5: cannot write in directory "
             r"{d}/missing/: No such file"),
        Case("checkpoint_file_is_directory", base() + ["--checkpoint-file", "{d}/ck"],
             r"--checkpoint-file {d}/ck: is a directory", files={"ck": os.makedirs}),
        # the run's files must all differ: a checkpoint named like the output's
        # working file replaced the results with a checkpoint, exit 0
        Case("checkpoint_file_is_output_partial",
             base() + ["--checkpoint-file", "{d}/out.h5.partial"],
             r"--checkpoint-file {d}/out\.h5\.partial: the checkpoint .* is also the "
             r"output's working file"),
        Case("checkpoint_file_is_output", base() + ["--checkpoint-file", "{d}/./out.h5"],
             r"--checkpoint-file {d}/\./out\.h5: the checkpoint .* is also the output \("),
        Case("checkpoint_file_is_xmf", base() + ["--checkpoint-file", "{d}/out.xmf"],
             r"--checkpoint-file {d}/out\.xmf: the checkpoint .* is also the XDMF file"),
        # working files: never written through a link; a stopped run's samples
        # are not discarded unasked
        Case("output_partial_is_symlink", base(), r"{d}/out\.h5\.partial is a symbolic link",
             files={"target": "not qmol's\n", "out.h5.partial": lambda p: os.symlink("target", p)}),
        Case("output_partial_left_by_stopped_run", base(),
             r"{d}/out\.h5\.partial exists, left by a run that stopped or was killed.*--overwrite",
             files={"out.h5.partial": "the samples of a killed run\n"}),
        Case("output_is_symlink_overwrite", base() + ["--overwrite"],
             r"--output {d}/out\.h5: is a symbolic link; --overwrite would replace the link",
             files={"target.h5": "not qmol's\n", "out.h5": lambda p: os.symlink("target.h5", p)}),
        Case("output_is_dangling_symlink", base(), r"--output {d}/out\.h5: file exists",
             files={"out.h5": lambda p: os.symlink("nowhere.h5", p)}),
        Case("output_name_too_long", base()[:-1] + ["{d}/" + "o" * 300 + ".h5"],
             r"--output {d}/o{300}\.h5.*303 characters, at most 215"),
        # 240: the file system allows it, Open MPI's MPI-IO (lockedfile) aborted on it
        Case("output_name_too_long_for_mpiio", base()[:-1] + ["{d}/" + "o" * 237 + ".h5"],
             r"--output {d}/o{237}\.h5.*240 characters, at most 215"),
        Case("output_xmf_exists", base(problem="heat2d"), r"--output {d}/out\.h5.*out\.xmf",
             files={"out.xmf": existing}),
        Case("output_default_exists", base()[:-2], r"--output heat1d\.h5",
             files={"heat1d.h5": existing}),
        Case("output_exists_from_ini", ["run", "-c", "{d}/run.ini"], r"{d}/out\.h5",
             files={"run.ini": heat1d_ini("tf = 1e-3\n"), "out.h5": existing}),
        # INI files
        Case("ini_run_value_nan", ["run", "-c", "{d}/run.ini"],
             r"run\.ini:3: \[run\] tol = nan", files={"run.ini": heat1d_ini("tol = nan\n")}),
        Case("ini_run_value_1e999", ["run", "-c", "{d}/run.ini"],
             r"run\.ini:3: \[run\] samples = 1e999",
             files={"run.ini": heat1d_ini("samples = 1e999\n")}),
        Case("ini_problem_value_inf", ["run", "-c", "{d}/run.ini"],
             r"run\.ini:7: \[problem\] d = inf",
             files={"run.ini": heat1d_ini("tf = 1e-3\n", "N = 10\nd = inf\n")}),
        Case("ini_problem_unknown_key", ["run", "-c", "{d}/run.ini"],
             r"run\.ini:7: \[problem\] nx = 5",
             files={"run.ini": heat1d_ini("tf = 1e-3\n", "N = 10\nnx = 5\n")}),
        Case("ini_set_in_run", ["run", "-c", "{d}/run.ini"], r"run\.ini:3: \[run\] set = N=5",
             files={"run.ini": heat1d_ini("set = N=5\n")}),
        Case("ini_config_in_run", ["run", "-c", "{d}/run.ini"],
             r"run\.ini:3: \[run\] config = other\.ini",
             files={"run.ini": heat1d_ini("config = other.ini\n")}),
        Case("ini_bad_bool", ["run", "-c", "{d}/run.ini"],
             r"run\.ini:3: \[run\] overwrite = maybe",
             files={"run.ini": heat1d_ini("overwrite = maybe\n")}),
        Case("ini_tf_not_after_t0", ["run", "-c", "{d}/run.ini"], r"run\.ini:3\b.*\btf\b",
             files={"run.ini": heat1d_ini("tf = 0\n")}),
        Case("ini_long_line", ["run", "-c", "{d}/run.ini"], r"run\.ini\b.*\bline 4\b",
             files={"run.ini": "[run]\nproblem = heat1d\ntf = 1e-3\noutput = {d}/"
                               + "o" * 250 + ".h5\n"}),
        Case("ini_nul_byte", ["run", "-c", "{d}/run.ini"], r"run\.ini\b.*\bline 2\b",
             files={"run.ini": b"[run]\nproblem = heat1d\0garbage\ntf = 1e-3\nsamples = 2\n"
                               b"quiet = true\n"}),
        Case("ini_is_hdf5", ["run", "-c", "{d}/result.h5"], r"-c {d}/result\.h5.*line 1",
             files={"result.h5": hdf5_file({"layout": "qmol-1"})}),
        Case("ini_empty_name", ["run", "--config=", "--problem", "heat1d"],
             r"--config: empty file name"),
        Case("ini_no_name", ["run", "--problem", "heat1d", "-c"], r"^-c: missing file name"),
        # --bdf-file: state ids of heat1d N = 10 (0..9) for the mixed method's BDF block
        Case("bdf_file_not_numeric", base() + ["--method", "mixed", "--bdf-file", "{d}/ids"],
             r'--bdf-file {d}/ids:3: "?x"? is not a state id',
             files={"ids": "1\n2\nx\n"}),
        Case("bdf_file_id_out_of_range", base() + ["--method", "mixed", "--bdf-file", "{d}/ids"],
             r"--bdf-file {d}/ids:2: state id 20 outside 0\.\.9", files={"ids": "1\n20\n"}),
        Case("bdf_file_negative_id", base() + ["--method", "mixed", "--bdf-file", "{d}/ids"],
             r"--bdf-file {d}/ids:1\b.*-1", files={"ids": "-1\n"}),
        Case("bdf_file_empty", base() + ["--method", "mixed", "--bdf-file", "{d}/ids"],
             r"--bdf-file {d}/ids: no state ids", files={"ids": ""}),
        # plugins
        Case("plugin_no_entry_point", base() + ["--problem", "{d}/noentry.so"],
             r"--problem {d}/noentry\.so.*qmol_plugin_problem",
             files={"noentry.so": c_plugin(PLUGIN_NO_ENTRY)}),
        Case("plugin_entry_returns_null", base() + ["--problem", "{d}/null.so"],
             r"--problem {d}/null\.so.*NULL", files={"null.so": c_plugin(PLUGIN_NULL)}),
        Case("plugin_wrong_api_version", base() + ["--problem", "{d}/old.so"],
             r"--problem {d}/old\.so.*API version", files={"old.so": c_plugin(PLUGIN_OLD_API)}),
        Case("plugin_undefined_symbol", base() + ["--problem", "{d}/undef.so"],
             r"--problem {d}/undef\.so.*qmol_test_no_such_function",
             files={"undef.so": c_plugin(PLUGIN_UNDEFINED)}),
        Case("plugin_is_directory", base() + ["--problem", "{d}/sub.so"],
             r"--problem {d}/sub\.so.*not a regular file",
             files={"sub.so": lambda p: os.mkdir(p)}),
        Case("plugin_create_fails",
             ["run", "--problem", "{d}/refuses.so", "--tf", "1e-3", "--output", "{d}/out.h5"],
             r"refuses.*k = 1", files={"refuses.so": c_plugin(PLUGIN_CREATE_FAILS)}),
        # a default tf of inf (no --tf): the time span is refused
        Case("plugin_default_tf_not_finite",
             ["run", "--problem", "{d}/endless.so", "--samples", "2", "--output", "{d}/out.h5"],
             r"time span \[0, inf\] is not finite.*--tf",
             files={"endless.so": c_plugin(PLUGIN_ENDLESS)}),
        Case("checkpoint_plugin_without_discrete",
             ["run", "--problem", "{d}/switch.so", "--checkpoint-every", "t=0.1", "--output",
              "{d}/out.h5"],
             r"--checkpoint-every: not available for switch \(it does not expose its discrete "
             r"variables: qmol_problem\.n_discrete, get_discrete, set_discrete\)",
             files={"switch.so": c_plugin(PLUGIN_SWITCH)}),
        Case("plugin_unknown_parameter", base() + ["--problem", "{plugin}", "--set", "zz=1"],
             r"--set zz=1: unknown parameter 'zz' of example-brusselator"),
        Case("plugin_parameter_not_finite", base() + ["--problem", "{plugin}", "--set", "A=nan"],
             r"--set A=nan\b"),
        Case("list_plugin_missing", ["list", "{d}/missing.so"], r"{d}/missing\.so"),
        Case("list_plugin_no_entry", ["list", "{d}/noentry.so"],
             r"{d}/noentry\.so.*qmol_plugin_problem",
             files={"noentry.so": c_plugin(PLUGIN_NO_ENTRY)}),
        Case("list_two_arguments", ["list", "a.so", "b.so"],
             r"qmol list \[NAME \| PLUGIN\.so\]"),
        Case("list_unknown_name", ["list", "heat-2d"],
             r"qmol list heat-2d: unknown problem \(allowed: .*heat2d.*, or a plugin \.so path\)"),
        # qmol info
        Case("info_missing", ["info", "{d}/missing.h5"], r"^{d}/missing\.h5: ",
             prefix="qmol info: "),
        Case("info_empty_file", ["info", "{d}/empty.h5"], r"^{d}/empty\.h5: not an HDF5 file",
             prefix="qmol info: ", files={"empty.h5": ""}),
        Case("info_foreign_hdf5", ["info", "{d}/foreign.h5"],
             r"^{d}/foreign\.h5: not a qmol result file", prefix="qmol info: ",
             files={"foreign.h5": hdf5_file({"creator": "not qmol"})}),
        Case("info_other_layout", ["info", "{d}/other.h5"],
             r"^{d}/other\.h5: unsupported layout 'other-9'", prefix="qmol info: ",
             files={"other.h5": hdf5_file({"layout": "other-9"})}),
        Case("info_directory", ["info", "{d}/sub"], r"^{d}/sub: is a directory",
             prefix="qmol info: ", files={"sub": lambda p: os.mkdir(p)}),
        Case("info_unfinished_run", ["info", "{d}/out.h5"], r"^{d}/out\.h5: .*out\.h5\.partial",
             prefix="qmol info: ", files={"out.h5.partial": "half a file\n"}),
        Case("info_no_file", ["info"], r"qmol info FILE\.h5"),
        Case("info_two_files", ["info", "a.h5", "b.h5"], r"qmol info FILE\.h5"),
    ]
    if os.geteuid() == 0:
        cases.append(Case("output_readonly_directory", [], "", skip="running as root: "
                          "permission checks do not apply (output_parent_is_file stands in)"))
    else:
        def readonly(path):
            os.mkdir(path, 0o555)
        cases.append(Case("output_readonly_directory", base()[:-1] + ["{d}/ro/out.h5"],
                          r"--output {d}/ro/out\.h5", files={"ro": readonly}))
    return cases


def partition_file(lines):
    return "".join(f"{v}\n" for v in lines)


def mpi_cases():
    """2 ranks (one case 4): the ranks agree (every one exits 2, one message)."""
    part = base() + ["--partition", "file:{d}/owners.txt"]
    owners = r"{d}/owners\.txt"
    cases = [
        Case("ranks_more_than_states", base(problem="relax"), r"relax.*2 ranks for 1 state"),
        Case("ranks_more_than_grid_nodes", base(n=1), r"heat1d.*2 ranks for 1 state"),
        memory_case("memory_grid_too_large_2ranks", 1620, 2),
        # partition files: heat1d N = 10, one owner rank per line
        Case("partition_file_short", part, owners + r".*\b5\b.*\b10\b",
             files={"owners.txt": partition_file([0, 1] * 2 + [1])}),
        Case("partition_file_long", part, owners + r".*\b11\b.*\b10\b",
             files={"owners.txt": partition_file([0] * 5 + [1] * 6)}),
        Case("partition_file_rank_too_big", part, owners + r" line 4\b.*\b2\b",
             files={"owners.txt": partition_file([0, 0, 0, 2] + [1] * 6)}),
        Case("partition_file_rank_negative", part, owners + r" line 1\b.*-1",
             files={"owners.txt": partition_file([-1] + [1] * 9)}),
        Case("partition_file_not_numeric", part, owners + r" line 3\b.*'one'",
             files={"owners.txt": partition_file([0, 0, "one"] + [1] * 7)}),
        Case("partition_file_fraction", part, owners + r" line 2\b.*'0\.5'",
             files={"owners.txt": partition_file([0, 0.5] + [1] * 8)}),
        Case("partition_file_blank_line", part, owners + r" line 6\b",
             files={"owners.txt": partition_file([0] * 5 + [""] + [1] * 5)}),
        Case("partition_file_empty", part, owners, files={"owners.txt": ""}),
        Case("partition_file_missing", part, owners),
        Case("partition_file_rank_left_empty", part, owners + r".*rank 1\b",
             files={"owners.txt": partition_file([0] * 10)}),
        Case("partition_file_no_path", base() + ["--partition", "file:"],
             r"--partition file:"),
        # refused only on several ranks
        Case("linsol_klu_on_2ranks", base() + ["--method", "cvode", "--linsol", "klu"],
             r"--linsol klu\b.*2 ranks"),
        Case("coupling_sample_on_2ranks",
             base() + ["--method", "mixed", "--bdf", "i>=5", "--coupling", "sample"],
             r"--coupling sample\b.*2 ranks"),
        Case("checkpoint_file_is_output_partial_2ranks",
             base() + ["--checkpoint-file", "{d}/out.h5.partial"],
             r"--checkpoint-file {d}/out\.h5\.partial: the checkpoint .* is also the "
             r"output's working file"),
        Case("output_partial_left_by_stopped_run_2ranks", base(),
             r"{d}/out\.h5\.partial exists, left by a run that stopped or was killed",
             files={"out.h5.partial": "the samples of a killed run\n"}),
        Case("output_partial_is_symlink_2ranks", base(),
             r"{d}/out\.h5\.partial is a symbolic link",
             files={"target": "not qmol's\n", "out.h5.partial": lambda p: os.symlink("target", p)}),
        Case("bqss_on_2ranks", base() + ["--method", "bqss"],
             r"--method: bqss runs on one rank only.*2 ranks"),
        Case("moving_on_2ranks", base() + ["--method", "moving"],
             r"--method: moving runs on one rank only.*2 ranks.*mixed or auto"),
        Case("window_min_above_max_2ranks",
             base() + ["--window-min", "1e-4", "--window-max", "1e-5"],
             r"--window-min (1e-0?4|0\.0001)\b.*--window-max (1e-0?5|1e-05)\b"),
        # the same refusals as on one rank, now agreed by both ranks
        Case("unknown_option_2ranks", base() + ["--tolerance", "1e-3"],
             r"--tolerance: unknown option"),
        Case("tol_nan_2ranks", base() + ["--tol", "nan"], quoted("--tol", "nan")),
        Case("problem_unknown_2ranks", base() + ["--problem", "heat4d"],
             r"--problem heat4d: unknown problem"),
        Case("set_unknown_parameter_2ranks", base() + ["--set", "nx=5"],
             r"--set nx=5: unknown parameter"),
        Case("set_not_integer_2ranks", base() + ["--set", "N=1.5"], quoted("--set", "N=1.5")),
        Case("tf_not_after_t0_2ranks", base() + ["--tf", "0"], r"--tf 0\b.*t0"),
        Case("output_exists_2ranks", base(), r"--output {d}/out\.h5.*--overwrite",
             files={"out.h5": "an earlier result\n"}),
        Case("output_parent_missing_2ranks", base()[:-1] + ["{d}/missing/out.h5"],
             r"--output {d}/missing/out\.h5"),
        Case("output_parent_is_file_2ranks", base()[:-1] + ["{d}/file/out.h5"],
             r"--output {d}/file/out\.h5", files={"file": "a regular file\n"}),
        Case("output_name_too_long_2ranks", base()[:-1] + ["{d}/" + "o" * 300 + ".h5"],
             r"--output {d}/o{300}\.h5.*at most 215"),
        Case("ini_missing_2ranks", ["run", "-c", "{d}/missing.ini"],
             r"-c {d}/missing\.ini: cannot open"),
        Case("ini_syntax_error_2ranks", ["run", "-c", "{d}/run.ini"],
             r"-c {d}/run\.ini: syntax error on line 3",
             files={"run.ini": "[run]\nproblem = heat1d\ntf 1e-3\n"}),
        Case("ini_unknown_section_2ranks", ["run", "-c", "{d}/run.ini"],
             r"run\.ini:4: \[runn\]",
             files={"run.ini": "[run]\nproblem = heat1d\n[runn]\ntf = 1e-3\n"}),
        Case("ini_unknown_key_2ranks", ["run", "-c", "{d}/run.ini"],
             r"run\.ini:3: \[run\] tolerance = 1e-3",
             files={"run.ini": heat1d_ini("tolerance = 1e-3\n")}),
        Case("plugin_missing_2ranks", base() + ["--problem", "{d}/missing.so"],
             r"--problem {d}/missing\.so"),
        Case("plugin_no_entry_point_2ranks", base() + ["--problem", "{d}/noentry.so"],
             r"--problem {d}/noentry\.so.*qmol_plugin_problem",
             files={"noentry.so": c_plugin(PLUGIN_NO_ENTRY)}),
        Case("unknown_command_2ranks", ["simulate"], r"^simulate: unknown command"),
        Case("info_missing_2ranks", ["info", "{d}/missing.h5"], r"^{d}/missing\.h5: ",
             prefix="qmol info: "),
        Case("list_plugin_no_entry_2ranks", ["list", "{d}/noentry.so"],
             r"{d}/noentry\.so.*qmol_plugin_problem",
             files={"noentry.so": c_plugin(PLUGIN_NO_ENTRY)}),
    ]
    for c in cases:
        c.ranks = 2
    return cases + [metis_memory_case()]


GROUPS = {"numbers": numbers_cases, "options": options_cases, "files": files_cases,
          "mpi": mpi_cases}


# ---- running a case -------------------------------------------------------------------


def snapshot(top):
    """{relative path: bytes, None for a directory, "-> target" for a symbolic link} of
    everything under top."""
    snap = {}
    for root, dirs, files in os.walk(top):
        for d in dirs:
            snap[os.path.relpath(os.path.join(root, d), top)] = None
        for f in files:
            full = os.path.join(root, f)
            if os.path.islink(full):
                snap[os.path.relpath(full, top)] = "-> " + os.readlink(full)
                continue
            with open(full, "rb") as fh:
                snap[os.path.relpath(full, top)] = fh.read()
    return snap


def command(case, argv, rcdir):
    cmd = [Args.qmol] + argv
    if case.ranks > 1:
        cmd = Args.mpiexec + ["--tag-output", "--mca", "orte_abort_on_non_zero_status", "0",
                              "-n", str(case.ranks), "/bin/sh", "-c", RANK_WRAPPER, Args.qmol,
                              rcdir] + argv
    if case.memory_limit:
        cmd = ["/bin/sh", "-c", f'ulimit -v {case.memory_limit} && exec "$@"', "sh"] + cmd
    return cmd


def run_process(cmd, cwd, singleton=True):
    """(exit code or None on timeout, stdout, stderr, seconds). Each process gets its own
    Open MPI session directory: runs started together race on the shared one. A singleton
    (qmol without mpiexec) runs isolated, without the orted it would start: the same
    qmol on one rank, in half the time."""
    session = tempfile.mkdtemp(prefix="qmol-bad-input-ompi-")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_orte_tmpdir_base=session)
    if singleton:
        env["OMPI_MCA_ess_singleton_isolated"] = "1"
    t0 = time.monotonic()
    try:
        p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, errors="replace",
                             start_new_session=True)
        try:
            out, err = p.communicate(timeout=TIMEOUT)
            rc = p.returncode
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            out, err = p.communicate()
            rc = None
    finally:
        shutil.rmtree(session, ignore_errors=True)
    return rc, out, err, time.monotonic() - t0


TAG = re.compile(r"^\[\d+,(\d+)\]<(stdout|stderr)>:(.*)$")


def untag(out, err):
    """mpiexec --tag-output streams: (stdout lines, stderr lines) of the ranks; lines of
    mpiexec itself are kept as they are, on the stream they came on."""
    streams = {"stdout": [], "stderr": []}
    for stream, text in (("stdout", out), ("stderr", err)):
        for line in text.splitlines():
            m = TAG.match(line)
            if m:
                streams[m.group(2)].append(m.group(3))
            else:
                streams[stream].append(line)
    return streams["stdout"], streams["stderr"]


def check_case(case, group):
    """(problems, a description of the run, the stderr lines); no problems: passed."""
    top = os.path.join(Args.scratch, group, case.name)
    work, rcdir = os.path.join(top, "work"), os.path.join(top, "ranks")
    os.makedirs(work)
    os.makedirs(rcdir)
    for name, content in case.files.items():
        path = os.path.join(work, name)
        if callable(content):
            content(path)
        elif isinstance(content, bytes):
            with open(path, "wb") as fh:
                fh.write(content)
        else:
            with open(path, "w") as fh:
                fh.write(expand(content, work))
    argv = [expand(a, work) for a in case.argv]
    before = snapshot(work)
    rc, out, err, seconds = run_process(command(case, argv, rcdir), work, case.ranks == 1)
    problems = []
    if case.ranks == 1:
        rcs = [rc]
        out_lines, err_lines = out.splitlines(), err.splitlines()
    else:
        rcs = []
        for r in range(case.ranks):
            try:
                with open(os.path.join(rcdir, f"rc.{r}")) as fh:
                    rcs.append(int(fh.read()))
            except (OSError, ValueError):
                rcs.append(None)
        out_lines, err_lines = untag(out, err)
    if rc is None:
        problems.append(f"timed out after {TIMEOUT} s")
    for r, code in enumerate(rcs):
        if code != 2:
            who = f"rank {r}" if case.ranks > 1 else "qmol"
            problems.append(f"{who} exit {code}, expected 2" if code is not None else
                            f"{who} did not finish")
    if out_lines:
        problems.append(f"{len(out_lines)} lines on stdout, expected none")
    if len(err_lines) != 1:
        problems.append(f"{len(err_lines)} lines on stderr, expected one")
    elif not err_lines[0].startswith(case.prefix):
        problems.append(f"the stderr line does not start with {case.prefix!r}")
    else:
        pattern = expand(case.match, re.escape(work))
        if not re.search(pattern, err_lines[0][len(case.prefix):]):
            problems.append(f"the message does not match {pattern!r}")
    after = snapshot(work)
    added, removed = sorted(set(after) - set(before)), sorted(set(before) - set(after))
    changed = sorted(p for p in set(before) & set(after) if before[p] != after[p])
    if added:
        problems.append(f"left behind: {added}")
    if removed or changed:
        problems.append(f"removed {removed}, changed {changed}")
    shown = " ".join(a if a and " " not in a else repr(a) for a in argv)
    if len(shown) > 400:
        shown = shown[:400] + "..."
    detail = (f"\n    command: {'mpiexec -n %d ' % case.ranks if case.ranks > 1 else ''}"
              f"qmol {shown}\n    exit codes: {rcs}, {seconds:.1f} s"
              f"\n    stdout: {chr(10).join(out_lines)[:1000]!r}"
              f"\n    stderr: {chr(10).join(err_lines)[:1000]!r}")
    return problems, detail, err_lines


def run_case(case, group):
    """(verdict, text) where verdict is ok, FAIL, xfail, XPASS or skip."""
    label = f"{group}.{case.name}"
    if case.skip:
        return "skip", f"skip  {label}: {case.skip}"
    if case.memory_limit and sanitized():
        return "skip", (f"skip  {label}: AddressSanitizer reserves terabytes of address space "
                        "and cannot start under ulimit -v")
    try:
        problems, detail, err_lines = check_case(case, group)
    except Skip as e:
        return "skip", f"skip  {label}: {e}"
    except (OSError, RuntimeError, subprocess.SubprocessError) as e:
        return "FAIL", f"FAIL  {label}: setting up the case: {e}"
    shown = f"\n    message: {err_lines[0]}" if Args.messages and err_lines else ""
    if case.name in EXPECTED_FAILURES:
        if problems:
            return "xfail", (f"xfail {label} ({EXPECTED_FAILURES[case.name]}): "
                             + "; ".join(problems) + shown)
        return "XPASS", (f"XPASS {label}: passes now; remove it from EXPECTED_FAILURES"
                         + detail)
    if problems:
        return "FAIL", f"FAIL  {label}:\n    " + "\n    ".join(problems) + detail
    return "ok", f"ok    {label}" + shown


# ---- the table in docs/bad-input.md ------------------------------------------------------


def check_doc(all_names):
    """Every case has a row (its name in docs/bad-input.md) and every `qmol run` option
    of the usage has one too."""
    problems = []
    path = os.path.join(Args.source_dir, DOC)
    try:
        with open(path) as fh:
            doc = fh.read()
    except OSError as e:
        return [f"cannot read {path}: {e}"]
    words = set(re.findall(r"[A-Za-z0-9_.-]+", doc))
    missing = sorted(n for n in all_names if n not in words)
    if missing:
        problems.append(f"{DOC} does not name the cases {missing}")
    rc, out, err, _ = run_process([Args.qmol, "run", "--help"], Args.scratch)
    options = sorted(set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-c)\b", out)))
    if rc != 0 or len(options) < 10:
        problems.append(f"`qmol run --help`: exit {rc}, options {options}")
    undocumented = [o for o in options if not re.search(f"`{re.escape(o)}(?![\\w-])", doc)]
    if undocumented:
        problems.append(f"{DOC} has no row for the options {undocumented}")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("group", choices=sorted(GROUPS) + ["all"])
    ap.add_argument("--qmol", required=True)
    ap.add_argument("--mpiexec", required=True, help='"mpiexec --oversubscribe ..."')
    ap.add_argument("--plugin", required=True, help="the example plugin .so")
    ap.add_argument("--scratch", required=True, help="scratch directory (emptied per group)")
    ap.add_argument("--source-dir", default=os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    ap.add_argument("--case", action="append", default=[], help="run only these cases")
    ap.add_argument("--list", action="store_true", help="print the cases and exit")
    ap.add_argument("--messages", action="store_true", help="print each case's message")
    a = ap.parse_args()
    Args.qmol, Args.plugin = os.path.abspath(a.qmol), os.path.abspath(a.plugin)
    Args.scratch, Args.source_dir = os.path.abspath(a.scratch), os.path.abspath(a.source_dir)
    Args.mpiexec, Args.messages = a.mpiexec.split(), a.messages
    os.makedirs(Args.scratch, exist_ok=True)
    groups = sorted(GROUPS) if a.group == "all" else [a.group]
    cases = {g: GROUPS[g]() for g in groups}
    all_names = [c.name for g in GROUPS for c in GROUPS[g]()]
    dupes = sorted({n for n in all_names if all_names.count(n) > 1})
    failures = [f"case names used twice: {dupes}"] if dupes else []
    failures += [f"EXPECTED_FAILURES names no case: {n}" for n in EXPECTED_FAILURES
                 if n not in all_names]
    if a.list:
        for g in groups:
            for c in cases[g]:
                print(f"{g}.{c.name} (ranks {c.ranks}): qmol {' '.join(c.argv)}")
        return
    if a.case:
        cases = {g: [c for c in cs if c.name in a.case] for g, cs in cases.items()}
    elif "options" in groups:  # once, not in every group
        failures += check_doc(all_names)
    start = time.monotonic()
    counts = {}
    for g in groups:
        gdir = os.path.join(Args.scratch, g)
        if os.path.isdir(gdir):
            for root, dirs, _ in os.walk(gdir):  # a read-only directory of a killed run
                for d in dirs:
                    os.chmod(os.path.join(root, d), 0o755)
            shutil.rmtree(gdir)
        os.makedirs(gdir)
        with concurrent.futures.ThreadPoolExecutor(max_workers=WORKERS) as pool:
            for verdict, text in pool.map(lambda c, g=g: run_case(c, g), cases[g]):
                say(text)
                counts[verdict] = counts.get(verdict, 0) + 1
                if verdict in ("FAIL", "XPASS"):
                    failures.append(text.split(":")[0].split(None, 1)[1])
    say(f"{sum(counts.values())} cases in {time.monotonic() - start:.1f} s: "
        + ", ".join(f"{n} {v}" for v, n in sorted(counts.items())))
    finish(failures)


if __name__ == "__main__":
    main()
