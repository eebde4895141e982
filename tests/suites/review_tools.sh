# review_tools: the by-hand GPU scripts' helpers of tests/data/review
# build and do what they say without a GPU: sample_tu applies the
# Reviewer's block-sample guard (src/review/sample.c) to a TU, and
# declines one whose blocks may wait for one another, with the reason.

build_sample_tu() {
	cc -std=c11 -D_GNU_SOURCE -O1 -o sample_tu "$ROOT/tests/data/review/sample_tu.c" \
		"$ROOT/src/review/sample.c" "$ROOT/src/core/buf.c" "$ROOT/src/core/fs.c" "$ROOT/src/core/util.c" ||
		fail "sample_tu does not build"
}

test_sample_tu_guards_each_kernel() {
	build_sample_tu
	cat >k.cu <<'CU'
__global__ void a(float *x) { x[threadIdx.x] = 1.0f; }
__global__ void b(float *x, int n)
{
	if (blockIdx.x < n) x[blockIdx.x] = 2.0f;
}
CU
	./sample_tu k.cu s.cu || fail "sample_tu failed"
	expect_eq 2 "$(grep -c '{ KS_RC_SAMPLE' s.cu)" "guarded bodies"
	expect_contains "$(cat s.cu)" "ks_rc_keep"
	# the input itself follows, as it was, after the guard's marks are gone
	expect_eq "$(cat k.cu)" "$(sed -n '/^#line 1 /,$p' s.cu | tail -n +2 | sed 's/ KS_RC_SAMPLE//')"
}

test_sample_tu_declines_blocks_that_may_wait() {
	build_sample_tu
	cat >k.cu <<'CU'
__global__ void c(int *n) { atomicAdd(n, 1); }
CU
	local out
	out=$(./sample_tu k.cu s.cu 2>&1) && fail "an atomic TU was sampled"
	expect_contains "$out" "atomic"
	expect_no_file s.cu
}
