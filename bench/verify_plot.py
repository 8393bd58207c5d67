#!/usr/bin/env python3
"""Plots of the verification tests (docs/verification.md), as PNGs.

    bench/verify_plot.py fd VERIFY.json OUT.png     the fundamental diagram (RiMEA 4, ISO 13)
    bench/verify_plot.py flow OUT.png               flow against width (ISO 12, IMO 4 / ISO 11)
    bench/verify_plot.py evacuation OUT.png         evacuation curves (RiMEA 9, IMO 9)
    bench/verify_plot.py premovement OUT.png        start times against their CDF (ISO 1, NIST 1.1)

The PNGs in docs/ are made with:

    throng verify --only rimea-4 --json verify.json
    bench/verify_plot.py fd verify.json docs/verification-fd.png
    bench/verify_plot.py flow docs/verification-flow.png
    bench/verify_plot.py evacuation docs/verification-evacuation.png
    bench/verify_plot.py premovement docs/verification-premovement.png

(`bench/verify_plot.py VERIFY.json OUT.png`, without `fd`, also draws the fundamental diagram.)

fd: reads the JSON's "fundamental_diagram" points (measured density, mean speed) that
`throng verify --json` writes; draws them over Weidmann's v(rho) = 1.34 (1 - exp(-1.913 (1/rho -
1/5.4))) m/s and the band the test accepts (25 % or 0.1 m/s, whichever is looser).

The other three run the scenes of scenes/verification/ with `throng run --headless --json
--trajectories` (into a temporary folder, removed afterwards) and read the agents' times from the
trajectories: an agent is out (sheltered in an exit bunker) from the first sampled step it is
missing in, and has started at the end of the first step over which it moved more than 0.1 mm,
less that step: the definitions `throng verify` (app/verify.c) uses.

flow: stair_flow_10, _15, _20 (a stair 1.0, 1.5, 2.0 m wide, 100 persons each), door_1m_free_050
(100 persons through a 1 m exit, no flow limit) and door_1m (the same exit limited to 1.33
persons/s, as IMO 4 is judged); the flow (N - 1) / (t_last - t_first) at the exit against the width,
with the 1.33 persons/(m s) of IMO's maximum flow, and the cumulative count out against time.
Every step is sampled. About 5 s on 2 cores.

evacuation: public_room (1000 persons, 30 m x 20 m) with its four exits, and with exits 1 and 2
closed before the first step (`--destroy-bunker exit1@0 --destroy-bunker exit2@0`, as throng
verify closes them); the number out against time, and the band [1.8, 2.2] x the four-exit time
the two-exit time must fall in. Sampled every 6 steps (0.1 s; the times "all out" in the legend
are the run report's, to the step). Under a minute on 2 cores.

premovement: premovement_population (1000 persons, pre_movement read from the scene: lognormal,
normal, uniform or Weibull, truncated to its min and max); the empirical CDF of the start times
against the distribution's CDF, computed here (the lognormal's with math.erf), the
Kolmogorov-Smirnov 5 % band F +- 1.358/sqrt(n), D and its p-value (Stephens' approximation, as
app/verify_stats.c), with the empirical CDF less F below it; and the histogram against the
density. Every step is sampled. About 15 s on 2 cores.

Options (anywhere on the line): --throng PATH (default build/release/throng of this
checkout, built with `cmake --build build/release --target throng_cli`), --threads N (default 2;
the results are the same for any count). Needs matplotlib (Debian: python3-matplotlib), and numpy
(python3-numpy) for premovement.
"""
import csv
import json
import math
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENES = os.path.join(ROOT, "scenes", "verification")
SIZE = (9.0, 6.0)  # inches, at 100 dpi: 900 x 600 pixels
DPI = 100


def weidmann(rho):
    if rho >= 5.4:
        return 0.0
    return 1.34 * (1.0 - math.exp(-1.913 * (1.0 / rho - 1.0 / 5.4)))


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def save(fig, out):
    fig.tight_layout()
    fig.savefig(out, dpi=DPI)
    print(f"wrote {out}")


# ---- the fundamental diagram, from throng verify --json ----------------------------------------

def plot_fd(verify_json, out):
    points = json.load(open(verify_json))["fundamental_diagram"]
    if not points:
        sys.exit(f"{verify_json}: no fundamental diagram (run throng verify --only rimea-4)")
    plt = pyplot()
    rho = [0.15 + 0.01 * i for i in range(526)]
    w = [weidmann(r) for r in rho]
    lo = [max(0.0, v - max(0.25 * v, 0.1)) for v in w]
    hi = [v + max(0.25 * v, 0.1) for v in w]
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=DPI)
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
    fig.savefig(out)


# ---- running throng -----------------------------------------------------------------------------

class Run:
    """One `throng run` of a scene: its JSON report and, per agent, when it started and left."""

    def __init__(self, opts, scene, every=1, extra=()):
        self.scene = scene
        with tempfile.TemporaryDirectory(prefix="verify_plot.") as tmp:
            js, traj = os.path.join(tmp, "run.json"), os.path.join(tmp, "traj.csv")
            cmd = [opts["throng"], "run", os.path.join(SCENES, scene + ".yaml"), "--headless",
                   "--no-progress", "--threads", str(opts["threads"]), "--json", js,
                   "--trajectories", traj, "--trajectory-every", str(every), *extra]
            print("running", " ".join(cmd[1:]), file=sys.stderr, flush=True)
            done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if done.returncode != 0:
                sys.exit(f"{' '.join(cmd)}: exit {done.returncode}\n{done.stderr}")
            self.report = json.load(open(js))
            self.dt = self.report["run"]["timestep_s"]
            self.end = self.report["run"]["simulated_s"]
            self.sample = every * self.dt
            self._read(traj)

    def _read(self, path):
        first, last, moved = {}, {}, {}
        with open(path, newline="") as f:
            for row in csv.DictReader(f):  # buildings add columns (level) after these
                t, i, x, y = float(row["time"]), row["id"], row["x"], row["y"]
                if i not in first:
                    first[i] = (t, float(x), float(y))
                elif i not in moved:
                    _, x0, y0 = first[i]
                    if math.hypot(float(x) - x0, float(y) - y0) > 1e-4:
                        moved[i] = t
                last[i] = t
        self.n = len(first)
        # Out: in the first sampled step an agent is missing in (exact when every step is
        # sampled; within one sample after otherwise, and never after the run's end).
        # Agents in the last sample are still in unless the report has everyone sheltered.
        final = max(last.values())
        everyone = self.report["outcome"]["sheltered"] == self.n
        self.out = sorted(min(t + self.sample, self.end) for t in last.values()
                          if everyone or t < final - 0.5 * self.dt)
        # Started: the end of the first step moved, less the step; an agent that left in the
        # step after its last sample without being seen to move is counted as moved when it left.
        self.start = []
        for i, (t0, _, _) in first.items():
            if i in moved:
                self.start.append(moved[i] - self.dt)
            elif everyone or last[i] < final - 0.5 * self.dt:
                self.start.append(min(last[i] + self.sample, self.end) - self.dt)
        self.start.sort()

    def flow(self):
        t = self.out
        return (len(t) - 1) / (t[-1] - t[0]) if len(t) > 1 and t[-1] > t[0] else float("nan")


def staircase(times):
    """x, y of the count of times up to x, for a step plot."""
    return [0.0] + list(times), list(range(len(times) + 1))


# ---- flow against width (ISO 12; IMO 4, ISO 11, NIST 5.2) -----------------------------------------

def plot_flow(opts, out):
    plt = pyplot()
    stairs = [(1.0, Run(opts, "stair_flow_10")), (1.5, Run(opts, "stair_flow_15")),
              (2.0, Run(opts, "stair_flow_20"))]
    door = Run(opts, "door_1m_free_050")
    limited = Run(opts, "door_1m")
    for w, r in stairs:
        print(f"stair {w:.1f} m: {len(r.out)} of {r.n} out, flow {r.flow():.3f} persons/s, "
              f"specific {r.flow() / w:.3f} persons/(m s), last out {r.out[-1]:.1f} s")
    for name, r in (("door 1.0 m", door), ("door 1.0 m, max_flow 1.33", limited)):
        print(f"{name}: {len(r.out)} of {r.n} out, flow {r.flow():.3f} persons/s, "
              f"last out {r.out[-1]:.1f} s")

    fig, (a1, a2) = plt.subplots(1, 2, figsize=SIZE, dpi=DPI,
                                 gridspec_kw={"width_ratios": [1, 1.15]})
    ws = [w for w, _ in stairs]
    a1.plot([0, 2.2], [0, 1.33 * 2.2], "--", color="#808080",
            label="1.33 persons/(m s): IMO maximum\n(IMO 4, ISO 11, NIST 5.2 ask ≤ this at 1 m)")
    a1.plot(ws, [r.flow() for _, r in stairs], "o-", color="#2050a0",
            label="stair, speed x 0.5 (ISO 12)")
    a1.plot([1.0], [door.flow()], "s", color="#d04010", ms=8, label="exit of an 8 m x 5 m room")
    a1.plot([1.0], [limited.flow()], "v", color="#808080", ms=8,
            label="the same, max_flow 1.33 (IMO 4 as judged)")
    for w, r in stairs:
        a1.annotate(f"{r.flow():.2f}", (w, r.flow()), textcoords="offset points", xytext=(8, -12))
    a1.annotate(f"{door.flow():.2f}", (1.0, door.flow()), textcoords="offset points",
                xytext=(8, 2))
    a1.set_xlim(0, 2.2)
    a1.set_ylim(0, 2.6)
    a1.set_xlabel("width of the stair or exit (m)")
    a1.set_ylabel("flow (persons/s), (N - 1) / (t_last - t_first)")
    a1.set_title("flow against width")
    a1.grid(alpha=0.3)
    a1.legend(loc="lower right", fontsize=8.5)

    colours = ["#9ab8e0", "#4a78c0", "#183c80"]
    for (w, r), c in zip(stairs, colours):
        x, y = staircase(r.out)
        a2.step(x, y, where="post", color=c, label=f"stair {w:.1f} m: {r.flow():.2f} persons/s")
    x, y = staircase(door.out)
    a2.step(x, y, where="post", color="#d04010", label=f"door 1.0 m: {door.flow():.2f} persons/s")
    x, y = staircase(limited.out)
    a2.step(x, y, where="post", color="#808080",
            label=f"door 1.0 m, max_flow 1.33: {limited.flow():.2f} persons/s")
    a2.set_xlim(0, None)
    a2.set_ylim(0, 105)
    a2.set_xlabel("time (s)")
    a2.set_ylabel("persons out (of 100)")
    a2.set_title("persons out at the top of the stair / the exit")
    a2.grid(alpha=0.3)
    a2.legend(loc="lower right", fontsize=8.5)
    fig.suptitle("ISO 20414 test 12 (stair flow rates) and IMO 4 / ISO 11 / NIST 5.2 "
                 "(1 m exit): 100 persons each")
    save(fig, out)


# ---- evacuation curves (RiMEA 9, IMO 9) -----------------------------------------------------------

def plot_evacuation(opts, out):
    plt = pyplot()
    four = Run(opts, "public_room", every=6)
    two = Run(opts, "public_room", every=6,
              extra=("--destroy-bunker", "exit1@0", "--destroy-bunker", "exit2@0"))
    t4 = four.report["outcome"]["sheltered_100_s"]
    t2 = two.report["outcome"]["sheltered_100_s"]
    for name, r in (("4 exits", four), ("2 exits", two)):
        o = r.report["outcome"]
        print(f"{name}: {len(r.out)} of {r.n} out; 50 % by {o['sheltered_50_s']:.1f} s, "
              f"90 % by {o['sheltered_90_s']:.1f} s, all by {o['sheltered_100_s']:.1f} s; "
              f"mean flow {r.flow():.2f} persons/s")
    print(f"ratio {t2 / t4:.3f}")

    fig, ax = plt.subplots(figsize=SIZE, dpi=DPI)
    ax.axvspan(1.8 * t4, 2.2 * t4, color="#c8d8f0",
               label=f"accepted for 2 exits:\n1.8-2.2 x {t4:.1f} s")
    for r, t, c, name in ((four, t4, "#2050a0", "4 exits"), (two, t2, "#d04010", "exits 1 and 2 closed")):
        x, y = staircase(r.out)
        ax.step(x, y, where="post", color=c,
                label=f"{name}: all {len(r.out)} out by {t:.1f} s\n(mean flow {r.flow():.2f} persons/s)")
        ax.axvline(t, color=c, lw=0.8, ls=":")
    ax.text(2.0 * t4, 500, f"{t2:.1f} s / {t4:.1f} s\n= {t2 / t4:.2f}", ha="center")
    ax.set_xlim(0, 1.05 * max(2.2 * t4, t2))
    ax.set_ylim(0, 1050)
    ax.set_xlabel("time (s)")
    ax.set_ylabel("persons out (of 1000)")
    ax.set_title("RiMEA test 9 / IMO test 9: 1000 persons leave a 30 m x 20 m room by four 1 m "
                 "exits, then two")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower left", bbox_to_anchor=(0.45, 0.01), fontsize=9)
    save(fig, out)


# ---- start times against the assigned distribution (ISO 1, NIST 1.1) ------------------------------

def normal_cdf(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def distribution(scene):
    """(name, F, f, lo, hi) of the scene's pre_movement: its CDF and density, truncated."""
    text = open(os.path.join(SCENES, scene + ".yaml")).read()
    m = re.search(r"^\s*pre_movement:\s*\{(.*)\}\s*$", text, re.M)
    if not m:
        sys.exit(f"{scene}: no pre_movement mapping")
    spec = m.group(1)
    kind = re.match(r"\s*(\w+):\s*\[\s*([-\d.eE+]+)\s*,\s*([-\d.eE+]+)\s*\]", spec)
    if not kind:
        sys.exit(f"{scene}: pre_movement {{{spec}}}: expected a distribution with two parameters")
    name, a, b = kind.group(1), float(kind.group(2)), float(kind.group(3))
    lo = re.search(r"\bmin:\s*([-\d.eE+]+)", spec)
    hi = re.search(r"\bmax:\s*([-\d.eE+]+)", spec)
    lo = float(lo.group(1)) if lo else 0.0
    hi = float(hi.group(1)) if hi else math.inf
    if name == "lognormal":  # ln t ~ N(a, b)
        F = lambda t: normal_cdf((math.log(t) - a) / b) if t > 0 else 0.0
        f = lambda t: (math.exp(-0.5 * ((math.log(t) - a) / b) ** 2) / (t * b * math.sqrt(2 * math.pi))
                       if t > 0 else 0.0)
        label = f"lognormal, ln t ~ N({a:g}, {b:g})"
    elif name == "normal":
        F = lambda t: normal_cdf((t - a) / b)
        f = lambda t: math.exp(-0.5 * ((t - a) / b) ** 2) / (b * math.sqrt(2 * math.pi))
        label = f"normal N({a:g} s, {b:g} s)"
    elif name == "uniform":
        F = lambda t: min(1.0, max(0.0, (t - a) / (b - a)))
        f = lambda t: 1.0 / (b - a) if a <= t <= b else 0.0
        label = f"uniform on [{a:g}, {b:g}] s"
    elif name == "weibull":  # shape a, scale b
        F = lambda t: 1.0 - math.exp(-((t / b) ** a)) if t > 0 else 0.0
        f = lambda t: (a / b) * (t / b) ** (a - 1) * math.exp(-((t / b) ** a)) if t > 0 else 0.0
        label = f"Weibull, shape {a:g}, scale {b:g} s"
    else:
        sys.exit(f"{scene}: pre_movement {name}: only lognormal, normal, uniform, weibull are drawn")
    Flo, Fhi = F(lo), (F(hi) if math.isfinite(hi) else 1.0)
    if lo > 0.0 or math.isfinite(hi):
        label += f", truncated to [{lo:g}, {hi:g}] s"

    def Ft(t):
        return 0.0 if t < lo else 1.0 if t >= hi else (F(t) - Flo) / (Fhi - Flo)

    def ft(t):
        return f(t) / (Fhi - Flo) if lo <= t <= hi else 0.0

    return label, Ft, ft, lo, hi


def ks(sample, F):
    """The one-sample Kolmogorov-Smirnov D of a sorted sample and its p-value (Stephens 1970)."""
    n = len(sample)
    d = max(max((i + 1) / n - F(x), F(x) - i / n) for i, x in enumerate(sample))
    lam = (math.sqrt(n) + 0.12 + 0.11 / math.sqrt(n)) * d
    p = 2.0 * sum((-1) ** (j - 1) * math.exp(-2.0 * j * j * lam * lam) for j in range(1, 101))
    return d, min(1.0, max(0.0, p))


def plot_premovement(opts, out):
    import numpy as np
    plt = pyplot()
    scene = "premovement_population"
    label, F, f, lo, hi = distribution(scene)
    r = Run(opts, scene)
    t = r.start
    n = len(t)
    d, p = ks(t, F)
    band = 1.358 / math.sqrt(n)  # the 5 % critical value of D, large n
    pm = r.report["pre_movement"]
    print(f"{n} of {r.n} started; times {t[0]:.2f}-{t[-1]:.2f} s, mean {sum(t) / n:.2f} s; "
          f"KS D {d:.4f}, p {p:.2f} (5 % critical D {band:.4f})")
    if pm:
        print("throng's pre_movement report:", json.dumps(pm))
    tmax = math.ceil(min(hi, 1.15 * t[-1]) / 10.0) * 10.0
    grid = np.linspace(max(lo, 1e-6), tmax, 600)
    cdf = np.array([F(x) for x in grid])

    fig = plt.figure(figsize=SIZE, dpi=DPI)
    gs = fig.add_gridspec(2, 2, height_ratios=[2.6, 1])
    a1, a3, a2 = fig.add_subplot(gs[0, 0]), fig.add_subplot(gs[1, 0]), fig.add_subplot(gs[:, 1])
    a1.fill_between(grid, np.clip(cdf - band, 0, 1), np.clip(cdf + band, 0, 1), color="#c8d8f0",
                    label=f"KS 5 % band: F ± {band:.3f}")
    a1.plot(grid, cdf, color="#2050a0", label="assigned F: " + label)
    x, y = staircase(t)
    a1.step(x, [k / n for k in y], where="post", color="#d04010", lw=1.0,
            label=f"throng: {n} start times\nKS D {d:.4f}, p {p:.2f}")
    a1.set_xlim(0, tmax)
    a1.set_ylim(0, 1.02)
    a1.set_ylabel("fraction started")
    a1.set_title("cumulative distribution")
    a1.tick_params(labelbottom=False)
    a1.grid(alpha=0.3)
    a1.legend(loc="lower right", fontsize=8)

    # The empirical CDF less F, just after and just before each start time: D is its largest |.|.
    ex = [v for v in t for _ in (0, 1)]
    ey = [(k + j) / n - F(v) for k, v in enumerate(t) for j in (0, 1)]
    a3.axhspan(-band, band, color="#c8d8f0")
    a3.axhline(0, color="#2050a0", lw=0.8)
    a3.plot(ex, ey, color="#d04010", lw=0.8)
    a3.set_xlim(0, tmax)
    a3.set_ylim(-1.5 * band, 1.5 * band)
    a3.set_xlabel("start time (s)")
    a3.set_ylabel("empirical − F")
    a3.grid(alpha=0.3)

    bins = np.arange(0.0, tmax + 5.0, 5.0)
    a2.hist(t, bins=bins, density=True, color="#f0b090", edgecolor="#d04010",
            label=f"throng: {n} start times, 5 s bins")
    a2.plot(grid, [f(x) for x in grid], color="#2050a0", label="assigned density")
    a2.set_xlim(0, tmax)
    a2.set_xlabel("start time (s)")
    a2.set_ylabel("probability density (1/s)")
    a2.set_title("histogram")
    a2.grid(alpha=0.3)
    a2.legend(loc="upper right", fontsize=8.5)
    fig.suptitle(f"ISO 20414 test 1 / NIST TN 1822 Verif.1.1: the start times of {n} persons\n"
                 f"against their assigned pre-evacuation time distribution")
    save(fig, out)


# ---- command line -------------------------------------------------------------------------------

def main(argv):
    opts = {"throng": os.path.join(ROOT, "build", "release", "throng"), "threads": 2}
    args = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print(__doc__)
            return
        if a in ("--throng", "--threads") and i + 1 < len(argv):
            opts[a[2:]] = argv[i + 1]
            i += 2
            continue
        args.append(a)
        i += 1
    if len(args) == 2 and args[0].endswith(".json"):
        args = ["fd"] + args  # the older form: VERIFY.json OUT.png
    plots = {"flow": plot_flow, "evacuation": plot_evacuation, "premovement": plot_premovement}
    if len(args) == 3 and args[0] == "fd":
        plot_fd(args[1], args[2])
    elif len(args) == 2 and args[0] in plots:
        if not os.access(opts["throng"], os.X_OK):
            sys.exit(f"{opts['throng']}: not built (cmake --build build/release --target "
                     f"throng_cli), or give --throng PATH")
        plots[args[0]](opts, args[1])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
