#!/usr/bin/env python3
"""Fundamental diagram of RiMEA test 4: walking speed against density, next to Weidmann.

RiMEA test 4 is a periodic corridor (20 m x 3 m between walls, scenes/validation/
rimea4_corridor.yaml) filled at a given density; the mean speed in a 2 m x 2 m area in its
middle, after a warm-up, is plotted against the density measured there, together with
Weidmann's (1993) relation v(rho) = 1.34 (1 - exp(-1.913 (1/rho - 1/5.4))) m/s. Each density
is one run: the scene's crowd scaled to round(rho x 60 m²) agents (throng.load(agents=...)),
sampled every half second through World.measure_area().

    python3 examples/python/fundamental_diagram.py                # 0.5 .. 4 persons/m²
    python3 examples/python/fundamental_diagram.py --densities 1,2,3 -o fd.png

Needs the throng package (pip install --no-build-isolation ./python) and matplotlib
(Debian: python3-matplotlib).
"""
import argparse
import math
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import throng  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENE = os.path.join(ROOT, "scenes", "validation", "rimea4_corridor.yaml")
WALKWAY_M2 = 60.0  # 20 m x 3 m


def weidmann(rho):
    """Weidmann 1993 speed in m/s; 1.34 at rho -> 0, 0 from the jam density 5.4 on."""
    rho = np.asarray(rho, dtype=np.float64)
    with np.errstate(divide="ignore"):
        v = 1.34 * (1.0 - np.exp(-1.913 * (1.0 / rho - 1.0 / 5.4)))
    return np.clip(np.where(rho > 0, v, 1.34), 0.0, None)


def measure(density, seed, threads, warmup, duration):
    """One run: (mean density, mean speed) in the centre area after the warm-up."""
    w = throng.load(SCENE, seed=seed, threads=threads, agents=round(density * WALKWAY_M2))
    every = max(1, round(0.5 / w.timestep))
    w.step(round(warmup / w.timestep))
    rho, speed = [], []
    for _ in range(round(duration / (every * w.timestep))):
        w.step(every)
        m = w.measure_area("centre")
        rho.append(m["density"])
        if m["count"]:
            speed.append(m["mean_speed"])
    return float(np.mean(rho)), float(np.mean(speed)) if speed else math.nan


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--densities", default="0.5,1,1.5,2,2.5,3,3.5,4",
                    help="persons per square metre, comma-separated")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--warmup", type=float, default=20.0, help="seconds before measuring")
    ap.add_argument("--duration", type=float, default=30.0, help="seconds measured")
    ap.add_argument("-o", "--output", default="fundamental_diagram.png")
    args = ap.parse_args()

    rows = []
    print(f"{'set':>6} {'density':>8} {'speed':>6} {'weidmann':>8}")
    for d in (float(x) for x in args.densities.split(",")):
        rho, v = measure(d, args.seed, args.threads, args.warmup, args.duration)
        rows.append((d, rho, v))
        print(f"{d:6.2f} {rho:8.3f} {v:6.3f} {float(weidmann(rho)):8.3f}")

    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=110)
    r = np.linspace(0.05, 5.4, 200)
    ax.plot(r, weidmann(r), color="black", lw=1, label="Weidmann (1993)")
    ax.plot([x[1] for x in rows], [x[2] for x in rows], "o", color="tab:blue",
            label="throng, RiMEA test 4 corridor")
    ax.set_xlabel("density (persons/m²)")
    ax.set_ylabel("mean speed (m/s)")
    ax.set_xlim(0, 5.5)
    ax.set_ylim(0, 1.6)
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title("Fundamental diagram: speed against density")
    fig.tight_layout()
    fig.savefig(args.output)
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
