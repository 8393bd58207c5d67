#!/usr/bin/env bash
# Fire hazards as a user reaches them, through `throng run` and `throng check`:
#
#   - two corridors walled apart: in the north one a walker crosses 20 m of smoke of extinction
#     5 /m; its speed there, read from the trajectories, is its free speed times the crowd's
#     smoke factor, max(0.1, 1 - 0.0807 x 5);
#   - in the south one 30 walkers flee east through air that turns deadly from 10 s on (CO,
#     CO2 and HCN rising, O2 falling, given by keys); those caught stop for good where they
#     are (the trajectories' last samples), the report's outcome and `hazards` line and the
#     JSON's outcome.incapacitated and hazards entry agree, and everyone is accounted for;
#   - the same state hash on 1 and 3 threads;
#   - the same hazards read from a CSV table (`file:`, rows of the two rectangles interleaved)
#     give the same state hash and the same `hazards` lines in the report;
#   - scene errors at their line and column: hazards on open ground, `air` and `keys` together,
#     keys out of time order, an unknown gas, a value out of range, a rectangle holding no cell
#     centre, a missing rectangle; and in tables, at the scene's `file:` with the table's own
#     line and column: a bad header, a non-number, an empty field, a value out of range, times
#     not increasing, a rectangle outside the world, a missing file, a file outside the scene's
#     folder, a symbolic link.
#
# usage: test_hazard_cli.sh path/to/throng
set -u
. "$(dirname "$0")/lib.sh"

bin=${1:?usage: test_hazard_cli.sh path/to/throng}
need_executable "$bin"
need python3 "to read the files back"

python3 - >"$tmp/fire.yaml" <<'EOF'
cols = 82
rows = ["#" * cols]
rows += ["#" + "." * (cols - 3) + "N#" for _ in range(4)]
rows += ["#" * cols]
rows += ["#" + "." * (cols - 3) + "S#" for _ in range(8)]
rows += ["#" * cols]
walkers = ", ".join(f"[{1.0 + 0.8 * (i % 6):.1f}, {1.0 + 0.6 * (i // 6):.1f}]" for i in range(30))
print(f"""name: fire
seed: 4
steps: 3600
map:
  cell_size: 0.5
  legend: {{'#': wall, '.': open, 'N': {{bunker: north}}, 'S': {{bunker: south}}}}
  ascii: |
""" + "\n".join("    " + r for r in rows) + f"""
hazards:
  - rect: [10, 5, 20, 2]
    air: {{extinction: 5}}
  - rect: [12, 0.5, 10, 4]
    keys:
      - {{time: 0}}
      - {{time: 10, extinction: 1}}
      - {{time: 14, extinction: 3, co: 30000, co2: 8, o2: 12, hcn: 400}}
crowds:
  - name: smoke
    model: pedestrian
    behavior: flee
    desired_speed_sd: 0
    agents: [[2, 6]]
  - name: crowd
    model: pedestrian
    behavior: flee
    agents: [{walkers}]""")
EOF

run check "$tmp/fire.yaml"
if [[ $rc -eq 0 ]]; then pass "the scene is valid"; else fail "the scene is valid" "exit code $rc"; fi

run run "$tmp/fire.yaml" --headless --threads 2 --trajectories "$tmp/t.csv" --trajectory-every 6 \
    --json "$tmp/r.json"
if [[ $rc -ne 0 ]]; then
    fail "run" "exit code $rc"
else
    cp "$tmp/out" "$tmp/report"
    if python3 - "$tmp/t.csv" "$tmp/r.json" "$tmp/report" >"$tmp/err" 2>&1 <<'EOF'; then
import csv, json, math, re, sys
track = {}
for r in csv.DictReader(open(sys.argv[1])):
    track.setdefault(r["id"], []).append((float(r["time"]), float(r["x"]), float(r["y"])))
smoker = [t for t in track.values() if t[0][2] > 5][0]
inside = [(t, x) for t, x, _ in smoker if 12 <= x <= 28]
(t0, x0), (t1, x1) = inside[0], inside[-1]
v, want = (x1 - x0) / (t1 - t0), 1.34 * max(0.1, 1 - 0.0807 * 5)
assert abs(v - want) < 0.02 * want, f"{v:.3f} m/s in smoke K 5, expected {want:.3f}"
j = json.load(open(sys.argv[2]))
o, h = j["outcome"], {e["crowd"]: e for e in j["hazards"]}
down = h["crowd"]["incapacitated"]
assert 0 < down < 30, f"{down} of 30 incapacitated"
assert h["smoke"]["incapacitated"] == 0 and h["smoke"]["max_fed"] == 0, h["smoke"]
assert o["incapacitated"] == down, (o, h)
assert o["sheltered"] + o["en_route"] + o["incapacitated"] == 31, o
assert h["crowd"]["first_incapacitated_s"] > 10, h
# The fallen stand still where they fell, inside the deadly rectangle.
still = 0
for t in track.values():
    if t[0][2] > 5:
        continue
    (ta, xa, ya), (tb, xb, yb) = t[-2], t[-1]
    if tb > 59 and math.hypot(xb - xa, yb - ya) == 0.0:
        assert 12 <= xb <= 22 and ya <= 4.5, (xb, yb)
        still += 1
assert still == down, f"{still} standing still at the end, {down} incapacitated"
rep = open(sys.argv[3]).read()
assert re.search(rf", {down} incapacitated \(fractional effective dose reached 1\)", rep), rep
m = re.search(r"^hazards +crowd: (\d+) incapacitated \(the first at ([0-9.]+) s\), highest dose "
              r"\(FED\) ([0-9.]+)$", rep, re.M)
assert m and int(m.group(1)) == down, rep
assert abs(float(m.group(2)) - h["crowd"]["first_incapacitated_s"]) < 0.06, m.group(2)
EOF
        pass "smoke slows, gas incapacitates; trajectories, report and JSON agree"
    else
        fail "smoke and gas" "check failed"
    fi
    expect_same_hash "$tmp/fire.yaml" "$tmp/report"
    # The same hazards from a table: comments, a blank line, CRLF, blanks around fields, the
    # rectangles' rows interleaved and one rectangle written two ways.
    python3 - "$tmp/fire.yaml" >"$tmp/fire_file.yaml" <<'EOF'
import re, sys
text = open(sys.argv[1]).read()
print(re.sub(r"^hazards:\n(?:  .*\n)+", "hazards:\n  - file: fire.csv\n", text, flags=re.M), end="")
EOF
    printf '%s\n' '# from a fire model' '' 'time,x,y,width,height,extinction,co,co2,o2,hcn' \
        '0,10,5,20,2,5,0,0.04,20.9,0' '0,12,0.5,10,4,0,0,0.04,20.9,0' \
        $'10, 12, 0.5, 10, 4, 1, 0, 0.04, 20.9, 0\r' '# the worst' \
        '14,12.0,0.50,1e1,4,3,30000,8,12,400' >"$tmp/fire.csv"
    run run "$tmp/fire_file.yaml" --headless --threads 2
    hf=$(grep -E '^(hash|hazards)' "$tmp/out")
    hi=$(grep -E '^(hash|hazards)' "$tmp/report")
    if [[ -n $hf && $hf == "$hi" ]]; then pass "hazards from a CSV table: the same hash and doses"; else
        fail "hazards from a CSV table: the same hash and doses" "table: '$hf', inline: '$hi'; $(head -c 300 "$tmp/err")"
    fi
    # An output never replaces the table the scene reads: each refused before the run, the
    # table as it was.
    sum=$(cksum <"$tmp/fire.csv")
    for flag in --json --trajectories --measure --screenshot; do
        run run "$tmp/fire_file.yaml" --headless --steps 2 "$flag" "$tmp/fire.csv"
        if [[ $rc -eq 2 ]] && grep -q "an output never replaces an input" "$tmp/err" &&
            grep -q "fire.csv" "$tmp/err" && [[ $(cksum <"$tmp/fire.csv") == "$sum" ]]; then
            pass "$flag onto the scene's hazard table: refused, the table whole"
        else
            fail "$flag onto the scene's hazard table" "exit $rc, or the table changed"
        fi
    done
fi

# bad NAME HAZARDS WHERE SAYS: a scene on a 10 m map whose `hazards:` is HAZARDS (one line).
bad() {
    printf 'name: bad\nmap:\n  cell_size: 1\n  legend: {"#": wall, ".": open}\n  ascii: |\n    ##########\n    #........#\n    #........#\n    ##########\ncrowds:\n  - {name: c, agents: [[2, 2]]}\nhazards: %s\n' \
        "$2" >"$tmp/bad.yaml"
    expect_scene_error "$1" "$tmp/bad.yaml" "$3" "$4"
}
bad "air and keys together" "[{rect: [1, 1, 3, 2], air: {co: 5}, keys: [{time: 0}]}]" "12:52:" "found both"
bad "neither air nor keys" "[{rect: [1, 1, 3, 2]}]" "12:11:" "missing: expected \`air"
bad "keys out of time order" "[{rect: [1, 1, 3, 2], keys: [{time: 5}, {time: 5}]}]" "12:57:" "after the key before it"
bad "an unknown gas" "[{rect: [1, 1, 3, 2], air: {no2: 5}}]" "12:38:" "unknown key 'no2'"
bad "oxygen over 100 %" "[{rect: [1, 1, 3, 2], air: {o2: 120}}]" "12:42:" "expected a number in [0, 100]"
bad "negative smoke" "[{rect: [1, 1, 3, 2], keys: [{time: 0, extinction: -1}]}]" "12:61:" "expected a number in [0"
bad "no cell centre" "[{rect: [1.6, 1, 0.3, 2], air: {co: 5}}]" "12:18:" "no cell centre"
bad "outside the map" "[{rect: [8, 1, 3, 2], air: {co: 5}}]" "12:18:" "inside the 10 x 4 m world"
bad "a missing rectangle" "[{air: {co: 5}}]" "12:11:" "missing: expected [x, y, width, height]"
# csvbad NAME TABLE WHERE SAYS: the scene with `hazards: [{file: h.csv}]`, h.csv holding TABLE
# (printf escapes) after the header line: refused at the `file:` value, with h.csv:WHERE SAYS.
csvbad() {
    printf 'time,x,y,width,height,extinction,co,co2,o2,hcn\n%b' "$2" >"$tmp/h.csv"
    bad "$1" "[{file: h.csv}]" "12:18:" "h.csv:$3 $4"
}
hdr='time,x,y,width,height,extinction,co,co2,o2,hcn'
printf '# a table\ntime,x,y,width,height,extinction,co,co2,02,hcn\n' >"$tmp/h.csv"
bad "table: a bad header" "[{file: h.csv}]" "12:18:" "h.csv:2:41: expected the header line $hdr, found '02' for column 9 (o2)"
csvbad "table: a non-number" '0,1,1,3,2,0,0,0.04,20.9,0\n\n5,1,1,3,2,0,0,0.04,abc,0\n' "4:20:" "expected a number in [0, 100] for o2, found 'abc'"
csvbad "table: an empty field" '0,1,1,3,2,0,,0.04,20.9,0\n' "2:13:" "expected a number in [0, 1e+06] for co, found an empty field"
csvbad "table: a value out of range" '0,1,1,3,2,1001,0,0.04,20.9,0\n' "2:11:" "expected a number in [0, 1000] for extinction, found '1001'"
csvbad "table: a missing field" '0,1,1,3,2,0,0,0.04,20.9\n' "2:24:" "expected 10 fields, found 9: hcn is missing"
csvbad "table: times not increasing" '5,1,1,3,2,0,0,0.04,20.9,0\n0,5,1,3,2,0,0,0.04,20.9,0\n5,1,1,3,2,0,0,0.04,20.9,0\n' "4:1:" "expected a time after 5 s, that of this rectangle's row on line 2, found 5 s"
csvbad "table: a rectangle outside the world" '0,8,1,3,2,0,0,0.04,20.9,0\n' "2:3:" "expected [x, y, width, height] with a positive size inside the 10 x 4 m world, found [8, 1, 3, 2]"
csvbad "table: no rows" '# none\n' "3:1:" "expected rows of data after the header, found none"
bad "table: a missing file" "[{file: none.csv}]" "12:18:" "cannot read '$tmp/none.csv'"
bad "table: rect and file together" "[{file: h.csv, rect: [1, 1, 3, 2]}]" "12:31:" "expected \`file\` alone"
mkdir -p "$tmp/in"
printf '%s\n0,1,1,3,2,0,0,0.04,20.9,0\n' "$hdr" >"$tmp/out.csv"
bad "table: outside the scene's folder" "[{file: ../out.csv}]" "12:18:" "expected a file inside the scene's folder, found a path with '..'"
mv "$tmp/bad.yaml" "$tmp/in/scene.yaml"
run check "$tmp/in/scene.yaml" --allow-outside-paths
if [[ $rc -eq 0 ]]; then pass "table: outside the folder with --allow-outside-paths"; else
    fail "table: outside the folder with --allow-outside-paths" "exit code $rc: $(cat "$tmp/err")"
fi
ln -s out.csv "$tmp/link.csv"
bad "table: a symbolic link" "[{file: link.csv}]" "12:18:" "found a symbolic link"
printf 'name: bad\nworld: {size: [10, 10]}\ncrowds:\n  - {name: c, agents: [[2, 2]]}\nhazards: [{rect: [1, 1, 3, 2], air: {co: 5}}]\n' >"$tmp/open.yaml"
expect_scene_error "hazards on open ground" "$tmp/open.yaml" "5:10:" "hazards need a \`map\`"
printf 'name: bad\nworld: {size: [10, 10]}\ncrowds:\n  - {name: c, agents: [[2, 2]], smoke_slope: 11}\n' >"$tmp/slope.yaml"
expect_scene_error "smoke_slope out of range" "$tmp/slope.yaml" "4:46:" "smoke_slope"
finish
