#!/usr/bin/env bash
# One world over several MPI ranks gives the state hash of one process: each scene's reference
# hash comes from a run of the same command without mpirun (no MPI, one process: the plain
# engine), then `mpirun -np R throng run` must print the same hash for R = 1..4 ranks on 1
# thread and R = 3 on 2 threads per rank. What needs one process (the viewer, screenshots) and
# a world too thin for its ranks must be refused under R > 1 with an error that names them,
# and a non-zero exit. Under --validate the ranks check the invariants inside
# every step, and a violation stops every rank at the step one process stops at, reported once
# with one process's text and exit status.
#
#   test_mpi.sh THRONG_BINARY DATA_DIR SCENES_DIR
set -uo pipefail
bin=$1
data=$2
scenes=$3
. "$(dirname "$0")/lib.sh"

# Two cores shared by up to 8 processes: ranks yield while they wait, and are not pinned.
export OMPI_MCA_mpi_yield_when_idle=1
if [ "$(id -u)" -eq 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
mpi() { mpirun --oversubscribe --bind-to none -np "$@"; }

hash_of() { sed -n 's/^hash \(0x[0-9a-f]*\)$/\1/p'; }

# check_scene SCENE STEPS [options...]: the options go to every run (--agents N, say).
check_scene() {
    local scene=$1 steps=$2
    shift 2
    local ref
    ref=$("$bin" run "$scene" --headless --steps "$steps" --threads 1 "$@" | hash_of)
    if [ -z "$ref" ]; then
        fail "$scene: no reference hash" "under mpirun"
        return
    fi
    # Every rank count on one thread; at two threads 3 ranks, which hold both ranks with one
    # neighbour (the strips at the edges) and a rank between two others. 1, 2 and 4 ranks at two
    # threads, the dearest runs on two cores, run the same code as these.
    for T in 1 2; do
        for R in 1 2 3 4; do
            [[ $T -eq 2 && $R -ne 3 ]] && continue
            local out got
            out=$(timeout 120 mpirun --oversubscribe --bind-to none -np "$R" "$bin" run "$scene" \
                --headless --steps "$steps" --threads "$T" --rebalance 16 "$@" 2>&1) || {
                # A world with fewer grid rows than the ranks need (two per strip) is refused
                # with that message; anything else is a failure.
                if echo "$out" | grep -q "ranks need at least"; then
                    echo "skip: $scene -np $R: $(echo "$out" | grep -o 'the world has .*')"
                    continue
                fi
                fail "$scene -np $R --threads $T exited non-zero:" "under mpirun"
                echo "$out" | tail -5
                continue
            }
            got=$(echo "$out" | hash_of)
            # Exchange buffers sized at their high-water marks: none grows after the first step
            # (growth_ok=1: a scene whose agents gather or multiply may fill boundary rows
            # beyond the first step's mark; its buffers then grow, doubling).
            if [ -z "${growth_ok:-}" ] && echo "$out" | grep -q 'buffer growth'; then
                fail "$scene -np $R: $(echo "$out" | grep 'buffer growth')" "under mpirun"
            fi
            # One report, from rank 0.
            if [ "$(echo "$out" | grep -c '^hash ')" != 1 ]; then
                fail "$scene -np $R: expected one report, got $(echo "$out" | grep -c '^hash ')" "under mpirun"
            fi
            if [ "$got" != "$ref" ]; then
                fail "$scene -np $R --threads $T: hash $got, one process $ref" "under mpirun"
            else
                pass "$scene -np $R --threads $T $got"
            fi
        done
    done
}

# refused SCENE WORD [options...] [-np-4]: -np 2 (or 4) must fail, naming WORD.
refused() {
    local scene=$1 word=$2
    shift 2
    local out rc=0
    local np=2
    if [ "${!#}" = "-np-4" ]; then # a last argument -np-4: four ranks
        np=4
        set -- "${@:1:$#-1}"
    fi
    out=$(timeout 60 mpirun --oversubscribe --bind-to none -np "$np" "$bin" run "$scene" --steps 2 "$@" 2>&1) || rc=$?
    if [ "$rc" -eq 0 ]; then
        fail "$scene $*: ran under 2 ranks, expected a refusal naming '$word'" "under mpirun"
    elif ! echo "$out" | grep -q -- "$word"; then
        fail "$scene $*: the refusal does not name '$word':" "under mpirun"
        echo "$out" | tail -3
    elif [ "$(echo "$out" | grep -c -- "$word")" != 1 ]; then
        fail "$scene $*: the refusal is printed more than once" "under mpirun"
    else
        pass "refused: $scene $* ($word)"
    fi
}

check_scene "$data/mpi/flock_small.yaml" 120
check_scene "$data/mpi/city_boids.yaml" 240
# Bodies (contacts rounds across ranks), shelters: the built-in demos.
check_scene pedestrians 60 --agents 1000
check_scene evac 90 --agents 1500
# Bunkers filling up (admission replayed in global storage order), agents buried by block
# events, a spawner reusing the ids of those who left (the free list).
growth_ok=1 check_scene "$data/mpi/shelter_full.yaml" 400
# Targets that follow an agent (the owner tells the others where it is), breadcrumbs dropped
# behind it.
growth_ok=1 check_scene "$scenes/breadcrumbs.yaml" 300
# Prey fleeing predators owned by other ranks (every rank indexes every predator): a flock
# crossed by predators riding up and down the strips (without the gather it differs from one
# process at 2, 3 and 4 ranks), and the hawks scene (its hawks reach the pigeons only after
# about 1,050 steps: a run that long takes 8 s at 4 ranks on 2 cores).
growth_ok=1 check_scene "$data/mpi/predators.yaml" 400
growth_ok=1 check_scene "$scenes/hawks.yaml" 300
# Congestion-aware destination fields from the agents per map cell summed over ranks; exits
# (agents arriving by migration where others left).
growth_ok=1 check_scene "$scenes/exits.yaml" 600
# Doors with flow limits: who passes in which step, decided in the replay over every rank.
growth_ok=1 check_scene "$data/mpi/door_limits.yaml" 2400
# Squads (members gathered from every rank, the same update on every rank): two squads march
# across every strip, re-plan after a block and a broken wall and squeeze past each other
# through a gap; a third loses its members one by one at an exit. The flood: a squad re-plans
# as the cost of its road rises and falls, among fleeing pedestrians and a bunker.
check_scene "$data/mpi/squads_cross.yaml" 2400
# Agents' own goals travel with their agents from strip to strip; walls re-plan them; goals given
# at a time are made by the owner.
growth_ok=1 check_scene "$data/mpi/own_goals.yaml" 2400
growth_ok=1 check_scene "$scenes/squads.yaml" 900
growth_ok=1 check_scene "$scenes/flood.yaml" 3000
# Buildings: levels, stairs and an elevator. The stacked scene draws its storeys one above the
# other, so each stair's two sides and the elevator's two stops lie in different strips: walkers
# look across a seam into rows another rank owns (without those rows a rank reads rows it does
# not hold), and riders board on one rank and step out on another (without the candidates
# gathered from every rank the car runs differently on each). The office and the tower draw
# their storeys side by side; the office is 7 grid rows of 1 m high, too few for 4 ranks (two
# rows a strip), which it refuses and check_scene reports as a skip.
growth_ok=1 check_scene "$data/mpi/building_stacked.yaml" 1800
growth_ok=1 check_scene "$data/mpi/building_stacked.yaml" 600 --validate
# Thirty wait for a car of three, most of the world: the strips' borders run through them, and
# how long each has waited travels with it (without it, some give up twice or never).
growth_ok=1 check_scene "$data/mpi/elevator_wait.yaml" 2400
# Three stacked storeys, flights climbing east and west, a collective car with three stops.
growth_ok=1 check_scene "$data/mpi/storeys_east_west.yaml" 2000
growth_ok=1 check_scene "$scenes/office.yaml" 600
growth_ok=1 check_scene "$scenes/tower.yaml" 1500

# Validation inside every step over ranks: bodies, walls, shelters (evac); bunkers filling,
# buried agents and a spawner reusing freed ids (every id alive held by exactly one rank).
check_scene evac 90 --agents 1500 --validate
growth_ok=1 check_scene "$data/mpi/shelter_full.yaml" 400 --validate

# broken SCENE STEPS: a violation --validate finds: one process names it on stderr and exits 1;
# under R = 1..4 ranks (1 and 2 threads) the run stops (no rank left waiting), the violation is
# printed once, by rank 0, with one process's text, and the exit status is 1.
broken() {
    local scene=$1 steps=$2 ref rc=0
    ref=$("$bin" run "$scene" --headless --steps "$steps" --threads 1 --validate 2>&1 >/dev/null) ||
        rc=$?
    if [ "$rc" != 1 ] || [ "$(echo "$ref" | grep -c 'invariant broken')" != 1 ]; then
        fail "$scene: one process should report one broken invariant and exit 1 (rc $rc)" "under mpirun"
        return
    fi
    for T in 1 2; do
        for R in 1 2 3 4; do
            local out
            rc=0
            out=$(timeout 60 mpirun --oversubscribe --bind-to none -np "$R" "$bin" run "$scene" \
                --headless --steps "$steps" --threads "$T" --rebalance 16 --validate 2>&1) || rc=$?
            if [ "$rc" != 1 ]; then
                fail "$scene -np $R --threads $T: exit $rc, one process 1" "under mpirun"
                echo "$out" | tail -3
            elif [ "$(echo "$out" | grep -c 'invariant broken')" != 1 ]; then
                fail "$scene -np $R --threads $T: the violation is not printed once" "under mpirun"
            elif [ "$(echo "$out" | grep 'invariant broken')" != "$ref" ]; then
                fail "$scene -np $R --threads $T" \
                    "'$(echo "$out" | grep 'invariant broken')', one process '$ref'"
            else
                pass "$scene -np $R --threads $T: $ref"
            fi
        done
    done
}
broken "$data/mpi/squeeze.yaml" 20
broken "$data/mpi/squeeze_top.yaml" 20
# Foraging: pheromone marks from every rank on replicated grids, pickups from sources that a
# strip border cuts through replayed in global storage order, food running out under
# contention (the narrow scene at once, the library colony's southern source by 40 s), drops
# at the nest.
check_scene "$data/mpi/forage_border.yaml" 600
check_scene "$scenes/ants.yaml" 2400

# same_report SCENE STEPS R [options...]: under R ranks the report (counts, bunkers, history,
# spawners; not times nor the ranks' own lines) and any --measure table equal one process's.
same_report() {
    local scene=$1 steps=$2 R=$3
    shift 3
    local dir
    dir=$(mktemp -d "$tmp/report.XXXXXX")
    local strip='^(wall|speed|phases|run|ranks|exchange|throng run: warning)'
    "$bin" run "$scene" --headless --steps "$steps" --threads 1 --no-progress "$@" \
        ${measure:+--measure "$dir/one.csv"} 2>&1 | grep -vE "$strip" >"$dir/one.txt"
    timeout 120 mpirun --oversubscribe --bind-to none -np "$R" "$bin" run "$scene" --headless \
        --steps "$steps" --threads 2 --no-progress --rebalance 16 "$@" \
        ${measure:+--measure "$dir/ranks.csv"} 2>&1 | grep -vE "$strip" >"$dir/ranks.txt" || true
    if ! cmp -s "$dir/one.txt" "$dir/ranks.txt"; then
        fail "$scene -np $R: the report differs from one process's:" "under mpirun"
        diff "$dir/one.txt" "$dir/ranks.txt" | head -10
    elif [ -n "${measure:-}" ] && ! cmp -s "$dir/one.csv" "$dir/ranks.csv"; then
        fail "$scene -np $R: the --measure table differs from one process's" "under mpirun"
    else
        pass "$scene -np $R: the same report${measure:+ and measurement table}"
    fi
    rm -rf "$dir"
}
same_report "$data/mpi/shelter_full.yaml" 400 3
measure=1 same_report "$scenes/validation/rimea10_routes.yaml" 600 4
same_report "$scenes/ants.yaml" 2400 3
# Agents per level, per stair (on it, crossings each way) and the elevator's trips, riders and
# waiting mid-run.
same_report "$data/mpi/building_stacked.yaml" 850 3
same_report "$data/mpi/building_stacked.yaml" 850 4
# Stalled walkers by the stairs: their count, longest time and box are one process's (stall
# state travels with its walker; the stalled ids are gathered from every rank).
same_report "$data/mpi/storeys_east_west.yaml" 300 4
# Queuing against stalling across strip borders (each ghost's standing and goal lent by its
# owner between the judgement's passes) and the stall figures over the run: a slow door queue
# and a clog that dissolves, their stalls and queuing lines one process's.
same_report "$data/stall_door_queue.yaml" 2400 3
same_report "$data/stall_jam.yaml" 2400 2

# The colonies of --json (food delivered, carried, taken, lost, left at each source) under
# several ranks: those of one process.
tmpj=$tmp/json
mkdir -p "$tmpj"
"$bin" run "$data/mpi/forage_border.yaml" --headless --steps 600 --threads 1 \
    --json "$tmpj/one.json" >/dev/null
for R in 2 4; do
    mpi "$R" "$bin" run "$data/mpi/forage_border.yaml" --headless --steps 600 --threads 2 \
        --json "$tmpj/ranks.json" >/dev/null
    one=$(grep '"delivered"' "$tmpj/one.json")
    if [ -z "$one" ] || [ "$one" != "$(grep '"delivered"' "$tmpj/ranks.json")" ]; then
        fail "--json colonies under $R ranks differ from one process's:" "under mpirun"
        diff <(echo "$one") <(grep '"delivered"' "$tmpj/ranks.json") || true
    else
        pass "--json colonies under $R ranks: one process's"
    fi
done

refused "$data/mpi/flock_small.yaml" "needs --headless"
refused "$data/mpi/thin.yaml" "4 ranks need at least 8" --headless -np-4
refused "$data/mpi/flock_small.yaml" "--screenshot" --headless --screenshot /tmp/x.png
refused "$data/mpi/own_exit.yaml" "an agent's own exit is not supported over several MPI ranks" --headless

# One report, from rank 0, in the form of one process: every line but the timings and the two
# lines on the ranks is the same as without mpirun (counts and averages summed over ranks).
strip() { grep -v '^wall\|^speed\|^phases\|^ranks\|^exchange'; }
for R in 1 3; do
    one=$("$bin" run "$data/mpi/city_boids.yaml" --headless --steps 60 --threads 1 | strip)
    under=$(mpi "$R" "$bin" run "$data/mpi/city_boids.yaml" --headless --steps 60 --threads 1 | strip)
    if [ "$one" != "$under" ]; then
        fail "mpirun -np $R prints a different report:" "under mpirun"
        diff <(echo "$one") <(echo "$under") || true
    else
        pass "mpirun -np $R prints the report of one process"
    fi
done

# Trajectories: rank 0 writes every rank's agents; the file is byte for byte one process's.
"$bin" run "$data/mpi/city_boids.yaml" --headless --steps 40 --threads 1 \
    --trajectories "$tmp/one.csv" --trajectory-every 10 >/dev/null
mpi 3 "$bin" run "$data/mpi/city_boids.yaml" --headless --steps 40 --threads 1 \
    --trajectories "$tmp/three.csv" --trajectory-every 10 >/dev/null
if ! cmp -s "$tmp/one.csv" "$tmp/three.csv" || [ "$(wc -l <"$tmp/one.csv")" -lt 2000 ]; then
    fail "--trajectories under 3 ranks differs from one process's file" "under mpirun"
else
    pass "--trajectories under 3 ranks: the file of one process"
fi
# A building's trajectories carry each agent's level: the same file under 3 ranks, riders and
# walkers across seams included.
"$bin" run "$data/mpi/building_stacked.yaml" --headless --steps 900 --threads 1 \
    --trajectories "$tmp/b1.csv" --trajectory-every 10 >/dev/null
mpi 3 "$bin" run "$data/mpi/building_stacked.yaml" --headless --steps 900 --threads 2 \
    --trajectories "$tmp/b3.csv" --trajectory-every 10 >/dev/null
if ! cmp -s "$tmp/b1.csv" "$tmp/b3.csv" || ! head -1 "$tmp/b1.csv" | grep -q ',level$'; then
    fail "a building's --trajectories under 3 ranks differs from one process's file" "under mpirun"
else
    pass "a building's --trajectories (with levels) under 3 ranks: the file of one process"
fi

# Ranks that loaded different scenes (or one scene under different options) are refused
# before the first step, where they would make different collective calls and wait for each
# other for ever (a spawner's rate), or run to inconsistent counts (the seed): every rank says
# how its world differs from rank 0's, and the exit status is 2, a usage error, as for the
# other refusals. The same scene at another path is the same world. Rank 0 runs the first
# command line, rank 1 the second (mpirun's MPMD form); each is `throng run` plus its words.
two_ranks() {
    local first=$1 second=$2
    # shellcheck disable=SC2086 # each line is split into its words on purpose
    timeout 60 mpirun --oversubscribe --bind-to none -np 1 "$bin" run --headless --steps 40 \
        --threads 1 $first : -np 1 "$bin" run --headless --steps 40 --threads 1 $second 2>&1
}
# differ FIRST SECOND TEXT: refused with exit 2, TEXT on both ranks' stderr, no report.
differ() {
    local out rc=0
    out=$(two_ranks "$1" "$2") || rc=$?
    if [ "$rc" != 2 ]; then
        fail "'$1' and '$2' on two ranks: exit $rc, expected 2 (124: a hang)" "under mpirun"
        echo "$out" | tail -3
    elif [ "$(echo "$out" | grep -cF -- "$3")" != 2 ] ||
        ! echo "$out" | grep -qF 'throng run: rank 1 of 2: '; then
        fail "'$1' and '$2' on two ranks: expected '$3' from each rank:" "under mpirun"
        echo "$out" | grep -v '^-\|^ *$' | head -4
    elif echo "$out" | grep -q '^hash '; then
        fail "'$1' and '$2' on two ranks: refused, yet a report was printed" "under mpirun"
    else
        pass "refused on two ranks: '$1' and '$2': $3"
    fi
}
tmpd=$(mktemp -d)
cp "$data/mpi/shelter_full.yaml" "$tmpd/a.yaml"
sed 's/rate: 30$/rate: 31/' "$tmpd/a.yaml" >"$tmpd/rate.yaml"
if cmp -s "$tmpd/a.yaml" "$tmpd/rate.yaml"; then
    fail "shelter_full.yaml has no spawner rate of 30 to change" "under mpirun"
fi
mkdir "$tmpd/copy"
cp "$tmpd/a.yaml" "$tmpd/copy/a.yaml"
differ "$tmpd/a.yaml" "$tmpd/rate.yaml" \
    "the MPI ranks built different worlds: rank 1's differs from rank 0's in its spawners"
differ "$tmpd/a.yaml --validate" "$tmpd/rate.yaml --validate" \
    "rank 1's differs from rank 0's in its spawners"
differ "$tmpd/a.yaml" "$tmpd/a.yaml --seed 6" \
    "rank 1's differs from rank 0's in its seed and its agents"
differ "$tmpd/a.yaml --seed 7" "$tmpd/copy/a.yaml --seed 8" "in its seed and its agents"
differ "$tmpd/a.yaml" "$tmpd/a.yaml --agents 300" "in its agents"
differ "$tmpd/a.yaml" "$tmpd/a.yaml --validate" \
    "the MPI ranks were given different options: rank 1's differ from rank 0's in --validate"
differ "$tmpd/a.yaml --steps 30" "$tmpd/a.yaml --fixed-steps" \
    "in --steps (or the scene's steps) and --fixed-steps"
differ "$tmpd/a.yaml --destroy-bunker west@10" "$tmpd/a.yaml --destroy-bunker west@11" \
    "in --destroy-bunker and --restore-bunker"
# Every part of a world is compared, buildings and agents' own goals among them: a stair's
# speed that differs, which alone would run on to a hash matching neither scene, is refused,
# named as the map (a flight's speed is its cells' walking speed).
cp "$scenes/tower.yaml" "$tmpd/tower.yaml"
sed 's/landing: \[42, 10\]}/landing: [42, 10], speed_up: 0.31}/' "$tmpd/tower.yaml" \
    >"$tmpd/stair.yaml"
if cmp -s "$tmpd/tower.yaml" "$tmpd/stair.yaml"; then
    fail "tower.yaml has no stair landing at [42, 10] to change" "under mpirun"
fi
differ "$tmpd/tower.yaml" "$tmpd/stair.yaml" \
    "the MPI ranks built different worlds: rank 1's differs from rank 0's in its map"
# An own goal given on one rank only: giving it is a collective call, which would wait for ever
# for a rank that makes none. The ranks compare the calls that gave own goals before it (and
# first when they compare their worlds): each stops, non-zero, and the message names the own
# goals.
{
    cat "$tmpd/tower.yaml"
    printf 'agent_goals:\n  - {agent: [ground, 0], point: [8.25, 8.75]}\n'
} >"$tmpd/own.yaml"
rc=0
out=$(two_ranks "$tmpd/own.yaml" "$tmpd/tower.yaml") || rc=$?
if [ "$rc" = 0 ] || [ "$rc" = 124 ] ||
    ! echo "$out" | grep -qF "rank 1's differs from rank 0's in" ||
    ! echo "$out" | grep -qF "its own goals"; then
    fail "an own goal on rank 0 only: exit $rc (124: a hang), expected non-zero naming own goals" "under mpirun"
    echo "$out" | grep -v '^-\|^ *$' | head -4
else
    pass "an own goal on rank 0 only: refused (exit $rc), naming its own goals"
fi
# A rank whose scene does not load stops before the others have compared anything (they wait
# in the world's creation): it stops every rank, with its exit code, and says which rank.
rc=0
out=$(two_ranks "$tmpd/a.yaml" "$tmpd/missing.yaml") || rc=$?
if [ "$rc" != 2 ] || ! echo "$out" | grep -q 'rank 1 of 2: stopped with exit code 2'; then
    fail "a scene that does not load on rank 1: exit $rc, expected 2 (124: a hang)" "under mpirun"
    echo "$out" | grep -v '^-\|^ *$' | head -3
else
    pass "a scene that does not load on rank 1: every rank stops, exit 2"
fi
# A file only rank 0 opens (the others write to /dev/null) that it cannot: rank 0 stops after
# the ranks compared their worlds, and stops the others, which would step on without it.
rc=0
out=$(timeout 60 mpirun --oversubscribe --bind-to none -np 2 "$bin" run \
    "$scenes/validation/rimea10_routes.yaml" --headless --steps 40 --threads 1 \
    --measure "$tmpd/nowhere/m.csv" 2>&1) || rc=$?
if [ "$rc" != 2 ] || ! echo "$out" | grep -q -- "--measure: cannot write"; then
    fail "--measure that rank 0 cannot write: exit $rc, expected 2 (124: a hang)" "under mpirun"
    echo "$out" | grep -v '^-\|^ *$' | head -3
else
    pass "--measure that rank 0 cannot write: every rank stops, exit 2"
fi
# The same scene copied to another path: accepted, with one process's hash.
ref=$("$bin" run "$tmpd/a.yaml" --headless --steps 40 --threads 1 | hash_of)
rc=0
out=$(two_ranks "$tmpd/a.yaml" "$tmpd/copy/a.yaml") || rc=$?
got=$(echo "$out" | hash_of)
if [ "$rc" != 0 ] || [ -z "$ref" ] || [ "$got" != "$ref" ]; then
    fail "one scene at two paths on two ranks: exit $rc, hash '$got', one process '$ref'" "under mpirun"
    echo "$out" | tail -3
else
    pass "one scene at two paths on two ranks: one process's hash $got"
fi
rm -rf "$tmpd"

finish
