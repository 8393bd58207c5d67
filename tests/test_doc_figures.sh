#!/usr/bin/env bash
# Figures quoted in README.md and docs/ants.md against a fresh run of the commands that gave
# them (tests/doc_figures.py says which): a change that moves one fails here until the
# document is brought up to date.
#
#   test_doc_figures.sh path/to/throng SOURCE_DIR
set -u
[[ $# -eq 2 ]] || { echo "usage: $0 path/to/throng SOURCE_DIR" >&2; exit 2; }
bin=$1
src=$2
. "$(dirname "$0")/lib.sh"
need python3 "to run tests/doc_figures.py"
if python3 "$src/tests/doc_figures.py" "$bin" "$src" >"$tmp/out" 2>"$tmp/err"; then
    pass "quoted figures match a fresh run"
else
    fail "quoted figures" "a figure in the documentation differs from a fresh run"
fi
finish
