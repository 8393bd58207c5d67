#!/usr/bin/env bash
# The layer rule (tests/layers.py): the sources keep it, an upward include planted in them is
# refused, and so is a listed exception whose include is gone.
#
# usage: test_layers.sh SOURCE_ROOT
set -u
. "$(dirname "$0")/lib.sh"
root=${1:?usage: test_layers.sh SOURCE_ROOT}
need python3 "to read the includes"
check="$root/tests/layers.py"

python3 "$check" "$root" >"$tmp/out" 2>"$tmp/err"
[[ $? -eq 0 ]] && pass "the sources keep the layer rule" || fail "the sources keep the layer rule" "see below"
python3 "$check" "$root" --plant=sim/core/world.h:app/app.h >"$tmp/out" 2>"$tmp/err"
[[ $? -eq 1 ]] && grep -q '^sim/core/world.h includes app/app.h: app is above sim/core' "$tmp/out" &&
    pass "an upward include is refused, named" || fail "an upward include is refused, named" "exit or message"
python3 "$check" "$root" --plant=engine/grid.h:sim/nav/nav.h >"$tmp/out" 2>"$tmp/err"
[[ $? -eq 1 ]] && pass "engine including navigation is refused" ||
    fail "engine including navigation is refused" "exit $?"
# The step sits above the models and the ranks: the world's data may not reach up into it.
python3 "$check" "$root" --plant=sim/core/agents.c:sim/step/step.c >"$tmp/out" 2>"$tmp/err"
[[ $? -eq 1 ]] && grep -q '^sim/core/agents.c includes sim/step/step.c: sim/step is above sim/core' "$tmp/out" &&
    pass "the world's data including the step is refused" ||
    fail "the world's data including the step is refused" "exit or message"
# A copy of the rule's ledger with a line whose include does not exist.
mkdir -p "$tmp/tree/tests" "$tmp/tree/engine" "$tmp/tree/app"
printf '#include "engine/a.h"\n' >"$tmp/tree/app/x.c"
printf '/* nothing */\n' >"$tmp/tree/engine/a.h"
printf 'app/x.c engine/a.h\n' >"$tmp/tree/tests/layers_allowed.txt"
python3 "$check" "$tmp/tree" >"$tmp/out" 2>"$tmp/err"
[[ $? -eq 1 ]] && grep -q 'no longer does: remove the line' "$tmp/out" &&
    pass "a listed exception that is gone must be removed" ||
    fail "a listed exception that is gone must be removed" "accepted"
finish
