#!/usr/bin/env bash
# Recording and replay in the viewer (under Xvfb, driven by xdotool): a bunker destroyed and
# restored by hand (key 1, twice) in `throng run --record` is in the recording at its steps,
# and a headless replay of it is that run (its final hash, which a run without the changes does
# not reach); in `throng replay` a click on the time slider three quarters along goes to that
# step exactly (the viewer's report there has the state of a headless replay stopped at that
# step). Skips (exit 77) without Xvfb or xdotool.
#
# usage: test_record_x11.sh path/to/throng
set -uo pipefail

bin=$(realpath "${1:?usage: test_record_x11.sh path/to/throng}")
. "$(dirname "$0")/lib.sh"
skip_without Xvfb xdotool python3
start_xvfb
W=640
H=400

# open_viewer TITLE ARGS...: start the command in the background (stdout $tmp/vout, stderr
# $tmp/verr) and set $wid and $run_pid; up to three tries of 90 s (see test_viewer_x11.sh).
open_viewer() {
    local title=$1 attempt
    shift
    for attempt in 1 2 3; do
        "$bin" "$@" >"$tmp/vout" 2>"$tmp/verr" &
        run_pid=$!
        cleanup_pids+=("$run_pid")
        wid=$(wait_window "$title" "$run_pid" 90)
        [[ -n $wid ]] && return 0
        echo "note: no viewer window on attempt $attempt"
        stop_process "$run_pid"
    done
    echo "FAIL: no viewer window"
    cat "$tmp/vout" "$tmp/verr"
    exit 1
}

focus() {
    timeout 5 xdotool mousemove --window "$wid" 20 20 2>/dev/null
    timeout 5 xdotool windowfocus --sync "$wid" 2>/dev/null
}

# quit_viewer: Escape until the viewer has quit; sets $vrc to its exit code.
quit_viewer() {
    quit_window "$run_pid" "$wid"
    run_pid=
}

hash_of() { awk '$1 == "hash" {print $2}' "$1"; }

# ---- changes made by hand are recorded ----------------------------------------------------
open_viewer '^tower$' run tower --record "$tmp/tower.rec" --size ${W}x$H
sleep 1.5
focus
timeout 5 xdotool key 1
sleep 1.5
focus
timeout 5 xdotool key 1
sleep 1
quit_viewer
cp "$tmp/vout" "$tmp/live.out"
check "run --record in the viewer: exit 0" test "$vrc" -eq 0
check "the bunker destroyed by hand is in the recording" grep -q '^action [0-9]* destroy 1 door$' "$tmp/tower.rec"
check "and restored" grep -q '^action [0-9]* restore 1 door$' "$tmp/tower.rec"
live=$(hash_of "$tmp/live.out")
last=$(awk '$1 == "end" {print $2}' "$tmp/tower.rec")
run replay "$tmp/tower.rec" --headless --threads 1
[[ $rc -eq 0 && -n $live && $(hash_of "$tmp/out") == "$live" ]] &&
    pass "the headless replay is the session's run (hash $live)" ||
    fail "the headless replay is the session's run" "exit $rc, $(hash_of "$tmp/out") vs $live"
run run tower --headless --steps "$last" --fixed-steps
[[ $(hash_of "$tmp/out") != "$live" ]] && pass "a run without the changes ends elsewhere" ||
    fail "a run without the changes ends elsewhere" "same hash"

# ---- the time slider -------------------------------------------------------------------------
# Without panels the map area is the window; the slider runs from 12 px to W - 12 px, 12 px
# above the bottom edge, 18 px high (render/viewer.c). Three quarters along: step 0.75 x last.
x=$((12 + 3 * (W - 24) / 4))
y=$((H - 12 - 9))
want=$(python3 -c "import sys; print(int(0.75 * int(sys.argv[1]) + 0.5))" "$last")
open_viewer '^tower$' replay "$tmp/tower.rec" --size ${W}x$H --no-hud
sleep 1.5
timeout 5 xdotool mousemove --window "$wid" "$x" "$y" click 1
sleep 2
quit_viewer
cat "$tmp/vout"
check "replay in the viewer: exit 0" test "$vrc" -eq 0
steps=$(awk '$1 == "run" {print $2}' "$tmp/vout")
check "the slider went to step $want of $last (the viewer stopped at ${steps:-none})" test "${steps:-x}" = "$want"
check "and the replay there is as recorded" grep -q "^replay    $want of the recording's $last steps, as recorded" "$tmp/vout"
run replay "$tmp/tower.rec" --headless --steps "$want"
[[ $rc -eq 0 && $(hash_of "$tmp/out") == "$(hash_of "$tmp/vout")" ]] &&
    pass "the state there is the headless replay's at step $want" ||
    fail "the state there is the headless replay's at step $want" "$(hash_of "$tmp/out") vs $(hash_of "$tmp/vout")"
finish
