#!/usr/bin/env python3
"""The fundamental diagram that `throng verify` measured (RiMEA test 4, ISO test 13), against
Weidmann (1993), as a PNG for docs/verification.md.

    throng verify --only rimea-4 --json verify.json
    bench/verify_plot.py verify.json docs/verification-fd.png

Reads the JSON's "fundamental_diagram" points (measured density, mean speed); draws them over
Weidmann's v(rho) = 1.34 (1 - exp(-1.913 (1/rho - 1/5.4))) m/s and the band the test accepts
(25 % or 0.1 m/s, whichever is looser). Needs matplotlib (Debian: python3-matplotlib).
"""
import json
import math
import sys


def weidmann(rho):
    if rho >= 5.4:
        return 0.0
    return 1.34 * (1.0 - math.exp(-1.913 * (1.0 / rho - 1.0 / 5.4)))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    points = json.load(open(sys.argv[1]))["fundamental_diagram"]
    if not points:
        sys.exit(f"{sys.argv[1]}: no fundamental diagram (run throng verify --only rimea-4)")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rho = [0.15 + 0.01 * i for i in range(526)]
    w = [weidmann(r) for r in rho]
    lo = [max(0.0, v - max(0.25 * v, 0.1)) for v in w]
    hi = [v + max(0.25 * v, 0.1) for v in w]
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=100)
    ax.fill_between(rho, lo, hi, color="#c8d8f0", label="accepted: 25 % or 0.1 m/s")
    ax.plot(rho, w, color="#2050a0", label="Weidmann (1993)")
    ax.plot([p["density"] for p in points], [p["speed"] for p in points], "o", color="#d04010",
            label="throng, periodic corridor (RiMEA 4)")
    ax.set_xlabel("density (persons/m²)")
    ax.set_ylabel("mean speed (m/s)")
    ax.set_xlim(0, 5.5)
    ax.set_ylim(0, 1.6)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(sys.argv[2])


if __name__ == "__main__":
    main()
