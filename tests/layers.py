#!/usr/bin/env python3
"""The layer rule over the project's own includes.

The folders are layers, bottom to top; a file may include files of its own folder and of the
folders below it, never of one above (so the folders can have no cycle either):

    engine/       threads, grid, allocation, hashing: knows nothing of worlds
    sim/nav/      maps, fields, A*, HPA*, planning over maps: a library, no world in it
    sim/core/     the world's data: agents, crowds' parameters, storage, errors
    sim/terrain/  the world's terrain and navigation: cells, bunkers, events, fields, levels,
                  the planner over the world (navigation's adapter to the world)
    sim/dist/     one world over MPI ranks: the exchanges and the replays the models call
    sim/scenario/ what a scene adds that the models read: spawners, exits, hazards
    sim/behave/   the models
    sim/observe/  what watches the models: measurement, stalls, validation, digest, report
    sim/step/     the step: its parts in order, and the world's operations over every layer
    sim/scene/    scene files
    render/       the viewer
    app/          the command line

The public headers (include/throng/) are the API every layer may include. The includes that
still go up are listed, one per line, in tests/layers_allowed.txt ("FILE INCLUDED"): debt to
pay, never to add to. An upward include not listed fails, and so does a listed one that is
gone (the list only shrinks).

    tests/layers.py ROOT [--plant FILE:INCLUDED]

--plant adds an include that is not in the sources (to check that the check fails).
Exit 0 when the rule holds, 1 with each breach on stdout.
"""
import os
import re
import sys

LAYERS = ["engine", "sim/nav", "sim/core", "sim/terrain", "sim/dist", "sim/scenario", "sim/behave",
          "sim/observe", "sim/step", "sim/scene", "render", "app"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def layer_of(path):
    """The index of the layer a project path lies in, or None (public headers, tests, ...)."""
    best = None
    for i, name in enumerate(LAYERS):
        if path == name or path.startswith(name + "/"):
            if best is None or len(name) > len(LAYERS[best]):
                best = i
    return best


def resolve(root, source, included):
    """The project path an include names: relative to the source's folder, else to the root."""
    here = os.path.normpath(os.path.join(os.path.dirname(source), included))
    if os.path.exists(os.path.join(root, here)):
        return here
    if os.path.exists(os.path.join(root, included)):
        return os.path.normpath(included)
    return None


def includes(root):
    """Every (source, included) pair between project files of the layers."""
    pairs = []
    for top in sorted({name.split("/")[0] for name in LAYERS}):
        for folder, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.relpath(os.path.join(folder, name), root)
                if layer_of(path) is None:
                    continue
                with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                    text = f.read()
                for inc in INCLUDE.findall(text):
                    target = resolve(root, path, inc)
                    if target is not None and layer_of(target) is not None:
                        pairs.append((path, target))
    return pairs


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    root = argv[1]
    pairs = includes(root)
    for arg in argv[2:]:
        if not arg.startswith("--plant="):
            print("layers.py: unknown argument %r" % arg)
            return 2
        source, _, target = arg[len("--plant="):].partition(":")
        pairs.append((source, target))
    allowed = set()
    ledger = os.path.join(root, "tests", "layers_allowed.txt")
    with open(ledger, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            words = line.split()
            if len(words) != 2:
                print("%s:%d: expected 'FILE INCLUDED', found %r" % (ledger, n, line))
                return 1
            allowed.add(tuple(words))
    bad = 0
    upward = set()
    for source, target in pairs:
        if layer_of(target) > layer_of(source):
            upward.add((source, target))
            if (source, target) not in allowed:
                print("%s includes %s: %s is above %s (tests/layers.py)" % (
                    source, target, LAYERS[layer_of(target)], LAYERS[layer_of(source)]))
                bad += 1
    for source, target in sorted(allowed - upward):
        print("tests/layers_allowed.txt lists %s including %s, which it no longer does: "
              "remove the line" % (source, target))
        bad += 1
    print("layers: %d includes between layers, %d of them upward (listed debt), %d breach(es)"
          % (len(pairs), len(upward & allowed), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
