#!/usr/bin/env bash
# Throughput of RVO2 (ORCA: van den Berg, Guy, Lin & Manocha 2011, "Reciprocal n-body
# collision avoidance") on the set-up of throng's `pedestrians` demo, for a side-by-side figure.
#
#   bench/peers/rvo2/run.sh RVO2_CHECKOUT [BUILD_DIR]
#
# RVO2_CHECKOUT is a clone of https://github.com/snape/RVO2 (measured: commit 1c25b272); it is
# built here without CMake (g++ -O2 -fopenmp, its threads are OpenMP's). Sweep: N in NS x
# OMP_NUM_THREADS in THREADS; overrides NS="10000 100000" THREADS="1 2" WARMUP=20 STEPS=100
# REPS=3. Each line: N, threads, median, min and max million agent-steps per second.
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,11p' "$0" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
src=$1/src
build=${2:-/tmp/throng-rvo2}
[ -f "$src/RVOSimulator.cc" ] || { echo "run.sh: no RVO2 sources in $src" >&2; exit 2; }
CXX=${CXX:-g++}
CXXFLAGS=${CXXFLAGS:-"-O2 -DNDEBUG -fopenmp"}
mkdir -p "$build"
objs=()
for f in "$src"/*.cc; do
    o="$build/$(basename "${f%.cc}").o"
    [ "$o" -nt "$f" ] || $CXX $CXXFLAGS -I"$src" -c "$f" -o "$o"
    objs+=("$o")
done
$CXX $CXXFLAGS -std=c++11 -I"$src" "$here/bench.cc" "${objs[@]}" -o "$build/bench"
echo "# RVO2 $(git -C "$1" rev-parse --short HEAD 2>/dev/null || echo '(not a git checkout)'), $CXX $CXXFLAGS, nproc $(nproc)"
printf "%8s %8s %10s %10s %10s\n" N threads median min max
for n in ${NS:-10000 100000}; do
    for t in ${THREADS:-1 2}; do
        OMP_NUM_THREADS=$t "$build/bench" "$n" "${WARMUP:-20}" "${STEPS:-100}" "${REPS:-3}" 2>/dev/null |
            awk '/^RESULT/ {printf "%8s %8s %10s %10s %10s\n", $2, $3, $4, $5, $6}'
    done
done
