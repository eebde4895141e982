# xf_conv: conv_tiling through `ks transform`. The convolutions of
# tests/data/transforms/conv.cu (NCHW and NHWC, stride and dilation, a
# valid 5x5 with the channel in blockIdx.z, fmaf and a ReLU epilogue) and
# the bench's two conv2d kernels are recognized; their TUs compile with the
# real nvcc for sm_80 and sm_90 with warnings as errors (the tiled kernel,
# with cp.async, in the sm_90 PTX only); on the CPU
# (cuda_emu.h: blocks one after another, threads as fibers switched at the barriers) each
# variant gives the original's outputs at odd sizes, and a variant with
# its padding test broken does not; look-alikes are declined with their
# reason. Needs libclang (16-19), nvcc for the compile tests and a C++20
# g++ for the CPU checks.

DATA=$ROOT/tests/data/transforms
ARCHS="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90"
STRICT="-Werror all-warnings -Xcompiler -Wall,-Wextra,-Wshadow,-Werror"

suite_probe() {
	"$KS_BIN" transform "$DATA/conv.cu:nchw3" --skill conv_tiling \
		>/dev/null 2>probe.err ||
		echo "ks transform cannot parse here: $(head -c 200 probe.err)"
	rm -f probe.err
}

# Transform kernel $2 of $1 (--param k=v after) into tu-$2.cu and compile
# it for both archs, keeping the PTX in kd/.
tu() {
	local src=$1 k=$2 p args=()
	shift 2
	for p in "$@"; do args+=(--param "$p"); done
	"$KS_BIN" transform "$src:$k" --skill conv_tiling --arch sm_90 "${args[@]}" \
		--tu -o "tu-$k.cu" -- -I.
	rm -rf kd
	mkdir kd
	# shellcheck disable=SC2086
	"$(real_nvcc)" $ARCHS $STRICT -I. -keep -keep-dir kd -c "tu-$k.cu" -o "tu-$k.o"
}

entry_count() {
	awk -v k="$2" -v pat="$3" '/\.entry / { on = index($0, k) > 0 } on && $0 ~ pat { n++ }
		END { print n + 0 }' "$1"
}

# The variant of kernel $1 of conv.cu (--param k=v in $2...) as
# variant.inc, its launches rewritten for cuda_emu.h, built into check-$1.
emu_build() {
	local k=$1 p args=()
	shift
	for p in "$@"; do args+=(--param "$p"); done
	"$KS_BIN" transform "conv.cu:$k" --skill conv_tiling "${args[@]}" >"v-$k.cu"
	python3 - "v-$k.cu" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
s = re.sub(r'(\w+)<<<(.*?)>>>\(', r'ks_emu_cfg(\1, \2)(', s, flags=re.S)
open('variant.inc', 'w').write(s)
PY
	g++ -std=c++20 -O1 -pthread -Wno-unknown-pragmas -I. -DKS_K="$k" conv_check.cpp \
		-o "check-$k"
}

have_emu() {
	command -v g++ >/dev/null && command -v python3 >/dev/null &&
		echo 'int main(){}' | g++ -std=c++20 -x c++ - -o /dev/null 2>/dev/null
}

test_convolutions_compile_for_both_archs() {
	have_real_nvcc || skip_test "no nvcc"
	cp "$DATA/conv.cu" .
	for k in nchw3 nhwc3_relu nchw_s2d2 valid5_z nchw3_leaky; do
		tu conv.cu $k
		expect_ne 0 "$(entry_count kd/tu-$k.compute_90.ptx ks_conv_$k 'fma.rn.f32')" \
			"$k: FMAs of the tiled kernel in the sm_90 PTX"
		expect_ne 0 "$(entry_count kd/tu-$k.compute_90.ptx ks_conv_$k 'bar.sync')" \
			"$k: barriers"
		expect_ne 0 "$(entry_count kd/tu-$k.compute_90.ptx ks_conv_$k 'cp.async.ca.shared.global')" \
			"$k: asynchronous copies into shared memory (sm_90)"
		expect_eq 0 "$(entry_count kd/tu-$k.compute_80.ptx ks_conv_$k 'ld.global')" \
			"$k: no tiled kernel in the sm_80 PTX (the variant is for sm_90)"
	done
	tu conv.cu nchw3 bm=64 bn=32 tm=4 tn=8 cb=1 px=16
	tu conv.cu nchw3 bm=256 bn=128 tm=8 tn=8 cb=1 px=64
	tu conv.cu nchw3 st=3
	expect_ne 0 "$(entry_count kd/tu-nchw3.compute_90.ptx ks_conv_nchw3 'cp.async.wait_group 1')" \
		"nchw3 st=3: two slices in flight while one is multiplied"
}

test_bench_convolutions_compile() {
	have_real_nvcc || skip_test "no nvcc"
	local p
	for p in conv2d conv_norm; do
		mkdir "$p"
		cp "$ROOT/bench/$p/main.cu" "$ROOT/bench/$p/ref.h" "$ROOT/bench/common/bench.h" "$p/"
		(cd "$p" && tu main.cu conv2d_kernel) || fail "$p did not compile"
		grep -q 'ks_conv_conv2d_kernel<<<' "$p/tu-conv2d_kernel.cu" ||
			fail "$p: the launcher does not launch the tiled kernel"
	done
}

test_variants_match_the_original_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	cp "$DATA/conv.cu" "$DATA/cuda_emu.h" "$DATA/conv_check.cpp" .
	local spec k shape pts out
	# kernel : N C H W K Ho Wo : points
	for spec in "nchw3:2 3 19 21 5 19 21:" \
		    "nchw3:3 5 7 40 70 7 40:" \
		    "nchw3:2 3 19 21 5 19 21:bm=64 bn=32 tm=4 tn=8 cb=1 px=16" \
		    "nchw3:1 9 5 33 3 5 33:cb=4 px=64" \
		    "nchw3:3 5 7 40 70 7 40:st=3" \
		    "nchw3:1 9 5 33 3 5 33:cb=4 px=64 st=3" \
		    "nchw3:2 1 19 21 5 19 21:st=3" \
		    "nhwc3_relu:2 3 19 21 5 19 21:st=3 tn=8" \
		    "nhwc3_relu:2 3 19 21 5 19 21:" \
		    "nchw3_leaky:2 3 19 21 5 19 21:" \
		    "nchw_s2d2:2 3 19 21 5 10 11:" \
		    "valid5_z:1 3 19 21 5 15 17:"; do
		IFS=: read -r k shape pts <<<"$spec"
		# shellcheck disable=SC2086
		emu_build "$k" $pts
		# shellcheck disable=SC2086
		out=$("./check-$k" $shape) || fail "$k at $shape ($pts): $out"
		expect_contains "$out" "ok "
	done
}

test_a_broken_padding_test_is_caught_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	cp "$DATA/conv.cu" "$DATA/cuda_emu.h" "$DATA/conv_check.cpp" .
	emu_build nchw3
	# every tap is taken: the border outputs read outside the plane
	sed -i 's/ks_ok = ks_ok && !(/ks_ok = ks_ok \&\& 1 || !(/' variant.inc
	grep -q 'ks_ok && 1 ||' variant.inc || fail "the padding test was not found"
	g++ -std=c++20 -O1 -pthread -Wno-unknown-pragmas -I. -DKS_K=nchw3 conv_check.cpp \
		-o check-broken
	out=$(./check-broken 2 3 19 21 5 19 21) && fail "the broken variant passed: $out"
	expect_contains "$out" "mismatch"
}

test_look_alikes_are_declined_with_their_reason() {
	cp "$DATA/conv.cu" .
	local spec k want out
	for spec in "depthwise:a depthwise or grouped convolution" \
		    "guarded:does not skip the tap" \
		    "any_filter:has no constant trip count" \
		    "rescaled:assigns s (line"; do
		k=${spec%%:*}
		want=${spec#*:}
		out=$("$KS_BIN" transform "conv.cu:$k" --skill conv_tiling 2>&1) &&
			fail "$k was transformed"
		expect_contains "$out" "$want"
	done
	cp "$DATA/gemm.cu" .
	out=$("$KS_BIN" transform gemm.cu:nn_strided --skill conv_tiling 2>&1) &&
		fail "a matrix product was taken for a convolution"
	expect_contains "$out" "in one loop: a dot product"
}

test_variants_are_deterministic() {
	cp "$DATA/conv.cu" .
	"$KS_BIN" transform conv.cu:nhwc3_relu --skill conv_tiling >a.cu
	"$KS_BIN" transform conv.cu:nhwc3_relu --skill conv_tiling >b.cu
	cmp -s a.cu b.cu || fail "two runs gave different variants"
}
