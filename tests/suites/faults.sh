# faults: ks-nvcc never breaks a build. The fault matrix: hostile state
# directories, FIFOs and directories where ks-nvcc reads or writes,
# damaged state files, site wrappers in every order, launcher-form
# look-alikes, killed compiles. Each case runs the same command through
# plain nvcc and through ks-nvcc, in twin directories, and compares the
# exit status, stdout, stderr and the output (the fake nvcc's object, or
# the .nv_fatbin section of a real nvcc's). The fake nvcc stands in where
# the real one adds nothing; the cases with the real one are skipped
# without it.

# Twin directories plain/ and ks/, each with k.cu.
twins() {
	mkdir -p plain ks
	write_kernel plain/k.cu
	write_kernel ks/k.cu
}

# same_as_plain NVCC ARGS...: NVCC run directly in plain/ and ks-nvcc
# (finding NVCC by PATH or KS_NVCC, as set up) in ks/; both must agree.
# A hang is a failure (timeout: exit 124). COMPARE names the output
# files to compare (default k.o).
same_as_plain() {
	local nvcc=$1 f
	shift
	(cd plain && set +e && timeout 20 "$nvcc" "$@" >out.txt 2>err.txt; echo $? >rc.txt)
	(cd ks && set +e && timeout 20 "$KS_NVCC_BIN" "$@" >out.txt 2>err.txt; echo $? >rc.txt)
	expect_eq "$(cat plain/rc.txt)" "$(cat ks/rc.txt)" "exit status of ks-nvcc $*"
	expect_eq "$(cat plain/out.txt)" "$(cat ks/out.txt)" "stdout"
	expect_eq "$(sed 's|plain/|X/|g' plain/err.txt)" "$(sed 's|ks/|X/|g' ks/err.txt)" "stderr"
	for f in ${COMPARE:-k.o}; do
		if [ -e "plain/$f" ] || [ -e "ks/$f" ]; then
			expect_same_output "plain/$f" "ks/$f"
		fi
	done
}

# Objects of a real nvcc hold paths and temporaries; their device code
# (.nv_fatbin) must be the same.
expect_same_output() {
	expect_file "$1"
	expect_file "$2"
	if [ "$(head -c 4 "$1")" = "$(printf '\177ELF')" ]; then
		objcopy -O binary --only-section=.nv_fatbin "$1" "$1.fatbin"
		objcopy -O binary --only-section=.nv_fatbin "$2" "$2.fatbin"
		expect_same_file "$1.fatbin" "$2.fatbin"
	else
		expect_same_file "$1" "$2"
	fi
}

fake_twins() {
	use_fake_nvcc
	twins
}

# Every regular file under KS_DIR replaced by what `$1` makes (fifo, dir).
replace_state_files() {
	local f
	find "$KS_DIR" -type f | while read -r f; do
		rm -f "$f"
		case $1 in
		fifo) mkfifo "$f" ;;
		dir) mkdir "$f" ;;
		esac
	done
}

# --- the state directory -------------------------------------------------------

test_ks_dir_is_a_file_a_fifo_or_a_dangling_link() {
	fake_twins
	echo x >afile
	mkfifo afifo
	ln -s "$TEST_DIR/nowhere/at/all" dangling
	ln -s loop1 loop2
	ln -s loop2 loop1
	for d in afile afile/sub afifo dangling loop1; do
		KS_DIR=$TEST_DIR/$d same_as_plain "$FAKE_DIR/nvcc" -c k.cu -o k.o
	done
}

test_ks_dir_unwritable() {
	fake_twins
	if [ "$(id -u)" != 0 ]; then
		mkdir -p "$KS_DIR"
		chmod 555 "$KS_DIR"
	elif mkdir -p ro && mount -t tmpfs -o size=1m,ro tmpfs ro 2>/dev/null; then
		export KS_DIR=$TEST_DIR/ro
		trap 'umount "$TEST_DIR/ro"' EXIT
	else
		skip_test "root without mount(2): no read-only directory to try"
	fi
	same_as_plain "$FAKE_DIR/nvcc" -c k.cu -o k.o
	expect_eq "" "$(cat ks/err.txt)"
}

test_ks_dir_full() {
	fake_twins
	[ "$(id -u)" = 0 ] || skip_test "not root: cannot mount a small tmpfs"
	mkdir full
	mount -t tmpfs -o size=64k tmpfs full 2>/dev/null ||
		skip_test "mount(2) refused here: no full file system to try"
	trap 'umount "$TEST_DIR/full"' EXIT
	export KS_DIR=$TEST_DIR/full/ks
	mkdir -p "$KS_DIR/builds"
	dd if=/dev/zero of="$TEST_DIR/full/filler" bs=4k 2>/dev/null || true
	same_as_plain "$FAKE_DIR/nvcc" -c k.cu -o k.o
	KS_LOG=$TEST_DIR/log same_as_plain "$FAKE_DIR/nvcc" -c k.cu -o k.o
	expect_contains "$(cat log)" "o space left"
	expect_eq "" "$(find "$KS_DIR" -name '*.tmp.*')"
}

# --- FIFOs and directories where ks-nvcc reads or writes --------------------

test_fifos_at_every_state_path() {
	fake_twins
	(cd ks && "$KS_NVCC_BIN" -c k.cu -o k.o)
	mkfifo "$KS_DIR/ks.conf"
	replace_state_files fifo
	expect_ne "" "$(find "$KS_DIR" -type p)" "fifos"
	same_as_plain "$FAKE_DIR/nvcc" -c k.cu -o k.o
	# ks builds does not hang on them either, and says what it skipped.
	timeout 20 "$KS_BIN" builds >out.txt 2>err.txt
	expect_contains "$(cat err.txt)" "skipping unreadable record '$KS_DIR/builds/"
	expect_contains "$(cat err.txt)" "is not a regular file"
}

test_directories_at_every_state_path() {
	fake_twins
	(cd ks && "$KS_NVCC_BIN" -c k.cu -o k.o)
	replace_state_files dir
	mkdir "$KS_DIR/ks.conf"
	same_as_plain "$FAKE_DIR/nvcc" -c k.cu -o k.o
	timeout 20 "$KS_BIN" builds >out.txt 2>err.txt
}

test_state_subdirectories_are_files_or_fifos() {
	fake_twins
	(cd ks && "$KS_NVCC_BIN" -c k.cu -o k.o)
	rm -rf "$KS_DIR/builds" "$KS_DIR/nvcc"
	mkfifo "$KS_DIR/builds"
	echo x >"$KS_DIR/nvcc"
	same_as_plain "$FAKE_DIR/nvcc" -c k.cu -o k.o
	timeout 20 "$KS_BIN" builds >out.txt 2>err.txt
	rm -f "$KS_DIR/builds" "$KS_DIR/nvcc"
	mkdir "$KS_DIR/builds"
	mkfifo "$KS_DIR/nvcc"
	same_as_plain "$FAKE_DIR/nvcc" -c k.cu -o k.o
	expect_eq 1 "$(record_count)"
}

test_fifo_as_log_and_config() {
	fake_twins
	mkfifo fifo
	KS_LOG=$TEST_DIR/fifo same_as_plain "$FAKE_DIR/nvcc" -c k.cu -o k.o
	KS_CONFIG=$TEST_DIR/fifo same_as_plain "$FAKE_DIR/nvcc" -c k.cu -o k.o
	mkdir adir
	KS_LOG=$TEST_DIR/adir same_as_plain "$FAKE_DIR/nvcc" -c k.cu -o k.o
	KS_CONFIG=$TEST_DIR/adir same_as_plain "$FAKE_DIR/nvcc" -c k.cu -o k.o
}

test_fifo_as_options_file_is_left_to_nvcc() {
	fake_twins
	mkfifo plain/opts ks/opts
	KS_LOG=$TEST_DIR/log same_as_plain "$FAKE_DIR/nvcc" -optf opts -c k.cu -o k.o
	expect_stat passthru-unclassified 1
	expect_contains "$(cat log)" "not a regular file"
}

test_version_cache_fifo_and_garbage() {
	fake_twins
	(cd ks && "$KS_NVCC_BIN" -c k.cu -o k.o)
	cache=$(find "$KS_DIR/nvcc" -type f ! -name .ks-swept)
	expect_eq "13.0.88" "$(cat "$cache")"
	for bad in "13." "" "garbage" "13.0.88x" $'\xff\xfe' "$(head -c 300 /dev/zero | tr '\0' 9)"; do
		rm -rf "$KS_DIR/builds"
		printf '%s' "$bad" >"$cache"
		same_as_plain "$FAKE_DIR/nvcc" -c k.cu -o k.o
		expect_contains "$(cat "$KS_DIR"/builds/*.json)" '"nvcc_version": "13.0.88"'
		expect_eq "13.0.88" "$(cat "$cache")"
	done
	rm -f "$cache"
	mkfifo "$cache"
	rm -rf "$KS_DIR/builds"
	same_as_plain "$FAKE_DIR/nvcc" -c k.cu -o k.o
	expect_contains "$(cat "$KS_DIR"/builds/*.json)" '"nvcc_version": "13.0.88"'
}

# --- damaged state files ------------------------------------------------------

test_garbage_and_non_utf8_config() {
	fake_twins
	mkdir -p "$KS_DIR"
	for text in 'record = perhaps' $'\xff\xfe = \x01' $'dir\n= =\n#' $'record = \xff'; do
		printf '%s' "$text" >"$KS_DIR/ks.conf"
		same_as_plain "$FAKE_DIR/nvcc" -c k.cu -o k.o
	done
	head -c 2000000 /dev/zero | tr '\0' '#' >"$KS_DIR/ks.conf"
	same_as_plain "$FAKE_DIR/nvcc" -c k.cu -o k.o
}

test_counter_at_the_maximum_saturates() {
	fake_twins
	mkdir -p "$KS_DIR"
	printf 'compile 9223372036854775807\ninvocations 9223372036854775806\n' >"$KS_DIR/stats"
	same_as_plain "$FAKE_DIR/nvcc" -c k.cu -o k.o
	same_as_plain "$FAKE_DIR/nvcc" -c k.cu -o k.o
	expect_stat compile 9223372036854775807
	expect_stat invocations 9223372036854775807
}

test_oversized_stats_file_is_kept() {
	fake_twins
	mkdir -p "$KS_DIR"
	{
		echo "compile 41"
		head -c 1100000 /dev/zero | tr '\0' x
		echo
	} >"$KS_DIR/stats"
	cp "$KS_DIR/stats" stats.before
	KS_LOG=$TEST_DIR/log same_as_plain "$FAKE_DIR/nvcc" -c k.cu -o k.o
	expect_same_file stats.before "$KS_DIR/stats"
	expect_contains "$(cat log)" "stats not updated"
}

test_garbage_stats_file_still_counts() {
	fake_twins
	mkdir -p "$KS_DIR"
	printf 'compile 3\n\xff\xfe\x00junk\n no-name 5\ninvocations x\n' >"$KS_DIR/stats"
	same_as_plain "$FAKE_DIR/nvcc" -c k.cu -o k.o
	expect_stat compile 4
}

test_damaged_records_are_skipped_and_builds_json_stays_json() {
	fake_twins
	(cd ks && "$KS_NVCC_BIN" -c k.cu -o k.o)
	good=$(ls "$KS_DIR"/builds/*.json)
	b=$KS_DIR/builds
	{ cat "$good"; echo 'trailing garbage'; } >"$b/trailing.json"
	head -c 100 "$good" >"$b/truncated.json"
	sed 's/"cu"/"\xff\xfe"/' "$good" >"$b/latin1.json"
	printf '[1, 2]\n' >"$b/array.json"
	head -c 2000000 /dev/zero | tr '\0' ' ' >"$b/huge.json"
	: >"$b/empty.json"
	"$KS_BIN" builds --json >out.json 2>err.txt
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1], encoding="utf-8")); assert len(r) == 1, r' out.json
	for f in trailing truncated latin1 array huge empty; do
		expect_contains "$(cat err.txt)" "$f.json"
	done
	"$KS_BIN" builds >out.txt 2>/dev/null
	expect_eq 1 "$(wc -l <out.txt)"
}

test_non_utf8_argument_is_not_recorded() {
	fake_twins
	KS_LOG=$TEST_DIR/log same_as_plain "$FAKE_DIR/nvcc" -c k.cu -o k.o "-DX=$(printf '\xff\xfe')"
	expect_eq 0 "$(record_count)"
	expect_stat record-not-utf8 1
	expect_contains "$(cat log)" "argument 5 is not valid UTF-8"
	"$KS_BIN" builds --json >out.json
	python3 -c 'import json, sys; json.load(open(sys.argv[1], encoding="utf-8"))' out.json
	# Valid UTF-8 beyond ASCII is recorded as it is.
	(cd ks && "$KS_NVCC_BIN" -c k.cu -o k.o "-DX=\"$(printf '\xc3\xa9\xe2\x82\xac')\"")
	expect_eq 1 "$(record_count)"
	"$KS_BIN" builds --json >out.json
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1], encoding="utf-8")); assert "-DX=\"\u00e9\u20ac\"" in r[0]["argv"], r' out.json
}

test_unclassifiable_command_logs_its_reason() {
	fake_twins
	NVCC_PREPEND_FLAGS='-DX="unbalanced' KS_LOG=$TEST_DIR/log \
		same_as_plain "$FAKE_DIR/nvcc" -c k.cu -o k.o
	expect_contains "$(cat log)" "cannot classify the command, passing through: unbalanced"
	expect_stat passthru-unclassified 1
}

# --- site wrappers, in every order -------------------------------------------

# A site script (any name) that runs "nvcc" from PATH; with `strip`, from
# PATH without its own directory (how a site wrapper named nvcc avoids
# calling itself).
site_wrapper() { # path [strip]
	mkdir -p "$(dirname "$1")"
	if [ "${2:-}" = strip ]; then
		printf '#!/bin/sh\nPATH=$(printf %%s "$PATH" | sed "s|%s:||g")\nexec nvcc "$@"\n' \
			"$(dirname "$1")" >"$1"
	else
		printf '#!/bin/sh\nexec nvcc "$@"\n' >"$1"
	fi
	chmod +x "$1"
}

test_site_wrapper_after_the_masquerade() {
	fake_twins
	use_masquerade
	export PATH=$TEST_DIR/masq:$TEST_DIR/site:$TEST_DIR/fakebin:/usr/bin:/bin
	for how in naive strip; do
		site_wrapper "$TEST_DIR/site/nvcc" $how
		same_as_plain "$FAKE_DIR/nvcc" -c k.cu -o k.o
		(cd ks && timeout 20 nvcc -c k.cu -o k.o)
	done
	expect_eq 1 "$(record_count)"
	# Counted once each: below ks-nvcc, ks-nvcc only passes through.
	expect_stat compile 4
}

test_site_wrapper_before_the_masquerade() {
	fake_twins
	site_wrapper "$TEST_DIR/site/nvcc" strip
	use_masquerade
	export PATH=$TEST_DIR/site:$TEST_DIR/masq:$TEST_DIR/fakebin:/usr/bin:/bin
	(cd plain && timeout 20 "$FAKE_DIR/nvcc" -c k.cu -o k.o)
	(cd ks && timeout 20 nvcc -c k.cu -o k.o)
	expect_same_file plain/k.o ks/k.o
	expect_eq 1 "$(record_count)"
	expect_stat passthru-nested 0
}

test_ks_nvcc_names_a_site_wrapper_that_calls_nvcc() {
	fake_twins
	site_wrapper "$TEST_DIR/site/wrap-nvcc.sh"
	use_masquerade
	export PATH=$TEST_DIR/masq:$TEST_DIR/fakebin:/usr/bin:/bin
	KS_NVCC=$TEST_DIR/site/wrap-nvcc.sh same_as_plain "$FAKE_DIR/nvcc" -c k.cu -o k.o
	expect_eq 1 "$(record_count)"
	expect_contains "$(cat "$KS_DIR"/builds/*.json)" "wrap-nvcc.sh"
}

test_site_wrapper_calling_ks_nvcc_by_path() {
	fake_twins
	mkdir site
	printf '#!/bin/sh\nexec "%s" "$@"\n' "$KS_NVCC_BIN" >site/nvcc
	chmod +x site/nvcc
	export PATH=$TEST_DIR/site:$TEST_DIR/fakebin:/usr/bin:/bin
	same_as_plain "$FAKE_DIR/nvcc" -c k.cu -o k.o
}

test_ks_nvcc_set_wrong_says_what_to_fix() {
	fake_twins
	echo "not a program" >notexec
	for v in "$TEST_DIR/missing/nvcc" "$TEST_DIR/notexec" "$KS_NVCC_BIN"; do
		set +e
		KS_NVCC=$v "$KS_NVCC_BIN" -c ks/k.cu -o ks/k.o 2>err.txt
		status=$?
		set -e
		expect_eq 100 "$status" "exit status with KS_NVCC=$v"
		expect_contains "$(cat err.txt)" "KS_NVCC '$v'"
		expect_contains "$(cat err.txt)" "set KS_NVCC to the real nvcc, or unset it"
	done
	KS_NVCC=$TEST_DIR/missing/nvcc "$KS_NVCC_BIN" -c ks/k.cu -o ks/k.o 2>&1 | grep -q "does not exist"
	KS_NVCC=$TEST_DIR/notexec "$KS_NVCC_BIN" -c ks/k.cu -o ks/k.o 2>&1 | grep -q "not an executable"
	KS_NVCC=$KS_NVCC_BIN "$KS_NVCC_BIN" -c ks/k.cu -o ks/k.o 2>&1 | grep -q "is ks-nvcc itself"
}

# --- launcher-form look-alikes -----------------------------------------------

test_shared_library_named_nvcc_is_a_link_input() {
	fake_twins
	command -v gcc >/dev/null || skip_test "no gcc to make a shared library"
	echo 'int helper(void) { return 1; }' >h.c
	for d in plain ks; do
		gcc -shared -fPIC -o $d/libnvcc_helpers.so h.c
		cp $d/libnvcc_helpers.so $d/libnvcc.so.1
		echo obj >$d/main.o
	done
	expect_eq 755 "$(stat -c %a ks/libnvcc_helpers.so)"
	COMPARE=app same_as_plain "$FAKE_DIR/nvcc" ./libnvcc_helpers.so main.o -o app
	COMPARE=app same_as_plain "$FAKE_DIR/nvcc" ./libnvcc.so.1 main.o -o app
	expect_eq "./libnvcc_helpers.so|main.o|-o|app" "$(nvcc_calls | head -n 1)"
}

test_object_and_source_named_nvcc_are_inputs() {
	fake_twins
	for d in plain ks; do
		echo obj >$d/nvcc_kernels.o
		write_kernel $d/nvcc_k.cu
		chmod 755 $d/nvcc_kernels.o $d/nvcc_k.cu
	done
	COMPARE=app same_as_plain "$FAKE_DIR/nvcc" ./nvcc_kernels.o -o app
	same_as_plain "$FAKE_DIR/nvcc" ./nvcc_k.cu -c -o k.o
}

test_script_named_nvcc_is_the_launcher_form() {
	fake_twins
	mkdir site
	printf '#!/bin/sh\nexec "%s" "$@"\n' "$FAKE_DIR/nvcc" >site/my-nvcc.sh
	chmod +x site/my-nvcc.sh
	# ks-nvcc SCRIPT args is the script with args.
	(cd plain && "$TEST_DIR/site/my-nvcc.sh" -c k.cu -o k.o)
	(cd ks && "$KS_NVCC_BIN" "$TEST_DIR/site/my-nvcc.sh" -c k.cu -o k.o)
	expect_same_file plain/k.o ks/k.o
	expect_eq 1 "$(record_count)"
}

# --- killed compiles ----------------------------------------------------------

test_sigkill_storm_then_a_clean_build() {
	fake_twins
	local i
	for i in $(seq 1 150); do
		(cd ks && exec setsid "$KS_NVCC_BIN" -c k.cu -o "k$((i % 7)).o") &
		pid=$!
		sleep "0.00$((i % 9))"
		kill -9 -- -$pid 2>/dev/null || kill -9 $pid 2>/dev/null || true
		wait $pid 2>/dev/null || true
	done
	same_as_plain "$FAKE_DIR/nvcc" -c k.cu -o k.o
	"$KS_BIN" builds --json >out.json 2>err.txt
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' out.json
	expect_eq "" "$(cat err.txt)"
	"$KS_BIN" stats >/dev/null
}

test_stale_temporaries_are_swept_by_the_next_writer() {
	fake_twins
	(cd ks && "$KS_NVCC_BIN" -c k.cu -o k.o)
	b=$KS_DIR/builds
	old="$b/a.json.tmp.12345.0.1700000000 $KS_DIR/stats.tmp.999.1.1700000000"
	for f in $old; do echo partial >"$f"; touch -d '2 hours ago' "$f"; done
	echo partial >"$b/b.json.tmp.4242.0.1800000000"	# young: may be a live writer
	echo mine >"$b/notes.tmp.txt"; touch -d '2 hours ago' "$b/notes.tmp.txt"
	# The sweep ran an instant ago: the next writers only stat the mark.
	(cd ks && "$KS_NVCC_BIN" -c k.cu -o k.o)
	for f in $old; do expect_file "$f"; done
	# An hour later, the next writer in each directory sweeps it.
	touch -d '61 minutes ago' "$b/.ks-swept" "$KS_DIR/.ks-swept"
	(cd ks && "$KS_NVCC_BIN" -c k.cu -o k.o)
	for f in $old; do expect_no_file "$f"; done
	expect_file "$b/b.json.tmp.4242.0.1800000000"
	expect_file "$b/notes.tmp.txt"
}

# --- ks on damaged state -----------------------------------------------------

test_ks_analyze_refuses_bad_arch_and_directories() {
	write_kernel k.cu
	set +e
	"$KS_BIN" analyze k.cu --arch garbage >out.txt 2>err.txt
	status=$?
	set -e
	expect_eq 104 "$status" "exit status"
	expect_contains "$(cat err.txt)" "--arch 'garbage' is not an arch"
	mkdir adir
	set +e
	"$KS_BIN" analyze adir >out.txt 2>err.txt
	status=$?
	set -e
	expect_eq 105 "$status" "exit status"
	expect_contains "$(cat err.txt)" "'adir' is a directory, not a source file"
	set +e
	"$KS_BIN" analyze missing.cu >out.txt 2>err.txt
	set -e
	expect_contains "$(cat err.txt)" "cannot read 'missing.cu'"
}

test_ks_captures_names_corrupt_captures() {
	mkdir -p "$KS_DIR/captures/k/1" "$KS_DIR/captures/k/2"
	echo '{"format": 1, "kernel": ' >"$KS_DIR/captures/k/1/launch.json"
	# captures/k/2 has no launch.json: unfinished, not reported.
	"$KS_BIN" captures >out.txt 2>err.txt
	expect_contains "$(cat err.txt)" "skipping unreadable capture '$KS_DIR/captures/k/1'"
	expect_not_contains "$(cat err.txt)" "captures/k/2"
}

# --- with the real nvcc -------------------------------------------------------

test_real_nvcc_with_fifos_and_garbage_everywhere() {
	have_real_nvcc || skip_test "no real nvcc"
	twins
	nvcc=$(real_nvcc)
	export KS_NVCC=$nvcc
	(cd ks && "$KS_NVCC_BIN" -arch=sm_90 -c k.cu -o k.o)
	replace_state_files fifo
	mkfifo "$KS_DIR/ks.conf"
	same_as_plain "$nvcc" -arch=sm_90 -c k.cu -o k.o
	# A compile nvcc refuses: same status and the same message.
	echo 'this is not cuda' >>plain/k.cu
	echo 'this is not cuda' >>ks/k.cu
	rm -f plain/k.o ks/k.o
	same_as_plain "$nvcc" -arch=sm_90 -c k.cu -o k.o
}

test_real_nvcc_after_a_sigkill_storm() {
	have_real_nvcc || skip_test "no real nvcc"
	twins
	nvcc=$(real_nvcc)
	export KS_NVCC=$nvcc
	local i
	for i in $(seq 1 20); do
		(cd ks && exec setsid "$KS_NVCC_BIN" -arch=sm_90 -c k.cu -o k.o) &
		pid=$!
		sleep "0.0$((i % 5))"
		# The whole group: no orphaned cicc or ptxas writes later.
		kill -9 -- -$pid 2>/dev/null || kill -9 $pid 2>/dev/null || true
		wait $pid 2>/dev/null || true
	done
	rm -f ks/k.o
	same_as_plain "$nvcc" -arch=sm_90 -c k.cu -o k.o
	expect_eq 1 "$(record_count)"
}
