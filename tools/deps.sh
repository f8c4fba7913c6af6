#!/bin/sh
# Install the Debian packages prec/prep needs, if any is missing.
# As root: apt-get install. Otherwise: print the exact command to run.
# DEPS_EXTRA adds packages to the list (the tests use it).
set -e
PKGS="gcc make pkg-config zlib1g-dev libdeflate-dev libzstd-dev libelf-dev libdw-dev liblzma-dev libunwind-dev libcmocka-dev clang binutils linux-perf debuginfod libdebuginfod-dev golang-go python3-jsonschema chromium man-db sqlite3 xz-utils libcapstone-dev libncurses-dev tmux jq ${DEPS_EXTRA:-}"
missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done
# npm fetches speedscope's app for tests/e2e/prep_speedscope_app.sh; a
# Node.js of another origin (NodeSource's nodejs carries its own npm) counts
command -v npm >/dev/null 2>&1 || missing="$missing nodejs npm"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "missing packages:$missing" >&2
	echo "run: sudo apt-get update && sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq $missing >/dev/null
