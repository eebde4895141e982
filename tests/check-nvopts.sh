#!/bin/sh
#
# Compare src/nvcc/nvopts.c's option table with `nvcc --help` of the nvcc on
# PATH (or $NVCC): every option's long name, short name and whether it
# takes a value. Prints the differences and exits 1 when they disagree;
# exits 0 with "skip: ..." when nvcc or a C compiler is missing.
#
# The table was taken from nvcc 13.0.88. After an nvcc upgrade, run this,
# then add or fix the rows in src/nvcc/nvopts.c by hand (and decide their
# flags: see src/nvcc/nvopts.h).
#
# Usage: tests/check-nvopts.sh
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
nvcc=${NVCC:-nvcc}
cc=${CC:-cc}

if ! command -v "$nvcc" >/dev/null 2>&1; then
	echo "skip: nvcc not found"
	exit 0
fi
if ! command -v "$cc" >/dev/null 2>&1; then
	echo "skip: no C compiler ($cc) to read the table"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/check-nvopts.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

cat >"$tmp/dump.c" <<'EOF'
#include <stdio.h>

#include "nvopts.h"

int
main(void)
{
	size_t n, i;
	const struct ks_nvopt *t = ks_nvopt_table(&n);

	for (i = 0; i < n; i++)
		printf("%s %s %s\n", t[i].name,
		       t[i].short_name ? t[i].short_name : "-",
		       t[i].flags & KS_NVOPT_TAKES_ARG ? "arg" : "flag");
	return 0;
}
EOF
if ! "$cc" -std=c11 -D_DEFAULT_SOURCE -I"$top/src/nvcc" -o "$tmp/dump" \
	"$tmp/dump.c" "$top/src/nvcc/nvopts.c"; then
	echo "error: cannot build the table dumper" >&2
	exit 1
fi
"$tmp/dump" | LC_ALL=C sort >"$tmp/table"

# --help rows read "--long <value>,...    (-short)"; a row without a short
# name repeats the long one. dependency-output (-MF) and qpp-config take a
# value that --help does not show.
"$nvcc" --help | awk '
/^--[^ ]/ {
	long = substr($1, 3)
	last = $NF
	short = "-"
	if (last ~ /^\(-.*\)$/)
		short = substr(last, 3, length(last) - 3)
	kind = "flag"
	if ($0 ~ /^--[^ ]+ +[<{[]/ || $0 ~ /^--[^ ]+ +[^ (]+,\.\.\./)
		kind = "arg"
	if (long == "dependency-output" || long == "qpp-config")
		kind = "arg"
	print long, short, kind
}' | LC_ALL=C sort >"$tmp/help"

if ! [ -s "$tmp/help" ]; then
	echo "error: '$nvcc --help' listed no options" >&2
	exit 1
fi
version=$("$nvcc" --version | sed -n 's/.*release [0-9.]*, V\([0-9.]*\).*/\1/p')
if ! diff -u "$tmp/table" "$tmp/help" >"$tmp/diff"; then
	echo "src/nvcc/nvopts.c (-) differs from nvcc $version --help (+):"
	sed '1,2d' "$tmp/diff"
	exit 1
fi
echo "ok: $(wc -l <"$tmp/table" | tr -d ' ') options match nvcc $version"
