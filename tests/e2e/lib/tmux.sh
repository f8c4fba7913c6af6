# Screens of the tmux tests (prep_browser.sh, prec_top_tui.sh). Needs $TM
# (the tmux command with the test's own socket) and $d (its folder).

# shot SESSION: the session's screen as text
shot() { $TM capture-pane -p -t "$1"; }

# screen_is SESSION TEST...: the screen into $d/scr and TEST run on it
# (stdin); true when TEST succeeds on a screen that a second capture 20 ms
# later finds the same: a capture can catch tmux in the middle of a redraw
# (the new title over the old rows)
screen_is() {
	local s=$1
	shift
	shot "$s" >"$d/scr" 2>/dev/null
	"$@" <"$d/scr" || return 1
	sleep 0.02
	shot "$s" >"$d/scr2" 2>/dev/null
	cmp -s "$d/scr" "$d/scr2"
}
