#!/bin/sh
# The word counter of git-compare.yaml, standing in for the reference's
# examples/tools/wordcount (a Go program): counts the lines, words and bytes
# of its stdin; with -gen N -o FILE it writes N lines of words to FILE.
set -eu
if [ "${1:-}" = -gen ]; then
	seq 1 "$2" | sed 's/$/ lorem ipsum dolor sit amet/' >"$4"
	exit 0
fi
exec wc
