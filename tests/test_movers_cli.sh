#!/usr/bin/env bash
# Crash and turn to a point, as a user reaches it through `throng run` and `throng check`:
#
#   - walkers in a hall walk straight east to a point behind a block that reaches 3 m north of
#     their line and 9 m south of it; with `hand: nearest` each goes round on the north side,
#     and with `hand: left` on the south side (the trajectories say which);
#   - the report's movers line counts the walkers within `arrive_radius` of the point, and the
#     JSON's `arrived` agrees with the final positions in the trajectories; those pressed
#     behind them are queued, not stalled;
#   - the same state hash on 1 and 3 threads;
#   - boids crashing and turning pass a free-standing pillar, whatever the gap beside it, the
#     cell size, the hand and the seed (none held against a corner by its walls' push), and
#     in the shipped crash_and_turn scene all reach their point at seeds 1-3; the shipped
#     wall followers are never held up;
#   - the scene errors: `heading` and `to` together, a point in a wall, `nearest` on a wall
#     follower and `arrive_radius` without a point, each at its line and column.
#
# usage: test_movers_cli.sh path/to/throng
set -u
. "$(dirname "$0")/lib.sh"

bin=${1:?usage: test_movers_cli.sh path/to/throng}
need_executable "$bin"
need python3 "to read the files back"

# hall HAND: a 60 x 30 m hall with a block at x 28..32 m, y 5..18 m; six walkers at y 14.2 m
# head for (54.5, 14.5) with hand HAND.
hall() {
    python3 - "$1" <<'EOF'
import sys
W, H = 60, 30
rows = []
for y in range(H - 1, -1, -1):  # the first text row is the north edge
    rows.append("".join(
        "#" if x in (0, W - 1) or y in (0, H - 1) or (28 <= x <= 31 and 5 <= y <= 17) else "."
        for x in range(W)))
print(f"""name: crash to a point
seed: 4
steps: 4800
map:
  cell_size: 1.0
  legend: {{'#': wall, '.': open}}
  ascii: |""")
for r in rows:
    print("    " + r)
print(f"""crowds:
  - name: walkers
    model: pedestrian
    agents: [[3.5, 14.2], [5.5, 14.2], [7.5, 14.2], [9.5, 14.2], [11.5, 14.2], [13.5, 14.2]]
    goal: {{crash_and_turn: {{to: [54.5, 14.5], hand: {sys.argv[1]}, arrive_radius: 1.0}}}}""")
EOF
}

for hand in nearest left; do
    hall $hand >"$tmp/$hand.yaml"
    run run "$tmp/$hand.yaml" --headless --threads 1 --trajectories "$tmp/$hand.csv" \
        --trajectory-every 30 --json "$tmp/$hand.json"
    if [[ $rc -ne 0 ]]; then
        fail "hand $hand: run" "exit code $rc"
        continue
    fi
    cp "$tmp/out" "$tmp/$hand.out"
    if python3 - "$tmp/$hand.csv" "$hand" >"$tmp/err" 2>&1 <<'EOF'; then
import csv, sys
north, south = {}, {}
for r in csv.DictReader(open(sys.argv[1])):
    x, y = float(r["x"]), float(r["y"])
    if 28 <= x < 32:
        (north if y > 14.5 else south)[r["id"]] = True
want = "north" if sys.argv[2] == "nearest" else "south"
got = {i: ("north" if i in north else "") + ("south" if i in south else "")
       for i in set(north) | set(south)}
assert len(got) == 6, f"{len(got)} walkers passed the block, expected 6"
bad = {i: g for i, g in got.items() if g != want}
assert not bad, f"expected every walker {want} of the block, found {bad}"
EOF
        pass "hand $hand: every walker goes round on the $([[ $hand == nearest ]] && echo north || echo south) side"
    else
        fail "hand $hand: the side" "check failed"
    fi
    if python3 - "$tmp/$hand.csv" "$tmp/$hand.json" "$tmp/$hand.out" >"$tmp/err" 2>&1 <<'EOF'; then
import csv, json, math, re, sys
last = {}
for r in csv.DictReader(open(sys.argv[1])):
    last[r["id"]] = (float(r["x"]), float(r["y"]))
within = sum(math.hypot(x - 54.5, y - 14.5) <= 1.0 for x, y in last.values())
assert within >= 3, f"only {within} walkers within 1 m of the point"
near = sum(math.hypot(x - 54.5, y - 14.5) <= 2.0 for x, y in last.values())
assert near == 6, f"{6 - near} walkers ended more than 2 m from the point"
movers = json.load(open(sys.argv[2]))["movers"]
assert len(movers) == 1 and movers[0]["goal"] == "crash and turn", movers
assert movers[0]["arrived"] == within, f"JSON arrived {movers[0]['arrived']}, trajectories {within}"
text = open(sys.argv[3]).read()
m = re.search(r"movers +walkers \(crash and turn\): 6 agent\(s\), (\d+) at the point "
              r"\(54\.5, 14\.5; within 1\.0 m\), (\d+) on the way", text)
assert m, "no movers line in the report"
assert int(m.group(1)) == within and int(m.group(2)) == 6 - within, m.group(0)
assert re.search(r"^stalled +none", text, re.M), "walkers queued at the point judged stalled"
EOF
        pass "hand $hand: report and JSON count the walkers at the point"
    else
        fail "hand $hand: arrivals" "check failed"
    fi
done

run run "$tmp/nearest.yaml" --headless --threads 3 --steps 1500
h3=$(grep '^hash' "$tmp/out")
run run "$tmp/nearest.yaml" --headless --threads 1 --steps 1500
h1=$(grep '^hash' "$tmp/out")
if [[ -n $h1 && $h1 == "$h3" ]]; then pass "same hash on 1 and 3 threads"; else
    fail "same hash on 1 and 3 threads" "1: '$h1', 3: '$h3'"
fi

# pillar GAP CELL HAND SEED: a 60 x 20 m hall drawn at CELL metres, a pillar at x 30..33 m
# standing free with GAP metres open north and south of it; 20 boids flying west from the
# east end crash and turn with hand HAND. Boids feel walls through the wall-distance field,
# sampled at cell centres: beside the pillar's corners the field's little slope along the wall
# comes from the sampling, not from a wall, and once pushed boids back against their way.
pillar() {
    python3 - "$@" <<'EOF'
import sys
gap, cell, hand, seed = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4]
W, H = round(60 / cell), round(20 / cell)
def wall(x, y):  # cell centre in metres
    cx, cy = (x + 0.5) * cell, (y + 0.5) * cell
    return (x in (0, W - 1) or y in (0, H - 1)
            or (30 <= cx < 33 and cell + gap <= cy < 20 - cell - gap))
print(f"name: pillar\nseed: {seed}\nsteps: 3600\nmap:\n  cell_size: {cell}\n"
      "  legend: {'#': wall, '.': open}\n  ascii: |")
for y in range(H):
    print("    " + "".join("#" if wall(x, y) else "." for x in range(W)))
print(f"""crowds:
  - name: boids
    max_speed: 2
    max_force: 30
    flow_weight: 3
    separation_radius: 0.8
    goal: {{crash_and_turn: {{heading: [-1, 0], hand: {hand}}}}}
    count: 20
    spawn: {{rect: [46, 3, 10, 14]}}""")
EOF
}

# Every boid passes the pillar, whatever the gap, the cell size, the hand and the seed.
for gap in 1.5 2 3; do
    for cell in 1.0 0.5; do
        for hand in left right; do
            for seed in 1 2 3; do
                pillar $gap $cell $hand $seed >"$tmp/pillar.yaml"
                run run "$tmp/pillar.yaml" --headless --threads 1 --trajectories \
                    "$tmp/pillar.csv" --trajectory-every 600
                if [[ $rc -ne 0 ]]; then
                    fail "pillar gap $gap cell $cell $hand seed $seed" "exit code $rc"
                    continue
                fi
                if ! python3 - "$tmp/pillar.csv" >"$tmp/err" 2>&1 <<'EOF'; then
import csv, sys
last = {}
for r in csv.DictReader(open(sys.argv[1])):
    last[r["id"]] = float(r["x"])
behind = sorted(round(x, 1) for x in last.values() if x >= 30)
assert len(last) == 20 and not behind, \
    f"{len(behind)} of {len(last)} boids east of the pillar's west face: x {behind}"
EOF
                    fail "pillar gap $gap m, cell $cell m, hand $hand, seed $seed" \
                        "$(tail -1 "$tmp/err")"
                fi
            done
        done
    done
done
pass "boids crashing and turning pass a pillar with 1.5-3 m gaps at 0.5 and 1 m cells"

# The shipped scene: at seeds 1-3 every westward boid reaches its point at the west end past
# the pillar (the report's movers line and the JSON agree), and none is stalled at the end.
scene="$(cd "$(dirname "$0")/.." && pwd)/scenes/crash_and_turn.yaml"
for seed in 1 2 3; do
    run run "$scene" --headless --threads 2 --seed $seed --json "$tmp/ct.json"
    if [[ $rc -ne 0 ]]; then
        fail "crash_and_turn seed $seed" "exit code $rc"
        continue
    fi
    if python3 - "$tmp/ct.json" "$tmp/out" >"$tmp/err" 2>&1 <<'EOF'; then
import json, re, sys
movers = {m["crowd"]: m for m in json.load(open(sys.argv[1]))["movers"]}
west = movers["westward"]
assert west["agents"] == 20 and west["arrived"] == 20, west
text = open(sys.argv[2]).read()
assert re.search(r"westward \(crash and turn\): 20 agent\(s\), 20 at the point", text), "movers line"
assert re.search(r"^stalled +none", text, re.M), "stalled at the end"
EOF
        pass "crash_and_turn seed $seed: every boid past the pillar to its point, none stalled"
    else
        fail "crash_and_turn seed $seed" "$(tail -1 "$tmp/err")"
    fi
done

# The shipped wall_follow scene: boids tracing walls with either hand are never held up (none
# without progress for 10 s at any time of the run).
run run "$(cd "$(dirname "$0")/.." && pwd)/scenes/wall_follow.yaml" --headless --threads 2
if [[ $rc -eq 0 ]] && grep -q '^stalls  *none during the run' "$tmp/out"; then
    pass "wall_follow: no wall follower held up during the run"
else
    fail "wall_follow: no wall follower held up during the run" "$(grep '^stalls' "$tmp/out")"
fi

# bad KEYS WHERE SAYS: the goal `crash_and_turn: {KEYS}` (or a whole goal when KEYS starts
# with `goal:`) is refused at line:column WHERE with SAYS.
bad() {
    local goal=$2
    [[ $goal == goal:* ]] || goal="goal: {crash_and_turn: {$goal}}"
    cat >"$tmp/bad.yaml" <<EOF
name: bad
map:
  cell_size: 1.0
  legend: {'#': wall, '.': open}
  ascii: |
    ######
    #....#
    #.##.#
    ######
crowds:
  - name: c
    count: 1
    spawn: {rect: [1, 2, 1, 1]}
    $goal
EOF
    expect_scene_error "$1" "$tmp/bad.yaml" "$3" "$4"
}
bad "heading and to together" "heading: [1, 0], to: [1.5, 2.5]" "14:50:" "not both"
bad "a point in a wall" "to: [2.5, 1.5]" "14:33:" "inside a wall"
bad "nearest on a wall follower" "goal: {wall_follow: {hand: nearest}}" "14:32:" "right or left"
bad "arrive_radius without a point" "heading: [1, 0], arrive_radius: 2" "14:61:" "only with"
finish
