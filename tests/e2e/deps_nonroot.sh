#!/usr/bin/env bash
# make deps as a user who is not root: nothing is installed, the exact
# apt-get command for what is missing is printed, and the exit is non-zero.
set -u
command -v runuser >/dev/null || { echo "runuser not available"; exit 77; }
[ "$(id -u)" -eq 0 ] || { echo "needs root to switch to another user"; exit 77; }
# a copy that user can read wherever the checkout lives
script=$(mktemp)
trap 'rm -f "$script"' EXIT
cp tools/deps.sh "$script" && chmod 755 "$script"
out=$(cd / && DEPS_EXTRA=prec-no-such-package-xyz runuser -u nobody -- sh "$script" 2>&1)
rc=$?
[ $rc -ne 0 ] || { echo "FAIL: exit 0 with a missing package"; exit 1; }
grep -q "^missing packages: prec-no-such-package-xyz$" <<<"$out" || { echo "FAIL: $out"; exit 1; }
grep -q "^run: sudo apt-get update && sudo apt-get install -y prec-no-such-package-xyz$" <<<"$out" ||
	{ echo "FAIL: no exact command: $out"; exit 1; }
# nothing missing: silent success
out=$(cd / && runuser -u nobody -- sh "$script" 2>&1) || { echo "FAIL: $out"; exit 1; }
[ -z "$out" ] || { echo "FAIL: unexpected output: $out"; exit 1; }
echo "deps checks passed"
