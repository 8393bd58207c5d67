#!/usr/bin/env bash
# Flows that must not gridlock, through the command line: counter-flow in corridors 2, 3 and
# 4 m wide, a 90-degree and a four-way crossing, and 100 walkers leaving a room by doors 0.5 to
# 2.4 m wide at map cells of 0.05 to 0.5 m. Each case is a scene written by
# tests/gridlock_cases.py (its criteria and their derivation are there and in
# docs/pedestrians.md), run as
#
#   throng run SCENE --headless --validate --threads 1 --seed S --json J --measure M
#
# and judged from J and M: everyone arrived within the bound, the lane order in the corridor's
# middle (counter-flow), the flow between the 10th and the 90th out rising with the door's
# width (sweep), no overlap beyond the validation bound (--validate stops the run, exit 1), and
# for counter-flow the same state hash at 2 threads. A table of the measured values closes the
# output.
#
# usage: test_gridlock_cli.sh path/to/throng [--quick] [CASE...]
#   --quick   one small case per family (the sanitizer builds)
#   CASE...   only these (names from `tests/gridlock_cases.py list`), e.g.
#             bash tests/test_gridlock_cli.sh build/release/throng cf_w4_p50_r2_s1
set -u
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/case_suite.sh"

run_case_suite "$(cd "$(dirname "$0")" && pwd)/gridlock_cases.py" "$@"
finish
