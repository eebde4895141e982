#!/usr/bin/env bash
# The main job, as far as it goes today: build the sample Make project
# through ks-nvcc, show what was recorded, and run the program when this
# machine has a GPU. Called by `make demo` (after `make deps` and `make`).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export KS_DIR=${KS_DIR:-$ROOT/build/demo/ks}
app=$ROOT/integration/projects/make-app
out=$ROOT/build/demo/make-app

echo "== building integration/projects/make-app through ks-nvcc (state in $KS_DIR)"
rm -rf "$out"
mkdir -p "$out"
cp -R "$app"/. "$out"/
make -C "$out" NVCC="$ROOT/ks-nvcc"

echo
echo "== what ks-nvcc recorded"
"$ROOT/ks" builds
echo
"$ROOT/ks" stats

echo
if "$ROOT/ks" doctor | grep -q '^gpu  *ok'; then
	echo "== running the program on the GPU"
	make -C "$out" run
else
	echo "== no GPU here: built, not run ('ks doctor' says what is missing)"
fi
