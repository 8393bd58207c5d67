#!/usr/bin/env bash
# Terrain events as a user reaches them, through `throng run` and `throng check`:
#
#   - a door that reopens: a crowd flees to a hall behind a wall whose one door a `block`
#     closes at 0 s and an `open` lifts at 15 s. Before 15 s nobody shelters and everybody is
#     stranded (no route); afterwards all 20 shelter, none before the door opened, a squad
#     that waited behind the door arrives after it (it re-planned), and visitors walking a
#     congestion-aware destination field leave by their exit behind the door, all after it
#     opened; the same hash for 1, 2, 3 and 8 threads;
#   - the flood scene's squad arrives (its column ends against the border wall at the goal);
#   - `break_wall` over cells only a `block` closed is refused at the event's file:line:column,
#     naming `open`; one over cells with no destructible wall is refused too; one over a
#     destructible wall, and the shipped scenes, still load;
#   - a squad's `rigid` key: a rigid box waits before a corridor narrower than its shape, the
#     default one squeezes through and arrives.
#
# usage: test_events_cli.sh path/to/throng path/to/source
set -u
. "$(dirname "$0")/lib.sh"

bin=${1:?usage: test_events_cli.sh path/to/throng path/to/source}
src=${2:?usage: test_events_cli.sh path/to/throng path/to/source}
need_executable "$bin"
need python3 "to read the JSON back"

judge() {
    local name=$1
    shift
    if python3 - "$@" >"$tmp/err" 2>&1; then pass "$name"; else fail "$name" "check failed"; fi
}

# ---- a door that reopens --------------------------------------------------------------------
# The wall is column 11; its one door is cell (11, 5) (y counts up from the bottom row).
door_scene() { # door_scene FILE EVENTS...
    local file=$1
    shift
    cat >"$file" <<'EOF'
name: door
seed: 4
steps: 3600
map:
  cell_size: 1.0
  legend:
    '#': wall
    '.': open
    's': spawn
    'H': {bunker: hall}
    'E': open
  ascii: |
    ########################
    #..........#...........#
    #.sssss....#...........#
    #.sssss....#......HHH..#
    #.sssss....#......HHH..#
    #.sssss....#......HHH..#
    #.sssss................#
    #..........#...........#
    #..........#...........#
    #..........#...........#
    #..........#.........E.#
    ########################
crowds:
  - {name: town, count: 20, model: pedestrian, behavior: flee, spawn: {cells: 's'}}
  - {name: guards, max_speed: 3, max_force: 12, separation_radius: 0.8}
  - name: visitors
    count: 8
    model: pedestrian
    spawn: {rect: [2, 1, 4, 2]}
    goal: {destinations: [{legend: E}], congestion: {weight: 0.5, every: 15}, exit: true}
squads:
  - {crowd: guards, count: 3, formation: column, spacing: 1, start: [3.5, 9.5], goal: [20.5, 9.5], tolerance: 1}
events:
EOF
    local e
    for e in "$@"; do echo "  - $e" >>"$file"; done
}
door_scene "$tmp/door.yaml" "{at: 0s, block: [11, 5, 11, 5]}" "{at: 15s, open: [11, 5, 11, 5]}"

run run "$tmp/door.yaml" --headless --threads 1 --steps 880 --json "$tmp/closed.json"
if [[ $rc -ne 0 ]]; then fail "door closed: run" "exit code $rc"; else
    judge "door closed: nobody shelters, everybody is stranded, the squad waits" \
        "$tmp/closed.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
o = j["outcome"]
assert o["sheltered"] == 0 and o["stranded"] == 20, o
assert not j["squads"][0]["arrived"], j["squads"]
assert j["exits"][0]["exited"] == 0, j["exits"]
EOF
fi

hashes=()
for t in 1 2 3 8; do
    run run "$tmp/door.yaml" --headless --threads "$t" --json "$tmp/open$t.json"
    if [[ $rc -ne 0 ]]; then fail "door opens: run with $t threads" "exit code $rc"; continue; fi
    hashes+=("$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["hash"])' "$tmp/open$t.json")")
done
judge "door opens at 15 s: all 20 shelter, the squad arrives, the visitors leave, all after it" \
    "$tmp/open1.json" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
o = j["outcome"]
assert o["sheltered"] == 20 and o["stranded"] == 0, o
assert o["sheltered_50_s"] > 15.0, o  # nobody was in before the door opened
q = j["squads"][0]
assert q["arrived"] and q["arrived_s"] > 15.0, q
e = j["exits"][0]  # the visitors' own exit, through their congestion-aware field
assert e["exited"] == 8 and e["first_s"] > 15.0, e
EOF
if [[ ${#hashes[@]} -eq 4 && ${hashes[0]} == "${hashes[1]}" && ${hashes[0]} == "${hashes[2]}" &&
    ${hashes[0]} == "${hashes[3]}" ]]; then
    pass "door: the same hash for 1, 2, 3 and 8 threads"
else
    fail "door: the same hash for 1, 2, 3 and 8 threads" "hashes ${hashes[*]}"
fi

# ---- the flood scene's squad arrives --------------------------------------------------------
run run "$src/scenes/flood.yaml" --headless --threads 2 --json "$tmp/flood.json"
if [[ $rc -ne 0 ]]; then fail "flood: run" "exit code $rc"; else
    judge "flood: the rescue squad arrives" "$tmp/flood.json" <<'EOF'
import json, sys
q = json.load(open(sys.argv[1]))["squads"][0]
assert q["arrived"] and q["members"] == 5, q
EOF
fi

# ---- break_wall is no longer silent ---------------------------------------------------------
door_scene "$tmp/bw_block.yaml" "{at: 0s, block: [11, 5, 11, 5]}" "{at: 15s, break_wall: [11, 5, 11, 5]}"
run check "$tmp/bw_block.yaml"
# The break_wall value is on the scene's last line (line 37), after "  - {at: 15s, break_wall: ".
if [[ $rc -eq 2 ]] && grep -qF "bw_block.yaml:37:27: events[1].break_wall:" "$tmp/err" &&
    grep -qF 'closed by the block of events[0]' "$tmp/err" && grep -qF 'use `open' "$tmp/err"; then
    pass "check: break_wall over a block is refused at the event, naming open"
else
    fail "check: break_wall over a block is refused at the event, naming open" "exit $rc"
fi
door_scene "$tmp/bw_none.yaml" "{at: 15s, break_wall: [2, 2, 4, 4]}"
run check "$tmp/bw_none.yaml"
if [[ $rc -eq 2 ]] && grep -qF "bw_none.yaml:36:27: events[0].break_wall: expected a destructible wall" "$tmp/err" &&
    ! grep -qF 'use `open' "$tmp/err"; then
    pass "check: break_wall over open ground is refused"
else
    fail "check: break_wall over open ground is refused" "exit $rc"
fi
door_scene "$tmp/bw_ok.yaml" "{at: 15s, break_wall: [0, 0, 5, 5]}"
run check "$tmp/bw_ok.yaml"
if [[ $rc -eq 2 ]]; then pass "check: break_wall over a plain wall is refused"; else
    fail "check: break_wall over a plain wall is refused" "exit $rc"; fi
door_scene "$tmp/bw_dest.yaml" "{at: 15s, break_wall: [11, 0, 11, 11]}"
python3 - "$tmp/bw_dest.yaml" <<'EOF'
import sys
t = open(sys.argv[1]).read()
t = t.replace("'#': wall", "'#': wall\n    'D': destructible", 1)
t = t.replace("#..........#...........#", "#..........D...........#", 1)  # cell (11, 10)
open(sys.argv[1], "w").write(t)
EOF
run check "$tmp/bw_dest.yaml"
if [[ $rc -eq 0 ]]; then pass "check: break_wall over a destructible wall loads"; else
    fail "check: break_wall over a destructible wall loads" "exit $rc"; fi
shipped=0
for f in "$src"/scenes/*.yaml "$src"/examples/*.yaml; do
    [[ -f $f ]] || continue
    run check --threads 1 "$f"
    if [[ $rc -ne 0 ]]; then fail "check: shipped scene $f loads" "exit $rc"; shipped=1; fi
done
[[ $shipped -eq 0 ]] && pass "check: the shipped scenes load"

# ---- a rigid squad waits where its shape does not fit --------------------------------------
# A box of 9 (3 slots, 3 m, across) whose only way east is a corridor two cells wide: rigid, it
# waits at the mouth, reported stuck in the text and the JSON, and never arrives; held by
# potential fields (the default) it squeezes through and arrives. `rigid` takes true or false,
# nothing else.
corridor_scene() { # corridor_scene FILE RIGID
    python3 - "$1" "$2" <<'EOF'
import sys
W, H = 40, 20
walls = [(0, 0, 39, 0), (0, 19, 39, 19), (0, 0, 0, 19), (39, 0, 39, 19), (18, 1, 22, 8),
         (18, 11, 22, 18)]
g = [["."] * W for _ in range(H)]
for x0, y0, x1, y1 in walls:
    for y in range(y0, y1 + 1):
        for x in range(x0, x1 + 1):
            g[y][x] = "#"
rows = "".join("    " + "".join(g[y]) + "\n" for y in range(H - 1, -1, -1))
open(sys.argv[1], "w").write(f"""name: corridor
seed: 1
steps: 3600
map:
  cell_size: 1.0
  legend: {{'#': wall, '.': open}}
  ascii: |
{rows}crowds:
  - {{name: soldiers, max_speed: 3, max_force: 12, separation_radius: 0.8}}
squads:
  - {{crowd: soldiers, count: 9, spacing: 1.5, start: [6, 10], goal: [33, 10], rigid: {sys.argv[2]}}}
""")
EOF
}
for rigid in true false; do
    corridor_scene "$tmp/corridor_$rigid.yaml" $rigid
    run run "$tmp/corridor_$rigid.yaml" --headless --threads 2 --json "$tmp/corridor_$rigid.json"
    if [[ $rc -ne 0 ]]; then fail "corridor, rigid: $rigid: run" "exit code $rc"; continue; fi
    want=$([[ $rigid == true ]] && echo False || echo True)
    judge "corridor, rigid: $rigid: arrived is $want, stuck the opposite" "$tmp/corridor_$rigid.json" \
        "$want" "$tmp/out" <<'EOF'
import json, sys
q = json.load(open(sys.argv[1]))["squads"][0]
arrived = sys.argv[2] == "True"
assert q["arrived"] == arrived and q["stuck"] == (not arrived), q
line = [l for l in open(sys.argv[3]) if l.startswith("squad     1:")][0]
assert ("stuck" in line) == (not arrived), line
EOF
done
corridor_scene "$tmp/corridor_bad.yaml" maybe
run check "$tmp/corridor_bad.yaml"
if [[ $rc -eq 2 ]] && grep -qF "corridor_bad.yaml:31:" "$tmp/err" &&
    grep -qF "squads[0].rigid: expected one of false, true, found" "$tmp/err"; then
    pass "check: rigid takes true or false"
else
    fail "check: rigid takes true or false" "exit $rc"
fi

finish
