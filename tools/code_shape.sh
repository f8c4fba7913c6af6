#!/bin/sh
# SPDX-License-Identifier: MIT
# The shape of the production code (common/ format/ record/ report/):
# files over MAX_FILE lines and functions over MAX_FN lines, longest first.
#
#   tools/code_shape.sh            list what is over the limits (exit 1 if any)
#   tools/code_shape.sh --top N    the N longest functions and files, whatever their length
#
# A function is counted from the line of its name to its closing brace at
# column 0 (the tree's style: the opening brace of a function alone on its
# line at column 0). MAX_FILE and MAX_FN come from the environment
# (default 800 and 100: docs/ARCHITECTURE.md, "Shape").
MAX_FILE=${MAX_FILE:-800}
MAX_FN=${MAX_FN:-100}
cd "$(dirname "$0")/.." || exit 2
files=$(find common format record report -name '*.[ch]' | sort)
top=0
[ "$1" = --top ] && top=${2:-10}

functions() { # LIMIT: "LINES FILE:LINE NAME" for functions longer than LIMIT
	# shellcheck disable=SC2086
	awk -v lim="$1" '
	FNR == 1 { sig = ""; open = 0 }
	/^[A-Za-z_].*\(/ && !open { sig = $0; sigline = FNR }
	/^\{/ && sig != "" { open = 1 }
	/^\}/ && open {
		n = FNR - sigline + 1
		name = sig; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name)
		if (n > lim) printf "%d %s:%d %s()\n", n, FILENAME, sigline, name
		open = 0; sig = ""
	}' $files | sort -rn
}

if [ "$top" -gt 0 ]; then
	echo "longest functions:"; functions 0 | head -n "$top"
	echo "longest files:"; wc -l $files | grep -v ' total$' | sort -rn | head -n "$top"
	exit 0
fi
over=0
long_files=$(wc -l $files | grep -v ' total$' | awk -v m="$MAX_FILE" '$1 > m')
long_fns=$(functions "$MAX_FN")
if [ -n "$long_files" ]; then
	echo "files over $MAX_FILE lines:"; echo "$long_files"; over=1
fi
if [ -n "$long_fns" ]; then
	echo "functions over $MAX_FN lines:"; echo "$long_fns"; over=1
fi
[ $over -eq 0 ] && echo "no file over $MAX_FILE lines, no function over $MAX_FN lines"
exit $over
