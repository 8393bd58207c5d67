#!/usr/bin/env bash
# Pre-movement times as a user reaches them, through `throng run` and `throng check`:
#
#   - 300 walkers spread over a hall with lognormal times (ln t normal with mean 2.5 and
#     standard deviation 0.4, at most 40 s): the times at which they first move, read from the
#     trajectories, follow that truncated distribution (Kolmogorov-Smirnov at the 1 % level),
#     and none moves before the least time drawn; the report's pre-move line and the JSON's
#     pre_movement entry give the count, the mean (against the trajectories) and who still waits;
#   - walkers waiting for their time are not stalled, though they make no progress, and fleeing
#     ones are counted as waiting in the outcome, not as en route;
#   - the same state hash on 1 and 3 threads;
#   - scene errors for bad distributions, and for free speeds on boids or above max_speed, at
#     their line and column.
#
# usage: test_pre_movement_cli.sh path/to/throng
set -u
. "$(dirname "$0")/lib.sh"

bin=${1:?usage: test_pre_movement_cli.sh path/to/throng}
need_executable "$bin"
need python3 "to read the files back"

# hall STEPS: 300 walkers on a grid 2 m apart (nobody pushes anybody before walking) walk a
# one-point route east.
hall() {
    python3 - "$1" <<'EOF'
import sys
pts = ", ".join(f"[{2 + 2 * (i % 15)}.5, {2 + 2 * (i // 15)}.5]" for i in range(300))
print(f"""name: pre-movement
seed: 21
steps: {sys.argv[1]}
world: {{size: [80, 45]}}
crowds:
  - name: office
    model: pedestrian
    agents: [{pts}]
    goal: {{route: [[75, 22]]}}
    pre_movement: {{lognormal: [2.5, 0.4], max: 40}}""")
EOF
}

hall 2700 >"$tmp/hall.yaml"
run run "$tmp/hall.yaml" --headless --threads 2 --trajectories "$tmp/t.csv" --trajectory-every 3 \
    --json "$tmp/r.json"
if [[ $rc -ne 0 ]]; then
    fail "run" "exit code $rc"
else
    cp "$tmp/out" "$tmp/report"
    if python3 - "$tmp/t.csv" "$tmp/r.json" "$tmp/report" >"$tmp/err" 2>&1 <<'EOF'; then
import csv, json, math, re, sys
start, first = {}, {}
for r in csv.DictReader(open(sys.argv[1])):
    i, x, y, t = r["id"], float(r["x"]), float(r["y"]), float(r["time"])
    if i not in start:
        start[i] = (x, y)
    elif i not in first and math.hypot(x - start[i][0], y - start[i][1]) > 0.001:
        first[i] = t
assert len(start) == 300, f"{len(start)} walkers"
assert len(first) == 300, f"{300 - len(first)} walkers never moved"
phi = lambda z: 0.5 * math.erfc(-z / math.sqrt(2))
F = lambda t: phi((math.log(t) - 2.5) / 0.4) / phi((math.log(40) - 2.5) / 0.4) if t > 0 else 0.0
# Samples are 3 steps (0.05 s) apart: a walker seen moving at t started within 0.05 s before.
ts = sorted(t - 0.025 for t in first.values())
n = len(ts)
d = max(max(abs(F(t) - k / n), abs((k + 1) / n - F(t))) for k, t in enumerate(ts))
assert d < 1.628 / math.sqrt(n), f"KS D = {d:.4f} against the truncated lognormal"
j = json.load(open(sys.argv[2]))["pre_movement"]
assert len(j) == 1 and j[0]["crowd"] == "office" and j[0]["drawn"] == 300, j
assert j[0]["max_s"] <= 40 and min(first.values()) >= j[0]["min_s"], (j, min(first.values()))
# Seen moving a step after it starts (to the next whole step), up to a sample later, once it
# has covered 1 mm (about 0.03 s from standing).
mean = sum(first.values()) / n
assert 0 <= mean - j[0]["mean_s"] < 0.1, f"JSON mean {j[0]['mean_s']}, trajectories {mean}"
assert j[0]["waiting"] == 0, j
m = re.search(r"^pre-move +office: 300 time\(s\) drawn, mean ([0-9.]+) s \(least ([0-9.]+) s, "
              r"greatest ([0-9.]+) s\), 0 still waiting$", open(sys.argv[3]).read(), re.M)
assert m and abs(float(m.group(1)) - j[0]["mean_s"]) < 0.05, "no matching pre-move line"
EOF
        pass "first moves follow the truncated lognormal; report and JSON agree"
    else
        fail "first moves and report" "check failed"
    fi
fi

# 12 s: about half still wait (the median is e^2.5 = 12 s), most of them for longer than the
# stall time (10 s).
hall 720 >"$tmp/short.yaml"
run run "$tmp/short.yaml" --headless --threads 1 --json "$tmp/s.json"
n_wait=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pre_movement"][0]["waiting"])' "$tmp/s.json" 2>/dev/null)
if [[ $rc -eq 0 ]] && grep -q '^stalled *none' "$tmp/out" && [[ ${n_wait:-0} -gt 100 ]] &&
    grep -q "office: 300 time(s) drawn.*, $n_wait still waiting" "$tmp/out"; then
    pass "$n_wait walkers waiting at 12 s, none stalled"
else
    fail "waiting is not stalling" "rc $rc, waiting '${n_wait:-}'"
fi
h1=$(grep '^hash' "$tmp/out")
run run "$tmp/short.yaml" --headless --threads 3
h3=$(grep '^hash' "$tmp/out")
if [[ -n $h1 && $h1 == "$h3" ]]; then pass "same hash on 1 and 3 threads"; else
    fail "same hash on 1 and 3 threads" "1: '$h1', 3: '$h3'"
fi

# Fleeing occupants still standing out their times are "waiting", not "en route", in the outcome
# (10 in a room with times uniform on [10, 100] s, 30 s in).
room="$(dirname "$0")/../scenes/verification/premovement_room.yaml"
run run "$room" --headless --steps 1800 --json "$tmp/room.json"
if [[ $rc -eq 0 ]] && python3 - "$tmp/room.json" "$tmp/out" >"$tmp/err" 2>&1 <<'EOF'; then
import json, re, sys
j = json.load(open(sys.argv[1]))
o, p = j["outcome"], j["pre_movement"][0]
assert o["waiting"] == p["waiting"] > 0, (o, p)
assert o["sheltered"] + o["en_route"] + o["waiting"] == 10 == o["reachable"], o
m = re.search(r"^outcome +(\d+) sheltered, (\d+) en route \(walking to a bunker\), (\d+) waiting "
              r"\(pre-movement time not yet over\)", open(sys.argv[2]).read(), re.M)
assert m and [int(g) for g in m.groups()] == [o["sheltered"], o["en_route"], o["waiting"]], m
EOF
    pass "waiting occupants are not en route"
else
    fail "waiting occupants are not en route" "exit code $rc"
fi

# bad NAME VALUE WHERE SAYS: `pre_movement: VALUE` is refused at WHERE with SAYS.
bad() {
    printf 'name: bad\nworld: {size: [10, 10]}\ncrowds:\n  - name: c\n    count: 1\n    pre_movement: %s\n' \
        "$2" >"$tmp/bad.yaml"
    expect_scene_error "$1" "$tmp/bad.yaml" "$3" "$4"
}
bad "a negative time" "-5" "6:19:" "expected a number in [0"
bad "two distributions" "{normal: [20, 5], gamma: [1, 2]}" "6:44:" "expected one distribution"
bad "uniform upside down" "{uniform: [30, 10]}" "6:19:" "a <= b"
bad "an unknown distribution" "{beta: [1, 2]}" "6:20:" "unknown key 'beta'"
bad "bounds holding nothing" "{normal: [20, 1], min: 60, max: 70}" "6:19:" "no value"
bad "the age table for times" "{age: [20, 30]}" "6:25:" "walking speeds"
bad "max 0 (no upper bound is max left out)" "{uniform: [1, 2], max: 0}" "6:42:" 'without `max` there is no upper bound'
# Free speeds take the same forms; they are the pedestrian model's, and max_speed caps them.
printf 'name: bad\nworld: {size: [10, 10]}\ncrowds:\n  - name: c\n    count: 1\n    free_speed: {uniform: [1, 2]}\n' >"$tmp/boids.yaml"
expect_scene_error "free_speed on a boids crowd" "$tmp/boids.yaml" "6:17:" "pedestrian model"
printf 'name: bad\nworld: {size: [10, 10]}\ncrowds:\n  - name: c\n    model: pedestrian\n    count: 1\n    free_speed: {uniform: [3, 4]}\n' >"$tmp/fast.yaml"
expect_scene_error "free_speed above max_speed" "$tmp/fast.yaml" "7:17:" "max_speed 2.5 m/s caps it"
finish
