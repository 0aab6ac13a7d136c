#!/usr/bin/env bash
# The tutorial (docs/tutorial.md) as written, against qmol installed into a
# prefix. PART gray-scott (the default): build examples/gray-scott with
# find_package(qmol), check the pkg-config file, run the plugin on 2 ranks
# with LIQSS2 and on one with a tight CVODE, require qmolpost compare's
# overall e_rr below 5e-3 (5 tol), plot v, check /fields/u and v, and build
# the problem into programs linked with libqmol (CMake's qmol::qmol and
# pkg-config) that give the same result. PART heat-neumann: build
# examples/heat-neumann (rows that list a state twice, a diffusivity that
# follows t), run it on 2 ranks with LIQSS2, require no explicit_time warning
# and check_exact.py's max |u - exact| <= 2 tol; the same source with
# explicit_time = 0, built with pkg-config, must be warned about and end
# farther from the exact solution.
# usage: tutorial_test.sh BUILD_DIR SCRATCH "MPIEXEC..." [gray-scott|heat-neumann]
set -euo pipefail
build=$1 scratch=$2 mpiexec=$3 part=${4:-gray-scott}
root=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$scratch" && mkdir -p "$scratch"
prefix=$scratch/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
cflags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags qmol)
[ "$cflags" = "-I$prefix/include " ] || [ "$cflags" = "-I$prefix/include" ] \
  || { echo "FAIL: pkg-config --cflags qmol: '$cflags'"; exit 1; }
if [ "$part" = heat-neumann ]; then
  src=$root/examples/heat-neumann
  cmake -S "$src" -B "$scratch/hn" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
  cmake --build "$scratch/hn" >/dev/null
  plugin=$scratch/hn/libheat_neumann.so
  listed=$("$prefix/bin/qmol" list "$plugin")
  grep -q "^heat-neumann: 1D heat" <<<"$listed" \
    || { echo "FAIL: qmol list $plugin does not describe heat-neumann"; exit 1; }
  $mpiexec -n 2 "$prefix/bin/qmol" run --problem "$plugin" --method liqss2 --tol 1e-3 \
    --output "$scratch/hn.h5" --quiet 2>"$scratch/hn.err"
  if grep -q "explicit_time" "$scratch/hn.err"; then
    echo "FAIL: warned about explicit_time: $(cat "$scratch/hn.err")"; exit 1
  fi
  echo -n "heat-neumann, LIQSS2 on 2 ranks: "
  /usr/bin/python3 "$src/check_exact.py" "$scratch/hn.h5" \
    || { echo "FAIL: error above 2 tol"; exit 1; }
  # explicit_time left at 0: the start-up warning
  sed 's/\.explicit_time = 1,/.explicit_time = 0,/' "$src/heat_neumann.c" >"$scratch/hn0.c"
  grep -q "explicit_time = 0," "$scratch/hn0.c" || { echo "FAIL: no explicit_time = 1 to undo"; exit 1; }
  cc -std=c11 -O2 -shared -fPIC $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags qmol) \
    "$scratch/hn0.c" -o "$scratch/libhn0.so" -lm
  $mpiexec -n 2 "$prefix/bin/qmol" run --problem "$scratch/libhn0.so" --method liqss2 --tol 1e-3 \
    --output "$scratch/hn0.h5" --quiet 2>"$scratch/hn0.err"
  grep -q "but the problem has explicit_time = 0" "$scratch/hn0.err" \
    || { echo "FAIL: explicit_time = 0 not warned about: $(cat "$scratch/hn0.err")"; exit 1; }
  # QSS of order 2 then takes df/dt through the states only: farther from
  # the exact solution than the declared run (9.2e-4 against 4.7e-4; 1.0e-2
  # before the unseen check's intervals were bounded, docs/methods.md)
  declared=$(/usr/bin/python3 "$src/check_exact.py" "$scratch/hn.h5" | sed 's/.*= \([^ ]*\) (bound.*/\1/')
  echo -n "heat-neumann with explicit_time = 0 (warned): "
  undeclared=$(/usr/bin/python3 "$src/check_exact.py" "$scratch/hn0.h5" | tee /dev/stderr \
    | sed 's/.*= \([^ ]*\) (bound.*/\1/') || true
  /usr/bin/python3 -c "import sys; sys.exit(0 if float('$undeclared') > float('$declared') else 1)" \
    || { echo "FAIL: explicit_time = 0 ($undeclared) not farther than declared ($declared)"; exit 1; }
  echo "tutorial heat-neumann: ok"
  exit 0
fi
cmake -S "$root/examples/gray-scott" -B "$scratch/gs" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$scratch/gs" >/dev/null
plugin=$scratch/gs/libgray_scott.so
# (output captured first: under pipefail, grep -q's early exit can kill the
# writer with SIGPIPE and fail a listing that was right)
listed=$("$prefix/bin/qmol" list "$plugin")
grep -q "^gray-scott: 2D Gray-Scott" <<<"$listed" \
  || { echo "FAIL: qmol list $plugin does not describe gray-scott"; exit 1; }
$mpiexec -n 2 "$prefix/bin/qmol" run --problem "$plugin" --method liqss2 --tol 1e-3 \
  --tf 300 --samples 6 --output "$scratch/gs.h5" --quiet
"$prefix/bin/qmol" run --problem "$plugin" --method cvode --tol 1e-8 --abstol 1e-10 \
  --tf 300 --samples 6 --output "$scratch/gs-ref.h5" --quiet
err=$(/usr/bin/python3 "$prefix/bin/qmolpost" compare "$scratch/gs.h5" "$scratch/gs-ref.h5" \
  | awk '$1 == "all" {print $2}')
echo "gray-scott: e_rr of LIQSS2 on 2 ranks against CVODE 1e-8: $err"
/usr/bin/python3 -c "import sys; sys.exit(0 if 0 < float('$err') < 5e-3 else 1)" \
  || { echo "FAIL: e_rr $err not in (0, 5e-3)"; exit 1; }
plotted=$(/usr/bin/python3 "$prefix/bin/qmolpost" plot "$scratch/gs.h5" --component 1)
grep -q "gs-plot.png" <<<"$plotted"
[ -s "$scratch/gs-plot.png" ] && [ -s "$scratch/gs.xmf" ] || { echo "FAIL: no plot or XDMF"; exit 1; }
# the same problem compiled into a program linked with libqmol (CMake and
# pkg-config builds): the same run gives the same numbers, bit for bit
$mpiexec -n 2 "$scratch/gs/gray_scott_run" run --problem gray-scott --method liqss2 --tol 1e-3 \
  --tf 300 --samples 6 --output "$scratch/gs-exe.h5" --quiet
mpicc -o "$scratch/gs-pc" "$root/examples/gray-scott/gray_scott_main.c" \
  "$root/examples/gray-scott/gray_scott.c" \
  $(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs qmol) -lm
listed=$("$scratch/gs-pc" list)
grep -q "^gray-scott: 2D Gray-Scott" <<<"$listed" \
  || { echo "FAIL: the pkg-config build does not list gray-scott"; exit 1; }
/usr/bin/python3 - "$scratch/gs.h5" "$scratch/gs-exe.h5" <<'EOF' || { echo "FAIL: executable differs"; exit 1; }
import sys, h5py, numpy as np
a, b = (h5py.File(p, "r")["states"][()] for p in sys.argv[1:])
sys.exit(0 if np.array_equal(a, b) else 1)
EOF
echo "libqmol: gray_scott_run on 2 ranks equals the plugin run; the pkg-config build runs"
# the named components: /fields/u and /fields/v are the interleaved states
/usr/bin/python3 - "$scratch/gs.h5" "$scratch/gs.xmf" <<'EOF' || { echo "FAIL: /fields/u, v"; exit 1; }
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
s, nx, ny = f["states"][()], *[int(d) for d in f.attrs["dims"]]
ok = (str(f.attrs["component_names"]) == "u v"
      and np.array_equal(f["fields/u"][()], s[:, 0::2].reshape(-1, ny, nx))
      and np.array_equal(f["fields/v"][()], s[:, 1::2].reshape(-1, ny, nx))
      and 'Name="v"' in open(sys.argv[2]).read())
sys.exit(0 if ok else 1)
EOF
echo "tutorial: ok"
