# xf_stencil: the variants of stencil_smem_halo, put into their
# translation units by `ks transform --tu`, compile with the real nvcc
# for sm_80 and sm_90 with every warning an error, at every tile shape
# of the bench stencils, in the streaming, the tile and the plane form; the helper
# kernel is in the compute_90 PTX only and reads the input through the
# read-only path there. On the CPU (cuda_emu.h: blocks one after another,
# threads as fibers switched at the barriers) every form's variant of each kernel of
# stencil.cu gives the original's outputs bit for bit at odd sizes, and a
# variant whose column is one step off does not.
# Sources: tests/data/transforms/stencil.cu and bench/. Needs libclang
# (16-19), nvcc for the compile tests and a C++20 g++ for the CPU checks.

DATA=$ROOT/tests/data/transforms
ARCHS="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90"

suite_probe() {
	"$KS_BIN" doctor 2>/dev/null | grep -q '^libclang  *ok' ||
		echo "no libclang 16-19 (see ks doctor)"
}

TILE="--param stream=0 --param depth=1"

# Transform kernel $2 of $1 (more --param after) and compile the TU with
# the include folder $3; the helper ks_st_$2 must be in compute_90's PTX
# with non-coherent loads, and empty for compute_80.
check_tu() {
	local file=$1 kernel=$2 inc=$3 tag
	shift 3
	tag=$kernel$(echo "$@" | tr -dc 'a-z0-9')
	"$KS_BIN" transform "$file:$kernel" --skill stencil_smem_halo "$@" --arch sm_90 \
		--tu -o "tu-$tag.cu" -- -I"$inc"
	rm -rf kd
	mkdir kd
	# shellcheck disable=SC2086
	"$(real_nvcc)" $ARCHS -I"$inc" -I"$(dirname "$file")" -Werror all-warnings -keep -keep-dir kd \
		-c "tu-$tag.cu" -o "tu-$tag.o"
	expect_ne 0 "$(entry_count "kd/tu-$tag.compute_90.ptx" "ks_st_$kernel" 'ld\.global\.nc')" \
		"read-only loads of ks_st_$kernel in the sm_90 PTX"
	expect_eq 0 "$(entry_count "kd/tu-$tag.compute_80.ptx" "ks_st_$kernel" 'ld\.global')" \
		"global loads of ks_st_$kernel in the sm_80 PTX"
	case " $* " in
	*" stream=1 "*) expect_ne 0 "$(entry_count "kd/tu-$tag.compute_90.ptx" "ks_st_$kernel" 'prefetch\.global\.L1')" \
		"halo prefetches of ks_st_$kernel (streaming form) in the sm_90 PTX" ;;
	*) ;;
	esac
}

# Lines matching $3 in PTX file $1 between the entry of kernel $2 and the
# next entry.
entry_count() {
	awk -v k="$2" -v re="$3" '/\.entry / { on = index($0, k) > 0 } on && $0 ~ re { n++ }
		END { print n + 0 }' "$1"
}

test_test_kernels_2d_and_3d() {
	have_real_nvcc || skip_test "no nvcc"
	cp "$DATA/stencil.cu" .
	for k in jacobi box9 star2d_r heat3d star3d_r; do
		check_tu stencil.cu "$k" . --param stream=1
		# shellcheck disable=SC2086
		check_tu stencil.cu "$k" . $TILE
	done
	check_tu stencil.cu box27 . --param stream=1
	for k in jacobi box9 star2d_r heat3d star3d_r box27; do
		check_tu stencil.cu "$k" . --param stream=2
	done
}

# The kernel's own body beside the tiled one where the tile may not hold
# what it reads.
test_test_kernels_with_their_own_body() {
	have_real_nvcc || skip_test "no nvcc"
	cp "$DATA/stencil.cu" .
	for k in short_exit no_exit fixed2d guard3d own_update; do
		check_tu stencil.cu "$k" .
		# shellcheck disable=SC2086
		check_tu stencil.cu "$k" . $TILE
	done
}

# Every tile shape of bench program $1's kernel.
bench_tile_shapes() {
	local p=$1
	cp -R "$ROOT/bench/$p" "$ROOT/bench/common" .
	check_tu "$p/main.cu" "${p}_kernel" common
	check_tu "$p/main.cu" "${p}_kernel" common --param stream=1
	[ "$p" = jacobi2d ] || check_tu "$p/main.cu" "${p}_kernel" common --param unroll=4
	check_tu "$p/main.cu" "${p}_kernel" common --param stream=1 --param bx=64 --param by=4
	check_tu "$p/main.cu" "${p}_kernel" common --param stream=1 --param depth=8 \
		--param resident=2048
	check_tu "$p/main.cu" "${p}_kernel" common --param stream=1 --param depth=1 \
		--param planes=16
	check_tu "$p/main.cu" "${p}_kernel" common --param stream=1 --param vx=4 --param depth=2 \
		--param resident=1024
	# shellcheck disable=SC2086
	check_tu "$p/main.cu" "${p}_kernel" common $TILE
	# shellcheck disable=SC2086
	check_tu "$p/main.cu" "${p}_kernel" common $TILE --param bx=16 --param by=16
	check_tu "$p/main.cu" "${p}_kernel" common --param stream=2 --param vx=4 --param depth=2 \
		--param resident=1024
	check_tu "$p/main.cu" "${p}_kernel" common --param stream=2 --param by=16 \
		--param depth=2 --param resident=1024
	check_tu "$p/main.cu" "${p}_kernel" common --param stream=2 --param vx=2 \
		--param bx=64 --param depth=8 --param planes=16
}

test_bench_jacobi2d_at_every_tile_shape() {
	have_real_nvcc || skip_test "no nvcc"
	bench_tile_shapes jacobi2d
	# shellcheck disable=SC2086
	check_tu jacobi2d/main.cu jacobi2d_kernel common $TILE --param rows=8
	# shellcheck disable=SC2086
	check_tu jacobi2d/main.cu jacobi2d_kernel common $TILE --param rows=1
}

test_bench_stencil3d7_at_every_tile_shape() {
	have_real_nvcc || skip_test "no nvcc"
	bench_tile_shapes stencil3d7
	check_tu stencil3d7/main.cu stencil3d7_kernel common --param stream=0 --param depth=8 \
		--param by=16
	# shellcheck disable=SC2086
	check_tu stencil3d7/main.cu stencil3d7_kernel common $TILE --param planes=16
}

test_bench_stencil3d25_at_every_tile_shape() {
	have_real_nvcc || skip_test "no nvcc"
	bench_tile_shapes stencil3d25
	check_tu stencil3d25/main.cu stencil3d25_kernel common --param stream=0 --param depth=4 \
		--param resident=1024
	# shellcheck disable=SC2086
	check_tu stencil3d25/main.cu stencil3d25_kernel common $TILE --param planes=128
}

# The variant of kernel $1 of stencil.cu (or of $ST_SRC), its argument kind $2
# (stencil_check.cpp), --param k=v after, as variant.inc, its launches
# rewritten for cuda_emu.h, built into check-$1.
emu_build() {
	local k=$1 kind=$2 p args=()
	shift 2
	for p in "$@"; do args+=(--param "$p"); done
	"$KS_BIN" transform "${ST_SRC:-stencil.cu}:$k" --skill stencil_smem_halo "${args[@]}" >"v-$k.cu"
	emu_inc "v-$k.cu"
	g++ -std=c++20 -O1 -pthread -Wno-unknown-pragmas -I. -DKS_K="$k" -DKS_KIND="$kind" \
		stencil_check.cpp -o "check-$k"
}

emu_inc() {
	python3 - "$1" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
s = re.sub(r'(\w+(?:<[\w ]+>)?)<<<(.*?)>>>\(', r'ks_emu_cfg(\1, \2)(', s, flags=re.S)
open('variant.inc', 'w').write(s)
PY
}

have_emu() {
	command -v g++ >/dev/null && command -v python3 >/dev/null &&
		echo 'int main(){}' | g++ -std=c++20 -x c++ - -o /dev/null 2>/dev/null
}

# Each spec "kernel:argument kind:points:sizes" (a size per run, x,y[,z]):
# the variant of that kernel of stencil.cu (or of $ST_SRC) at those
# points gives the original's outputs at every size.
expect_specs_match() {
	local spec k kind pts sz s out
	cp "$DATA/${ST_SRC:-stencil.cu}" "$DATA/cuda_emu.h" "$DATA/stencil_check.cpp" .
	for spec in "$@"; do
		IFS=: read -r k kind pts sz <<<"$spec"
		# shellcheck disable=SC2086
		emu_build "$k" "$kind" $pts
		for s in $sz; do
			# shellcheck disable=SC2086
			out=$("./check-$k" ${s//,/ }) || fail "$k at $s ($pts): $out"
			expect_contains "$out" "ok "
		done
	done
}

test_2d_variants_match_the_original_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	expect_specs_match \
		"jacobi:1:stream=1:37,23 70,133" \
		"jacobi:1:stream=1 depth=1 planes=16 bx=16 by=4:37,23 70,133" \
		"jacobi:1:stream=1 depth=8 bx=64:70,133" \
		"jacobi:1:stream=0 depth=1:37,23 70,133" \
		"star2d_r:1:stream=1:37,23 70,133" \
		"star2d_r:1:stream=0 depth=1 rows=2:37,23" \
		"box9:2:stream=1:37,23 70,133" \
		"box9:2:stream=0 depth=1:37,23" \
		"jacobi:1:stream=1 vx=4 depth=2:37,23 270,133" \
		"box9:2:stream=1 vx=2:37,23 170,33" \
		"jacobi:1:stream=2:37,23 70,133" \
		"jacobi:1:stream=2 vx=4 depth=2:37,23 270,133" \
		"jacobi:1:stream=2 bx=64 by=4 planes=16 depth=1:37,23 170,133" \
		"star2d_r:1:stream=2 vx=2 bx=16:37,23 170,33" \
		"box9:2:stream=2:37,23 70,133"
}

test_3d_variants_match_the_original_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	expect_specs_match \
		"heat3d:3:stream=1:19,13,11 35,9,70" \
		"heat3d:3:stream=1 depth=2 planes=16 by=4:19,13,11 35,9,70" \
		"heat3d:3:stream=0 depth=1 planes=16:19,13,11 35,9,70" \
		"star3d_r:4:stream=1:19,13,11 35,9,70" \
		"star3d_r:4:stream=0 depth=4:19,13,11 35,9,70" \
		"star3d_r:4:stream=0 depth=2 planes=16 by=4:19,13,11 35,9,70" \
		"star3d_r:4:stream=0 depth=8 bx=16 resident=1024:19,13,11" \
		"heat3d:3:stream=0 depth=4:19,13,11 35,9,70" \
		"heat3d:3:stream=1 vx=2:19,13,11 135,9,20" \
		"star3d_r:4:stream=1 vx=4 bx=16 by=4 planes=16:19,13,11 35,9,70" \
		"box27:4:stream=1:19,13,11 35,9,70"
}

# The plane form (stream=2) and the default form.
test_3d_plane_variants_match_the_original_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	expect_specs_match \
		"heat3d:3:stream=2 pack=1:19,13,11 35,9,70" \
		"heat3d:3:stream=2 pack=1 vx=2 depth=8 planes=16:19,13,11 135,9,20" \
		"star3d_r:4:stream=2 pack=1 by=16 depth=2:19,13,11 35,9,70" \
		"star3d_r:4:stream=2 pack=1 vx=4 bx=16 by=4 planes=16:19,13,11 35,9,70" \
		"box27:4:stream=2 pack=1 vx=2:19,13,11 35,9,70" \
		"heat3d:3:stream=2:19,13,11 35,9,70 36,12,20" \
		"star3d_r:4:stream=2:19,13,11 35,9,70 36,12,20" \
		"heat3d:3:stream=2 pack=2:19,13,11 35,9,70 36,12,20" \
		"star3d_r:4:stream=2 pack=2:19,13,11 35,9,70 36,12,20" \
		"star3d_r:4:stream=2 pack=2 bx=64 by=4 depth=4:19,13,11 70,9,21" \
		"heat3d:3:stream=2 unroll=4:19,13,11 35,9,70 36,12,20" \
		"star3d_r:4:stream=2 unroll=4:19,13,11 35,9,70 36,12,20" \
		"star3d_r:4:stream=2 pack=2 unroll=4 planes=16:19,13,11 70,9,21" \
		"heat3d:3:stream=2 unroll=4 depth=2 bx=64 by=4 planes=16:19,13,11 70,9,21" \
		"star3d_r:4:depth=4 bx=16 by=4 planes=16:19,13,11 36,12,20" \
		"star3d_r:4:bx=16 depth=1 planes=16:37,13,11 40,9,21" \
		"heat3d:3:bx=64 by=4 depth=8:19,13,11 132,9,20" \
		"star3d_r:4:bx=128 by=4 planes=16:19,13,11 260,7,5"
}

# The packed form's body once on 4-wide values (lanes.cu's lane_ok, and
# heat3d and star3d_r by default above), on the 4 bodies where the
# outputs of a thread take a bounds check on x differently: at sizes
# whose borders cut the 4 outputs of a thread, at pack=2, unrolled,
# with lanes off, and a look-alike whose body cannot run on lanes.
test_lane_bodies_match_the_original_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	ST_SRC=lanes.cu expect_specs_match \
		"lane_ok:4::19,13,11 35,9,70 36,12,20 42,7,9" \
		"lane_ok:4:pack=2:19,13,11 35,9,70" \
		"lane_ok:4:unroll=4 depth=2 bx=64 by=4 planes=16:19,13,11 70,9,21" \
		"lane_ok:4:lanes=0:19,13,11 36,12,20" \
		"lane_xvalue:4::19,13,11 36,12,20"
}

# The lane body run where the outputs do not agree on a bounds check,
# its window read a column off, or its column a step off, is caught.
test_a_lane_body_off_by_one_is_caught_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	cp "$DATA/lanes.cu" "$DATA/cuda_emu.h" "$DATA/stencil_check.cpp" .
	"$KS_BIN" transform lanes.cu:lane_ok --skill stencil_smem_halo >v.cu
	expect_contains "$(grep -c 'const bool ks_uni = ' v.cu)" "1"
	# (a width of 36: the 4 outputs of a thread never straddle the end
	# of a row, where a forced lane body would write past it)
	expect_mutants_caught v.cu lane_ok 4 "36 12 20" \
		's/const bool ks_uni = /const bool ks_uni = true || /' \
		's/o.v\[j\] = w\[r\]\[c + j\]/o.v[j] = w[r][c + (j ^ 1)]/' \
		's/memcpy(&ks_w4\[ks_j\], &ks_q\[(ks_u + ks_j)/memcpy(\&ks_w4[ks_j], \&ks_q[(ks_u + ks_j + 1)/'
}

# Kernels whose own body runs at the tile's ends.
test_own_body_variants_match_the_original_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	expect_specs_match \
		"short_exit:1::37,23 70,41" \
		"short_exit:1:stream=1:37,23" \
		"short_exit:1:stream=0:37,23" \
		"no_exit:1::37,23 70,41" \
		"no_exit:1:stream=0:37,23" \
		"fixed2d:1::40,40" \
		"fixed2d:1:stream=1:40,40" \
		"fixed2d:1:stream=0:40,40" \
		"guard3d:4::21,37,19 44,40,12" \
		"guard3d:4:pack=1:21,37,19" \
		"guard3d:4:stream=1:21,37,19" \
		"guard3d:4:stream=0:21,37,19" \
		"own_update:5::37,23 70,41" \
		"own_update:5:stream=0:37,23"
}

# The plane form with 64-bit offsets (the launcher's choice for arrays
# past 2^31 elements, forced here) gives the same outputs.
test_plane_form_with_wide_offsets_matches_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	cp "$DATA/stencil.cu" "$DATA/cuda_emu.h" "$DATA/stencil_check.cpp" .
	local spec k kind pts sz out
	for spec in "jacobi:1:stream=2 vx=2:37,23 170,133" \
		    "star3d_r:4:stream=2 by=4:19,13,11 35,9,70" \
		    "star3d_r:4:stream=2 pack=2 by=4:19,13,11 35,9,70"; do
		IFS=: read -r k kind pts sz <<<"$spec"
		# shellcheck disable=SC2086
		emu_build "$k" "$kind" $pts
		sed 's/ks_hi < 0x7fffffffLL/ks_hi < 0/' "v-$k.cu" >"w-$k.cu"
		cmp -s "v-$k.cu" "w-$k.cu" && fail "the launcher's offset choice was not found"
		emu_inc "w-$k.cu"
		g++ -std=c++20 -O1 -pthread -Wno-unknown-pragmas -I. -DKS_K="$k" -DKS_KIND="$kind" \
			stencil_check.cpp -o "check-$k"
		for s in $sz; do
			out=$("./check-$k" ${s//,/ }) || fail "$k at $s ($pts, wide): $out"
			expect_contains "$out" "ok "
		done
	done
}

# Each sed expression ($5...) breaks variant $1 of kernel $2 (argument
# kind $3): it must change the variant, and the broken variant must give
# other outputs than the original at size $4 ("x y z").
expect_mutants_caught() {
	local v=$1 k=$2 kind=$3 size=$4 e out
	shift 4
	for e in "$@"; do
		sed "$e" "$v" >v-broken.cu
		cmp -s "$v" v-broken.cu && fail "not found in the variant: $e"
		emu_inc v-broken.cu
		g++ -std=c++20 -O1 -pthread -Wno-unknown-pragmas -I. -DKS_K="$k" \
			-DKS_KIND="$kind" stencil_check.cpp -o check-broken
		# shellcheck disable=SC2086
		out=$(./check-broken $size) && fail "the broken variant ($e) passed: $out"
		expect_contains "$out" "differs at"
	done
}

# A plane form whose halo is loaded one step late is caught.
test_a_plane_form_one_step_off_is_caught_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	cp "$DATA/stencil.cu" "$DATA/cuda_emu.h" "$DATA/stencil_check.cpp" .
	"$KS_BIN" transform stencil.cu:heat3d --skill stencil_smem_halo --param stream=2 \
		--param pack=1 >v.cu
	expect_mutants_caught v.cu heat3d 3 "35 9 70" \
		's/ks_ss \* (ks_I)(ks_k + 4), ks_n) : float(0)/ks_ss * (ks_I)(ks_k + 5), ks_n) : float(0)/'
}

# The packed plane form (4 outputs a thread): a halo vector loaded one
# step late, the window read one row off, the outputs of a partial
# vector written to the wrong places or as a whole, is caught.
test_a_packed_plane_form_off_by_one_is_caught_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	cp "$DATA/stencil.cu" "$DATA/cuda_emu.h" "$DATA/stencil_check.cpp" .
	"$KS_BIN" transform stencil.cu:heat3d --skill stencil_smem_halo --param stream=2 >v.cu
	expect_contains "$(head -1 v.cu)" "4 consecutive outputs"
	expect_mutants_caught v.cu heat3d 3 "36 12 20" \
		's/ks_ho\[ks_s\] + ks_sz \* (ks_I)(ks_k + 4), ks_n, ks_al)/ks_ho[ks_s] + ks_sz * (ks_I)(ks_k + 5), ks_n, ks_al)/' \
		's/\[ks_ly - 1 + ks_r\]/[ks_ly - 0 + ks_r]/' \
		's/ks_fo + ks_v\] = ks_o.v\[ks_v\]/ks_fo + (ks_v ^ 1)] = ks_o.v[ks_v]/' \
		's/ks_om == 15u \&\& ks_al/ks_om != 0u \&\& ks_al/'
}

# The same with the pass unrolled 4 steps (unroll=4): the window moved
# one slot short, or a step's load one slot past the window's, is caught.
test_an_unrolled_packed_form_off_by_one_is_caught_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	cp "$DATA/stencil.cu" "$DATA/cuda_emu.h" "$DATA/stencil_check.cpp" .
	"$KS_BIN" transform stencil.cu:star3d_r --skill stencil_smem_halo --param stream=2 \
		--param unroll=4 >v.cu
	expect_contains "$(grep -c 'ks_q\[ks_j\] = ks_q\[ks_j + 4\]' v.cu)" "1"
	expect_mutants_caught v.cu star3d_r 4 "35 9 70" \
		's/ks_q\[ks_j\] = ks_q\[ks_j + 4\]/ks_q[ks_j] = ks_q[ks_j + 3]/' \
		's/ks_q\[(ks_u + 8)\] = /ks_q[(ks_u + 7)] = /'
}

# The same with 2 outputs a thread (2 halo vectors a side): the left
# side's inner halo vector never loaded, a partial pair written whole.
test_a_pair_plane_form_off_by_one_is_caught_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	cp "$DATA/stencil.cu" "$DATA/cuda_emu.h" "$DATA/stencil_check.cpp" .
	"$KS_BIN" transform stencil.cu:heat3d --skill stencil_smem_halo --param stream=2 \
		--param pack=2 >v.cu
	expect_contains "$(head -1 v.cu)" "2 consecutive outputs"
	expect_mutants_caught v.cu heat3d 3 "35 12 20" \
		's/ks_cv = ks_e < 2 ? ks_e : 16 + ks_e/ks_cv = ks_e < 1 ? ks_e : 16 + ks_e/' \
		's/ks_om == 3u \&\& ks_al/ks_om != 0u \&\& ks_al/'
}

# Where the tile may not hold what the kernel reads, the outputs next to
# its ends run the kernel's own body: taking the tile for every output,
# or dropping the kernel's body, is caught.
test_the_kernels_own_body_at_the_tiles_ends_is_needed_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	cp "$DATA/stencil.cu" "$DATA/cuda_emu.h" "$DATA/stencil_check.cpp" .
	local spec k size
	# (no_exit reads along x alone, inside the rows below its limit: the
	# test never fails there, and the mutants are not caught)
	for spec in "short_exit:37 23" "fixed2d:40 40"; do
		k=${spec%%:*}
		size=${spec#*:}
		"$KS_BIN" transform "stencil.cu:$k" --skill stencil_smem_halo >v.cu
		expect_mutants_caught v.cu "$k" 1 "$size" \
			's/\treturn ks_f >= ks_r \&\& /\treturn 1 || /' \
			's/\t\tks_st_orig_[a-z_0-9]*(ks_tid[^;]*;/\t\t;/'
	done
	# an early exit at the array's extent needs no such test
	"$KS_BIN" transform stencil.cu:jacobi --skill stencil_smem_halo >v.cu
	grep -q ks_st_orig_jacobi v.cu && fail "jacobi got the kernel's own body"
	true
}

# The streaming form's column: the loads one step later than the ring
# slot they fill.
test_a_column_one_step_off_is_caught_on_the_cpu() {
	have_emu || skip_test "no C++20 g++ or python3"
	cp "$DATA/stencil.cu" "$DATA/cuda_emu.h" "$DATA/stencil_check.cpp" .
	"$KS_BIN" transform stencil.cu:jacobi --skill stencil_smem_halo --param stream=1 >v.cu
	expect_mutants_caught v.cu jacobi 1 "37 23" 's/ks_ss \* (ks_p + 5)/ks_ss * (ks_p + 6)/'
}

test_declines_say_why() {
	cp "$DATA/stencil.cu" .
	# shellcheck disable=SC2086
	out=$("$KS_BIN" transform stencil.cu:box27 --skill stencil_smem_halo $TILE 2>&1) &&
		fail "box27 was tiled"
	expect_contains "$out" "needs a star in z"
	# shellcheck disable=SC2086
	out=$("$KS_BIN" transform stencil.cu:jacobi --skill stencil_smem_halo $TILE \
		--param planes=32 2>&1) && fail "planes=32 applied to a 2-D tile"
	expect_contains "$out" "planes applies to 3-D stencils and the streaming form only"
	out=$("$KS_BIN" transform stencil.cu:jacobi --skill stencil_smem_halo --param stream=1 \
		--param rows=8 2>&1) && fail "rows=8 applied to the streaming form"
	expect_contains "$out" "rows applies to the tile form only"
	out=$("$KS_BIN" transform stencil.cu:jacobi --skill stencil_smem_halo \
		--param stream=2 --param rows=2 2>&1) && fail "rows=2 applied to the plane form"
	expect_contains "$out" "rows applies to the 2-D tile form only"
	out=$("$KS_BIN" transform stencil.cu:star3d_r --skill stencil_smem_halo \
		--param stream=2 --param pack=1 --param unroll=4 2>&1) &&
		fail "unroll=4 applied to one output a thread"
	expect_contains "$out" "unroll applies to the packed plane form only"
}
