#!/usr/bin/env bash
# Scene keys as a user reaches them, through `throng run`: each scene below is small, with an
# answer that follows from the model's definition (docs/goals.md, docs/scene-format.md), and
# the check reads the trajectories, the text report and --json back.
#
#   - a route's arrival radius (3 m): the next waypoint is taken within 3 m of the current one,
#     and a route walked once holds its last waypoint from 3 m away;
#   - route modes from the scene file: the order in which `once`, `loop` and `patrol` visit
#     three waypoints;
#   - a destination `at: [x, y]` with x != y: agents leave through the cell holding (x, y),
#     and only they: a crowd's goal exit is its own;
#   - destination weights from the scene: a nearer goal weighed down loses to a farther one;
#     and congestion: a queue that builds up at the near door sends a share to the far one;
#   - an exit's `crowds:` list: an exit for two crowds takes both and not a third, an exit for
#     one crowd takes only that one; each exit's first and last departure; and the exited
#     line's 50/90/100 % times, which count everyone spawned, against the departures in the
#     trajectories;
#   - the burial history: two `block` events wall agents in at two times, and the report lists
#     each time's burials, not a running total;
#   - every list a scene holds, at 100,000 entries or its documented cap, passes `throng check`
#     (loading stays linear in each list's length).
#
# usage: test_scene_cli.sh path/to/throng
set -u
. "$(dirname "$0")/lib.sh"

bin=${1:?usage: test_scene_cli.sh path/to/throng}
need_executable "$bin"
need python3 "to read the files back"

# judge NAME PYTHON ARGS...: pass when the Python check (a script on stdin) succeeds.
judge() {
    local name=$1
    shift
    if python3 - "$@" >"$tmp/err" 2>&1; then pass "$name"; else fail "$name" "check failed"; fi
}

# ---- a route's arrival radius -------------------------------------------------------------
# One walker at (2, 5) walks east to (20, 5), then north to (20, 15), radius 3, mode once. It
# walks the first leg along y = 5 until it is within 3 m of (20, 5), that is until x >= 17, and
# only then turns north; it stops wanting to move within 3 m of (20, 15) and comes to rest
# there (inside the radius by at most what it covers while slowing down).
cat >"$tmp/route.yaml" <<'EOF'
name: route radius
seed: 1
steps: 2400
world: {size: [40, 20]}
crowds:
  - name: walker
    model: pedestrian
    desired_speed: 1.0
    desired_speed_sd: 0
    agents: [[2, 5]]
    goal: {route: [[20, 5], [20, 15]], radius: 3}
EOF
run run "$tmp/route.yaml" --headless --trajectories "$tmp/route.csv"
if [[ $rc -ne 0 ]]; then
    fail "route radius" "exit code $rc"
else
    judge "route radius: next waypoint taken within 3 m, the last held from 3 m" \
        "$tmp/route.csv" <<'EOF'
import csv, math, sys
rows = [r for r in csv.DictReader(open(sys.argv[1]))]
pts = [(float(r["x"]), float(r["y"])) for r in rows]
# The first sample off the line y = 5: the walker has turned. Its x is where it took waypoint 1:
# at x = 17 (3 m short of x = 20), give or take one step's walk (1/60 s at 1 m/s).
turn = next(i for i, (x, y) in enumerate(pts) if y > 5.001)
x_turn = pts[turn - 1][0]
assert 16.98 <= x_turn <= 17.1, ("turned at", x_turn)
# Before the turn it was always farther than 3 m from (20, 5), less the step in which it takes
# the next waypoint and the first step of its turn (a walker turns at most 8 rad/s at 1 m/s and
# slows down while it does): two steps' walk, 1/30 m.
assert all(math.hypot(x - 20, y - 5) > 2.966 for x, y in pts[:turn - 1]), "came closer than 3 m"
# At the end it stands still, within 3 m of (20, 15) but not much closer: slowing down from
# 1 m/s with the 0.5 s relaxation time covers about 0.5 m.
x, y = pts[-1]
d = math.hypot(x - 20, y - 15)
assert 2.2 <= d <= 3.0, ("rest at", d)
v = math.hypot(float(rows[-1]["vx"]), float(rows[-1]["vy"]))
assert v < 0.01, ("still moving", v)
EOF
fi

# ---- route modes from the scene file ------------------------------------------------------
# Three walkers, one per mode, each on a triangle of waypoints 10 m a side, starting on
# waypoint 0, radius 0.5. A waypoint counts as visited when the walker comes within 0.8 m of
# it (it takes the next within 0.5 m and turns with its relaxation time, so it passes inside).
cat >"$tmp/modes.yaml" <<'EOF'
name: route modes
seed: 1
steps: 4200
world: {size: [30, 60]}
crowds:
  - name: once
    model: pedestrian
    desired_speed: 1.2
    desired_speed_sd: 0
    agents: [[5, 5]]
    goal: {route: [[5, 5], [15, 5], [10, 13]], mode: once, radius: 0.5}
  - name: loop
    model: pedestrian
    desired_speed: 1.2
    desired_speed_sd: 0
    agents: [[5, 25]]
    goal: {route: [[5, 25], [15, 25], [10, 33]], mode: loop, radius: 0.5}
  - name: patrol
    model: pedestrian
    desired_speed: 1.2
    desired_speed_sd: 0
    agents: [[5, 45]]
    goal: {route: [[5, 45], [15, 45], [10, 53]], mode: patrol, radius: 0.5}
EOF
run run "$tmp/modes.yaml" --headless --trajectories "$tmp/modes.csv"
if [[ $rc -ne 0 ]]; then
    fail "route modes" "exit code $rc"
else
    judge "route modes: once, loop and patrol visit their waypoints in order" \
        "$tmp/modes.csv" <<'EOF'
import csv, math, sys
route = {0: [(5, 5), (15, 5), (10, 13)], 1: [(5, 25), (15, 25), (10, 33)],
         2: [(5, 45), (15, 45), (10, 53)]}
seen = {0: [], 1: [], 2: []}
for r in csv.DictReader(open(sys.argv[1])):
    c, x, y = int(r["crowd"]), float(r["x"]), float(r["y"])
    for i, (wx, wy) in enumerate(route[c]):
        if math.hypot(x - wx, y - wy) <= 0.8 and (not seen[c] or seen[c][-1] != i):
            seen[c].append(i)
# 70 s at 1.2 m/s is 84 m: legs are 10 m and 9.4 m long, so 8 or more waypoints are reached.
once, loop, patrol = seen[0], seen[1], seen[2]
assert once == [0, 1, 2], ("once", once)
n = len(loop)
assert n >= 8 and loop == [i % 3 for i in range(n)], ("loop", loop)
cycle = [0, 1, 2, 1]
n = len(patrol)
assert n >= 8 and patrol == [cycle[i % 4] for i in range(n)], ("patrol", patrol)
EOF
fi

# ---- a destination at a point -------------------------------------------------------------
# A 40 x 20 m open map of 1 m cells; the walkers' only destination is `at: [34.5, 2.5]`, cell
# (34, 2), made an exit: each leaves when it steps onto that cell, so the last place it is
# seen is next to it, never in another corner of the map. The exit is the walkers' own: two
# passers-by of another crowd walk east across that cell and on to the east wall.
{
    cat <<'EOF'
name: destination at a point
seed: 1
steps: 3600
map:
  cell_size: 1
  legend: {'.': open}
  ascii: |
EOF
    for _ in $(seq 20); do echo "    ........................................"; done
    cat <<'EOF'
crowds:
  - name: walkers
    model: pedestrian
    desired_speed: 1.2
    agents: [[3, 17], [5, 12], [8, 4], [20, 18], [38, 18]]
    goal: {destinations: [{at: [34.5, 2.5]}], exit: true}
  - name: passers
    model: pedestrian
    desired_speed: 1.2
    desired_speed_sd: 0
    heading: [1, 0]
    agents: [[16, 2.5], [24, 2.5]]
EOF
} >"$tmp/at.yaml"
run run "$tmp/at.yaml" --headless --json "$tmp/at.json" --trajectories "$tmp/at.csv"
if [[ $rc -ne 0 ]]; then
    fail "destination at a point" "exit code $rc"
else
    judge "destination at [34.5, 2.5]: every walker leaves through cell (34, 2), no passer-by"  \
        "$tmp/at.json" "$tmp/at.csv" <<'EOF'
import csv, json, sys
j = json.load(open(sys.argv[1]))
assert j["exited"]["agents"] == 5, j["exited"]
rows = list(csv.DictReader(open(sys.argv[2])))
end = max(int(r["step"]) for r in rows)
last = {}
for r in rows:
    last[r["id"]] = (int(r["crowd"]), int(r["step"]), float(r["x"]), float(r["y"]))
assert len(last) == 7, last
for i, (crowd, step, x, y) in last.items():
    if crowd == 1:  # a passer-by: still in the world, at the east wall
        assert step == end and x > 38 and 1 < y < 4, (i, step, x, y)
        continue
    # Last seen one step before stepping onto [34, 35] x [2, 3]: within a step's walk of it.
    dx = max(34 - x, 0, x - 35)
    dy = max(2 - y, 0, y - 3)
    assert step < end and dx < 0.1 and dy < 0.1, (i, x, y)
EOF
fi

# ---- an exit's crowds, and when those spawned had left ------------------------------------
# Four crowds walk east along their own lanes. The exit `door` (x in [20, 21]) is for blue
# only, `gate` (the east end) for red and green; grey is listed by neither and walks through
# both. So blue leaves by the door, red and green by the gate, grey stays. 12 are spawned and
# 9 leave: 50 % of those spawned is the 6th to leave; 90 % (the 11th) and all are never reached.
cat >"$tmp/exits.yaml" <<'EOF'
name: exits for some crowds
seed: 1
steps: 2700
world: {size: [40, 16]}
crowds:
  - {name: red, model: pedestrian, desired_speed: 1.2, desired_speed_sd: 0, heading: [1, 0],
     agents: [[2, 1.5], [6, 1.5]]}
  - {name: green, model: pedestrian, desired_speed: 1.2, desired_speed_sd: 0, heading: [1, 0],
     agents: [[3, 5.5], [7, 5.5], [10, 5.5]]}
  - {name: blue, model: pedestrian, desired_speed: 1.2, desired_speed_sd: 0, heading: [1, 0],
     agents: [[1, 9.5], [5, 9.5], [9, 9.5], [13, 9.5]]}
  - {name: grey, model: pedestrian, desired_speed: 1.2, desired_speed_sd: 0, heading: [1, 0],
     agents: [[4, 13.5], [8, 13.5], [12, 13.5]]}
exits:
  - {name: gate, rect: [37, 0, 3, 16], crowds: [red, green]}
  - {name: door, rect: [20, 0, 1, 16], crowds: [blue]}
EOF
run run "$tmp/exits.yaml" --headless --json "$tmp/exits.json" --trajectories "$tmp/exits.csv"
cp "$tmp/out" "$tmp/exits.txt"
if [[ $rc -ne 0 ]]; then
    fail "exit crowds" "exit code $rc"
else
    judge "exit crowds: two listed crowds leave by the gate, one by the door, grey by neither" \
        "$tmp/exits.json" "$tmp/exits.csv" "$tmp/exits.txt" <<'EOF'
import csv, json, sys
j = json.load(open(sys.argv[1]))
ex = {e["name"]: e for e in j["exits"]}
assert ex["gate"]["exited"] == 5 and ex["door"]["exited"] == 4, ex
rows = list(csv.DictReader(open(sys.argv[2])))
end = max(int(r["step"]) for r in rows)
last = {}
for r in rows:
    last[r["id"]] = (int(r["step"]), int(r["crowd"]), float(r["x"]))
for i, (step, crowd, x) in last.items():
    if crowd in (0, 1):    # red, green: by the gate
        assert step < end and x > 36.9, (i, crowd, step, x)
    elif crowd == 2:       # blue: by the door
        assert step < end and 19.9 < x < 20.1, (i, crowd, step, x)
    else:                  # grey: still in the world, at the east wall
        assert step == end and x > 38, (i, crowd, step, x)
# Each exit's first and last departure, in the JSON and the text, against the trajectories (an
# agent last sampled at step s left in step s + 1).
dt = j["run"]["timestep_s"]
left = {"gate": [], "door": []}
for step, crowd, x in last.values():
    if step < end:
        left["gate" if crowd in (0, 1) else "door"].append(step + 1)
text = open(sys.argv[3]).read()
for name, steps in left.items():
    first, last_s = min(steps) * dt, max(steps) * dt
    assert abs(ex[name]["first_s"] - first) < 1e-3, (name, ex[name], first)
    assert abs(ex[name]["last_s"] - last_s) < 1e-3, (name, ex[name], last_s)
    want = "exit      %-12s %6u left, the first by %.1f s, the last by %.1f s" % (
        name, len(steps), first, last_s)
    assert want in text.split("\n"), want
EOF
    judge "exited: 50/90/100 % of those spawned, against the trajectories" \
        "$tmp/exits.json" "$tmp/exits.csv" "$tmp/exits.txt" <<'EOF'
import csv, json, math, re, sys
j = json.load(open(sys.argv[1]))
dt = j["run"]["timestep_s"]
rows = list(csv.DictReader(open(sys.argv[2])))
end = max(int(r["step"]) for r in rows)
seen = {}
for r in rows:
    seen[r["id"]] = int(r["step"])
# An agent last sampled at step s left in step s + 1.
left = sorted(s + 1 for s in seen.values() if s < end)
spawned = len(seen)
assert spawned == 12 and len(left) == 9, (spawned, left)
e = j["exited"]
assert e["agents"] == 9, e
k50 = math.ceil(0.5 * spawned)
assert left[k50 - 1] > left[k50 - 2], "the 5th and 6th must leave at different steps"
assert abs(e["exited_50_s"] - left[k50 - 1] * dt) < 1e-3, (e, left[k50 - 1] * dt)
assert e["exited_90_s"] is None and e["exited_100_s"] is None, e
line = [l for l in open(sys.argv[3]) if l.startswith("exited")]
want = "exited    9 of 12 spawned, 3 still in the world: 50%% by %.1f s; not yet 90%%" % (
    left[k50 - 1] * dt)
assert len(line) == 1 and line[0].rstrip("\n") == want, (line, want)
EOF
fi

# ---- two burials at two times --------------------------------------------------------------
# Two closed rooms: three people in the north-west one, four in the middle one; two more in
# the open. Blocking the first room at 1 s buries its three (walled in, no open cell to reach);
# blocking the second at 2.5 s buries its four. The history lists 3 at 1.0 s, then 4 at 2.5 s.
cat >"$tmp/bury.yaml" <<'EOF'
name: two burials
seed: 1
steps: 300
map:
  cell_size: 1
  legend: {'#': wall, '.': open, 'B': {bunker: shelter}}
  ascii: |
    ####################
    #....#.............#
    #....#.............#
    ######.............#
    #..................#
    #......#####......B#
    #......#...#......B#
    #......#...#......B#
    #......#####......B#
    ####################
crowds:
  - name: people
    model: pedestrian
    agents: [[1.5, 7.5], [2.5, 8.5], [3.5, 7.5], [8.5, 2.5], [9.5, 3.5], [10.5, 2.5],
             [9.5, 2.5], [15.5, 6.5], [15.5, 7.5]]
events:
  - {at: 1s, block: [1, 7, 4, 8]}
  - {at: 2.5s, block: [8, 2, 10, 3]}
EOF
run run "$tmp/bury.yaml" --headless --json "$tmp/bury.json" --trajectories "$tmp/bury.csv"
cp "$tmp/out" "$tmp/bury.txt"
if [[ $rc -ne 0 ]]; then
    fail "burials" "exit code $rc"
else
    judge "burials: each block event's burials at its own time, in the text and the JSON" \
        "$tmp/bury.json" "$tmp/bury.csv" "$tmp/bury.txt" <<'EOF'
import csv, json, sys
j = json.load(open(sys.argv[1]))
dt = j["run"]["timestep_s"]
rows = list(csv.DictReader(open(sys.argv[2])))
end = max(int(r["step"]) for r in rows)
seen = {}
for r in rows:
    seen[r["id"]] = int(r["step"])
# Agents that vanished, counted per step: the burials of each event, independently.
gone = {}
for s in seen.values():
    if s < end:
        gone[s] = gone.get(s, 0) + 1
counts = [gone[s] for s in sorted(gone)]
assert counts == [3, 4], counts
b = j["buried"]
assert [x["agents"] for x in b] == [3, 4], b
assert [round(x["time_s"], 3) for x in b] == [1.0, 2.5], b
o = j["outcome"]
assert o["buried"] == 7 and o["removed"] == 0 and o["spawned"] == 9, o
assert o["spawned"] == o["sheltered"] + o["en_route"] + o["stranded"] + o["removed"] + o["buried"] + o["not_fleeing"] + o["own_goal"], o
text = [l.rstrip("\n") for l in open(sys.argv[3]) if l.startswith("buried")]
assert text == ["buried    3 at 1.0 s", "buried    4 at 2.5 s"], text
EOF
fi

# ---- destination weights from the scene file ----------------------------------------------
# Walkers at x = 10 m of a 40 m corridor; destination A at x = 2.5 m (7.5 m away) weighs 30 m,
# B at x = 37.5 m (27.5 m away) nothing: A costs 37.5 m, B 27.5 m, so every walker leaves by B.
{
    cat <<'EOF'
name: destination weights
seed: 1
steps: 3000
map:
  cell_size: 1
  legend: {'.': open}
  ascii: |
EOF
    for _ in $(seq 6); do echo "    ........................................"; done
    cat <<'EOF'
crowds:
  - name: walkers
    model: pedestrian
    desired_speed: 1.2
    agents: [[10, 1.5], [10, 3], [10, 4.5]]
    goal: {destinations: [{at: [2.5, 3.5], weight: 30}, {at: [37.5, 3.5]}], exit: true}
EOF
} >"$tmp/weights.yaml"
run run "$tmp/weights.yaml" --headless --json "$tmp/weights.json" --trajectories "$tmp/weights.csv"
if [[ $rc -ne 0 ]]; then
    fail "destination weights" "exit code $rc"
else
    judge "destination weights: the nearer goal's 30 m weight sends everyone to the farther one" \
        "$tmp/weights.json" "$tmp/weights.csv" <<'EOF'
import csv, json, sys
j = json.load(open(sys.argv[1]))
assert j["exited"]["agents"] == 3, j["exited"]
last = {}
for r in csv.DictReader(open(sys.argv[2])):
    last[r["id"]] = float(r["x"])
assert len(last) == 3 and all(x > 36 for x in last.values()), last
EOF
fi

# ---- congestion that builds up --------------------------------------------------------------
# 80 walkers start in the south-west corner of a walled 32 x 14 m room with two 2 m doors in its
# east wall: A (y in [2, 4]) in front of them, B (y in [10, 12]) 8 m further. Without congestion
# nearly all take A. With `congestion`, each door's route costs more as people queue in front
# of it (the field is recomputed from the crowd every 10 steps), so once the queue at A has
# built up, B takes a real share: at least a quarter of them (about half do). The queue forms
# only after the first walkers arrive: a field computed once, from the start, does not see it.
{
    cat <<'EOF'
name: congestion builds up
seed: 1
steps: 4800
map:
  cell_size: 1
  legend: {'#': wall, '.': open, 'A': open, 'B': open}
  ascii: |
    ################################
    #..............................#
    #..............................B
    #..............................B
    #..............................#
    #..............................#
    #..............................#
    #..............................#
    #..............................#
    #..............................#
    #..............................A
    #..............................A
    #..............................#
    ################################
crowds:
  - name: walkers
    model: pedestrian
    count: 80
    spawn: {rect: [1, 1, 6, 4]}
EOF
} >"$tmp/nocong.yaml"
cp "$tmp/nocong.yaml" "$tmp/cong.yaml"
echo "    goal: {destinations: [{legend: A}, {legend: B}], exit: true}" >>"$tmp/nocong.yaml"
echo "    goal: {destinations: [{legend: A}, {legend: B}], exit: true, congestion: {weight: 1, every: 10}}" >>"$tmp/cong.yaml"
run run "$tmp/nocong.yaml" --headless --trajectories "$tmp/nocong.csv"
rc_off=$rc
grep -q "^exited    80 of 80 spawned" "$tmp/out" || rc_off=1
run run "$tmp/cong.yaml" --headless --trajectories "$tmp/cong.csv"
grep -q "^exited    80 of 80 spawned" "$tmp/out" || rc=1
if [[ $rc_off -ne 0 || $rc -ne 0 ]]; then
    fail "congestion" "a run failed or did not empty the room"
else
    judge "congestion: the far door takes a real share once a queue builds at the near one" \
        "$tmp/nocong.csv" "$tmp/cong.csv" <<'EOF'
import csv, sys
def doors(path):
    last = {}
    for r in csv.DictReader(open(path)):
        last[r["id"]] = float(r["y"])  # where each was last seen: at the door it left by
    assert len(last) == 80, len(last)
    b = sum(1 for y in last.values() if y > 7)
    return 80 - b, b
a_off, b_off = doors(sys.argv[1])
a_on, b_on = doors(sys.argv[2])
assert b_off * 10 <= 80, ("without congestion", a_off, b_off)
assert b_on * 4 >= 80 and a_on > 0, ("with congestion", a_on, b_on)
EOF
fi

# ---- every list a scene holds, at 100,000 entries or its cap -------------------------------
# Each list's entries are looked up once each as the scene loads (names, duplicates, cells), so
# a list of 100,000 loads in time linear in its length; a loader that compares each entry with
# every earlier one, finds names by a scan per entry or passes over the map for each entry takes
# this section past the test's timeout. One scene per list, written by one Python process: the
# lists without a cap (a crowd's `agents`, `flee_types`, `hazards`, a hazard table's rows,
# `groups`) at 100,000 entries, the others at their documented cap (events, destination cells,
# destinations by legend key in each of four crowds, and waypoint edges 65,536; hazard keys
# 4,096; crowds, route points and target paths 256; stairs 250; bunkers, targets, squads,
# spawners, exits, measure areas and lines, levels, legend entries and food sources 64; group
# members 32; elevators, elevator stops and spawn regions 16). `agent_goals` at 100,000 is in
# test_agent_goals_cli.sh. Each must pass `throng check`, and where the line it prints counts
# the entries (agents, crowds, bunkers, events), with that count. Entries are cheap (flow
# style, one line each) to keep the section fast under sanitizers.
mkdir -p "$tmp/lists"
python3 - "$tmp/lists" <<'PY'
import os, sys
out = sys.argv[1]
N = 100000
S = 512
W = "world: {size: [1000, 1000]}\n"
def amap(rows, legend="{'.': open}"):
    return "map:\n  cell_size: 1\n  legend: %s\n  ascii: |\n%s" % (legend, "".join("    " + r + "\n" for r in rows))
OPEN = amap(["." * S] * S)
def cell(i): return i % S, i // S % S
def seq(items): return "[" + ", ".join(items) + "]"
expect = []
def scene(name, body, says="ok"):
    open(os.path.join(out, name + ".yaml"), "w").write("name: %s\nsteps: 1\n%s" % (name, body))
    expect.append("%s\t%s\n" % (name, says))
# Lists without a cap: 100,000 entries (the events list's cap is 65,536).
scene("agents", W + "crowds:\n  - name: c\n    agents: " + seq("[%d.5, %d.5]" % (i % 1000, i // 1000) for i in range(N)) + "\n", "%d agents in 1 crowd(s)" % N)
scene("flee_types", W + "crowds:\n  - {name: c, flee_types: " + seq(str(i % 32) for i in range(N)) + "}\n")
acts = ["block: [%d, %d]", "open: [%d, %d]", "set_cost: {cells: [%d, %d], cost: 2}"]
scene("events", amap(["." * S] * (S - 1) + ["BB" + "x" * (S - 2)], "{'.': open, 'x': destructible, 'B': {bunker: b}}") + "crowds: [{name: c}]\nevents:\n"
      + "".join("  - {at_step: %d, %s}\n" % (i, ("break_wall: [%d, 0]" % (2 + i % (S - 2))) if i % 5 == 3 else ("destroy_bunker: b" if i % 10 == 4 else "restore_bunker: b") if i % 5 == 4 else acts[i % 5] % (i // 5 % S, 1 + i // 5 // S % (S - 1))) for i in range(65536)), "65536 event(s)")
scene("hazards", OPEN + "crowds: [{name: c}]\nhazards:\n" + "".join("  - {rect: [%d, %d, 1, 1], air: {co: 10}}\n" % cell(i) for i in range(N)))
open(os.path.join(out, "h.csv"), "w").write("time,x,y,width,height,extinction,co,co2,o2,hcn\n" + "".join(
    "0,%d,%d,1,1,1,0,0.04,20.9,0\n" % cell(i) for i in range(N)))
scene("hazard_csv_rows", OPEN + "crowds: [{name: c}]\nhazards: [{file: h.csv}]\n")
scene("hazard_keys", OPEN + "crowds: [{name: c}]\nhazards:\n  - {rect: [0, 0, 4, 4], keys: " + seq("{time: %d}" % i for i in range(4096)) + "}\n")
scene("groups", W + "crowds: [{name: c, model: pedestrian, count: %d, spawn: {rect: [0, 0, 1000, 1000]}}]\ngroups:\n" % (2 * N)
      + "".join("  - {members: [[c, %d], [c, %d]]}\n" % (2 * i, 2 * i + 1) for i in range(N)), "%d agents in 1 crowd(s)" % (2 * N))
scene("group_members", W + "crowds: [{name: c, model: pedestrian, count: 32, spawn: {rect: [0, 0, 10, 10]}}]\ngroups:\n  - {members: " + seq("[c, %d]" % i for i in range(32)) + "}\n")
# Lists with a cap, at their cap.
scene("destinations", OPEN + "crowds:\n  - {name: c, goal: {destinations: " + seq("{at: [%d.5, %d.5]}" % cell(i) for i in range(65536)) + "}}\n")
# ... and again by legend key: four crowds of 65,536 entries, each naming a key of one cell on a
# 4096 x 2048 map (each entry's cells are found once a key, not by a pass over the map an
# entry).
scene("destination_legends", amap(["." * 4096] * 2047 + ["E" + "." * 4095], "{'.': open, 'E': open}") + "crowds:\n"
      + "".join("  - {name: c%d, goal: {destinations: %s}}\n" % (c, seq("{legend: E}" for i in range(65536))) for c in range(4)))
scene("waypoint_graph", W + "crowds:\n  - {name: c, goal: {waypoints: {destination: 0, nodes: " + seq("[%d, %d]" % (10 + i % 16 * 60, 10 + i // 16 * 60) for i in range(256))
      + ", edges: " + seq("[%d, %d]" % (i % 256, (i % 256 + 1 + i // 256 % 255) % 256) for i in range(65536)) + "}}}\n")
scene("route", W + "crowds:\n  - {name: c, goal: {route: " + seq("[%d, %d]" % (1 + i * 3, 1 + i % 2) for i in range(256)) + "}}\n")
scene("food", W + "crowds:\n  - {name: c, goal: {forage: {nest: {at: [500, 500]}, food: " + seq("{at: [%d, 100], amount: 10}" % (10 + i * 10) for i in range(64)) + "}}}\n")
scene("crowds", W + "crowds:\n" + "".join("  - {name: c%d, agents: [[%d.5, 1.5]]}\n" % (i, i) for i in range(256)), "256 agents in 256 crowd(s)")
scene("spawn_regions", W + "crowds:\n  - {name: c, count: 16, spawn: " + seq("{rect: [%d, 0, 10, 10]}" % (i * 20) for i in range(16)) + "}\n", "16 agents in 1 crowd(s)")
scene("bunkers", OPEN + "crowds: [{name: c}]\nbunkers:\n" + "".join("  - {name: b%d, cells: [%d, 0]}\n" % (i, 2 * i) for i in range(64)), "64 bunker(s)")
chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+="
scene("legend", amap([chars * 8] * 64, "{" + ", ".join("'%s': {terrain: %d}" % (ch, 1 + k % 9) for k, ch in enumerate(chars)) + "}") + "crowds: [{name: c}]\n")
scene("targets", W + "crowds: [{name: c}]\ntargets:\n" + "".join("  - {name: t%d, path: %s}\n" % (t, seq("[%d, %d]" % (i * 3, t * 10) for i in range(256))) for t in range(64)))
scene("squads", W + "crowds: [{name: c}]\nsquads:\n" + "".join("  - {crowd: c, count: 1, start: [%d, 10], goal: [%d, 900]}\n" % (10 + i * 10, 10 + i * 10) for i in range(64)))
names = seq("c%d" % i for i in range(256))
scene("spawners_exits", W + "crowds:\n" + "".join("  - {name: c%d}\n" % i for i in range(256)) + "spawners:\n"
      + "".join("  - {name: s%d, crowd: c%d, rect: [%d, 0, 5, 5], rate: 1}\n" % (i, i, i * 10) for i in range(64)) + "exits:\n"
      + "".join("  - {name: e%d, rect: [%d, 900, 5, 5], crowds: %s}\n" % (i, i * 10, names) for i in range(64)), "0 agents in 256 crowd(s)")
scene("measure", W + "crowds: [{name: c}]\nmeasure:\n  areas:\n" + "".join("    - {name: a%d, rect: [%d, 0, 5, 5]}\n" % (i, i * 10) for i in range(64))
      + "  lines:\n" + "".join("    - {name: l%d, from: [%d, 100], to: [%d, 200]}\n" % (i, i * 10, i * 10) for i in range(64)))
scene("levels", OPEN + "crowds: [{name: c}]\nlevels:\n" + "".join("  - {name: l%d, cells: [%d, 0, %d, 511], elevation: %d}\n" % (i, 8 * i, 8 * i + 7, i) for i in range(64)))
# 250 stairs up north, one cell wide, on odd columns of the ground level (x < 512), each with its
# landing at the same column of the first level (x >= 512), walled beyond and behind.
rows = []
for y in range(11, -1, -1):
    r = ""
    for x in range(1024):
        wall = (y == 6 and x % 2 == 1 and (x < 500 or 513 <= x < 1013)) or y in (0, 11) or x in (0, 511, 512, 1023)
        r += "#" if wall else "."
    rows.append(r)
scene("stairs", amap(rows, "{'.': open, '#': wall}") + "crowds: [{name: c}]\nlevels:\n  - {name: g, cells: [0, 0, 511, 11]}\n  - {name: f, cells: [512, 0, 1023, 11], elevation: 3}\nstairs:\n"
      + "".join("  - {name: s%d, cells: [%d, 1, %d, 5], up: north, landing: [%d, 7]}\n" % (i, 2 * i + 1, 2 * i + 1, 512 + 2 * i + 1) for i in range(250)))
lv = "levels:\n" + "".join("  - {name: l%d, cells: [%d, 0, %d, 511], elevation: %d}\n" % (i, 32 * i, 32 * i + 31, 3 * i) for i in range(16))
ped = "crowds:\n" + "".join("  - {name: c%d, model: pedestrian}\n" % i for i in range(256))
scene("elevators", OPEN + ped + lv + "elevators:\n" + "".join("  - {name: e%d, capacity: 4, speed: 1, stops: [{level: l0, cell: [1, %d]}, {level: l1, cell: [33, %d]}], crowds: %s}\n"
      % (i, 2 * i + 1, 2 * i + 1, seq("c%d" % (16 * i + k) for k in range(16))) for i in range(16)))
scene("elevator_stops", OPEN + ped + lv + "elevators:\n  - {name: e, capacity: 4, speed: 1, stops: " + seq("{level: l%d, cell: [%d, 1]}" % (i, 32 * i + 1) for i in range(16)) + ", crowds: " + names + "}\n")
open(os.path.join(out, "expect.tsv"), "w").write("".join(expect))
PY
lists=$(wc -l <"$tmp/lists/expect.tsv" 2>/dev/null || echo 0)
if [[ $lists -ne 25 ]]; then fail "the largest lists" "expected 25 scenes written, found $lists"; fi
while IFS=$'\t' read -r list says; do
    run check "$tmp/lists/$list.yaml"
    if [[ $rc -ne 0 ]]; then
        fail "the $list list at its largest loads" "exit $rc"
    elif [[ $says != ok ]] && ! grep -qF "$says" "$tmp/out"; then
        fail "the $list list at its largest loads" "expected '$says' in the summary"
    else
        pass "the $list list at its largest loads"
    fi
done <"$tmp/lists/expect.tsv"

finish
