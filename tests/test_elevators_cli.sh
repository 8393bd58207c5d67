#!/usr/bin/env bash
# Elevators as a user reaches them, through `throng run`, `throng check` and the scene file:
#
#   - the NIST 2.7 scene (scenes/verification/elevator.yaml): everyone rides down and leaves;
#     the report's `elevator` line and the JSON's `elevators` agree with the hand calculation
#     in the scene's header (2 trips, the last rider out at 72 s);
#   - the same state hash on 1, 2 and 3 threads;
#   - scene errors at their line and column, and the world's refusals at the elevator that
#     asked for them: a stop on a stair's seam (a landing, a flight's top row) among them.
#
# usage: test_elevators_cli.sh path/to/throng scenes/verification/elevator.yaml
set -u
. "$(dirname "$0")/lib.sh"

bin=${1:?usage: test_elevators_cli.sh path/to/throng path/to/elevator.yaml}
scene=${2:?usage: test_elevators_cli.sh path/to/throng path/to/elevator.yaml}
need_executable "$bin"
need python3 "to read the JSON back"

run run "$scene" --headless --threads 2 --json "$tmp/r.json"
if [[ $rc -ne 0 ]]; then
    fail "run the elevator scene" "exit code $rc"
else
    cp "$tmp/out" "$tmp/report"
    if python3 - "$tmp/r.json" "$tmp/report" >"$tmp/err" 2>&1 <<'PY'; then
import json, re, sys
j = json.load(open(sys.argv[1]))
(e,) = j["elevators"]
assert e["name"] == "car" and e["discharge"] == "ground", e
assert [s["level"] for s in e["stops"]] == ["ground", "first"], e
assert (e["trips"], e["carried"], e["riders"], e["waiting"]) == (2, 16, 0, 0), e
assert abs(e["last_out_s"] - 72.0) < 0.05, e
assert j["outcome"]["sheltered"] == 16, j["outcome"]
rep = open(sys.argv[2]).read()
assert re.search(r"^elevator +car +2 trip\(s\), 16 carried to ground \(the last stepped out at 72\.0 s\), 0 riding, 0 waiting; idle at ground", rep, re.M), rep
PY
        pass "everyone rides down; report and JSON give the hand calculation's 72 s"
    else
        fail "the elevator scene" "$(cat "$tmp/err")"
    fi
    expect_same_hash "$scene" "$tmp/report"
fi

# A small building: level a on cells 0-9, level b on 10-19, a wall at (15, 2).
# bad NAME ELEVATORS WHAT SAYS [CROWDS]: the scene with `elevators: ELEVATORS` on line 12
# refused there, at the column of the first occurrence of WHAT in that line.
bad() {
    local name=$1 elevators=$2 what=$3 says=$4
    local crowds=${5:-"[{name: p, model: pedestrian, agents: [[6.7, 0.7]]}, {name: q, agents: [[2.1, 0.7]]}]"}
    {
        printf 'name: bad\nmap:\n  cell_size: 0.5\n  legend: {%s: wall, %s: open}\n  ascii: |\n' "'#'" "'.'"
        printf '    ####################\n'
        printf '    #.........#....#...#\n'
        printf '    #.........#........#\n'
        printf '    ####################\n'
        printf 'levels: [{name: a, cells: [0, 0, 9, 3]}, {name: b, cells: [10, 0, 19, 3], elevation: 3}]\n'
        printf 'crowds: %s\n' "$crowds"
        printf 'elevators: %s\n' "$elevators"
    } >"$tmp/bad.yaml"
    local prefix=${elevators%%"$what"*}
    local col=$((${#prefix} + 12))
    expect_scene_error "$name" "$tmp/bad.yaml" "12:$col:" "$says"
}
stops='stops: [{level: a, cell: [5, 1]}, {level: b, cell: [12, 1]}]'
bad "an unknown level" "[{name: e, stops: [{level: a, cell: [5, 1]}, {level: c, cell: [12, 1]}], capacity: 4, speed: 1, crowds: [p]}]" "c, cell" "expected the name of a level"
bad "two stops on one level" "[{name: e, stops: [{level: a, cell: [5, 1]}, {level: a, cell: [6, 1]}], capacity: 4, speed: 1, crowds: [p]}]" "a, cell: [6" "has a stop already"
bad "a stop off its level" "[{name: e, stops: [{level: a, cell: [5, 1]}, {level: b, cell: [2, 1]}], capacity: 4, speed: 1, crowds: [p]}]" "[2, 1]" "not on level 'b'"
bad "a stop in a wall" "[{name: e, stops: [{level: a, cell: [5, 1]}, {level: b, cell: [15, 2]}], capacity: 4, speed: 1, crowds: [p]}]" "{name" "not an open cell of level 'b'"
bad "one stop" "[{name: e, stops: [{level: a, cell: [5, 1]}], capacity: 4, speed: 1, crowds: [p]}]" "[{level" "expected 2 to 16 stops"
bad "no capacity" "[{name: e, $stops, speed: 1, crowds: [p]}]" "{name" "missing: expected \`capacity\`"
bad "a capacity too large" "[{name: e, $stops, capacity: 65, speed: 1, crowds: [p]}]" "65" "expected"
bad "no speed" "[{name: e, $stops, capacity: 4, crowds: [p]}]" "{name" "missing: expected \`speed\`"
bad "a negative dwell" "[{name: e, $stops, capacity: 4, speed: 1, dwell: -1, crowds: [p]}]" "-1" "expected a number in [0, 3600]"
bad "an unknown crowd" "[{name: e, $stops, capacity: 4, speed: 1, crowds: [z]}]" "z]" "expected the name of a crowd"
bad "a crowd of boids" "[{name: e, $stops, capacity: 4, speed: 1, crowds: [q]}]" "q]" "not of the pedestrian model"
bad "a discharge level without a stop" "[{name: e, $stops, discharge: c, capacity: 4, speed: 1, crowds: [p]}]" "c, capacity" "expected the level of one of the elevator's stops"
bad "one crowd, two elevators" "[{name: e, $stops, capacity: 4, speed: 1, crowds: [p]}, {name: f, stops: [{level: a, cell: [6, 1]}, {level: b, cell: [13, 1]}], capacity: 4, speed: 1, crowds: [p]}]" "p]}]" "a crowd rides one elevator"
bad "an unknown key" "[{name: e, $stops, capacity: 4, speed: 1, crowds: [p], floors: 3}]" "floors" "floors"
bad "a negative patience" "[{name: e, $stops, capacity: 4, speed: 1, patience: -5, crowds: [p]}]" "-5" "expected a number in [0, 86400]"
bad "an unknown policy" "[{name: e, $stops, capacity: 4, speed: 1, policy: lift, crowds: [p]}]" "lift" "expected shuttle or collective"

# The tower (three storeys, a car of six for five assisted on each upper floor) with
# `policy: collective`: the JSON names the policy, everyone is carried down, and the car's
# trips differ from the shuttle's (the first trip stops at the first floor on its way down).
tower=$(dirname "$scene")/../tower.yaml
[[ -f $tower ]] || fail "the tower scene" "not found at $tower"
sed 's/^    crowds: \[first assisted/    policy: collective\n    crowds: [first assisted/' "$tower" >"$tmp/collective.yaml"
run run "$tmp/collective.yaml" --headless --threads 2 --steps 3000 --json "$tmp/c.json"
run_c=$rc
run run "$tower" --headless --threads 2 --steps 3000 --json "$tmp/s.json"
if [[ $run_c -ne 0 || $rc -ne 0 ]]; then
    fail "the tower with either policy" "exit codes $run_c and $rc"
elif python3 - "$tmp/c.json" "$tmp/s.json" >"$tmp/err" 2>&1 <<'PY'; then
import json, sys
(c,) = json.load(open(sys.argv[1]))["elevators"]
(s,) = json.load(open(sys.argv[2]))["elevators"]
assert c["policy"] == "collective" and s["policy"] == "shuttle", (c["policy"], s["policy"])
assert c["carried"] == s["carried"] == 10, (c["carried"], s["carried"])
assert c["last_out_s"] != s["last_out_s"], (c["last_out_s"], s["last_out_s"])
PY
    pass "policy: collective reaches the car (JSON), everyone carried, another timeline"
else
    fail "policy: collective" "$(cat "$tmp/err")"
fi

# A stop on a stair's seam is refused at the elevator that asks for it: the landing's cells
# (both of its two) and the flight's top row, in office.yaml's building (its stair `west` runs
# up cells [1, 3, 2, 9] to the landing [25, 10]-[26, 10]); the cell beyond the landing is fine.
office=$(dirname "$scene")/../office.yaml
seam() {
    local name=$1 ground=$2 first=$3
    {
        cat "$office"
        printf 'elevators: [{name: lift, stops: [{level: ground, cell: %s}, {level: first, cell: %s}], capacity: 4, speed: 1, crowds: [staff]}]\n' "$ground" "$first"
    } >"$tmp/seam.yaml"
    line=$(($(wc -l <"$office") + 1))
}
seam "a stop on a landing" "[12, 6]" "[25, 10]"
expect_scene_error "a stop on a stair's landing" "$tmp/seam.yaml" "$line:13:" "cell (25, 10) of level 'first' is on a stair's seam"
seam "a stop on a landing's second cell" "[12, 6]" "[26, 10]"
expect_scene_error "a stop on the second cell of a stair's landing" "$tmp/seam.yaml" "$line:13:" "cell (26, 10) of level 'first' is on a stair's seam"
seam "a stop on a flight's top row" "[2, 9]" "[35, 6]"
run run "$tmp/seam.yaml" --headless --steps 10
if [[ $rc -eq 2 ]] && grep -qF "seam.yaml:$line:13:" "$tmp/err" && grep -qF "cell (2, 9) of level 'ground' is on a stair's seam" "$tmp/err"; then
    pass "throng run refuses a stop on a flight's top row"
else
    fail "throng run refuses a stop on a flight's top row" "exit code $rc"
fi
seam "a stop beyond the landing" "[12, 6]" "[26, 11]"
run check "$tmp/seam.yaml"
if [[ $rc -eq 0 ]]; then pass "a stop just beyond a landing loads"; else fail "a stop just beyond a landing" "exit code $rc"; fi

printf 'name: bad\nmap: {cell_size: 1, legend: {".": open}, ascii: "....\\n....\\n"}\ncrowds: [{name: p, model: pedestrian, agents: [[1, 1]]}]\nlevels: [{name: a, cells: [0, 0, 3, 1]}]\nelevators: []\n' >"$tmp/onelevel.yaml"
expect_scene_error "elevators with one level" "$tmp/onelevel.yaml" "5:12:" "at least two"
finish
