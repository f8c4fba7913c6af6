# Sourced by end-to-end tests that look at or edit a prec.data file's
# blocks (after common.sh, from the top of the tree):
#   blocks FILE          "OFFSET TYPE" lines, one per block (prep dump)
#   flip FILE OFFSET     one byte of the file changed
#   damaged FILE TYPE    cut.data (FILE's first two thirds), badblock.data
#                        (a byte of its block of TYPE changed) and
#                        baddata.data (a byte of its first DATA block)
#   E2E_LIB              this folder, for python3 edits that import
#                        prec_blocks (its blocks() and fix())
E2E_LIB=$PWD/tests/e2e/lib
export E2E_LIB

blocks() {
	$PREP -D -i "$1" 2>/dev/null | sed -nE 's/^block [0-9]+ @([0-9]+): ([A-Z_]+),.*/\1 \2/p'
}

flip() {
	python3 -c 'import sys
p, o = sys.argv[1], int(sys.argv[2])
b = bytearray(open(p, "rb").read()); b[o] ^= 0x5a; open(p, "wb").write(b)' "$1" "$2"
}

damaged() {
	head -c $(($(stat -c %s "$1") * 2 / 3)) "$1" >cut.data
	cp "$1" badblock.data
	flip badblock.data $(($(blocks "$1" | awk -v t="$2" '$2 == t { print $1 }') + 40))
	cp "$1" baddata.data
	flip baddata.data $(($(blocks "$1" | awk '$2 == "DATA" { print $1; exit }') + 60))
}
