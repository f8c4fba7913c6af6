#!/bin/bash
# The code keeps the shape docs/ARCHITECTURE.md describes: no production file
# over 800 lines or function over 100 (tools/code_shape.sh), every folder the
# document names exists and every folder of report/ is named there, and
# common/banned.h turns the banned calls into compile errors.
. tests/e2e/lib/common.sh
trap 'rm -rf "$d"' EXIT

tools/code_shape.sh >"$d/shape" || { fail "code shape:"; cat "$d/shape"; }

doc=docs/ARCHITECTURE.md
[ -f $doc ] || fail "$doc is missing"
named=$(grep -oE '`(common|format|record|report|tests|tools|docs)(/[a-z_]+)*/`' $doc | tr -d '`' | sort -u)
[ -n "$named" ] || fail "$doc names no folder"
for f in $named; do
	[ -d "$f" ] || fail "$doc names $f, which does not exist"
done
for f in report/*/; do
	grep -qF "\`$f\`" $doc || fail "$doc does not say what $f is for"
done

# each banned call fails to compile; the same code with its replacement compiles
banned_ok=0
for call in 'strcpy(b, s)' 'strcat(b, s)' 'sprintf(b, "%s", s)' 'strtok(b, s)' 'gets(b)' \
	    'realloc(b, 8)'; do
	printf '#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\nvoid *f(char *b, const char *s);\nvoid *f(char *b, const char *s) { (void)s; return (void *)%s; }\n' \
		"$call" >"$d/b.c"
	if ${CC:-cc} -std=gnu11 -D_GNU_SOURCE -I. -include common/banned.h -c "$d/b.c" -o "$d/b.o" 2>/dev/null; then
		fail "common/banned.h lets $call compile"
	else
		banned_ok=$((banned_ok + 1))
	fi
done
printf '#include <stdio.h>\nint f(char *b, const char *s);\nint f(char *b, const char *s) { return snprintf(b, 8, "%%s", s); }\n' >"$d/ok.c"
${CC:-cc} -std=gnu11 -D_GNU_SOURCE -I. -include common/banned.h -c "$d/ok.c" -o "$d/ok.o" ||
	fail "common/banned.h refuses snprintf"

[ $failures -eq 0 ] && echo "code shape as documented; $banned_ok banned calls refused"
exit $((failures > 0))
