#!/usr/bin/env bash
# `throng bench`: its JSON has every field filled and self-consistent, its CSV matches it, the
# --trace file is a valid Chrome trace with one track per worker and spans for every phase,
# bad arguments exit 2 with a message, and stderr stays quiet when it is not a terminal.
#
# usage: test_bench.sh path/to/throng
set -u
. "$(dirname "$0")/lib.sh"

bin=${1:?usage: test_bench.sh path/to/throng}
need_executable "$bin"
need python3 "for the JSON checks"

# `throng bench` with a time limit, stdout and stderr to files (so stderr is no terminal).
run() {
    timeout 300 "$bin" bench "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

# check NAME PYTHON-SCRIPT: run the script (which reads $tmp files) and pass when it exits 0.
check() {
    local name=$1 script=$2 msg
    if msg=$(TMP=$tmp python3 -c "$script" 2>&1); then pass "$name"; else fail "$name" "$msg"; fi
}

# ---- a small sweep with every output ------------------------------------------------------

run --agents 2000,6000 --threads 1,2 --steps 20 --warmup 5 --reps 3 --naive-max 2000 \
    --json "$tmp/b.json" --csv "$tmp/b.csv" --trace "$tmp/t.json"
if [[ $rc -eq 0 ]]; then pass "sweep exits 0"; else fail "sweep exits 0" "exit code $rc"; fi
if [[ ! -s $tmp/err ]]; then pass "stderr quiet off a terminal"; else fail "stderr quiet off a terminal" "stderr not empty"; fi
if grep -q '^     2000        1 ' "$tmp/out" && grep -q '^     6000        2 ' "$tmp/out" &&
    grep -q 'naive O(N^2) reference' "$tmp/out"; then
    pass "table rows and naive section"
else
    fail "table rows and naive section" "missing rows"
fi
if grep -q "^json   $tmp/b.json\$" "$tmp/out" && grep -q "^csv    $tmp/b.csv\$" "$tmp/out" &&
    grep -q "^trace  $tmp/t.json\$" "$tmp/out"; then
    pass "says which files it wrote"
else
    fail "says which files it wrote" "no csv/json/trace lines naming the files"
fi

check "json: machine and build" '
import json, os
d = json.load(open(os.environ["TMP"] + "/b.json"))
m, b = d["machine"], d["build"]
assert m["cpu"] and m["cores"] >= 1, m
for k in ("version", "commit", "build_type", "compiler"):
    assert b.get(k), "build.%s missing" % k
'

check "json: rows complete and consistent" '
import json, math, os, sys
d = json.load(open(os.environ["TMP"] + "/b.json"))
rows = d["rows"]
assert len(rows) == 4, "want 4 rows, got %d" % len(rows)
phases = ["events", "nav", "grid", "steer", "integrate", "contacts", "bookkeeping", "admit",
          "squads", "history"]
need = ["scene", "agents", "threads", "steps", "warmup", "reps", "agent_steps_per_s", "min",
        "max", "wall_s", "ns_per_agent_step", "speedup", "efficiency", "neighbors",
        "peak_bytes", "bytes_per_agent", "hash", "phase_ms", "alive"]
one = {}
for r in rows:
    for k in need:
        assert r.get(k) is not None, "row %s/%s: %s missing" % (r.get("agents"), r.get("threads"), k)
    assert r["scene"] == "flock" and r["steps"] == 20 and r["reps"] == 3
    rate, wall = r["agent_steps_per_s"], r["wall_s"]
    assert r["min"] <= rate <= r["max"], "median outside min-max"
    assert abs(rate * wall / (r["agents"] * r["steps"]) - 1) < 0.02, "rate x wall != agents x steps"
    assert abs(r["ns_per_agent_step"] * rate / 1e9 - 1) < 1e-3, "ns/agent-step != 1e9 / rate"
    assert sorted(r["phase_ms"]) == sorted(phases), "phases: %s" % list(r["phase_ms"])
    assert all(v >= 0 for v in r["phase_ms"].values())
    assert r["phase_ms"]["steer"] > 0
    # Phases are a step minus loop overhead, so in every run they sum to at most its wall time.
    # Medians of each phase may come from different runs: bound them by the slowest run.
    slowest_ms = r["agents"] / r["min"] * 1e3
    assert sum(r["phase_ms"].values()) <= slowest_ms * 1.05, "phases exceed the step"
    assert r["peak_bytes"] > 0 and abs(r["bytes_per_agent"] * r["agents"] / r["peak_bytes"] - 1) < 1e-3
    assert 20 <= r["bytes_per_agent"] <= 10000, "bytes per agent %g" % r["bytes_per_agent"]
    assert r["neighbors"] > 0
    assert abs(r["efficiency"] * r["threads"] - r["speedup"]) < 1e-3
    if r["threads"] == 1:
        one[r["agents"]] = (rate, r["hash"])
for r in rows:
    base, h = one[r["agents"]]
    assert abs(r["speedup"] - r["agent_steps_per_s"] / base) < 1e-3, "speedup not against 1 thread"
    if r["threads"] == 1:
        assert r["speedup"] == 1.0, "1-thread speedup %r" % r["speedup"]
    assert r["hash"] == h, "state hash differs across thread counts"
naive = [r for r in rows if r["naive_agent_steps_per_s"] is not None]
assert [(r["agents"], r["threads"]) for r in naive] == [(2000, 1)], "naive rows %r" % naive
n = naive[0]
assert abs(n["speedup_vs_naive"] - n["agent_steps_per_s"] / n["naive_agent_steps_per_s"]) < 0.01 * n["speedup_vs_naive"]
assert n["speedup_vs_naive"] > 1
assert d["cores"] >= 1 and d["process_peak_rss_bytes"] > 0
'

check "csv matches json" '
import csv, json, os
t = os.environ["TMP"]
rows = list(csv.DictReader(open(t + "/b.csv")))
js = json.load(open(t + "/b.json"))["rows"]
assert len(rows) == len(js) == 4
for c, j in zip(rows, js):
    assert int(c["agents"]) == j["agents"] and int(c["threads"]) == j["threads"]
    assert abs(float(c["agent_steps_per_s"]) - j["agent_steps_per_s"]) < 1
    assert abs(float(c["steer_ms"]) - j["phase_ms"]["steer"]) < 1e-3
    # One column per phase, in step order, each matching the JSON.
    names = ["events", "nav", "grid", "steer", "integrate", "contacts", "bookkeeping", "admit",
             "squads", "history"]
    cols = [k for k in c if k.endswith("_ms")]
    assert cols == [n + "_ms" for n in names], "csv phase columns %r" % cols
    for n in names:
        assert float(c[n + "_ms"]) >= 0 and abs(float(c[n + "_ms"]) - j["phase_ms"][n]) < 1e-3, n
    assert c["hash"] == j["hash"]
'

check "trace: valid chrome trace, a track per worker, every phase" '
import json, os
d = json.load(open(os.environ["TMP"] + "/t.json"))
ev = d["traceEvents"]
names = {e["tid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
assert sorted(names) == [0, 1], "thread_name tids %r" % sorted(names)
x = [e for e in ev if e["ph"] == "X"]
tids = {e["tid"] for e in x}
assert 0 in tids and tids <= {0, 1}, "span tids %r" % tids
phases = {"events", "nav", "grid", "steer", "integrate", "contacts", "bookkeeping", "admit",
          "squads", "history"}
assert {e["name"] for e in x if e["tid"] == 0} == phases
# worker 1 has spans in the parallel phases it took part in (all of them, but for a worker the
# machine kept from its core while worker 0 ran every chunk)
assert {e["name"] for e in x if e["tid"] == 1} <= {"grid", "steer", "integrate"}
steps = {e["args"]["step"] for e in x}
assert steps == set(range(5, 25)), "steps %r" % sorted(steps)
for s in steps:
    assert sum(1 for e in x if e["args"]["step"] == s and e["tid"] == 0) == len(phases)
for e in x:
    assert e["ts"] >= 0 and e["dur"] >= 0 and e["pid"] == 1
'

if python3 -m json.tool "$tmp/t.json" >/dev/null 2>&1; then pass "trace passes json.tool"; else fail "trace passes json.tool" "invalid JSON"; fi

# ---- usage errors: exit 2, a message naming the problem, nothing measured -------------------

# A usage error must not go ahead: what a run that did would print (expect_usage, lib.sh).
usage_ran='agents  *threads'

expect_usage "unknown flag" "--bogus" --bogus
expect_usage "positional argument" "flock" flock
expect_usage "--agents 0" "--agents" --agents 0
expect_usage "--agents abc" "--agents" --agents abc
expect_usage "--agents empty item" "--agents" --agents 1000,,2000
expect_usage "--agents too many" "--agents" --agents 17000000
expect_usage "--threads 65" "--threads" --threads 65
expect_usage "--threads 0" "--threads" --threads 1,0
expect_usage "--reps 0" "--reps" --reps 0
expect_usage "--contend 65" "--contend" --contend 65
expect_usage "--contend -1" "--contend" --contend -1
expect_usage "--reps 100" "--reps" --reps 100
expect_usage "--steps -1" "--steps" --steps -1
expect_usage "missing value" "--json" --agents 1000 --json
expect_usage "unknown scene" "nosuch" --scene nosuch --agents 1000

# --contend: busy threads for the whole run, named in the heading and the JSON; the sweep is
# what it would be without them, only slower.
run --agents 1000 --threads 1,2 --steps 5 --warmup 1 --reps 1 --naive-max 0 --contend 1 \
    --json "$tmp/c.json"
if [[ $rc -eq 0 ]] && grep -q '1 busy thread holding cores' "$tmp/out" &&
    grep -q '^     1000        2 ' "$tmp/out" &&
    python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["contend"] != 1)' "$tmp/c.json"; then
    pass "--contend 1: named in the heading and the JSON"
else
    fail "--contend 1" "exit code $rc"
fi

run --help
if [[ $rc -eq 0 ]] && grep -q -- '--trace' "$tmp/out" && grep -q -- '--json' "$tmp/out"; then
    pass "--help"
else
    fail "--help" "exit code $rc or flags missing"
fi

# An output the file system refuses is a usage error found before the sweep, as with run.
run --agents 1000 --threads 1 --steps 2 --warmup 0 --reps 1 --json /nonexistent/dir/x.json
if [[ $rc -eq 2 ]] && grep -qF "cannot write '/nonexistent/dir/x.json': no folder" "$tmp/err" &&
    ! grep -q 'agents' "$tmp/out"; then
    pass "unwritable output exits 2 before the sweep"
else
    fail "unwritable output exits 2 before the sweep" "exit code $rc"
fi

# ---- signals: stop at the next step, print what was measured, write no part of a file -----
# SIGINT (Ctrl-C), SIGTERM (service managers, `timeout`) and SIGHUP (a closed terminal) alike:
# the first configuration (100 agents) is measured and printed, the signal comes while the
# second (200,000 agents, 1,000 steps: far longer than the wait for the row) runs. The bench
# stops at its next step, prints the measured row and a line saying it was interrupted after 1
# of 2 configurations, exits 128 + the signal, and leaves the --csv and --json files as they
# were, with no temporary file beside them.
for sig in INT:130 TERM:143 HUP:129; do
    name=SIG${sig%:*} code=${sig#*:}
    rm -f "$tmp"/s.*
    echo old >"$tmp/s.csv"
    echo old >"$tmp/s.json"
    "$bin" bench --agents 100,200000 --threads 1 --steps 1000 --warmup 0 --reps 1 --naive-max 0 \
        --grid-ref-max 0 --csv "$tmp/s.csv" --json "$tmp/s.json" >"$tmp/out" 2>"$tmp/err" &
    pid=$!
    # Wait for the first row (a condition, not a duration), at most 2 minutes.
    for ((i = 0; i < 1200; i++)); do
        sleep 0.1
        grep -q '^      100        1 ' "$tmp/out" && break
    done
    kill -"${sig%:*}" "$pid"
    wait "$pid"
    rc=$?
    if [[ $rc -ne $code ]]; then fail "$name" "exit code $rc, expected $code"
    elif ! grep -q '^      100        1 ' "$tmp/out" || grep -q '^ *200000 ' "$tmp/out"; then
        fail "$name" "not the one measured row"
    elif ! grep -q "^INTERRUPTED by signal $((code - 128)) .*: 1 of 2 configurations measured" "$tmp/out"; then
        fail "$name" "no line saying the sweep was interrupted"
    elif [[ $(cat "$tmp/s.csv") != old || $(cat "$tmp/s.json") != old ]]; then
        fail "$name" "an output file was changed"
    elif [[ $(ls "$tmp" | grep -c '^s\.') -ne 2 ]]; then
        fail "$name" "a temporary file was left: $(ls "$tmp" | grep '^s\.' | tr '\n' ' ')"
    else pass "$name: the measured row, marked interrupted, outputs untouched, exit $code"
    fi
done

finish
