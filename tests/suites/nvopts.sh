# nvopts: the option table covers exactly the options of the installed nvcc.

suite_probe() {
	have_real_nvcc || echo "nvcc is not available"
}

test_option_table_matches_nvcc_help() {
	PATH=$(dirname "$(real_nvcc)"):$PATH bash "$ROOT/tests/check-nvopts.sh"
}
