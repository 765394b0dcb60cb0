#!/bin/sh
# The hyperfine invocation of the harness tests (tests/unit/test_harness_tools.c
# runs it; export.json is its recorded output): two commands, one named, each
# run 5 times after a warmup, without a shell. Usage: run.sh OUTPUT.json
exec hyperfine -N --style none --runs 5 --warmup 1 --export-json "$1" \
	-n sleep-1ms 'sleep 0.001' 'true'
