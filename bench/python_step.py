#!/usr/bin/env python3
"""What stepping from Python costs against the command line, and what reading agents costs.

The same scene (default scenes/flock.yaml: 100,000 boids), seed, threads and steps run
alternately in `throng run --fixed-steps --json` (its `performance.stepping_s`: the seconds
inside th_world_step) and in Python (World.step(n), timed around the call, so the Python
side's overhead counts against it). Both must end with the same state hash. Then what a
World.step call costs beyond the steps it runs (step(0), 100,000 times), and the time to
read all positions into numpy, with World.positions(out) (refilling an array) and
World.positions() (a new one), and all agent arrays (World.agents), best of 50.

    PYTHONPATH=... python3 bench/python_step.py [--steps 300] [--threads 2] [--pairs 3]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

import numpy as np

import throng

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--scene", default=os.path.join(ROOT, "scenes", "flock.yaml"))
    ap.add_argument("--throng", default=os.path.join(ROOT, "build", "release", "throng"))
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--pairs", type=int, default=3)
    args = ap.parse_args()

    cli_s, py_s = [], []
    for _ in range(args.pairs):
        with tempfile.NamedTemporaryFile(suffix=".json") as j:
            subprocess.run([args.throng, "run", args.scene, "--steps", str(args.steps), "--fixed-steps",
                            "--threads", str(args.threads), "--headless", "--no-progress",
                            "--json", j.name], check=True, capture_output=True)
            doc = json.load(open(j.name))
        cli_s.append(doc["performance"]["stepping_s"])
        w = throng.load(args.scene, threads=args.threads)
        t = time.perf_counter()
        w.step(args.steps)
        py_s.append(time.perf_counter() - t)
        assert f"0x{w.hash():016x}" == doc["hash"], "different state"
    agents = w.agent_count
    c, p = statistics.median(cli_s), statistics.median(py_s)
    print(f"{agents} agents, {args.steps} steps, {args.threads} threads, {args.pairs} interleaved pairs")
    print(f"command line  {1e3 * c / args.steps:8.3f} ms/step (median; runs {', '.join(f'{x:.3f}' for x in cli_s)} s)")
    print(f"python        {1e3 * p / args.steps:8.3f} ms/step (median; runs {', '.join(f'{x:.3f}' for x in py_s)} s)")
    print(f"python / command line: {p / c:.4f}")

    # What a call costs apart from the stepping: step(0) runs no step.
    calls = 100_000
    t = time.perf_counter()
    for _ in range(calls):
        w.step(0)
    per_call = (time.perf_counter() - t) / calls
    print(f"World.step call overhead {1e6 * per_call:.3f} us: {100 * per_call / (c / args.steps):.4f} % "
          f"of one command-line step; step(1) in a Python loop costs that per step")

    out = np.empty((agents, 2), np.float32)
    for name, fn in (("positions(out)", lambda: w.positions(out)), ("positions()", w.positions),
                     ("agents", lambda: w.agents)):
        best = float("inf")
        for _ in range(50):
            t = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - t)
        print(f"{name:15s} {1e3 * best:7.3f} ms for {agents} agents "
              f"({1e3 * best * 100_000 / agents:.3f} ms per 100k)")


if __name__ == "__main__":
    main()
