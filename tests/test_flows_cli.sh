#!/usr/bin/env bash
# Flows real crowds keep up, through the command line: counter-flow between two halls through
# corridors 2 and 3 m wide (balanced, a minority, and the one-way run of as many walkers), a
# door with one walker coming in against a hundred going out, one door drawn four ways (a thin
# wall, a 0.3 m wall, a 2 m bottleneck, the exit itself) at map cells of 0.05 to 0.5 m, a
# T-junction and a corner. Each case is a scene written by tests/flow_cases.py (its criteria
# and their derivation are there and in docs/pedestrians.md), run as
#
#   throng run SCENE --headless --validate --threads 1 --seed S --json J --measure M
#
# and judged from J and M: everyone out within the bound, nobody stalled at the end, no overlap
# beyond the validation bound (--validate stops the run, exit 1); then across cases: counter-flow
# at least 70 % of the one-way flow and a minority no dearer than a balanced split, the door's
# outflow losing at most 15 % to the walker coming in, one door's flow the same within 15 % over
# its short drawings (thin wall, 0.3 m wall, the exit itself), cells and seeds where it is at
# least two cells wide, and a 2 m long bottleneck carrying 75 to 110 % of the thin-wall door's
# flow. A table of the measured values closes the output.
#
# usage: test_flows_cli.sh path/to/throng [--quick] [CASE...]
#   --quick   one small case per family (the sanitizer builds)
#   CASE...   only these (names from `tests/flow_cases.py list`)
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/case_suite.sh"

run_case_suite "$(cd "$(dirname "$0")" && pwd)/flow_cases.py" "$@"
finish
