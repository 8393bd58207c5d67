#!/usr/bin/env bash
# Strong and weak scaling of one world over MPI ranks (THRONG_MPI=ON build), flock demo:
# steps/s, agent-steps/s, the strips' balance, bytes exchanged per step and the exchanges'
# share of step time, from `throng run`'s report on rank 0. Every run also prints its hash,
# which must not depend on R or T.
#
#   bench/mpi_scaling.sh [THRONG_BINARY] [STEPS] [STRONG_AGENTS] [WEAK_AGENTS_PER_RANK]
#
# Large mode: one world of AGENTS (default 10 million) for a few steps, each demo of SCENES on
# one process and on R ranks, with ms per step, the exchanges' bytes and share of the step, and
# every rank's peak resident memory (/usr/bin/time). Runs go one at a time, and a run is
# skipped when MemAvailable is below twice its estimate (ids on every rank, agents shared).
#
#   bench/mpi_scaling.sh --large [THRONG_BINARY] [STEPS] [AGENTS] [SCENES] [R_x_T ...]
#   e.g. bench/mpi_scaling.sh --large build/mpi/throng 20 10000000 "bench/flock_10m.yaml pedestrians" 1x1 1x2 2x1 4x1
# A name resolves as `throng run` resolves it: in a checkout, flock is scenes/flock.yaml, whose
# --agents scales the crowd and not its 501 m field (10 M boids there would see 1,500
# neighbours each); bench/flock_1m.yaml and bench/flock_10m.yaml keep its density.
#
# On a machine with fewer cores than R x T the extra ranks are oversubscribed: their figures
# show the cost of sharing cores, not scaling.
set -euo pipefail
large=0
if [ "${1:-}" = --large ]; then
    large=1
    shift
fi
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

# Large mode: one row per (scene, R x T).
large_run() { # SCENE R T AGENTS
    local scene=$1 R=$2 T=$3 N=$4 out
    # Estimate, bytes: every rank holds every id slot (~24 B) and the map-wide grid, the agents
    # (~200 B each with their grid and contact entries) are shared, rank 0 gathers the hash
    # records (~40 B per agent), and each rank's MPI runtime takes ~100 MB.
    local need_kb=$(((N * (24 * R + 240) + R * 100000000) / 1024))
    local avail_kb
    avail_kb=$(sed -n 's/^MemAvailable: *\([0-9]*\) kB/\1/p' /proc/meminfo)
    if [ "$avail_kb" -lt $((2 * need_kb)) ]; then
        echo "| $scene | $R | $T | $N | skipped: $((avail_kb / 1024)) MiB available, estimate $((need_kb / 1024)) MiB | | | | |"
        return 0
    fi
    # /usr/bin/time, each rank's parent, writes the rank's peak RSS to a file of its own (the
    # ranks' merged output can cut a line in two).
    local dir
    dir=$(mktemp -d)
    out=$(mpirun --oversubscribe --bind-to none -np "$R" sh -c \
        'exec /usr/bin/time -o "$0/rss.${OMPI_COMM_WORLD_RANK:-0}" -f "${OMPI_COMM_WORLD_RANK:-0} %M" "$@"' \
        "$dir" "$bin" run "$scene" --agents "$N" --steps "$steps" --threads "$T" --headless \
        --no-progress 2>&1)
    local wall hash exch ghosts migrants halo mig share rss
    wall=$(echo "$out" | sed -n 's/^wall *\([0-9.]*\) s.*/\1/p')
    hash=$(echo "$out" | sed -n 's/^hash //p')
    exch=$(echo "$out" | sed -n 's/^exchange *per step//p')
    ghosts=$(echo "$exch" | sed -n 's/.*ghosts \([0-9.]*\) KB.*/\1/p')
    migrants=$(echo "$exch" | sed -n 's/.*migrants \([0-9.]*\) KB.*/\1/p')
    halo=$(echo "$exch" | sed -n 's/.*halo \([0-9.]*\) ms.*/\1/p')
    mig=$(echo "$exch" | sed -n 's/.*migration \([0-9.]*\) ms.*/\1/p')
    share=$(echo "$exch" | sed -n 's/.*(\([0-9.]*\)% of step time).*/\1/p')
    rss=$(cat "$dir"/rss.* | sort -n | awk '{printf "%s%.0f", (NR > 1 ? " / " : ""), $2 / 1024}')
    rm -rf "$dir"
    local note=""
    [ $((R * T)) -gt "$cores" ] && note=" (oversubscribed)"
    if [ "$R" -eq 1 ]; then
        printf '| %s | %d | %d | %d | %.0f | - | - | %s | %s |%s\n' "$scene" "$R" "$T" "$N" \
            "$(echo "1000 * $wall / $steps" | bc -l)" "$rss" "$hash" "$note"
    else
        printf '| %s | %d | %d | %d | %.0f | %s + %s | %s + %s (%s%%) | %s | %s |%s\n' "$scene" \
            "$R" "$T" "$N" "$(echo "1000 * $wall / $steps" | bc -l)" "$ghosts" "$migrants" \
            "$halo" "$mig" "$share" "$rss" "$hash" "$note"
    fi
    return 0
}

if [ "$large" -eq 1 ]; then
    agents=${3:-10000000}
    scenes=${4:-flock pedestrians}
    shift $(($# < 4 ? $# : 4))
    configs=${*:-1x1 1x2 2x1 4x1}
    echo "large: $agents agents, $steps steps, $(free -g | awk '/^Mem:/ {print $2}') GiB machine"
    echo "| scene | R | T | agents | ms/step | ghosts + migrants KB per step (all ranks) | halo + migration ms per step, slowest rank (share of step) | peak RSS per rank, MiB (rank 0 / 1 / ...) | hash |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
    for scene in $scenes; do
        for rt in $configs; do large_run "$scene" "${rt%x*}" "${rt#*x}" "$agents"; done
    done
    exit 0
fi

echo "strong scaling: flock demo, $strong agents, $steps steps"
echo "| R | T | agents | steps/s | M agent-steps/s | hash |"
echo "|---:|---:|---:|---:|---:|---|"
for rt in "1 1" "1 2" "2 1" "2 2" "4 1"; do run $rt "$strong"; done
echo
echo "weak scaling: flock demo, $weak agents per rank, $steps steps, 1 thread per rank"
echo "| R | T | agents | steps/s | M agent-steps/s | hash |"
echo "|---:|---:|---:|---:|---:|---|"
for R in 1 2 4; do run "$R" 1 $((weak * R)); done
