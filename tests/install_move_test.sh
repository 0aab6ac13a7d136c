#!/usr/bin/env bash
# What survives moving an installed prefix (docs/tutorial.md, "Moving the
# prefix"): the pkg-config file names the install-time prefix, normalized;
# after the move qmol, qmolpost, find_package(qmol) (plugins and programs
# built from the new place) work, and `pkg-config --define-prefix` gives the
# new paths.
# usage: install_move_test.sh BUILD_DIR SCRATCH
set -euo pipefail
build=$1 scratch=$2
root=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$scratch" && mkdir -p "$scratch/old"
cmake --install "$build" --prefix "$scratch/old/./sub/.." >/dev/null
pc() { PKG_CONFIG_PATH=$1/lib/pkgconfig pkg-config "${@:2}" qmol | sed 's/ *$//'; }
got=$(pc "$scratch/old" --cflags --libs)
want="-I$scratch/old/include -L$scratch/old/lib -Wl,-rpath,$scratch/old/lib -lqmol"
[ "$got" = "$want" ] || { echo "FAIL: pkg-config: '$got', want '$want'"; exit 1; }
mv "$scratch/old" "$scratch/new"
new=$scratch/new
got=$(pc "$new" --define-prefix --cflags --libs)
want="-I$new/include -L$new/lib -Wl,-rpath,$new/lib -lqmol"
[ "$got" = "$want" ] || { echo "FAIL: pkg-config --define-prefix: '$got', want '$want'"; exit 1; }
"$new/bin/qmol" run --problem heat1d --set N=20 --method liqss2 --tf 0.01 --samples 2 \
  --output "$scratch/heat.h5" --quiet
/usr/bin/python3 "$new/bin/qmolpost" compare "$scratch/heat.h5" "$scratch/heat.h5" >/dev/null
cmake -S "$root/examples/gray-scott" -B "$scratch/gs" -DCMAKE_PREFIX_PATH="$new" >/dev/null
cmake --build "$scratch/gs" >/dev/null
listed=$("$new/bin/qmol" list "$scratch/gs/libgray_scott.so")
grep -q "^gray-scott: 2D Gray-Scott" <<<"$listed" || { echo "FAIL: plugin from $new"; exit 1; }
listed=$("$scratch/gs/gray_scott_run" list)
grep -q "^gray-scott: 2D Gray-Scott" <<<"$listed" || { echo "FAIL: program from $new"; exit 1; }
echo "install moved: pkg-config normalized and --define-prefix, qmol, qmolpost, plugin and program: ok"
