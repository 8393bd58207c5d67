#!/usr/bin/env bash
# `throng verify` in full: every test of the four suites runs without an error, and each one's
# result (pass, fail, needs-feature) is the one docs/verification.md's table gives, so the table
# cannot drift from what the engine does. (test_verify.sh checks the command itself on a fast
# subset; this suite takes a minute or two, so only the Release build runs it.)
#
# usage: test_verify_full.sh path/to/throng docs/verification.md
set -u
. "$(dirname "$0")/lib.sh"

bin=${1:?usage: test_verify_full.sh path/to/throng path/to/verification.md}
doc=${2:?usage: test_verify_full.sh path/to/throng path/to/verification.md}
need_executable "$bin"
need python3 "to read the JSON back"

run verify --threads 2 --json "$tmp/v.json"
# Exit 1 when a test fails (some do with the defaults, as the table says), 0 when none does.
if [[ $rc -ne 0 && $rc -ne 1 ]]; then
    fail "the full run" "exit code $rc"
elif python3 - "$tmp/v.json" "$doc" $rc >"$tmp/err" 2>&1 <<'PY'; then
import json, re, sys
j = json.load(open(sys.argv[1]))
rows = {}
for line in open(sys.argv[2]):
    m = re.match(r"^\| (RiMEA|ISO|NIST|IMO) \| (\S+) \|.*\| (pass|fail|needs-feature) \|\s*$", line)
    if m:
        assert m.group(2) not in rows, "row twice: " + m.group(2)
        rows[m.group(2)] = m.group(3)
got = {r["id"]: r["status"] for r in j["tests"]}
assert set(got) == set(rows), ("tests without a row", sorted(set(got) - set(rows)),
                               "rows without a test", sorted(set(rows) - set(got)))
assert "error" not in got.values(), [k for k, v in got.items() if v == "error"]
differ = {k: (got[k], rows[k]) for k in got if got[k] != rows[k]}
assert not differ, differ
assert (int(sys.argv[3]) == 1) == ("fail" in got.values()), "exit code against the failures"
c = j["counts"]
assert c["total"] == len(rows) and c["pass"] == list(rows.values()).count("pass"), c
PY
    pass "every test runs, and its result is the table's"
else
    fail "every test runs, and its result is the table's" "$(cat "$tmp/err")"
fi
finish
