#!/usr/bin/env bash
# Elevators as a user reaches them, through `throng run`, `throng check` and the scene file:
#
#   - the NIST 2.7 scene (scenes/verification/elevator.yaml): everyone rides down and leaves;
#     the report's `elevator` line and the JSON's `elevators` agree with the hand calculation
#     in the scene's header (2 trips, the last rider out at 72 s);
#   - the same state hash on 1, 2 and 3 threads;
#   - scene errors at their line and column, and the world's refusals at the elevator that
#     asked for them: a stop on a stair's seam (a landing, a flight's top row) among them;
#   - stop radii smaller than a body can reach, at cell sizes of 0.1-0.5 m: everyone rides;
#   - a stop no body can reach: the riders walking to it are counted in the report and the
#     JSON, found stalled, and --fail-on-stall fails the run.
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

# A two-storey building, 12 m x 4 m at any cell size: ground on the west half with an exit
# along its west wall, the upper level on the east half with ten riders and the elevator's stop
# in its south-west corner, where walls keep a body's centre off the stop's cell; or, with
# `nook`, at the end of a slot one cell wide and 1 m deep, which no body enters.
building() {
    python3 - "$@" <<'PY'
import sys
cs, radius, seed, place = float(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
w, h = round(12 / cs), round(4 / cs)
mid = w // 2
g = [["."] * w for _ in range(h)]  # g[y][x], y north
for x in range(w):
    g[0][x] = g[h - 1][x] = "#"
for y in range(h):
    g[y][0] = g[y][w - 1] = g[y][mid] = "#"
for y in range(1, h - 1):
    for x in range(max(1, round(0.5 / cs))):
        g[y][x] = "E"
stop = (mid + 1, 1)
if place == "nook":
    depth = round(1.0 / cs)
    for y in range(1, depth + 1):
        for x in range(mid + 1, w - 1):
            g[y][x] = "#" if x != mid + w // 6 else "."
    stop = (mid + w // 6, 1)
print(f"name: small stop\nseed: {seed}\ntimestep: 0.05\nsteps: 6000\nmap:\n  cell_size: {cs}")
print("  legend: {'#': wall, '.': open, 'E': {bunker: exit}}\n  ascii: |")
for row in reversed(g):
    print("    " + "".join(row))
print(f"levels:\n  - {{name: ground, cells: [0, 0, {mid - 1}, {h - 1}]}}")
print(f"  - {{name: upper, cells: [{mid}, 0, {w - 1}, {h - 1}], elevation: 4}}")
print(f"elevators:\n  - {{name: car, stops: [{{level: ground, cell: [{mid // 2}, {h // 2}]}}, "
      f"{{level: upper, cell: [{stop[0]}, {stop[1]}]}}], capacity: 6, speed: 1, "
      f"radius: {radius}, crowds: [riders]}}")
print("crowds:\n  - {name: riders, model: pedestrian, behavior: flee, count: 10, "
      "spawn: {rect: [9, 1.2, 2.5, 1.6]}}")
PY
}

# Stop radii smaller than a body can reach (0.1 to 0.25 m; a body is 0.4 m wide): the riders
# waiting nearest the doors stand within a body's width of the stop's cell, so every one of the
# ten rides down and leaves, with nobody stalled, at cell sizes from 0.1 to 0.5 m.
small_ok=0
small_runs=0
for cs in 0.1 0.25 0.5; do
    for radius in 0.1 0.15 0.25; do
        small_runs=$((small_runs + 1))
        building "$cs" "$radius" "$small_runs" corner >"$tmp/small.yaml"
        run run "$tmp/small.yaml" --headless --threads 2 --fail-on-stall --json "$tmp/small.json"
        if [[ $rc -ne 0 ]]; then
            fail "radius $radius m at cell size $cs m" "exit code $rc"
        elif python3 - "$tmp/small.json" >"$tmp/err" 2>&1 <<'PY'; then
import json, sys
j = json.load(open(sys.argv[1]))
(e,) = j["elevators"]
assert (e["carried"], e["riders"], e["waiting"], e["walking"]) == (10, 0, 0, 0), e
assert j["outcome"]["sheltered"] == 10, j["outcome"]
PY
            small_ok=$((small_ok + 1))
        else
            fail "radius $radius m at cell size $cs m" "$(cat "$tmp/err")"
        fi
    done
done
[[ $small_ok -eq $small_runs ]] && pass "radii of 0.1-0.25 m at cells of 0.1-0.5 m: all ten ride down and leave ($small_runs runs)"

# A stop no body reaches (the end of a slot narrower than a body) is not a silent wait: the
# report counts the riders walking to it, they are stalled, and --fail-on-stall fails the run.
for cs in 0.1 0.2; do
    building "$cs" 0.1 1 nook >"$tmp/nook.yaml"
    run run "$tmp/nook.yaml" --headless --threads 2 --fail-on-stall --json "$tmp/nook.json"
    if [[ $rc -ne 1 ]]; then
        fail "a stop no body reaches (cells of $cs m)" "exit code $rc, expected 1"
    elif ! grep -qE '^elevator +car +0 trip\(s\), 0 carried to ground, 0 riding, 0 waiting, 10 walking to its stops;' "$tmp/out" ||
        ! grep -qE '^stalled +[1-9][0-9]* agent\(s\)' "$tmp/out"; then
        fail "a stop no body reaches (cells of $cs m)" "the report does not show ten walking to it and some stalled"
    elif ! python3 -c 'import json, sys; (e,) = json.load(open(sys.argv[1]))["elevators"]; assert (e["carried"], e["waiting"], e["walking"]) == (0, 0, 10), e' "$tmp/nook.json" 2>"$tmp/err"; then
        fail "a stop no body reaches (cells of $cs m)" "$(cat "$tmp/err")"
    else
        pass "a stop no body reaches (cells of $cs m): ten walking to it, stalled, --fail-on-stall exits 1"
    fi
done

printf 'name: bad\nmap: {cell_size: 1, legend: {".": open}, ascii: "....\\n....\\n"}\ncrowds: [{name: p, model: pedestrian, agents: [[1, 1]]}]\nlevels: [{name: a, cells: [0, 0, 3, 1]}]\nelevators: []\n' >"$tmp/onelevel.yaml"
expect_scene_error "elevators with one level" "$tmp/onelevel.yaml" "5:12:" "at least two"
finish
