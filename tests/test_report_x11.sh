#!/usr/bin/env bash
# `throng run` in the viewer (under Xvfb, driven by xdotool) reports what actually ran: the
# steps the viewer simulated (not the scene's `steps`), the session's wall time and, apart, the
# time spent stepping, which leaves out a pause. Skips (exit 77) without Xvfb or xdotool.
#
# usage: test_report_x11.sh path/to/throng path/to/tests/data
set -uo pipefail

bin=$(realpath "${1:?usage: test_report_x11.sh path/to/throng path/to/tests/data}")
data=${2:?usage: test_report_x11.sh path/to/throng path/to/tests/data}
. "$(dirname "$0")/lib.sh"
skip_without Xvfb xdotool python3
work=$tmp
start_xvfb

# The scene asks for 2,100 steps (35 s); the session runs ~1.5 s, pauses 2 s, then quits.
# A viewer whose window does not show within 90 s is stopped and started again, up to three
# times (see test_viewer_x11.sh).
for attempt in 1 2 3; do
    "$bin" run "$data/report_lanes.yaml" --size 640x400 >"$work/out" 2>"$work/err" &
    run_pid=$!
    cleanup_pids+=("$run_pid")
    wid=$(wait_window '^report lanes$' "$run_pid" 90)
    [ -n "$wid" ] && break
    echo "note: no viewer window on attempt $attempt"
    stop_process "$run_pid"
done
if [ -z "$wid" ]; then
    echo "FAIL: no viewer window"
    cat "$work/out" "$work/err"
    echo "windows on $DISPLAY:"
    for w in $(xdotool search --name '' 2>/dev/null); do echo "  $w '$(xdotool getwindowname "$w" 2>/dev/null)'"; done
    ps -o pid,stat,etime,time,cmd -p "$run_pid" 2>/dev/null
    exit 1
fi
sleep 1.5
# Without a window manager keys go to the window under the pointer: the pointer is moved onto
# the viewer and the focus set before the keys.
timeout 5 xdotool mousemove --window "$wid" 20 20 2>/dev/null
timeout 5 xdotool windowfocus --sync "$wid" 2>/dev/null
timeout 5 xdotool key space
sleep 2
quit_window "$run_pid" "$wid" # paused: it quits on Escape only
rc=$vrc
run_pid=
cat "$work/out"
check "exit code 0" test "$rc" -eq 0
read -r steps < <(awk '$1 == "run" {print $2}' "$work/out")
check "steps actually run (${steps:-none}) fewer than the scene's 2100" \
    test "${steps:-0}" -gt 0 -a "${steps:-99999}" -lt 2100
check "says it ran in the viewer" grep -q '^run .* in the viewer, ' "$work/out"
read -r wall stepping < <(awk '$1 == "wall" {print $2, $7}' "$work/out")
# The pause alone is 2 s of the session; stepping 12 walkers takes milliseconds.
check "wall ${wall:-?} s includes the pause, stepping ${stepping:-?} s does not" \
    python3 -c "import sys; w, s = float(sys.argv[1]), float(sys.argv[2]); sys.exit(not (w >= 3.0 and s < w - 1.5))" "${wall:-0}" "${stepping:-99}"
finish
