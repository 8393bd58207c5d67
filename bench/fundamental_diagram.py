#!/usr/bin/env python3
"""Fundamental diagram: mean speed against density, measured with `throng run --measure`,
next to Weidmann (1993): v(rho) = 1.34 (1 - exp(-1.913 (1/rho - 1/5.4))) m/s.

Each run's measurement table is read, samples before the warm-up are dropped, and the area's
density and mean speed are averaged over the rest (speed over the samples where the area held
someone). One row per run is printed and written to a CSV; with gnuplot installed a PNG is
drawn too (otherwise the script says so and skips it).

Two ways to choose the runs:
  fundamental_diagram.py SCENE...                    each scene as written
  fundamental_diagram.py --densities 0.5,1,2 --spawn-area A SCENE
        one scene at several densities: its randomly spawned crowds are scaled (throng run
        --agents) to round(rho * A) agents, A being the area they spawn over in m^2 (for a
        periodic corridor, its walkable area)

Every scene needs a `measure:` area (the first one is used, or --area NAME). RiMEA test 4's
periodic corridor (walkway 20 m x 3 m), from the repository root after building:
  bench/fundamental_diagram.py --densities 0.25,0.5,1,1.5,2,2.5,3,3.5,4,4.5,5 \\
      --spawn-area 60 --warmup 20 scenes/validation/rimea4_corridor.yaml
bench/fundamental_diagram.yaml is the same set-up with boids, a flocking model: they show no
such relation.
"""
import argparse
import csv
import math
import os
import shutil
import subprocess
import sys
import tempfile


def weidmann(rho):
    """Weidmann 1993 speed in m/s; 1.34 at rho -> 0, 0 from the jam density 5.4 on."""
    if rho <= 0.0:
        return 1.34
    if rho >= 5.4:
        return 0.0
    return 1.34 * (1.0 - math.exp(-1.913 * (1.0 / rho - 1.0 / 5.4)))


def default_throng():
    here = os.path.dirname(os.path.abspath(__file__))
    for rel in ("../build/release/throng", "../build/throng"):
        p = os.path.normpath(os.path.join(here, rel))
        if os.access(p, os.X_OK):
            return p
    return shutil.which("throng") or "throng"


def run_one(args, scene, agents, table):
    cmd = [args.throng, "run", scene, "--headless", "--measure", table,
           "--measure-every", str(args.every)]
    if args.steps is not None:
        cmd += ["--steps", str(args.steps)]
    if args.threads is not None:
        cmd += ["--threads", str(args.threads)]
    if args.seed is not None:
        cmd += ["--seed", str(args.seed)]
    if agents is not None:
        cmd += ["--agents", str(agents)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("fundamental_diagram: %s failed (exit %d):\n%s" %
                 (" ".join(cmd), r.returncode, r.stderr.strip()))


def summarise(table, area, warmup):
    with open(table, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit("fundamental_diagram: %s has no rows" % table)
    areas = [c[:-len("_count")] for c in rows[0] if c.endswith("_count")]
    if not areas:
        sys.exit("fundamental_diagram: the scene measures no area (add measure: areas:)")
    name = area or areas[0]
    if name not in areas:
        sys.exit("fundamental_diagram: no area '%s' (the scene has: %s)" % (name, ", ".join(areas)))
    kept = [r for r in rows if float(r["time"]) >= warmup]
    if not kept:
        sys.exit("fundamental_diagram: no sample after the %g s warm-up (last at %s s): "
                 "run longer (--steps) or warm up less" % (warmup, rows[-1]["time"]))
    dens = [float(r[name + "_density"]) for r in kept]
    speeds = [float(r[name + "_speed"]) for r in kept if r[name + "_speed"] != "nan"]
    rho = sum(dens) / len(dens)
    sd_rho = math.sqrt(sum((d - rho) ** 2 for d in dens) / len(dens))
    v = sum(speeds) / len(speeds) if speeds else float("nan")
    sd_v = math.sqrt(sum((s - v) ** 2 for s in speeds) / len(speeds)) if speeds else float("nan")
    return name, len(kept), rho, sd_rho, v, sd_v, float(kept[-1]["time"])


def plot(out_csv, png):
    if not shutil.which("gnuplot"):
        print("fundamental_diagram: gnuplot is not installed: no PNG (the CSV has the numbers)")
        return
    script = """
set terminal pngcairo size 900,600
set output '%s'
set datafile separator ','
set key top right
set xlabel 'density (persons/m^2)'
set ylabel 'mean speed (m/s)'
set xrange [0:5.6]
set yrange [0:1.6]
w(r) = r <= 0 ? 1.34 : (r >= 5.4 ? 0 : 1.34 * (1 - exp(-1.913 * (1 / r - 1 / 5.4))))
plot w(x) title 'Weidmann 1993' with lines lw 2, \\
     '%s' skip 1 using 4:6:5:7 with xyerrorbars title 'throng' pt 7
""" % (png, out_csv)
    r = subprocess.run(["gnuplot"], input=script, capture_output=True, text=True)
    if r.returncode != 0:
        print("fundamental_diagram: gnuplot failed, no PNG:\n" + r.stderr.strip())
    else:
        print("plot      " + png)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                epilog=__doc__[__doc__.index("Each run"):],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scenes", nargs="+", metavar="SCENE")
    p.add_argument("--densities", help="comma-separated persons/m^2 (one scene)")
    p.add_argument("--spawn-area", type=float, help="m^2 the crowds spawn over (with --densities)")
    p.add_argument("--area", help="measurement area to use (default: the scene's first)")
    p.add_argument("--warmup", type=float, default=10.0, help="seconds dropped (default 10)")
    p.add_argument("--steps", type=int, help="steps per run (default: the scene's)")
    p.add_argument("--every", type=int, default=1, help="sample every N steps (default 1)")
    p.add_argument("--threads", type=int)
    p.add_argument("--seed", type=int, help="random seed (default: the scene's)")
    p.add_argument("--throng", default=default_throng(), help="the throng binary")
    p.add_argument("--out", default="fundamental_diagram.csv", help="CSV to write")
    p.add_argument("--png", help="PNG to draw with gnuplot (default: the CSV's name .png)")
    args = p.parse_args()

    runs = []  # (scene, agents or None, label)
    if args.densities:
        if len(args.scenes) != 1 or not args.spawn_area or args.spawn_area <= 0:
            p.error("--densities needs one SCENE and a positive --spawn-area")
        try:
            rhos = [float(x) for x in args.densities.split(",")]
        except ValueError:
            p.error("--densities: expected numbers like 0.5,1,2")
        for rho in rhos:
            n = round(rho * args.spawn_area)
            if rho <= 0 or n < 1:
                p.error("--densities: %g persons/m^2 over %g m^2 is no agent" % (rho, args.spawn_area))
            runs.append((args.scenes[0], n, "%s %g/m2" % (os.path.basename(args.scenes[0])[:20], rho)))
    else:
        runs = [(s, None, os.path.basename(s)) for s in args.scenes]

    print("%-30s %6s %8s %7s %8s %7s %9s %8s" %
          ("run", "agents", "rho", "sd", "v", "sd", "Weidmann", "v/W-1"))
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (scene, agents, label) in enumerate(runs):
            table = os.path.join(tmp, "m%d.csv" % i)
            run_one(args, scene, agents, table)
            area, n, rho, sd_rho, v, sd_v, t_end = summarise(table, args.area, args.warmup)
            vw = weidmann(rho)
            dev = v / vw - 1.0 if vw > 0 and not math.isnan(v) else float("nan")
            print("%-30s %6s %8.3f %7.3f %8.3f %7.3f %9.3f %+7.0f%%" %
                  (label[:30], agents if agents else "-", rho, sd_rho, v, sd_v, vw, 100 * dev))
            rows.append([scene, agents if agents else "", area, "%.6g" % rho, "%.6g" % sd_rho,
                         "%.6g" % v, "%.6g" % sd_v, "%.6g" % vw, "%.6g" % dev, n,
                         "%g" % args.warmup, "%g" % t_end])
    with open(args.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["scene", "agents", "area", "density", "density_sd", "speed", "speed_sd",
                    "weidmann_speed", "relative_deviation", "samples", "warmup_s", "end_s"])
        w.writerows(rows)
    print("csv       " + args.out)
    plot(args.out, args.png or os.path.splitext(args.out)[0] + ".png")


if __name__ == "__main__":
    main()
