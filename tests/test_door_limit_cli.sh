#!/usr/bin/env bash
# Doors with a flow limit (`max_flow` of a bunker or an exit), reached as a user reaches them:
# scene keys, `throng run`'s report and JSON. A crowd of 100 in a room leaves through a 1 m door
# drawn three ways (a gap in a thick wall into an exit bunker at 0.5 m cells, a gap in a thin
# wall at 0.25 m cells with an exit past it, the same at 0.1 m cells): with the limit the flow
# from the first to the last person out, read from the trajectories (an independent record), is
# the limit within 1 % above and 10 % below, whatever the drawing; without it the crowd's own
# flow is faster than the limit used. The limit is reported, holds the same hash at 1, 2 and 3
# threads, and bad values are refused at their line and column.
#
# usage: test_door_limit_cli.sh path/to/throng path/to/scenes
set -u
. "$(dirname "$0")/lib.sh"

bin=${1:?usage: test_door_limit_cli.sh path/to/throng path/to/scenes}
scenes=${2:?usage: test_door_limit_cli.sh path/to/throng path/to/scenes}
need python3 "to write the scenes and read the trajectories"

# A room 8 m x 5 m, its east wall one cell thick with a 1 m gap in the middle, then open ground
# to the exit cells E, the last 0.5 m before the east edge; cell size `cs`.
thin_wall_room() { # FILE CELL_SIZE LIMIT_LINE
    python3 - "$1" "$2" "$3" <<'PY'
import sys
path, cs, limit = sys.argv[1], float(sys.argv[2]), sys.argv[3]
W, H = round(9.75 / cs), round(5.5 / cs)
wall_x = round(8.25 / cs)
rows = []
for y in range(H):
    row = ""
    for x in range(W):
        if y in (0, H - 1) or x == 0:
            row += "#"
        elif x == wall_x:
            row += "." if abs((y + 0.5) * cs - 2.75) < 0.5 else "#"
        elif x >= W - round(0.5 / cs):
            row += "E"
        else:
            row += "."
    rows.append(row)
with open(path, "w") as f:
    f.write(f"name: door in a thin wall\nseed: 3\nsteps: 12000\nmap:\n  cell_size: {cs}\n")
    f.write("  legend: {'#': wall, '.': open, 'E': open}\n  ascii: |\n")
    f.writelines(f"    {r}\n" for r in rows)
    f.write("crowds:\n  - name: occupants\n    model: pedestrian\n    count: 100\n")
    f.write("    spawn: {rect: [0.5, 0.5, 7.5, 4.5]}\n    goal:\n      destinations: [{legend: E}]\n")
    f.write("exits:\n  - {name: door, cells: E" + (f", max_flow: {limit}" if limit else "") + "}\n")
PY
}

# flow CSV: (N - 1) / (t_last - t_first) over the times each agent was last seen plus a step.
flow() {
    python3 - "$1" <<'PY'
import csv, sys
last, dt = {}, None
for r in csv.DictReader(open(sys.argv[1])):
    t = float(r["time"])
    if dt is None and t > 0: dt = t
    last[r["id"]] = t
ts = sorted(t + dt for t in last.values())
print(f"{(len(ts) - 1) / (ts[-1] - ts[0]):.4f} {len(ts)}")
PY
}

cp "$scenes/verification/door_1m_free_050.yaml" "$tmp/thick.yaml"
printf 'bunkers:\n  - {name: exit, max_flow: 1.0}\n' >>"$tmp/thick.yaml"
thin_wall_room "$tmp/thin25.yaml" 0.25 1.33
thin_wall_room "$tmp/thin10.yaml" 0.1 1.33
thin_wall_room "$tmp/free25.yaml" 0.25 ""

for c in "thick 1.0" "thin25 1.33" "thin10 1.33"; do
    set -- $c
    run run "$tmp/$1.yaml" --headless --threads 2 --trajectories "$tmp/$1.csv" --json "$tmp/$1.json" \
        --results "$tmp/$1.results"
    cp "$tmp/out" "$tmp/$1.txt"
    read -r q n < <(flow "$tmp/$1.csv")
    if [[ $rc -eq 0 && $n -eq 100 ]] && python3 -c "import sys; q, m = map(float, sys.argv[1:]); sys.exit(not (0.9 * m <= q <= 1.01 * m))" "$q" "$2"; then
        pass "$1: $q persons/s through a door limited to $2"
    else fail "$1: flow through a door limited to $2" "exit $rc, $n out, $q persons/s"
    fi
done

# A crowd whose own goal cells are its exit (`exit: true`) limits that exit in its goal.
python3 - "$tmp/thin25.yaml" "$tmp/goal.yaml" <<'PY'
import sys
text = open(sys.argv[1]).read()
text = text[:text.index("exits:")]
text = text.replace("      destinations: [{legend: E}]\n",
                    "      destinations: [{legend: E}]\n      exit: true\n      max_flow: 1.0\n")
open(sys.argv[2], "w").write(text)
PY
run run "$tmp/goal.yaml" --headless --threads 2 --trajectories "$tmp/goal.csv"
read -r q n < <(flow "$tmp/goal.csv")
if [[ $rc -eq 0 && $n -eq 100 ]] && grep -Eq '^exit +occupants +100 left, .*, at most 1 persons/s$' "$tmp/out" &&
    python3 -c "import sys; q = float(sys.argv[1]); sys.exit(not (0.9 <= q <= 1.01))" "$q"; then
    pass "goal exit: $q persons/s through a goal exit limited to 1"
else fail "goal exit: flow through a goal exit limited to 1" "exit $rc, $n out, $q persons/s"
fi
sed 's/      exit: true//' "$tmp/goal.yaml" >"$tmp/bad.yaml"
line=$(grep -n 'max_flow' "$tmp/bad.yaml" | cut -d: -f1)
expect_scene_error "a goal's max_flow without exit: true is refused" "$tmp/bad.yaml" "$line:17:" 'expected `exit: true` in this goal'

# Reported: the bunker's and the exit's lines, and the JSON.
if grep -Eq '^bunker +exit +100 sheltered, at most 1 persons/s$' "$tmp/thick.txt" &&
    grep -Eq '^exit +door +100 left, .*, at most 1\.33 persons/s$' "$tmp/thin25.txt" &&
    python3 - "$tmp/thick.json" "$tmp/thin25.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))["bunkers"][0]
e = json.load(open(sys.argv[2]))["exits"][0]
assert b["max_flow"] == 1.0 and abs(e["max_flow"] - 1.33) < 1e-6, (b, e)
PY
then pass "the limits are in the report and the JSON"
else fail "the limits are in the report and the JSON" "see the reports"
fi

# The results page's table of places gives each door's limit in its own column, empty without.
limit_cell() {
    python3 - "$1" <<'PY'
import re, sys
html = open(sys.argv[1]).read()
table = html[html.index("<h2>Exits, bunkers, stairs and lines</h2>"):]
head = re.findall(r"<th>(.*?)</th>", table[:table.index("</tr>")])
row = re.findall(r"<td[^>]*>(.*?)</td>", table.split("</tr>")[1])
print(row[head.index("flow limit")] or "none")
PY
}
run run "$tmp/free25.yaml" --headless --threads 2 --results "$tmp/free25.results"
if [[ "$(limit_cell "$tmp/thick.results/index.html")" == "1.00 /s" &&
    "$(limit_cell "$tmp/thin25.results/index.html")" == "1.33 /s" &&
    "$(limit_cell "$tmp/free25.results/index.html")" == "none" ]]; then
    pass "the results page gives each door's flow limit"
else fail "the results page gives each door's flow limit" "$(limit_cell "$tmp/thick.results/index.html") $(limit_cell "$tmp/thin25.results/index.html") $(limit_cell "$tmp/free25.results/index.html")"
fi

# Without the limit the same room empties faster than the limit used above: the limit acts.
run run "$tmp/free25.yaml" --headless --threads 2 --trajectories "$tmp/free25.csv" --json "$tmp/free.json"
read -r q n < <(flow "$tmp/free25.csv")
if [[ $rc -eq 0 && $n -eq 100 ]] && python3 -c "import sys; sys.exit(not float(sys.argv[1]) > 1.4)" "$q" &&
    python3 -c "import json, sys; sys.exit(json.load(open(sys.argv[1]))['exits'][0]['max_flow'] is not None)" "$tmp/free.json"; then
    pass "without a limit the crowd makes its own flow ($q persons/s), max_flow null"
else fail "without a limit the crowd makes its own flow" "exit $rc, $n out, $q persons/s"
fi

expect_same_hash "$tmp/thin25.yaml" "$tmp/thin25.txt"

# Bad values: refused where they stand.
for bad in "0:number" "-1:number" "fast:number" "2000:number"; do
    v=${bad%%:*}
    sed "s/max_flow: 1.33/max_flow: $v/" "$tmp/thin25.yaml" >"$tmp/bad.yaml"
    line=$(grep -n 'max_flow' "$tmp/bad.yaml" | cut -d: -f1)
    col=$(grep 'max_flow' "$tmp/bad.yaml" | awk -v v="$v" '{print index($0, "max_flow: " v) + 10}')
    expect_scene_error "exits max_flow: $v is refused" "$tmp/bad.yaml" "$line:$col:" "exits[0].max_flow"
done
printf 'bunkers:\n  - {name: exit, max_flow: -2}\n' >"$tmp/tail.yaml"
sed '/^bunkers:/,$d' "$tmp/thick.yaml" >"$tmp/bad.yaml"
cat "$tmp/tail.yaml" >>"$tmp/bad.yaml"
line=$(grep -n 'max_flow' "$tmp/bad.yaml" | cut -d: -f1)
col=$(grep 'max_flow' "$tmp/bad.yaml" | awk '{print index($0, "max_flow: -2") + 10}')
expect_scene_error "bunkers max_flow: -2 is refused" "$tmp/bad.yaml" "$line:$col:" "bunkers[0].max_flow"

finish
