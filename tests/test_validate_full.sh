#!/usr/bin/env bash
# `throng validate` in full: every case runs without an error, the exit status says whether one
# failed, and each case's result (pass or fail) is the one docs/validation.md's table gives, so
# the table cannot drift from what the engine does (`bench/validate_report.py` rewrites it).
# test_validate_cli.sh checks the command itself on a fast subset; this one takes a minute or
# two, so only the Release build runs it.
#
# usage: test_validate_full.sh path/to/throng docs/validation.md
set -u
. "$(dirname "$0")/lib.sh"

bin=${1:?usage: test_validate_full.sh path/to/throng path/to/validation.md}
doc=${2:?usage: test_validate_full.sh path/to/throng path/to/validation.md}
need_executable "$bin"
need python3 "to read the JSON back"

# `run` allows 300 s; the whole suite takes about two minutes on two cores.
timeout 900 "$bin" validate --threads 2 --json "$tmp/v.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [[ $rc -ne 0 && $rc -ne 1 ]]; then
    fail "the full run" "exit code $rc"
elif python3 - "$tmp/v.json" "$doc" $rc >"$tmp/check" 2>&1 <<'PY'; then
import json, re, sys
j = json.load(open(sys.argv[1]))
rows = {}
inside = False
for line in open(sys.argv[2]):
    if "validate-table:begin" in line: inside = True
    if "validate-table:end" in line: inside = False
    m = re.match(r"^\| (\S+) \| (pass|fail|error) \|", line)
    if inside and m:
        assert m.group(1) not in rows, "row twice: " + m.group(1)
        rows[m.group(1)] = m.group(2)
got = {r["id"]: r["status"] for r in j["cases"]}
assert set(got) == set(rows), ("cases without a row", sorted(set(got) - set(rows)),
                               "rows without a case", sorted(set(rows) - set(got)))
assert "error" not in got.values(), [k for k, v in got.items() if v == "error"]
differ = {k: (got[k], rows[k]) for k in got if got[k] != rows[k]}
assert not differ, ("results that differ from the table (run, table)", differ)
assert (int(sys.argv[3]) == 1) == ("fail" in got.values()), "exit code against the failures"
assert j["counts"]["total"] == len(rows) == 23, j["counts"]
PY
    pass "every case runs, and its result is the table's"
else
    fail "every case runs, and its result is the table's" "$(cat "$tmp/check")"
fi
finish
