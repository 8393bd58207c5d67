#!/usr/bin/env bash
# Mutation check: plant each bug of tests/mutation/mutants.txt, one at a time, rebuild, run the
# fast test suites, and report which bugs no test caught (the survivors) and the score.
#
#   tests/mutation/run.sh [LIST]     (default tests/mutation/mutants.txt)
#
# One build tree (build/mutation, Release) is kept: each mutant touches one file, so a
# rebuild compiles that file (a header: its includers) and relinks. The file is restored,
# byte for byte, after every mutant and on any exit. A mutant is "killed" when a suite fails,
# "stillborn" when it does not compile (not counted), "stale" when its line is not found
# once in the file (the code moved on: update the list; not counted). Exit 0 when the score
# reaches MUTATION_MIN_SCORE percent (default 95), 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/../.."
LIST=${1:-tests/mutation/mutants.txt}
BUILD=build/mutation
MIN=${MUTATION_MIN_SCORE:-95}
# The suites that run in seconds (the pedestrian suite in about 30); the viewer under Xvfb and the benchmark check are left out.
FAST='^(test_(boids|determinism|nav|evac|terrain_events|clock|jobs|grid|alloc|world|cli|scene|behavior|validate|squad|robustness|hardening|trace|scene_threads|pedestrian|measure|measure_cli))$'
JOBS=$(nproc 2>/dev/null || echo 2)

cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null || exit 2
# A run cut short (the marker is still there) may have left a mutant's objects behind.
if [ -e "$BUILD/mutant-planted" ]; then
    find "$BUILD" -name '*.o' -delete
    rm -f "$BUILD/mutant-planted"
fi
cmake --build "$BUILD" -j "$JOBS" >/dev/null || { echo "mutation: the unmutated tree does not build" >&2; exit 2; }
if ! ctest --test-dir "$BUILD" -R "$FAST" -j "$JOBS" --timeout 300 >/dev/null 2>&1; then
    echo "mutation: the unmutated tree fails its tests; fix that first" >&2
    exit 2
fi

backup=""
target=""
# The original bytes go back with a new modification time: with the old one, make would
# take the mutant's object file for up to date and every later mutant would run with it.
restore() {
    if [ -n "$backup" ] && [ -f "$backup" ]; then
        cp "$backup" "$target" && touch "$target" && rm -f "$backup"
    fi
    backup=""
}
trap restore EXIT INT TERM

killed=0 survived=0 stillborn=0 stale=0 n=0
survivors=()
t_start=$(date +%s)
while IFS=$'\t' read -r file old new what; do
    [[ -z $file || $file == \#* ]] && continue
    n=$((n + 1))
    if [[ ! -f $file ]] || [[ $(grep -cF -- "$old" "$file") -ne 1 ]]; then
        echo "stale     #$n $file: $what (line not found exactly once)"
        stale=$((stale + 1))
        continue
    fi
    target=$file
    backup=$(mktemp)
    cp "$file" "$backup"
    touch "$BUILD/mutant-planted"
    # Replace OLD by NEW on its one line, as fixed text.
    OLD=$old NEW=$new python3 - "$file" <<'PY'
import os, sys
path = sys.argv[1]
old, new = os.environ["OLD"], os.environ["NEW"]
src = open(path, encoding="utf-8").read()
assert src.count(old) == 1, "the mutant's text must occur once"
open(path, "w", encoding="utf-8").write(src.replace(old, new, 1))
PY
    t0=$(date +%s)
    if ! cmake --build "$BUILD" -j "$JOBS" >/dev/null 2>&1; then
        echo "stillborn #$n $file: $what (does not compile)"
        stillborn=$((stillborn + 1))
    elif ctest --test-dir "$BUILD" -R "$FAST" -j "$JOBS" --timeout 120 --stop-on-failure \
        >/dev/null 2>&1; then
        echo "SURVIVED  #$n $file: $what ($(($(date +%s) - t0)) s)"
        survived=$((survived + 1))
        survivors+=("#$n $file: $what")
    else
        echo "killed    #$n $file: $what ($(($(date +%s) - t0)) s)"
        killed=$((killed + 1))
    fi
    restore
done <"$LIST"
# Leave the tree built from the restored sources.
cmake --build "$BUILD" -j "$JOBS" >/dev/null 2>&1 && rm -f "$BUILD/mutant-planted"

counted=$((killed + survived))
score=$((counted ? killed * 1000 / counted : 0))
echo
echo "mutants   $n listed: $killed killed, $survived survived, $stillborn stillborn, $stale stale"
for s in "${survivors[@]}"; do echo "survivor  $s"; done
printf 'score     %d.%d %% (%d of %d), %d s\n' $((score / 10)) $((score % 10)) "$killed" "$counted" \
    $(($(date +%s) - t_start))
[ $((score / 10)) -ge "$MIN" ]
