"""The command line shared by the case generators (gridlock_cases.py, flow_cases.py): each
writes scenes from templates, and judges the runs of `throng run` on them. tests/case_suite.sh
runs a whole suite with one Python process to write the scenes and one to judge them.

    GEN list [--quick]          the case names, one a line (--quick: the sanitizer builds' few)
    GEN scene CASE              the case's scene (YAML) on stdout
    GEN args CASE               extra `throng run` arguments (the seed)
    GEN check CASE JSON CSV     measured values on one line (JSON); exit 1 if a criterion of the
                                case alone fails (the line says which)
    GEN prepare DIR CASE...     for each case DIR/CASE.yaml, DIR/CASE.args (its extra arguments)
                                and, where its state hash is also compared at 2 threads, an
                                empty DIR/CASE.twice
    GEN judge DIR CASE...       each case from DIR/CASE.rc (the run's exit code), .json and .csv
                                (and .2.json, the run at 2 threads): one line "ok<TAB>what" or
                                "FAIL<TAB>what<TAB>why" per criterion; then the criteria across
                                cases and the table of measured values; the check lines go to
                                DIR/results

A generator module gives: cases(quick), scene(case), seed_of(case), check(case, json, csv)
(prints its line, returns 0 or 1), ACROSS = (name, function(results path) printing its lines
and returning 0 pass, 1 fail, 2 nothing to compare), TABLE = (title, columns), and
twice(case): whether the case also runs at 2 threads for the hash.
"""
import contextlib
import io
import json
import os
import sys


def _judge(gen, d, cases):
    results = []
    for c in cases:
        if not os.path.exists(os.path.join(d, c + ".yaml")):
            print(f"FAIL\t{c}\tno such case")
            continue
        try:
            rc = int(open(os.path.join(d, c + ".rc")).read().strip() or 125)
        except (OSError, ValueError):
            rc = 125
        if rc != 0:
            print(f"FAIL\t{c}\tthrong run exit {rc} (1: an invariant broke, e.g. bodies overlapping)")
            try:
                tail = open(os.path.join(d, c + ".out")).read().splitlines()[-5:]
            except OSError:
                tail = []
            print("".join(f"     run| {t}\n" for t in tail), end="")
            results.append(json.dumps({"case": c, "verdict": f"FAIL: exit {rc}"}))
            continue
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = gen.check(c, os.path.join(d, c + ".json"), os.path.join(d, c + ".csv"))
        line = out.getvalue().strip()
        results.append(line)
        print(f"ok\t{c}: {line}" if code == 0 else f"FAIL\t{c}\t{line}")
        if gen.twice(c):
            h1 = json.load(open(os.path.join(d, c + ".json")))["hash"]
            try:
                h2 = json.load(open(os.path.join(d, c + ".2.json")))["hash"]
            except (OSError, ValueError, KeyError):
                h2 = None
            what = f"{c}: same hash at 1 and 2 threads"
            print(f"ok\t{what}" if h1 == h2 else f"FAIL\t{what}\t{h1} vs {h2 or 'none'}")
    path = os.path.join(d, "results")
    with open(path, "w") as f:
        f.write("".join(r + "\n" for r in results))
    name, across = gen.ACROSS
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = across(path)
    if code == 0:
        print(f"ok\t{name}")
    elif code == 1:
        print(f"FAIL\t{name}\tsee below")
    sys.stdout.write(out.getvalue())
    title, cols = gen.TABLE
    rows = [json.loads(r) for r in results if r.startswith("{")]
    print(f"\nmeasured ({title})")
    print(" | ".join(cols))
    for r in rows:
        print(" | ".join("-" if r.get(k) is None else str(r.get(k)) for k in cols))
    return 0


def main(gen):
    a = sys.argv[1:]
    if a[:1] == ["list"]:
        print("\n".join(gen.cases("--quick" in a)))
    elif a[:1] == ["scene"] and len(a) == 2:
        sys.stdout.write(gen.scene(a[1]))
    elif a[:1] == ["args"] and len(a) == 2:
        print(f"--seed {gen.seed_of(a[1])}")
    elif a[:1] == ["check"] and len(a) == 4:
        sys.exit(gen.check(a[1], a[2], a[3]))
    elif a[:1] == ["prepare"] and len(a) >= 2:
        for c in a[2:]:
            base = os.path.join(a[1], c)
            try:
                text = gen.scene(c)
            except SystemExit:  # an unknown case: judge says so
                continue
            with open(base + ".yaml", "w") as f:
                f.write(text)
            with open(base + ".args", "w") as f:
                f.write(f"--seed {gen.seed_of(c)}\n")
            if gen.twice(c):
                open(base + ".twice", "w").close()
    elif a[:1] == ["judge"] and len(a) >= 2:
        sys.exit(_judge(gen, a[1], a[2:]))
    else:
        sys.exit(gen.__doc__ + "\n" + __doc__)
