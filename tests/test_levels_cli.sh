#!/usr/bin/env bash
# Levels and stairs as a user reaches them, through `throng run` and `throng check`:
#
#   - the two-storey office (scenes/office.yaml): everyone reaches the ground floor's door, the
#     report's `levels` and `stair` lines and the JSON's `levels` and `stairs` agree, the net
#     crossings down equal the walkers who started upstairs (the trajectories' first rows, by
#     their `level` column), and the PedPy text carries each level's elevation as z;
#   - the same state hash on 1, 2 and 3 threads;
#   - scene errors at their line and column, the world's refusals (a seam without its walls, a
#     flight over a wall, a landing off the map) at the stair that asked for them.
#
# usage: test_levels_cli.sh path/to/throng scenes/office.yaml
set -u
. "$(dirname "$0")/lib.sh"

bin=${1:?usage: test_levels_cli.sh path/to/throng path/to/office.yaml}
office=${2:?usage: test_levels_cli.sh path/to/throng path/to/office.yaml}
need_executable "$bin"
need python3 "to read the files back"

run run "$office" --headless --threads 2 --trajectories "$tmp/t.csv" --json "$tmp/r.json"
if [[ $rc -ne 0 ]]; then
    fail "run the office" "exit code $rc"
else
    cp "$tmp/out" "$tmp/report"
    if python3 - "$tmp/t.csv" "$tmp/r.json" "$tmp/report" >"$tmp/err" 2>&1 <<'PY'; then
import csv, json, re, sys
first = {}
for r in csv.DictReader(open(sys.argv[1])):
    first.setdefault(r["id"], int(r["level"]))
upstairs = sum(1 for l in first.values() if l == 1)
assert upstairs == 40 and len(first) == 60, (upstairs, len(first))
j = json.load(open(sys.argv[2]))
assert [l["name"] for l in j["levels"]] == ["ground", "first"], j["levels"]
assert all(l["agents"] == 0 for l in j["levels"]), j["levels"]
net = sum(s["crossed_down"] - s["crossed_up"] for s in j["stairs"])
assert net == upstairs, (net, j["stairs"])
rep = open(sys.argv[3]).read()
assert re.search(r"^outcome +60 sheltered", rep, re.M), rep
assert re.search(r"^levels +ground \(0\.0 m\) 0 agent\(s\), first \(3\.5 m\) 0 agent\(s\)", rep, re.M)
for s in j["stairs"]:
    m = re.search(r"^stair +%s +ground -> first: 0 on it, crossed its top (\d+) time\(s\) down and (\d+) up" % s["name"], rep, re.M)
    assert m and int(m.group(1)) == s["crossed_down"] and int(m.group(2)) == s["crossed_up"], s
    assert abs(s["length_m"] - (3.5 ** 2 + 3.5 ** 2) ** 0.5) < 1e-4, s
PY
        pass "the office empties down its stairs; report, JSON and trajectories agree"
    else
        fail "the office" "$(cat "$tmp/err")"
    fi
    expect_same_hash "$office" "$tmp/report"
fi

run run "$office" --headless --steps 5 --trajectories "$tmp/t.txt"
if [[ $rc -eq 0 ]] && awk '!/^#/ { z[$5]++ } END { exit !(z["0"] > 0 && z["3.5"] > 0 && length(z) == 2) }' "$tmp/t.txt"; then
    pass "PedPy text: z is the level's elevation"
else
    fail "PedPy text: z is the level's elevation" "exit code $rc"
fi

run check "$office"
if [[ $rc -eq 0 ]]; then pass "throng check accepts the office"; else fail "throng check accepts the office" "exit code $rc"; fi

# A small building: level a on cells 0-9, level b on 10-19; the flight [2, 1, 3, 4] climbs north
# to a wall at y = 5, its landing on b at (12..13, 5) with the stairwell (12..13, 4) walled.
# bad NAME STAIRS SAYS: the scene with `stairs: STAIRS` on line 15 refused there, at the column
# of the first occurrence of WHAT in that line (the whole entry when WHAT is '{').
bad() {
    local name=$1 stairs=$2 what=$3 says=$4
    {
        printf 'name: bad\nmap:\n  cell_size: 0.5\n  legend: {%s: wall, %s: open}\n  ascii: |\n' "'#'" "'.'"
        printf '    ####################\n'
        printf '    #.##......#.........\n'
        printf '    #.........#.##......\n'
        printf '    #.........#.##......\n'
        printf '    #.........#.##......\n'
        printf '    #.........#.........\n'
        printf '    ####################\n'
        printf 'levels: [{name: a, cells: [0, 0, 9, 6]}, {name: b, cells: [10, 0, 19, 6], elevation: 3}]\n'
        printf 'crowds: [{name: p, model: pedestrian, agents: [[4.2, 1.2]]}]\n'
        printf 'stairs: %s\n' "$stairs"
    } >"$tmp/bad.yaml"
    local prefix=${stairs%%"$what"*}
    local col=$((${#prefix} + 9))
    expect_scene_error "$name" "$tmp/bad.yaml" "15:$col:" "$says"
}
good='{name: s, cells: [2, 1, 3, 4], up: north, landing: [12, 5]}'
bad "the top of the flight opens onto the floor" "[{name: s, cells: [2, 1, 3, 3], up: north, landing: [12, 5]}]" "{" "beyond the flight's top is open"
bad "the landing has no stairwell" "[{name: s, cells: [2, 1, 3, 4], up: north, landing: [16, 5]}]" "{" "the stairwell must be a wall"
bad "a flight over a wall" "[{name: s, cells: [0, 1, 1, 4], up: north, landing: [12, 5]}]" "{" "the flight covers a wall"
bad "a landing off the map" "[{name: s, cells: [2, 1, 3, 4], up: north, landing: [19, 5]}]" "{" "the landing runs off the map"
bad "an unknown way up" "[{name: s, cells: [2, 1, 3, 4], up: upward, landing: [12, 5]}]" "upward" "expected east, north, west or south"
bad "a speed out of range" "[{name: s, cells: [2, 1, 3, 4], up: north, landing: [12, 5], speed_up: 3}]" "3}" "expected a number in [0.01, 2]"
bad "a stair without its landing" "[{name: s, cells: [2, 1, 3, 4], up: north}]" "{" "missing: expected \`landing\`"
bad "two stairs of one name" "[$good, {name: s, cells: [6, 1, 7, 2], up: north, landing: [16, 3]}]" "s, cells: [6" "named twice"
bad "a stair off the map" "[{name: s, cells: [2, 1, 30, 4], up: north, landing: [12, 5]}]" "[2, 1, 30" "off the 20 x 7 map"

printf 'name: bad\nworld: {size: [10, 10]}\ncrowds: [{name: p, agents: [[1, 1]]}]\nlevels: [{name: a, cells: [0, 0, 3, 3]}]\n' >"$tmp/nomap.yaml"
expect_scene_error "levels without a map" "$tmp/nomap.yaml" "4:9:" "the scene has no \`map\`"
printf 'name: bad\nmap: {cell_size: 1, legend: {".": open}, ascii: "....\\n....\\n"}\ncrowds: [{name: p, agents: [[1, 1]]}]\nlevels: [{name: a, cells: [0, 0, 2, 1]}, {name: b, cells: [2, 0, 3, 1]}]\n' >"$tmp/overlap.yaml"
expect_scene_error "overlapping levels" "$tmp/overlap.yaml" "4:42:" "overlaps level 'a'"
printf 'name: bad\nmap: {cell_size: 1, legend: {".": open}, ascii: "....\\n....\\n"}\ncrowds: [{name: p, agents: [[1, 1]]}]\nlevels: [{name: a, cells: [0, 0, 3, 1]}]\nstairs: []\n' >"$tmp/onelevel.yaml"
expect_scene_error "stairs with one level" "$tmp/onelevel.yaml" "5:9:" "at least two"
finish
