#!/usr/bin/env bash
# `throng run --results DIR`: usage errors exit 2 before any step, and the folder's files agree
# with the report, the JSON and the trajectories recomputed independently (in Python, from
# `--trajectories` at every step): each occupant's start, distance walked, waiting time, exit
# and time out; each exit's, stair's and line's counts over time; the density maps (people in
# a cell's 3 x 3 window over its walkable area, from the scene's own map) and Fruin's levels;
# the evacuation times on the page. The tables are the same at 1 and 3 threads. Scenes: a hall
# with two exits, pre-movement, a spawner and a line; the tower (levels, stairs, a bunker); a
# boids flock (no exits); a slow door queue, which waits without stalling, and a gridlock,
# which stalls.
#
# usage: test_results_cli.sh path/to/throng scenes-dir
set -u
. "$(dirname "$0")/lib.sh"

bin=${1:?usage: test_results_cli.sh path/to/throng scenes-dir}
scenes=${2:?usage: test_results_cli.sh path/to/throng scenes-dir}
need_executable "$bin"
need python3 "to read the files back"
usage_ran='^results'

cat >"$tmp/hall.yaml" <<'EOF'
name: results hall
seed: 3
timestep: 0.05
steps: 1600
map:
  cell_size: 0.5
  legend: {'#': wall, '.': open, 'E': open, 'W': open, 'S': open}
  ascii: |
    ##################################
    #................................#
    #..SS............................#
    #..SS.......####.................E
    #...........####.................E
    W...........####.................E
    W................................#
    #................................#
    ##################################
crowds:
  - name: east
    model: pedestrian
    count: 40
    spawn: {rect: [1, 1, 14, 2.5]}
    pre_movement: {uniform: [0, 4]}
    goal: {destinations: [{legend: E}], exit: true}
  - name: west
    model: pedestrian
    count: 20
    spawn: {rect: [8, 1, 8, 2.5]}
    goal: {destinations: [{legend: W}], exit: true}
spawners:
  - {name: gate, crowd: east, cells: S, rate: 1, limit: 10}
measure:
  lines:
    - {name: door_e, from: [16, 0.5], to: [16, 4]}
EOF
cat >"$tmp/flock.yaml" <<'EOF'
name: results flock
seed: 2
steps: 90
world: {size: [24, 16], bounds: wrap}
crowds:
  - {name: birds, count: 150, spawn: {rect: [0, 0, 24, 16]}, initial_speed: 2}
EOF

# ---- usage ---------------------------------------------------------------------------------

run run --help
grep -q -- "--results DIR" "$tmp/out" && pass "help names --results" || fail "help names --results" "not in the help"
expect_usage "--results needs a folder" "--results" run "$tmp/hall.yaml" --headless --results
touch "$tmp/afile"
expect_usage "--results refuses a file" "not a folder" run "$tmp/hall.yaml" --headless --results "$tmp/afile"
expect_usage "--results refuses a folder it cannot make" "cannot make the folder" \
    run "$tmp/hall.yaml" --headless --results "$tmp/no/such/place"
expect_usage "--results with a scene that does not load" "no scene" \
    run "$tmp/no_such_scene.yaml" --headless --results "$tmp/never"
[[ ! -e $tmp/never ]] && pass "a scene that does not load leaves no results folder" ||
    fail "a scene that does not load leaves no results folder" "$tmp/never was made"
mkdir -p "$tmp/clash"
cp "$tmp/hall.yaml" "$tmp/clash/flows.csv"
expect_usage "--results never writes over the scene" "write over" \
    run "$tmp/clash/flows.csv" --headless --results "$tmp/clash"
cmp -s "$tmp/hall.yaml" "$tmp/clash/flows.csv" && pass "the scene is untouched" || fail "the scene is untouched" "changed"
mkdir -p "$tmp/clash2"
expect_usage "--results never writes over another output" "write over" \
    run "$tmp/hall.yaml" --headless --results "$tmp/clash2" --json "$tmp/clash2/index.html"

# ---- the hall: everything recomputed from the trajectories ---------------------------------

run run "$tmp/hall.yaml" --headless --threads 2 --results "$tmp/h2" --json "$tmp/h2.json" \
    --trajectories "$tmp/h2_traj.csv"
if [[ $rc -ne 0 ]]; then
    fail "hall runs with --results" "exit code $rc"
else
    grep -q "^results   $tmp/h2/index.html" "$tmp/out" && pass "hall runs with --results" ||
        fail "hall runs with --results" "no results line"
    if python3 "$(dirname "$0")/results_check.py" hall "$tmp/h2" "$tmp/h2.json" "$tmp/hall.yaml" \
        "$tmp/h2_traj.csv" >"$tmp/out" 2>"$tmp/err"; then
        pass "hall: tables agree with the JSON and the trajectories"
    else
        fail "hall: tables agree with the JSON and the trajectories" "see below"
    fi
fi
run run "$tmp/hall.yaml" --headless --threads 1 --results "$tmp/h1"
r1=$rc
run run "$tmp/hall.yaml" --headless --threads 3 --results "$tmp/h3"
if [[ $r1 -ne 0 || $rc -ne 0 ]]; then
    fail "hall: the same tables at 1, 2 and 3 threads" "exit codes $r1, $rc"
else
    same=1
    for f in "$tmp/h2"/*.csv; do
        n=$(basename "$f")
        cmp -s "$f" "$tmp/h1/$n" && cmp -s "$f" "$tmp/h3/$n" || { same=0; echo "differs: $n"; }
    done
    [[ $same -eq 1 ]] && pass "hall: the same tables at 1, 2 and 3 threads" ||
        fail "hall: the same tables at 1, 2 and 3 threads" "a table differs"
fi

# ---- the tower (levels, stairs, a bunker) and a flock (no exits) ---------------------------

# check_tables NAME SCENE: run SCENE with --results, --json and --trajectories at every step on
# 2 threads and have results_check.py recompute the tables (its mode NAME).
check_tables() {
    local name=$1 scene=$2
    run run "$scene" --headless --threads 2 --results "$tmp/$name" --json "$tmp/$name.json" \
        --trajectories "$tmp/${name}_traj.csv"
    if [[ $rc -ne 0 ]]; then
        fail "$name runs with --results" "exit code $rc"
    elif python3 "$(dirname "$0")/results_check.py" "$name" "$tmp/$name" "$tmp/$name.json" "$scene" \
        "$tmp/${name}_traj.csv" >"$tmp/out" 2>"$tmp/err"; then
        pass "$name: tables agree with the JSON and the trajectories"
    else
        fail "$name: tables agree with the JSON and the trajectories" "see below"
    fi
}
check_tables tower "$scenes/tower.yaml"
check_tables flock "$tmp/flock.yaml"

# ---- interrupted: the run so far, whole ----------------------------------------------------
"$bin" run "$tmp/flock.yaml" --headless --steps 100000000 --fixed-steps --results "$tmp/int" \
    >"$tmp/out" 2>"$tmp/err" &
pid=$!
for _ in $(seq 100); do [[ -s $tmp/out ]] && break; sleep 0.1; done
sleep 1
kill -INT "$pid"
wait "$pid"
rc=$?
if [[ $rc -eq 130 ]] && grep -q '(interrupted)' "$tmp/int/index.html" 2>/dev/null &&
    [[ $(wc -l <"$tmp/int/occupants.csv") -eq 151 ]]; then
    pass "Ctrl-C: exit 130, the folder written for the run so far"
else fail "Ctrl-C: exit 130, the folder written for the run so far" "exit $rc"; fi

# ---- queuing is not stalling ---------------------------------------------------------------
# A slow queue at a door 0.6 m wide: walkers wait far longer than the scene's stall time, yet
# nobody is stalled; a head-on gridlock in a corridor narrower than two bodies: both stalled.
data="$(dirname "$0")/data"
run run "$data/stall_door_queue.yaml" --headless --results "$tmp/q"
if [[ $rc -eq 0 ]] && python3 - "$tmp/q" >"$tmp/out" 2>"$tmp/err" <<'EOF'
import csv, sys
d = sys.argv[1]
flows = list(csv.DictReader(open(d + "/flows.csv")))
occ = list(csv.DictReader(open(d + "/occupants.csv")))
page = open(d + "/index.html").read()
assert max(int(f["queue"]) for f in flows if f["name"] == "exit") >= 10, "no queue at the exit"
assert max(float(o["queuing_s"]) for o in occ) > 30, "nobody waited long"
assert {o["state"] for o in occ} == {"left"}, {o["state"] for o in occ}
assert "<tr><th>stalled</th><td>none" in page, "the page reports stalls"
EOF
then pass "a slow door queue: long queues and waits, nobody stalled"
else fail "a slow door queue: long queues and waits, nobody stalled" "exit $rc"; fi
run run "$data/gridlock.yaml" --headless --results "$tmp/gl"
if [[ $rc -eq 0 ]] && [[ $(grep -c ',stalled$' "$tmp/gl/occupants.csv") -eq 2 ]] &&
    grep -q '<tr><th>stalled</th><td>2 at the end' "$tmp/gl/index.html"; then
    pass "a gridlock: both walkers stalled in the table and on the page"
else fail "a gridlock: both walkers stalled in the table and on the page" "exit $rc"; fi

# ---- every column documented ---------------------------------------------------------------

doc="$(dirname "$0")/../docs/results.md"
missing=""
for f in "$tmp/h2"/*.csv "$tmp/tower"/density_1_ground.csv; do
    for col in $(head -1 "$f" | tr ',' ' '); do
        grep -qF "| \`$col\`" "$doc" || missing="$missing $(basename "$f"):$col"
    done
done
[[ -z $missing ]] && pass "every column is in docs/results.md" ||
    fail "every column is in docs/results.md" "missing:$missing"

finish
