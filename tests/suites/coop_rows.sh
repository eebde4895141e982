# coop_rows: the cooperative-rows transform through `ks transform`. Variants
# of kernels in other shapes (tests/data/rows/shapes.cu) and of benchmark
# kernels compile with the real nvcc for sm_80 and sm_90 with warnings as
# errors; the variant's shuffles are in the sm_90 code only; look-alikes
# are declined with their reason.

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
