"""throng.read_results: a ``throng run --results`` folder read as numpy arrays, checked against
the command line's JSON report and the files' own rows (csv module)."""
import csv
import json
import math
import os
import subprocess

import numpy as np
import pytest

import throng

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CLI = os.environ.get("THRONG_CLI", os.path.join(ROOT, "build", "release", "throng"))


@pytest.fixture(scope="module")
def exits_run(tmp_path_factory):
    if not os.access(CLI, os.X_OK):
        pytest.skip(f"no command line at {CLI} (set THRONG_CLI)")
    d = tmp_path_factory.mktemp("results")
    folder, report = d / "exits", d / "exits.json"
    subprocess.run([CLI, "run", os.path.join(ROOT, "scenes", "exits.yaml"), "--headless",
                    "--threads", "2", "--steps", "600", "--results", str(folder), "--json",
                    str(report)], check=True, capture_output=True, timeout=300)
    return folder, json.load(open(report))


def test_tables_match_the_report_and_the_files(exits_run):
    folder, rep = exits_run
    r = throng.read_results(folder)
    occ = r["occupants"]
    assert len(occ) == rep["scene"]["agents"]  # no spawners: those placed at the start
    for e in rep["exits"]:
        assert np.count_nonzero(occ["left_by"] == e["name"]) == e["exited"]
        flows = r["flows"][(r["flows"]["kind"] == "exit") & (r["flows"]["name"] == e["name"])]
        assert flows["count"][-1] == e["exited"]
        assert np.all(np.diff(flows["count"]) >= 0)
    # Still in the world: no time out (NaN), and the count of them is the report's.
    out = sum(e["exited"] for e in rep["exits"])
    inside = np.isnan(occ["left_s"])
    assert 0 < out < len(occ)
    assert np.count_nonzero(inside) == len(occ) - out
    assert np.all(occ["state"][~inside] == "left")
    ev = r["evacuation"]
    assert ev["out"][-1] == out
    assert ev["in_world"][-1] == len(occ) - out
    # Every field as the file has it.
    with open(folder / "occupants.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(occ)
    for row, o in zip(rows[:50], occ[:50]):
        assert int(row["id"]) == o["id"] and row["crowd"] == o["crowd"]
        assert math.isclose(float(row["distance_m"]), o["distance_m"])
        assert (row["moved_s"] == "") == bool(np.isnan(o["moved_s"]))
    dens = r["density"]
    assert list(dens) == ["map"]
    assert np.all(dens["map"]["max_density"] >= dens["map"]["mean_density"] - 1e-4)
    assert set(np.unique(dens["map"]["los"])) <= set("ABCDEF")


def test_bad_folders_say_what_is_wrong(exits_run, tmp_path):
    with pytest.raises(FileNotFoundError):
        throng.read_results(tmp_path)
    folder, _ = exits_run
    bad = tmp_path / "bad"
    bad.mkdir()
    for name in ("flows.csv", "evacuation.csv", "occupants.csv"):
        (bad / name).write_bytes((folder / name).read_bytes())
    (bad / "evacuation.csv").write_text("time,out\n0,0\n")
    with pytest.raises(ValueError, match="expected the columns time_s,out,in_world"):
        throng.read_results(bad)
