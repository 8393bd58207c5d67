#!/usr/bin/env python3
"""The measured table and the figure of docs/validation.md, from `throng validate --json`.

    bench/validate_report.py run THRONG [--doc DOC] [--png PNG] [--json OUT]
        run `THRONG validate --threads 2 --json`, rewrite DOC's measured table (default
        docs/validation.md, between its validate-table markers) and draw PNG (default
        docs/validation.png); --json keeps the JSON
    bench/validate_report.py table VALIDATE.json DOC [--wall SECONDS] [--build TEXT]
        rewrite DOC's measured table from a JSON file
    bench/validate_report.py plot VALIDATE.json OUT.png
        draw the figure from a JSON file

`run` is the one command that regenerates everything docs/validation.md quotes:

    /usr/bin/python3 bench/validate_report.py run build/release/throng

(/usr/bin/python3: Debian's python3-matplotlib is installed for it.) The figure: (a) bottleneck
flow against width, every published value by source, the band accepted at each width and the
simulation's mean over its seeds with their range; (b) mean speed against density in the periodic corridor with Weidmann's
curve, its accepted band and Zhang et al.'s bin means; (c) counterflow: bidirectional over
unidirectional flow, and the 300/50 and 175/175 splits; (d) specific flows at the T-junction
(after the merge) and the corner (before and after), against the published runs.
"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BEGIN = "<!-- validate-table:begin"
END = "<!-- validate-table:end -->"


def machine():
    cpu = "unknown CPU"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores"


def table(j, wall=None, build=None):
    head = "`throng validate --threads 2`"
    where = [machine()]
    if build:
        where.append(build)
    if wall is not None:
        where.append(f"{wall:.0f} s wall time")
    out = [f"{BEGIN} (written by bench/validate_report.py) -->",
           f"{head} on {'; '.join(where)}.", "",
           "| case | result | measured: seeds' mean [range] | criterion | published |",
           "|---|---|---|---|---|"]
    for r in j["cases"]:
        cells = [r["id"], r["status"], r["measured_text"], r["tolerance"]["text"], r["published"]["text"]]
        out.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    c = j["counts"]
    out += ["", f"In all: {c['pass']} pass, {c['fail']} fail, {c['error']} error, of {c['total']} cases.", END]
    return "\n".join(out)


def rewrite(doc, text):
    s = open(doc).read()
    a, b = s.find(BEGIN), s.find(END)
    if a < 0 or b < a:
        sys.exit(f"{doc}: no {BEGIN} ... {END} block")
    s = s[:a] + text + s[b + len(END):]
    with open(doc, "w") as f:
        f.write(s)


def weidmann(rho):
    return 1.34 * (1 - math.exp(-1.913 * (1 / rho - 1 / 5.4))) if 0 < rho < 5.4 else 0.0


def plot(j, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cases = {r["id"]: r for r in j["cases"]}
    src = {s["id"]: s for s in j["sources"]}
    fig, ax = plt.subplots(2, 2, figsize=(13, 9.5))

    # (a) bottleneck flow against width
    a = ax[0][0]
    marks = {"kretz2006": "o", "seyfried2009": "s", "mueller1981": "^", "nagai2006": "v",
             "daamen2010": "D", "liao2014-fig": "P", "liao2014-data": "X"}
    for sid, m in marks.items():
        s = src.get(sid)
        if not s:
            continue
        xs = [x0 for x0, x1, y in s["rows"] if x0 <= 2.6]
        ys = [y for x0, x1, y in s["rows"] if x0 <= 2.6]
        a.plot(xs, ys, m, ms=5, mfc="none", label=f"{s['label']} ({s['provenance'].lower()})")
    bn = sorted((r["extra"]["width"], r) for i, r in cases.items()
                if i.startswith("bottleneck-") and "width" in r.get("extra", {}))
    if bn:
        b = [w for w, _ in bn]
        lo = [r["tolerance"]["low"] for _, r in bn]
        hi = [r["tolerance"]["high"] for _, r in bn]
        if None not in lo and None not in hi:
            a.fill_between(b, lo, hi, color="0.85", label="accepted: 0.85 min .. 1.15 max")
        mean = [r["measured"] for _, r in bn]
        err = [[r["measured"] - r["measured_min"] for _, r in bn], [r["measured_max"] - r["measured"] for _, r in bn]]
        ok = [r["status"] == "pass" for _, r in bn]
        a.errorbar(b, mean, yerr=err, fmt="-", color="C3", lw=1.5, capsize=3, label="throng (mean, range of seeds)")
        a.plot([x for x, k in zip(b, ok) if k], [y for y, k in zip(mean, ok) if k], "o", color="C3", ms=6)
        a.plot([x for x, k in zip(b, ok) if not k], [y for y, k in zip(mean, ok) if not k], "o", color="white",
               mec="C3", ms=7, label="throng: outside the band")
    a.set_xlabel("bottleneck width b [m]")
    a.set_ylabel("flow J [1/s]")
    a.set_title("(a) bottleneck flow against width")
    a.set_xlim(0.35, 2.6)
    a.set_ylim(0, 7.5)
    a.legend(fontsize=7, loc="upper left")
    a.grid(alpha=0.3)

    # (b) the corridor's fundamental diagram
    a = ax[0][1]
    rr = [i / 100 for i in range(20, 501)]
    w = [weidmann(x) for x in rr]
    a.plot(rr, w, "k-", lw=1.2, label="Weidmann 1993")
    a.fill_between(rr, [max(0, v - max(0.25 * v, 0.1)) for v in w], [v + max(0.25 * v, 0.1) for v in w],
                   color="0.88", label="accepted: 25 % or 0.1 m/s")
    z = src.get("zhang2011-uo-v")
    if z:
        for k, (x0, x1, y) in enumerate(z["rows"]):
            a.plot([x0, x1], [y, y], "-", color="C0", lw=2.5, label="Zhang 2011 bin means (data-derived)" if k == 0 else None)
    fd = sorted((r["extra"]["density"], r) for i, r in cases.items() if i.startswith("fd-") and r["measured"] is not None)
    if fd:
        xs = [d for d, _ in fd]
        ys = [r["measured"] for _, r in fd]
        err = [[r["measured"] - r["measured_min"] for _, r in fd], [r["measured_max"] - r["measured"] for _, r in fd]]
        a.errorbar(xs, ys, yerr=err, fmt="o", color="C3", capsize=3, label="throng (mean, range of seeds)")
    a.set_xlabel("density [1/m2]")
    a.set_ylabel("mean speed [m/s]")
    a.set_title("(b) unidirectional corridor (periodic, 3 m)")
    a.set_xlim(0, 4.6)
    a.set_ylim(0, 1.8)
    a.legend(fontsize=7)
    a.grid(alpha=0.3)

    # (c) counterflow
    a = ax[1][0]
    labels, vals, los, his, pubs = [], [], [], [], []
    r = cases.get("counterflow-ratio")
    if r and r["measured"] is not None:
        labels.append("200/200 over\n400 one way")
        vals.append(r["measured"]); los.append(r["measured_min"]); his.append(r["measured_max"])
        pubs.append(r["published"]["value"])
        a.axhline(r["tolerance"]["low"], color="C3", ls=":", lw=1, label="criterion: ratio >= 0.70")
        a.axhline(r["published"]["value"], color="C0", ls="--", lw=1,
                  label=f"Zhang 2012 / 2011: max Js ratio {r['published']['value']:.2f} (data-derived)")
    r = cases.get("counterflow-split")
    if r and r["measured"] is not None:
        labels.append("300/50 over\n350 one way")
        vals.append(r["measured"]); los.append(r["measured_min"]); his.append(r["measured_max"])
        labels.append("175/175 over\n350 one way")
        vals.append(r["extra"]["balanced_ratio"]); los.append(None); his.append(None)
    for k, (v, lo, hi) in enumerate(zip(vals, los, his)):
        a.bar(k, v, color="C3", alpha=0.75, width=0.6)
        if lo is not None:
            a.errorbar(k, v, yerr=[[v - lo], [hi - v]], color="k", capsize=4)
        a.text(k, v / 2, f"{v:.2f}", ha="center", fontsize=10, color="white", weight="bold")
    a.set_xticks(range(len(labels)))
    a.set_xticklabels(labels, fontsize=8)
    a.set_ylabel("flow ratio")
    a.set_ylim(0, 1.1)
    a.set_title("(c) counterflow through a 2 m x 10 m corridor")
    a.legend(fontsize=7, loc="upper right")
    a.grid(alpha=0.3, axis="y")

    # (d) T-junction and corner
    a = ax[1][1]
    items = []
    r = cases.get("tjunction")
    if r and r["measured"] is not None:
        items.append(("T-junction\nafter merge", r["measured"], r["measured_min"], r["measured_max"],
                      r["published"]["value"], (r["tolerance"]["low"], r["tolerance"]["high"])))
        items.append(("T-junction\nbranches", r["extra"]["branch_specific_flow"], None, None, None, None))
    r = cases.get("corner")
    if r and r["measured"] is not None:
        items.append(("corner\nbefore", r["extra"]["before"], None, None, None, None))
        items.append(("corner\nafter", r["measured"], r["measured_min"], r["measured_max"],
                      r["published"]["value"], (r["tolerance"]["low"], None)))
    for k, (lab, v, lo, hi, pub, tol) in enumerate(items):
        a.bar(k, v, color="C3", alpha=0.75, width=0.6)
        if lo is not None:
            a.errorbar(k, v, yerr=[[v - lo], [hi - v]], color="k", capsize=4)
        a.text(k, v / 2, f"{v:.2f}", ha="center", fontsize=10, color="white", weight="bold")
        if pub is not None:
            a.plot([k - 0.35, k + 0.35], [pub, pub], "C0--", lw=1.5)
        if tol is not None:
            a.plot([k - 0.35, k + 0.35], [tol[0], tol[0]], "C3:", lw=1.5)
            if tol[1] is not None:
                a.plot([k - 0.35, k + 0.35], [tol[1], tol[1]], "C3:", lw=1.5)
    tb = src.get("zhang-ko-branch-js")
    a.plot([], [], "C0--", label="published run mean (Zhang et al., data-derived)")
    a.plot([], [], "C3:", label="criterion bounds")
    if tb and len(items) > 1:
        ys = [y for _, _, y in tb["rows"]]
        a.fill_between([0.65, 1.35], min(ys), max(ys), color="C0", alpha=0.15,
                       label="T-junction branches: published bin means, 0.5-3.5 /m2")
    a.set_xticks(range(len(items)))
    a.set_xticklabels([i[0] for i in items], fontsize=8)
    a.set_ylabel("specific flow Js = density x speed [1/(m s)]")
    a.set_ylim(0, 2.3)
    a.set_title("(d) 2.4 m T-junction and corner")
    a.legend(fontsize=7, loc="upper right")
    a.grid(alpha=0.3, axis="y")

    fig.suptitle("throng validate: simulated against published measurements", fontsize=12)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def main(argv):
    if argv[:1] == ["run"] and len(argv) >= 2:
        throng = argv[1]
        opts = dict(zip(argv[2::2], argv[3::2]))
        doc = opts.get("--doc", os.path.join(ROOT, "docs", "validation.md"))
        png = opts.get("--png", os.path.join(ROOT, "docs", "validation.png"))
        with tempfile.TemporaryDirectory() as d:
            path = opts.get("--json", os.path.join(d, "validate.json"))
            t0 = time.time()
            p = subprocess.run([throng, "validate", "--threads", "2", "--json", path])
            wall = time.time() - t0
            if p.returncode not in (0, 1):
                sys.exit(f"throng validate exited {p.returncode}")
            j = json.load(open(path))
            build = subprocess.run([throng, "--version"], capture_output=True, text=True).stdout.strip()
            dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                                   capture_output=True, text=True)
            if dirty.returncode == 0 and dirty.stdout.strip():
                build += ", with uncommitted changes in the working tree"
            rewrite(doc, table(j, wall, build))
            plot(j, png)
        print(f"wrote the table into {doc} and the figure {png} ({wall:.0f} s)")
    elif argv[:1] == ["table"] and len(argv) >= 3:
        opts = dict(zip(argv[3::2], argv[4::2]))
        wall = float(opts["--wall"]) if "--wall" in opts else None
        rewrite(argv[2], table(json.load(open(argv[1])), wall, opts.get("--build")))
    elif argv[:1] == ["plot"] and len(argv) == 3:
        plot(json.load(open(argv[1])), argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
