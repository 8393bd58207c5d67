# Shared by the shell test suites: sourced, never run. It gives each suite a scratch folder
# ($tmp, removed on exit), pass/fail counters with the last command's output shown on a
# failure, `run` (the binary under a time limit, so a hang fails instead of stalling the test
# run), `need` for tools, `finish` for the summary, and `start_xvfb` for the viewer suites.
#
#   . "$(dirname "$0")/lib.sh"
#   bin=...                      # what `run` starts
#   need python3 "to read the JSON back"
#   run ARGS...; [[ $rc -eq 0 ]] && pass "name" || fail "name" "why"
#   finish

suite=$(basename "$0" .sh)
tmp=$(mktemp -d)
cleanup_pids=()
cleanup() {
    local pid
    for pid in "${cleanup_pids[@]}"; do kill "$pid" 2>/dev/null; done
    rm -rf "$tmp" ${python_dir:+"$python_dir"}
}
trap cleanup EXIT

# The suites start python3 hundreds of times. Where `python3` is a version manager's shim (pyenv
# puts a shell script first on PATH) every start pays for the shim, about 0.4 s against 0.04 s:
# ask the shim once for the interpreter it picks and put that first on PATH, for these
# functions and for the scripts they run alike. The interpreter is the same one.
if py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [[ -x $py ]] &&
    [[ $(command -v python3) != "$py" ]]; then
    python_dir=$(mktemp -d)
    ln -s "$py" "$python_dir/python3"
    PATH="$python_dir:$PATH"
fi
unset py

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok   $1"; }
fail() {
    failed=$((failed + 1))
    echo "FAIL $1: $2"
    if [[ -s $tmp/out ]]; then sed 's/^/     stdout| /' "$tmp/out" | head -30; fi
    if [[ -s $tmp/err ]]; then sed 's/^/     stderr| /' "$tmp/err" | head -20; fi
}

# run ARGS...: "$bin" ARGS with stdout and stderr to $tmp/out and $tmp/err (so stderr is no
# terminal), at most 300 s; sets $rc.
run() {
    timeout 300 "$bin" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
}

# expect_usage NAME WORD ARGS...: `run ARGS` is a usage error: exit code 2, WORD on stderr,
# and, when the suite sets $usage_ran, no stdout line matching it (what going ahead prints).
expect_usage() {
    local name=$1 word=$2
    shift 2
    run "$@"
    if [[ $rc -ne 2 ]]; then
        fail "$name" "exit code $rc, expected 2"
    elif [[ ! -s $tmp/err ]]; then
        fail "$name" "nothing on stderr"
    elif ! grep -qF -- "$word" "$tmp/err"; then
        fail "$name" "stderr does not mention '$word'"
    elif [[ -n ${usage_ran:-} ]] && grep -q -- "$usage_ran" "$tmp/out"; then
        fail "$name" "went ahead despite the usage error"
    else
        pass "$name"
    fi
}

# expect_scene_error NAME FILE WHERE SAYS: `throng check FILE` refuses the scene: exit code 2,
# and on stderr FILE's name at WHERE (line:column:) and SAYS.
expect_scene_error() {
    local name=$1 file=$2 where=$3 says=$4
    run check "$file"
    if [[ $rc -ne 2 ]]; then
        fail "$name" "exit code $rc, expected 2"
    elif ! grep -qF -- "$(basename "$file"):$where" "$tmp/err" || ! grep -qF -- "$says" "$tmp/err"; then
        fail "$name" "expected $(basename "$file"):$where and '$says'"
    else
        pass "$name"
    fi
}

# expect_same_hash SCENE REPORT: REPORT (what a run of SCENE at 2 threads printed) has the hash
# line that `run run SCENE --headless` prints at 1 and at 3 threads too.
expect_same_hash() {
    local scene=$1 h1 h2 h3
    h2=$(grep '^hash' "$2")
    run run "$scene" --headless --threads 1
    h1=$(grep '^hash' "$tmp/out")
    run run "$scene" --headless --threads 3
    h3=$(grep '^hash' "$tmp/out")
    if [[ -n $h1 && $h1 == "$h2" && $h1 == "$h3" ]]; then pass "same hash on 1, 2 and 3 threads"; else
        fail "same hash on 1, 2 and 3 threads" "1: '$h1', 2: '$h2', 3: '$h3'"
    fi
}

# need TOOL WHY: exit 2 (a broken set-up, not a skip) when TOOL is missing.
need() {
    if ! command -v "$1" >/dev/null; then
        echo "$suite: $1 is needed $2" >&2
        exit 2
    fi
}

# need_executable PATH: exit 2 unless PATH is an executable.
need_executable() {
    if [[ ! -x $1 ]]; then
        echo "$suite: '$1' is not an executable" >&2
        exit 2
    fi
}

# skip_without TOOL...: exit 77 (ctest's SKIP_RETURN_CODE) when any of them is missing.
skip_without() {
    local tool
    for tool in "$@"; do
        if ! command -v "$tool" >/dev/null; then
            echo "SKIP: $tool not installed"
            exit 77
        fi
    done
}

# start_xvfb: a virtual X server on a free display (Xvfb picks the number and writes it to the
# given descriptor), exported as DISPLAY, with SDL set up to draw there and the leak checker
# told about libraries outside the project. Exits 1 when the server does not start. The server
# never resets (-noreset): by default an X server whose last client leaves starts over and
# refuses connections meanwhile, and the viewer's display probe is such a client.
start_xvfb() {
    exec 3>"$tmp/display"
    Xvfb -displayfd 3 -screen 0 1280x1024x24 -nolisten tcp -noreset >"$tmp/xvfb.log" 2>&1 &
    cleanup_pids+=($!)
    exec 3>&-
    local i
    for i in $(seq 100); do
        [[ -s $tmp/display ]] && break
        sleep 0.1
    done
    if [[ ! -s $tmp/display ]]; then
        echo "FAIL: Xvfb did not start"
        cat "$tmp/xvfb.log"
        exit 1
    fi
    DISPLAY=":$(head -1 "$tmp/display")"
    export DISPLAY
    unset SDL_VIDEODRIVER
    # SDL's software renderer, presented without OpenGL. Xvfb has no GPU, so the default path
    # would run Mesa's llvmpipe, whose allocations LeakSanitizer reports as leaks once SDL_Quit
    # unloads the driver (outside the project, and without a module name to suppress them by).
    export SDL_RENDER_DRIVER=software SDL_FRAMEBUFFER_ACCELERATION=0
    local here
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
    export LSAN_OPTIONS
}

# check DESCRIPTION COMMAND...: pass when the command succeeds.
check() {
    local what=$1
    shift
    if "$@"; then pass "$what"; else fail "$what" "the check failed"; fi
}

# wait_window TITLE [PID [SECONDS]]: print the id of the first X window whose title matches TITLE
# (a regular expression) or that process PID owns, polling for up to SECONDS (60), or until PID has
# exited; nothing when no window appeared. A loaded machine can take tens of seconds to map an SDL window.
wait_window() {
    local wid= deadline=$((SECONDS + ${3:-60}))
    # A deadline, not a count of polls: on a loaded machine each xdotool call takes a while,
    # and with a viewer drawing flat out (under a sanitizer, say) an X round trip can take
    # seconds: a call is given 30 s before it counts as lost.
    while ((SECONDS < deadline)); do
        wid=$(timeout 30 xdotool search --name "$1" 2>/dev/null | head -1)
        [[ -n $wid ]] && break
        # Also by process (SDL marks its windows with _NET_WM_PID, set before the title): PID
        # itself or, when it is a wrapper such as timeout(1), its children.
        if [[ -n ${2:-} ]]; then
            local p
            for p in "$2" $(pgrep -P "$2" 2>/dev/null); do
                wid=$(timeout 30 xdotool search --pid "$p" 2>/dev/null | head -1)
                [[ -n $wid ]] && break 2
            done
        fi
        if [[ -n ${2:-} ]] && ! kill -0 "$2" 2>/dev/null; then break; fi
        sleep 0.1
    done
    echo "$wid"
}

# expect_suite_outputs CMD ONLY FOLDER: for `throng CMD` (verify, validate), run on case(s)
# ONLY from a scratch folder holding a copy of scenes/FOLDER (the first place the command looks
# for its scenes, so no source file is ever at risk): --json naming one of those scenes is a
# usage error and leaves it whole; Ctrl-C during the run leaves an earlier --json file as it
# was and exits 130; a finished run replaces it with the whole JSON.
expect_suite_outputs() {
    local cmd=$1 only=$2 folder=$3 src work abs rc2 pid
    src="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/scenes/$folder"
    work=$tmp/suite_outputs
    mkdir -p "$work/scenes/$folder"
    cp "$src"/*.yaml "$work/scenes/$folder/"
    abs=$(realpath "$bin")
    local victim
    victim=$(ls "$work/scenes/$folder"/*.yaml | head -1)
    local sum
    sum=$(cksum <"$victim")
    (cd "$work" && timeout 300 "$abs" "$cmd" --only "$only" --json "scenes/$folder/$(basename "$victim")" \
        >"$tmp/out" 2>"$tmp/err")
    rc2=$?
    if [[ $rc2 -eq 2 ]] && grep -q "an output never replaces an input" "$tmp/err" &&
        [[ $(cksum <"$victim") == "$sum" ]]; then
        pass "$cmd --json onto a scene it reads: refused, the scene whole"
    else
        fail "$cmd --json onto a scene it reads" "exit $rc2, or the scene changed"
    fi
    echo '{"earlier": true}' >"$work/out.json"
    (cd "$work" && exec "$abs" "$cmd" --json out.json >"$tmp/out" 2>"$tmp/err") &
    pid=$!
    # Once the first case has started (a condition, not a duration), Ctrl-C.
    for ((i = 0; i < 3000; i++)); do
        grep -q '\[1/' "$tmp/err" 2>/dev/null && break
        sleep 0.1
    done
    kill -INT "$pid"
    wait "$pid"
    rc2=$?
    if [[ $rc2 -eq 130 ]] && grep -q '"earlier": true' "$work/out.json" &&
        grep -q "interrupted during .*--json left as it was" "$tmp/err" &&
        [[ $(ls "$work" | grep -c '^out.json') -eq 1 ]]; then
        pass "$cmd interrupted: exit 130, the earlier --json whole, no part file left"
    else
        fail "$cmd interrupted" "exit $rc2; $(ls "$work")"
    fi
    (cd "$work" && timeout 300 "$abs" "$cmd" --only "$only" --json out.json >"$tmp/out" 2>"$tmp/err")
    if python3 -c 'import json,sys; json.load(open(sys.argv[1]))["exit_code"]' "$work/out.json" 2>/dev/null &&
        ! grep -q '"earlier"' "$work/out.json"; then
        pass "$cmd --json replaced whole by a finished run"
    else
        fail "$cmd --json after a finished run" "not the new JSON"
    fi
    : >"$tmp/out"
    : >"$tmp/err"
}

# stop_process PID: end PID and its children (a wrapper's child goes with it), quietly.
stop_process() {
    local p
    for p in $(pgrep -P "$1" 2>/dev/null); do kill "$p" 2>/dev/null; done
    kill "$1" 2>/dev/null
    wait "$1" 2>/dev/null
    return 0
}

# quit_window PID WID: press Escape in window WID until process PID has quit, and set $vrc to
# its exit status. On a loaded machine a key can be lost before the window has the focus, and
# waiting for the focus can wait for ever: each wait is bounded, and Escape is pressed again
# (a paused viewer would never end by itself), up to 20 times a second apart; a viewer still
# running then is stopped and the suite fails.
quit_window() {
    local pid=$1 wid=$2 _
    timeout 5 xdotool mousemove --window "$wid" 20 20 2>/dev/null
    timeout 5 xdotool windowfocus --sync "$wid" 2>/dev/null
    timeout 5 xdotool key Escape
    for _ in $(seq 20); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 1
        timeout 5 xdotool windowfocus --sync "$wid" 2>/dev/null
        timeout 5 xdotool key Escape
    done
    if kill -0 "$pid" 2>/dev/null; then
        echo "FAIL: the viewer did not quit on Escape"
        stop_process "$pid"
        exit 1
    fi
    wait "$pid"
    vrc=$?
}

# finish: the summary line; the suite's exit status is whether nothing failed.
finish() {
    echo "$passed passed, $failed failed"
    [[ $failed -eq 0 ]]
    exit
}

# png_count PNG X Y R RGBHEX: pixels of colour RGBHEX within R pixels of (X, Y) in an 8-bit RGB
# PNG (as the viewer writes them).
png_count() {
    python3 - "$@" <<'EOF'
import struct, sys, zlib
path, cx, cy, r, rgb = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
want = bytes.fromhex(rgb)
d = open(path, "rb").read()
i, idat = 8, b""
while i < len(d):
    n, t = struct.unpack(">I4s", d[i:i + 8])
    c = d[i + 8:i + 8 + n]
    i += 12 + n
    if t == b"IHDR":
        w, h = struct.unpack(">II", c[:8])
    elif t == b"IDAT":
        idat += c
raw, st, prev, rows, p = zlib.decompress(idat), w * 3, bytearray(w * 3), [], 0
for y in range(h):
    f, line = raw[p], bytearray(raw[p + 1:p + 1 + st])
    p += 1 + st
    for x in range(st):
        a = line[x - 3] if x >= 3 else 0
        b = prev[x]
        cc = prev[x - 3] if x >= 3 else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            q = a + b - cc
            pa, pb, pc = abs(q - a), abs(q - b), abs(q - cc)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else cc)) & 255
    rows.append(line)
    prev = line
print(sum(1 for y in range(max(0, cy - r), min(h, cy + r)) for x in range(max(0, cx - r), min(w, cx + r))
          if bytes(rows[y][3 * x:3 * x + 3]) == want))
EOF
}
