#!/usr/bin/env bash
# Agents' own goals as a user reaches them, through the scene key `agent_goals`:
#
#   - in a hall with a bunker at each end, ten fleeing walkers stand near the west one; one is
#     sent to a point in the middle of the hall, one to the east bunker, one follows the first:
#     the report counts 8 sheltered west and 1 east, the trajectories end the first within its
#     radius of its point and the follower within reach of it, and the JSON agrees;
#   - the same state hash on 1 and 3 threads;
#   - a whole crowd given one point (`crowd: NAME`): every one of its walkers ends near it;
#   - goals given at a time (`at`): the crowd gathers at its point, and from 25 s on walks
#     back to its crowd's goal (`crowd_goal: true`), the bunker, where all shelter;
#   - the world's goal planning (`goal_planning`, `priority`): the same outcome with points
#     planned over the steps, a report line and JSON that agree, the same hash on 1 and 3
#     threads;
#   - own goals tallied: reached, walking and with no way, against the trajectories;
#   - squad members take no goal of their own: an entry that could only mean them is refused;
#   - scene errors at their line and column.
#
# usage: test_agent_goals_cli.sh path/to/throng
set -u
. "$(dirname "$0")/lib.sh"

bin=${1:?usage: test_agent_goals_cli.sh path/to/throng}
need_executable "$bin"
need python3 "to read the files back"

python3 - >"$tmp/goals.yaml" <<'PY'
rows = ["#" * 62] + ["#" + "." * 60 + "#" for _ in range(14)] + ["#" * 62]
for r in (7, 8):
    rows[r] = "W" + rows[r][1:-1] + "E"
walkers = ", ".join(f"[{3 + (i % 5)}.5, {5 + i // 5}.5]" for i in range(10))
print("""name: own goals
seed: 2
steps: 3600
map:
  cell_size: 0.5
  legend: {'#': wall, '.': open, 'W': {bunker: west}, 'E': {bunker: east}}
  ascii: |
""" + "\n".join("    " + r for r in rows) + f"""
crowds:
  - name: staff
    model: pedestrian
    behavior: flee
    agents: [{walkers}]
agent_goals:
  - {{agent: [staff, 0], point: [15.25, 6.25], radius: 0.5}}
  - {{agent: [staff, 1], exit: east}}
  - {{agent: [staff, 2], follow: [staff, 0], radius: 1.5}}""")
PY

run run "$tmp/goals.yaml" --headless --threads 2 --trajectories "$tmp/t.csv" --json "$tmp/r.json"
if [[ $rc -ne 0 ]]; then
    fail "run" "exit code $rc"
else
    cp "$tmp/out" "$tmp/report"
    if python3 - "$tmp/t.csv" "$tmp/r.json" "$tmp/report" >"$tmp/err" 2>&1 <<'PY'; then
import csv, json, math, re, sys
last = {}
for r in csv.DictReader(open(sys.argv[1])):
    last[int(r["id"])] = (float(r["time"]), float(r["x"]), float(r["y"]))
t_end = max(t for t, _, _ in last.values())
# Ids follow creation order: staff 0, 1, 2 are ids 1, 2, 3 (the trajectories' id column).
ids = sorted(last)
first, follower = last[ids[0]], last[ids[2]]
assert first[0] == t_end and math.hypot(first[1] - 15.25, first[2] - 6.25) <= 0.6, first
assert follower[0] == t_end and math.hypot(follower[1] - first[1], follower[2] - first[2]) <= 2.2, follower
rep = open(sys.argv[3]).read()
w = int(re.search(r"^bunker +west +(\d+) sheltered", rep, re.M).group(1))
e = int(re.search(r"^bunker +east +(\d+) sheltered", rep, re.M).group(1))
assert (w, e) == (7, 1), (w, e)
o = json.load(open(sys.argv[2]))["outcome"]
# The first stands at its point, its follower follows: led by goals of their own, not en route.
assert o["sheltered"] == 8 and o["en_route"] == 0 and o["own_goal"] == 2, o
assert o["own_goal_there"] == 1 and o["own_goal_no_way"] == 0 and o["reachable"] == 8, o
assert re.search(r"^outcome   8 sheltered, 0 en route \(walking to a bunker\), 2 led by goals of their own \(1 at their point\)", rep, re.M), rep
PY
        pass "a point, an exit and a follower; report and JSON agree"
    else
        fail "own goals" "check failed"
    fi
    expect_same_hash "$tmp/goals.yaml" "$tmp/report"
fi

python3 - >"$tmp/crowd.yaml" <<'PY'
rows = ["#" * 42] + ["#" + "." * 40 + "#" for _ in range(14)] + ["#" * 42]
for r in (7, 8):
    rows[r] = "W" + rows[r][1:]
head = """name: a crowd's own goal
seed: 4
steps: 2400
map:
  cell_size: 0.5
  legend: {'#': wall, '.': open, 'W': {bunker: west}}
  ascii: |
"""
tail = """
crowds:
  - name: staff
    model: pedestrian
    behavior: flee
    agents: [[2.5, 2.5], [3.5, 5.5]]
  - name: cleaners
    model: pedestrian
    behavior: flee
    agents: [[4.5, 1.5], [5.5, 2.5], [6.5, 3.5], [4.5, 5.5], [5.5, 6.5], [6.5, 4.5]]
agent_goals:
  - {crowd: cleaners, point: [16.25, 3.75], radius: 1.5}"""
print(head + "\n".join("    " + r for r in rows) + tail)
PY
run run "$tmp/crowd.yaml" --headless --threads 2 --trajectories "$tmp/c.csv"
if [[ $rc -eq 0 ]] && python3 - "$tmp/c.csv" >"$tmp/err" 2>&1 <<'PY'; then
import csv, math, sys
last = {}
for r in csv.DictReader(open(sys.argv[1])):
    last[int(r["id"])] = (int(r["crowd"]), float(r["x"]), float(r["y"]))
cleaners = [v for v in last.values() if v[0] == 1]
assert len(cleaners) == 6, last
for _, x, y in cleaners:
    assert math.hypot(x - 16.25, y - 3.75) <= 2.5, (x, y)
PY
    pass "a whole crowd given one point gathers there"
else
    fail "a whole crowd given one point gathers there" "exit code $rc: $(cat "$tmp/err")"
fi

# A crowd that flees nowhere (no bunker goal): the report and the JSON still say how many
# goals of their own lead, and how many stand at their point, as the trajectories' last rows
# have it.
awk '/^  - name: cleaners/ {c = 1} c && /behavior: flee/ {c = 0; next} {print}' "$tmp/crowd.yaml" \
    | sed -e 's/^name: .*/name: own goals, not fleeing/' >"$tmp/idle.yaml"
run run "$tmp/idle.yaml" --headless --threads 2 --trajectories "$tmp/i.csv" --json "$tmp/i.json"
if [[ $rc -eq 0 ]] && python3 - "$tmp/i.csv" "$tmp/i.json" "$tmp/out" >"$tmp/err" 2>&1 <<'PY'; then
import csv, json, math, sys
last = {}
for r in csv.DictReader(open(sys.argv[1])):
    last[int(r["id"])] = (int(r["crowd"]), float(r["x"]), float(r["y"]))
there = sum(1 for c, x, y in last.values() if c == 1 and math.hypot(x - 16.25, y - 3.75) <= 1.5)
g = json.load(open(sys.argv[2]))["own_goals"]
want = {"given": 6, "reached": there, "walking": 6 - there, "unreachable": 0, "passed_over": 0}
assert g == want, (g, want)
assert there >= 3, there
line = ("own goals 6 agent(s) led by goals of their own: %d reached theirs, %d still walking, "
        "0 with no way to it" % (there, 6 - there))
assert line in open(sys.argv[3]).read(), line
PY
    pass "own goals of a crowd that does not flee: counted in the report and the JSON"
else
    fail "own goals of a crowd that does not flee" "exit code $rc: $(cat "$tmp/err")"
fi

# A tally of own goals in a scene with no bunker and no crowd goal: four walkers sent to a
# near point, three to a far one they cannot reach within the run, two to a point that a ring
# of blocked cells closes at 1 s, one following the first. Reached, walking and with no way,
# counted from the trajectories' last rows and the ring's cells, are what the report and the
# JSON say.
python3 - "$tmp/tally_goals.json" >"$tmp/tally.yaml" <<'PY'
import json, sys
rows = ["#" * 42] + ["#" + "." * 40 + "#" for _ in range(14)] + ["#" * 42]
walkers = [[2.5 + (i % 4), 3.5 + 2 * (i // 4)] for i in range(10)]
near, far, sealed = ([12.5, 4.5], 1.5), ([38.5, 3.5], 1.0), ([35.5, 12.5], 1.0)
goals = [near] * 4 + [far] * 3 + [sealed] * 2
entries = ["  - {agent: [walkers, %d], point: [%g, %g], radius: %g}" % (i, p[0], p[1], r)
           for i, (p, r) in enumerate(goals)]
entries.append("  - {agent: [walkers, 9], follow: [walkers, 0], radius: 2.5}")
json.dump({"goals": goals, "follow": [9, 0, 2.5], "ring": [33, 10, 38, 15]}, open(sys.argv[1], "w"))
print("""name: own goals tallied
seed: 3
timestep: 0.05
steps: 300
map:
  cell_size: 1.0
  legend: {'#': wall, '.': open}
  ascii: |
""" + "\n".join("    " + r for r in rows) + """
crowds:
  - name: walkers
    model: pedestrian
    agents: %s
agent_goals:
%s
events:
  - {at: 1, block: [33, 10, 38, 10]}
  - {at: 1, block: [33, 10, 33, 14]}
  - {at: 1, block: [38, 10, 38, 14]}""" % (json.dumps(walkers), "\n".join(entries)))
PY
run run "$tmp/tally.yaml" --headless --threads 2 --trajectories "$tmp/tally.csv" --json "$tmp/tally.json"
if [[ $rc -eq 0 ]] && python3 - "$tmp/tally.csv" "$tmp/tally.json" "$tmp/out" "$tmp/tally_goals.json" >"$tmp/err" 2>&1 <<'PY'; then
import csv, json, math, sys
last = {}
for r in csv.DictReader(open(sys.argv[1])):
    last[int(r["id"])] = (float(r["x"]), float(r["y"]))
spec = json.load(open(sys.argv[4]))
pos = [last[i] for i in sorted(last)]  # ids follow the order of `agents`
assert len(pos) == 10, last
x0, y0, x1, y1 = spec["ring"]
def inside_ring(p):  # the open cells the blocked ring (and the bottom wall) close in
    return x0 < p[0] < x1 and y0 < p[1] < y1
reached = walking = no_way = 0
for i, ((gx, gy), r) in enumerate(spec["goals"]):
    if math.hypot(pos[i][0] - gx, pos[i][1] - gy) <= r:
        reached += 1
    elif inside_ring((gx, gy)) and not inside_ring(pos[i]):
        no_way += 1
    else:
        walking += 1
f, led, r = spec["follow"]
if math.hypot(pos[f][0] - pos[led][0], pos[f][1] - pos[led][1]) <= r:
    reached += 1
else:
    walking += 1
# The scene is made to hold all three: a check that each is counted where it belongs.
assert reached and walking and no_way, (reached, walking, no_way, pos)
want = {"given": 10, "reached": reached, "walking": walking, "unreachable": no_way,
        "passed_over": 0}
g = json.load(open(sys.argv[2]))["own_goals"]
assert g == want, (g, want)
line = ("own goals 10 agent(s) led by goals of their own: %d reached theirs, %d still walking, "
        "%d with no way to it" % (reached, walking, no_way))
assert line in open(sys.argv[3]).read(), (line, open(sys.argv[3]).read())
PY
    pass "own goals reached, walking and with no way: the report and the JSON count them"
else
    fail "own goals reached, walking and with no way" "exit code $rc: $(cat "$tmp/err")"
fi

sed -e 's/^name: .*/name: goals at a time/' "$tmp/crowd.yaml" >"$tmp/timed.yaml"
printf '  - {crowd: cleaners, crowd_goal: true, at: 25}\n' >>"$tmp/timed.yaml"
run run "$tmp/timed.yaml" --headless --threads 2 --fixed-steps --steps 3000 --trajectories "$tmp/d.csv" --json "$tmp/d.json"
if [[ $rc -eq 0 ]] && python3 - "$tmp/d.csv" "$tmp/d.json" >"$tmp/err" 2>&1 <<'PY'; then
import csv, json, math, sys
before = {}
for r in csv.DictReader(open(sys.argv[1])):
    t = float(r["time"])
    if int(r["crowd"]) == 1 and t <= 24.9:
        before[int(r["id"])] = (t, float(r["x"]), float(r["y"]))
assert len(before) == 6, before
for t, x, y in before.values():
    assert t > 24.5 and math.hypot(x - 16.25, y - 3.75) <= 2.5, (t, x, y)
o = json.load(open(sys.argv[2]))["outcome"]
assert o["sheltered"] == 8 and o["en_route"] == 0, o
PY
    pass "goals given at a time: gathered at the point, then back to the bunker from 25 s"
else
    fail "goals given at a time" "exit code $rc: $(cat "$tmp/err")"
fi

# The same hall with the world's goal planning: the point is planned over the steps, within the
# budget; the outcome is the same, and the report and the JSON say how the planning went.
cp "$tmp/goals.yaml" "$tmp/planned.yaml"
sed -i 's/^  - {agent: \[staff, 0\], point: \[15.25, 6.25\], radius: 0.5}/&\n  - {agent: [staff, 3], point: [20.25, 3.25], priority: 4}/' "$tmp/planned.yaml"
printf 'goal_planning: {budget: 3, cluster_size: 4, max_requests: 1}\n' >>"$tmp/planned.yaml"
run run "$tmp/planned.yaml" --headless --threads 2 --trajectories "$tmp/p.csv" --json "$tmp/p.json"
if [[ $rc -eq 0 ]] && cp "$tmp/out" "$tmp/preport" && python3 - "$tmp/p.csv" "$tmp/p.json" "$tmp/preport" >"$tmp/err" 2>&1 <<'PY'; then
import csv, json, math, re, sys
last = {}
for r in csv.DictReader(open(sys.argv[1])):
    last[int(r["id"])] = (float(r["time"]), float(r["x"]), float(r["y"]))
ids = sorted(last)
first, fourth = last[ids[0]], last[ids[3]]
assert math.hypot(first[1] - 15.25, first[2] - 6.25) <= 0.6, first
assert math.hypot(fourth[1] - 20.25, fourth[2] - 3.25) <= 1.1, fourth
j = json.load(open(sys.argv[2]))
g = j["goal_planning"]
assert (g["budget"], g["cluster_size"], g["max_requests"]) == (3, 4, 1), g
assert g["answered"] == 2 and g["waiting"] == 0 and g["unreachable"] == 0, g
# One request at a time, three expansions a step: neither answered in its first step.
assert g["wait_steps_max"] > 2 and g["expanded"] <= 3 * 3600, g
rep = open(sys.argv[3]).read()
m = re.search(r"^planning  (\d+) paths found over the steps \((\d+) expansions, at most 3 a step\), "
              r"0 unreachable, 0 planned at once; waits [0-9.]+ steps on average, at most (\d+) .*; 0 still waiting$", rep, re.M)
assert m and int(m.group(1)) == 2 and int(m.group(2)) == g["expanded"] and int(m.group(3)) == g["wait_steps_max"], rep
PY
    pass "goal planning: points planned over the steps within the budget; report and JSON agree"
else
    fail "goal planning" "exit code $rc: $(cat "$tmp/err")"
fi
expect_same_hash "$tmp/planned.yaml" "$tmp/preport"

# 100,000 entries, two agents' goals at 50,000 times: they load, and one more for the whole
# crowd at a time two of them hold is refused naming the first of the two (each entry is looked
# up once: the list loads in time linear in its length, where each was compared with every
# earlier one).
python3 - "$tmp/big.yaml" "$tmp/big_bad.yaml" <<'PY'
import sys
head = ('name: big\nmap:\n  cell_size: 1\n  legend: {"#": wall, ".": open, "B": {bunker: b}}\n'
        '  ascii: |\n    ##########\n    #.....#..B\n    #........#\n    ##########\ncrowds:\n'
        '  - {name: p, model: pedestrian, agents: [[1.5, 1.5], [2.5, 1.5]]}\nagent_goals:\n')
rows = "".join(f"  - {{agent: [p, {i % 2}], point: [3.5, 2.5], at: {i // 2 + 1}}}\n"
               for i in range(100000))
open(sys.argv[1], "w").write(head + rows)
open(sys.argv[2], "w").write(head + rows + "  - {crowd: p, point: [4.5, 2.5], at: 25001}\n")
PY
run check "$tmp/big.yaml"
if [[ $rc -eq 0 ]]; then pass "100,000 agent goals load"; else fail "100,000 agent goals load" "exit $rc"; fi
# entry 50,000 (agent 0 at 25,001 s) is on line 13 + 50,000
expect_scene_error "100,000 agent goals, then the whole crowd at a time already given" \
    "$tmp/big_bad.yaml" "100013:5:" "given goals twice at one time, whole and agent by agent or whole twice (line 50013)"

# bad NAME GOALS WHERE SAYS: a scene whose `agent_goals:` is GOALS (one line).
bad() {
    printf 'name: bad\nmap:\n  cell_size: 1\n  legend: {"#": wall, ".": open, "B": {bunker: b}}\n  ascii: |\n    ##########\n    #.....#..B\n    #........#\n    ##########\ncrowds:\n  - {name: p, model: pedestrian, agents: [[1.5, 1.5], [2.5, 1.5]]}\n  - {name: f, behavior: flee, agents: [[3.5, 1.5]]}\nagent_goals: %s\n' \
        "$2" >"$tmp/bad.yaml"
    expect_scene_error "$1" "$tmp/bad.yaml" "$3" "$4"
}
bad "no agent" "[{point: [3, 1]}]" "13:15:" "missing: expected \`agent: [crowd, index]\` or \`crowd: NAME\`"
bad "an agent and a crowd" "[{agent: [p, 0], crowd: p, point: [3.5, 2.5]}]" "13:38:" "found both"
bad "an unknown crowd" "[{crowd: q, point: [3.5, 2.5]}]" "13:23:" "expected the name of a crowd"
bad "a crowd following its own" "[{crowd: p, follow: [p, 1]}]" "13:34:" "cannot follow itself"
bad "a crowd given goals twice" "[{crowd: p, point: [3.5, 2.5]}, {agent: [p, 1], point: [4.5, 2.5]}]" "13:46:" "given goals twice"
bad "two goals" "[{agent: [p, 0], point: [3, 1], exit: b}]" "13:15:" "exactly one of"
bad "a point in a wall" "[{agent: [p, 0], point: [6.5, 2.5]}]" "13:38:" "wall"
bad "a point off the map" "[{agent: [p, 0], point: [30, 1]}]" "13:38:" "inside the 10 x 4 m world"
bad "an exit for a walker that does not flee" "[{agent: [p, 0], exit: b}]" "13:37:" "does not flee"
bad "an unknown bunker" "[{agent: [f, 0], exit: x}]" "13:37:" "expected the name of a bunker"
bad "following itself" "[{agent: [p, 0], follow: [p, 0]}]" "13:39:" "the agent itself"
bad "an agent too many" "[{agent: [p, 5], point: [3.5, 2.5]}]" "13:15:" "no agent 5"
bad "back to the crowd's goal from the start" "[{agent: [p, 0], crowd_goal: true}]" "13:43:" "give \`at\` a time after it"
bad "back to the crowd's goal at a time that rounds to the start" "[{agent: [p, 0], crowd_goal: true, at: 0.001}]" "13:53:" "at least half a step"
bad "crowd_goal not true" "[{agent: [p, 0], crowd_goal: no, at: 3}]" "13:43:" "expected \`true\`"
bad "a negative time" "[{agent: [p, 0], point: [3.5, 2.5], at: -1}]" "13:54:" "expected a number in [0,"
bad "two goals for one agent at one time" "[{agent: [p, 0], point: [3.5, 2.5], at: 2}, {agent: [p, 0], point: [4.5, 2.5], at: 2}]" "13:58:" "has a goal at that time already"
bad "two goals for one agent" "[{agent: [p, 0], point: [3.5, 2.5]}, {agent: [p, 0], point: [4.5, 2.5]}]" "13:51:" "has a goal at that time already"
bad "a radius for an exit" "[{agent: [f, 0], exit: b, radius: 2}]" "13:48:" "no radius"
bad "a priority for an exit" "[{agent: [f, 0], exit: b, priority: 2}]" "13:50:" "only a point has a priority"
bad "a priority without goal planning" "[{agent: [p, 0], point: [3.5, 2.5], priority: 2}]" "13:60:" "the scene has none"
bad "a negative priority" "[{agent: [p, 0], point: [3.5, 2.5], priority: -1}]" "13:60:" "expected a whole number in [0, 1000000]"

# squad NAME GOALS WHERE SAYS: a crowd whose only agents are a squad's members, `agent_goals:`
# GOALS on line 17. `throng run` refuses it (exit 2) at the entry, naming the squad's line:
# squad members take no goal of their own, and `agent_goals` does not number them.
squad() {
    printf 'name: squad goals\nmap:\n  cell_size: 1\n  legend: {"#": wall, ".": open}\n  ascii: |\n    ####################\n    #..................#\n    #..................#\n    #..................#\n    #..................#\n    #..................#\n    ####################\ncrowds:\n  - {name: infantry}\n  - {name: p, model: pedestrian, agents: [[1.5, 5.5]]}\nsquads: [{crowd: infantry, count: 4, start: [4, 3], goal: [15, 3]}]\nagent_goals: %s\n' \
        "$2" >"$tmp/squad.yaml"
    run run "$tmp/squad.yaml" --headless --steps 10
    if [[ $rc -ne 2 ]]; then
        fail "$1" "exit code $rc, expected 2"
    elif ! grep -qF -- "squad.yaml:$3" "$tmp/err" || ! grep -qF -- "$4" "$tmp/err"; then
        fail "$1" "expected squad.yaml:$3 and '$4', got: $(cat "$tmp/err")"
    else
        pass "$1"
    fi
}
squad "a squad member given a point" "[{agent: [infantry, 0], point: [10.5, 4.5]}]" "17:15:" "the members of its squad (line 16) are not numbered here and take no goal of their own"
squad "a squad member given another agent to follow" "[{agent: [infantry, 2], follow: [p, 0]}]" "17:15:" "there is no agent 2"
squad "a squad's crowd given a point whole" "[{crowd: infantry, point: [10.5, 4.5]}]" "17:15:" "has no agents but the members of its squad (line 16)"
squad "a squad's crowd back to its goal at a time" "[{crowd: infantry, crowd_goal: true, at: 2}]" "17:15:" "a squad member takes no goal of its own"
# A squad's crowd with agents of its own besides: they take the goal, the squad marches on.
squad_ok=$(sed -e 's/  - {name: infantry}/  - {name: infantry, agents: [[2.5, 5.5]]}/' \
    -e 's/^agent_goals: .*/agent_goals: [{agent: [infantry, 0], point: [17.5, 5.5], radius: 1}]/' "$tmp/squad.yaml")
printf '%s\n' "$squad_ok" >"$tmp/squad_ok.yaml"
run run "$tmp/squad_ok.yaml" --headless --steps 1800 --json "$tmp/sq.json"
if [[ $rc -eq 0 ]] && python3 - "$tmp/sq.json" >"$tmp/err2" 2>&1 <<'PY'; then
import json, sys
r = json.load(open(sys.argv[1]))
assert r["own_goals"]["given"] == 1, r["own_goals"]
assert [q["arrived"] for q in r["squads"]] == [True], r["squads"]
PY
    pass "a squad's crowd with an agent of its own: it takes the goal, the squad arrives"
else
    fail "a squad's crowd with an agent of its own" "exit $rc: $(cat "$tmp/err" "$tmp/err2" 2>/dev/null)"
fi

# badp NAME PLANNING WHERE SAYS: the same scene with `goal_planning:` PLANNING (line 14).
badp() {
    printf 'name: bad\nmap:\n  cell_size: 1\n  legend: {"#": wall, ".": open, "B": {bunker: b}}\n  ascii: |\n    ##########\n    #.....#..B\n    #........#\n    ##########\ncrowds:\n  - {name: p, model: pedestrian, agents: [[1.5, 1.5], [2.5, 1.5]]}\n  - {name: f, behavior: flee, agents: [[3.5, 1.5]]}\nagent_goals: [{agent: [p, 0], point: [3.5, 2.5]}]\ngoal_planning: %s\n' \
        "$2" >"$tmp/bad.yaml"
    expect_scene_error "$1" "$tmp/bad.yaml" "$3" "$4"
}
badp "goal planning without a budget" "{cluster_size: 8}" "14:16:" "missing: expected \`budget: EXPANSIONS\`"
badp "a budget of 0" "{budget: 0}" "14:25:" "expected a whole number in [1,"
badp "clusters too small" "{budget: 10, cluster_size: 3}" "14:43:" "expected a whole number in [4, 64]"
badp "too many requests" "{budget: 10, max_requests: 2000000}" "14:43:" "expected a whole number in [1, 1048576]"
badp "an unknown key" "{budget: 10, slices: 3}" "14:29:" "unknown key 'slices'"
badp "not a mapping" "100" "14:16:" "expected a mapping"
printf 'name: no map\nworld: {size: [20, 10]}\ncrowds:\n  - {name: p, agents: [[1.5, 1.5]]}\ngoal_planning: {budget: 10}\n' >"$tmp/nomap.yaml"
expect_scene_error "goal planning without a map" "$tmp/nomap.yaml" "5:16:" "the scene has none"
repo=$(cd "$(dirname "$0")/.." && pwd)
# Goal planning in a building: the office's two visitors sent to a point upstairs and one of
# the staff to a point downstairs, planned over the steps across the stairs: every path found by
# the planner (none planned at once, none unreachable), the two visitors upstairs at the end,
# and the same hash on 1 and 3 threads.
{
    cat "$repo/scenes/office.yaml"
    printf 'agent_goals:\n'
    printf '  - {agent: [visitors, 0], point: [17.25, 2.75], radius: 0.6}\n'
    printf '  - {agent: [visitors, 1], point: [17.25, 2.75], radius: 0.6, priority: 2}\n'
    printf '  - {agent: [staff, 0], point: [6.25, 5.75], radius: 0.6}\n'
    printf 'goal_planning: {budget: 50, cluster_size: 8}\n'
} >"$tmp/stairs.yaml"
run run "$tmp/stairs.yaml" --headless --threads 2 --trajectories "$tmp/s.csv" --json "$tmp/s.json"
if [[ $rc -eq 0 ]] && cp "$tmp/out" "$tmp/sreport" && python3 - "$tmp/s.csv" "$tmp/s.json" >"$tmp/err" 2>&1 <<'PY'; then
import csv, json, sys
last = {}
for r in csv.DictReader(open(sys.argv[1])):
    last[int(r["id"])] = r
g = json.load(open(sys.argv[2]))["goal_planning"]
assert g["answered"] >= 3 and g["at_once"] == 0 and g["unreachable"] == 0 and g["waiting"] == 0, g
# The office's crowds in order: 40 staff (ids 0-39), then the visitors (40, 41, ...).
for v in (40, 41):
    assert last[v]["level"] == "1", (v, last[v])
PY
    pass "goal planning across stairs: planned over the steps, visitors upstairs"
else
    fail "goal planning across stairs" "exit code $rc: $(cat "$tmp/err")"
fi
expect_same_hash "$tmp/stairs.yaml" "$tmp/sreport"
finish
