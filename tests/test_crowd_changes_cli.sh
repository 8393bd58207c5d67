#!/usr/bin/env bash
# A boids crowd's steering changed by events (`set_crowd`), as a user reaches it through
# `throng run` and `throng check`:
#
#   - a flock whose max_speed drops to 1 m/s and whose alignment and cohesion stop at step 300:
#     up to step 300 the world is the world without the event (the same hash), from step 301
#     on it differs, and no boid is faster than 1 m/s (several were before); the report's
#     `changes` line and the JSON's `crowd_changes` say when; the same hash on 1 and 3 threads;
#   - the shipped alarm scene: the herd grazes unaligned, flocks aligned after the alarm at
#     20 s and grazes again after 45 s (the order parameter from the trajectories);
#   - refusals at line:column: an unknown crowd, a pedestrian crowd, a max_speed above the
#     crowd's own, an unknown key, a value out of its key's range, no key at all.
#
# usage: test_crowd_changes_cli.sh path/to/throng
set -u
. "$(dirname "$0")/lib.sh"

bin=${1:?usage: test_crowd_changes_cli.sh path/to/throng}
need_executable "$bin"
need python3 "to read the files back"

flock() { # flock FILE [EVENTS...]: 200 boids on a 60 m wrap-around field
    local file=$1
    shift
    cat >"$file" <<'EOF'
name: flock change
seed: 2
steps: 600
world: {size: [60, 60], bounds: wrap}
crowds:
  - {name: sheep, count: 200, spawn: {rect: [10, 10, 40, 40]}, max_speed: 3}
  - {name: walkers, model: pedestrian, count: 5, spawn: {rect: [1, 1, 5, 5]}}
EOF
    if [[ $# -gt 0 ]]; then
        echo "events:" >>"$file"
        for e in "$@"; do echo "  - $e" >>"$file"; done
    fi
}

change='{at_step: 300, set_crowd: {crowd: sheep, max_speed: 1, alignment_weight: 0, cohesion_weight: 0}}'
flock "$tmp/plain.yaml"
flock "$tmp/change.yaml" "$change"
hash_at() { # hash_at FILE STEPS THREADS
    run run "$1" --headless --threads "$3" --steps "$2"
    grep '^hash' "$tmp/out"
}
if [[ "$(hash_at "$tmp/plain.yaml" 300 2)" == "$(hash_at "$tmp/change.yaml" 300 2)" &&
    "$(hash_at "$tmp/plain.yaml" 301 2)" != "$(hash_at "$tmp/change.yaml" 301 2)" ]]; then
    pass "the change takes effect in the step after step 300, not before"
else
    fail "the change takes effect in the step after step 300, not before" "hashes"
fi
h1=$(hash_at "$tmp/change.yaml" 600 1)
h3=$(hash_at "$tmp/change.yaml" 600 3)
if [[ -n $h1 && $h1 == "$h3" ]]; then pass "same hash on 1 and 3 threads"; else
    fail "same hash on 1 and 3 threads" "1: '$h1', 3: '$h3'"
fi

run run "$tmp/change.yaml" --headless --threads 2 --trajectories "$tmp/change.csv" \
    --json "$tmp/change.json"
if [[ $rc -ne 0 ]]; then fail "run with the change" "exit code $rc"; else
    if python3 - "$tmp/change.csv" "$tmp/change.json" "$tmp/out" >"$tmp/err" 2>&1 <<'EOF'; then
import csv, json, math, re, sys
before = after = 0.0
for r in csv.DictReader(open(sys.argv[1])):
    if r["crowd"] != "0":
        continue
    v = math.hypot(float(r["vx"]), float(r["vy"]))
    if int(r["step"]) <= 300:
        before = max(before, v)
    else:
        after = max(after, v)
assert before > 1.5, f"fastest boid before the change {before:.2f} m/s"
assert after <= 1.0 + 1e-4, f"a boid at {after:.4f} m/s after max_speed became 1 m/s"
ch = json.load(open(sys.argv[2]))["crowd_changes"]
assert ch == [{"crowd": "sheep", "changes": 1, "last_s": 5}], ch
text = open(sys.argv[3]).read()
assert re.search(r"^changes +sheep: 1 steering change\(s\) by events, the last at 5\.0 s$",
                 text, re.M), "report line"
EOF
        pass "after the change no boid is faster than 1 m/s; report and JSON say when"
    else
        fail "speeds, report and JSON" "check failed"
    fi
fi

# The alarm scene: grazing (unaligned), alarmed (aligned), grazing again.
run run "$(cd "$(dirname "$0")/.." && pwd)/scenes/alarm.yaml" --headless --threads 2 \
    --trajectories "$tmp/alarm.csv" --trajectory-every 60
if [[ $rc -ne 0 ]]; then fail "alarm scene" "exit code $rc"; else
    if python3 - "$tmp/alarm.csv" >"$tmp/err" 2>&1 <<'EOF'; then
import collections, csv, math, sys
vel = collections.defaultdict(list)
for r in csv.DictReader(open(sys.argv[1])):
    vel[round(float(r["time"]))].append((float(r["vx"]), float(r["vy"])))
def order(t):  # |mean unit velocity| of the moving boids
    units = [(x / s, y / s) for x, y in vel[t] if (s := math.hypot(x, y)) > 1e-6]
    return math.hypot(sum(u for u, _ in units), sum(v for _, v in units)) / max(len(units), 1)
got = {t: round(order(t), 2) for t in (15, 40, 58)}
assert got[15] < 0.2 and got[40] > 0.9 and got[58] < 0.2, got
EOF
        pass "alarm: the herd aligns after the alarm and scatters when it calms down"
    else
        fail "alarm: order parameter" "check failed"
    fi
fi

# bad WHERE SAYS CHANGE: the event is refused at line:column WHERE, saying SAYS.
bad() {
    flock "$tmp/bad.yaml" "$3"
    expect_scene_error "$4" "$tmp/bad.yaml" "$1" "$2"
}
bad "9:33:" "expected the name of a crowd, found 'goats'" \
    '{at: 1s, set_crowd: {crowd: goats, max_speed: 1}}' "an unknown crowd"
bad "9:33:" "walks the pedestrian model" \
    '{at: 1s, set_crowd: {crowd: walkers, max_speed: 1}}' "a pedestrian crowd"
bad "9:51:" "at most the crowd's own max_speed, 3 m/s" \
    '{at: 1s, set_crowd: {crowd: sheep, max_speed: 4}}' "max_speed above the crowd's own"
bad "9:40:" "alignment_weigth" \
    '{at: 1s, set_crowd: {crowd: sheep, alignment_weigth: 1}}' "an unknown key"
bad "9:57:" "cohesion_weight" \
    '{at: 1s, set_crowd: {crowd: sheep, cohesion_weight: -1}}' "a value out of range"
bad "9:25:" "at least one steering key" \
    '{at: 1s, set_crowd: {crowd: sheep}}' "no key to change"
finish
