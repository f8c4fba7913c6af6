#!/usr/bin/env bash
# Checks tests/programs/PROFILES.md against the real perf: records each
# program with `perf record -F 999 -g` (its command from the "Command:" line of
# its section), measures every table row the way PROFILES.md says, and prints
# the row with perf's figure and "ok" (within TOL points of DESIGN) or "OFF".
#   usage: tests/programs/perf_check.sh [PROG...]     (default: all four)
# Not part of `make test` (it needs perf); exit 1 if any row is OFF.
set -u
cd "$(dirname "$0")/../.." || exit 1
B=${BUILD:-build}
MD=${PROFILES:-tests/programs/PROFILES.md}
TOL=${TOL:-2}
command -v perf >/dev/null || { echo "no perf"; exit 77; }
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
bad=0

# the command of PROG: the first "Command: `...`" in its "## PROG" section
command_of() {
	awk -v p="$1" '/^## / { in_s = ($2 == p) } in_s && /^Command: `/ {
		split($0, q, "`"); print q[2]; exit }' "$MD"
}

# pct LIST NAME: the percentage of NAME in a report listing of "PCT NAME" lines
pct() { awk -v n="$2" '$2 == n { v = $1 } END { sub(/%/, "", v); printf "%.2f", v + 0 }' "$1"; }

# user-space call chains, root first, from main or thread_main down; one a line
fold() {
	perf script -i "$1" -F ip,sym,dso 2>/dev/null | awk '
	function flush(   s, i, r) {
		if (n == 0) return
		s = ""; r = 0
		for (i = n; i >= 1; i--) {
			if (f[i] == "main" || f[i] == "thread_main") { s = ""; r = 1 }
			if (r) s = s (s == "" ? "" : ";") f[i]
		}
		print (s == "" ? "?" : s); n = 0
	}
	/^[[:space:]]*$/ { flush(); next }
	{ if ($NF ~ /kernel/) next; f[++n] = $2 }
	END { flush() }'
}

for prog in ${@:-tree inl threads forker}; do
	cmd=$(command_of "$prog")
	[ -n "$cmd" ] || { echo "$prog: no Command in $MD"; bad=1; continue; }
	data=$d/$prog.data
	perf record -F 999 -g -o "$data" -- $cmd >/dev/null 2>"$d/err" || {
		echo "$prog: perf record failed: $(cat "$d/err")"; bad=1; continue; }
	rep() { perf report -i "$data" --stdio "$@" -g none 2>/dev/null | grep '%'; }
	rep --no-children --sort sym | awk '$2 == "[.]" || $2 == "[k]" { print $1, $3 }' >"$d/self"
	rep --children --sort sym | awk '{ print $1, $4 }' >"$d/children"
	rep --no-children --sort comm | awk '{ print $1, $2 }' >"$d/comm"
	rep --no-children --sort dso | awk '{ print $1, $2 }' >"$d/dso"
	rep --no-children --sort pid | awk '{ split($2, a, ":"); print $1, a[1] }' >"$d/pid"
	rep --no-children --sort srcline | awk '{ print $1, $2 }' >"$d/srcline"
	fold "$data" >"$d/stacks"
	total=$(wc -l <"$d/stacks")
	parent=$(perf script -i "$data" --show-task-events 2>/dev/null |
		sed -n 's/.*PERF_RECORD_COMM exec: [^:]*:\([0-9]*\)\/.*/\1/p' | head -1)
	child=$(perf script -i "$data" --show-task-events 2>/dev/null |
		sed -n 's/.*PERF_RECORD_FORK(\([0-9]*\):.*/\1/p' | head -1)
	src=tests/programs/$prog.c
	exe=$(set -- $cmd; echo "$1")
	echo "== $prog: $cmd ($total samples)"
	grep "^| $prog | " "$MD" | while IFS='|' read -r _ _ what name design _; do
		what=${what// /}; name=${name// /}; design=${design// /}
		case $what in
		latency | level | level-latency) continue ;;       # perf 6.1 has no latency profile
		self | children | comm | dso) got=$(pct "$d/$what" "$name") ;;
		pid)
			[ "$name" = child ] && p=$child || p=$parent
			got=$(pct "$d/pid" "${p:-none}") ;;
		srcline)
			line=$(grep -n "${name}\b" "$src" | grep -v '^[0-9]*: \*' | head -1 | cut -d: -f1)
			got=$(pct "$d/srcline" "$(basename "$src"):$line") ;;
		stack)
			got=$(awk -v s="$name" -v t="$total" '$0 == s { c++ } END { printf "%.2f", 100 * c / t }' "$d/stacks") ;;
		edge)
			c=$(awk -v e=";${name/>/;};" 'index(";" $0 ";", e) { c++ } END { print c + 0 }' "$d/stacks")
			[ "$c" -gt 0 ] && got=yes || got=no ;;
		inline)
			# caller>inlined@MARK:label: some sampled address has inlined
			# inlined into caller at the label's line (addr2line -i -f)
			caller=${name%%>*}; rest=${name#*>}; inl=${rest%%@*}; mark=${rest#*@}
			line=$(grep -n "${mark}\b" "$src" | grep -v '^[0-9]*: \*' | head -1 | cut -d: -f1)
			perf script -i "$data" -F ip,sym 2>/dev/null | awk 'NF == 2 && prev == "" { print "0x" $1 } { prev = $0 }' |
				sort -u | head -200 >"$d/ips"
			addr2line -i -f -e "$exe" $(cat "$d/ips") >"$d/a2l"
			c=$(awk -v i="$inl" -v c="$caller" -v l=":$line" '
				NR % 2 == 1 { fn = $0; next }
				{ if (pf == i && fn == c && index($0, l) && substr($0, length($0) - length(l) + 1) == l) n++; pf = fn }
				END { print n + 0 }' "$d/a2l")
			[ "$c" -gt 0 ] && got=addr2line || got=no ;;
		*) got="?" ;;
		esac
		ok=ok
		case $design in
		yes) [ "$got" = no ] && ok=OFF ;;
		*) awk -v a="$design" -v b="$got" -v t="$TOL" 'BEGIN { d = a - b; exit !(d <= t && -d <= t) }' || ok=OFF ;;
		esac
		printf '| %s | %s | %s | %s | %s | %s\n' "$prog" "$what" "$name" "$design" "$got" "$ok"
		[ $ok = ok ] || echo OFF >>"$d/bad"
	done
done
[ -s "$d/bad" ] && bad=1
exit $bad
