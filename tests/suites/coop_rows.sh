# coop_rows: the cooperative-rows transform through `ks transform`. Variants
# of kernels in other shapes (tests/data/rows/shapes.cu) and of benchmark
# kernels compile with the real nvcc for sm_80 and sm_90 with warnings as
# errors; the variant's shuffles are in the sm_90 code only; the row cache
# of softmax, log_softmax and layernorm compiles without a spill; on the
# CPU (rows_emu.h on tests/data/transforms/cuda_emu.h) the variants with
# and without the row cache give the original's outputs within the sums'
# reassociation, and each other's bit for bit where their passes deal the
# same elements to the same lanes, rows longer than the cache included; a
# wrong register is caught; look-alikes are declined with their reason.

suite_probe() {
	have_real_nvcc || { echo "no nvcc"; return; }
	"$KS_BIN" transform "$ROOT/tests/data/rows/shapes.cu:row_sum_ld" \
		--skill coop_rows >/dev/null 2>probe.err ||
		echo "ks transform cannot parse here: $(head -c 200 probe.err)"
	rm -f probe.err
}

ARCHS="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90"
STRICT="-Werror all-warnings -Xcompiler -Wall,-Wextra,-Wshadow,-Werror"

# Rewrite kernel $2 of $1 (a file of this directory) at the points "$@"
# (k=v), compile it for both archs keeping the PTX in kd/.
rewrite_and_compile() {
	local src=$1 k=$2 p args=()
	shift 2
	for p in "$@"; do args+=(--param "$p"); done
	"$KS_BIN" transform "$src:$k" --skill coop_rows --arch sm_90 "${args[@]}" --tu \
		-o "out-$k.cu"
	rm -rf kd
	mkdir kd
	# shellcheck disable=SC2086
	"$(real_nvcc)" $ARCHS $STRICT -I. -keep -keep-dir kd -c "out-$k.cu" -o "out-$k.o"
}

ptx_count() { # file pattern
	grep -c -- "$2" "$1" || true
}

test_other_shapes_compile_for_both_archs() {
	cp "$ROOT/tests/data/rows/shapes.cu" .
	for k in row_sum_ld batched_argmin row_max_gridstride exclusive_scan_scale; do
		rewrite_and_compile shapes.cu $k
		expect_ne 0 "$(ptx_count kd/out-$k.compute_90.ptx shfl.sync)" "$k: shuffles in sm_90 PTX"
		expect_eq 0 "$(ptx_count kd/out-$k.compute_80.ptx shfl.sync)" "$k: shuffles in sm_80 PTX"
		expect_eq 1 "$(grep -c "ks_variant_active_$k() ?" "out-$k.cu")" "$k: launches through the launcher"
	done
	rewrite_and_compile shapes.cu row_sum_ld threads=512 rows_per_block=1
	expect_ne 0 "$(ptx_count kd/out-row_sum_ld.compute_90.ptx bar.sync)" "block-per-row barrier"
}

test_bench_kernels_compile_for_both_archs() {
	local spec p k point
	for spec in softmax:softmax_kernel: cross_entropy:cross_entropy_kernel: \
		    cumsum:cumsum_kernel: argmax:argmax_kernel:threads=256; do
		IFS=: read -r p k point <<<"$spec"
		mkdir "$p"
		cp "$ROOT/bench/$p/main.cu" "$ROOT/bench/$p/ref.h" \
			"$ROOT/bench/common/bench.h" "$p/"
		(
			cd "$p"
			# shellcheck disable=SC2086
			rewrite_and_compile main.cu "$k" $point \
				${point:+rows_per_block=1}
			expect_ne 0 "$(ptx_count kd/out-$k.compute_90.ptx shfl.sync)" \
				"$k: shuffles in sm_90 PTX"
		)
	done
}

test_look_alikes_are_declined() {
	local spec k why out
	for spec in "cross_row:a dependency across rows" \
		    "ragged_rows:not uniform across the block" \
		    "gather_rows:depends on data" \
		    "ema_rows:a dependency along the row"; do
		k=${spec%%:*}
		why=${spec#*:}
		if out=$("$KS_BIN" transform "$ROOT/tests/data/rows/shapes.cu:$k" \
			--skill coop_rows 2>&1); then
			fail "$k: transformed"
		fi
		expect_contains "$out" "coop_rows declines $k: "
		expect_contains "$out" "$why"
	done
}

# ptxas's spill stores of kernel $2's sm_90 code in its -Xptxas -v output $1
# ("" when the kernel is not there).
sm90_spills() {
	awk -v k="$2" '
		/Compiling entry function/ {
			on = $0 ~ ("_Z[0-9]+" k "P") && $0 ~ /for .sm_90./
		}
		on && /spill stores/ { sub(/ bytes spill stores.*/, ""); sub(/.*, /, ""); print; exit }
	' "$1"
}

test_row_cache_compiles_without_spills() {
	have_real_nvcc || skip_test "no nvcc"
	local p k v
	for p in softmax log_softmax layernorm; do
		k=${p}_kernel
		mkdir "$p"
		cp "$ROOT/bench/$p/main.cu" "$ROOT/bench/$p/ref.h" \
			"$ROOT/bench/common/bench.h" "$p/"
		(
			cd "$p" || exit 1
			"$KS_BIN" transform "main.cu:$k" --skill coop_rows --arch sm_90 \
				--tu -o "out-$k.cu"
			expect_eq 1 "$(grep -c 'float ks_rc\[32\];' "out-$k.cu")" "$k: the registers"
			expect_eq 1 "$(grep -c 'const bool ks_rc_on = (cols) <= 1024;' "out-$k.cu")" \
				"$k: the run-time test"
			expect_contains "$("$KS_BIN" transform "main.cu:$k" --skill coop_rows \
				-- -I.)" "// row cache: 'x' read by 3 passes"
			# shellcheck disable=SC2086
			"$(real_nvcc)" $ARCHS $STRICT -Xptxas -v -I. -c "out-$k.cu" \
				-o "out-$k.o" >ptxas.txt 2>&1 || fail "$k: $(cat ptxas.txt)"
			v=$(sm90_spills ptxas.txt "$k")
			expect_eq 0 "$v" "$k: spill stores of the cached variant on sm_90"
		)
	done
}

have_emu() {
	command -v g++ >/dev/null && command -v python3 >/dev/null &&
		echo 'int main(){}' | g++ -std=c++20 -x c++ - -o /dev/null 2>/dev/null
}

# -fsanitize=address when this g++ links it (a read past x's end fails).
asan_flag() {
	if echo 'int main(){}' | g++ -std=c++20 -fsanitize=address -x c++ - -o /dev/null \
		2>/dev/null; then
		echo -fsanitize=address
	fi
}

rewrite_launches() { # variant.cu
	python3 - "$1" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
s = re.sub(r'(\w+(?:<[^<>;]*>)?)<<<(.*?)>>>\(', r'ks_rows_emu_cfg(\1, \2)(', s, flags=re.S)
open('variant.inc', 'w').write(s)
PY
}

# The variant of kernel $2 of $1 with signature $3 (rows_check.cpp) at the
# points after, built into check-$2-<points>.
emu_build() {
	local src=$1 k=$2 sig=$3 p args=() tag
	shift 3
	tag=$(printf '%s' "$*" | tr ' =' '_-')
	for p in "$@"; do args+=(--param "$p"); done
	"$KS_BIN" transform "$src:$k" --skill coop_rows "${args[@]}" -- -I. >"v-$k.cu"
	rewrite_launches "v-$k.cu"
	# shellcheck disable=SC2046
	g++ -std=c++20 -O1 $(asan_flag) -pthread -Wno-unknown-pragmas -I. -DKS_K="$k" \
		-DKS_SIG="$sig" rows_check.cpp -o "check-$k-$tag"
}

ROW_COLS="1 29 32 33 513 1000 1024 1025"

# Each spec "file:kernel:signature:same" (same: the cached form reads the
# same lanes as the dealt one, so their outputs are equal bit for bit): the
# variant at three points matches the original at every width of ROW_COLS.
expect_rows_match() {
	local d=$ROOT/tests/data
	cp "$d/transforms/cuda_emu.h" "$d/rows/rows_emu.h" "$d/rows/rows_check.cpp" \
		"$d/rows/shapes.cu" .
	local spec src k sig same pt cols out
	for spec in "$@"; do
		IFS=: read -r src k sig same <<<"$spec"
		if [ "$src" = "${src%.cu}" ]; then
			cp "$ROOT/bench/$src/main.cu" "$src.cu"
			cp "$ROOT/bench/$src/ref.h" "$ROOT/bench/common/bench.h" .
			src=$src.cu
		fi
		expect_contains "$("$KS_BIN" transform "$src:$k" --skill coop_rows -- -I.)" \
			"// row cache: 'x' read by"
		emu_build "$src" "$k" "$sig"
		emu_build "$src" "$k" "$sig" cache=0
		emu_build "$src" "$k" "$sig" cache=16 rows_per_block=4
		for cols in $ROW_COLS; do
			for pt in "" cache-0 cache-16_rows_per_block-4; do
				out=$("./check-$k-$pt" 37 "$cols" 40 "out-$pt.bin" 2>&1) ||
					fail "$k ($pt) at $cols columns: $out"
				expect_contains "$out" "ok 37 rows (variant)"
			done
			[ "$same" = same ] || continue
			cmp -s out-.bin out-cache-0.bin ||
				fail "$k at $cols columns: the cached and the dealt form differ"
			cmp -s out-cache-16_rows_per_block-4.bin out-cache-0.bin ||
				fail "$k at $cols columns: cache=16 and the dealt form differ"
		done
		# blocks of 16 rows, the last one short
		out=$("./check-$k-" 45 1000 16 out-.bin 2>&1) || fail "$k, block 16: $out"
		expect_contains "$out" "ok 45 rows (variant)"
	done
}

test_row_cache_matches_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	expect_rows_match shapes.cu:softmax_rows:1:same shapes.cu:norm_rows:4:same \
		shapes.cu:argmax_gap:5:same shapes.cu:tail_sums:1:other
}

test_bench_row_caches_match_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	expect_rows_match softmax:softmax_kernel:1:same log_softmax:log_softmax_kernel:1:same \
		layernorm:layernorm_kernel:2:same rmsnorm:rmsnorm_kernel:3:same
}

# A mutant of variant $1 (sed expression $2) with signature $3 must fail
# its check at the widths in $4 and pass beyond the cache at 1100.
expect_caught() {
	local k=$1 expr=$2 sig=$3 cols out
	"$KS_BIN" transform "shapes.cu:$k" --skill coop_rows >v.cu
	sed "$expr" v.cu >vm.cu
	cmp -s v.cu vm.cu && fail "$k: the mutation '$expr' changed nothing"
	rewrite_launches vm.cu
	g++ -std=c++20 -O1 -pthread -Wno-unknown-pragmas -I. -DKS_K="$k" \
		-DKS_SIG="$sig" rows_check.cpp -o check-broken
	for cols in $4; do
		out=$(./check-broken 37 "$cols" 40 out.bin 2>&1) &&
			fail "$k: the mutant '$expr' passed at $cols columns: $out"
		expect_contains "$out" "mismatch"
	done
	out=$(./check-broken 37 1100 40 out.bin 2>&1) ||
		fail "$k: the mutant '$expr' failed beyond the cache: $out"
}

test_a_wrong_register_is_caught_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	local d=$ROOT/tests/data
	cp "$d/transforms/cuda_emu.h" "$d/rows/rows_emu.h" "$d/rows/rows_check.cpp" \
		"$d/rows/shapes.cu" .
	# the loaded values scaled: every cached pass reads them
	expect_caught softmax_rows 's/? (float)(x\[/? 1.5f * (float)(x[/' 1 "29 1024"
	# the pass from the third element without its first-element test
	expect_caught tail_sums 's/if (j >= (2) \&\& j < cols)/if (j < cols)/' 1 "29 1000"
	# the register of the next element
	expect_caught tail_sums 's/s += ks_rc\[ks_t\];/s += ks_rc[(ks_t + 1) % 32];/' 1 "100"
}
