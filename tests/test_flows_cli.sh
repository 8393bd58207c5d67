#!/usr/bin/env bash
# Flows real crowds keep up, through the command line: counter-flow between two halls through
# corridors 2 and 3 m wide (balanced, a minority, and the one-way run of as many walkers), a
# door with one walker coming in against a hundred going out, one door drawn four ways (a thin
# wall, a 0.3 m wall, a 2 m bottleneck, the exit itself) at map cells of 0.05 to 0.5 m, a
# T-junction and a corner. Each case is a scene written by tests/flow_cases.py (its criteria
# and their derivation are there and in docs/pedestrians.md), run as
#
#   throng run SCENE --headless --validate --threads 1 --seed S --json J --measure M
#
# and judged from J and M: everyone out within the bound, nobody stalled at the end, no overlap
# beyond the validation bound (--validate stops the run, exit 1); then across cases: counter-flow
# at least 70 % of the one-way flow and a minority no dearer than a balanced split, the door's
# outflow losing at most 15 % to the walker coming in, one door's flow the same within 15 % over
# its short drawings (thin wall, 0.3 m wall, the exit itself), cells and seeds where it is at
# least two cells wide, and a 2 m long bottleneck carrying 75 to 110 % of the thin-wall door's
# flow. A table of the measured values closes the output.
#
# usage: test_flows_cli.sh path/to/throng [--quick] [CASE...]
#   --quick   one small case per family (the sanitizer builds)
#   CASE...   only these (names from `tests/flow_cases.py list`)
set -u
. "$(dirname "$0")/lib.sh"

bin=${1:?usage: test_flows_cli.sh path/to/throng [--quick] [CASE...]}
shift
need_executable "$bin"
need python3 "to write the scenes and read the results"
gen="$(cd "$(dirname "$0")" && pwd)/flow_cases.py"

quick=
if [[ ${1:-} == --quick ]]; then
    quick=--quick
    shift
fi
if [[ $# -gt 0 ]]; then cases=("$@")
else mapfile -t cases < <(python3 "$gen" list $quick); fi

# Each case runs on one thread; the cases run side by side, one per core (THRONG_TEST_JOBS to
# choose), and are judged in order afterwards. A case runs for minutes of simulated time: give
# it more than lib.sh's 300 s under sanitizers.
jobs=${THRONG_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
run_one() { # CASE: its exit code in $tmp/CASE.rc
    local c=$1 extra
    read -r -a extra < <(python3 "$gen" args "$c")
    timeout 1800 "$bin" run "$tmp/$c.yaml" --headless --validate --threads 1 "${extra[@]}" \
        --json "$tmp/$c.json" --measure "$tmp/$c.csv" >"$tmp/$c.out" 2>&1
    echo $? >"$tmp/$c.rc"
}
export -f run_one
export bin gen tmp

: >"$tmp/results"
ok_cases=()
for c in "${cases[@]}"; do
    if ! python3 "$gen" scene "$c" >"$tmp/$c.yaml" 2>"$tmp/err"; then
        fail "$c" "no such case"
        continue
    fi
    ok_cases+=("$c")
done
printf '%s\n' "${ok_cases[@]}" | xargs -P "$jobs" -I{} bash -c 'run_one "$@"' _ {}
for c in "${ok_cases[@]}"; do
    rc=$(cat "$tmp/$c.rc" 2>/dev/null || echo 125)
    if [[ $rc -ne 0 ]]; then
        fail "$c" "throng run exit $rc (1: an invariant broke, e.g. bodies overlapping)"
        echo "{\"case\": \"$c\", \"verdict\": \"FAIL: exit $rc\"}" >>"$tmp/results"
        continue
    fi
    if python3 "$gen" check "$c" "$tmp/$c.json" "$tmp/$c.csv" >"$tmp/line"; then
        pass "$c: $(cat "$tmp/line")"
    else
        fail "$c" "$(cat "$tmp/line")"
    fi
    cat "$tmp/line" >>"$tmp/results"
    rm -f "$tmp/$c.csv"
done

# Across cases: counter-flow against one-way, the door both ways, one door's drawings.
if python3 "$gen" compare "$tmp/results" >"$tmp/line"; then
    pass "across cases"
else
    fail "across cases" "see below"
fi
cat "$tmp/line"

echo
echo "measured (bound and times in s, flows in persons/s)"
python3 - "$tmp/results" <<'EOF'
import json, sys
cols = ["case", "n", "left", "bound_s", "all_out_s", "flow", "flow_before", "in_at_s", "verdict"]
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
print(" | ".join(cols))
for r in rows:
    print(" | ".join("-" if r.get(c) is None else str(r.get(c)) for c in cols))
EOF
finish
