# bench: every benchmark program builds with plain nvcc (their CPU
# references are tested by tests/run itself, through make -C bench test-ref).

suite_probe() {
	have_real_nvcc || echo "nvcc is not available"
}

test_every_program_builds_with_plain_nvcc() {
	cp -R "$ROOT/bench" "$TEST_DIR/bench"
	make -C "$TEST_DIR/bench" clean >/dev/null
	progs=$(make -s -C "$TEST_DIR/bench" list)
	n=$(echo $progs | wc -w)
	[ "$n" -ge 24 ] || fail "only $n benchmark programs"
	make -k -j"$(nproc)" -C "$TEST_DIR/bench" NVCC="$(real_nvcc)" >build.log 2>&1 || {
		tail -n 40 build.log
		fail "some benchmark program did not build"
	}
	for p in $progs; do
		[ -x "$TEST_DIR/bench/$p/$p" ] || fail "no binary for $p"
	done
	echo "$n programs built"
}
