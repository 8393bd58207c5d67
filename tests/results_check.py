#!/usr/bin/env python3
"""Check a `throng run --results DIR` folder against the run's JSON report, the scene's map and
the trajectories written at every step (`--trajectories`), recomputing each table on its own.

usage: results_check.py hall|tower|flock DIR REPORT.json SCENE.yaml TRAJECTORIES.csv

The definitions recomputed are those of docs/results.md: an occupant waits in a step that ends
after its pre-movement when it walks slower than 0.3 m/s; it started moving at the start of
the first such step at 0.3 m/s or faster; it left in the step after its last trajectory row.
Density: people in a cell of whole map cells at least 1 m wide and its eight neighbours, over
their walkable area, every 0.5 s from step 0; the mean over every sample, the highest of any.
"""
import csv
import json
import math
import os
import re
import struct
import sys
from collections import Counter, defaultdict

SLOW = 0.3
REACH = 5.0
LOS_END = [1 / 3.25, 1 / 2.32, 1 / 1.39, 1 / 0.93, 1 / 0.46]

errors = []


def check(ok, what):
    if not ok:
        errors.append(what)
    return ok


def close(a, b, tol):
    return abs(a - b) <= tol


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def parse_map(scene_path):
    """The scene's ascii map (rows top first) and cell size: (cells[y][x] open?, cs)."""
    text = open(scene_path).read()
    m = re.search(r"^\s*cell_size:\s*([0-9.]+)", text, re.M)
    if not m:
        return None, None
    cs = float(m.group(1))
    legend = re.search(r"legend:\s*\{(.*)\}\s*$", text, re.M).group(1)
    walls = set(re.findall(r"'(.)':\s*wall", legend))
    lines = text.splitlines()
    start = next(i for i, l in enumerate(lines) if re.match(r"^\s*ascii:\s*\|", l))
    rows = []
    indent = None
    for l in lines[start + 1:]:
        if not l.strip():
            break
        ind = len(l) - len(l.lstrip())
        if indent is None:
            indent = ind
        if ind < indent:
            break
        rows.append(l.strip())
    rows.reverse()  # row 0 at the south
    return [[c not in walls for c in row] for row in rows], cs


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


def check_queues(series, by_step, by_id, cells, cs, dt):
    """The hall's queues: agents past their pre-movement slower than 0.3 m/s, each counted at
    the nearest place within 5 m: exit east (the map's E cells), exit west (W), line door_e."""
    # The exits' cells: the map's open cells on its east and west edges.
    width = len(cells[0])
    east = [(width - 1, y) for y in range(len(cells)) if cells[y][width - 1]]
    west = [(0, y) for y in range(len(cells)) if cells[y][0]]

    def to_cells(p, cl):
        return min(math.hypot(max(x * cs - p[0], 0, p[0] - (x + 1) * cs),
                              max(y * cs - p[1], 0, p[1] - (y + 1) * cs)) for x, y in cl)

    def to_line(p):
        ax, ay, bx, by = 16.0, 0.5, 0.0, 3.5
        t = min(1.0, max(0.0, ((p[0] - ax) * bx + (p[1] - ay) * by) / (bx * bx + by * by)))
        return math.hypot(p[0] - ax - t * bx, p[1] - ay - t * by)

    places = [("exit", "east"), ("exit", "west"), ("line", "door_e")]
    for k in range(len(series[places[0]])):
        t = float(series[places[0]][k]["time_s"])
        step = round(t / dt)
        want = Counter()
        unsure = False
        for aid, r in by_step.get(step, []) if step > 0 else []:  # nobody waits before a step
            o = by_id[aid]
            if math.hypot(r[4], r[5]) >= SLOW or r[1] < float(o["added_s"]) + float(o["pre_movement_s"]) - 1e-6:
                continue
            d = [to_cells(r[2:4], east), to_cells(r[2:4], west), to_line(r[2:4])]
            best, at = REACH, None
            for i, di in enumerate(d):
                if di <= best:
                    best, at = di, i
            unsure |= any(abs(di - REACH) < 1e-4 for di in d)
            if at is not None:
                want[places[at]] += 1
        if unsure:
            continue
        for pl in places:
            got = int(series[pl][k]["queue"])
            check(got == want[pl], "%s %s at %.1f s: queue %d, trajectories give %d"
                  % (pl[0], pl[1], t, got, want[pl]))


def main():
    mode, folder, report, scene, traj_path = sys.argv[1:6]
    rep = json.load(open(report))
    dt = rep["run"]["timestep_s"]
    final_step = rep["run"]["steps"]
    levels = rep.get("levels") or []
    wrap = rep["scene"]["edges"] == "wrap"
    width, height = rep["scene"]["width_m"], rep["scene"]["height_m"]

    def short(d, size):  # across a seam of a wrap-around world, the short way round
        return d - size * round(d / size) if wrap else d
    cells, cs = parse_map(scene)

    # ---- files -------------------------------------------------------------------------------
    level_files = (["%d_%s" % (i + 1, re.sub(r"[^A-Za-z0-9_-]", "_", l["name"]))
                    for i, l in enumerate(levels)] if levels else ["map"])
    names = ["index.html", "flows.csv", "evacuation.csv", "evacuation.png", "occupants.csv"]
    for lf in level_files:
        names += ["density_%s.csv" % lf] + ["density_%s_%s.png" % (w, lf)
                                             for w in ("mean", "max", "los")]
    for n in names:
        p = os.path.join(folder, n)
        if not check(os.path.isfile(p), "missing " + n):
            continue
        if n.endswith(".png"):
            size = png_size(p)
            check(size is not None and size[0] >= 300 and size[1] >= 200,
                  "%s: not a PNG of a readable size (%s)" % (n, size))
    if errors:
        return

    # ---- trajectories: per agent, its rows in step order -------------------------------------
    rows = defaultdict(list)
    by_step = defaultdict(list)
    for r in read_csv(traj_path):
        step = int(r["step"])
        row = (step, float(r["time"]), float(r["x"]), float(r["y"]), float(r["vx"]),
               float(r["vy"]))
        rows[r["id"]].append(row)
        by_step[step].append((r["id"], row))
    for rs in rows.values():
        rs.sort()

    occ = read_csv(os.path.join(folder, "occupants.csv"))
    by_id = {o["id"]: o for o in occ}
    check(len(by_id) == len(occ), "occupants.csv: an id twice")
    check(set(by_id) == set(rows), "occupants.csv: ids differ from the trajectories' (%d vs %d)"
          % (len(by_id), len(rows)))

    for aid, rs in rows.items():
        o = by_id.get(aid)
        if o is None:
            continue
        first = rs[0]
        check(close(float(o["x0_m"]), first[2], 6e-4) and close(float(o["y0_m"]), first[3], 6e-4),
              "%s: x0, y0 %s %s, trajectory %s %s" % (aid, o["x0_m"], o["y0_m"], first[2], first[3]))
        check(close(float(o["added_s"]), first[1], 6e-4), "%s: added_s" % aid)
        dist = sum(math.hypot(short(b[2] - a[2], width), short(b[3] - a[3], height))
                   for a, b in zip(rs, rs[1:]))
        check(close(float(o["distance_m"]), dist, 2e-3 + 1e-5 * dist),
              "%s: distance %s, trajectory %.4f" % (aid, o["distance_m"], dist))
        start = first[1] + float(o["pre_movement_s"])
        waited = sum(1 for r in rs[1:] if r[1] > start + 1e-6 and math.hypot(r[4], r[5]) < SLOW)
        edge = sum(1 for r in rs[1:] if abs(r[1] - start) <= 1e-5)  # a float start on a step
        check(abs(float(o["queuing_s"]) - waited * dt) <= (edge + 0.01) * dt + 1e-3,
              "%s: queuing %s s, trajectory %.3f s" % (aid, o["queuing_s"], waited * dt))
        moved = next((r[1] - dt for r in rs[1:] if r[1] > start + 1e-6 and
                      math.hypot(r[4], r[5]) >= SLOW), None)
        if moved is None:
            check(o["moved_s"] == "" or edge > 0, "%s: moved_s %s, never moved" % (aid, o["moved_s"]))
        else:
            check(o["moved_s"] != "" and abs(float(o["moved_s"]) - moved) <= dt + 1e-3,
                  "%s: moved_s %s, trajectory %.3f" % (aid, o["moved_s"], moved))
        last = rs[-1]
        if last[0] == final_step:
            check(o["left_s"] == "" and o["state"] in ("in_world", "stalled", "stranded"),
                  "%s: still in the world, but left_s %s state %s" % (aid, o["left_s"], o["state"]))
        else:
            check(o["left_s"] != "" and close(float(o["left_s"]), last[1] + dt, 1e-3),
                  "%s: left_s %s, last row %.3f" % (aid, o["left_s"], last[1]))
            check(o["state"] == "left", "%s: state %s after leaving" % (aid, o["state"]))

    # ---- exits and bunkers: who left by which, and the counts over time ------------------------
    out_by = Counter(o["left_by"] for o in occ if o["state"] == "left")
    for e in rep.get("exits") or []:
        check(out_by.get(e["name"], 0) == e["exited"],
              "exit %s: %d left by it in occupants.csv, %d in the report"
              % (e["name"], out_by.get(e["name"], 0), e["exited"]))
    for b in rep.get("bunkers") or []:
        check(out_by.get(b["name"], 0) == b["sheltered"],
              "bunker %s: %d in occupants.csv, %d in the report"
              % (b["name"], out_by.get(b["name"], 0), b["sheltered"]))

    flows = read_csv(os.path.join(folder, "flows.csv"))
    series = defaultdict(list)
    for f in flows:
        series[(f["kind"], f["name"])].append(f)
    for (kind, name), fs in series.items():
        times = [float(f["time_s"]) for f in fs]
        counts = [int(f["count"]) for f in fs]
        check(times == sorted(times) and times[0] == 0.0, "%s %s: rows out of order" % (kind, name))
        for k, f in enumerate(fs):
            t = times[k]
            if kind in ("exit", "bunker"):
                n = sum(1 for o in occ if o["left_by"] == name and o["left_kind"] == kind
                        and float(o["left_s"]) <= t + 1e-6)
                check(counts[k] == n, "%s %s at %.1f s: count %d, occupants out by then %d"
                      % (kind, name, t, counts[k], n))
            steps = [round(x / dt) for x in times]
            j = k
            while j > 0 and steps[k] - steps[j - 1] <= round(10.0 / dt):
                j -= 1
            if j == k and k > 0:
                j = k - 1
            flow = (counts[k] - counts[j]) / ((steps[k] - steps[j]) * dt) if k > 0 else 0.0
            check(close(float(f["flow_per_s"]), flow, 1e-3),
                  "%s %s at %.1f s: flow %s, counts give %.4f" % (kind, name, t, f["flow_per_s"], flow))
        end = counts[-1]
        if kind == "stair":
            st = next(s for s in rep["stairs"] if s["name"] == name)
            check(end == st["crossed_down"] - st["crossed_up"], "stair %s: net down %d vs report"
                  % (name, end))
        if kind == "exit":
            # An exit, or a bunker the scene calls one (the report lists it with the bunkers).
            final = [e["exited"] for e in rep.get("exits") or [] if e["name"] == name]
            final += [b["sheltered"] for b in rep.get("bunkers") or []
                      if b["name"] == name and b.get("exit")]
            check(len(final) == 1 and end == final[0], "exit %s: final count" % name)

    if mode == "hall":
        check_queues(series, by_step, by_id, cells, cs, dt)

    evac = read_csv(os.path.join(folder, "evacuation.csv"))
    for e in evac:
        t = float(e["time_s"])
        step = round(t / dt)
        n_out = sum(1 for o in occ if o["state"] == "left" and float(o["left_s"]) <= t + 1e-6)
        check(int(e["out"]) == n_out, "evacuation at %.1f s: out %s, occupants %d" % (t, e["out"], n_out))
        check(int(e["in_world"]) == len(by_step.get(step, [])),
              "evacuation at %.1f s: in_world %s, trajectory rows %d"
              % (t, e["in_world"], len(by_step.get(step, []))))
    check(round(float(evac[-1]["time_s"]) / dt) == final_step, "evacuation.csv: no row at the end")

    # ---- the page: evacuation times as the report gives them ---------------------------------
    page = open(os.path.join(folder, "index.html"), encoding="utf-8").read()
    check(page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>"), "index.html: not whole")
    oc = rep.get("outcome") or {}
    ex = rep.get("exited") or {}
    keys = ("exited_50_s", "exited_90_s", "exited_100_s") if rep.get("exits") else \
        ("sheltered_50_s", "sheltered_90_s", "sheltered_100_s")
    src = ex if rep.get("exits") else oc
    for key, word in zip(keys, ("50%", "90%", "all")):
        v = src.get(key)
        if v is None:
            check("%s not within the run" % word in page, "index.html: %s should be missing" % word)
            continue
        got = re.search(r"%s (\d+\.\d) s" % word, page)
        check(got is not None and abs(float(got.group(1)) - v) <= 0.0501,
              "index.html: %s %s, the report %.2f s" % (word, got and got.group(1), v))
    for n in names:
        if n != "index.html":
            check(('"%s"' % n) in page, "index.html: does not link %s" % n)

    # ---- density --------------------------------------------------------------------------------
    every = max(1, round(0.5 / dt))
    if cells is None:  # no map: the world in 1 m cells, all open
        w, h = rep["scene"]["width_m"], rep["scene"]["height_m"]
        cs = 1.0
        cells = [[True] * math.ceil(w) for _ in range(math.ceil(h))]
    m = max(1, math.ceil(1.0 / cs - 1e-4))
    dcell = m * cs
    rects = ([tuple(l["cells"]) for l in levels] if levels
             else [(0, 0, len(cells[0]) - 1, len(cells) - 1)])
    samples = [s for s in range(final_step + 1) if s % every == 0]
    for li, (x0, y0, x1, y1) in enumerate(rects):
        cols, nrows = (x1 - x0 + m) // m, (y1 - y0 + m) // m
        open_area = [[0.0] * cols for _ in range(nrows)]
        for y in range(y0, y1 + 1):
            for x in range(x0, x1 + 1):
                if cells[y][x]:
                    open_area[(y - y0) // m][(x - x0) // m] += cs * cs
        total = [[0.0] * cols for _ in range(nrows)]
        peak = [[0.0] * cols for _ in range(nrows)]
        for s in samples:
            count = [[0] * cols for _ in range(nrows)]
            for _, r in by_step.get(s, []):
                x, y = math.floor(r[2] / cs), math.floor(r[3] / cs)
                inside = [i for i, (a, b, c, d) in enumerate(rects) if a <= x <= c and b <= y <= d]
                if inside and inside[0] == li:
                    count[(y - y0) // m][(x - x0) // m] += 1
            for cy in range(nrows):
                for cx in range(cols):
                    n = a = 0.0
                    for yy in range(max(0, cy - 1), min(nrows, cy + 2)):
                        for xx in range(max(0, cx - 1), min(cols, cx + 2)):
                            n += count[yy][xx]
                            a += open_area[yy][xx]
                    d = n / a if a > 0 else 0.0
                    total[cy][cx] += d
                    peak[cy][cx] = max(peak[cy][cx], d)
        table = read_csv(os.path.join(folder, "density_%s.csv" % level_files[li]))
        got = {}
        for t in table:
            cx = round((float(t["x_m"]) - x0 * cs) / dcell - 0.5)
            cy = round((float(t["y_m"]) - y0 * cs) / dcell - 0.5)
            got[(cx, cy)] = t
        want = {(cx, cy) for cy in range(nrows) for cx in range(cols)
                if open_area[cy][cx] >= 0.25 * dcell * dcell - 1e-9 and peak[cy][cx] > 0}
        check(set(got) == want, "density %s: %d cells listed, %d walkable enough and visited"
              % (level_files[li], len(got), len(want)))
        busiest = 0.0
        for (cx, cy), t in got.items():
            mean = total[cy][cx] / len(samples)
            mx = peak[cy][cx]
            busiest = max(busiest, mx)
            check(close(float(t["mean_density"]), mean, 2e-3) and close(float(t["max_density"]), mx, 2e-3),
                  "density %s cell %d,%d: %s / %s, recomputed %.4f / %.4f"
                  % (level_files[li], cx, cy, t["mean_density"], t["max_density"], mean, mx))
            if all(abs(mx - e) > 2e-3 for e in LOS_END):
                los = "ABCDEF"[sum(1 for e in LOS_END if mx >= e)]
                check(t["los"] == los, "density %s cell %d,%d: los %s for %.3f /m2"
                      % (level_files[li], cx, cy, t["los"], mx))
        check(busiest > 0.2, "density %s: nobody anywhere (%.3f)" % (level_files[li], busiest))


if __name__ == "__main__":
    main()
    if errors:
        for e in errors[:40]:
            print("results_check:", e, file=sys.stderr)
        print("results_check: %d problem(s)" % len(errors), file=sys.stderr)
        sys.exit(1)
    print("results_check: ok")
