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


def test_results_from_python_are_the_command_lines(tmp_path):
    """A scene stepped in Python with start_results / write_results gives the command line's
    tables, byte for byte: same world, same steps, same files."""
    if not os.access(CLI, os.X_OK):
        pytest.skip(f"no command line at {CLI} (set THRONG_CLI)")
    scene = os.path.join(ROOT, "scenes", "exits.yaml")
    cli_dir, py_dir = tmp_path / "cli", tmp_path / "py"
    subprocess.run([CLI, "run", scene, "--headless", "--threads", "2", "--seed", "4", "--steps",
                    "500", "--results", str(cli_dir)], check=True, capture_output=True,
                   timeout=300)
    w = throng.load(scene, seed=4, threads=2)
    w.start_results(py_dir)
    w.run(500)
    index = w.write_results()
    assert index == os.path.join(str(py_dir), "index.html") and os.path.isfile(index)
    tables = sorted(f for f in os.listdir(cli_dir) if f.endswith(".csv"))
    assert "flows.csv" in tables and "occupants.csv" in tables
    assert tables == sorted(f for f in os.listdir(py_dir) if f.endswith(".csv"))
    for f in tables:
        assert (cli_dir / f).read_bytes() == (py_dir / f).read_bytes(), f
    assert sorted(os.listdir(cli_dir)) == sorted(os.listdir(py_dir))


def test_results_of_a_world_built_in_python(tmp_path):
    """A world made in code: every occupant is listed, each one out by the exit at the time the
    world says, the exit's count rises to all of them, and the hash is the same as without."""
    def build():
        w = throng.World(30, 12, cell_size=0.5, seed=2, threads=2)
        for y in range(24):
            if not 10 <= y <= 13:
                w.set_cell(40, y, "wall")
        f = w.add_destinations([(59, y) for y in range(24)])
        e = w.add_exit(name="east", field=f)
        c = w.add_crowd("walkers", model="pedestrian", goal="destinations", field=f)
        w.add_agents(c, [(1.5 + 0.8 * (i % 20), 1.0 + 0.8 * (i // 20)) for i in range(60)])
        return w, e
    w, _ = build()
    w.start_results(tmp_path / "r")
    steps = 0
    while w.agent_count and steps < 20000:
        w.step(100)
        steps += 100
    assert w.agent_count == 0, "everyone out through the 2 m gap"
    w.write_results()
    plain, _ = build()
    plain.step(steps)
    assert plain.hash() == w.hash()
    r = throng.read_results(tmp_path / "r")
    occ = r["occupants"]
    assert len(occ) == 60 and np.all(occ["left_by"] == "east")
    assert np.all(occ["state"] == "left")
    assert np.allclose(np.sort(occ["left_s"]), np.sort(w.exited_times()), atol=w.timestep)
    east = r["flows"][(r["flows"]["kind"] == "exit") & (r["flows"]["name"] == "east")]
    assert east["count"][-1] == 60 and np.all(np.diff(east["count"]) >= 0)
    assert r["evacuation"]["out"][-1] == 60
    # Gathering again needs a fresh world; writing twice needs a second start.
    with pytest.raises(throng.Error) as e:
        w.start_results(tmp_path / "again")
    assert e.value.code == throng.ErrorCode.TH_ERR_STATE
    with pytest.raises(throng.Error) as e:
        w.write_results()
    assert e.value.code == throng.ErrorCode.TH_ERR_STATE
    fresh, _ = build()
    with pytest.raises(throng.Error) as e:
        fresh.start_results(tmp_path / "r" / "flows.csv" / "x")
    assert e.value.code == throng.ErrorCode.TH_ERR_IO
    assert str(e.value).startswith("TH_ERR_IO: start_results: ") and "flows.csv" in str(e.value)
