# xf_stencil: the variants of stencil_smem_halo, put into their
# translation units by `ks transform --tu`, compile with the real nvcc
# for sm_80 and sm_90 with every warning an error, at every tile shape
# of the bench stencils; the helper kernel is in the compute_90 PTX only
# and reads the input through the read-only path there.
# Sources: tests/data/transforms/stencil.cu and bench/. Needs libclang
# (16-19) and nvcc.

DATA=$ROOT/tests/data/transforms
ARCHS="-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90"

suite_probe() {
	have_real_nvcc || { echo "no nvcc"; return; }
	"$KS_BIN" doctor 2>/dev/null | grep -q '^libclang  *ok' ||
		echo "no libclang 16-19 (see ks doctor)"
}

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
}

# Lines matching $3 in PTX file $1 between the entry of kernel $2 and the
# next entry.
entry_count() {
	awk -v k="$2" -v re="$3" '/\.entry / { on = index($0, k) > 0 } on && $0 ~ re { n++ }
		END { print n + 0 }' "$1"
}

test_test_kernels_2d_and_3d() {
	cp "$DATA/stencil.cu" .
	for k in jacobi box9 star2d_r heat3d; do
		check_tu stencil.cu "$k" .
	done
}

test_bench_stencils_at_every_tile_shape() {
	local p
	for p in jacobi2d stencil3d7 stencil3d25; do
		cp -R "$ROOT/bench/$p" "$ROOT/bench/common" .
		check_tu "$p/main.cu" "${p}_kernel" common
		check_tu "$p/main.cu" "${p}_kernel" common --param bx=64 --param by=4
		check_tu "$p/main.cu" "${p}_kernel" common --param bx=16 --param by=16
	done
	check_tu jacobi2d/main.cu jacobi2d_kernel common --param rows=8
	check_tu jacobi2d/main.cu jacobi2d_kernel common --param rows=1
	check_tu stencil3d25/main.cu stencil3d25_kernel common --param planes=128
	check_tu stencil3d7/main.cu stencil3d7_kernel common --param planes=16
}

test_declines_say_why() {
	cp "$DATA/stencil.cu" .
	out=$("$KS_BIN" transform stencil.cu:box27 --skill stencil_smem_halo 2>&1) &&
		fail "box27 was transformed"
	expect_contains "$out" "streaming along z needs a star in z"
	out=$("$KS_BIN" transform stencil.cu:jacobi --skill stencil_smem_halo \
		--param planes=64 2>&1) && fail "planes=64 applied to a 2-D stencil"
	expect_contains "$out" "planes applies to 3-D stencils only"
}
