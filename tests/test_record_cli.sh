#!/usr/bin/env bash
# `throng run --record FILE` and `throng replay FILE`, headless: a replay at another thread
# count is the recorded run (its final hash is the run's, and a replay stopped at step N is a
# run of N steps, hash and screenshot alike, bunker events included); a replay that leaves the
# run (a check or an event edited, the scene or its map image edited since) exits 1 naming the
# step or the file; files that are not recordings are refused with file:line:column; usage
# errors exit 2 before any step. The viewer's side (changes made by hand, the time slider) is
# test_record_x11.sh.
#
# usage: test_record_cli.sh path/to/throng
set -u
. "$(dirname "$0")/lib.sh"

bin=$(realpath "${1:?usage: test_record_cli.sh path/to/throng}")
need_executable "$bin"
usage_ran='^replay .* steps'

cat >"$tmp/hall.yaml" <<'EOF'
name: record hall
seed: 5
timestep: 0.05
steps: 400
map:
  cell_size: 0.5
  legend: {'#': wall, '.': open, 'A': {bunker: east}, 'B': {bunker: west}}
  ascii: |
    ################################################
    #..............................................#
    #..............................................A
    #..............................................A
    #..............................................#
    B..............................................#
    B..............................................#
    ################################################
bunkers:
  - {name: east, capacity: 500}
  - {name: west, capacity: 500}
crowds:
  - {name: folk, count: 120, behavior: flee, body_radius: 0.2, spawn: {rect: [8, 0.5, 16, 3.5]}}
EOF

hash_of() { awk '$1 == "hash" {print $2}' "$1"; }

run replay --help
[[ $rc -eq 0 ]] && grep -q 'time slider' "$tmp/out" && pass "replay --help" ||
    fail "replay --help" "exit $rc"

# ---- the recorded run and its replay ------------------------------------------------------
run run "$tmp/hall.yaml" --headless --threads 2 --record "$tmp/hall.rec" \
    --destroy-bunker east@60 --restore-bunker east@5s
cp "$tmp/out" "$tmp/run.out"
recorded=$(hash_of "$tmp/run.out")
[[ $rc -eq 0 && -n $recorded ]] && grep -q '^record ' "$tmp/run.out" && pass "run --record" ||
    fail "run --record" "exit $rc"
check "the recording has its scene, digest, schedule, checks and end" bash -c '
    f=$1
    grep -q "^throng-recording 1$" "$f" && grep -q "^scene /.*hall.yaml$" "$f" &&
    grep -q "^digest [0-9a-f]\{16\} /.*hall.yaml$" "$f" && grep -q "^seed 5$" "$f" &&
    grep -q "^schedule 60 destroy 1 east$" "$f" && grep -q "^schedule 100 restore 1 east$" "$f" &&
    grep -q "^check 0 " "$f" && grep -q "^check 20 " "$f" &&
    [[ $(grep -c "^check " "$f") -ge 15 ]] && grep -q "^end [0-9]* [0-9a-f]\{16\}$" "$f"' _ "$tmp/hall.rec"

for t in 1 3; do
    run replay "$tmp/hall.rec" --headless --threads "$t"
    if [[ $rc -eq 0 && $(hash_of "$tmp/out") == "$recorded" ]] && grep -q '^replay .* as recorded' "$tmp/out"; then
        pass "replay on $t thread(s) is the recorded run"
    else
        fail "replay on $t thread(s) is the recorded run" "exit $rc, hash $(hash_of "$tmp/out") vs $recorded"
    fi
done
# From another folder: the recording names the scene by its full path.
(cd / && timeout 300 "$bin" replay "$tmp/hall.rec" --headless >"$tmp/out" 2>"$tmp/err")
rc=$?
[[ $rc -eq 0 && $(hash_of "$tmp/out") == "$recorded" ]] && pass "replay from another folder" ||
    fail "replay from another folder" "exit $rc"

# Stopped at step 150 (after both events): the same state as a run of 150 steps, and the same
# picture; at step 80 (bunker east destroyed) not the state of a run without the events.
run run "$tmp/hall.yaml" --headless --steps 150 --destroy-bunker east@60 --restore-bunker east@5s \
    --screenshot "$tmp/run150.png" --size 320x200 --no-hud
h150=$(hash_of "$tmp/out")
run replay "$tmp/hall.rec" --headless --steps 150 --screenshot "$tmp/replay150.png" --size 320x200 --no-hud
[[ $rc -eq 0 && -n $h150 && $(hash_of "$tmp/out") == "$h150" ]] &&
    grep -q '^replay .*150 of the recording' "$tmp/out" &&
    pass "replay --steps 150 is the run of 150 steps" ||
    fail "replay --steps 150 is the run of 150 steps" "exit $rc, $(hash_of "$tmp/out") vs $h150"
check "replay --screenshot draws what run --screenshot drew" cmp -s "$tmp/run150.png" "$tmp/replay150.png"
run run "$tmp/hall.yaml" --headless --steps 80
plain80=$(hash_of "$tmp/out")
run replay "$tmp/hall.rec" --headless --steps 80
[[ $rc -eq 0 && $(hash_of "$tmp/out") != "$plain80" ]] && pass "the recorded events are replayed" ||
    fail "the recorded events are replayed" "the hash at step 80 is a run's without them"

# ---- replays that are not the recorded run ------------------------------------------------
# A check's hash edited: exit 1 at that step.
awk '$1 == "check" && $2 == 200 {$3 = "0123456789abcdef"} {print}' "$tmp/hall.rec" >"$tmp/bad_check.rec"
run replay "$tmp/bad_check.rec" --headless
[[ $rc -eq 1 ]] && grep -q 'after 200 steps the state hash is .* where the recording has 0123456789abcdef' "$tmp/err" &&
    grep -q '^replay    left the recorded run' "$tmp/out" && pass "an edited check: exit 1 at step 200" ||
    fail "an edited check: exit 1 at step 200" "exit $rc"
# An event moved by a step: the next check after it fails.
sed 's/^schedule 60 destroy/schedule 61 destroy/' "$tmp/hall.rec" >"$tmp/moved.rec"
run replay "$tmp/moved.rec" --headless
[[ $rc -eq 1 ]] && grep -q 'after 80 steps the state hash' "$tmp/err" &&
    pass "an event moved by one step: exit 1 at the next check" ||
    fail "an event moved by one step: exit 1 at the next check" "exit $rc"
# The final hash edited.
sed 's/^\(end [0-9]*\) .*/\1 00000000000000ff/' "$tmp/hall.rec" >"$tmp/bad_end.rec"
run replay "$tmp/bad_end.rec" --headless
[[ $rc -eq 1 ]] && grep -q 'where the recording ends with 00000000000000ff' "$tmp/err" &&
    pass "an edited end: exit 1" || fail "an edited end: exit 1" "exit $rc"
# A bunker the scene calls otherwise.
sed 's/^schedule 60 destroy 1 east/schedule 60 destroy 1 north/' "$tmp/hall.rec" >"$tmp/name.rec"
run replay "$tmp/name.rec" --headless
[[ $rc -eq 1 ]] && grep -q "bunker 1 'north'.*the scene's bunker 1 is 'east'" "$tmp/err" &&
    pass "a bunker the scene calls otherwise: exit 1" ||
    fail "a bunker the scene calls otherwise: exit 1" "exit $rc"

# The scene and its map image edited after recording: refused before any step, naming the file.
mkdir -p "$tmp/img"
base64 -d >"$tmp/img/map.png" <<<'iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAD0lEQVR4nGP4jwQYiOMAANuQL9FuRbCyAAAAAElFTkSuQmCC'
printf 'name: img\nseed: 2\nmap:\n  cell_size: 1\n  image: map.png\n  legend: {"#ffffff": open}\ncrowds:\n  - {name: a, count: 3, spawn: {rect: [0, 0, 4, 4]}}\n' \
    >"$tmp/img/scene.yaml"
run run "$tmp/img/scene.yaml" --headless --steps 40 --record "$tmp/img.rec"
check "the recording has the map image's digest" grep -q '^digest [0-9a-f]\{16\} /.*/img/map.png$' "$tmp/img.rec"
run replay "$tmp/img.rec" --headless
[[ $rc -eq 0 ]] && pass "the image-map scene replays" || fail "the image-map scene replays" "exit $rc"
cp "$tmp/img/map.png" "$tmp/map.orig"
printf 'x' >>"$tmp/img/map.png"
run replay "$tmp/img.rec" --headless
[[ $rc -eq 1 ]] && grep -q "map.png' has changed since the run was recorded" "$tmp/err" &&
    ! grep -q '^run ' "$tmp/out" && pass "an edited map image: refused, naming it" ||
    fail "an edited map image: refused, naming it" "exit $rc"
cp "$tmp/map.orig" "$tmp/img/map.png"
sed -i 's/count: 3/count: 4/' "$tmp/img/scene.yaml"
run replay "$tmp/img.rec" --headless
[[ $rc -eq 1 ]] && grep -q "scene.yaml' has changed since the run was recorded" "$tmp/err" &&
    pass "an edited scene: refused, naming it" || fail "an edited scene: refused, naming it" "exit $rc"

# ---- files that are not recordings, and usage errors --------------------------------------
printf '' >"$tmp/empty.rec"
expect_usage "an empty file" "empty.rec:1:1: expected 'throng-recording 1'" replay "$tmp/empty.rec" --headless
expect_usage "a scene given as a recording" "hall.yaml:1:1: expected 'throng-recording 1'" \
    replay "$tmp/hall.yaml" --headless
sed 's/^throng-recording 1$/throng-recording 7/' "$tmp/hall.rec" >"$tmp/v7.rec"
expect_usage "another version" "v7.rec:2:18: expected version 1, found 7" replay "$tmp/v7.rec" --headless
sed 's/^seed 5$/seed five/' "$tmp/hall.rec" >"$tmp/seed.rec"
expect_usage "a bad seed" "seed.rec:5:6: expected a seed, found 'five'" replay "$tmp/seed.rec" --headless
sed 's/^agents 0$/agents 0\nwind 3/' "$tmp/hall.rec" >"$tmp/key.rec"
expect_usage "an unknown line" "key.rec:7:1: expected scene, digest, seed" replay "$tmp/key.rec" --headless
sed 's/^schedule 60 destroy 1 east$/schedule 60 explode 1 east/' "$tmp/hall.rec" >"$tmp/kind.rec"
expect_usage "an unknown change" "kind.rec:10:13: expected destroy, restore or break, found 'explode'" \
    replay "$tmp/kind.rec" --headless
grep -v '^end ' "$tmp/hall.rec" >"$tmp/noend.rec"
expect_usage "a recording without its end" "did not finish writing it" replay "$tmp/noend.rec" --headless
awk '$1 == "check" && $2 == 40 {print "check 20 0000000000000000"} {print}' "$tmp/hall.rec" >"$tmp/order.rec"
expect_usage "checks out of order" "expected the checks in the order of their steps" \
    replay "$tmp/order.rec" --headless
printf 'throng-recording 1\nseed 5\0 9\n' >"$tmp/nul.rec"
expect_usage "a NUL byte" "nul.rec:2:7: expected text, found a NUL byte" replay "$tmp/nul.rec" --headless
head -c 300 /dev/urandom >"$tmp/noise.rec"
run replay "$tmp/noise.rec" --headless
[[ $rc -eq 2 ]] && grep -q 'noise.rec:[0-9]*:[0-9]*: expected' "$tmp/err" && pass "noise: refused" ||
    fail "noise: refused" "exit $rc"
expect_usage "a missing recording" "cannot open" replay "$tmp/nothing.rec" --headless
expect_usage "no recording" "expected a recording" replay --headless
expect_usage "two recordings" "one recording at a time" replay "$tmp/hall.rec" "$tmp/hall.rec"
expect_usage "--steps past the end" "expected at most the recording's" \
    replay "$tmp/hall.rec" --headless --steps 100000
expect_usage "an unknown option" "unknown option '--fast'" replay "$tmp/hall.rec" --fast
expect_usage "--screenshot over the recording" "never replaces an input" \
    replay "$tmp/hall.rec" --screenshot "$tmp/hall.rec"
usage_ran='^record '
expect_usage "--record over the scene" "never replaces an input" \
    run "$tmp/hall.yaml" --headless --record "$tmp/hall.yaml"
expect_usage "--record needs a file" "--record" run "$tmp/hall.yaml" --headless --record
check "the scene is untouched" grep -q '^name: record hall$' "$tmp/hall.yaml"

finish
