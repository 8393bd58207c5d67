#!/usr/bin/env bash
# Squads at goals in confined places, through `throng run`'s report and JSON: two squads (a box
# and a column) sent into one dead-end corridor arrive, on 0.25 and 0.5 m cells, in corridors
# 1.5 to 4 m wide, with two seeds, each within 60 s; a squad that cannot fit at its goal
# (tests/data/squads_no_room.yaml) is reported as having no room, in the text and the JSON,
# instead of as merely not arrived.
#
# usage: test_squads_fit_cli.sh path/to/throng path/to/tests/data
set -u
. "$(dirname "$0")/lib.sh"

bin=${1:?usage: test_squads_fit_cli.sh path/to/throng path/to/tests/data}
data=${2:?usage: test_squads_fit_cli.sh path/to/throng path/to/tests/data}
need python3 "to write the scenes and read the JSON back"

# dead_end WIDTH CELL SEED: a 40 x 14 m yard with a corridor WIDTH metres wide running east
# from x = 15 to its closed end at x = 34; a box of 7 has its goal 1.5 m from the end, a
# column of 7 its goal at x = 20, behind it: room for both, 0.8 m apart, single file.
dead_end() {
    python3 - "$@" <<'PY'
import sys
wid, cell, seed = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
cols, rows = int(40 / cell), int(14 / cell)
print(f"name: dead_end\nseed: {seed}\nmap:\n  cell_size: {cell}\n  legend:\n    '#': wall\n"
      "    '.': open\n  ascii: |")
for j in range(rows):
    y = (rows - 1 - j + 0.5) * cell
    line = ""
    for i in range(cols):
        x = (i + 0.5) * cell
        edge = i in (0, cols - 1) or j in (0, rows - 1)
        shut = x >= 15 and not (abs(y - 7) < wid / 2 and x < 34)
        line += "#" if edge or shut else "."
    print("    " + line)
print("crowds:\n  - {name: infantry, separation_radius: 0.8, max_speed: 3, max_force: 12}\n"
      "squads:\n"
      "  - {crowd: infantry, count: 7, formation: box, start: [6, 4], goal: [32.5, 7]}\n"
      "  - {crowd: infantry, count: 7, formation: column, start: [6, 10], goal: [20, 7]}")
PY
}

# check_arrived NAME JSON REPORT LIMIT_S: every squad arrived within LIMIT_S, none without room,
# and the text report's squad lines agree.
check_arrived() {
    if python3 - "$2" "$3" "$4" >"$tmp/err" 2>&1 <<'PY'; then pass "$1"; else fail "$1" "$(cat "$tmp/err")"; fi
import json, sys
j = json.load(open(sys.argv[1]))
limit = float(sys.argv[3])
lines = [l for l in open(sys.argv[2]) if l.startswith("squad ")]
assert len(j["squads"]) == 2 and len(lines) == 2, (j["squads"], lines)
for q, line in zip(j["squads"], lines):
    assert q["arrived"] and not q["no_room"] and not q["stuck"], q
    assert q["arrived_s"] is not None and q["arrived_s"] <= limit, q
    assert "arrived at" in line and "no room" not in line, line
PY
}

for cell in 0.25 0.5; do
    for width in 1.5 2 3 4; do
        for seed in 1 2; do
            dead_end "$width" "$cell" "$seed" >"$tmp/d.yaml"
            run run "$tmp/d.yaml" --headless --steps 3600 --json "$tmp/d.json"
            if [[ $rc -ne 0 ]]; then
                fail "dead end $width m, cell $cell, seed $seed" "exit code $rc"
                continue
            fi
            cp "$tmp/out" "$tmp/d.txt"
            check_arrived "dead end $width m, cell $cell, seed $seed: box and column arrive in 60 s" \
                "$tmp/d.json" "$tmp/d.txt" 60
        done
    done
done

# ---- a squad with no room at its goal ----------------------------------------------------

run run "$data/squads_no_room.yaml" --headless --steps 1800 --json "$tmp/n.json"
if [[ $rc -ne 0 ]]; then
    fail "no room" "exit code $rc"
elif python3 - "$tmp/n.json" "$tmp/out" >"$tmp/err" 2>&1 <<'PY'; then
import json, sys
q = json.load(open(sys.argv[1]))["squads"][0]
assert q["no_room"] and not q["arrived"] and q["arrived_s"] is None, q
line = [l for l in open(sys.argv[2]) if l.startswith("squad ")][0]
assert "not arrived" in line and "no room: its members do not fit at its goal" in line, line
PY
    pass "a squad that cannot fit at its goal says it has no room (text and JSON)"
else
    fail "no room" "$(cat "$tmp/err")"
fi

finish
