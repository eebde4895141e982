#!/usr/bin/env bash
# stage-libclang.sh: pack this machine's libclang 19 for a GPU machine
# whose own libclang cannot parse the CUDA 13 headers (libclang 16 refuses
# CCCL 3, so TUs that include CUB could not be analyzed, optimized or
# substituted there; docs/ANALYSIS.md).
#
# Writes DIR/llvm19.tar.xz (about 40 MB) with lib/libclang-19.so.19,
# lib/libLLVM.so.19.1, lib/libz3.so.4 (which a stock Ubuntu lacks) and the
# resource headers lib/clang/19/include. On the GPU machine:
#
#   mkdir -p /opt/llvm && tar xJf DIR/llvm19.tar.xz -C /opt/llvm
#   export KS_LIBCLANG=/opt/llvm/lib/libclang-19.so.19
#   export LD_LIBRARY_PATH=/opt/llvm/lib:$LD_LIBRARY_PATH
#
# ks finds the resource headers beside the library (lib/clang/19).
#   bench/tools/stage-libclang.sh [DIR]      (default: .llvm19)
set -euo pipefail
dir=${1:-.llvm19}
lib=/usr/lib/x86_64-linux-gnu
res=/usr/lib/llvm-19/lib/clang/19/include
for f in "$lib/libclang-19.so.19" "$lib/libLLVM.so.19.1" "$lib/libz3.so.4" "$res"; do
	[ -e "$f" ] || { echo "stage-libclang.sh: $f not found (apt-get install libclang-19-dev)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/lib/clang/19" "$dir"
cp -L "$lib/libclang-19.so.19" "$lib/libLLVM.so.19.1" "$lib/libz3.so.4" "$tmp/lib/"
cp -rL "$res" "$tmp/lib/clang/19/"
tar cJf "$dir/llvm19.tar.xz" -C "$tmp" lib
du -h "$dir/llvm19.tar.xz" | cut -f1 | sed "s|^|stage-libclang.sh: $dir/llvm19.tar.xz, |"
