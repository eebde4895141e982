# xf_stream: vectorize_memory's packed path through `ks transform`. The
# kernels of tests/data/transforms/stream.cu (one guard, an early exit,
# two guards joined by &&, two exits joined by ||, a check on the thread
# in its block and a bounds check that only chooses a value) and the
# bench's softplus: on the CPU (pool_emu.h on cuda_emu.h: blocks one after
# another, threads as fibers switched at the barriers) each variant gives the original's
# outputs bit for bit at sizes that are and are not multiples of the
# block, with the variant's kernel launched, and the original when the
# pointers are misaligned, under AddressSanitizer where g++ has it (a
# store past the end fails); a group check that claims the exit's
# comparison true (the packed path beyond the end) and a packed body with
# a wrong constant are caught; the TUs compile with the real nvcc for
# sm_80 and sm_90 with warnings as errors, and the constants leave fewer
# instructions in the helper kernel's PTX than the comparisons they
# replace. Needs libclang (16-19), nvcc for the compile tests and a C++20
# g++ for the CPU checks.

DATA=$ROOT/tests/data/transforms
ARCHS="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90"
STRICT="-Werror all-warnings -Xcompiler -Wall,-Wextra,-Wshadow,-Werror"
KERNELS="guarded early_exit two_guards either_exit block_part"

suite_probe() {
	"$KS_BIN" transform "$DATA/stream.cu:guarded" --skill vectorize_memory \
		>/dev/null 2>probe.err ||
		echo "ks transform cannot parse here: $(head -c 200 probe.err)"
	rm -f probe.err
}

have_emu() {
	command -v g++ >/dev/null && command -v python3 >/dev/null &&
		echo 'int main(){}' | g++ -std=c++20 -x c++ - -o /dev/null 2>/dev/null
}

# -fsanitize=address when this g++ links it (a store past y's end fails).
asan_flag() {
	if echo 'int main(){}' | g++ -std=c++20 -fsanitize=address -x c++ - -o /dev/null \
		2>/dev/null; then
		echo -fsanitize=address
	fi
}

# Variant file $1 as variant.inc with its launches rewritten for pool_emu.h,
# built into check-$2 (kernel $2).
emu_build_file() {
	python3 - "$1" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
s = re.sub(r'(\w+(?:<[^<>;]*>)?)<<<(.*?)>>>\(', r'ks_pl_emu_cfg(\1, \2)(', s, flags=re.S)
open('variant.inc', 'w').write(s)
PY
	# shellcheck disable=SC2046
	# shellcheck disable=SC2086
	g++ -std=c++20 -O1 $(asan_flag) -pthread -Wno-unknown-pragmas -I. -DKS_K="$2" \
		${EMU_DEFS:-} "${EMU_CHECK:-stream_check.cpp}" -o "check-$2"
}

# The variant of kernel $2 of $1 (--param k=v after), built into check-$2.
emu_build() {
	local src=$1 k=$2 p args=()
	shift 2
	for p in "$@"; do args+=(--param "$p"); done
	"$KS_BIN" transform "$src:$k" --skill vectorize_memory "${args[@]}" -- -I. >"v-$k.cu"
	emu_build_file "v-$k.cu" "$k"
}

emu_files() {
	cp "$DATA/stream.cu" "$DATA/cuda_emu.h" "$DATA/pool_emu.h" "$DATA/stream_check.cpp" .
}

test_variants_match_the_original_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	emu_files
	local k shape out want
	for k in $KERNELS; do
		emu_build stream.cu "$k"
		# N M [block [offset]] : launched
		for shape in "4099 4099:variant" "4096 3001:variant" "1000 2000 128:variant" \
			     "4099 4000 512:variant" "3000 3000 256 1:original"; do
			want=${shape#*:}
			# shellcheck disable=SC2086
			out=$("./check-$k" ${shape%%:*} 2>&1) || fail "$k at ${shape%%:*}: $out"
			expect_contains "$out" "ok "
			expect_contains "$out" "($want)"
		done
	done
	# two packs of eight bytes in flight
	emu_build stream.cu either_exit bytes=8 ilp=2
	out=$(./check-either_exit 4099 4090 2>&1) || fail "either_exit bytes=8 ilp=2: $out"
	expect_contains "$out" "(variant)"
}

test_bench_softplus_matches_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	emu_files
	local shape out
	cp "$ROOT/bench/softplus/main.cu" softplus.cu
	cp "$ROOT/bench/common/bench.h" "$ROOT/bench/softplus/ref.h" .
	EMU_DEFS='-DKS_ARGS=x,y,(size_t)n' emu_build softplus.cu softplus_kernel
	for shape in "4099 0" "8192 0" "1000 0 128"; do
		# shellcheck disable=SC2086
		out=$(./check-softplus_kernel $shape 2>&1) || fail "softplus at $shape: $out"
		expect_contains "$out" "(variant)"
	done
}

# The early exit's comparison claimed true (packs past the end on the
# packed path) writes past y; a constant of the wrong value changes the
# outputs.
test_wrong_claims_are_caught_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	[ -n "$(asan_flag)" ] || skip_test "no AddressSanitizer in g++"
	emu_files
	local out
	"$KS_BIN" transform stream.cu:early_exit --skill vectorize_memory >v.cu
	grep -q 'return !(' v.cu || fail "the group check's claim was not found"
	sed 's/return !(/return (/' v.cu >broken.cu
	emu_build_file broken.cu early_exit
	out=$(./check-early_exit 4099 4099 2>&1) && fail "the claimed exit passed: $out"
	expect_contains "$out" "heap-buffer-overflow"
	"$KS_BIN" transform stream.cu:block_part --skill vectorize_memory >v.cu
	grep -q '(true || (i < m)) ?' v.cu || fail "the chosen value's constant was not found"
	sed 's/(true || (i < m)) ?/(false \&\& (i < m)) ?/' v.cu >broken.cu
	emu_build_file broken.cu block_part
	out=$(./check-block_part 4099 4099 2>&1) && fail "the wrong constant passed: $out"
	expect_contains "$out" "mismatch"
}

# Lines of PTX file $1 that are instructions inside the entries whose name
# has $2.
entry_instructions() {
	awk -v k="$2" '/\.entry / { on = index($0, k) > 0 }
		on && /^\t[a-z@]/ && !/^\t\.(reg|param|local|shared)/ { n++ }
		END { print n + 0 }' "$1"
}

test_tus_compile_and_the_constants_remove_instructions() {
	have_real_nvcc || skip_test "no nvcc"
	cp "$DATA/stream.cu" .
	local k
	for k in $KERNELS; do
		"$KS_BIN" transform "stream.cu:$k" --skill vectorize_memory --arch sm_90 \
			--tu -o "tu-$k.cu" -- -I.
		# shellcheck disable=SC2086
		"$(real_nvcc)" $ARCHS $STRICT -I. -c "tu-$k.cu" -o "tu-$k.o" ||
			fail "$k: the TU does not compile"
	done
	# the same TU with the comparisons back in the packed body
	sed 's/(true || (\(i < n\)))/(\1)/' tu-guarded.cu >tu-kept.cu
	cmp -s tu-guarded.cu tu-kept.cu && fail "no constant to put back"
	"$(real_nvcc)" -arch=sm_90 -O3 -I. -ptx tu-guarded.cu -o folded.ptx
	"$(real_nvcc)" -arch=sm_90 -O3 -I. -ptx tu-kept.cu -o kept.ptx
	local a b
	a=$(entry_instructions folded.ptx ks_xf_guarded)
	b=$(entry_instructions kept.ptx ks_xf_guarded)
	[ "$a" -gt 0 ] || fail "no helper kernel in the PTX"
	[ "$a" -lt "$b" ] || fail "the constants left $a instructions, the comparisons $b"
}

test_look_alikes_are_declined() {
	cp "$DATA/stream.cu" .
	local out rc=0
	out=$("$KS_BIN" transform stream.cu:negated_exit --skill vectorize_memory 2>&1) || rc=$?
	expect_eq 1 "$rc" "exit status"
	expect_contains "$out" "does not decide its early exit"
	rc=0
	out=$("$KS_BIN" transform stream.cu:switch_guard --skill vectorize_memory 2>&1) || rc=$?
	expect_eq 1 "$rc" "exit status"
	expect_contains "$out" "chooses a switch's case"
}

# Group quotients (tests/data/transforms/quot.cu, the bench's batchnorm):
# the packed body reads a division of the flat index by a uniform value
# as the group's quotient, the launcher requires the divisor to be a
# multiple of the lanes. On the CPU, bit for bit against the original:
# planes of 36 (the variant) and of 35 elements (the original), n short
# of a whole number of groups, a block of 128, a misaligned pointer (the
# original); with the divisor's check removed a plane of 35 gives other
# outputs (the check is what makes it exact).
quot_files() {
	cp "$DATA/quot.cu" "$DATA/cuda_emu.h" "$DATA/pool_emu.h" "$DATA/quot_check.cpp" .
}

test_group_quotients_match_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	quot_files
	local shape out want
	EMU_CHECK=quot_check.cpp emu_build quot.cu bn_planes
	grep -q 'ks_gq0))' v-bn_planes.cu || fail "no group quotient in the packed body"
	grep -q '((1LL \* (long long)(H) \* (long long)(W))) % 4 != 0' v-bn_planes.cu ||
		fail "no check of the divisor in the launcher"
	# N K H W [block [offset [trim]]] : launched
	for shape in "2 3 6 6:variant" "2 3 6 6 256 0 3:variant" "3 5 4 4 128 0 1:variant" \
		     "2 3 5 7:original" "2 3 5 7 256 0 2:original" "2 3 6 6 256 1:original" \
		     "1 2 2 2 64:variant"; do
		want=${shape#*:}
		# shellcheck disable=SC2086
		out=$(./check-bn_planes ${shape%%:*} 2>&1) || fail "bn_planes at ${shape%%:*}: $out"
		expect_contains "$out" "($want)"
	done
	# the divisor's check removed: a plane of 35 takes the packed path
	sed 's/(long long)(W))) % 4 != 0) {/(long long)(W))) % 1 != 0) {/' \
		v-bn_planes.cu >broken.cu
	cmp -s broken.cu v-bn_planes.cu && fail "the divisor's check was not removed"
	EMU_CHECK=quot_check.cpp emu_build_file broken.cu bn_planes
	out=$(./check-bn_planes 2 3 5 7 2>&1) && fail "the unchecked divisor passed: $out"
	expect_contains "$out" "mismatch"
	# two lanes of eight bytes, two packs in flight: a plane of 30
	EMU_CHECK=quot_check.cpp emu_build quot.cu bn_planes bytes=8 ilp=2
	out=$(./check-bn_planes 2 3 5 6 256 0 1 2>&1) || fail "bytes=8 ilp=2: $out"
	expect_contains "$out" "(variant)"
}

test_bench_batchnorm_matches_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	quot_files
	local shape out want
	cp "$ROOT/bench/conv_norm/main.cu" conv_norm.cu
	cp "$ROOT/bench/common/bench.h" "$ROOT/bench/conv_norm/ref.h" .
	EMU_CHECK=quot_check.cpp \
		EMU_DEFS='-DKS_ARGS=x,mean,var,gamma,beta,y,(size_t)n,(size_t)H*W,K,eps' \
		emu_build conv_norm.cu batchnorm_kernel
	for shape in "2 3 4 8:variant" "2 3 4 8 256 0 5:variant" "2 3 3 5:original" \
		     "2 3 4 8 256 2:original"; do
		want=${shape#*:}
		# shellcheck disable=SC2086
		out=$(./check-batchnorm_kernel ${shape%%:*} 2>&1) ||
			fail "batchnorm at ${shape%%:*}: $out"
		expect_contains "$out" "($want)"
	done
}

test_group_quotient_look_alikes() {
	cp "$DATA/quot.cu" .
	local out rc=0
	out=$("$KS_BIN" transform quot.cu:quot_store --skill vectorize_memory 2>&1) || rc=$?
	expect_eq 1 "$rc" "exit status"
	expect_contains "$out" "no streamed pointer is stored"
	"$KS_BIN" transform quot.cu:thread_div --skill vectorize_memory >v.cu
	expect_contains "$(cat v.cu)" "// per lane: the division at line"
	grep -q 'ks_gq' v.cu && fail "a group quotient for a thread-dependent divisor"
	grep -q '% 4 != 0) {' v.cu && fail "a divisor check without a quotient"
	expect_contains "$(cat v.cu)" "gamma[(i / (threadIdx.x + H)) % K]"
}

# The group quotients' TUs compile with every warning an error, and the
# packed path of the bench's batchnorm loads each per-channel value once
# per group: one of each of mean, var, gamma, beta and one sqrt in the
# helper kernel's PTX besides the scalar path's four.
test_group_quotient_tus_compile() {
	have_real_nvcc || skip_test "no nvcc"
	cp "$DATA/quot.cu" .
	cp "$ROOT/bench/conv_norm/main.cu" conv_norm.cu
	cp "$ROOT/bench/common/bench.h" "$ROOT/bench/conv_norm/ref.h" .
	local k
	for k in bn_planes thread_div; do
		"$KS_BIN" transform "quot.cu:$k" --skill vectorize_memory --arch sm_90 \
			--tu -o "tu-$k.cu" -- -I.
		# shellcheck disable=SC2086
		"$(real_nvcc)" $ARCHS $STRICT -I. -c "tu-$k.cu" -o "tu-$k.o" ||
			fail "$k: the TU does not compile"
	done
	"$KS_BIN" transform conv_norm.cu:batchnorm_kernel --skill vectorize_memory \
		--arch sm_90 --tu -o tu-bn.cu -- -I.
	"$(real_nvcc)" -arch=sm_90 -O3 -I. -ptx tu-bn.cu -o bn.ptx ||
		fail "the batchnorm TU does not compile"
	local sq
	sq=$(awk '/\.entry / { on = index($0, "ks_xf_batchnorm") > 0 }
		on && /sqrt\.rn\.f32/ { n++ } END { print n + 0 }' bn.ptx)
	expect_eq 5 "$sq" "sqrt in the helper kernel (4 scalar, 1 packed)"
}

test_output_is_deterministic() {
	cp "$DATA/stream.cu" .
	"$KS_BIN" transform stream.cu:either_exit --skill vectorize_memory >a.cu
	"$KS_BIN" transform stream.cu:either_exit --skill vectorize_memory >b.cu
	expect_same_file a.cu b.cu
}
