#!/usr/bin/env bash
# Stalled agents and the end of a scene, through scene keys and `throng run`'s report and JSON:
# a head-on gridlock in a corridor narrower than two bodies is reported stalled and fails
# --fail-on-stall and --validate; stall_time moves the threshold and is checked; scenes that
# progress (a bottleneck queue, a corridor flow, wanderers, squads, a flock, waypoint walkers)
# report none; a run
# stops when the scene is over unless --fixed-steps, and a flock runs to the limit. Screenshots
# ring stalled agents red. Over the whole run (the `stalls` and `queuing` lines, the JSON's
# peak, peak_s, agent_seconds, longest_run_s, queued, queued_peak): a jam that dissolves leaves
# its trace though nobody is stalled at the end; a slow queue at a door 0.6 m wide, whose
# walkers stand still longer than the stall time (read from the trajectories), queues and is
# never stalled; a clog at a door too narrow for a body is stalled, those pressing in behind
# included; the figures are the same at 1 and 2 threads. Walkers by an exit, a bunker or an
# `exits` cell that no body can enter are stalled (nobody leaves by it), and those by a like
# exit that bodies pass leave.
#
# usage: test_stall_cli.sh path/to/throng path/to/tests/data
set -u
. "$(dirname "$0")/lib.sh"

bin=${1:?usage: test_stall_cli.sh path/to/throng path/to/tests/data}
data=${2:?usage: test_stall_cli.sh path/to/throng path/to/tests/data}
scenes=$data/../../scenes
need python3 "to read the JSON back"

# json FILE EXPR: print a Python expression over the parsed file (bound to j).
json() { python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print($2)" "$1"; }

# ---- gridlock ------------------------------------------------------------------------------

run run "$data/gridlock.yaml" --headless --json "$tmp/g.json"
if [[ $rc -ne 0 ]]; then fail "gridlock runs" "exit code $rc without --fail-on-stall"
elif ! grep -qE '^stalled   2 agent\(s\) without progress' "$tmp/out"; then
    fail "gridlock: report" "no 'stalled   2 agent(s)' line"
elif [[ $(json "$tmp/g.json" "j['stalls']['stalled']") != 2 ]]; then
    fail "gridlock: json" "stalls.stalled is not 2"
elif ! python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['stalls']
b=s['box_m']; assert 10 <= s['longest_s'] <= 30 and 3 < b[0] <= b[2] < 8, s" "$tmp/g.json"; then
    fail "gridlock: json" "longest or box out of range"
else pass "gridlock: both walkers stalled, in the corridor's middle"
fi

run run "$data/gridlock.yaml" --headless --fail-on-stall
if [[ $rc -ne 1 ]]; then fail "gridlock --fail-on-stall" "exit code $rc, expected 1"
elif ! grep -q "2 agent(s) stalled at the end of the run" "$tmp/err"; then
    fail "gridlock --fail-on-stall" "no clear message on stderr"
else pass "gridlock --fail-on-stall exits 1 with a message"
fi

run run "$data/gridlock.yaml" --headless --validate
[[ $rc -eq 1 ]] && grep -q "stalled" "$tmp/err" && pass "gridlock --validate exits 1" ||
    fail "gridlock --validate" "exit code $rc, expected 1"

# Same stalls for any thread count.
run run "$data/gridlock.yaml" --headless --threads 1 --json "$tmp/g1.json"
run run "$data/gridlock.yaml" --headless --threads 3 --json "$tmp/g3.json"
if [[ $(json "$tmp/g1.json" "j['stalls']") == "$(json "$tmp/g3.json" "j['stalls']")" ]]; then
    pass "gridlock: the same stalls with 1 and 3 threads"
else fail "gridlock: threads" "stalls differ between 1 and 3 threads"
fi

# stall_time: a 30 s run never reaches a 40 s threshold.
sed 's/^steps: 1800.*/steps: 1800\nstall_time: 40/' "$data/gridlock.yaml" >"$tmp/g40.yaml"
run run "$tmp/g40.yaml" --headless --fail-on-stall --json "$tmp/g40.json"
[[ $rc -eq 0 && $(json "$tmp/g40.json" "j['stalls']['stalled'], j['stalls']['stall_time_s']") == "0 40" ]] &&
    pass "stall_time: 40 s is not reached in 30 s" || fail "stall_time: 40" "exit code $rc"
# After 10 s of the run (about 6 s into the jam), stalled under a 5 s threshold, not under 10 s.
sed 's/^steps: 1800.*/steps: 600\nstall_time: 5/' "$data/gridlock.yaml" >"$tmp/g5.yaml"
run run "$tmp/g5.yaml" --headless --json "$tmp/g5.json"
run run "$data/gridlock.yaml" --headless --steps 600 --json "$tmp/g10.json"
[[ $(json "$tmp/g5.json" "j['stalls']['stalled']") == 2 && $(json "$tmp/g10.json" "j['stalls']['stalled']") == 0 ]] &&
    pass "stall_time: 5 s stalls them earlier than the default" ||
    fail "stall_time: 5" "expected 2 stalled at 5 s and 0 at the default after 10 s"
for bad in -1 0 abc; do
    sed "s/^steps: 1800.*/steps: 1800\nstall_time: $bad/" "$data/gridlock.yaml" >"$tmp/bad.yaml"
    run run "$tmp/bad.yaml" --headless
    if [[ $rc -ne 2 ]]; then fail "stall_time: $bad" "exit code $rc, expected 2"
    elif ! grep -qE "bad.yaml:6:[0-9]+: stall_time" "$tmp/err"; then
        fail "stall_time: $bad" "no file:line:column naming stall_time"
    else pass "stall_time: $bad refused at its line"
    fi
done

# The viewer rings stalled agents red (0xFF3030) in screenshots: none before the jam, both after.
run run "$data/gridlock.yaml" --steps 120 --screenshot "$tmp/early.png" --view 4,0,8,1.5 --size 800x300
run run "$data/gridlock.yaml" --screenshot "$tmp/late.png" --view 4,0,8,1.5 --size 800x300
early=$(png_count "$tmp/early.png" 400 150 400 ff3030)
late=$(png_count "$tmp/late.png" 400 150 400 ff3030)
[[ $early -eq 0 && $late -gt 100 ]] && pass "screenshot: stalled walkers ringed red" ||
    fail "screenshot: red rings" "red pixels $early before the jam, $late after"

# ---- over the whole run ----------------------------------------------------------------------

# stalls_line FILE: the figures of the `stalls` line "stalls    ... at most N at once (t = T s),
# A agent-seconds in all, longest L s" as "N T A L", or nothing.
stalls_line() {
    sed -nE 's/^stalls    .*; at most ([0-9]+) at once \(t = ([0-9.]+) s\), ([0-9.]+) agent-seconds in all, longest ([0-9.]+) s$/\1 \2 \3 \4/p' "$1"
}

# A jam that dissolves: walkers clog a door too narrow for them until it is widened at 25 s.
run run "$data/stall_jam.yaml" --headless --fail-on-stall --json "$tmp/jam.json"
fig=$(stalls_line "$tmp/out")
if [[ $rc -ne 0 ]]; then fail "jam: --fail-on-stall" "exit code $rc: stalled at the end"
elif ! grep -q '^stalled   none' "$tmp/out" || ! grep -q '^stalls    none at the end; at most' "$tmp/out"; then
    fail "jam: report" "no 'stalled   none' and 'stalls    none at the end; at most ...' lines"
elif [[ -z $fig ]]; then fail "jam: report" "the stalls line has not its form"
elif ! python3 -c "import json,sys
s=json.load(open(sys.argv[1]))['stalls']
n,t,a,l=sys.argv[2].split()
assert s['stalled'] == 0 and s['box_m'] is None and s['queued'] == 0, s
assert 2 <= s['peak'] <= 8 and s['peak'] == int(n), s
assert s['stall_time_s'] < s['peak_s'] < 25 and abs(s['peak_s'] - float(t)) <= 0.06, s
assert s['agent_seconds'] > 0 and abs(s['agent_seconds'] - float(a)) <= 0.06, s
assert s['longest_run_s'] > s['stall_time_s'] and abs(s['longest_run_s'] - float(l)) <= 0.06, s
assert s['agent_seconds'] <= s['peak'] * (25 + s['stall_time_s']), s" "$tmp/jam.json" "$fig"; then
    fail "jam: json" "the run's figures are wrong or differ from the report's"
else pass "jam that dissolves: none stalled at the end, its peak, agent-seconds and longest kept"
fi

# A slow queue: 100 walkers through a door 0.6 m wide, stall_time 3 s.
run run "$data/stall_door_queue.yaml" --headless --fail-on-stall --json "$tmp/q.json" \
    --trajectories "$tmp/q.csv" --trajectory-every 15
if [[ $rc -ne 0 ]]; then fail "door queue: --fail-on-stall" "exit code $rc"
elif ! grep -q '^stalls    none during the run$' "$tmp/out"; then
    fail "door queue: report" "stalled at some time of the run"
elif ! grep -qE '^queuing   0 at the end, at most [0-9]+ at once' "$tmp/out"; then
    fail "door queue: report" "no queuing line"
elif ! python3 -c "import json,sys,csv,math
j=json.load(open(sys.argv[1])); s=j['stalls']
assert j['run']['scene_over'] and j['outcome']['sheltered'] == 100, j['outcome']
assert s['peak'] == 0 and s['peak_s'] is None and s['agent_seconds'] == 0, s
assert s['longest_run_s'] == 0 and s['stalled'] == 0 and s['queued_peak'] >= 10, s
# The premise, from positions alone: some walker stood within 0.2 m of one spot for more than
# twice the stall time (so it cannot have progressed 0.2 m toward the door meanwhile).
spot = {}; stood = 0.0
for r in csv.DictReader(open(sys.argv[2])):
    i, t, x, y = r['id'], float(r['time']), float(r['x']), float(r['y'])
    if i not in spot or math.hypot(x - spot[i][1], y - spot[i][2]) > 0.2: spot[i] = (t, x, y)
    stood = max(stood, t - spot[i][0])
assert stood > 2 * s['stall_time_s'], stood" "$tmp/q.json" "$tmp/q.csv"; then
    fail "door queue: json" "stalled at some time, or nobody waited longer than the stall time"
else pass "slow door queue: walkers wait longer than the stall time, queue, and never stall"
fi
q_line=$(grep '^queuing' "$tmp/out")
[[ $q_line == "queuing   0 at the end, at most $(json "$tmp/q.json" "j['stalls']['queued_peak']") at once"* ]] &&
    pass "door queue: the queuing line is the JSON's" || fail "door queue: queuing line" "$q_line"

# A clog: the same walkers at the door too narrow for them, left alone.
run run "$data/stall_clog.yaml" --headless --json "$tmp/c.json"
fig=$(stalls_line "$tmp/out")
if [[ $rc -ne 0 ]]; then fail "clog" "exit code $rc without --fail-on-stall"
elif ! grep -qE '^stalled   [678] agent\(s\) without progress' "$tmp/out"; then
    fail "clog: report" "not 6 to 8 stalled at the end"
elif ! grep -qE '^stalls    [678] at the end; at most [678] at once' "$tmp/out" || [[ -z $fig ]]; then
    fail "clog: report" "no stalls line with the run's figures"
elif ! python3 -c "import json,sys
s=json.load(open(sys.argv[1]))['stalls']
assert s['stalled'] >= 6 and s['queued'] <= 2 and s['peak'] >= s['stalled'], s
assert s['longest_run_s'] >= s['longest_s'] and s['longest_run_s'] > 4 * s['stall_time_s'], s
assert s['agent_seconds'] > s['stalled'] * s['stall_time_s'], s" "$tmp/c.json"; then
    fail "clog: json" "not stalled, or queuing, or figures out of range"
else pass "clog: those stuck at the door and those pressing behind them are stalled, not queuing"
fi
run run "$data/stall_clog.yaml" --headless --fail-on-stall
[[ $rc -eq 1 ]] && pass "clog --fail-on-stall exits 1" || fail "clog --fail-on-stall" "exit code $rc"

# The run's figures are the same at 1 and 2 threads.
same=1
for s in stall_jam stall_clog stall_door_queue; do
    run run "$data/$s.yaml" --headless --threads 1 --steps 2400 --json "$tmp/t1.json"
    run run "$data/$s.yaml" --headless --threads 2 --steps 2400 --json "$tmp/t2.json"
    [[ $(json "$tmp/t1.json" "j['stalls']") == "$(json "$tmp/t2.json" "j['stalls']")" ]] || same=0
done
[[ $same -eq 1 ]] && pass "the run's stall figures are the same at 1 and 2 threads" ||
    fail "threads" "the stalls objects differ between 1 and 2 threads"

# ---- exits no body can enter -----------------------------------------------------------------

# An exit, a bunker or an `exits` entry one cell wide on the map's east edge, in cells of 0.1,
# 0.2 and 0.3 m, that bodies 0.4 m wide never enter: the walkers stand within 1.5 m of it for
# the whole run. Nobody leaves, and all three are stalled there (not arrived, not plain en
# route), at every seed. The same drawing in 0.5 m cells is passed by everyone, nobody stalled.
# exit_check FILE JSON: the premise (nobody left) and the verdict (all 3 stalled, within 1.5 m
# of the map's east edge, where the exit is), the map's width read from the scene file.
exit_check() {
    python3 -c "import json,sys,re
t=open(sys.argv[1]).read(); cell=float(re.search(r'cell_size: *([0-9.]+)', t).group(1))
width=len(re.search(r'ascii: \|\n +(\S+)', t).group(1)) * cell
j=json.load(open(sys.argv[2])); s=j['stalls']
assert j['exited']['agents'] == 0 and j['outcome']['sheltered'] == 0, 'somebody left'
assert s['stalled'] == 3 and s['longest_s'] >= s['stall_time_s'], s
assert width - 1.5 < s['box_m'][0] <= s['box_m'][2] < width, (width, s['box_m'])" "$1" "$2"
}
for f in stall_exit_edge stall_exit_bunker stall_exit_cells; do
    for seed in 1 2 3; do
        sed "s/^seed: 1\$/seed: $seed/" "$data/$f.yaml" >"$tmp/x.yaml"
        run run "$tmp/x.yaml" --headless --fail-on-stall --json "$tmp/x.json"
        if [[ $rc -ne 1 ]]; then fail "$f seed $seed: --fail-on-stall" "exit code $rc, expected 1"
        elif ! grep -q "3 agent(s) stalled at the end of the run" "$tmp/err"; then
            fail "$f seed $seed: --fail-on-stall" "no message on stderr"
        elif ! grep -qE '^stalled   3 agent\(s\) without progress' "$tmp/out" ||
            ! grep -qE '^(exited    0 of 3 spawned, 3 still in the world \(3 stalled\)|outcome   0 sheltered, 3 en route \(walking to a bunker; 3 of them stalled\))' "$tmp/out"; then
            fail "$f seed $seed: report" "not 3 stalled, or not named on the exited or outcome line"
        elif ! exit_check "$tmp/x.yaml" "$tmp/x.json"; then
            fail "$f seed $seed: json" "somebody left, or not all 3 stalled by the exit"
        else pass "$f seed $seed: nobody enters the exit, all 3 stalled by it"
        fi
    done
done
for seed in 1 2 3; do
    sed "s/^seed: 1\$/seed: $seed/" "$data/stall_exit_wide.yaml" >"$tmp/x.yaml"
    run run "$tmp/x.yaml" --headless --fail-on-stall --json "$tmp/x.json"
    [[ $rc -eq 0 && $(json "$tmp/x.json" "j['exited']['agents'], j['stalls']['stalled'], j['stalls']['peak']") == "3 0 0" ]] &&
        pass "stall_exit_wide seed $seed: everyone leaves, nobody stalled" ||
        fail "stall_exit_wide seed $seed" "exit code $rc, or not all left, or stalls"
done
# A queue at an exit that takes walkers: 20 of them through the 0.5 m cell, stall_time 2 s. Those
# waiting by it queue (the premise: some queued) and nobody is stalled at any time.
for seed in 1 2 3; do
    sed -e "s/^seed: 1\$/seed: $seed/" -e 's/^    count: 3$/    count: 20/' -e 's/^stall_time: 5$/stall_time: 2/' \
        -e 's/rect: \[0.3, 0.3, 1.2, 0.8\]/rect: [0.3, 0.3, 2.5, 1.5]/' "$data/stall_exit_wide.yaml" >"$tmp/x.yaml"
    run run "$tmp/x.yaml" --headless --fail-on-stall --json "$tmp/x.json"
    if [[ $rc -ne 0 ]]; then fail "exit queue seed $seed" "exit code $rc"
    elif ! python3 -c "import json,sys; j=json.load(open(sys.argv[1])); s=j['stalls']
assert j['exited']['agents'] == 20 and s['queued_peak'] > 0, (j['exited'], s)
assert s['peak'] == 0 and s['agent_seconds'] == 0, s" "$tmp/x.json"; then
        fail "exit queue seed $seed" "not all 20 left, nobody queued, or stalled at some time"
    else pass "exit queue seed $seed: 20 walkers queue at the exit and leave, never stalled"
    fi
done
# Slow walkers (0.4 m/s) under stall_time 1 s take almost 4 s to cross the last 1.5 m to an exit
# that has taken nobody yet: they progress all the way, leave, and are never stalled.
for seed in 1 2 3; do
    sed -e "s/^seed: 1\$/seed: $seed/" -e 's/^stall_time: 5$/stall_time: 1/' \
        -e 's/^    count: 3$/    count: 3\n    desired_speed: 0.4\n    desired_speed_sd: 0/' \
        "$data/stall_exit_wide.yaml" >"$tmp/x.yaml"
    run run "$tmp/x.yaml" --headless --fail-on-stall --json "$tmp/x.json"
    [[ $rc -eq 0 && $(json "$tmp/x.json" "j['exited']['agents'], j['stalls']['peak']") == "3 0" ]] &&
        pass "slow walkers seed $seed: they walk up to the exit and leave, never stalled" ||
        fail "slow walkers seed $seed" "exit code $rc, or not all left, or stalled at some time"
done

# ---- scenes that progress report none ------------------------------------------------------

# (waypoints: walkers crowd round the destination node, inside its radius or queued behind
# those who are.)
for s in "$scenes/validation/door_flow.yaml" "$scenes/corridor_flow.yaml" \
    "$data/stall_wander.yaml" "$scenes/squads.yaml" "$scenes/flock.yaml" \
    "$scenes/waypoints.yaml"; do
    name=$(basename "$s" .yaml)
    extra=(); [[ $name == flock ]] && extra=(--agents 3000)
    run run "$s" --headless --threads 2 --fail-on-stall "${extra[@]}" --json "$tmp/n.json"
    if [[ $rc -ne 0 ]]; then fail "$name: no stalls" "exit code $rc"
    elif ! grep -q '^stalled   none' "$tmp/out"; then fail "$name: no stalls" "report says otherwise"
    elif [[ $(json "$tmp/n.json" "j['stalls']['stalled'], j['stalls']['box_m']") != "0 None" ]]; then
        fail "$name: no stalls" "json says otherwise"
    else pass "$name: nobody stalled"
    fi
done

# Walkers that reach a destination without an exit stand there (and those behind wait for room):
# arrived, not stalled.
sed 's/      exit: true/      exit: false/' "$data/scene_over.yaml" >"$tmp/arrive.yaml"
run run "$tmp/arrive.yaml" --headless --steps 3000 --fail-on-stall
[[ $rc -eq 0 ]] && grep -q '^stalled   none' "$tmp/out" && pass "arrived walkers are not stalled" ||
    fail "arrived walkers" "exit code $rc or stalls reported"

# ---- the scene is over ---------------------------------------------------------------------

run run "$data/scene_over.yaml" --headless --json "$tmp/o.json" --trajectories "$tmp/o.csv"
if [[ $rc -ne 0 ]]; then fail "scene over" "exit code $rc"
elif ! grep -qE '^run +[0-9]+ steps .*\(scene over at t = [0-9.]+ s, step [0-9]+, of 6000 allowed\)' "$tmp/out"; then
    fail "scene over: report" "no 'scene over at' on the run line"
elif ! python3 -c "import json,sys,csv; r=json.load(open(sys.argv[1]))['run']
assert r['scene_over'] and 0 < r['steps'] < 6000 and r['steps_asked'] == 6000, r
assert abs(r['scene_over_s'] - r['steps'] * r['timestep_s']) < 1e-3, r
last = max(int(row['step']) for row in csv.DictReader(open(sys.argv[2])))
assert r['steps'] - 1 <= last <= r['steps'], (last, r)" "$tmp/o.json" "$tmp/o.csv"; then
    fail "scene over: json" "run.scene_over, steps or the trajectories' last step wrong"
else pass "scene over: the run stops when the last walker has left"
fi
steps_over=$(json "$tmp/o.json" "j['run']['steps']")
run run "$data/scene_over.yaml" --headless --steps $((steps_over + 50)) --json "$tmp/o2.json"
[[ $(json "$tmp/o2.json" "j['run']['steps']") == "$steps_over" ]] &&
    pass "scene over: the same step under another limit" || fail "scene over: limit" "steps differ"
run run "$data/scene_over.yaml" --headless --fixed-steps --json "$tmp/f.json"
[[ $rc -eq 0 && $(json "$tmp/f.json" "j['run']['steps'], j['run']['scene_over']") == "6000 False" ]] &&
    pass "--fixed-steps runs every step" || fail "--fixed-steps" "did not run 6000 steps"
run run "$scenes/flock.yaml" --headless --agents 3000 --steps 300 --json "$tmp/fl.json"
[[ $(json "$tmp/fl.json" "j['run']['steps'], j['run']['scene_over']") == "300 False" ]] &&
    pass "a flock is never over" || fail "flock" "stopped before its limit"
run run "$data/gridlock.yaml" --headless --json "$tmp/g.json"
[[ $(json "$tmp/g.json" "j['run']['steps']") == 1800 ]] &&
    pass "stalled walkers keep the scene going" || fail "gridlock: steps" "stopped early"

finish
