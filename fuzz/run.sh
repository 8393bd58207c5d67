#!/usr/bin/env bash
# Fuzz the scene loader and the PNG map reader with libFuzzer (clang, ASan + UBSan).
#
#   fuzz/run.sh [SECONDS]   build both targets, run them for SECONDS in all (default 60:
#                           two thirds on scenes, one third on images); exit non-zero on any
#                           crash, leak, timeout (> 5 s per input) or OOM (> 2048 MB)
#
# Longer local runs, e.g. an hour on 2 cores with the corpus kept between runs:
#   FUZZ_JOBS=2 FUZZ_KEEP=1 fuzz/run.sh 3600
# FUZZ_JOBS runs that many fuzzing processes per target; FUZZ_KEEP=1 keeps new corpus
# entries in build/fuzz/corpus-* (the checked-in seeds in fuzz/corpus stay untouched);
# FUZZ_MERGE=1 minimises what the run learned into fuzz/corpus/learned/, to be committed. A
# finding is saved as build/fuzz/crash-* (or leak-, timeout-, oom-); replay it with
#   build/fuzz/fuzz_scene build/fuzz/crash-...
set -euo pipefail
cd "$(dirname "$0")/.."

SECONDS_TOTAL=${1:-60}
JOBS=${FUZZ_JOBS:-1}
ROOT=$PWD
OUT=build/fuzz
CC=${CC_FUZZ:-clang}
mkdir -p "$OUT"

# The library is compiled here, not through CMake: every sim/ and engine/ file with the
# fuzzer's coverage instrumentation and the sanitizers, as the project's own flags demand.
FLAGS=(-std=c17 -g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
       -fno-sanitize-recover=all -ffp-contract=off -fno-fast-math -fno-math-errno
       -D_POSIX_C_SOURCE=200809L -I. -Iinclude -Wall -Wextra -pedantic)
LIBS=($(pkg-config --cflags --libs yaml-0.1 libpng zlib) -lpthread -lm)
# sim/behave/boids.c does not build with clang 14 as it stands: its 8-lane helpers pass vectors
# by value, an error without AVX enabled, and clang's target_clones leaves the dispatcher
# unresolved at link time. Here it is built for this CPU alone (-mavx2, clones off through
# the macro that already turns them off under ThreadSanitizer), or by gcc without the
# sanitizers on a CPU without AVX2; the kernel is not what these targets fuzz.
boids_cc=("$CC" "${FLAGS[@]}" -mavx2 -D__SANITIZE_THREAD__=1)
grep -qw avx2 /proc/cpuinfo || boids_cc=(gcc -std=c17 -O2 -g -ffp-contract=off -I. -Iinclude)
# compile SRC OBJ: one file of the library, as the main build leaves it out or in.
compile() {
    local src=$1 obj=$2
    if [ "$src" = sim/behave/boids.c ]; then
        "${boids_cc[@]}" -D_POSIX_C_SOURCE=200809L -c "$src" -o "$obj"
        return
    fi
    local extra=()
    # Only the loader's files and the harnesses are held to -Werror here: the rest is checked
    # by the main build, with the project's own compiler.
    case "$src" in
        sim/scene/*.c) extra+=(-Werror) ;;
    esac
    "$CC" "${FLAGS[@]}" "${extra[@]}" $(pkg-config --cflags yaml-0.1 libpng) -c "$src" -o "$obj"
}
# One compiler per core at a time; one that fails stops the script (set -e, through wait -n).
BUILD_JOBS=$(nproc 2>/dev/null || echo 2)
objs=()
mkdir -p "$OUT/obj"
running=0
for src in engine/*.c sim/*/*.c; do
    # The single-process build of the library: the files CMake builds only with THRONG_MPI (the
    # MPI side of sim/dist/, the ranks' digest comparison) are left out.
    case "$src" in sim/dist/dist_mpi.c | sim/observe/digest_ranks.c) continue ;; esac
    obj="$OUT/obj/${src//\//_}.o"
    objs+=("$obj")
    if [ "$running" -ge "$BUILD_JOBS" ]; then
        wait -n
        running=$((running - 1))
    fi
    compile "$src" "$obj" &
    running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
    wait -n
    running=$((running - 1))
done
for target in fuzz_scene fuzz_image; do
    echo "== building $OUT/$target"
    "$CC" "${FLAGS[@]}" -fsanitize=fuzzer -Werror "${objs[@]}" "fuzz/$target.c" "${LIBS[@]}" \
        -o "$OUT/$target"
done

run() {
    local target=$1 seeds=$2 secs=$3
    local corpus="$OUT/corpus-${target#fuzz_}"
    [ "${FUZZ_KEEP:-0}" = 1 ] || rm -rf "$corpus"
    mkdir -p "$corpus"
    echo "== $target for ${secs}s"
    local extra=() rc=0
    # With -jobs, libFuzzer writes one fuzz-N.log per job into the current folder.
    [ "$JOBS" -gt 1 ] && extra=(-jobs="$JOBS" -workers="$JOBS")
    # -max_len: the seeds are a few kB; mutation still reaches every parser path at that size,
    # and the huge-input cases (64 MiB, million-character lines) are in tests/test_robustness.c.
    (cd "$OUT" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
        UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "./$target" "corpus-${target#fuzz_}" "$ROOT/$seeds" "$ROOT/$learned_dir/${target#fuzz_}" \
        -max_total_time="$secs" -timeout=5 \
        -rss_limit_mb=2048 -malloc_limit_mb=2048 -max_len=16384 -print_final_stats=1 \
        -artifact_prefix=./ "${extra[@]}") >"$OUT/$target.log" 2>&1 || rc=$?
    [ "$JOBS" -gt 1 ] && cat "$OUT"/fuzz-*.log >>"$OUT/$target.log" && rm -f "$OUT"/fuzz-*.log
    # FUZZ_MERGE=1: fold what this run learned into the checked-in corpus, minimised: libFuzzer
    # keeps, of the learned inputs and this run's, only those that add coverage beyond the
    # hand-written seeds and each other.
    if [ "${FUZZ_MERGE:-0}" = 1 ] && [ "$rc" = 0 ]; then
        local learned="$ROOT/$learned_dir/${target#fuzz_}" merged="$OUT/merged-${target#fuzz_}"
        rm -rf "$merged" && mkdir -p "$merged" "$learned"
        cp "$ROOT/$seeds"/* "$merged"/
        (cd "$OUT" && "./$target" -merge=1 "merged-${target#fuzz_}" "$learned" \
            "corpus-${target#fuzz_}" -timeout=5 -rss_limit_mb=2048 -max_len=16384) \
            >"$OUT/$target.merge.log" 2>&1
        rm -rf "$learned" && mkdir -p "$learned"
        for f in "$merged"/*; do
            [ -e "$ROOT/$seeds/${f##*/}" ] || cp "$f" "$learned"/
        done
        echo "== $target: $(ls "$learned" | wc -l) learned inputs kept in $learned_dir/${target#fuzz_}"
    fi
    # libFuzzer separates "#N" from DONE/INITED with a tab, not spaces.
    grep -E '^(#[0-9]+[[:space:]]+(DONE|INITED)|stat::|==[0-9]+==ERROR|SUMMARY|artifact_prefix)' \
        "$OUT/$target.log" || true
    return "$rc"
}

# Inputs earlier runs found that reach code the seeds do not, minimised (FUZZ_MERGE=1 below):
# each CI run starts where the last kept run ended instead of from the seeds alone.
learned_dir=fuzz/corpus/learned
mkdir -p "$learned_dir/scene" "$learned_dir/image"
scene_secs=$((SECONDS_TOTAL * 2 / 3))
image_secs=$((SECONDS_TOTAL - scene_secs))
# The two targets run side by side, each on a core of its own (with FUZZ_JOBS=1).
status=0
run fuzz_scene fuzz/corpus/scene "$scene_secs" &
scene_pid=$!
run fuzz_image fuzz/corpus/image "$image_secs" || status=1
wait "$scene_pid" || status=1
[ "$status" = 0 ] && echo "fuzz: no findings" || echo "fuzz: FINDINGS, see $OUT/" >&2
exit "$status"
