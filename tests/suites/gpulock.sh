# gpulock: `ks gpu-lock -- CMD` and the KS_GPU_LOCK setting: a command
# with the GPU to itself, in turn with other holders of the same lock, and
# nested ks that take the held lock as their own.

# Seconds (with decimals) that `ks gpu-lock -- true` waited, run while
# another holder sleeps $1 seconds; extra environment in "$@".
waited() {
	local hold=$1 t0 t1
	shift
	env "$@" "$KS_BIN" gpu-lock -- sh -c 'touch started; sleep '"$hold" &
	while [ ! -e started ]; do sleep 0.05; done
	t0=$(date +%s%N)
	env "$@" "$KS_BIN" gpu-lock -- true
	t1=$(date +%s%N)
	wait
	rm -f started
	echo $(((t1 - t0) / 1000000))
}

test_status_and_held_lock_name() {
	mkdir -p "$KS_DIR"
	set +e
	out=$("$KS_BIN" gpu-lock -- sh -c 'echo "$KS_GPU_LOCK_HELD"; exit 3')
	status=$?
	set -e
	expect_eq 3 "$status"
	expect_eq "$KS_DIR/gpu" "$out"
	set +e
	"$KS_BIN" gpu-lock -- sh -c 'kill -TERM $$'
	status=$?
	"$KS_BIN" gpu-lock 2>err.txt
	ustatus=$?
	set -e
	expect_eq 143 "$status"
	expect_eq 104 "$ustatus"
	expect_contains "$(cat err.txt)" "usage: ks gpu-lock"
}

test_each_gpu_its_own_lock() {
	mkdir -p "$KS_DIR"
	# Two holders on GPU 1 take turns...
	ms=$(waited 1.5 CUDA_VISIBLE_DEVICES=1)
	[ "$ms" -ge 1000 ] || fail "two holders of GPU 1 overlapped ($ms ms)"
	# ... one on GPU 1 and one on GPU 0 do not wait for each other.
	CUDA_VISIBLE_DEVICES=1 "$KS_BIN" gpu-lock -- sh -c 'echo "$KS_GPU_LOCK_HELD" >held; sleep 1.5' &
	while [ ! -s held ]; do sleep 0.05; done
	expect_eq "$KS_DIR/gpu.1" "$(cat held)"
	t0=$(date +%s%N)
	CUDA_VISIBLE_DEVICES=0 "$KS_BIN" gpu-lock -- true
	t1=$(date +%s%N)
	wait
	ms=$(((t1 - t0) / 1000000))
	[ "$ms" -lt 1000 ] || fail "GPU 0 waited $ms ms for GPU 1's holder"
}

test_holders_take_turns() {
	mkdir -p "$KS_DIR"
	ms=$(waited 1.5)
	[ "$ms" -ge 1000 ] || fail "the second holder waited only $ms ms"
}

test_nested_ks_takes_the_held_lock() {
	mkdir -p "$KS_DIR"
	# Without the held lock, the inner one would wait for the outer.
	timeout 20 "$KS_BIN" gpu-lock -- "$KS_BIN" gpu-lock -- true ||
		fail "a nested gpu-lock did not go through"
	# A shared holder lends nothing: a measurement under it waits.
	out=$("$KS_BIN" gpu-lock --shared -- sh -c 'echo "[$KS_GPU_LOCK_HELD]"')
	expect_eq "[]" "$out"
}

test_one_lock_across_state_directories() {
	mkdir -p a b "$KS_DIR"
	# Each KS_DIR its own lock by default: no waiting...
	"$KS_BIN" gpu-lock -- sh -c 'touch started; sleep 1.5' &
	while [ ! -e started ]; do sleep 0.05; done
	t0=$(date +%s%N)
	KS_DIR=$PWD/b "$KS_BIN" gpu-lock -- true
	t1=$(date +%s%N)
	wait
	rm -f started
	[ $(((t1 - t0) / 1000000)) -lt 1000 ] || fail "two state directories shared a lock"
	# ...and one KS_GPU_LOCK for both: turns.
	KS_DIR=$PWD/a KS_GPU_LOCK=$PWD/common "$KS_BIN" gpu-lock -- sh -c 'touch started; sleep 1.5' &
	while [ ! -e started ]; do sleep 0.05; done
	t0=$(date +%s%N)
	KS_DIR=$PWD/b KS_GPU_LOCK=$PWD/common "$KS_BIN" gpu-lock -- true
	t1=$(date +%s%N)
	wait
	[ $(((t1 - t0) / 1000000)) -ge 1000 ] || fail "KS_GPU_LOCK did not make them take turns"
	expect_contains "$(KS_GPU_LOCK=$PWD/common "$KS_BIN" config)" \
		"gpu_lock       = $PWD/common  (environment: KS_GPU_LOCK)"
}
