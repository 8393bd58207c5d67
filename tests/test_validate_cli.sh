#!/usr/bin/env bash
# `throng validate`: the scenes are what tests/validation_scenes.py writes; a fast subset (one
# bottleneck width, one density of the corridor's diagram, one seed) through the command line:
# the table and the JSON agree (one row per case with the measured value, the published values,
# the tolerance and the result), the judge's arithmetic is redone here from the JSON (the
# published band at 1.0 m from the sources' values, Weidmann's curve at the measured density,
# the result against the tolerance), the exit status says whether a case failed, the results
# are the same at 1 and 2 threads, and bad options are usage errors that run nothing. The full
# run (minutes) is test_validate_full.sh.
#
# usage: test_validate_cli.sh path/to/throng
set -u
. "$(dirname "$0")/lib.sh"

bin=${1:?usage: test_validate_cli.sh path/to/throng}
need_executable "$bin"
need python3 "to write the scenes and read the JSON back"
here=$(cd "$(dirname "$0")" && pwd)
usage_ran="^validate  "

# The committed scenes are the generator's output, byte for byte.
bad=0
names=$(python3 "$here/validation_scenes.py" list)
for name in $names; do
    python3 "$here/validation_scenes.py" scene "$name" >"$tmp/scene.yaml"
    if ! cmp -s "$tmp/scene.yaml" "$here/../scenes/validation/$name"; then
        echo "     $name differs from tests/validation_scenes.py's output"
        bad=1
    fi
done
if [[ $bad -eq 0 && $(echo "$names" | wc -w) -eq 15 ]]; then
    pass "the 15 scenes are the generator's output"
else
    fail "the 15 scenes are the generator's output" "run: python3 tests/validation_scenes.py write"
fi

fast='bottleneck-1.0,fd-2'
run validate --only "$fast" --seeds 1 --threads 1 --json "$tmp/v1.json"
cp "$tmp/out" "$tmp/table1"
if [[ $rc -eq 0 || $rc -eq 1 ]]; then pass "fast subset runs (exit $rc)"; else fail "fast subset runs" "exit code $rc"; fi
if grep -q "throng validate: \[1/2\] bottleneck-1.0" "$tmp/err" &&
    grep -q "throng validate: \[2/2\] fd-2" "$tmp/err"; then
    pass "progress on stderr"
else
    fail "progress on stderr" "no progress line per case"
fi
if [[ $(grep -c -E '^(bottleneck|fd)-' "$tmp/table1") -eq 2 ]] &&
    grep -qE '^case +result +measured.*criterion +published' "$tmp/table1" &&
    grep -qE '^validate +[0-2] pass, [0-2] fail, 0 error, of 2 case' "$tmp/table1"; then
    pass "table: a header, 2 rows and the counts"
else
    fail "table: a header, 2 rows and the counts" "see stdout"
fi

if python3 - "$tmp/v1.json" "$tmp/table1" "$rc" <<'PY'; then
import json, math, re, sys
j = json.load(open(sys.argv[1]))
rows = j["cases"]
assert [r["id"] for r in rows] == ["bottleneck-1.0", "fd-2"], [r["id"] for r in rows]
for r in rows:
    for key in ("measured", "published", "tolerance", "status"):
        assert key in r, (r["id"], key)
    assert r["status"] in ("pass", "fail"), r
    assert r["seeds"] == [1] and len(r["per_seed"]) == 1, r
    assert r["measured"] == r["per_seed"][0] == r["measured_min"] == r["measured_max"], r
    lo, hi = r["tolerance"]["low"], r["tolerance"]["high"]
    assert (r["status"] == "pass") == (lo <= r["measured"] <= hi), r
c = j["counts"]
assert c["total"] == 2 and c["pass"] + c["fail"] == 2 and c["error"] == 0, c
assert j["exit_code"] == int(sys.argv[3]) == (1 if c["fail"] else 0), (j["exit_code"], sys.argv[3])
assert j["seeds_limit"] == 1 and j["threads"] == 1
by = {r["id"]: r for r in rows}
src = {s["id"]: s for s in j["sources"]}
for s in src.values():
    assert s["provenance"] in ("TEXT", "TABLE", "FIG-DIGITISED", "DATA-DERIVED"), s
    assert s["citation"] and s["rows"], s

# Bottleneck 1.0 m: the judged sources (Kretz 2006, Seyfried 2009) at 1.0 m, the band
# [0.85 x least, 1.15 x greatest] of theirs; the other series covering 1.0 m (at 1.0 m or on the
# line between their nearest widths) are shown beside it, not judged.
def at(sid, b):
    pts = {}
    for x0, x1, y in src[sid]["rows"]:
        pts.setdefault(x0, []).append(y)
    if b in pts:
        return min(pts[b]), max(pts[b])
    lo = [x for x in pts if x < b]
    up = [x for x in pts if x > b]
    if not lo or not up:
        return None
    a, c = max(lo), min(up)
    f = (b - a) / (c - a)
    return (min(pts[a]) + f * (min(pts[c]) - min(pts[a])), max(pts[a]) + f * (max(pts[c]) - max(pts[a])))
b = by["bottleneck-1.0"]
assert sorted(b["published"]["sources"]) == ["kretz2006", "seyfried2009"], b
got = [at(s, 1.0) for s in b["published"]["sources"]]
assert None not in got
low = min(g[0] for g in got); high = max(g[1] for g in got)
assert abs(low - 1.710) < 1e-9 and abs(high - 2.023) < 1e-9, (low, high)
shown = b["published"]["text"].split(" | also: ")[1]
for sid, label in (("mueller1981", "Mueller 1981"), ("nagai2006", "Nagai 2006"), ("daamen2010", "Daamen 2010")):
    assert at(sid, 1.0) is not None and label in shown, (sid, shown)
assert abs(b["tolerance"]["low"] - 0.85 * low) < 1e-4 and abs(b["tolerance"]["high"] - 1.15 * high) < 1e-4, b
assert abs(b["extra"]["specific_flow"] - b["measured"]) < 1e-4
assert 0.5 < b["measured"] < 4.0, b   # a flow at all, in persons/s

# fd-2: Weidmann at the measured density, the band 25 % or 0.1 m/s, Zhang's bin beside it.
f = by["fd-2"]
rho = f["extra"]["density"]
w = 1.34 * (1 - math.exp(-1.913 * (1 / rho - 1 / 5.4)))
assert abs(f["published"]["value"] - w) < 1e-4, (f["published"], w)
tol = max(0.25 * w, 0.1)
assert abs(f["tolerance"]["low"] - (w - tol)) < 1e-4 and abs(f["tolerance"]["high"] - (w + tol)) < 1e-4, f
zb = [y for x0, x1, y in src["zhang2011-uo-v"]["rows"] if x0 <= rho < x1]
assert len(zb) == 1 and abs(f["extra"]["zhang"] - zb[0]) < 1e-9, (f["extra"], zb)
assert 1.5 < rho < 2.3, rho  # 120 walkers on 60 m2, the 2 m x 2 m area's average

table = open(sys.argv[2]).read()
for r in rows:
    assert re.search(r"^%s +%s +" % (re.escape(r["id"]), r["status"]), table, re.M), r["id"]
PY
    pass "JSON: rows, counts, the band, Weidmann and the results recomputed"
else
    fail "JSON: rows, counts, the band, Weidmann and the results recomputed" "see the assertion above"
fi

# The same figures at 2 threads.
run validate --only "$fast" --seeds 1 --threads 2 --json "$tmp/v2.json"
if python3 - "$tmp/v1.json" "$tmp/v2.json" <<'PY'; then
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
assert [r["per_seed"] for r in a["cases"]] == [r["per_seed"] for r in b["cases"]]
assert [r["measured_text"] for r in a["cases"]] == [r["measured_text"] for r in b["cases"]]
PY
    pass "same results at 1 and 2 threads"
else
    fail "same results at 1 and 2 threads" "exit code $rc or different figures"
fi

run validate --list
if [[ $rc -eq 0 && $(grep -c '^bottleneck-' "$tmp/out") -eq 11 && $(grep -c '^fd-' "$tmp/out") -eq 8 &&
    $(grep -c -E '^(counterflow-ratio|counterflow-split|tjunction|corner) ' "$tmp/out") -eq 4 ]]; then
    pass "--list: 10 widths and the growth, 8 densities, counterflow, T-junction, corner"
else
    fail "--list: 10 widths and the growth, 8 densities, counterflow, T-junction, corner" "exit code $rc"
fi
run validate --list --only 'fd-*,corner'
if [[ $rc -eq 0 && $(wc -l <"$tmp/out") -eq 9 ]]; then
    pass "--list --only 'fd-*,corner'"
else
    fail "--list --only 'fd-*,corner'" "exit code $rc"
fi

# Usage errors: exit 2, a message naming the problem, nothing run.
expect_usage "unknown option" "unknown option '--fast'" validate --fast
expect_usage "a scene is no argument" "unexpected argument 'corner'" validate corner
expect_usage "--only matching nothing" "matches no case" validate --only 'bottleneck-9'
expect_usage "--only without a value" "--only needs a value" validate --only
expect_usage "--only empty" "--only needs a pattern" validate --only=
expect_usage "--threads not a number" "expected an integer in [0, 64], got 'two'" validate --threads two
expect_usage "--threads too many" "expected an integer in [0, 64], got '65'" validate --threads 65
expect_usage "--seeds 0" "expected an integer in [1, 3], got '0'" validate --seeds 0
expect_usage "--seeds 4" "expected an integer in [1, 3], got '4'" validate --seeds 4
expect_usage "--json without a value" "--json needs a value" validate --only fd-2 --json
expect_usage "--json into a missing folder" "--json" validate --only fd-2 --json "$tmp/no/such/dir/v.json"
expect_usage "--json onto a folder" "it is a folder" validate --only fd-2 --json "$tmp"
expect_usage "--list takes no value" "--list takes no value" validate --list=yes

run validate --help
if [[ $rc -eq 0 ]] && grep -q -- "--seeds N" "$tmp/out"; then pass "--help"; else fail "--help" "exit code $rc"; fi
run --help
if grep -q "^  validate " "$tmp/out"; then pass "throng --help lists validate"; else fail "throng --help lists validate" "not listed"; fi

expect_suite_outputs validate fd-2 validation

finish
