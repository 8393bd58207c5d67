#!/usr/bin/env bash
# The real viewer window under a virtual X server, driven by real input events.
#
#   test_viewer_x11.sh VIEWER_DRIVER [BUILDING_SCENE]
#
# 1. Clicks the north bunker (at the screen position the driver prints, computed by
#    th_view_world_to_screen) with xdotool: the viewer must print the destroy event, the final
#    state must show the bunker destroyed, with the same sheltered count as at the click (no one
#    sheltered there after it), while the world went on stepping. Keys F, +, Space and . must
#    print their events, then Esc must quit with code 0.
# 2. A second run is closed the way a window manager closes it (a WM_DELETE_WINDOW client
#    message) and must also exit with code 0.
# 3. Paused, a click on the south bunker is queued: the screenshot saved with S must show the
#    yellow queued mark around the bunker; Home resets the view; one step applies the click.
# 4. With BUILDING_SCENE (scenes/office.yaml: levels ground and first): PageUp shows the lowest
#    level alone, then the next up, then past the top every level again; [ from every level
#    shows the top one, O every level again.
#
# Needs Xvfb, xdotool and python3 (for the client message: xdotool's windowclose destroys the
# window outright, which no real window manager does and which kills any X client).
# Skips (exit 77, ctest's SKIP_RETURN_CODE) when Xvfb or xdotool is missing.
set -uo pipefail

driver=${1:?usage: test_viewer_x11.sh VIEWER_DRIVER [BUILDING_SCENE]}
building=${2:-}
# Absolute: the third run works in a scratch directory (where S writes its screenshot).
driver=$(realpath "$driver")
[ -n "$building" ] && building=$(realpath "$building")
. "$(dirname "$0")/lib.sh"
skip_without Xvfb xdotool python3
work=$tmp
start_xvfb

# start_driver OUT [SCENE]: launch the driver (frame cap as a safety net) and wait for its window. A
# driver whose window does not show in time is stopped (so that no later search finds its
# window instead) and started once more: on a loaded machine an X round trip has stalled for
# a minute while the viewer itself was fine.
start_driver() {
    local out=$1 attempt
    for attempt in 1 2; do
        timeout 90 "$driver" 20000 2 "${@:2}" >"$out" 2>"$out.err" &
        driver_pid=$!
        cleanup_pids+=("$driver_pid")
        wid=$(wait_window '^throng-viewer-test$' "$driver_pid")
        [ -n "$wid" ] && return 0
        echo "note: no viewer window on attempt $attempt"
        stop_process "$driver_pid"
    done
    return 1
}

# wait_driver: wait for the driver to exit (at most ~20 s) and set rc.
wait_driver() {
    for _ in $(seq 200); do
        kill -0 "$driver_pid" 2>/dev/null || break
        sleep 0.1
    done
    wait "$driver_pid"
    rc=$?
    driver_pid=
}

# wait_for FILE PATTERN: poll for a line matching PATTERN (at most ~10 s).
wait_for() {
    for _ in $(seq 100); do
        grep -q "$2" "$1" && return 0
        sleep 0.1
    done
    return 1
}

# wait_count FILE PATTERN N: poll until N lines match PATTERN (at most ~10 s).
wait_count() {
    for _ in $(seq 100); do
        [ "$(grep -c "$2" "$1")" -ge "$3" ] && return 0
        sleep 0.1
    done
    return 1
}

close_window() { # send WM_DELETE_WINDOW to window $1, as a window manager does
    python3 - "$1" <<'EOF'
import ctypes, sys
x = ctypes.cdll.LoadLibrary("libX11.so.6")
x.XOpenDisplay.restype = ctypes.c_void_p
x.XOpenDisplay.argtypes = [ctypes.c_char_p]
x.XInternAtom.restype = ctypes.c_ulong
x.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
x.XSendEvent.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_long,
                         ctypes.c_void_p]
x.XFlush.argtypes = [ctypes.c_void_p]
x.XCloseDisplay.argtypes = [ctypes.c_void_p]

class ClientMessage(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("serial", ctypes.c_ulong), ("send_event", ctypes.c_int),
                ("display", ctypes.c_void_p), ("window", ctypes.c_ulong),
                ("message_type", ctypes.c_ulong), ("format", ctypes.c_int),
                ("data", ctypes.c_long * 5), ("pad", ctypes.c_long * 16)]  # XEvent is 24 longs

d = x.XOpenDisplay(None)
if not d:
    sys.exit("cannot open display")
win = int(sys.argv[1])
ev = ClientMessage()
ev.type = 33  # ClientMessage
ev.window = win
ev.message_type = x.XInternAtom(d, b"WM_PROTOCOLS", 0)
ev.format = 32
ev.data[0] = x.XInternAtom(d, b"WM_DELETE_WINDOW", 0)
x.XSendEvent(d, win, 0, 0, ctypes.byref(ev))
x.XFlush(d)
x.XCloseDisplay(d)
EOF
}

# ---- 1: click the north bunker, then Esc -------------------------------------------------
out=$work/run1.txt
if start_driver "$out"; then
    read -r bx by < <(awk '$1 == "bunker" && $2 == "north" {print $3, $4}' "$out")
    sleep 1 # let the world run a while first
    xdotool mousemove --window "$wid" "$bx" "$by" click 1
    check "destroy event printed after the click" wait_for "$out" '^event destroy_bunker north '
    sleep 1.5 # the world goes on stepping with the bunker destroyed
    xdotool windowfocus --sync "$wid" 2>/dev/null
    # A few keys on the way out: overlays, speed, pause and a single step.
    xdotool key f plus space period
    check "keys reach the viewer" wait_for "$out" '^event step '
    check "flow overlay toggled" grep -q '^event overlay flow on ' "$out"
    check "speed doubled" grep -q '^event speed step [0-9]* 4$' "$out"
    xdotool key Escape
    wait_driver
    check "Esc exits with code 0 (got $rc)" test "$rc" -eq 0
    check "quit by key" grep -q '^event quit step [0-9]* key$' "$out"
    ev=$(grep '^event destroy_bunker north ' "$out" | head -1)
    click_step=$(awk '{print $5}' <<<"$ev")
    click_sheltered=$(awk '{print $7}' <<<"$ev")
    final_step=$(awk '$1 == "final" && $2 == "step" {print $3}' "$out")
    read -r destroyed sheltered < <(awk '$2 == "bunker" && $3 == "north" {print $5, $7}' "$out")
    check "north destroyed in the final state" test "${destroyed:-0}" -eq 1
    check "north sheltered nobody after the click (${click_sheltered:-?} then ${sheltered:-?})" \
        test "${sheltered:-x}" = "${click_sheltered:-y}"
    check "the world kept stepping after the click (${click_step:-?} -> ${final_step:-?})" \
        test "${final_step:-0}" -gt $((${click_step:-0} + 30))
    check "the other bunkers still stand" \
        test "$(awk '$2 == "bunker" && $5 == 1' "$out" | wc -l)" -eq 1
else
    check "viewer window appeared" false
    cat "$out.err"
fi
[ "$failed" -gt 0 ] && { echo "--- driver output"; cat "$out" "$out.err"; }

# ---- 2: window close --------------------------------------------------------------------
out=$work/run2.txt
if start_driver "$out"; then
    sleep 0.5
    check "close message sent" close_window "$wid"
    wait_driver
    check "window close exits with code 0 (got $rc)" test "$rc" -eq 0
    check "quit by window" grep -q '^event quit step [0-9]* window$' "$out"
    check "nothing on stderr" test ! -s "$out.err"
    [ -s "$out.err" ] && cat "$out.err"
else
    check "viewer window appeared (second run)" false
    cat "$out.err"
fi

# ---- 3: a click queued while paused, a screenshot, reset view ------------------------------
out=$work/run3.txt
cd "$work" || exit 1
if start_driver "$out"; then
    read -r bx by < <(awk '$1 == "bunker" && $2 == "south" {print $3, $4}' "$out")
    sleep 0.5 # the window mapped and drawing before keys are sent
    xdotool windowfocus --sync "$wid" 2>/dev/null
    xdotool key space
    check "paused" wait_for "$out" '^event pause '
    xdotool mousemove --window "$wid" "$bx" "$by" click 1
    check "queued destroy printed" wait_for "$out" '^event destroy_bunker south '
    sleep 0.3
    xdotool key s
    check "screenshot saved" wait_for "$out" '^event screenshot '
    shot=$(awk '$2 == "screenshot" {print $5}' "$out" | head -1)
    n=$(png_count "$shot" "$bx" "$by" 40 ffe040 2>/dev/null || echo 0)
    check "queued mark drawn around the bunker ($n yellow pixels)" test "${n:-0}" -gt 20
    xdotool key Home
    check "reset view" wait_for "$out" '^event reset_view '
    xdotool key period
    check "one step" wait_for "$out" '^event step '
    xdotool key Escape
    wait_driver
    check "Esc exits with code 0 (got $rc)" test "$rc" -eq 0
    read -r destroyed < <(awk '$2 == "bunker" && $3 == "south" {print $5}' "$out")
    check "the queued click applied on the step" test "${destroyed:-0}" -eq 1
else
    check "viewer window appeared (third run)" false
    cat "$out.err"
fi
[ "$failed" -gt 0 ] && { echo "--- driver output"; cat "$out" "$out.err"; }

# ---- 4: a building's levels, one at a time --------------------------------------------------
if [ -n "$building" ]; then
    out=$work/run4.txt
    if start_driver "$out" "$building"; then
        sleep 0.5
        xdotool windowfocus --sync "$wid" 2>/dev/null
        lv='^event level step [0-9]*'
        xdotool key Prior
        check "PageUp: the lowest level alone" wait_for "$out" "$lv ground\$"
        xdotool key Prior
        check "PageUp: the next level up" wait_for "$out" "$lv first\$"
        xdotool key Prior
        check "PageUp past the top: every level" wait_for "$out" "$lv all\$"
        xdotool key bracketleft
        check "[ from every level: the top one" wait_count "$out" "$lv first\$" 2
        xdotool key Next
        check "PageDown: the next level down" wait_count "$out" "$lv ground\$" 2
        xdotool key o
        check "O: every level again" wait_count "$out" "$lv all\$" 2
        xdotool key Escape
        wait_driver
        check "Esc exits with code 0 (got $rc)" test "$rc" -eq 0
        check "nothing on stderr" test ! -s "$out.err"
    else
        check "viewer window appeared (fourth run)" false
        cat "$out.err"
    fi
    [ "$failed" -gt 0 ] && { echo "--- driver output"; cat "$out" "$out.err"; }
fi

finish
