#!/usr/bin/env bash
# The man pages (docs/man/*.1): every command has one, each renders with
# man -l without warnings, with the sections a manual needs, and lists
# exactly the options of its command's --help (both ways: an option added to
# an option table without its page, or a page that names an option the
# command does not have, fails); make install PREFIX=... installs them all.
. tests/e2e/lib/common.sh
trap 'rm -rf "$d"' EXIT
command -v man >/dev/null || { echo "man is not installed (make deps installs man-db)"; exit 77; }

# page: the command line whose --help is its option table
declare -A CMD=(
	[prec]="prec" [prec-stat]="prec stat" [prec-list]="prec list" [prec-top]="prec top"
	[prep]="prep report" [prep-script]="prep script" [prep-export]="prep export"
	[prep-flamegraph]="prep flamegraph" [prep-archive]="prep archive" [prep-annotate]="prep annotate"
	[prep-dump]="prep dump" [prep-stat-report]="prep stat report"
)

# every prep command of 'prep help' has its page (stat: prep-stat-report)
for c in $($PREP help | sed -n '/^The prep commands are:/,/^$/p' | sed -nE 's/^   ([a-z]+) .*/\1/p'); do
	case $c in help) continue ;; report) p=prep ;; stat) p=prep-stat-report ;; *) p=prep-$c ;; esac
	[ -n "${CMD[$p]:-}" ] || fail "prep $c has no man page in this test's list"
done
for p in "${!CMD[@]}"; do
	[ -f "docs/man/$p.1" ] || fail "docs/man/$p.1 is missing"
done
for f in docs/man/*.1; do
	p=$(basename "$f" .1)
	[ -n "${CMD[$p]:-}" ] || fail "$f: no command for this page"
done

# option names (-x, --long) from the tag part of option lines: up to two spaces
names() {
	sed -E 's/^ +//; s/  .*//' | grep -oE -- '(^|[ ,])--?[A-Za-z0-9][a-z0-9-]*' |
		sed -E 's/^[ ,]//; s/\[no-\]//' | sort -u
}

for p in "${!CMD[@]}"; do
	f=docs/man/$p.1
	[ -f "$f" ] || continue
	LC_ALL=C MANWIDTH=200 man --warnings -l "$f" >"$d/$p.txt" 2>"$d/$p.warn" </dev/null ||
		fail "$p: man -l failed: $(head -3 "$d/$p.warn")"
	[ -s "$d/$p.warn" ] && fail "$p: warnings: $(head -3 "$d/$p.warn")"
	for s in NAME SYNOPSIS DESCRIPTION OPTIONS EXAMPLES "EXIT STATUS" FILES ENVIRONMENT \
		 "DIFFERENCES FROM PERF" "SEE ALSO"; do
		grep -q "^$s\$" "$d/$p.txt" || fail "$p: no $s section"
	done
	# the OPTIONS section: tags are indented 7 columns (a subsection title 3)
	sed -n '/^OPTIONS$/,/^[A-Z]/p' "$d/$p.txt" | grep -E '^       -' | names >"$d/$p.man"
	bin=${CMD[$p]%% *}; sub=${CMD[$p]#"$bin"}
	exe=$PREP; [ "$bin" = prec ] && exe=$PREC
	# shellcheck disable=SC2086
	$exe $sub --help | grep -E '^ {4,8}-' | names >"$d/$p.help"
	[ -s "$d/$p.help" ] || fail "$p: no options in ${CMD[$p]} --help"
	only_help=$(comm -23 "$d/$p.help" "$d/$p.man" | tr '\n' ' ')
	only_man=$(comm -13 "$d/$p.help" "$d/$p.man" | tr '\n' ' ')
	[ -z "$only_help" ] || fail "$p: options of ${CMD[$p]} --help missing from the page: $only_help"
	[ -z "$only_man" ] || fail "$p: options on the page that ${CMD[$p]} does not have: $only_man"
done

# make install puts the binaries and every page in place
make -s install PREFIX="$d/inst" >"$d/install.log" 2>&1 || fail "make install: $(tail -3 "$d/install.log")"
for b in prec prep; do
	[ -x "$d/inst/bin/$b" ] || fail "make install: no bin/$b"
done
for f in docs/man/*.1; do
	cmp -s "$f" "$d/inst/share/man/man1/$(basename "$f")" || fail "make install: $(basename "$f") not installed"
done
MANPATH="$d/inst/share/man" LC_ALL=C man -w prep-export >/dev/null 2>&1 ||
	fail "man does not find prep-export under PREFIX/share/man"

[ "$failures" -eq 0 ] || { echo "$failures failures"; exit 1; }
echo ok
