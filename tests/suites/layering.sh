# layering: every #include of src/ and wrapper/ points downward and is on
# its header's "May include:" line (tests/check-includes.sh); the checker
# itself catches an include that breaks the rules.

test_every_include_is_allowed() {
	bash "$ROOT/tests/check-includes.sh" >out.txt || { cat out.txt; fail "layering violated"; }
	expect_contains "$(cat out.txt)" " 0 violations"
}

test_the_checker_catches_an_upward_include() {
	# A copy of the tree with core/ including a module above it.
	mkdir tree
	cp -R "$ROOT/src" "$ROOT/wrapper" "$ROOT/tests" tree/
	printf '#include "../review/reviewer.h"\n' >>tree/src/core/hash.c
	printf '#include "../cache/key.h"\n' >>tree/src/nvcc/arch.h
	set +e
	bash tree/tests/check-includes.sh >out.txt
	status=$?
	set -e
	expect_eq 1 "$status"
	expect_contains "$(cat out.txt)" "src/core/hash.c"
	expect_contains "$(cat out.txt)" "may not include src/review/reviewer.h"
	expect_contains "$(cat out.txt)" "src/nvcc/arch.h"
	expect_contains "$(cat out.txt)" "2 violations"
}
