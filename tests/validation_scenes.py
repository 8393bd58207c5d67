#!/usr/bin/env python3
"""The scenes of `throng validate` (docs/validation.md), written from their geometry.

    validation_scenes.py list              the file names, one a line
    validation_scenes.py scene NAME        one scene (YAML) on stdout
    validation_scenes.py write [DIR]       write every scene into DIR (default: the
                                           repository's scenes/validation/)

tests/test_validate_cli.sh runs `scene` for every name and compares the output with the
committed file, so the scenes cannot drift from this script. Standard library only.

Scenes (x to the east, y to the north, metres; every edge on a cell edge):

  bottleneck_bWWW.yaml   WWW = 050 ... 240 cm. A holding area 6 m deep x 10 m wide, 180 people
                         spawned over it, a bottleneck WWW cm wide and 0.5 m long through its
                         front wall (centred to the nearest cell), a yard 5 m deep over the full
                         height and an exit column (bunker `exit`) 0.5 m deep at its far edge.
                         Line `gate` across the bottleneck's far end. Cells of 0.1 m.
  counterflow_halls_bi.yaml, _uni.yaml, _300_50.yaml
                         Two halls 12 m x 16 m joined by a corridor 2 m wide and 10 m long;
                         200 + 200 walkers (one crowd in each hall, each to the far wall of the
                         other hall), 400 in the west hall alone, 300 against 50. Line `middle`
                         across the corridor's middle. Cells of 0.25 m.
  tjunction_240.yaml     A T-junction of corridors 2.4 m wide: two rooms 6 m x 8 m, 150 people
                         each, feed the branches (8 m long) from both sides; the main corridor
                         leaves the junction northward, 10 m to the exit. Areas `main` (2.4 m x
                         2 m, 1-3 m past the junction), `left` and `right` (in the branches).
                         Cells of 0.1 m.
  corner_240.yaml        A corridor 2.4 m wide with a 90-degree left turn: a room 8 m x 10 m,
                         250 people, the corridor 8 m east, the corner, 8 m north to the exit.
                         Areas `before` and `after` (2.4 m x 2 m, 1-3 m from the corner).
                         Cells of 0.1 m.
"""
import os
import sys

BOTTLENECK_WIDTHS_CM = (50, 60, 70, 80, 90, 100, 120, 160, 200, 240)
HEADER_NOTE = "# Written by tests/validation_scenes.py; `throng validate` runs it (docs/validation.md).\n"


class Grid:
    """A map of w x h cells of size c, all wall to begin with; rows are drawn north first."""

    def __init__(self, width_m, height_m, c):
        self.c = c
        self.nx, self.ny = self.k(width_m), self.k(height_m)
        self.g = [["#"] * self.nx for _ in range(self.ny)]

    def k(self, v):
        n = round(v / self.c)
        assert abs(n * self.c - v) < 1e-9, f"{v} m is not a whole number of {self.c} m cells"
        return n

    def fill(self, x0, y0, x1, y1, ch="."):
        """Cells of [x0, x1) x [y0, y1) (metres) become ch."""
        for j in range(self.k(y0), self.k(y1)):
            for i in range(self.k(x0), self.k(x1)):
                self.g[j][i] = ch

    def ascii(self):
        return ["".join(self.g[self.ny - 1 - j]) for j in range(self.ny)]


def num(v):
    return f"{round(v, 6):g}"


def rect(x, y, w, h):
    return "[" + ", ".join(num(v) for v in (x, y, w, h)) + "]"


def emit(head, name, seed, steps, cell, legend, grid, crowds, measure):
    out = [head.rstrip("\n"), HEADER_NOTE.rstrip("\n"), f"name: {name}", f"seed: {seed}",
           f"steps: {steps}", "map:", f"  cell_size: {num(cell)}", f"  legend: {legend}",
           "  ascii: |"]
    out += ["    " + row for row in grid.ascii()]
    out.append("crowds:")
    for c in crowds:
        out.append(f"  - name: {c['name']}")
        out.append("    model: pedestrian")
        out.append(f"    count: {c['count']}")
        out.append(f"    spawn: {{rect: {c['rect']}}}")
        out.append(f"    {c['goal']}")
    out.append("measure:")
    for key in ("areas", "lines"):
        if measure.get(key):
            out.append(f"  {key}:")
            out += [f"    - {item}" for item in measure[key]]
    return "\n".join(out) + "\n"


# ---- bottlenecks -----------------------------------------------------------------------------

def bottleneck(b_cm):
    c = 0.1
    b = b_cm / 100.0
    # x: wall [0, 0.5), holding area [0.5, 6.5), front wall and bottleneck [6.5, 7), yard
    # [7, 12), exit column [12, 12.5). y: wall [0, 0.5), open [0.5, 10.5), wall [10.5, 11).
    g = Grid(12.5, 11.0, c)
    g.fill(0.5, 0.5, 6.5, 10.5)
    y0 = (round(550 - b_cm / 2) // 10) * 10 / 100.0  # the cell edge at or below 5.5 - b / 2
    g.fill(6.5, y0, 7.0, y0 + b)
    g.fill(7.0, 0.5, 12.0, 10.5)
    g.fill(12.0, 0.5, 12.5, 10.5, "E")
    n = 180
    head = (f"# Bottleneck {b:g} m wide and 0.5 m long: {n} people start packed over a holding area\n"
            f"# 6 m deep x 10 m wide (3.1 persons/m2) directly in front of it, leave through it into\n"
            f"# a yard 5 m deep and walk to the exit column at the yard's far edge. The flow is\n"
            f"# counted at line `gate`, the bottleneck's far end: the crossings from the 10 % to the\n"
            f"# 90 % (the 18th to the 162nd) over the time between them, as in the bottleneck\n"
            f"# experiments of Kretz et al. 2006, Seyfried et al. 2009 and Liao et al. 2014.\n")
    crowds = [{"name": "occupants", "count": n, "rect": rect(0.6, 0.6, 5.8, 9.8),
               "goal": "behavior: flee"}]
    measure = {"areas": [f"{{name: front, rect: {rect(4.5, 5.5 - 1.0, 2.0, 2.0)}}}"],
               "lines": [f"{{name: gate, from: [7, {num(y0)}], to: [7, {num(y0 + b)}], window: 5}}"]}
    legend = "{'#': wall, '.': open, 'E': {bunker: exit}}"
    return emit(head, f"bottleneck {b:g} m", 1, 24000, c, legend, g, crowds, measure)


# ---- counterflow through a corridor between two halls ------------------------------------------

def counterflow(east, west):
    c = 0.25
    # x: wall [0, 0.5), hall A [0.5, 12.5) with goal column W [0.5, 1), corridor [12.5, 22.5),
    # hall B [22.5, 34.5) with goal column E [34, 34.5), wall [34.5, 35).
    # y: wall [0, 0.5), halls [0.5, 16.5), corridor [7.5, 9.5), wall [16.5, 17).
    g = Grid(35.0, 17.0, c)
    g.fill(0.5, 0.5, 12.5, 16.5)
    g.fill(12.5, 7.5, 22.5, 9.5)
    g.fill(22.5, 0.5, 34.5, 16.5)
    g.fill(0.5, 0.5, 1.0, 16.5, "W")
    g.fill(34.0, 0.5, 34.5, 16.5, "E")
    crowds = [{"name": "eastward", "count": east, "rect": rect(1.25, 0.75, 11.0, 15.5),
               "goal": "goal: {destinations: [{legend: E}], exit: true}"}]
    if west:
        crowds.append({"name": "westward", "count": west, "rect": rect(22.75, 0.75, 11.0, 15.5),
                       "goal": "goal: {destinations: [{legend: W}], exit: true}"})
    if west == 0:
        what = f"{east} walkers start in the west hall (unidirectional)"
    else:
        what = f"{east} walkers start in the west hall and {west} in the east hall"
    head = (f"# Counterflow between two halls 12 m x 16 m joined by a corridor 2 m wide and 10 m\n"
            f"# long: {what}; each walks to the far wall of the other hall,\n"
            f"# where it leaves (`exit: true`). The flow is counted at line `middle` across the\n"
            f"# corridor's middle, both directions, each walker once: the crossings from the 10 %\n"
            f"# to the 90 % over the time between them. `throng validate` compares the\n"
            f"# bidirectional flow with the unidirectional at the same demand (Zhang et al. 2012;\n"
            f"# Zhang & Seyfried 2013) and a minority against a balanced split (Feliciani,\n"
            f"# Murakami & Nishinari 2018).\n")
    measure = {"areas": ["{name: corridor, rect: [15.5, 7.5, 4, 2], lanes: {axis: x, length: 4}}"],
               "lines": ["{name: middle, from: [17.5, 7.5], to: [17.5, 9.5], window: 5}"]}
    legend = "{'#': wall, '.': open, 'E': open, 'W': open}"
    kind = "unidirectional" if west == 0 else f"{east} against {west}"
    return emit(head, f"counterflow halls {kind}", 1, 36000, c, legend, g, crowds, measure)


# ---- T-junction --------------------------------------------------------------------------------

def tjunction():
    c = 0.1
    # x: wall [0, 0.5), left room [0.5, 6.5), left branch [6.5, 14.5), junction [14.5, 16.9),
    # right branch [16.9, 24.9), right room [24.9, 30.9), wall [30.9, 31.4).
    # y: wall [0, 0.5), rooms [0.5, 8.5), branches [3.3, 5.7), main corridor [5.7, 15.7) over
    # the junction's x, exit row [15.7, 16.2) at the world's north edge.
    g = Grid(31.4, 16.2, c)
    g.fill(0.5, 0.5, 6.5, 8.5)
    g.fill(24.9, 0.5, 30.9, 8.5)
    g.fill(6.5, 3.3, 24.9, 5.7)
    g.fill(14.5, 5.7, 16.9, 15.7)
    g.fill(14.5, 15.7, 16.9, 16.2, "E")
    n = 150
    head = (f"# T-junction of corridors 2.4 m wide (Zhang et al. 2011/2012, runs ko-240-240-240):\n"
            f"# two crowds of {n} start in rooms 6 m x 8 m at the far ends of the branches (8 m\n"
            f"# long, entered over their full width), meet at the junction and merge into the main\n"
            f"# corridor northward, 10 m to the exit. Area `main` (2.4 m x 2 m, 1-3 m past the\n"
            f"# junction) gives the specific flow after the merge (density x speed), `left` and\n"
            f"# `right` (2 m x 2.4 m, 0.1-2.1 m and 1-3 m before it) that in the branches, as in the\n"
            f"# experiment's measurement areas; line `main_end` closes the main area.\n")
    crowds = [{"name": "left", "count": n, "rect": rect(0.6, 0.6, 5.8, 7.8), "goal": "behavior: flee"},
              {"name": "right", "count": n, "rect": rect(25.0, 0.6, 5.8, 7.8), "goal": "behavior: flee"}]
    measure = {"areas": [f"{{name: main, rect: {rect(14.5, 6.7, 2.4, 2.0)}}}",
                         f"{{name: left, rect: {rect(12.4, 3.3, 2.0, 2.4)}}}",
                         f"{{name: right, rect: {rect(17.9, 3.3, 2.0, 2.4)}}}"],
               "lines": ["{name: main_end, from: [16.9, 8.7], to: [14.5, 8.7], window: 5}"]}
    legend = "{'#': wall, '.': open, 'E': {bunker: exit}}"
    return emit(head, "t-junction 2.4 m", 1, 24000, c, legend, g, crowds, measure)


# ---- corner ------------------------------------------------------------------------------------

def corner():
    c = 0.1
    # x: wall [0, 0.5), room [0.5, 8.5), corridor east [8.5, 16.5), corner [16.5, 18.9), wall
    # [18.9, 19.4). y: wall [0, 0.5), room [0.5, 10.5), corridor east [4.3, 6.7), corridor
    # north [6.7, 14.7) over the corner's x, exit row [14.7, 15.2) at the world's north edge.
    g = Grid(19.4, 15.2, c)
    g.fill(0.5, 0.5, 8.5, 10.5)
    g.fill(8.5, 4.3, 18.9, 6.7)
    g.fill(16.5, 6.7, 18.9, 14.7)
    g.fill(16.5, 14.7, 18.9, 15.2, "E")
    n = 250
    head = (f"# A 90-degree corner of a corridor 2.4 m wide (Zhang et al., runs eo-240-240-240):\n"
            f"# {n} people start in a room 8 m x 10 m, enter the corridor over its full width, walk\n"
            f"# 8 m east, turn left and walk 8 m north to the exit. Areas `before` and `after`\n"
            f"# (2.4 m x 2 m, 1-3 m before and after the corner) give the specific flow (density x\n"
            f"# speed) on both sides; line `after_end` closes the after area.\n")
    crowds = [{"name": "walkers", "count": n, "rect": rect(0.6, 0.6, 7.8, 9.8), "goal": "behavior: flee"}]
    measure = {"areas": [f"{{name: before, rect: {rect(13.5, 4.3, 2.0, 2.4)}}}",
                         f"{{name: after, rect: {rect(16.5, 7.7, 2.4, 2.0)}}}"],
               "lines": ["{name: after_end, from: [18.9, 9.7], to: [16.5, 9.7], window: 5}"]}
    legend = "{'#': wall, '.': open, 'E': {bunker: exit}}"
    return emit(head, "corner 2.4 m", 1, 24000, c, legend, g, crowds, measure)


def scenes():
    out = {}
    for b in BOTTLENECK_WIDTHS_CM:
        out[f"bottleneck_b{b:03d}.yaml"] = lambda b=b: bottleneck(b)
    out["counterflow_halls_bi.yaml"] = lambda: counterflow(200, 200)
    out["counterflow_halls_uni.yaml"] = lambda: counterflow(400, 0)
    out["counterflow_halls_300_50.yaml"] = lambda: counterflow(300, 50)
    out["tjunction_240.yaml"] = tjunction
    out["corner_240.yaml"] = corner
    return out


if __name__ == "__main__":
    a = sys.argv[1:]
    all_scenes = scenes()
    if a[:1] == ["list"]:
        print("\n".join(all_scenes))
    elif a[:1] == ["scene"] and len(a) == 2 and a[1] in all_scenes:
        sys.stdout.write(all_scenes[a[1]]())
    elif a[:1] == ["write"] and len(a) <= 2:
        here = os.path.dirname(os.path.abspath(__file__))
        d = a[1] if len(a) == 2 else os.path.join(here, "..", "scenes", "validation")
        for name, make in all_scenes.items():
            with open(os.path.join(d, name), "w") as f:
                f.write(make())
    else:
        sys.exit(__doc__)
