# install: `make install PREFIX=...` lays out what the README promises, and
# the installed pieces work together. Uses the fake nvcc.

test_install_layout_and_masquerade() {
	# -o all: install the programs under test as they are, never rebuilt
	# here with other flags (a sanitizer build, say).
	make -s -C "$ROOT" -o all install PREFIX="$TEST_DIR/prefix" >install.log 2>&1 || {
		cat install.log
		fail "make install failed"
	}
	p=$TEST_DIR/prefix
	for f in bin/ks-nvcc bin/ks lib/ks-nvcc/bin/nvcc \
		share/ks-nvcc/cmake/ks-nvcc.cmake share/ks-nvcc/make/ks-nvcc.mk; do
		expect_file "$p/$f"
	done
	expect_eq "$(readlink -f "$p/bin/ks-nvcc")" "$(readlink -f "$p/lib/ks-nvcc/bin/nvcc")"
	use_fake_nvcc
	export PATH=$p/lib/ks-nvcc/bin:$PATH
	nvcc -arch=sm_90 -c k.cu -o k.o
	expect_eq '-arch=sm_90|-c|k.cu|-o|k.o' "$(nvcc_calls)"
	expect_eq 1 "$(record_count)"
	expect_contains "$("$p/bin/ks" builds)" "$TEST_DIR/k.cu"
	# The installed ks finds the installed skills.
	expect_contains "$("$p/bin/ks" skills lint --no-compile)" "0 problems"
	make -s -C "$ROOT" uninstall PREFIX="$TEST_DIR/prefix" >/dev/null 2>&1
	expect_no_file "$p/bin/ks-nvcc"
	expect_no_file "$p/lib/ks-nvcc/bin/nvcc"
}

test_make_snippet_routes_nvcc_through_ks_nvcc() {
	use_fake_nvcc
	export PATH=$ROOT:$PATH
	cat >Makefile <<'EOF2'
NVCC ?= nvcc
k.o: k.cu
	$(NVCC) -c k.cu -o k.o
EOF2
	touch k.cu
	# The real nvcc named in the environment; NVCC left to the Makefile.
	KS_NVCC=$TEST_DIR/fakebin/nvcc make -s -f Makefile \
		-f "$ROOT/integration/make/ks-nvcc.mk" k.o
	expect_eq '-c|k.cu|-o|k.o' "$(nvcc_calls)"
	expect_eq 1 "$(record_count)"
}
