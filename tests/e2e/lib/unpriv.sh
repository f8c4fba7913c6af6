# Sourced by end-to-end tests that run prec as an unprivileged user and
# change perf_event_paranoid. Needs root; unpriv_init says why when it
# cannot work (the caller skips that part, or the test, with the reason).
#
#   unpriv_init DIR      creates the user (once per machine) and copies
#                        ./prec, ./prep and the test programs into DIR/bin,
#                        which that user can read; DIR/u is the user's own
#                        writable folder. Returns non-zero, with the reason
#                        in $unpriv_why, when it cannot.
#   as_user CMD...       runs CMD as that user (setpriv: no login, no tty),
#                        in DIR/u, with a plain environment
#   paranoid_set N       sets /proc/sys/kernel/perf_event_paranoid; the first
#                        call remembers the value to restore
#   paranoid_restore     puts the remembered value back; tests call it from
#                        their EXIT trap, and lib/unpriv.sh traps INT/TERM/HUP
#                        to exit through that trap
UNPRIV_USER=${UNPRIV_USER:-prec-test}
unpriv_dir=
unpriv_why=
paranoid_saved=

unpriv_init() {
	unpriv_dir=$1
	if [ "$(id -u)" -ne 0 ]; then unpriv_why="not root: cannot create a user"; return 1; fi
	command -v setpriv >/dev/null || { unpriv_why="no setpriv (util-linux)"; return 1; }
	if ! id "$UNPRIV_USER" >/dev/null 2>&1; then
		useradd --system --no-create-home --shell /usr/sbin/nologin "$UNPRIV_USER" 2>/dev/null ||
			{ unpriv_why="useradd $UNPRIV_USER failed"; return 1; }
	fi
	mkdir -p "$unpriv_dir/bin" "$unpriv_dir/u" || return 1
	# the test's own temporary folder (mode 700) must let the user through
	chmod o+x "$(dirname "$unpriv_dir")"
	chmod 755 "$unpriv_dir" "$unpriv_dir/bin"
	cp "$PREC" "$PREP" "$unpriv_dir/bin/" || return 1
	[ -d "${P:-}" ] && cp -r "$P" "$unpriv_dir/bin/programs"
	chmod -R a+rX "$unpriv_dir/bin"
	chown "$UNPRIV_USER" "$unpriv_dir/u"
	UPREC=$unpriv_dir/bin/prec UPREP=$unpriv_dir/bin/prep UP=$unpriv_dir/bin/programs
	trap 'exit 130' INT TERM HUP
	return 0
}

as_user() {
	(cd "$unpriv_dir/u" && env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$unpriv_dir/u" \
		LANG=C setpriv --reuid="$UNPRIV_USER" --regid="$UNPRIV_USER" --clear-groups \
		--inh-caps=-all --bounding-set=-all "$@")
}

paranoid_set() {
	[ -n "$paranoid_saved" ] || paranoid_saved=$(cat /proc/sys/kernel/perf_event_paranoid)
	echo "$1" >/proc/sys/kernel/perf_event_paranoid
}

paranoid_restore() {
	[ -n "$paranoid_saved" ] && echo "$paranoid_saved" >/proc/sys/kernel/perf_event_paranoid
	paranoid_saved=
}
