#!/usr/bin/env bash
# Mutation check: plant each bug of tests/mutation/mutants.txt, one at a time, rebuild, run the
# engine's test suites, and report which bugs no test caught (the survivors) and the score.
#
#   tests/mutation/run.sh [LIST...]               (default tests/mutation/mutants.txt)
#   tests/mutation/run.sh --check-list [LIST...]  only check that every mutant still applies
#
# Every mutant must apply: its OLD text must occur exactly once in its file. A mutant whose
# line is gone or doubled ("stale": the code moved on) fails the check, in both modes, before
# anything is built; rewrite it to the same kind of bug on the code's current line. The ctest
# test `test_mutation_list` runs --check-list (a second, no build), so a change that makes a
# mutant stale fails the test suite.
#
# The suites run for each mutant are every ctest test of the Release build except those
# labelled (tests/CMakeLists.txt) `x11` (the viewer and report under Xvfb), `bench` (the
# benchmark's output check), `tooling` (install, Python package, formatting, the generated doc
# table, the compile-fail checks, this list's check: none of them runs the engine's behaviour)
# or `slow` (the gridlock sweep, many minutes on its own); a new suite is included unless it is
# given one of these labels. Sanitizer and MPI suites are not defined in this build.
#
# One build tree (build/mutation, Release; MUTATION_BUILD names another) is kept: each mutant touches one file, so a
# rebuild compiles that file (a header: its includers) and relinks. The file is restored,
# byte for byte, after every mutant and on any exit. A mutant is "killed" when a suite fails,
# "stillborn" when it does not compile (not counted). Exit 0 when the score reaches
# MUTATION_MIN_SCORE percent (default 95), 1 otherwise or when a mutant is stale, 2 when the
# unmutated tree does not build or pass.
set -uo pipefail
cd "$(dirname "$0")/../.."

check_only=false
if [[ ${1:-} == --check-list ]]; then
    check_only=true
    shift
fi
LISTS=("$@")
[[ ${#LISTS[@]} -eq 0 ]] && LISTS=(tests/mutation/mutants.txt)
BUILD=${MUTATION_BUILD:-build/mutation}
MIN=${MUTATION_MIN_SCORE:-95}
EXCLUDE_LABELS='^(x11|bench|tooling|slow)$'
JOBS=$(nproc 2>/dev/null || echo 2)

# Every mutant of the lists, checked: FILE exists, OLD occurs exactly once in it, NEW differs.
# Prints one line per problem and exits non-zero when there is one.
check_lists() {
    python3 - "$@" <<'PY'
import sys
bad = total = 0
for lst in sys.argv[1:]:
    for lineno, line in enumerate(open(lst, encoding="utf-8"), 1):
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        total += 1
        f = line.split("\t")
        where = "%s:%d" % (lst, lineno)
        if len(f) != 4 or not all(f):
            print("malformed %s: expected FILE<TAB>OLD<TAB>NEW<TAB>what" % where)
            bad += 1
            continue
        path, old, new, what = f
        try:
            src = open(path, encoding="utf-8").read()
        except OSError:
            print("stale     %s %s: %s (no such file)" % (where, path, what))
            bad += 1
            continue
        n = src.count(old)
        if n != 1:
            print("stale     %s %s: %s (OLD found %d times, expected once)" % (where, path, what, n))
            bad += 1
        elif old == new:
            print("malformed %s %s: %s (NEW is OLD)" % (where, path, what))
            bad += 1
print("mutants   %d listed, %d stale or malformed" % (total, bad))
sys.exit(1 if bad else 0)
PY
}

if ! check_lists "${LISTS[@]}"; then
    echo "mutation: update the stale mutants above (the same kind of bug on today's line)" >&2
    exit 1
fi
$check_only && exit 0

# MUTATION_SUITES and MUTATION_SKIP (ctest -R and -E regexes) narrow the suites for a quick
# first round: a mutant killed there is killed by the whole set, but a survivor must be run
# again without them.
ONLY=()
[[ -n ${MUTATION_SUITES:-} ]] && ONLY+=(-R "$MUTATION_SUITES")
[[ -n ${MUTATION_SKIP:-} ]] && ONLY+=(-E "$MUTATION_SKIP")
suites() { ctest --test-dir "$BUILD" -LE "$EXCLUDE_LABELS" "${ONLY[@]}" "$@"; }

cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON >/dev/null || exit 2
# A run cut short (the marker is still there) may have left a mutant's objects behind.
if [ -e "$BUILD/mutant-planted" ]; then
    find "$BUILD" -name '*.o' -delete
    rm -f "$BUILD/mutant-planted"
fi
cmake --build "$BUILD" -j "$JOBS" >/dev/null || { echo "mutation: the unmutated tree does not build" >&2; exit 2; }
echo "suites    $(suites -N | sed -n 's/^ *Test *#[0-9]*: //p' | tr '\n' ' ')"
if ! suites -j "$JOBS" --timeout 300 >/dev/null 2>&1; then
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

killed=0 survived=0 stillborn=0 n=0
survivors=()
t_start=$(date +%s)
for LIST in "${LISTS[@]}"; do
    while IFS=$'\t' read -r file old new what; do
        [[ -z $file || $file == \#* ]] && continue
        n=$((n + 1))
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
        elif suites -j "$JOBS" --timeout 120 --stop-on-failure >/dev/null 2>&1; then
            echo "SURVIVED  #$n $file: $what ($(($(date +%s) - t0)) s)"
            survived=$((survived + 1))
            survivors+=("#$n $file: $what")
        else
            echo "killed    #$n $file: $what ($(($(date +%s) - t0)) s)"
            killed=$((killed + 1))
        fi
        restore
    done <"$LIST"
done
# Leave the tree built from the restored sources.
cmake --build "$BUILD" -j "$JOBS" >/dev/null 2>&1 && rm -f "$BUILD/mutant-planted"

counted=$((killed + survived))
score=$((counted ? killed * 1000 / counted : 0))
echo
echo "mutants   $n run: $killed killed, $survived survived, $stillborn stillborn"
for s in "${survivors[@]}"; do echo "survivor  $s"; done
printf 'score     %d.%d %% (%d of %d), %d s\n' $((score / 10)) $((score % 10)) "$killed" "$counted" \
    $(($(date +%s) - t_start))
[ $((score / 10)) -ge "$MIN" ]
