#!/usr/bin/env bash
# `throng run`'s report and command line: the report's figures against the trajectories (an
# independent record of when each agent left) and against a scene with a known answer
# (tests/data/report_lanes.yaml); --json parses and has its fields (squads and colonies too);
# Ctrl-C gives a partial report and exit code 130; progress lines; the density warning; "no
# display"; --opt=value, --threads 0, --version, event times in seconds, scene lists;
# screenshot options, --level among them.
#
# usage: test_report_cli.sh path/to/throng path/to/tests/data
set -u
. "$(dirname "$0")/lib.sh"

bin=${1:?usage: test_report_cli.sh path/to/throng path/to/tests/data}
data=${2:?usage: test_report_cli.sh path/to/throng path/to/tests/data}
scenes=$data/../../scenes
lanes=$data/report_lanes.yaml
need python3 "to read the files back"

# A usage error must not go ahead: what a run that did would print (expect_usage, lib.sh).
usage_ran='^run '
hash_of() { grep -E '^hash 0x[0-9a-f]{16}$' "$1" | cut -d' ' -f2; }

# ---- the report against the trajectories and the known answer ----------------------------

# Under ThreadSanitizer (the suite is labelled "threads" for its signals sent while workers run)
# the whole runs whose reports are checked here are left out: they check figures, which the
# other builds do, and the C suites run their passes on several threads.
if grep -aq __tsan_init "$bin"; then
    pass "reports of whole runs: left to the other builds under ThreadSanitizer"
else
run run "$lanes" --headless --destroy-bunker spare@5s --json "$tmp/r.json" \
    --trajectories "$tmp/t.csv"
cp "$tmp/out" "$tmp/report.txt"
if [[ $rc -ne 0 ]]; then
    fail "lanes run" "exit code $rc"
elif ! python3 -m json.tool "$tmp/r.json" >/dev/null 2>"$tmp/err"; then
    fail "--json parses" "python3 -m json.tool refused it"
else
    pass "--json parses"
    if python3 - "$tmp/r.json" "$tmp/t.csv" "$tmp/report.txt" >"$tmp/err" 2>&1 <<'EOF'
import csv, json, math, re, sys
j = json.load(open(sys.argv[1]))
for path in ["scene.name", "scene.agents", "run.steps", "run.timestep_s", "run.threads",
             "run.seed", "run.interrupted", "outcome.sheltered", "outcome.en_route",
             "outcome.stranded", "outcome.removed", "outcome.buried", "outcome.reachable",
             "outcome.sheltered_50_s", "outcome.sheltered_90_s", "outcome.sheltered_100_s",
             "performance.agent_steps_per_s", "performance.phases_ms_per_step.steer",
             "performance.wall_s", "machine.cpu", "machine.cores", "build.compiler",
             "build.build_type", "build.commit", "build.version", "hash"]:
    v = j
    for k in path.split("."):
        assert k in v, "missing " + path
        v = v[k]
assert j["machine"]["cores"] >= 1 and j["machine"]["cpu"], j["machine"]
# Every phase of a step, in step order, in the JSON and in the text report's phase line.
phases = ["events", "nav", "grid", "steer", "integrate", "contacts", "bookkeeping", "admit",
          "squads", "history"]
pm = j["performance"]["phases_ms_per_step"]
assert list(pm) == phases and all(v >= 0 for v in pm.values()), pm
line = [l for l in open(sys.argv[3]) if l.startswith("phases")]
assert len(line) == 1 and re.findall(r"([a-z]+) [0-9.]+", line[0]) == phases, line
dt = j["run"]["timestep_s"]
# When each agent left: the first sampled step at which its id is absent from the trajectories.
seen, last = {}, 0
for r in csv.DictReader(open(sys.argv[2])):
    s = int(r["step"]); seen.setdefault(int(r["id"]), []).append(s); last = max(last, s)
left = sorted(max(v) + 1 for v in seen.values() if max(v) < last)
o = j["outcome"]
assert o["sheltered"] == len(left) == 10, (o, left)
assert o["en_route"] == 0 and o["stranded"] == 2 and o["reachable"] == 10, o
assert o["stranded_cut_off"] == 1 and o["stranded_walled_in"] == 1, o
assert o["spawned"] == o["sheltered"] + o["en_route"] + o["stranded"] + o["removed"] + o["buried"] + o["not_fleeing"] + o["own_goal"]
for frac, key in ((0.5, "sheltered_50_s"), (0.9, "sheltered_90_s"), (1.0, "sheltered_100_s")):
    k = math.ceil(frac * 10)
    assert abs(o[key] - left[k - 1] * dt) < 1e-3, (key, o[key], left[k - 1] * dt)
# The known answer: the k-th walker walks 4k m at 1.33 m/s, plus 0.5 s of speeding up.
for key, metres in (("sheltered_50_s", 20), ("sheltered_90_s", 36), ("sheltered_100_s", 40)):
    assert abs(o[key] - (metres / 1.33 + 0.5)) < 1.0, (key, o[key])
b = {x["name"]: x for x in j["bunkers"]}
assert b["exit"]["sheltered"] == 10 and b["spare"]["sheltered"] == 0, b
ev = b["spare"]["events"]
assert len(ev) == 1 and ev[0]["event"] == "destroyed" and ev[0]["step"] == 300, ev
assert abs(ev[0]["time_s"] - 5.0) < 1e-3, ev
assert b["spare"]["destroyed"] and b["spare"]["stranded_could_reach"] == 1, b
# The text says the same, once each.
text = open(sys.argv[3]).read()
m = re.search(r"^sheltered 50% by ([0-9.]+) s, 90% by ([0-9.]+) s, all by ([0-9.]+) s \(of the 10 who", text, re.M)
assert m, text
for got, key in zip(m.groups(), ("sheltered_50_s", "sheltered_90_s", "sheltered_100_s")):
    assert abs(float(got) - o[key]) <= 0.05 + 1e-9, (got, o[key])
assert re.search(r"^outcome   10 sheltered, 0 en route .*, 2 stranded ", text, re.M), text
assert re.search(r"^bunker    spare +0 sheltered, destroyed at 5\.0 s$", text, re.M), text
assert re.search(r"^stranded  1 can walk only to closed bunkers \(spare destroyed: 1\); 1 walled off", text, re.M), text
assert not re.search(r"^(sheltered|stranded) +[0-9]+$", text, re.M), "a figure printed twice"
assert text.count("10 sheltered") == 2, text   # outcome and the exit bunker's own line
assert j["hash"] == re.search(r"^hash (0x[0-9a-f]{16})$", text, re.M).group(1)
EOF
    then pass "report figures = trajectories = known answer; text = JSON"
    else fail "report figures" "$(cat "$tmp/err")"
    fi
fi
h_seconds=$(hash_of "$tmp/report.txt")
run run "$lanes" --headless --destroy-bunker=spare@300
if [[ $rc -eq 0 && -n $h_seconds && $(hash_of "$tmp/out") == "$h_seconds" ]]; then
    pass "spare@5s = spare@300 (same hash)"
else
    fail "spare@5s = spare@300" "hash $(hash_of "$tmp/out") vs $h_seconds"
fi
# A squad scene reports its arrivals.
run run squads --headless --steps 3000 --json "$tmp/q.json"
if [[ $rc -eq 0 ]] && python3 - "$tmp/q.json" "$tmp/out" <<'EOF'
import json, re, sys
j = json.load(open(sys.argv[1])); text = open(sys.argv[2]).read()
assert len(j["squads"]) == 3, j["squads"]
for q in j["squads"]:
    line = re.search(r"^squad     %d: .*$" % q["squad"], text, re.M).group(0)
    if q["arrived_s"] is not None:
        assert ("arrived at %.1f s" % q["arrived_s"]) in line, (line, q)
    else:
        assert "not arrived" in line, line
assert any(q["arrived_s"] is not None for q in j["squads"]), "no squad arrived in 50 s"
EOF
then pass "squad arrivals in text and JSON"
else fail "squad arrivals" "exit code $rc"
fi
# Mover crowds have an outcome: the waypoint walkers at their destination node, counted again
# here from the trajectories' last rows (within 2.0 m of node 9 at [54.5, 34.5]), text = JSON;
# and every mover scene prints a line per mover crowd.
run run waypoints --headless --json "$tmp/wp.json" --trajectories "$tmp/wp.csv" \
    --trajectory-every 12000
if [[ $rc -eq 0 ]] && python3 - "$tmp/wp.json" "$tmp/wp.csv" "$tmp/out" <<'EOF'
import csv, json, math, re, sys
j = json.load(open(sys.argv[1])); text = open(sys.argv[3]).read()
rows = [r for r in csv.DictReader(open(sys.argv[2])) if int(r["step"]) == j["run"]["steps"]]
assert [m["crowd"] for m in j["movers"]] == ["walkers", "drones"], j["movers"]
m = j["movers"][0]
walkers = [r for r in rows if r["crowd"] == "0"]
near = sum(math.hypot(float(r["x"]) - 54.5, float(r["y"]) - 34.5) <= 2.0 for r in walkers)
assert m["goal"] == "waypoints" and m["agents"] == len(walkers) == 30, (m, len(walkers))
assert m["arrived"] == near and 0 < near, (m, near)
line = re.search(r"^movers    walkers \(waypoints\): 30 agent\(s\), (\d+) at the destination "
                 r"\(node 9, within 2\.0 m\), (\d+) on the way, (\d+) stranded", text, re.M)
assert line and int(line.group(1)) == near, line
EOF
then pass "mover outcome: waypoint walkers at the destination, text = JSON = trajectories"
else fail "mover outcome: waypoints" "exit code $rc"
fi
for s in breadcrumbs crash_and_turn wall_follow waypoints; do
    run run "$s" --headless --steps 600 --json "$tmp/mv.json"
    n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["movers"]))' "$tmp/mv.json" 2>/dev/null)
    if [[ $rc -eq 0 && ${n:-0} -ge 1 && $(grep -c '^movers    ' "$tmp/out") -eq $n ]]; then
        pass "$s: a movers line per mover crowd ($n)"
    else fail "$s: movers lines" "exit code $rc, $n in the JSON, $(grep -c '^movers    ' "$tmp/out") in the text"
    fi
done

# A squad whose members all left (by an exit on its start) has no distance to its slots: it
# says so rather than print the mean of nothing.
printf 'name: t\nworld: {size: [40, 40]}\ncrowds:\n  - {name: inf, count: 0}\nsquads:\n  - {crowd: inf, count: 4, formation: box, files: 2, start: [10, 10], goal: [30, 30], speed: 1.5}\nexits:\n  - {name: out, rect: [5, 5, 10, 10]}\nsteps: 5\n' >"$tmp/squad0.yaml"
run run "$tmp/squad0.yaml" --headless --json "$tmp/q0.json"
if [[ $rc -eq 0 ]] && grep -q '^squad     1: 0 member(s), no member left: nothing to arrive$' "$tmp/out" &&
    python3 -c 'import json,sys; q = json.load(open(sys.argv[1]))["squads"][0]; assert q["members"] == 0 and not q["arrived"], q' "$tmp/q0.json"; then
    pass "a squad with no member left"
else fail "a squad with no member left" "exit code $rc, $(grep '^squad' "$tmp/out")"
fi
# A foraging scene reports its colony: the same figures in text and JSON, food conserved.
run run ants --headless --steps 3000 --json "$tmp/a.json"
if [[ $rc -eq 0 ]] && python3 - "$tmp/a.json" "$tmp/out" <<'EOF'
import json, re, sys
j = json.load(open(sys.argv[1])); text = open(sys.argv[2]).read()
assert len(j["colonies"]) == 1, j["colonies"]
c = j["colonies"][0]
line = re.search(r"^colony    %s: .*$" % c["crowd"], text, re.M).group(0)
assert ("%d unit(s) of food delivered, %d carried, %d taken"
        % (c["delivered"], c["carried"], c["taken"])) in line, (line, c)
left = ", ".join("%d of %d" % (s["remaining"], s["amount"]) for s in c["sources"])
assert line.endswith("left at the sources: " + left), (line, left)
assert c["taken"] == sum(s["amount"] - s["remaining"] for s in c["sources"]), c
assert c["taken"] == c["delivered"] + c["carried"] + c["lost"], c
assert c["delivered"] > 0, "no food home in 50 s"
EOF
then pass "colony in text and JSON"
else fail "colony in text and JSON" "exit code $rc"
fi
fi

# ---- Ctrl-C, progress, line-buffered output ----------------------------------------------

# interrupt NAME ARGS...: start a long run, wait for its progress (or 3 s), send SIGINT.
interrupt() {
    local name=$1
    shift
    "$bin" run flock --agents 20000 --steps 100000000 --headless "$@" >"$tmp/out" 2>"$tmp/err" &
    local pid=$! i
    for ((i = 0; i < 100; i++)); do
        sleep 0.1
        grep -q '^throng run: step ' "$tmp/err" && break
    done
    # The first line is out before the run ends: stdout is line-buffered into the file.
    grep -q '^scene ' "$tmp/out" && buffered=1 || buffered=0
    kill -INT "$pid"
    wait "$pid"
    rc=$?
}
interrupt "with progress" --progress --json "$tmp/i.json"
if [[ $rc -ne 130 ]]; then fail "Ctrl-C" "exit code $rc, expected 130"
elif ! grep -Eq '^run +[0-9]+ steps of .* \(interrupted: 100000000 asked\)' "$tmp/out"; then
    fail "Ctrl-C" "no partial report"
elif [[ -z $(hash_of "$tmp/out") ]]; then fail "Ctrl-C" "no hash line"
elif ! python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["run"]["interrupted"] and 0 < j["run"]["steps"] < 100000000' "$tmp/i.json"; then
    fail "Ctrl-C" "JSON does not say interrupted"
else pass "Ctrl-C: partial report, JSON, exit 130"
fi
if grep -Eq '^throng run: step [0-9]+ of 100000000 \([0-9]+%\), [0-9.]+ s simulated, [0-9.]+M agent-steps/s$' "$tmp/err"; then
    pass "--progress lines on stderr"
else fail "--progress" "no progress line"
fi
[[ $buffered -eq 1 ]] && pass "stdout line-buffered" || fail "stdout line-buffered" "no scene line while running"
interrupt "without progress"
if [[ $rc -eq 130 ]] && ! grep -q '^throng run: step' "$tmp/err"; then
    pass "no progress when stderr is not a terminal"
else fail "no progress by default" "exit code $rc or progress printed"
fi

# SIGTERM (what service managers and `timeout` send) and SIGHUP (a closed terminal or ssh
# session) end a run the way Ctrl-C does: the trajectory file ends on a whole row, the JSON is
# written, exit 128 + the signal. (Each run's files are new: the wait must see its own rows.)
for sig in TERM:143 HUP:129; do
    name=SIG${sig%:*} code=${sig#*:}
    rm -f "$tmp/t.csv" "$tmp/t.json"
    "$bin" run flock --agents 20000 --steps 100000000 --headless --json "$tmp/t.json" \
        --trajectories "$tmp/t.csv" >"$tmp/out" 2>"$tmp/err" &
    pid=$!
    # Wait for rows past the header (a condition, not a duration: a sanitizer build on a loaded
    # machine may take long to write its first), at most 2 minutes.
    for ((i = 0; i < 1200; i++)); do
        sleep 0.1
        [[ -f $tmp/t.csv && $(wc -l <"$tmp/t.csv") -ge 3 ]] && break
    done
    kill -"${sig%:*}" "$pid"
    wait "$pid"
    rc=$?
    if [[ $rc -ne $code ]]; then fail "$name" "exit code $rc, expected $code"
    elif ! grep -Eq '^run +[0-9]+ steps of .* \(interrupted: 100000000 asked\)' "$tmp/out"; then
        fail "$name" "no partial report"
    elif ! python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["run"]["interrupted"]' "$tmp/t.json"; then
        fail "$name" "JSON missing or not interrupted"
    elif ! python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
assert len(rows) > 1 and all(len(r) == len(rows[0]) for r in rows), "a cut row"
assert rows[-1][-1] != "", "an empty last field"' "$tmp/t.csv"; then
        fail "$name" "trajectory file cut mid-row"
    else pass "$name: partial report, whole trajectory rows, JSON, exit $code"
    fi
done

# A reader of stdout that goes away (head) does not end the run before its JSON is written.
rm -f "$tmp/p.json"
"$bin" run flock --agents 2000 --steps 40 --headless --json "$tmp/p.json" 2>"$tmp/err" | head -1 >/dev/null
rc=${PIPESTATUS[0]}
if [[ $rc -eq 0 ]] && python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["run"]["steps"] == 40' "$tmp/p.json"; then
    pass "stdout closed early: the run ends and writes its JSON"
else fail "stdout closed early" "exit code $rc or no JSON"
fi

# A step that runs out of memory (an endless spawner past what the process may allocate) ends
# the run with the reason and exit 1, not a report of agents "waiting". Not under sanitizers:
# their runtimes reserve far more address space than the limit leaves.
if [[ -n ${ASAN_OPTIONS:-}${TSAN_OPTIONS:-} ]] || grep -aq -e __asan_init -e __tsan_init "$bin"; then
    pass "out of memory in a step: skipped under a sanitizer"
else
    printf 'name: t\nsteps: 100000\ntimestep: 0.05\nworld: {size: [2000, 2000], bounds: wrap}\ncrowds:\n  - {name: a, count: 0}\nspawners:\n  - {name: door, crowd: a, rect: [0, 0, 2000, 2000], rate: 10000}\n' >"$tmp/oom.yaml"
    (
        ulimit -v 80000 # 80 MB: some 130,000 agents, a few seconds
        exec "$bin" run "$tmp/oom.yaml" --headless --threads 1 >"$tmp/out" 2>"$tmp/err"
    )
    rc=$?
    if [[ $rc -eq 1 ]] && grep -Eq "^throng run: step [0-9]+: spawner 'door' could not add its agent [0-9]+: out of memory" "$tmp/err"; then
        pass "out of memory in a step: the reason, exit 1"
    else fail "out of memory in a step" "exit code $rc, stderr: $(head -c 300 "$tmp/err")"
    fi
fi

# ---- warnings and display ------------------------------------------------------------------

# 3,000 boids in a 20 m square: ~350 within each one's 4 m radius.
printf 'name: packed\nworld: {size: [20, 20], bounds: wrap}\nsteps: 2\ncrowds:\n  - {name: b, count: 3000, spawn: {rect: [0, 0, 20, 20]}}\n' >"$tmp/packed.yaml"
run run "$tmp/packed.yaml" --headless
if [[ $rc -eq 0 ]] && grep -q "warning: each agent sees [0-9]* neighbours on average" "$tmp/err"; then
    pass "density warning"
else fail "density warning" "exit code $rc or no warning"
fi
run run flock --agents 2000 --steps 3 --headless
if [[ $rc -eq 0 && ! -s $tmp/err ]]; then pass "no warning at the usual density"
else fail "no warning at the usual density" "exit code $rc or stderr not empty"
fi
timeout 60 env -u DISPLAY -u WAYLAND_DISPLAY -u SDL_VIDEODRIVER XDG_RUNTIME_DIR=/nonexistent \
    "$bin" run "$lanes" --steps 5 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [[ $rc -eq 0 && $(cat "$tmp/err") == "throng run: no display: running headless" ]]; then
    pass "no display: one plain line"
else fail "no display" "exit code $rc, stderr: $(head -c 300 "$tmp/err")"
fi

# ---- command-line forms ----------------------------------------------------------------------

run --version
if [[ $rc -eq 0 ]] && grep -Eq '^throng [0-9.]+ \(commit [0-9a-f]+|unknown, [A-Za-z]+ build, ' "$tmp/out"; then
    pass "--version"
else fail "--version" "exit code $rc"
fi
run run flock --agents 2000 --steps 10 --headless --threads 1
h_space=$(hash_of "$tmp/out")
run run flock --agents=2000 --steps=10 --headless --threads=1 --seed=1
if [[ $rc -eq 0 && -n $h_space && $(hash_of "$tmp/out") == "$h_space" ]]; then
    pass "--opt=value = --opt value"
else fail "--opt=value" "exit code $rc, hash $(hash_of "$tmp/out") vs $h_space"
fi
cores=$(nproc)
((cores > 64)) && cores=64
run run flock --agents 2000 --steps 10 --headless --threads 0
if [[ $rc -eq 0 && $(hash_of "$tmp/out") == "$h_space" ]] && grep -q ", $cores thread(s)," "$tmp/out"; then
    pass "--threads 0 = every core ($cores), same hash"
else fail "--threads 0" "exit code $rc"
fi
run check --threads=0 "$lanes"
[[ $rc -eq 0 ]] && pass "check --threads=0" || fail "check --threads=0" "exit code $rc"
run bench --agents=500 --threads=1 --steps=3 --warmup=0 --reps=1 --naive-max=0 --grid-ref-max=0
[[ $rc -eq 0 ]] && pass "bench --opt=value" || fail "bench --opt=value" "exit code $rc"
expect_usage "--headless=1" "--headless takes no value" run flock --headless=1
expect_usage "--steps=" "--steps" run flock --steps=
expect_usage "--steps=abc" "--steps" run flock --steps=abc
expect_usage "event: bad seconds" "NAME@SECONDSs" run "$lanes" --destroy-bunker spare@1.2.3s
expect_usage "event: no time" "NAME@STEP" run "$lanes" --destroy-bunker spare@
expect_usage "event: unknown bunker" "(it has: exit, spare)" run "$lanes" --destroy-bunker nope@5s
# Scene lists come from the scenes folder as it is now.
names=$(cd "$scenes" && ls ./*.yaml | sed 's|^\./||; s|\.yaml$||')
run run --help
missing=""
for n in $names evac pedestrians; do grep -q "[ ,:]$n[,;. ]" "$tmp/out" || missing="$missing $n"; done
[[ $rc -eq 0 && -z $missing ]] && pass "run --help lists every scene" || fail "run --help" "missing:$missing"
run run atlantis
missing=""
for n in $names evac pedestrians; do grep -q "[ ,(]$n[,)]" "$tmp/err" || missing="$missing $n"; done
[[ $rc -eq 2 && -z $missing ]] && pass "unknown scene lists every scene" || fail "unknown scene" "exit $rc, missing:$missing"

# ---- screenshots -----------------------------------------------------------------------------

expect_usage "screenshot: no folder" "no folder" run "$lanes" --steps 1 --screenshot "$tmp/none/x.png"
mkdir "$tmp/d.png"
expect_usage "screenshot: a directory" "not a regular file" run "$lanes" --steps 1 --screenshot "$tmp/d.png"
expect_usage "--overlays bogus" "unknown overlay 'bogus'" run "$lanes" --overlays flow,bogus --screenshot "$tmp/x.png"
expect_usage "--size 10x10" "WIDTHxHEIGHT" run "$lanes" --size 10x10 --screenshot "$tmp/x.png"
expect_usage "--view without --screenshot" "--screenshot" run "$lanes" --view 0,0,10,10
expect_usage "--view empty" "X0 < X1" run "$lanes" --view 5,0,5,10 --screenshot "$tmp/x.png"
# png_info FILE: width height distinct-colours of an 8-bit RGB PNG (no PIL needed).
png_info() {
    python3 - "$1" <<'EOF'
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat, w = 8, b"", 0
while pos < len(d):
    n, t = struct.unpack(">I4s", d[pos:pos + 8]); body = d[pos + 8:pos + 8 + n]; pos += 12 + n
    if t == b"IHDR": w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    if t == b"IDAT": idat += body
raw = zlib.decompress(idat); bpp = 3; stride = w * bpp; prev = bytearray(stride); rows = []
for y in range(h):
    f = raw[y * (stride + 1)]; line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0; b = prev[i]; c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line)); prev = line
print(w, h, len({r[i:i + 3] for r in rows for i in range(0, stride, 3)}))
EOF
}
run run "$lanes" --steps 60 --headless --size 640x400 --screenshot "$tmp/a.png"
read -r w h colours < <(png_info "$tmp/a.png" 2>/dev/null)
[[ $rc -eq 0 && ${w:-0} -eq 640 && ${h:-0} -eq 400 ]] && pass "--size 640x400" || fail "--size" "exit $rc, ${w:-?}x${h:-?}"
run run "$lanes" --steps 60 --headless --size=640x400 --no-hud --overlays=flow,-legend --screenshot="$tmp/b.png"
if [[ $rc -eq 0 ]] && ! cmp -s "$tmp/a.png" "$tmp/b.png"; then pass "--no-hud --overlays change the frame"
else fail "--no-hud --overlays" "exit $rc or the same image"
fi
run run "$lanes" --steps 60 --headless --size 400x400 --view 30,8,42,18 --screenshot "$tmp/v.png"
read -r w h colours < <(png_info "$tmp/v.png" 2>/dev/null)
if [[ $rc -eq 0 && ${w:-0} -eq 400 && ${h:-0} -eq 400 && ${colours:-0} -ge 3 ]]; then
    pass "--view 400x400 frame with a map in it ($colours colours)"
else fail "--view" "exit $rc, ${w:-?}x${h:-?}, ${colours:-?} colours"
fi
expect_usage "--flow-field names no field" "--flow-field" run "$lanes" --steps 1 --flow-field nowhere
run run "$lanes" --steps 1 --flow-field exit --overlays flow --screenshot "$tmp/f.png"
if [[ $rc -eq 0 && -s $tmp/f.png ]]; then pass "--flow-field a bunker's own field"
else fail "--flow-field a bunker's own field" "exit $rc"; fi
expect_usage "--view too small for the frame" "at most 8192" run "$lanes" --steps 1 --view 0,0,0.01,0.01 --screenshot "$tmp/y.png"
# --level: one level of a building alone, framed in an image of the size asked for, unlike
# the frame of every level and unlike the other level's; a level the scene lacks (the message
# names those it has), a scene without levels and --level with --view are usage errors.
office=$scenes/office.yaml
run run "$office" --steps 20 --headless --size 640x400 --screenshot "$tmp/levels.png"
all_rc=$rc
run run "$office" --steps 20 --headless --size 640x400 --level first --screenshot "$tmp/first.png"
first_rc=$rc
run run "$office" --steps 20 --headless --size=640x400 --level=ground --screenshot "$tmp/ground.png"
read -r w h colours < <(png_info "$tmp/first.png" 2>/dev/null)
if [[ $all_rc -eq 0 && $first_rc -eq 0 && $rc -eq 0 && ${w:-0} -eq 640 && ${h:-0} -eq 400 &&
    ${colours:-0} -ge 3 ]] && ! cmp -s "$tmp/levels.png" "$tmp/first.png" &&
    ! cmp -s "$tmp/first.png" "$tmp/ground.png"; then
    pass "--level first: a 640x400 frame of its own ($colours colours)"
else fail "--level" "exit $all_rc/$first_rc/$rc, ${w:-?}x${h:-?}, ${colours:-?} colours, or the same image"
fi
expect_usage "--level names no level" "no level 'attic' in this scene (its levels: ground, first)" \
    run "$office" --steps 1 --level attic --screenshot "$tmp/l.png"
expect_usage "--level on a scene without levels" "this scene has no levels" \
    run "$lanes" --steps 1 --level ground --screenshot "$tmp/l.png"
expect_usage "--level with --view" "--level and --view" \
    run "$office" --steps 1 --level first --view 0,0,5,5 --screenshot "$tmp/l.png"
expect_usage "--level without a name" "--level" run "$office" --steps 1 --level

# A bunker the scene calls an exit (the tower's door): reported as an exit, those it took as
# "out", destroying and restoring it as closing and reopening; the JSON says so.
run run "$scenes/tower.yaml" --headless --steps 200 --destroy-bunker door@20 \
    --restore-bunker door@40 --json "$tmp/tower.json"
if [[ $rc -eq 0 ]] && grep -Eq '^exit      door +[0-9]+ out, closed at 1\.0 s, reopened at 2\.0 s$' "$tmp/out" &&
    ! grep -q '^bunker ' "$tmp/out" &&
    python3 -c 'import json, sys; b = json.load(open(sys.argv[1]))["bunkers"]; sys.exit(not (len(b) == 1 and b[0]["exit"] is True))' "$tmp/tower.json"; then
    pass "an exit bunker is reported as an exit"
else fail "an exit bunker is reported as an exit" "exit $rc"
fi
# Run to its end, the outcome and the results page count those the door took as out, not as
# sheltered, and never speak of bunkers.
run run "$scenes/tower.yaml" --headless --results "$tmp/tower_results"
n=$(awk '$1 == "exit" && $2 == "door" {print $3}' "$tmp/out")
if [[ $rc -eq 0 && -n $n ]] &&
    grep -Eq "^outcome   $n out, 0 en route \(walking to an exit\), 0 stranded \(no route to an open exit\)$" "$tmp/out" &&
    grep -Eq "^out       50% by [0-9.]+ s, 90% by [0-9.]+ s, all by [0-9.]+ s \(of the $n who could reach an exit\)$" "$tmp/out" &&
    ! grep -qi 'bunker\|sheltered' "$tmp/out" &&
    grep -q "$n in all; $n out by exits, 0 sheltered" "$tmp/tower_results/index.html" &&
    grep -q "of the $n who could reach an exit" "$tmp/tower_results/index.html"; then
    pass "those an exit bunker took are out, in the report and on the results page"
else fail "those an exit bunker took are out, in the report and on the results page" "exit $rc, door $n"
fi

finish
