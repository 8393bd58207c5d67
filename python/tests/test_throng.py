"""Tests of the throng Python package.

The references are independent of the package: the ``throng`` command line (THRONG_CLI, the
build's build/release/throng by default) runs the same scene with the same seed and threads,
and its --json report and state hash must be what Python reads.
"""
import gc
import json
import math
import os
import subprocess
import threading
import time

import numpy as np
import pytest

import throng
import worlds

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENES = os.path.join(ROOT, "scenes")
CLI = os.environ.get("THRONG_CLI", os.path.join(ROOT, "build", "release", "throng"))


def scene(name):
    return os.path.join(SCENES, name + ".yaml")


def cli_json(tmp_path, path, steps, seed, threads):
    """`throng run` with --json: the document it writes."""
    if not os.access(CLI, os.X_OK):
        pytest.skip(f"no command line at {CLI} (set THRONG_CLI)")
    out = tmp_path / "cli.json"
    r = subprocess.run([CLI, "run", path, "--steps", str(steps), "--seed", str(seed), "--threads",
                        str(threads), "--headless", "--no-progress", "--json", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    printed = [line.split()[1] for line in r.stdout.splitlines() if line.startswith("hash ")]
    doc = json.loads(out.read_text())
    assert printed == [doc["hash"]]
    return doc


def street(threads=2, seed=1):
    """The C examples' world (examples/minimal.c, examples/host.cpp) built from Python."""
    return worlds.street(200, per_row=24, threads=threads, seed=seed)[0]


# ---- the same state and figures as the C library ---------------------------------------

@pytest.mark.parametrize("name,steps,seed,threads", [
    ("rubble", 300, 5, 2),
    ("exits", 300, 3, 1),
    ("corridor_flow", 200, 9, 2),
])
def test_report_and_hash_equal_the_command_line(tmp_path, name, steps, seed, threads):
    ref = cli_json(tmp_path, scene(name), steps, seed, threads)
    w = throng.load(scene(name), seed=seed, threads=threads)
    assert w.run(steps) == ref["run"]["steps"]
    rep = w.report()
    assert f"0x{w.hash():016x}" == ref["hash"]
    # Everything but what measures the machine's speed or names the build.
    for key in ("performance", "build"):
        ref.pop(key)
        rep.pop(key)
    assert rep == ref


def test_hash_independent_of_threads():
    hashes = set()
    for threads in (1, 2, 3):
        w = throng.load(scene("rubble"), seed=11, threads=threads)
        w.step(150)
        hashes.add(w.hash())
    assert len(hashes) == 1


def test_world_in_code_equals_the_c_example():
    # examples/host.cpp prints this hash for the same world after 600 steps (tests/test_install.sh
    # checks host.cpp against the command line); a different build of the world would differ.
    w = street()
    w.step(600)
    a, b = street(threads=1), street(threads=3)
    a.step(600)
    b.step(600)
    assert w.hash() == a.hash() == b.hash()
    assert w.stats()["sheltered"] + w.agent_count == 200


def test_seed_changes_the_run():
    a = throng.load(scene("rubble"), seed=1, threads=1)
    b = throng.load(scene("rubble"), seed=2, threads=1)
    a.step(60)
    b.step(60)
    assert a.hash() != b.hash()


# ---- building and reading -----------------------------------------------------------------

def test_round_trips():
    w = throng.World(40, 20, cell_size=1, seed=4, threads=1)
    assert w.info["cols"] == 40 and w.info["rows"] == 20
    w.set_cell(10, 5, "destructible")
    w.set_cell(11, 5, "open", cost=7)
    assert w.cell(10, 5)[0] == "destructible"
    assert w.cell(11, 5) == ("open", 7)
    assert w.cell(-1, 0)[0] == "wall"
    b = w.add_bunker("depot", (35, 8, 37, 11), capacity=3)
    assert w.bunker("depot")["cells"] == (35, 8, 37, 11) and w.bunker(b)["capacity"] == 3
    c = w.add_crowd("walkers", model="pedestrian", goal="shelter", desired_speed=1.1,
                    body_radius=0.25)
    r = w.add_crowd("patrol", model="pedestrian", goal="route", route=[(5, 15), (30, 15)],
                    route_mode="patrol")
    assert w.crowds == ["walkers", "patrol"]
    ids = w.add_agents(c, np.array([[2.5, 2.5], [4.5, 3.5], [6.5, 2.5]]))
    rid = w.add_agent(r, (5, 15), velocity=(0.5, 0))
    assert ids.dtype == np.uint64 and len(set(ids.tolist()) | {rid}) == 4
    st = w.agent(int(ids[1]))
    assert st["crowd"] == c and st["position"] == pytest.approx((4.5, 3.5))
    assert w.agent(rid)["velocity"] == pytest.approx((0.5, 0.0))
    area = w.add_measure_area("middle", (15, 0, 25, 20), lanes="x")
    line = w.add_measure_line("gate", (20, 0), (20, 20), window=2)
    f = w.add_destinations([(38, 1), (38, 18, 5.0)])
    sp = w.add_spawner(c, (1, 1, 5, 5), rate=2.0, stop=5.0, name="door")
    ex = w.add_exit(field=f, name="far", crowds=[r])
    assert (area, line, f, sp, ex) == (0, 0, 0, 0, 0)
    info = w.info
    assert (info["areas"], info["lines"], info["spawners"], info["exits"]) == (1, 1, 1, 1)
    w.step(120)
    a = w.agents
    assert len(a) == w.agent_count == w.stats()["agents"]
    assert a.position.shape == (len(a), 2) and a.position.dtype == np.float32
    assert a.velocity.shape == (len(a), 2) and a.crowd.dtype == np.uint16
    assert a.state.dtype == np.uint8 and a.id.dtype == np.uint64
    # The arrays agree with the per-agent reads.
    for k in range(len(a)):
        one = w.agent(int(a.id[k]))
        assert one["position"] == pytest.approx(tuple(a.position[k]), abs=1e-6)
        assert one["crowd"] == a.crowd[k]
    # 2 per second: floor(2 * 119 / 60) owed by the start of the 120th step.
    assert w.stats()["spawned"] == 4 + 3 == 4 + w.report()["spawners"][0]["added"]
    m = w.measure_area("middle")
    assert m["name"] == "middle" and m["count"] >= 0
    assert w.measure_line(0)["name"] == "gate"
    assert np.array_equal(w.positions(), a.position)


def test_events_change_the_world():
    w = throng.World(30, 10, cell_size=1, seed=1, threads=1)
    for y in range(10):
        w.set_cell(15, y, "destructible")
    w.add_bunker("b", (27, 4, 28, 5))
    c = w.add_crowd("c", model="pedestrian", goal="shelter")
    w.add_agents(c, [(3.5, 4.5), (4.5, 5.5)])
    w.step(1)
    assert np.all(w.agents.state & throng.AGENT_STRANDED)  # walled off
    w.break_walls((15, 0, 15, 9))
    w.step(1)
    assert w.cell(15, 3)[0] == "open"
    assert not np.any(w.agents.state & throng.AGENT_STRANDED)
    w.set_cost((20, 0, 22, 9), 50)
    w.step(1)
    assert w.cell(21, 4) == ("open", 50)
    w.destroy_bunker("b")
    w.step(1)
    assert w.bunker("b")["destroyed"]
    w.restore_bunker(0, at=w.step_count + 2)
    w.step(2)
    assert w.bunker(0)["destroyed"]
    w.step(1)
    assert not w.bunker(0)["destroyed"]
    w.block_cells((5, 0, 5, 9))
    w.step(1)
    assert w.cell(5, 1)[0] == "wall"
    w.open_cells((5, 0, 5, 9))
    w.step(1)
    assert w.cell(5, 1) == ("open", 1)
    events = [e["event"] for e in w.report()["bunkers"][0]["events"]]
    assert events[:2] == ["destroyed", "restored"]


def test_set_crowd_changes_a_flocks_steering():
    w = throng.World(40, 40, wrap=True, seed=3, threads=2)
    c = w.add_crowd("sheep", max_speed=3.0)
    rng = np.random.default_rng(1)
    w.add_agents(c, rng.uniform(5, 35, (80, 2)), rng.uniform(-2.5, 2.5, (80, 2)))
    walkers = w.add_crowd("walkers", model="pedestrian")
    with pytest.raises(throng.Error, match="pedestrian"):
        w.set_crowd(walkers, max_speed=1.0)
    with pytest.raises(throng.Error, match="above the crowd's own"):
        w.set_crowd(c, max_speed=4.0)
    with pytest.raises(TypeError, match="unknown key"):
        w.set_crowd(c, speed=1.0)
    w.step(5)
    assert np.max(np.hypot(*w.agents.velocity.T)) > 1.5
    w.set_crowd(c, at=10, max_speed=1.0, alignment_weight=0.0)
    w.step(5)
    assert w.crowd_changes(c) == (0, 0)
    w.step(1)
    assert w.crowd_changes(c) == (1, 10)
    w.step(30)
    assert np.max(np.hypot(*w.agents.velocity.T)) <= 1.0 + 1e-5
    assert w.report()["crowd_changes"] == [{"crowd": "sheep", "changes": 1, "last_s": pytest.approx(10 / 60, abs=1e-5)}]


def test_evacuation_curve_and_trajectories():
    w = street()
    t = w.trajectories(300, every=30)
    assert len(set(t.frame.tolist())) == 11 and t.frame[0] == 0 and t.frame[-1] == 300
    first = t.frame == 0
    assert first.sum() == 200 and np.all(np.diff(t.id[first].astype(np.int64)) > 0)
    # The last frame is the world now.
    last = t.frame == 300
    a = w.agents
    order = np.argsort(a.id)
    assert np.array_equal(t.id[last], a.id[order])
    assert np.array_equal(t.x[last], a.position[order, 0])
    times = w.sheltered_times()
    assert len(times) == w.stats()["sheltered"] > 0
    assert np.all(np.diff(times) >= 0) and times[-1] <= w.time + 1e-9
    rep = w.report()["outcome"]
    if rep["sheltered_50_s"] is not None:
        k = math.ceil(0.5 * rep["reachable"])
        assert times[k - 1] == pytest.approx(rep["sheltered_50_s"], abs=1e-3)


def test_stall_figures_over_the_run():
    # Walkers clog a door too narrow for their bodies until it is widened at 25 s: nobody is
    # stalled at the end, but the report keeps the jam: the most at once and when, the
    # agent-seconds (the per-step stalled counts of stats() integrated here) and the longest.
    w = throng.load(os.path.join(ROOT, "tests", "data", "stall_jam.yaml"), threads=2)
    integral, peak, peak_at = 0.0, 0, None
    while w.step_count < 5400:
        w.step()
        st = w.stats()
        integral += st["stalled"] * w.timestep
        if st["stalled"] > peak:
            peak, peak_at = st["stalled"], st["step"] * w.timestep
        if st["sheltered"] == 8:
            break
    s = w.report()["stalls"]
    assert s["stalled"] == 0 and s["box_m"] is None
    assert s["peak"] == peak > 0
    assert s["peak_s"] == pytest.approx(peak_at, abs=1e-3)
    assert s["agent_seconds"] == pytest.approx(integral, abs=1e-3) and integral > 0
    assert s["longest_run_s"] > s["stall_time_s"] == 5
    assert s["queued"] == 0 and s["queued_peak"] >= 0


# ---- arrays are copies, valid as documented -------------------------------------------------

def test_agent_arrays_are_copies_that_stay_valid():
    w = street()
    w.step(10)
    a = w.agents
    snap = [x.copy() for x in a]
    w.step(50)
    for x, y in zip(a, snap):
        assert np.array_equal(x, y)  # unchanged by stepping
    assert not np.array_equal(w.agents.position, a.position)
    a.position[0, 0] = -1.0  # a copy: writing to it leaves the world alone
    assert w.agents.position.min() >= 0
    w.close()
    del w
    gc.collect()
    assert np.array_equal(a.velocity, snap[1])  # still valid after the world is gone
    with pytest.raises(ValueError):
        street().positions(np.zeros((3, 2), np.float32))


def test_positions_fill_the_callers_array():
    """positions(out) writes into the caller's array (no allocation per call: what makes it the
    fast read; its speed is the benchmark's business, docs/python.md) and refuses one it cannot
    fill."""
    w = throng.demo("flock", agents=100_000, seed=1, threads=2)
    w.step(1)
    out = np.full((100_000, 2), np.nan, np.float32)
    got = w.positions(out)
    assert got is out
    assert np.array_equal(out, w.agents.position)
    w.step(1)
    assert w.positions(out) is out and np.array_equal(out, w.agents.position)
    fresh = w.positions()
    assert fresh is not out and np.array_equal(fresh, out)
    for bad in (np.empty((99_999, 2), np.float32), np.empty((100_000, 2), np.float64),
                np.empty((2, 100_000), np.float32).T, np.empty((100_000, 3), np.float32)):
        with pytest.raises(ValueError):
            w.positions(bad)
    ro = np.empty((100_000, 2), np.float32)
    ro.setflags(write=False)
    with pytest.raises(ValueError):
        w.positions(ro)


# ---- errors --------------------------------------------------------------------------------

def test_scene_errors_carry_code_line_and_column(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: bad\nworld:\n  size: [10, 10]\n  colour: red\n")
    with pytest.raises(throng.Error) as e:
        throng.load(bad)
    assert e.value.code == throng.ErrorCode.TH_ERR_SCENE_KEY
    assert e.value.name == "TH_ERR_SCENE_KEY"
    assert (e.value.line, e.value.column) == (4, 3)
    assert "colour" in e.value.message and str(bad) in e.value.message
    bad.write_text("name: [unclosed\n")
    with pytest.raises(throng.Error) as e:
        throng.load(bad)
    assert e.value.code == throng.ErrorCode.TH_ERR_SCENE_SYNTAX and e.value.line >= 1
    with pytest.raises(throng.Error) as e:
        throng.load(tmp_path / "missing.yaml")
    assert e.value.code == throng.ErrorCode.TH_ERR_IO and e.value.line == 0


STANDING = """name: stand
steps: 30
map:
  cell_size: 0.5
  legend: {"#": wall, ".": open, "E": {bunker: exit}}
  ascii: |
    ##########
    #........E
    #........#
    ##########
crowds:
  - name: occupants
    count: 5
    spawn: {rect: [0.6, 0.6, 3, 1]}
    model: pedestrian
"""


def test_a_crowd_that_would_stand_beside_a_bunker_warns_as_the_command_line(tmp_path):
    scene_file = tmp_path / "stand.yaml"
    scene_file.write_text(STANDING)
    with pytest.warns(UserWarning, match=r"stand.yaml:12:5: crowds\[0\]: crowd 'occupants' has "
                      r"no goal and no heading: its 5 agent\(s\) will stand where they start"):
        w = throng.load(scene_file)
    w.run(30)
    s = w.report()["scene"]
    assert s["warnings"] == 1 and "crowd 'occupants' has no goal" in s["warning"]
    # Fleeing, it loads without a word.
    scene_file.write_text(STANDING + "    behavior: flee\n")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        throng.load(scene_file)


def test_api_errors_map_to_exceptions():
    w = throng.World(20, 20, cell_size=1, threads=1)
    w.set_cell(5, 5, "wall")
    c = w.add_crowd("c")
    with pytest.raises(throng.Error) as e:
        w.add_agent(c, (5.5, 5.5))
    assert e.value.code == throng.ErrorCode.TH_ERR_BLOCKED
    with pytest.raises(throng.Error) as e:
        w.add_agents(c, [(1, 1), (2, 2), (50, 50)])
    assert e.value.code == throng.ErrorCode.TH_ERR_BLOCKED and "agent 2" in e.value.message
    assert w.agent_count == 2  # the agents before the refused one stay
    with pytest.raises(throng.Error) as e:
        w.add_agent(7, (1, 1))
    assert e.value.code == throng.ErrorCode.TH_ERR_HANDLE
    with pytest.raises(throng.Error) as e:
        w.add_crowd("x", max_speed=-1)
    assert e.value.code == throng.ErrorCode.TH_ERR_INVALID
    with pytest.raises(throng.Error) as e:
        w.add_crowd("x", no_such_parameter=1)
    assert "no_such_parameter" in e.value.message
    with pytest.raises(throng.Error):
        w.set_cell(1, 1, "lava")
    with pytest.raises(throng.Error) as e:
        w.destroy_bunker("nowhere")
    assert e.value.code == throng.ErrorCode.TH_ERR_HANDLE
    with pytest.raises(throng.Error):
        w.step(-1)
    with pytest.raises(throng.Error):
        throng.World(-5, 10)
    with pytest.raises(throng.Error):
        throng.World(10, 10, threads=1000)
    with pytest.raises((TypeError, ValueError)):
        w.add_agent(c, "here")
    with pytest.raises(throng.Error) as e:
        throng.demo("atlantis")
    assert e.value.code == throng.ErrorCode.TH_ERR_INVALID
    assert e.value.meaning.startswith("an argument")
    w.close()
    with pytest.raises(RuntimeError):
        w.step()
    with pytest.raises(RuntimeError):
        w.agents


def test_hostile_input_raises_never_crashes():
    w = throng.World(20, 20, cell_size=1, threads=1)
    c = w.add_crowd("c")
    for bad in [(math.nan, 1.0), (math.inf, 1.0), (1e30, 1.0), (-1.0, 1.0)]:
        with pytest.raises(throng.Error):
            w.add_agent(c, bad)
    with pytest.raises(throng.Error):
        w.add_agent(c, (1, 1), velocity=(math.nan, 0))
    with pytest.raises(throng.Error):
        w.add_agents(c, np.zeros((3, 3)))
    with pytest.raises(throng.Error):
        w.add_crowd("r", goal="route", route=np.zeros((0, 2)))
    with pytest.raises(throng.Error):
        w.add_crowd("r", goal="route", route=np.ones((300, 2)))
    with pytest.raises(throng.Error):
        w.add_crowd("x", max_speed=math.nan)
    with pytest.raises(throng.Error):
        w.set_cell(1, 1, "open", cost=0)
    with pytest.raises(throng.Error):
        w.set_cell(100, 1, "wall")
    with pytest.raises(throng.Error):
        w.add_bunker("b", (5, 5, 2, 2))
    with pytest.raises(throng.Error):
        w.add_spawner(c, (1, 1, 2, 2), rate=-1)
    with pytest.raises(throng.Error):
        w.add_measure_line("l", (1, 1), (1, 1))
    with pytest.raises(throng.Error):
        w.add_measure_area("bad name!", (1, 1, 2, 2))
    with pytest.raises(throng.Error):
        w.add_destinations([])
    with pytest.raises(OverflowError):
        throng.load(scene("rubble"), seed=-1)
    with pytest.raises(ValueError):
        throng.load("a\0b")
    w.step(5)
    with pytest.raises(throng.Error):
        w.set_cost((0, 0, 3, 3), 5, at=2)  # in the past
    assert w.agent(0) is None and w.agent(2**64 - 1) is None
    with pytest.raises(throng.Error):
        w.remove_agent(12345)


def test_integers_out_of_range_raise_instead_of_wrapping(tmp_path):
    # An unsigned argument never wraps: 2**64 is not seed 0, 2**32 + 1 is not one thread.
    for kw in [{"seed": 2**64}, {"seed": -1}, {"threads": 2**32 + 1}, {"agent_capacity": 2**40}]:
        with pytest.raises(OverflowError, match="expected an integer in"):
            throng.World(20, 20, **kw)
    for kw in [{"seed": 2**64}, {"threads": 2**32}, {"agents": -1}]:
        with pytest.raises(OverflowError, match="expected an integer in"):
            throng.load(scene("rubble"), **kw)
    with pytest.raises(TypeError):
        throng.World(20, 20, seed=1.5)
    w = throng.World(20, 20, cell_size=1, seed=2**64 - 1, threads=1)  # the largest: accepted
    c = w.add_crowd("c")
    with pytest.raises(OverflowError):
        w.add_bunker("b", (1, 1, 2, 2), capacity=2**32)
    w.add_agent(c, (5, 5))
    with pytest.raises(OverflowError):
        w.agent(2**64)


def test_ctrl_c_stops_a_long_step():
    # SIGINT while step(10**12) runs: KeyboardInterrupt once the loop looks (about every 50 ms of
    # stepping), the steps taken so far kept; without the check it would run for ever.
    import signal
    for call in ("step", "run"):
        w = throng.World(20, 20, cell_size=1, threads=1)
        c = w.add_crowd("c")
        w.add_agent(c, (5, 5))
        started = threading.Event()
        timer = threading.Thread(target=lambda: (started.wait(), time.sleep(0.3),
                                                 signal.pthread_kill(threading.main_thread().ident,
                                                                     signal.SIGINT)))
        timer.start()
        started.set()
        with pytest.raises(KeyboardInterrupt):
            if call == "step":
                w.step(10**12)
            else:
                w.run(10**12, fixed=True)
        timer.join()
        assert 0 < w.step_count < 10**12
        w.step(3)  # the world goes on

    import glob
    files = sorted(glob.glob(os.path.join(ROOT, "fuzz", "corpus", "*", "*.yaml")))
    assert len(files) > 20
    outcomes = {}
    for f in files:
        try:
            w = throng.load(f, threads=1)
            w.step(2)
            outcomes["loaded"] = outcomes.get("loaded", 0) + 1
        except throng.Error as e:
            assert e.message and e.name == e.code.name
            outcomes[e.name] = outcomes.get(e.name, 0) + 1
    assert outcomes.get("loaded", 0) > 0 and len(outcomes) > 3


# ---- memory and threads --------------------------------------------------------------------

def rss_kib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def test_no_leak_over_10000_cycles():
    def cycle(n):
        for _ in range(n):
            w = throng.World(20, 20, cell_size=1, threads=1)
            c = w.add_crowd("c", model="pedestrian", goal="shelter")
            w.add_bunker("b", (18, 18, 19, 19))
            w.add_agents(c, [(1.5, 1.5), (2.5, 2.5), (3.5, 1.5)])
            w.step(3)
            w.agents
            w.report()
            del w  # destroyed by the garbage collector, not close()
    cycle(500)  # warm up allocator pools
    before = rss_kib()
    cycle(10_000)
    gc.collect()
    grown = rss_kib() - before
    # One world is ~100 KiB: a leak of any world would grow by about 1 GiB.
    assert grown < 8 * 1024, f"resident memory grew by {grown} KiB"


def test_worlds_step_in_parallel_threads():
    def run(seed, out):
        w = throng.load(scene("rubble"), seed=seed, threads=1)
        w.step(400)
        out[seed] = w.hash()

    serial = {}
    for seed in range(4):
        run(seed, serial)
    parallel = {}
    ts = [threading.Thread(target=run, args=(seed, parallel)) for seed in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert parallel == serial and len(set(serial.values())) == 4


def test_step_releases_the_gil_and_guards_the_world():
    w = throng.demo("flock", agents=20_000, seed=1, threads=1)
    ticks = 0
    refused = 0
    t = threading.Thread(target=w.step, args=(40,))
    t.start()
    while t.is_alive():
        ticks += 1
        try:
            w.agent_count
        except RuntimeError:
            refused += 1
        time.sleep(0.001)
    t.join()
    assert w.step_count == 40
    assert ticks > 5  # this thread ran while the other stepped
    assert refused > 0  # and was kept off the stepping world


# ---- documentation -------------------------------------------------------------------------

def test_help_and_stub():
    import pydoc
    text = pydoc.render_doc(throng, renderer=pydoc.plaintext)
    for word in ("load(", "World", "step(", "agents", "report(", "Error", "copies"):
        assert word in text
    for name in throng.__all__:
        assert getattr(throng, name).__doc__ or name.startswith(("AGENT_", "__"))
    assert throng.version() == throng.__version__


def test_stub_matches_the_package():
    import ast
    import inspect
    stub = os.path.join(os.path.dirname(throng.__file__), "__init__.pyi")
    tree = ast.parse(open(stub).read())

    def params(fn):
        a = fn.args
        return ([x.arg for x in a.posonlyargs + a.args] + ([a.vararg.arg] if a.vararg else [])
                + [x.arg for x in a.kwonlyargs] + ([a.kwarg.arg] if a.kwarg else []))

    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    for name in ("load", "demo", "version", "read_results", "elevator_travel_time", "clean_air",
                 "fed_rate", "check"):
        sig = inspect.signature(getattr(throng, name))
        assert params(funcs[name]) == list(sig.parameters), name
    for cls in (throng.World, throng.Planner):
        methods = {n.name: n for n in classes[cls.__name__].body if isinstance(n, ast.FunctionDef)}
        public = [m for m in vars(cls)
                  if not m.startswith("_") or m in ("__init__", "__enter__", "__exit__")]
        assert set(public) == set(methods), cls
        for m in public:
            obj = vars(cls)[m]
            if callable(obj):
                assert params(methods[m]) == list(inspect.signature(obj).parameters), m
    codes = [n.targets[0].id for n in classes["ErrorCode"].body]
    assert codes == [c.name for c in throng.ErrorCode]


# ---- steering agents from the host ----------------------------------------------------------

def test_a_preferred_velocity_steers_an_agent():
    w = throng.World(60, 60, threads=1)
    c = w.add_crowd("walkers", model="pedestrian", heading=(-1, 0), desired_speed_sd=0)
    v = (0.9, 0.5)
    a = w.add_agent(c, (10, 10), v)
    assert w.agent_preferred_velocity(a) is None
    w.set_agent_preferred_velocity(a, v)
    assert w.agent_preferred_velocity(a) == pytest.approx(v)
    dt = w.timestep
    for _ in range(120):
        before = np.array(w.agent(a)["position"])
        w.step()
        moved = np.array(w.agent(a)["position"]) - before
        assert moved == pytest.approx(np.array(v) * dt, abs=1e-4)
    # Longer than max_speed (2.5 m/s for pedestrians): clamped, direction kept.
    w.set_agent_preferred_velocity(a, (30, 40))
    assert w.agent_preferred_velocity(a) == pytest.approx((1.5, 2.0), abs=1e-5)
    # Cleared: the crowd's heading (west) again.
    w.clear_agent_preferred_velocity(a)
    assert w.agent_preferred_velocity(a) is None
    w.step(180)
    vx, vy = w.agent(a)["velocity"]
    assert vx < -1.0 and abs(vy) < 0.05


def test_a_teleported_agent_is_found_at_its_new_place():
    w = throng.World(40, 30, cell_size=1, threads=2)
    w.set_cell(20, 15, "wall")
    c = w.add_crowd("flock")
    rng = np.random.default_rng(3)
    pos = rng.uniform((1, 1), (19, 29), size=(200, 2)).astype(np.float32)
    ids = w.add_agents(c, pos)
    w.step(5)
    a = int(ids[0])
    w.set_agent_position(a, (30.5, 10.5))
    state = w.agent(a)
    assert state["position"] == (30.5, 10.5) and state["velocity"] == (0.0, 0.0)
    agents = w.agents
    i = int(np.flatnonzero(agents.id == a)[0])
    assert tuple(agents.position[i]) == (30.5, 10.5)
    # The neighbours against brute force over the agent arrays: nearest first, then by slot
    # (offsets in float32 as the engine takes them, squared in float64).
    for agent_id in (a, int(ids[1]), int(ids[2])):
        for radius in (0.0, 1.5, 4.0, 100.0):
            me = int(np.flatnonzero(agents.id == agent_id)[0])
            off = (agents.position - agents.position[me]).astype(np.float64)
            d2 = off[:, 0] * off[:, 0] + off[:, 1] * off[:, 1]
            order = sorted((d2[j], int(agents.id[j]) & 0xffffffff, int(agents.id[j]))
                           for j in range(len(agents.id)) if j != me and d2[j] <= radius ** 2)
            got = w.agent_neighbors(agent_id, radius)
            assert got.dtype == np.uint64
            assert [int(x) for x in got] == [k for _, _, k in order], (agent_id, radius)
    assert len(w.agent_neighbors(a, 5.0)) == 0  # nobody near its new place
    w.step()
    assert w.agent(a)["position"][0] > 25  # and it stays there


def test_an_own_body_radius_spaces_two_walkers():
    """Two standing walkers 0.25 m apart in a crowd of 0.3 m bodies are pushed apart to 0.6 m;
    given 0.1 m bodies of their own they stay; bad radii are refused."""
    apart = []
    for own in (False, True):
        w = throng.World(20, 20, cell_size=1, threads=2)
        c = w.add_crowd("c", model="pedestrian", body_radius=0.3)
        ids = [w.add_agent(c, (10 + 0.25 * i, 10)) for i in range(2)]
        for a in ids:
            w.set_agent_preferred_velocity(a, (0, 0))
            if own:
                w.set_agent_radius(a, 0.1)
        assert w.agent_radius(ids[0]) == pytest.approx(0.1 if own else 0.3)
        w.step(40)
        p0, p1 = (np.array(w.agent(a)["position"]) for a in ids)
        apart.append(float(np.hypot(*(p1 - p0))))
    assert apart[0] > 0.57 and 0.2 < apart[1] < 0.3, apart
    for bad in (0.0, -1.0, 0.31, math.nan):
        with pytest.raises(throng.Error) as e:
            w.set_agent_radius(ids[0], bad)
        assert e.value.code == throng.ErrorCode.TH_ERR_INVALID
    with pytest.raises(KeyError):
        w.agent_radius(99)


def test_steering_calls_refuse_bad_input():
    w = throng.World(20, 20, cell_size=1, threads=1)
    w.set_cell(5, 5, "wall")
    c = w.add_crowd("c", model="pedestrian")
    a = w.add_agent(c, (2, 2))
    with pytest.raises(throng.Error) as e:
        w.set_agent_position(a, (5.5, 5.5))
    assert e.value.code == throng.ErrorCode.TH_ERR_BLOCKED
    with pytest.raises(throng.Error) as e:
        w.set_agent_position(a, (25, 5))
    assert e.value.code == throng.ErrorCode.TH_ERR_BLOCKED
    with pytest.raises(throng.Error) as e:
        w.set_agent_position(a, (math.nan, 5))
    assert e.value.code == throng.ErrorCode.TH_ERR_INVALID
    assert w.agent(a)["position"] == (2.0, 2.0)  # left where it was
    with pytest.raises(throng.Error) as e:
        w.set_agent_preferred_velocity(a, (math.inf, 0))
    assert e.value.code == throng.ErrorCode.TH_ERR_INVALID
    for call in (lambda: w.set_agent_preferred_velocity(99, (1, 0)),
                 lambda: w.clear_agent_preferred_velocity(99),
                 lambda: w.set_agent_position(99, (1, 1)),
                 lambda: w.agent_neighbors(99, 1.0)):
        with pytest.raises(throng.Error) as e:
            call()
        assert e.value.code == throng.ErrorCode.TH_ERR_HANDLE
    assert w.agent_preferred_velocity(99) is None
    with pytest.raises(throng.Error) as e:
        w.agent_neighbors(a, -1.0)
    assert e.value.code == throng.ErrorCode.TH_ERR_INVALID
    with pytest.raises((TypeError, ValueError)):
        w.set_agent_position(a, "here")
    with pytest.raises(OverflowError):
        w.set_agent_position(-1, (1, 1))
    w.close()
    with pytest.raises(RuntimeError):
        w.set_agent_position(a, (1, 1))


def test_properties_read_and_methods_compute():
    """docs/python.md's rule: a property reads what the world holds, takes no argument and
    changes nothing; everything else is a method. The properties are exactly those the page
    lists, and reading every one leaves the world's hash as it was."""
    props = {n for n, v in vars(throng.World).items() if isinstance(v, property)}
    listed = {"step_count", "time", "timestep", "scene_over", "info", "crowds", "agent_count",
              "agents", "bunkers", "exits", "spawners", "levels", "stairs", "elevators",
              "groups"}
    assert props == listed
    doc = open(os.path.join(ROOT, "docs", "python.md")).read()
    rule = doc[doc.index("**Properties or methods.**"):]
    rule = rule[:rule.index("\n\n")]
    for p in props:
        assert "`%s`" % p in rule, p
    w = street()
    w.step(30)
    h = w.hash()
    for p in sorted(props):
        getattr(w, p)
    assert w.hash() == h and w.step_count == 30


def test_trajectories_carry_the_level():
    """Each row's level is the building level whose cells hold its position (the report's
    rectangles, recomputed here by hand), -1 in a world without levels."""
    w = throng.load(scene("tower"), threads=2)
    t = w.trajectories(200, every=50)
    rects = [l["cells"] for l in w.report()["levels"]]
    cs = w.info["cell_size"]
    assert len(rects) == 3 and len(t) > 0
    seen = set()
    for x, y, lv in zip(t.x, t.y, t.level):
        cx, cy = int(math.floor(x / cs)), int(math.floor(y / cs))
        want = next((i for i, (x0, y0, x1, y1) in enumerate(rects)
                     if x0 <= cx <= x1 and y0 <= cy <= y1), -1)
        assert lv == want, (x, y, lv, want)
        seen.add(int(lv))
    assert seen == {0, 1, 2}
    assert t.level.dtype == np.int32
    plain = street().trajectories(5)
    assert np.all(plain.level == -1) and len(plain.level) == len(plain.x)
