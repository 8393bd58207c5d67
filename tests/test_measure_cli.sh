#!/usr/bin/env bash
# `throng run --measure` and `--trajectories`: usage errors exit 2 before any step runs, a
# failed write exits 1, and the files are consistent with each other: the measurement table's
# area counts and line crossings are recomputed (in Python) from the trajectory file's
# positions, the PedPy text file parses the way PedPy's load_trajectory_from_txt reads it, and
# every file is the same at 1 and 2 threads; waiting and jammed walkers read as standing.
#
# usage: test_measure_cli.sh path/to/throng
set -u
. "$(dirname "$0")/lib.sh"

bin=${1:?usage: test_measure_cli.sh path/to/throng}
need_executable "$bin"
need python3 "to read the files back"
# expect_exit NAME CODE WORD ARGS...: exit code CODE and WORD on stderr.
expect_exit() {
    local name=$1 code=$2 word=$3
    shift 3
    run "$@"
    if [[ $rc -ne $code ]]; then
        fail "$name" "exit code $rc, expected $code"
    elif ! grep -qF -- "$word" "$tmp/err"; then
        fail "$name" "stderr does not mention '$word'"
    else
        pass "$name"
    fi
}

cat >"$tmp/scene.yaml" <<'EOF'
name: measured
seed: 5
steps: 120
world:
  size: [30, 20]
  bounds: wrap
crowds:
  - name: boids
    count: 400
    spawn: {rect: [0, 0, 30, 20]}
    initial_speed: 3
measure:
  areas:
    - {name: centre, rect: [7.5, 5.25, 15, 9.5]}
    - {name: corner, rect: [0, 0, 4.75, 3.5]}
  lines:
    - {name: mid, from: [15.125, 0], to: [15.125, 20]}
    - {name: seam, from: [0, 0], to: [0, 20], window: 0.5}
    - {name: diag, from: [2.2, 1.9], to: [27.7, 18.1], window: 2}
EOF
cat >"$tmp/plain.yaml" <<'EOF'
name: plain
world: {size: [10, 10]}
crowds:
  - {name: a, count: 5, spawn: {rect: [0, 0, 10, 10]}}
EOF

# ---- usage ------------------------------------------------------------------------------

run run --help
for flag in --measure --measure-every --trajectories --trajectory-every --trajectory-format; do
    if [[ $rc -eq 0 ]] && grep -qF -- "$flag" "$tmp/out"; then pass "help documents $flag"
    else fail "help documents $flag" "missing"; fi
done
expect_exit "--measure without a value" 2 "--measure" run "$tmp/scene.yaml" --measure
expect_exit "--measure-every 0" 2 "--measure-every" run "$tmp/scene.yaml" --measure "$tmp/m.csv" --measure-every 0
expect_exit "--trajectory-every x" 2 "--trajectory-every" run "$tmp/scene.yaml" --trajectories "$tmp/t.csv" --trajectory-every x
expect_exit "--trajectory-format xml" 2 "csv or pedpy" run "$tmp/scene.yaml" --trajectories "$tmp/t.csv" --trajectory-format xml
expect_exit "--measure into a missing folder" 2 "cannot write '$tmp/nope/m.csv'" run "$tmp/scene.yaml" --measure "$tmp/nope/m.csv"
expect_exit "--trajectories into a missing folder" 2 "cannot write" run "$tmp/scene.yaml" --trajectories "$tmp/nope/t.csv"
expect_exit "--measure on a scene that measures nothing" 2 "measures nothing" run "$tmp/plain.yaml" --measure "$tmp/m.csv"
if [[ -w /dev/full ]]; then
    expect_exit "a full disk is an error" 1 "writing /dev/full failed" run "$tmp/scene.yaml" --trajectories /dev/full
fi
# Output paths a careless user may give: a FIFO nobody reads (a plain open waited forever), one
# file for both outputs (rows interleaved), the scene file itself (emptied), each refused at
# once with exit 2 and the scene left whole; a FIFO with a reader is written.
mkfifo "$tmp/fifo"
expect_exit "--measure into a FIFO nobody reads" 2 "no process is reading" run "$tmp/scene.yaml" --measure "$tmp/fifo"
expect_exit "--trajectories into a FIFO nobody reads" 2 "no process is reading" run "$tmp/scene.yaml" --trajectories "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/fifo.out" &
reader=$!
for _ in $(seq 50); do [[ -e /proc/$reader ]] && break; sleep 0.1; done
sleep 0.2
run run "$tmp/scene.yaml" --steps 4 --measure "$tmp/fifo"
wait $reader
if [[ $rc -eq 0 && $(wc -l <"$tmp/fifo.out") -eq 6 ]]; then pass "--measure into a FIFO that is read"
else fail "--measure into a FIFO that is read" "exit $rc, $(wc -l <"$tmp/fifo.out") lines"; fi
expect_exit "--screenshot into a FIFO nobody reads" 2 "not a regular file" run "$tmp/scene.yaml" --steps 1 --screenshot "$tmp/fifo"
expect_exit "one file for both outputs" 2 "name the same file" run "$tmp/scene.yaml" --measure "$tmp/same.csv" --trajectories "$tmp/./same.csv"
cp "$tmp/scene.yaml" "$tmp/victim.yaml"
expect_exit "--measure over the scene file" 2 "the scene file being run" run "$tmp/victim.yaml" --measure "$tmp/victim.yaml"
expect_exit "--trajectories over the scene file" 2 "the scene file being run" run "$tmp/victim.yaml" --trajectories "$tmp/../$(basename "$tmp")/victim.yaml"
if cmp -s "$tmp/scene.yaml" "$tmp/victim.yaml"; then pass "the scene file is left whole"
else fail "the scene file is left whole" "it was written over"; fi
seq 1 1000 >"$tmp/long.csv"
run run "$tmp/scene.yaml" --steps 2 --measure "$tmp/long.csv"
if [[ $rc -eq 0 && $(wc -l <"$tmp/long.csv") -eq 4 ]]; then pass "an existing longer file is replaced"
else fail "an existing longer file is replaced" "exit $rc, $(wc -l <"$tmp/long.csv") lines"; fi
run run "$tmp/scene.yaml" --steps 10 --measure "$tmp/nope/m.csv"
if ! grep -q '^wall ' "$tmp/out"; then pass "unwritable output stops before the run"
else fail "unwritable output stops before the run" "the run went ahead"; fi

# ---- files ------------------------------------------------------------------------------

for t in 1 2; do
    run run "$tmp/scene.yaml" --threads $t --measure "$tmp/m$t.csv" --measure-every 4 \
        --trajectories "$tmp/t$t.csv"
    if [[ $rc -ne 0 ]]; then fail "run with files at $t thread(s)" "exit $rc"; fi
    run run "$tmp/scene.yaml" --threads $t --trajectories "$tmp/p$t.txt" --trajectory-every 3 --steps 30
    if [[ $rc -ne 0 ]]; then fail "pedpy run at $t thread(s)" "exit $rc"; fi
done
for f in m t; do
    if cmp -s "$tmp/${f}1.csv" "$tmp/${f}2.csv"; then pass "$f file identical at 1 and 2 threads"
    else fail "$f file identical at 1 and 2 threads" "files differ"; fi
done
if cmp -s "$tmp/p1.txt" "$tmp/p2.txt"; then pass "pedpy file identical at 1 and 2 threads"
else fail "pedpy file identical at 1 and 2 threads" "files differ"; fi
run run "$tmp/scene.yaml" --trajectories "$tmp/forced.csv" --trajectory-format pedpy --steps 3
if [[ $rc -eq 0 ]] && head -1 "$tmp/forced.csv" | grep -q '^# framerate: '; then pass "--trajectory-format pedpy wins over .csv"
else fail "--trajectory-format pedpy wins over .csv" "not PedPy text"; fi

# The table against the trajectories: counts in each area at each sampled step, and crossings
# of each line from consecutive positions (the short way across the seams), recomputed here.
if python3 - "$tmp/m1.csv" "$tmp/t1.csv" >"$tmp/out" 2>"$tmp/err" <<'EOF'
import csv, math, sys
W, H = 30.0, 20.0
areas = {"centre": (7.5, 5.25, 22.5, 14.75), "corner": (0, 0, 4.75, 3.5)}
lines = {"mid": ((15.125, 0), (15.125, 20), 1.0), "seam": ((0, 0), (0, 20), 0.5),
         "diag": ((2.2, 1.9), (27.7, 18.1), 2.0)}
dt = None
pos = {}
for r in csv.DictReader(open(sys.argv[2])):
    s = int(r["step"])
    pos.setdefault(s, {})[int(r["id"])] = (float(r["x"]), float(r["y"]))
    if s == 1: dt = float(r["time"])
steps = sorted(pos)
assert steps == list(range(121)), "trajectory steps %s..%s" % (steps[0], steps[-1])
assert all(len(pos[s]) == 400 for s in steps)

def cross(a, b, q, p):
    rx, ry, sx, sy = p[0] - q[0], p[1] - q[1], b[0] - a[0], b[1] - a[1]
    den = rx * sy - ry * sx
    if den == 0: return 0
    t = ((a[0] - q[0]) * sy - (a[1] - q[1]) * sx) / den
    u = ((a[0] - q[0]) * ry - (a[1] - q[1]) * rx) / den
    if not (0 <= t <= 1 and 0 <= u <= 1): return 0
    return 1 if sx * ry - sy * rx < 0 else -1

net = {n: [0] for n in lines}  # net crossings per step, index = step
for s in steps[1:]:
    for n, (a, b, _) in lines.items():
        c = 0
        for i, q in pos[s - 1].items():
            p = pos[s][i]
            dx = p[0] - q[0]; dy = p[1] - q[1]
            dx -= W * round(dx / W); dy -= H * round(dy / H)
            for ox in (-W, 0, W):
                for oy in (-H, 0, H):
                    c += cross((a[0] + ox, a[1] + oy), (b[0] + ox, b[1] + oy), q, (q[0] + dx, q[1] + dy))
        net[n].append(c)

rows = list(csv.DictReader(open(sys.argv[1])))
assert [int(r["step"]) for r in rows] == list(range(0, 121, 4)), "sampled steps"
crossings = 0
for r in rows:
    s = int(r["step"])
    for n, (x0, y0, x1, y1) in areas.items():
        inside = [v for v in pos[s].values() if x0 <= v[0] < x1 and y0 <= v[1] < y1]
        assert int(r[n + "_count"]) == len(inside), (s, n, r[n + "_count"], len(inside))
        dens = len(inside) / ((x1 - x0) * (y1 - y0))
        assert abs(float(r[n + "_density"]) - dens) <= 1e-6 * dens, (s, n)
        if not inside: assert r[n + "_speed"] == "nan", (s, n)
    for n, (_, _, window) in lines.items():
        total = sum(net[n][1:s + 1])
        assert int(r[n + "_crossed"]) == total, (s, n, r[n + "_crossed"], total)
        k = min(s, round(window / dt))
        flow = sum(net[n][s - k + 1:s + 1]) / (k * dt) if k else 0.0
        assert abs(float(r[n + "_flow"]) - flow) <= 1e-6 * (abs(flow) + 1), (s, n, r[n + "_flow"], flow)
        crossings += abs(total)
assert crossings > 0, "nobody crossed: the check proves nothing"
print("ok", len(rows), "rows")
EOF
then pass "measurement table agrees with the trajectories"
else fail "measurement table agrees with the trajectories" "see below"; fi

# PedPy's reader: '#' lines first (the frame rate is the first number on the first line naming
# it; "x/m" sets metres), then whitespace-separated id frame x y [z], frames numbered by sample.
if python3 - "$tmp/p1.txt" "$tmp/t1.csv" >"$tmp/out" 2>"$tmp/err" <<'EOF'
import csv, sys
lines = open(sys.argv[1], encoding="utf-8-sig").read().splitlines()
head = []
for l in lines:
    if not l.startswith("#"): break
    head.append(l)
rate = None
for l in head:
    if "framerate" in l:
        for tok in l.split():
            try:
                if rate is None: rate = float(tok)
            except ValueError:
                pass
assert rate is not None and abs(rate - 1 / (3 * 0.0166666675)) < 1e-4, rate
low = " ".join(head).lower()
assert "x/m" in low and "x/cm" not in low and "in cm" not in low
data = lines[len(head):]
assert all(not l.startswith("#") for l in data)
frames = {}
for l in data:
    f = l.split()
    assert len(f) == 5, l
    i, fr = int(f[0]), int(f[1])
    frames.setdefault(fr, {})[i] = (float(f[2]), float(f[3]))
assert sorted(frames) == list(range(11)), sorted(frames)
assert all(len(v) == 400 for v in frames.values())
# Same positions as the CSV written at every step, frame k = step 3k.
for r in csv.DictReader(open(sys.argv[2])):
    s = int(r["step"])
    if s % 3 == 0 and s <= 30:
        assert frames[s // 3][int(r["id"])] == (float(r["x"]), float(r["y"])), (s, r["id"])
print("ok", len(data), "rows")
EOF
then pass "pedpy text file reads as PedPy reads it"
else fail "pedpy text file reads as PedPy reads it" "see below"; fi

# Waiting walkers read as waiting. In the queue at a door 0.6 m wide, a walker's velocity
# between two steps (both under 0.3 m/s, not both under 0.05 m/s) reverses fewer than 2 times
# per agent-second (a model that walks whatever direction is left of goal and pushes at full
# speed reverses 10 to 20 times); two walkers stuck head-on in a corridor too narrow to pass
# read as standing in the trajectories' velocity columns and in a measurement area's speed.
data=$(dirname "$0")/data
run run "$data/stall_door_queue.yaml" --headless --steps 3600 --trajectories "$tmp/q.csv"
if [[ $rc -eq 0 ]] && python3 - "$tmp/q.csv" <<'EOF'
import csv, sys
prev, rev, slow, dt = {}, 0, 0, None
for r in csv.DictReader(open(sys.argv[1])):
    v, t = (float(r["vx"]), float(r["vy"])), float(r["time"])
    p = prev.get(r["id"])
    prev[r["id"]] = (v, t)
    if p is None:
        continue
    dt = dt or t - p[1]
    s, ps = (v[0] ** 2 + v[1] ** 2) ** 0.5, (p[0][0] ** 2 + p[0][1] ** 2) ** 0.5
    if max(s, ps) < 0.3 and min(s, ps) >= 0.05:
        slow += 1
        rev += v[0] * p[0][0] + v[1] * p[0][1] < 0
rate = rev / (slow * dt)
print(f"{rate:.2f} reversals per agent-second over {slow * dt:.0f} agent-seconds")
assert slow * dt > 300 and rate < 2.0, rate
EOF
then pass "door queue: waiting walkers' velocities do not flicker"
else fail "door queue: flicker" "exit $rc or too many reversals (above)"; fi

sed 's/^steps: 1800.*/steps: 1800\nmeasure:\n  areas:\n    - {name: jam, rect: [3, 0.5, 5, 0.5]}/' \
    "$data/gridlock.yaml" >"$tmp/jam.yaml"
run run "$tmp/jam.yaml" --headless --trajectories "$tmp/jam_t.csv" --measure "$tmp/jam_m.csv"
if [[ $rc -eq 0 ]] && python3 - "$tmp/jam_t.csv" "$tmp/jam_m.csv" <<'EOF'
import csv, sys
late = [r for r in csv.DictReader(open(sys.argv[1])) if float(r["time"]) >= 20]
v = max((float(r["vx"]) ** 2 + float(r["vy"]) ** 2) ** 0.5 for r in late)
m = [r for r in csv.DictReader(open(sys.argv[2])) if float(r["time"]) >= 20]
assert len(late) > 1000 and v < 0.01, v
assert m and all(int(r["jam_count"]) == 2 for r in m), "both walkers in the area"
assert max(float(r["jam_speed"]) for r in m) < 0.01, max(float(r["jam_speed"]) for r in m)
EOF
then pass "head-on jam: standing walkers read as standing"
else fail "head-on jam: standing" "exit $rc or speeds above 0.01 m/s (above)"; fi

# The fundamental-diagram script: one row per density, Weidmann's speed at the measured density.
fd=$(dirname "$0")/../bench/fundamental_diagram.py
if [[ -r $fd ]]; then
    run_fd() { timeout 300 python3 "$fd" --throng "$bin" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?; }
    run_fd --densities 0.5,2 --spawn-area 80 --steps 200 --warmup 2 --out "$tmp/fd.csv" \
        "$(dirname "$0")/../bench/fundamental_diagram.yaml"
    if [[ $rc -eq 0 ]] && python3 - "$tmp/fd.csv" <<'EOF'
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert [r["agents"] for r in rows] == ["40", "160"], rows
for r in rows:
    rho = float(r["density"])
    w = 1.34 if rho <= 0 else 0.0 if rho >= 5.4 else 1.34 * (1 - math.exp(-1.913 * (1 / rho - 1 / 5.4)))
    assert abs(float(r["weidmann_speed"]) - w) <= 1e-4, (rho, r["weidmann_speed"], w)
    assert int(r["samples"]) == 161, r["samples"]  # steps 40..200 of 0.05 s
    assert 0 < float(r["speed"]) <= 1.34 + 1e-6
EOF
    then pass "fundamental diagram script"
    else fail "fundamental diagram script" "exit $rc or a wrong CSV"; fi
    run_fd "$tmp/plain.yaml" --steps 10 --out "$tmp/fd2.csv"
    if [[ $rc -ne 0 ]] && grep -q "measures nothing" "$tmp/err"; then pass "fundamental diagram script: scene without areas"
    else fail "fundamental diagram script: scene without areas" "exit $rc"; fi
fi

finish
