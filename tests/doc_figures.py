#!/usr/bin/env python3
"""Figures quoted in the documentation, recomputed: each is found in its document by a pattern,
the command that produced it is run, and the two must agree. A change that moves a figure
fails here until the document is brought up to date (tests/test_doc_figures.sh).

    doc_figures.py THRONG SOURCE_DIR       exit 1 when a quoted figure differs

The figures:
  README.md          the example report of "Here `throng run ...`:" and the block under it;
                     every line but those that time the run (run, wall, speed, phases)
  docs/ants.md       units the colony of scenes/ants.yaml takes in 120 s, with its trails and
                     with `follow: 0.0001`
"""
import os
import re
import subprocess
import sys
import tempfile

TIMED = ("run ", "wall ", "speed ", "phases ")


def throng(binary, args):
    r = subprocess.run([binary, "run", *args, "--headless", "--no-progress"],
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        sys.exit(f"throng run {' '.join(args)}: exit {r.returncode}\n{r.stderr}")
    return r.stdout.splitlines()


def readme(binary, src):
    text = open(os.path.join(src, "README.md")).read()
    m = re.search(r"Here `throng run ([^`]*)`:\s*\n```\n(.*?)```", text, re.S)
    if not m:
        return [("README.md", "no example report after \"Here `throng run ...`:\"")]
    quoted = [l for l in m[2].splitlines() if l and not l.startswith(TIMED)]
    got = [l for l in throng(binary, m[1].split()) if l and not l.startswith(TIMED)]
    bad = []
    for q, g in zip(quoted, got):
        if q.rstrip() != g.rstrip():
            bad.append(("README.md", f"quoted  {q}\n     now     {g}"))
    if len(quoted) != len(got):
        bad.append(("README.md", f"{len(quoted)} report lines quoted, {len(got)} now"))
    return bad


def taken(lines):
    for l in lines:
        m = re.match(r"colony +\S+: .*?(\d+) taken", l)
        if m:
            return int(m[1])
    sys.exit("no colony line in the report")


def ants(binary, src):
    text = open(os.path.join(src, "docs/ants.md")).read()
    m = re.search(r"the colony takes (\d+) units\s+in 120 s; with `follow: 0.0001`.*?it takes "
                  r"(\d+)", text, re.S)
    if not m:
        return [("docs/ants.md", "no \"the colony takes N units in 120 s\" sentence")]
    scene = os.path.join(src, "scenes/ants.yaml")
    bad = []
    now = taken(throng(binary, [scene]))
    if now != int(m[1]):
        bad.append(("docs/ants.md", f"quoted {m[1]} units taken, now {now}"))
    body = open(scene).read()
    if not re.search(r"\bfollow: [0-9.]+", body):
        return bad + [("docs/ants.md", "scenes/ants.yaml has no follow key to vary")]
    # The scene names no other file, so its copy may live anywhere (the source stays untouched).
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        f.write(re.sub(r"\bfollow: [0-9.]+", "follow: 0.0001", body))
    try:
        now = taken(throng(binary, [f.name]))
    finally:
        os.unlink(f.name)
    if now != int(m[2]):
        bad.append(("docs/ants.md", f"quoted {m[2]} units taken with follow 0.0001, now {now}"))
    return bad


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    binary, src = sys.argv[1], sys.argv[2]
    bad = readme(binary, src) + ants(binary, src)
    for doc, why in bad:
        print(f"FAIL {doc}: {why}")
    if not bad:
        print("ok   every quoted figure matches a fresh run")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
