#!/usr/bin/env bash
# Flows that must not gridlock, through the command line: counter-flow in corridors 2, 3 and
# 4 m wide, a 90-degree and a four-way crossing, and 100 walkers leaving a room by doors 0.5 to
# 2.4 m wide at map cells of 0.05 to 0.5 m. Each case is a scene written by
# tests/gridlock_cases.py (its criteria and their derivation are there and in
# docs/pedestrians.md), run as
#
#   throng run SCENE --headless --validate --threads 1 --seed S --json J --measure M
#
# and judged from J and M: everyone arrived within the bound, the lane order in the corridor's
# middle (counter-flow), the flow between the 10th and the 90th out rising with the door's
# width (sweep), no overlap beyond the validation bound (--validate stops the run, exit 1), and
# for counter-flow the same state hash at 2 threads. A table of the measured values closes the
# output.
#
# usage: test_gridlock_cli.sh path/to/throng [--quick] [CASE...]
#   --quick   one small case per family (the sanitizer builds)
#   CASE...   only these (names from `tests/gridlock_cases.py list`), e.g.
#             bash tests/test_gridlock_cli.sh build/release/throng cf_w4_p50_r2_s1
set -u
. "$(dirname "$0")/lib.sh"

bin=${1:?usage: test_gridlock_cli.sh path/to/throng [--quick] [CASE...]}
shift
need_executable "$bin"
need python3 "to write the scenes and read the results"
gen="$(cd "$(dirname "$0")" && pwd)/gridlock_cases.py"

quick=
if [[ ${1:-} == --quick ]]; then
    quick=--quick
    shift
fi
if [[ $# -gt 0 ]]; then cases=("$@")
else mapfile -t cases < <(python3 "$gen" list $quick); fi

# A case runs for minutes of simulated time: give it more than lib.sh's 300 s under sanitizers.
run_case() {
    timeout 1200 "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

: >"$tmp/results"
for c in "${cases[@]}"; do
    if ! python3 "$gen" scene "$c" >"$tmp/$c.yaml" 2>"$tmp/err"; then
        fail "$c" "no such case"
        continue
    fi
    read -r -a extra < <(python3 "$gen" args "$c")
    run_case run "$tmp/$c.yaml" --headless --validate --threads 1 "${extra[@]}" \
        --json "$tmp/$c.json" --measure "$tmp/$c.csv"
    if [[ $rc -ne 0 ]]; then
        fail "$c" "throng run exit $rc (1: an invariant broke, e.g. bodies overlapping)"
        echo "{\"case\": \"$c\", \"verdict\": \"FAIL: exit $rc\"}" >>"$tmp/results"
        continue
    fi
    : >"$tmp/out" # the verdict line says what failed; the run's report is in the JSON
    if python3 "$gen" check "$c" "$tmp/$c.json" "$tmp/$c.csv" >"$tmp/line"; then
        pass "$c: $(cat "$tmp/line")"
    else
        fail "$c" "$(cat "$tmp/line")"
    fi
    cat "$tmp/line" >>"$tmp/results"
    if [[ $c == cf_* ]]; then
        h1=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["hash"])' "$tmp/$c.json")
        run_case run "$tmp/$c.yaml" --headless --threads 2 "${extra[@]}" --json "$tmp/$c.2.json"
        h2=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["hash"])' "$tmp/$c.2.json" 2>/dev/null)
        if [[ $rc -eq 0 && $h1 == "$h2" ]]; then pass "$c: same hash at 1 and 2 threads"
        else fail "$c: same hash at 1 and 2 threads" "$h1 vs ${h2:-none} (exit $rc)"; fi
    fi
done

# The door sweep: flow against width at each cell size, where two or more widths ran.
if grep -q '"door_' "$tmp/results"; then
    python3 "$gen" sweep "$tmp/results" >"$tmp/line"
    src=$?
    if [[ $src -eq 2 ]]; then
        : # one width per cell size: nothing to compare
    elif [[ $src -eq 0 ]]; then
        pass "door flow rises with the width"
        cat "$tmp/line"
    else
        fail "door flow rises with the width" "('-': fewer than 90 left, no flow)"
        cat "$tmp/line"
    fi
fi

echo
echo "measured (bound and times in s, flow in persons/s, lanes: mean lane order in the middle)"
python3 - "$tmp/results" <<'EOF'
import json, sys
cols = ["case", "n", "left", "bound_s", "all_out_s", "flow", "lanes", "verdict"]
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
print(" | ".join(cols))
for r in rows:
    print(" | ".join("-" if r.get(c) is None else str(r.get(c)) for c in cols))
EOF
finish
