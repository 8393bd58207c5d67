#!/usr/bin/env python3
"""Evacuation curve: run a scene with throng and plot how many people were safe over time.

The scene runs as `throng run` would (until its `steps`, or earlier once it is over); the
curve is the number of agents sheltered in a bunker (and, for scenes with exits, gone
through an exit) against time, read from World.sheltered_times() and exited_times(). The
times when 50 %, 90 % and all of those who could reach a bunker were in (World.report(), the
figures of `throng run --json`) and the scene's bunker events are marked.

    python3 examples/python/evacuation.py                        # air raid, 2,000 people
    python3 examples/python/evacuation.py scenes/rubble.yaml --agents 0 -o rubble.png

Needs the throng package (pip install --no-build-isolation ./python) and matplotlib
(Debian: python3-matplotlib).
"""
import argparse
import os

import matplotlib

matplotlib.use("Agg")  # files only, no display needed
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import throng  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scene", nargs="?", default=os.path.join(ROOT, "scenes", "air_raid.yaml"))
    ap.add_argument("--agents", type=int, default=2000,
                    help="scale the randomly spawned crowds to this many (0: as written)")
    ap.add_argument("--seed", type=int, default=None, help="replace the scene's seed")
    ap.add_argument("--threads", type=int, default=0, help="worker threads (0: the scene's, or all cores)")
    ap.add_argument("--steps", type=int, default=None, help="most steps (default: the scene's)")
    ap.add_argument("-o", "--output", default="evacuation.png", help="the PNG to write")
    args = ap.parse_args()

    world = throng.load(args.scene, seed=args.seed, threads=args.threads, agents=args.agents)
    total = world.agent_count
    steps = world.run(args.steps)
    report = world.report()
    sheltered = world.sheltered_times()
    exited = world.exited_times()

    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    end = steps * world.timestep
    if len(sheltered):
        t = np.concatenate([[0.0], sheltered, [end]])
        n = np.concatenate([[0], np.arange(1, len(sheltered) + 1), [len(sheltered)]])
        ax.step(t, n, where="post", color="tab:blue", label=f"sheltered ({len(sheltered)})")
    if len(exited):
        t = np.concatenate([[0.0], exited, [end]])
        n = np.concatenate([[0], np.arange(1, len(exited) + 1), [len(exited)]])
        ax.step(t, n, where="post", color="tab:green", label=f"through an exit ({len(exited)})")
    out = report["outcome"]
    for key, label in (("sheltered_50_s", "50 %"), ("sheltered_90_s", "90 %"), ("sheltered_100_s", "all")):
        if out[key] is not None:
            ax.axvline(out[key], color="tab:blue", lw=0.8, ls=":")
            ax.text(out[key], ax.get_ylim()[1] * 0.02, f" {label}", color="tab:blue", fontsize=8)
    for b in report["bunkers"]:
        for e in b["events"]:
            ax.axvline(e["time_s"], color="tab:red", lw=0.8, ls="--")
            ax.text(e["time_s"], ax.get_ylim()[1] * 0.9, f" {b['name']} {e['event']}",
                    color="tab:red", fontsize=8, rotation=90, va="top")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("people safe")
    ax.set_xlim(0, end)
    ax.set_title(f"{report['scene']['name']}: {total} people, seed {report['run']['seed']}, "
                 f"{out['stranded']} stranded")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(args.output)
    print(f"{report['scene']['name']}: {steps} steps ({end:.1f} s), {len(sheltered)} sheltered, "
          f"{len(exited)} exited, {out['stranded']} stranded, 90 % in at "
          f"{out['sheltered_90_s'] if out['sheltered_90_s'] is not None else '-'} s; "
          f"hash 0x{world.hash():016x}")
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
