#!/usr/bin/env python3
"""Scenes and criteria of the flows that must not gridlock (tests/test_gridlock_cli.sh).

    gridlock_cases.py list [--quick]    the case names, one a line
    gridlock_cases.py scene CASE        the case's scene (YAML) on stdout
    and the other commands of tests/case_suite.py (prepare, judge, args, check).

Across cases, the door sweep: flow against width per cell size, monotone within 5 %.

Cases (derivations in docs/pedestrians.md, "Flows that must not gridlock"):
  cf_w{2,3,4}_p{50,70}_r{1,2}_s{SEED}  counter-flow in a 50 m corridor, W m wide, P % walking
                                       east, R persons/m2 over the occupied 20 m x W m
  cross90_s{SEED}, cross4_s{SEED}      a 90-degree crossing (two crowds) and a four-way one
                                       (four crowds) of 4 m corridors at 1 person/m2
  door_b{WIDTH_CM}_c{CELL_CM}_s{SEED}  100 walkers leave an 8 m x 8 m room by one door

The committed scenes scenes/validation/counterflow_corridor.yaml, crossing_90.yaml,
crossing_4way.yaml and door_sweep.yaml are cf_w4_p50_r2, cross90, cross4 and door_b100_c10.
A door's flow differs by about 10 % from seed to seed: the sweep compares each width's mean
over the seeds run.
"""
import csv
import json
import math
import re
import sys

import case_suite

DT = 1.0 / 60.0
DOOR_CASE = re.compile(r"door_b(\d+)_c(\d+)(?:_s\d+)?")  # door width and cell size, cm
V_SLOW = 1.34 - 2 * 0.26  # slowest free speed drawn (mean - 2 sd), m/s
FACTOR = 1.25             # start-up, overtaking and sidesteps on top of free walking
J_COUNTER = 1.0           # persons/(m s) through a counter-flow: a floor below Weidmann's 1.22
J_CROSS = 1.0             # persons/(m s) through a crossing's square
J_DOOR = 0.5              # persons/(m s): a quarter of measured door flows, "no deadlock"
LANE_THRESHOLD = 0.8      # lane order in the middle area (random mixes: 0.55-0.78 mean)
LANE_MIN_DENSITY = 0.75   # rows of the middle area counted for the lane order: this dense,
LANE_MIN_EACH = 3         # with at least this many walking each way

CELLS = (5, 10, 20, 50)  # cm
WIDTHS = (50, 60, 80, 100, 120, 160, 200, 240)  # cm
SEEDS_FULL = (1, 2, 3)


def cases(quick):
    if quick:  # sanitizer builds: one small case per family
        return ["cf_w2_p50_r1_s1", "cross90_s1", "door_b100_c20_s1", "door_b120_c20_s1"]
    out = []
    for w in (2, 3, 4):
        for p in (50, 70):
            for r in (1, 2):
                for s in SEEDS_FULL:
                    out.append(f"cf_w{w}_p{p}_r{r}_s{s}")
    for s in SEEDS_FULL:
        out += [f"cross90_s{s}", f"cross4_s{s}"]
    for c in CELLS:
        for b in WIDTHS:
            if b % c == 0:
                out += [f"door_b{b}_c{c}_s{s}" for s in SEEDS_FULL]
    return out


# ---- counter-flow ----------------------------------------------------------------------------

def counterflow(w, p, r):
    """Corridor 50 m x w m (cell 0.5 m): west goal column x in [0, 0.5), walkway [0.5, 50.5),
    east goal column [50.5, 51). East-walkers fill [1, 1 + 20 p) at the west end, west-walkers
    [50 - 20 (1 - p), 50) at the east end, both at r persons/m2."""
    rows = int(w / 0.5)
    walk = "W" + "." * 100 + "E"
    grid = ["#" * 102] + [walk] * rows + ["#" * 102]
    le = 20.0 * p / 100.0
    lw = 20.0 - le
    ne = round(r * w * le)
    nw = round(r * w * lw)
    y0, h = 0.5 + 0.25, w - 0.5
    bound = FACTOR * 49.5 / V_SLOW + (ne + nw) / (J_COUNTER * w)
    head = (f"# Counter-flow: {ne} people walk east and {nw} west through a corridor {w} m wide and\n"
            f"# 50 m long, each crowd to the far end, where it leaves (`exit: true`). They start\n"
            f"# at {r} persons/m2 over the 20 m x {w} m they occupy ({p} % of it at the west end).\n"
            f"# Criterion: everyone has left by {bound:.0f} s = 1.25 x 49.5 m / 0.82 m/s (the\n"
            f"# farthest walker at the slowest free speed drawn) + N / (1.0 persons/(m s) x {w} m),\n"
            f"# a floor below Weidmann's 1.22 persons/(m s) (bidirectional streams reach less than\n"
            f"# one-way ones: Zhang & Seyfried 2013); the lane\n"
            f"# order (Rex & Loewen 2007) in the middle 10 m averages {LANE_THRESHOLD} or more while\n"
            f"# the flows pass each other there;\n"
            f"# no overlap beyond the --validate bound; the same hash at 1 and 2 threads.\n"
            f"# tests/test_gridlock_cli.sh runs it (docs/pedestrians.md).\n")
    return head, grid, [
        ("east", ne, [1.0, y0, le - 0.5, h], "E"),
        ("west", nw, [50.0 - lw + 0.5, y0, lw - 0.5, h], "W"),
    ], bound, {"areas": [f"{{name: middle, rect: [20.5, 0.5, 10, {w}], lanes: {{axis: x, length: 6}}}}"]}


# ---- crossings -------------------------------------------------------------------------------

def crossing(four):
    """Two 4 m corridors 31 m long crossing at right angles in their middles (cell 0.5 m); goal
    rows and columns at the arms' ends. Each crowd: 40 people (1 person/m2) in the first 10 m of
    its arm, walking to the opposite end."""
    n = 62
    g = [["#"] * n for _ in range(n)]
    lo, hi = 27, 35  # cells of the 4 m arms: [13.5, 17.5) m
    for i in range(n):
        for j in range(lo, hi):
            g[j][i] = "."  # east-west arm (row j from the bottom)
            g[i][j] = "."  # north-south arm
    for j in range(lo, hi):
        g[j][0], g[j][n - 1] = "W", "E"
        g[0][j], g[n - 1][j] = "S", "N"
    grid = ["".join(g[n - 1 - k]) for k in range(n)]  # ascii: the top row is the north
    y0, h = 13.75, 3.5
    crowds = [("east", 40, [1.0, y0, 10, h], "E"), ("north", 40, [y0, 1.0, h, 10], "N")]
    if four:
        crowds += [("west", 40, [20.0, y0, 10, h], "W"), ("south", 40, [y0, 20.0, h, 10], "S")]
    total = sum(c[1] for c in crowds)
    bound = FACTOR * 30.0 / V_SLOW + total / (J_CROSS * 4.0)
    kind = "four crowds (east, west, north, south)" if four else "two crowds (east and north)"
    head = (f"# Crossing: {kind} of 40 people each, 1 person/m2 over the first 10 m of their\n"
            f"# arm, cross the square where two corridors 4 m wide meet, each to the far end of\n"
            f"# its own corridor, where it leaves. Criterion: everyone has left by {bound:.0f} s =\n"
            f"# 1.25 x 30 m / 0.82 m/s + N / (1.0 persons/(m s) x 4 m): every walker passes\n"
            f"# the 4 m square, taken as a bottleneck of 1.0 persons/(m s), below Weidmann's 1.22.\n"
            f"# tests/test_gridlock_cli.sh runs it (docs/pedestrians.md).\n")
    return head, grid, crowds, bound, {"areas": ["{name: square, rect: [13.5, 13.5, 4, 4]}"]}


# ---- door sweep ------------------------------------------------------------------------------

def door(b_cm, c_cm):
    """World 14 m x 10 m, every edge a whole number of cells: room x in [1, 9), y in [1, 9);
    door through the 1 m wall x in [9, 10), y in [y0, y0 + b), y0 the multiple of the cell at
    or below 5 - b/2; yard x in [10, 13.5), y in [0.5, 9.5); exit x in [13.5, 14)."""
    c = c_cm / 100.0
    b = b_cm / 100.0
    nx, ny = round(14.0 / c), round(10.0 / c)
    k = lambda v: round(v / c)
    y0c = (round(500 - b_cm / 2) // c_cm) * c_cm / 100.0
    g = [["#"] * nx for _ in range(ny)]
    for j in range(k(1), k(9)):
        for i in range(k(1), k(9)):
            g[j][i] = "."
    for j in range(k(y0c), k(y0c) + k(b)):
        for i in range(k(9), k(10)):
            g[j][i] = "."
    for j in range(k(0.5), k(9.5)):
        for i in range(k(10), k(13.5)):
            g[j][i] = "."
        for i in range(k(13.5), nx):
            g[j][i] = "E"  # to the world's edge: a body can stand with its centre in it
    grid = ["".join(g[ny - 1 - j]) for j in range(ny)]
    bound = 20.0 + 100 / (J_DOOR * b)
    head = (f"# Door-width sweep: 100 people (bodies of 0.2 m) leave a room 8 m x 8 m through one\n"
            f"# door {b:g} m wide in a 1 m wall (map cells of {c:g} m: every edge on a cell edge)\n"
            f"# and walk 3.5 m to the exit. Criterion: everyone has left by {bound:.0f} s = 20 s +\n"
            f"# 100 / ({J_DOOR} persons/(m s) x {b:g} m), a quarter of measured door flows (no\n"
            f"# permanent deadlock); over the sweep, the flow between the 10th and the 90th out\n"
            f"# rises with the width (Seyfried et al. 2009; Liao et al. 2014).\n"
            f"# tests/test_gridlock_cli.sh runs it (docs/pedestrians.md).\n")
    crowds = [("occupants", 100, [1.25, 1.25, 7.5, 7.5], None)]
    meas = {"lines": [f"{{name: door, from: [10, {y0c:g}], to: [10, {y0c + b:g}]}}"]}
    return head, grid, crowds, bound, meas, c


def build(case):
    m = re.fullmatch(r"cf_w(\d)_p(\d+)_r(\d)(?:_s(\d+))?", case)
    cell = 0.5
    if m:
        head, grid, crowds, bound, meas = counterflow(int(m[1]), int(m[2]), int(m[3]))
    elif re.fullmatch(r"cross(90|4)(?:_s\d+)?", case):
        head, grid, crowds, bound, meas = crossing(case.startswith("cross4"))
    elif (m := DOOR_CASE.fullmatch(case)):
        b, c = int(m[1]), int(m[2])
        if b % c or c not in CELLS or b not in WIDTHS:
            sys.exit(f"{case}: the door is not a whole number of cells")
        head, grid, crowds, bound, meas, cell = door(b, c)
    else:
        sys.exit(f"unknown case {case}")
    return head, grid, crowds, bound, meas, cell


def seed_of(case):
    m = re.search(r"_s(\d+)$", case)
    return int(m[1]) if m else 1


def scene(case):
    head, grid, crowds, bound, meas, cell = build(case)
    steps = math.ceil(bound / DT)
    legend = "{'#': wall, '.': open, 'E': open, 'W': open, 'N': open, 'S': open}"
    if case.startswith("door"):
        legend = "{'#': wall, '.': open, 'E': {bunker: exit}}"
    out = [head.rstrip("\n"), f"name: {case}", f"seed: {seed_of(case)}",
           f"steps: {steps}            # {bound:.1f} s: the bound", "map:",
           f"  cell_size: {cell:g}", f"  legend: {legend}", "  ascii: |"]
    out += ["    " + row for row in grid]
    out.append("crowds:")
    for name, n, rect, goal in crowds:
        out += [f"  - name: {name}", "    model: pedestrian", f"    count: {n}",
                f"    spawn: {{rect: [{', '.join(f'{v:g}' for v in rect)}]}}"]
        if goal:
            out += [f"    goal: {{destinations: [{{legend: {goal}}}], exit: true}}"]
        else:
            out += ["    behavior: flee"]
    out.append("measure:")
    for key, items in meas.items():
        out.append(f"  {key}:")
        out += [f"    - {it}" for it in items]
    return "\n".join(out) + "\n"


def check(case, jpath, cpath):
    head, grid, crowds, bound, meas, cell = build(case)
    total = sum(c[1] for c in crowds)
    rep = json.load(open(jpath))
    rows = list(csv.DictReader(open(cpath)))
    fails = []
    vals = {"case": case, "n": total, "bound_s": round(bound, 1)}
    if case.startswith("door"):
        left = rep["outcome"]["sheltered"]
        t_all = rep["outcome"]["sheltered_100_s"]
        # flow between the 10th and the 90th through the door line
        t10 = t90 = None
        for r in rows:
            c = int(r["door_crossed"])
            if t10 is None and c >= 10: t10 = float(r["time"])
            if t90 is None and c >= 90: t90 = float(r["time"])
        flow = 80.0 / (t90 - t10) if t10 is not None and t90 is not None and t90 > t10 else None
        vals.update(left=left, all_out_s=t_all, flow=None if flow is None else round(flow, 3))
        if left != total: fails.append(f"{total - left} of {total} still inside")
    else:
        left = rep["exited"]["agents"]
        t_all = rep["exited"]["exited_100_s"]
        vals.update(left=left, all_out_s=t_all)
        if left != total: fails.append(f"{total - left} of {total} did not arrive")
        if case.startswith("cf"):
            # rows where the flows meet: both directions in the area, at a density where a
            # random mix reads well below the threshold
            vals_l = [float(r["middle_lanes"]) for r in rows
                      if float(r["middle_density"]) >= LANE_MIN_DENSITY and r["middle_lanes"] != "nan"
                      and min(int(r["middle_lanes_forward"]), int(r["middle_lanes_backward"])) >= LANE_MIN_EACH]
            lanes = sum(vals_l) / len(vals_l) if vals_l else float("nan")
            vals.update(lanes=round(lanes, 3), lane_rows=len(vals_l))
            if not lanes >= LANE_THRESHOLD:
                fails.append(f"lane order {lanes:.3f} < {LANE_THRESHOLD}")
    if t_all is not None and t_all > bound: fails.append(f"all out at {t_all} s > {bound:.1f} s")
    vals["verdict"] = "ok" if not fails else "FAIL: " + "; ".join(fails)
    print(json.dumps(vals))
    return 0 if not fails else 1


def sweep(path):
    """Flow against width for each cell size, each width's flow the mean over its seeds (None
    when a run had none): each at least 0.95 x the one before."""
    res = [json.loads(l) for l in open(path) if l.startswith("{")]
    bad = compared = 0
    for c in CELLS:
        runs = {}
        for r in res:
            m = DOOR_CASE.fullmatch(r["case"])
            if m and int(m[2]) == c: runs.setdefault(int(m[1]), []).append(r["flow"])
        pts = sorted((b, None if None in fs else round(sum(fs) / len(fs), 3))
                     for b, fs in runs.items())
        if len(pts) < 2: continue
        line = " ".join(f"{b / 100:g}:{'-' if f is None else f}" for b, f in pts)
        ok = all(f1 is not None and f0 is not None and f1 >= 0.95 * f0
                 for (_, f0), (_, f1) in zip(pts, pts[1:]))
        print(f"cell {c / 100:g} m: {line} persons/s -> {'monotone' if ok else 'NOT monotone'}")
        bad += not ok
        compared += 1
    return 1 if bad else 0 if compared else 2  # 2: no cell size had two widths


ACROSS = ("door flow rises with the width", sweep)
TABLE = ("bound and times in s, flow in persons/s, lanes: mean lane order in the middle",
         ["case", "n", "left", "bound_s", "all_out_s", "flow", "lanes", "verdict"])


def twice(case):
    """Counter-flow also runs at 2 threads: the same state hash."""
    return case.startswith("cf_")


if __name__ == "__main__":
    case_suite.main(sys.modules[__name__])
