#!/usr/bin/env bash
# The `throng` command line: usage errors exit 2 with a message on stderr naming the problem,
# help exits 0 and documents every flag, and a small run prints its throughput and a state hash
# that depends on the seed but not on the thread count.
#
# usage: test_cli.sh path/to/throng
set -u
. "$(dirname "$0")/lib.sh"

bin=${1:?usage: test_cli.sh path/to/throng}
need_executable "$bin"

# A usage error must not go ahead: what a run that did would print (expect_usage, lib.sh).
usage_ran='^hash '

# ---- usage errors -----------------------------------------------------------------------

expect_usage "unknown command" "frobnicate" frobnicate
expect_usage "unknown flag" "--bogus" run --bogus
expect_usage "unknown flag before scene" "--fast" run --fast flock
expect_usage "--steps without value" "--steps" run flock --steps
expect_usage "--steps -5" "--steps" run flock --steps -5
expect_usage "--steps abc" "--steps" run flock --steps abc
expect_usage "--steps 12abc" "--steps" run flock --steps 12abc
expect_usage "--steps empty" "--steps" run flock --steps ""
expect_usage "--threads 65" "--threads" run flock --threads 65
expect_usage "--threads 999" "--threads" run flock --threads 999
expect_usage "--threads without value" "--threads" run flock --threads
expect_usage "--agents 0" "--agents" run flock --agents 0
expect_usage "--agents -1" "--agents" run flock --agents -1
expect_usage "--seed abc" "--seed" run flock --seed abc
expect_usage "--seed overflow" "--seed" run flock --seed 99999999999999999999999
expect_usage "unknown scene" "atlantis" run atlantis --steps 1

# ---- help -------------------------------------------------------------------------------

run --help
if [[ $rc -eq 0 && -s $tmp/out ]] && grep -q "run" "$tmp/out"; then
    pass "--help"
else
    fail "--help" "exit code $rc, or no help on stdout naming the run command"
fi

run run --help
if [[ $rc -ne 0 ]]; then
    fail "run --help" "exit code $rc, expected 0"
else
    missing=""
    for flag in --steps --threads --seed --agents --headless; do
        grep -qF -- "$flag" "$tmp/out" || missing="$missing $flag"
    done
    if [[ -n $missing ]]; then
        fail "run --help" "help text does not mention:$missing"
    else
        pass "run --help"
    fi
fi

# ---- a small run ------------------------------------------------------------------------

# small_run NAME ARGS...: a successful run printing the speed and hash lines; sets $hash.
small_run() {
    local name=$1
    shift
    hash=""
    run run flock --agents 2000 --steps 20 --headless "$@"
    if [[ $rc -ne 0 ]]; then
        fail "$name" "exit code $rc, expected 0"
        return
    fi
    if ! grep -Eq '^speed +[0-9]+ agent-steps/s$' "$tmp/out"; then
        fail "$name" "no line matching '^speed +[0-9]+ agent-steps/s\$'"
        return
    fi
    if [[ $(grep -Ec '^hash 0x[0-9a-f]{16}$' "$tmp/out") -ne 1 ]]; then
        fail "$name" "not exactly one line matching '^hash 0x[0-9a-f]{16}\$'"
        return
    fi
    hash=$(grep -E '^hash 0x[0-9a-f]{16}$' "$tmp/out" | cut -d' ' -f2)
    pass "$name"
}

small_run "run, 2 threads" --threads 2
h2=$hash
small_run "run, 1 thread" --threads 1
h1=$hash
small_run "run, 2 threads, seed 7" --threads 2 --seed 7
h7=$hash

if [[ -n $h1 && -n $h2 ]]; then
    if [[ $h1 == "$h2" ]]; then
        pass "hash independent of threads ($h1)"
    else
        fail "hash independent of threads" "1 thread $h1, 2 threads $h2"
    fi
fi
if [[ -n $h2 && -n $h7 ]]; then
    if [[ $h2 != "$h7" ]]; then
        pass "hash depends on seed"
    else
        fail "hash depends on seed" "seed 1 and seed 7 both give $h2"
    fi
fi

# ---- non-regular scene paths -------------------------------------------------------------

# Regression: a FIFO as the scene path blocked `check` and `run` in open() until a writer came.
# Each must be refused at once (a 10 s limit here: a hang is a failure, not a stuck run).
mkfifo "$tmp/fifo.yaml"
mkdir "$tmp/dir.yaml"
for target in "$tmp/fifo.yaml" "$tmp/dir.yaml" /dev/null; do
    for cmd in check run; do
        extra=()
        [[ $cmd == run ]] && extra=(--headless --steps 1)
        timeout 10 "$bin" $cmd "$target" "${extra[@]}" >"$tmp/out" 2>"$tmp/err" </dev/null
        rc=$?
        if [[ $rc -eq 124 ]]; then
            fail "$cmd ${target##*/}" "hung (killed after 10 s)"
        elif [[ $rc -ne 2 ]]; then
            fail "$cmd ${target##*/}" "exit code $rc, expected 2"
        elif ! grep -q "expected a regular file" "$tmp/err"; then
            fail "$cmd ${target##*/}" "stderr does not say it is not a regular file"
        else
            pass "$cmd ${target##*/} refused"
        fi
    done
done

# ---- files a scene names stay inside its folder -----------------------------------------

# Without the flag the image is refused by name; with it the file is opened (and refused here
# for not being a regular file): the flag reaches the loader from both commands.
printf 'name: t\nmap:\n  cell_size: 1\n  image: /dev/zero\n  legend: {"#ffffff": open}\ncrowds: []\n' \
    >"$tmp/outside.yaml"
for cmd in check run; do
    extra=()
    [[ $cmd == run ]] && extra=(--headless --steps 1)
    expect_usage "$cmd: image outside the folder" "expected a file inside the scene's folder" \
        $cmd "$tmp/outside.yaml" "${extra[@]}"
    expect_usage "$cmd --allow-outside-paths" "not a regular file" \
        $cmd --allow-outside-paths "$tmp/outside.yaml" "${extra[@]}"
done

# ---- check refuses what run refuses ------------------------------------------------------

# Regression: check estimated memory for one thread whatever the scene said, so it approved a
# 4,096 x 4,096 map with `threads: 64` (17 GiB of per-worker scratch) that run refused. Both
# now build with the same thread count and the same estimate, and print the same message.
printf 'name: t\nthreads: %s\nmap:\n  cell_size: 1\n  generate:\n    city: {size: [4096, 4096], block: 12, street: 4, seed: 3}\ncrowds:\n  - {name: a, count: 1, spawn: {rect: [0, 0, 4096, 4096]}}\n' \
    64 >"$tmp/threads64.yaml"
printf 'name: t\nthreads: %s\nmap:\n  cell_size: 1\n  generate:\n    city: {size: [4096, 4096], block: 12, street: 4, seed: 3}\ncrowds:\n  - {name: a, count: 1, spawn: {rect: [0, 0, 4096, 4096]}}\n' \
    0 >"$tmp/threads0.yaml"
for args in "$tmp/threads64.yaml" "--threads 64 $tmp/threads0.yaml"; do
    run check $args
    check_rc=$rc
    check_msg=$(cat "$tmp/err")
    # shellcheck disable=SC2086 # split the flags on purpose
    run run $args --headless --steps 0
    run_msg=$(sed 's/^throng run: //' "$tmp/err")
    if [[ $check_rc -ne 2 || $rc -ne 2 ]]; then
        fail "check = run: $args" "check exit $check_rc, run exit $rc, expected 2 and 2"
    elif [[ $check_msg != "$run_msg" || $check_msg != *"expected a world of at most 4096 MiB"* ]]; then
        fail "check = run: $args" "check said '$check_msg', run said '$run_msg'"
    else
        pass "check refuses what run refuses: ${args##*/}"
    fi
done
# Scenes refused while the world is built (a squad with no way to its goal, a squad whose
# formation, turned along its path, does not fit; an agent target past its crowd's agents) and
# one the parser refuses: check
# reports each with run's message, word for word, and the same exit code.
walled='map:\n  cell_size: 1\n  legend: {"#": wall, ".": open}\n  ascii: |\n    ##########\n    #...#....#\n    #...#....#\n    #...#....#\n    ##########\n'
printf "name: t\n$walled"'crowds:\n  - {name: a, count: 0}\nsquads:\n  - {crowd: a, count: 1, formation: column, start: [2.5, 2.5], goal: [7.5, 2.5], speed: 1}\n' >"$tmp/no_path.yaml"
printf "name: t\n$walled"'crowds:\n  - {name: a, agents: [[2.5, 2.5]]}\ntargets:\n  - {name: g, agent: {crowd: a, index: 3}}\n' >"$tmp/no_agent.yaml"
printf "name: t\n$walled"'crowds:\n  - {name: a, count: 0}\nsquads:\n  - {crowd: a, count: 5, formation: column, spacing: 1, start: [2.5, 2.5], goal: [2.5, 3.5], speed: 1}\n' >"$tmp/no_room.yaml"
printf 'name: t\nworld: {size: [20, 20]}\ncrowds:\n  - {name: a, count: 3, colour: red}\n' >"$tmp/bad_key.yaml"
for f in no_path no_room no_agent bad_key; do
    run check "$tmp/$f.yaml"
    check_rc=$rc
    check_msg=$(cat "$tmp/err")
    run run "$tmp/$f.yaml" --headless --steps 0
    run_msg=$(sed 's/^throng run: //' "$tmp/err")
    if [[ $check_rc -ne 2 || $rc -ne 2 ]]; then
        fail "check = run: $f" "check exit $check_rc, run exit $rc, expected 2 and 2"
    elif [[ $check_msg != "$run_msg" || $check_msg != "$tmp/$f.yaml:"[0-9]*:[0-9]*": "* ]]; then
        fail "check = run: $f" "check said '$check_msg', run said '$run_msg'"
    else
        pass "check reports run's load error: $f"
    fi
done

# check builds the world as run does but leaves out what only running needs: on a 4,096 x
# 4,096 map with 8 threads, run's world holds river-map working memory for each worker (some
# 14 bytes a cell each: 1.8 GiB for 8) and a nearest-bunker field, check's one worker's. Under
# a 1.2 GB address-space cap check passes the scene and run cannot build it. Not under
# sanitizers: their runtimes reserve far more address space than the cap leaves.
if [[ -n ${ASAN_OPTIONS:-}${TSAN_OPTIONS:-} ]] || grep -aq -e __asan_init -e __tsan_init "$bin"; then
    pass "check without run-only memory: skipped under a sanitizer"
else
    printf 'name: t\nthreads: 8\nmap:\n  cell_size: 1\n  generate:\n    city: {size: [4096, 4096], block: 12, street: 4, seed: 3}\ncrowds:\n  - {name: a, count: 1, spawn: {rect: [0, 0, 4096, 4096]}}\n' >"$tmp/big.yaml"
    for cmd in check run; do
        (
            ulimit -v 1200000
            if [[ $cmd == check ]]; then exec timeout 300 "$bin" check "$tmp/big.yaml" >"$tmp/out" 2>"$tmp/err"
            else exec timeout 300 "$bin" run "$tmp/big.yaml" --headless --steps 0 >"$tmp/out" 2>"$tmp/err"
            fi
        )
        eval "${cmd}_rc=$?"
    done
    # shellcheck disable=SC2154 # set by the eval above
    if [[ $check_rc -eq 0 && $run_rc -ne 0 ]]; then
        pass "check leaves out run-only memory: passes under a cap run's world does not fit"
    else
        fail "check leaves out run-only memory" "under 1.2 GB: check exit $check_rc (expected 0), run exit $run_rc (expected a refusal)"
    fi
fi
# A pedestrian crowd in a world stepped longer than its bodies hold (0.05 s): refused where the
# crowd is written, by check and run alike; at 0.05 s it loads.
printf 'name: t\ntimestep: 0.25\nworld: {size: [20, 20]}\ncrowds:\n  - name: walkers\n    model: pedestrian\n    count: 10\n    spawn: {rect: [2, 2, 18, 18]}\n' >"$tmp/ped_dt.yaml"
run check "$tmp/ped_dt.yaml"
if [[ $rc -eq 2 ]] && grep -q "ped_dt.yaml:5:5: crowds\[0\]: .*a pedestrian crowd needs a timestep of at most 0.05 s, the world's is 0.25 s" "$tmp/err"; then
    run run "$tmp/ped_dt.yaml" --headless --steps 1
    if [[ $rc -eq 2 ]]; then pass "pedestrians at a 0.25 s timestep refused, with where and why"
    else fail "pedestrians at a 0.25 s timestep" "run exit $rc, expected 2"
    fi
else fail "pedestrians at a 0.25 s timestep" "check exit $rc, or no line:column and reason"
fi
sed -i 's/^timestep: 0.25/timestep: 0.05/' "$tmp/ped_dt.yaml"
run run "$tmp/ped_dt.yaml" --headless --steps 10 --validate
[[ $rc -eq 0 ]] && pass "pedestrians at a 0.05 s timestep run" || fail "pedestrians at 0.05 s" "exit $rc"
expect_usage "check --threads 65" "--threads" check --threads 65 flock
expect_usage "check unknown flag" "--bogus" check --bogus flock


# ---- outputs never replace inputs or each other --------------------------------------------

# Every output file of run and bench is checked before any work against the scene file, the
# map image the scene reads and every other output, as files (`./x`, `dir/../x`, a symbolic
# or hard link are the same file), and refused with exit 2 naming both and the path; nothing
# is written, created or emptied then. Before, --screenshot and --json replaced the scene,
# --measure the map image, and two outputs on one path the first one's table.
o=$tmp/outputs
mkdir -p "$o/sub"
# A 4 x 4 white PNG: an image map.
base64 -d >"$o/map.png" <<<'iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAD0lEQVR4nGP4jwQYiOMAANuQL9FuRbCyAAAAAElFTkSuQmCC'
printf 'name: img\nmap:\n  cell_size: 1\n  image: map.png\n  legend: {"#ffffff": open}\ncrowds:\n  - {name: a, count: 3, spawn: {rect: [0, 0, 4, 4]}}\nmeasure:\n  areas:\n    - {name: all, rect: [0, 0, 4, 4]}\n' \
    >"$o/scene.yaml"
printf 'step,time\n0,0\n' >"$o/table.csv"
ln -s scene.yaml "$o/link.yaml"
ln "$o/scene.yaml" "$o/hard.yaml"
cp "$o/scene.yaml" "$tmp/scene.orig"
cp "$o/map.png" "$tmp/map.orig"
cp "$o/table.csv" "$tmp/table.orig"
run run "$o/scene.yaml" --headless --steps 2
[[ $rc -eq 0 ]] && pass "the image-map scene runs" || fail "the image-map scene runs" "exit $rc"

# expect_kept NAME WORD ARGS...: a usage error naming WORD (expect_usage), with the scene, its
# map and an existing table byte for byte as they were, and no file added to their folder.
expect_kept() {
    local name=$1 before
    before=$(ls -A "$o" "$o/sub")
    expect_usage "$@"
    if ! cmp -s "$o/scene.yaml" "$tmp/scene.orig" || ! cmp -s "$o/map.png" "$tmp/map.orig" ||
        ! cmp -s "$o/table.csv" "$tmp/table.orig"; then
        fail "$name: files kept" "an input or the table changed"
    elif [[ $(ls -A "$o" "$o/sub") != "$before" ]]; then
        fail "$name: files kept" "files appeared: $(ls -A "$o" "$o/sub" | tr '\n' ' ')"
    else
        pass "$name: files kept"
        return
    fi
    # Each case on the files as they were: put them back, and take away what appeared.
    cp "$tmp/scene.orig" "$o/scene.yaml"
    cp "$tmp/map.orig" "$o/map.png"
    cp "$tmp/table.orig" "$o/table.csv"
    local f
    for f in "$o"/* "$o"/sub/*; do
        [[ -e $f && $before != *"${f##*/}"* ]] && rm -f "$f"
    done
}
steps=(--headless --steps 2)
expect_kept "--screenshot over the scene" "--screenshot and SCENE name the same file '$o/scene.yaml' (the scene file being run)" \
    run "$o/scene.yaml" "${steps[@]}" --screenshot "$o/scene.yaml"
expect_kept "--json over the scene by another path" "--json '$o/sub/../scene.yaml' and SCENE '$o/scene.yaml' name the same file" \
    run "$o/scene.yaml" "${steps[@]}" --json "$o/sub/../scene.yaml"
expect_kept "--json over the scene through a symbolic link" "--json '$o/link.yaml' and SCENE" \
    run "$o/scene.yaml" "${steps[@]}" --json "$o/link.yaml"
expect_kept "--screenshot over the scene through a hard link" "--screenshot '$o/hard.yaml' and SCENE" \
    run "$o/scene.yaml" "${steps[@]}" --screenshot "$o/hard.yaml"
expect_kept "--measure over the map image" "--measure and map.image name the same file '$o/map.png' (the scene's map image)" \
    run "$o/scene.yaml" "${steps[@]}" --measure "$o/map.png"
expect_kept "--trajectories over the map image" "--trajectories '$o/./map.png' and map.image '$o/map.png' name the same file" \
    run "$o/scene.yaml" "${steps[@]}" --trajectories "$o/./map.png"
expect_kept "--json over the map image" "--json and map.image name the same file" \
    run "$o/scene.yaml" "${steps[@]}" --json "$o/map.png"
expect_kept "--json over the --measure table" "--measure and --json name the same file '$o/table.csv'" \
    run "$o/scene.yaml" "${steps[@]}" --measure "$o/table.csv" --json "$o/table.csv"
expect_kept "--screenshot over the --trajectories file" "--trajectories '$o/table.csv' and --screenshot '$o/sub/../table.csv' name the same file" \
    run "$o/scene.yaml" "${steps[@]}" --trajectories "$o/table.csv" --screenshot "$o/sub/../table.csv"
expect_kept "--json and --screenshot on one new file" "--json '$o/new.png' and --screenshot '$o/./new.png' name the same file" \
    run "$o/scene.yaml" "${steps[@]}" --json "$o/new.png" --screenshot "$o/./new.png"
# The same from the scene's folder, by relative names.
bin_given=$bin
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
cd "$o" || exit 2
expect_kept "relative names: --json over the scene" "--json './scene.yaml' and SCENE 'scene.yaml' name the same file" \
    run scene.yaml "${steps[@]}" --json ./scene.yaml
expect_kept "relative names: --screenshot over the map" "--screenshot 'sub/../map.png' and map.image 'map.png' name the same file" \
    run scene.yaml "${steps[@]}" --screenshot sub/../map.png
cd - >/dev/null || exit 2
bin=$bin_given
# bench: --csv, --json and --trace against --scene, its map and each other.
bench=(bench --agents 10 --threads 1 --steps 2 --warmup 1 --reps 1)
expect_kept "bench --csv over the map image" "--csv and map.image name the same file '$o/map.png'" \
    "${bench[@]}" --scene "$o/scene.yaml" --csv "$o/map.png"
expect_kept "bench --json over the scene" "--json '$o/sub/../scene.yaml' and --scene '$o/scene.yaml' name the same file" \
    "${bench[@]}" --scene "$o/scene.yaml" --json "$o/sub/../scene.yaml"
expect_kept "bench --trace over the --csv table" "--csv '$o/table.csv' and --trace '$o/./table.csv' name the same file" \
    "${bench[@]}" --csv "$o/table.csv" --trace "$o/./table.csv"

# ---- outputs the file system refuses fail before the run -----------------------------------

# Every output goes through one check before the run: a name too long, a missing folder, a
# path through a regular file, a read-only place. Before, --json and --screenshot checked the
# folder only (a name too long passed, and failed after the whole run), and --measure opened
# and emptied its table before --trajectories was refused.
long=$o/$(printf 'n%.0s' {1..300}).csv
for flag in --json --screenshot --measure --trajectories; do
    expect_kept "$flag: a name too long" "$flag: cannot write '$long': File name too long" \
        run "$o/scene.yaml" "${steps[@]}" "$flag" "$long"
    expect_kept "$flag: no such folder" "$flag: cannot write '$o/none/x': no folder '$o/none'" \
        run "$o/scene.yaml" "${steps[@]}" "$flag" "$o/none/x"
    expect_kept "$flag: a path through a regular file" "$flag: cannot write '$o/scene.yaml/x': Not a directory" \
        run "$o/scene.yaml" "${steps[@]}" "$flag" "$o/scene.yaml/x"
done
expect_kept "bench --csv: a name too long" "--csv: cannot write '$long': File name too long" \
    "${bench[@]}" --csv "$long"
if [[ $(id -u) -ne 0 ]]; then
    mkdir "$o/ro"
    chmod 555 "$o/ro"
    for flag in --json --screenshot --measure --trajectories; do
        expect_kept "$flag: a read-only folder" "$flag: cannot write '$o/ro/x': Permission denied" \
            run "$o/scene.yaml" "${steps[@]}" "$flag" "$o/ro/x"
    done
    chmod 755 "$o/ro"
    rmdir "$o/ro"
fi
# A refusal after one output was opened empties nothing and leaves no new file behind.
mkfifo "$o/fifo"
expect_kept "--measure kept when --trajectories is refused" "no process is reading" \
    run "$o/scene.yaml" "${steps[@]}" --measure "$o/table.csv" --trajectories "$o/fifo"
expect_kept "no new --measure file when --trajectories is refused" "no process is reading" \
    run "$o/scene.yaml" "${steps[@]}" --measure "$o/fresh.csv" --trajectories "$o/fifo"
rm "$o/fifo"

# ---- write errors say why ----------------------------------------------------------------

if [[ -w /dev/full ]]; then
    for flag in --measure --trajectories; do
        run run "$o/scene.yaml" "${steps[@]}" "$flag" /dev/full
        if [[ $rc -eq 1 ]] && grep -qF "writing /dev/full failed: No space left on device" "$tmp/err"; then
            pass "$flag to a full disk says why"
        else
            fail "$flag to a full disk says why" "exit $rc"
        fi
    done
    run "${bench[@]}" --csv /dev/full
    if [[ $rc -eq 1 ]] && grep -qF "writing '/dev/full' failed: No space left on device" "$tmp/err"; then
        pass "bench --csv to a full disk says why"
    else
        fail "bench --csv to a full disk says why" "exit $rc"
    fi
fi

# A pedestrian crowd with no goal and no heading beside a bunker loads, with a warning that names
# it where it is written (check and run, on stderr; the report's `warning` line; the JSON's
# scene.warnings and scene.warning); fleeing, walking a heading, flocking or without anywhere to
# go, it gets none.
standing_scene() { # standing_scene FILE CROWD_EXTRA [LEGEND_E]
    local e=${3:-"{bunker: exit}"}
    printf 'name: stand\nsteps: 30\nmap:\n  cell_size: 0.5\n  legend: {"#": wall, ".": open, "E": %s}\n  ascii: |\n    ##########\n    #........E\n    #........#\n    ##########\ncrowds:\n  - name: occupants\n    count: 5\n    spawn: {rect: [0.6, 0.6, 3, 1]}\n%s' \
        "$e" "$2" >"$1"
}
standing_scene "$tmp/stand.yaml" $'    model: pedestrian\n'
run check "$tmp/stand.yaml"
if [[ $rc -eq 0 ]] && grep -q "^warning: $tmp/stand.yaml:12:5: crowds\[0\]: crowd 'occupants' has no goal and no heading: its 5 agent(s) will stand where they start, though the scene has 1 bunker(s) and 0 exit(s)" "$tmp/err"; then
    pass "check warns of a standing pedestrian crowd beside a bunker, where it is written"
else
    fail "check warns of a standing crowd" "exit $rc: $(head -c 300 "$tmp/err")"
fi
run run "$tmp/stand.yaml" --headless --json "$tmp/stand.json"
if [[ $rc -eq 0 ]] && grep -q "^throng run: warning: .*crowd 'occupants' has no goal" "$tmp/err" &&
    grep -q "^warning   .*crowd 'occupants' has no goal" "$tmp/out" &&
    python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['scene']; sys.exit(not (s['warnings'] == 1 and 'crowd \'occupants\' has no goal' in s['warning']))" "$tmp/stand.json"; then
    pass "run warns of it on stderr, in the report and in the JSON"
else
    fail "run warns of a standing crowd" "exit $rc"
fi
for extra in $'    model: pedestrian\n    behavior: flee\n' $'    model: pedestrian\n    heading: [1, 0]\n' ''; do
    standing_scene "$tmp/quiet.yaml" "$extra"
    run run "$tmp/quiet.yaml" --headless --json "$tmp/quiet.json"
    if [[ $rc -eq 0 ]] && ! grep -q warning "$tmp/err" "$tmp/out" &&
        python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['scene']; sys.exit(not (s['warnings'] == 0 and s['warning'] is None))" "$tmp/quiet.json"; then
        pass "no warning for a crowd that flees, walks a heading or flocks (${extra//$'\n'/ })"
    else
        fail "warning for a crowd that moves" "${extra//$'\n'/ }: exit $rc"
    fi
done
standing_scene "$tmp/nowhere.yaml" $'    model: pedestrian\n' open
run check "$tmp/nowhere.yaml"
if [[ $rc -eq 0 ]] && ! grep -q warning "$tmp/err"; then
    pass "no warning for a standing crowd with nowhere to go"
else
    fail "warning without bunkers or exits" "exit $rc: $(head -c 200 "$tmp/err")"
fi

finish
