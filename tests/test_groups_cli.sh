#!/usr/bin/env bash
# Groups as a user reaches them, through `throng run` and `throng check`:
#
#   - a crowd of 60 visitors in groups of 2 to 5 neighbours (`crowd`, `size`) and a listed group
#     of a family with a slow grandparent (`members`): the report's `groups` line and the JSON's
#     `groups` entry agree, every visitor is in a group (but perhaps the last, alone), and the
#     number of groups lies between 60 / 5 and 60 / 2;
#   - the family, fleeing to the same door as the visitors, arrives within 6 s of each other
#     (the trajectories' last samples), where its fast members alone would be 20 s ahead;
#   - the same state hash on 1 and 3 threads;
#   - scene errors at their line and column.
#
# usage: test_groups_cli.sh path/to/throng
set -u
. "$(dirname "$0")/lib.sh"

bin=${1:?usage: test_groups_cli.sh path/to/throng}
need_executable "$bin"
need python3 "to read the files back"

python3 - >"$tmp/groups.yaml" <<'PY'
rows = ["#" * 82] + ["#" + "." * 80 + "#" for _ in range(20)] + ["#" * 82]
rows[10] = rows[10][:-1] + "E"
rows[11] = rows[11][:-1] + "E"
vis = ", ".join(f"[{2 + 1.0 * (i % 10):.1f}, {1.5 + 0.8 * (i // 10):.1f}]" for i in range(60))
print("""name: groups
seed: 3
steps: 5400
map:
  cell_size: 0.5
  legend: {'#': wall, '.': open, 'E': {bunker: door}}
  ascii: |
""" + "\n".join("    " + r for r in rows) + f"""
crowds:
  - name: visitors
    model: pedestrian
    behavior: flee
    agents: [{vis}]
  - name: family
    model: pedestrian
    behavior: flee
    desired_speed: 1.4
    desired_speed_sd: 0
    agents: [[2, 7.5], [3, 7.5], [2, 8.5]]
  - name: grandad
    model: pedestrian
    behavior: flee
    desired_speed: 0.5
    desired_speed_sd: 0
    agents: [[3, 8.5]]
groups:
  - crowd: visitors
    size: [2, 5]
  - members: [[family, 0], [family, 1], [family, 2], [grandad, 0]]
    spread: 1.5""")
PY

run run "$tmp/groups.yaml" --headless --threads 2 --trajectories "$tmp/t.csv" --json "$tmp/r.json"
if [[ $rc -ne 0 ]]; then
    fail "run" "exit code $rc"
else
    cp "$tmp/out" "$tmp/report"
    if python3 - "$tmp/t.csv" "$tmp/r.json" "$tmp/report" >"$tmp/err" 2>&1 <<'PY'; then
import csv, json, re, sys
last, start = {}, {}
for r in csv.DictReader(open(sys.argv[1])):
    start.setdefault(r["id"], (float(r["x"]), float(r["y"])))
    last[r["id"]] = float(r["time"])
fam = [i for i, (x, y) in start.items() if y > 7]
assert len(fam) == 4, fam
ts = sorted(last[i] for i in fam)
assert ts[-1] - ts[0] < 6.0, f"family arrivals {ts}"
assert ts[-1] < 5400 / 60 - 1, "the family did not all arrive"
g = json.load(open(sys.argv[2]))["groups"]
assert 12 + 1 <= g["groups"] <= 30 + 1, g
assert g["members"] in (63, 64), g
assert g["present"] == 0, g
m = re.search(r"^groups +(\d+) \((\d+) members\): 0 still in the world", open(sys.argv[3]).read(), re.M)
assert m and int(m.group(1)) == g["groups"] and int(m.group(2)) == g["members"], m
PY
        pass "a family arrives together; report and JSON agree"
    else
        fail "groups" "check failed"
    fi
    expect_same_hash "$tmp/groups.yaml" "$tmp/report"
fi

# bad NAME GROUPS WHERE SAYS: a scene whose `groups:` is GROUPS (one line).
bad() {
    printf 'name: bad\nworld: {size: [20, 20]}\ncrowds:\n  - {name: p, model: pedestrian, agents: [[2, 2], [3, 3], [4, 4]]}\n  - {name: b, agents: [[5, 5]]}\ngroups: %s\n' \
        "$2" >"$tmp/bad.yaml"
    expect_scene_error "$1" "$tmp/bad.yaml" "$3" "$4"
}
bad "members and crowd together" "[{members: [[p, 0], [p, 1]], crowd: p}]" "6:45:" "found both"
bad "neither members nor crowd" "[{spread: 1}]" "6:10:" "missing: expected \`members"
bad "one member" "[{members: [[p, 0]]}]" "6:20:" "expected 2 to 32 members"
bad "an unknown crowd" "[{members: [[q, 0], [p, 1]]}]" "6:22:" "expected the name of a crowd"
bad "a boids crowd" "[{crowd: b}]" "6:18:" "not of the pedestrian model"
bad "a member twice" "[{members: [[p, 0], [p, 0]]}]" "6:29:" "listed twice"
bad "sizes upside down" "[{crowd: p, size: [5, 2]}]" "6:27:" "least <= most"
bad "a size of 1" "[{crowd: p, size: [1, 3]}]" "6:28:" "expected a number in [2, 32]"
bad "no such agent" "[{members: [[p, 0], [p, 7]]}]" "6:29:" "no agent 7"
bad "spread out of range" "[{crowd: p, spread: 60}]" "6:29:" "spread"
finish
