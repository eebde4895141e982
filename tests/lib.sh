# tests/lib.sh: what every suite may use. Sourced by tests/run.
#
# Each test runs with `set -e` in $TEST_DIR (its scratch directory), with
# KS_DIR=$TEST_DIR/ksdir. Assertions print what differed and exit 1.

fail() {
	echo "assertion failed: $*" >&2
	exit 1
}

# This case cannot run here (the reason is listed); it counts as neither
# passed nor failed.
skip_test() {
	echo "skipped: $*"
	exit 77
}

expect_eq() { # want got [what]
	[ "$1" = "$2" ] || fail "${3:-value}: want '$1', got '$2'"
}

expect_ne() { # a b [what]
	[ "$1" != "$2" ] || fail "${3:-value}: both are '$1'"
}

expect_contains() { # haystack needle
	case $1 in *"$2"*) ;; *) fail "'$2' not found in: $1" ;; esac
}

expect_not_contains() { # haystack needle
	case $1 in *"$2"*) fail "'$2' unexpectedly found in: $1" ;; *) ;; esac
}

expect_file() { [ -e "$1" ] || fail "missing file $1"; }
expect_no_file() { [ ! -e "$1" ] || fail "unexpected file $1"; }

expect_same_file() { # a b
	cmp -s "$1" "$2" || {
		diff <(od -c "$1" | head -n 20) <(od -c "$2" | head -n 20) >&2 || true
		fail "$1 and $2 differ"
	}
}

# The value of a ks stats counter (0 when absent).
stat_value() {
	local v
	v=$(awk -v n="$1" '$1 == n { print $2 }' "$KS_DIR/stats" 2>/dev/null)
	echo "${v:-0}"
}

expect_stat() { # name value
	expect_eq "$2" "$(stat_value "$1")" "stat $1"
}

# Number of build records.
record_count() {
	local n=0 f
	for f in "$KS_DIR"/builds/*.json; do [ -e "$f" ] && n=$((n + 1)); done
	echo $n
}

# Put the fake nvcc first on PATH (in $TEST_DIR/fakebin). Its calls are
# logged one per line to $FAKE_NVCC_LOG, arguments separated by '|'.
use_fake_nvcc() {
	mkdir -p "$TEST_DIR/fakebin"
	ln -sf "$FAKE_DIR/nvcc" "$TEST_DIR/fakebin/nvcc"
	export PATH=$TEST_DIR/fakebin:$PATH
	export FAKE_NVCC_LOG=$TEST_DIR/nvcc.log
	: >"$FAKE_NVCC_LOG"
}

# The fake nvcc's calls, without the --version queries ks-nvcc makes once
# per nvcc binary.
nvcc_calls() {
	grep -v -x -e '--version' "$FAKE_NVCC_LOG" || true
}

# Put an `nvcc` symlink to ks-nvcc first on PATH (the masquerade).
use_masquerade() {
	mkdir -p "$TEST_DIR/masq"
	ln -sf "$KS_NVCC_BIN" "$TEST_DIR/masq/nvcc"
	export PATH=$TEST_DIR/masq:$PATH
}

have_libclang() {
	"$KS_BIN" doctor 2>/dev/null | grep -q '^libclang  *ok'
}

have_real_nvcc() {
	command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]
}

real_nvcc() {
	if [ -x /usr/local/cuda/bin/nvcc ]; then
		echo /usr/local/cuda/bin/nvcc
	else
		command -v nvcc
	fi
}

# A small CUDA source with one kernel and a launch.
write_kernel() { # file [name]
	cat >"$1" <<EOF2
#include <cstdio>
__global__ void ${2:-scale}(float *x, float a, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		x[i] *= a;
}
void run_${2:-scale}(float *x, int n)
{
	${2:-scale}<<<(n + 255) / 256, 256>>>(x, 2.0f, n);
}
EOF2
}
