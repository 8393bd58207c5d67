#!/usr/bin/env bash
# Strong and weak scaling of one world over MPI ranks (THRONG_MPI=ON build), flock demo:
# steps/s, agent-steps/s, the strips' balance, bytes exchanged per step and the exchanges'
# share of step time, from `throng run`'s report on rank 0. Every run also prints its hash,
# which must not depend on R or T.
#
#   bench/mpi_scaling.sh [THRONG_BINARY] [STEPS] [STRONG_AGENTS] [WEAK_AGENTS_PER_RANK]
#
# On a machine with fewer cores than R x T the extra ranks are oversubscribed: their figures
# show the cost of sharing cores, not scaling.
set -euo pipefail
bin=${1:-build/mpi/throng}
steps=${2:-200}
strong=${3:-100000}
weak=${4:-50000}
export OMPI_MCA_mpi_yield_when_idle=1
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
cores=$(nproc)

run() { # R T AGENTS
    local R=$1 T=$2 N=$3 out
    out=$(mpirun --oversubscribe --bind-to none -np "$R" "$bin" run flock --agents "$N" \
        --steps "$steps" --threads "$T" --headless --no-progress 2>&1)
    local wall speed hash ranks exch
    wall=$(echo "$out" | sed -n 's/^wall *\([0-9.]*\) s.*/\1/p')
    speed=$(echo "$out" | sed -n 's/^speed *\([0-9]*\) agent-steps.*/\1/p')
    hash=$(echo "$out" | sed -n 's/^hash //p')
    ranks=$(echo "$out" | sed -n 's/^ranks *//p')
    exch=$(echo "$out" | sed -n 's/^exchange *//p')
    local note=""
    [ $((R * T)) -gt "$cores" ] && note=" (oversubscribed: $((R * T)) threads on $cores cores)"
    printf '| %d | %d | %d | %.1f | %.2f | %s |%s\n' "$R" "$T" "$N" \
        "$(echo "$steps / $wall" | bc -l)" "$(echo "$speed / 1000000" | bc -l)" "$hash" "$note"
    [ -n "$ranks" ] && echo "|   |   |   | | | ranks $ranks |"
    [ -n "$exch" ] && echo "|   |   |   | | | exchange $exch |"
    return 0
}

echo "strong scaling: flock demo, $strong agents, $steps steps"
echo "| R | T | agents | steps/s | M agent-steps/s | hash |"
echo "|---:|---:|---:|---:|---:|---|"
for rt in "1 1" "1 2" "2 1" "2 2" "4 1"; do run $rt "$strong"; done
echo
echo "weak scaling: flock demo, $weak agents per rank, $steps steps, 1 thread per rank"
echo "| R | T | agents | steps/s | M agent-steps/s | hash |"
echo "|---:|---:|---:|---:|---:|---|"
for R in 1 2 4; do run "$R" 1 $((weak * R)); done
