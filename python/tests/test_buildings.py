"""Buildings from Python: levels, stairs and elevators (docs/buildings.md), built in code and
loaded from scenes, read back through the getters and checked against World.report()."""
import json
import math
import os
import subprocess

import numpy as np
import pytest

import throng

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENES = os.path.join(ROOT, "scenes")
CLI = os.environ.get("THRONG_CLI", os.path.join(ROOT, "build", "release", "throng"))


def two_storeys(threads=1, walkers=12, stair=True):
    """Two 19 m x 10 m storeys side by side (ground: cells x 0-19, upper: 20-39), a stair from
    the ground (flight x 10-11, y 2-6, walled at the sides, climbing north) to a landing
    upstairs at (30, 7), and a bunker on the ground floor. Pedestrians upstairs flee to it."""
    w = throng.World(40, 10, cell_size=1, seed=3, threads=threads)
    for y in range(10):
        w.set_cell(19, y, "wall")
        w.set_cell(20, y, "wall")
    if stair:
        for y in range(2, 8):
            w.set_cell(9, y, "wall")  # the flight's side walls
            w.set_cell(12, y, "wall")
        for x in (10, 11):
            w.set_cell(x, 7, "wall")  # beyond the flight's top, on the ground
        for x in (30, 31):
            w.set_cell(x, 6, "wall")  # the stairwell behind the landing, upstairs
    w.add_level("ground", (0, 0, 19, 9), elevation=0)
    w.add_level("upper", (20, 0, 39, 9), elevation=3)
    if stair:
        w.add_stair("main", (10, 2, 11, 6), "north", (30, 7))
    w.add_bunker("door", (1, 1, 2, 2))
    c = w.add_crowd("staff", model="pedestrian", goal="shelter")
    ids = w.add_agents(c, [(23.5 + 1.2 * (i % 6), 1.5 + 1.5 * (i // 6)) for i in range(walkers)])
    return w, c, ids


def check_against_report(w, r=None):
    """The getters say what the run report (``r``, else World.report()) says of the
    building."""
    r = w.report() if r is None else r
    assert [l["name"] for l in r["levels"]] == [l["name"] for l in w.levels]
    for got, want in zip(w.levels, r["levels"]):
        assert got["cells"] == tuple(want["cells"])
        assert got["elevation"] == pytest.approx(want["elevation_m"])
        assert got["agents"] == want["agents"]
    assert len(r["stairs"]) == len(w.stairs)
    for got, want in zip(w.stairs, r["stairs"]):
        assert got["name"] == want["name"]
        assert w.levels[got["lower"]]["name"] == want["lower"]
        assert w.levels[got["upper"]]["name"] == want["upper"]
        for k in ("plan_length", "length", "rise"):
            assert got[k] == pytest.approx(want[k + "_m"], rel=1e-5)
        for k in ("up_factor", "down_factor"):
            assert got[k] == pytest.approx(want[k], rel=1e-5)
        for k in ("agents", "crossed_up", "crossed_down"):
            assert got[k] == want[k], k
    assert len(r["elevators"]) == len(w.elevators)
    for got, want in zip(w.elevators, r["elevators"]):
        assert got["name"] == want["name"]
        assert [w.levels[s["level"]]["name"] for s in got["stops"]] == [s["level"] for s in want["stops"]]
        assert [list(s["cell"]) for s in got["stops"]] == [s["cell"] for s in want["stops"]]
        assert w.levels[got["stops"][got["discharge"]]["level"]]["name"] == want["discharge"]
        for k in ("policy", "capacity", "trips", "carried", "riders", "waiting", "walking", "gave_up"):
            assert got[k] == want[k], k
        for k, rk in (("speed", "speed_ms"), ("acceleration", "acceleration_ms2"),
                      ("door_time", "door_time_s"), ("dwell", "dwell_s"),
                      ("board_time", "board_time_s"), ("radius", "radius_m"),
                      ("patience", "patience_s")):
            assert got[k] == pytest.approx(want[rk], rel=1e-5), k
        if want["last_out_s"] is None:
            assert got["last_out"] is None
        else:
            assert got["last_out"] == pytest.approx(want["last_out_s"], abs=1e-5)
        assert sum(got["stop_waiting"]) == got["waiting"]


def test_walkers_come_down_the_stair_to_the_ground_floor():
    w, c, ids = two_storeys()
    assert w.info["levels"] == 2 and w.info["stairs"] == 1
    ground, upper = w.find_level("ground"), w.find_level("upper")
    assert (ground, upper) == (0, 1)
    assert w.find_level("cellar") is None and w.find_stair("main") == 0
    assert w.level("upper")["cells"] == (20, 0, 39, 9) and w.level(1)["elevation"] == 3.0
    s = w.stair("main")
    assert (s["lower"], s["upper"], s["up"], s["landing"]) == (0, 1, "north", (30, 7))
    assert s["plan_length"] == pytest.approx(5.0) and s["rise"] == pytest.approx(3.0)
    assert s["length"] == pytest.approx(math.hypot(5, 3), rel=1e-6)
    assert w.level_at((5.5, 5.5)) == ground and w.level_at((25.5, 5.5)) == upper
    assert w.stair_at((10.5, 4.5)) == 0 and w.stair_at((12.5, 4.5)) is None
    start = {int(i): w.level_at(w.agent(int(i))["position"]) for i in ids}
    assert set(start.values()) == {upper}
    check_against_report(w)

    seen_on_stair, seen_down = set(), set()
    for _ in range(100):
        w.step(50)
        a = w.agents
        on = [w.level_at(tuple(p)) for p in a.position]
        levels = w.levels
        # Each level's count is the agents whose position it holds.
        assert [l["agents"] for l in levels] == [on.count(i) for i in range(2)]
        for i, p in zip(a.id, a.position):
            if w.stair_at(tuple(p)) is not None:
                seen_on_stair.add(int(i))
            if w.level_at(tuple(p)) == ground:
                seen_down.add(int(i))
        assert w.stair(0)["agents"] == sum(w.stair_at(tuple(p)) == 0 for p in a.position)
        check_against_report(w)
        if w.agent_count == 0:
            break
    # Every walker went down through the stair and sheltered on the ground floor.
    assert w.agent_count == 0 and w.bunker("door")["sheltered"] == len(ids)
    assert seen_on_stair == seen_down == set(start)
    s = w.stair(0)
    assert s["crossed_down"] - s["crossed_up"] == len(ids)
    assert [l["agents"] for l in w.levels] == [0, 0]


def test_the_stair_slows_the_walk():
    """Walking down the flight takes the slope length at the down factor of the free speed:
    the same walkers reach the door later with a slower stair."""
    def shelter_time(down):
        w = throng.World(40, 10, cell_size=1, seed=3, threads=1)
        for y in range(10):
            w.set_cell(19, y, "wall")
            w.set_cell(20, y, "wall")
        for y in range(2, 8):
            w.set_cell(9, y, "wall")
            w.set_cell(12, y, "wall")
        for x in (10, 11):
            w.set_cell(x, 7, "wall")
        for x in (30, 31):
            w.set_cell(x, 6, "wall")
        w.add_level("ground", (0, 0, 19, 9))
        w.add_level("upper", (20, 0, 39, 9), elevation=3)
        w.add_stair("main", (10, 2, 11, 6), "north", (30, 7), down_factor=down)
        w.add_bunker("door", (1, 1, 2, 2))
        c = w.add_crowd("staff", model="pedestrian", goal="shelter", desired_speed_sd=0)
        w.add_agent(c, (25.5, 2.5))
        assert w.stair(0)["down_factor"] == pytest.approx(down)
        w.run(6000)
        return w.sheltered_times()[0]

    fast, slow = shelter_time(1.0), shelter_time(0.25)
    # 5.83 m of slope at a quarter of the speed instead of all of it: about 13 s more.
    assert slow - fast == pytest.approx(5.83 * (1 / (0.25 * 1.34) - 1 / 1.34), rel=0.25)


def test_building_calls_refuse_bad_input():
    w = throng.World(40, 10, cell_size=1, threads=1)
    w.add_level("ground", (0, 0, 19, 9))
    for bad, code in ((lambda: w.add_level("ground", (20, 0, 39, 9)), "TH_ERR_INVALID"),
                      (lambda: w.add_level("over", (10, 0, 29, 9)), "TH_ERR_INVALID"),
                      (lambda: w.add_level("off", (30, 0, 49, 9)), "TH_ERR_INVALID"),
                      (lambda: w.level("cellar"), "TH_ERR_HANDLE"),
                      (lambda: w.level(5), "TH_ERR_HANDLE"),
                      (lambda: w.stair(0), "TH_ERR_HANDLE"),
                      (lambda: w.elevator("lift"), "TH_ERR_HANDLE"),
                      (lambda: w.add_stair("s", (2, 2, 3, 6), "up", (30, 7)), "TH_ERR_INVALID")):
        with pytest.raises(throng.Error) as e:
            bad()
        assert e.value.name == code, e.value
    w.add_level("upper", (20, 0, 39, 9), elevation=3)
    # Open cells beyond the flight's top: the edge cannot be glued.
    with pytest.raises(throng.Error) as e:
        w.add_stair("s", (10, 2, 11, 6), "north", (30, 7))
    assert e.value.code == throng.ErrorCode.TH_ERR_BLOCKED
    assert w.info["stairs"] == 0 and w.stairs == []
    flat = throng.World(10, 10)
    with pytest.raises(throng.Error):
        flat.add_level("ground", (0, 0, 9, 9))  # no map
    assert flat.level_at((5, 5)) is None and flat.levels == []


def test_an_elevator_carries_the_upper_floor_down():
    w, c, ids = two_storeys(walkers=6, stair=False)
    e = w.add_elevator("lift", [("ground", (15, 5)), ("upper", (35, 5))], [c], capacity=4,
                       speed=1.0, acceleration=0.5, start=1, board_time=0.5)
    assert w.find_elevator("lift") == e == 0 and w.info["elevators"] == 1
    info = w.elevator("lift")
    assert info["stops"] == [{"level": 0, "cell": (15, 5)}, {"level": 1, "cell": (35, 5)}]
    assert (info["discharge"], info["at"], info["state"], info["policy"]) == (0, 1, "idle", "shuttle")
    assert info["last_out"] is None and info["door_time"] == 2.0 and info["radius"] == 1.5
    check_against_report(w)
    rode = set()
    for _ in range(200):
        w.step(20)
        riding = [int(i) for i in w.agents.id if w.agent_elevator(int(i)) == e] if w.agent_count else []
        # Riders are out of the map: the agents riding are the car's riders.
        assert len(riding) == w.elevator(e)["riders"]
        rode.update(riding)
        if w.agent_count == 0:
            break
    info = w.elevator(e)
    assert w.agent_count == 0 and info["carried"] == len(ids) and rode == {int(i) for i in ids}
    assert info["trips"] >= 2 and info["last_out"] is not None  # 6 riders, 4 a trip
    check_against_report(w)
    with pytest.raises(throng.Error) as err:
        w.add_elevator("lift2", [("ground", (19, 5)), ("upper", (35, 6))], [c], capacity=2, speed=1)
    assert err.value.code in (throng.ErrorCode.TH_ERR_BLOCKED, throng.ErrorCode.TH_ERR_STATE,
                              throng.ErrorCode.TH_ERR_INVALID)
    with pytest.raises(throng.Error):
        w.add_elevator("lift3", [("ground", (15, 6))], [c], capacity=2, speed=1, policy="express")


def test_the_tower_scene_read_through_the_getters():
    w = throng.load(os.path.join(SCENES, "tower.yaml"), threads=2)
    assert [l["name"] for l in w.levels] == ["ground", "first", "second"]
    assert w.stair("east 1-2")["up"] == "south" and w.stair("east 1-2")["landing"] == (113, 2)
    lift = w.elevator("lift")
    assert lift["capacity"] == 6 and lift["speed"] == 1.5 and lift["board_time"] == 1.5
    assert [s["level"] for s in lift["stops"]] == [0, 1, 2]
    check_against_report(w)
    riders = 0
    for _ in range(40):
        w.step(100)
        check_against_report(w)
        riders = max(riders, w.elevator("lift")["riders"])
    assert riders > 0 and w.elevator("lift")["carried"] > 0
    assert sum(s["crossed_down"] - s["crossed_up"] for s in w.stairs) > 0


def test_elevator_travel_time_is_the_formula():
    assert throng.elevator_travel_time(7.0, 1.5, 1.0) == pytest.approx(7 / 1.5 + 1.5)
    assert throng.elevator_travel_time(1.0, 1.5, 1.0) == pytest.approx(2.0)  # never at top speed
    assert throng.elevator_travel_time(7.0, 1.5) == pytest.approx(7 / 1.5)
    assert throng.elevator_travel_time(0.0, 1.5, 1.0) == 0.0


def test_a_shelter_path_crosses_the_stair_seam():
    """Upstairs, the way to the door goes cell by cell to the landing, jumps the seam to the
    flight's top row, and goes on cell by cell down the flight to the bunker."""
    w, c, ids = two_storeys(walkers=1)
    w.step()
    path = w.shelter_path((25.5, 1.5))
    cells = np.floor(path).astype(int)
    assert tuple(cells[0]) == (25, 1) and w.level_at(tuple(path[0])) == 1
    bunker = w.bunker("door")["cells"]
    assert bunker[0] <= cells[-1][0] <= bunker[2] and bunker[1] <= cells[-1][1] <= bunker[3]
    steps = np.abs(np.diff(cells, axis=0)).max(axis=1)
    jumps = np.flatnonzero(steps > 1)
    assert len(jumps) == 1
    j = int(jumps[0])
    landing, top = tuple(cells[j]), tuple(cells[j + 1])
    assert landing in {(30, 7), (31, 7)} and top in {(10, 6), (11, 6)}
    assert w.stair_at(tuple(path[j + 1])) == 0
    assert {w.level_at(tuple(p)) for p in path[: j + 1]} == {1}
    assert {w.level_at(tuple(p)) for p in path[j + 1:]} == {0}
    walked = np.diff(cells, axis=0)
    walked = np.delete(walked, j, axis=0)
    length = float(np.sum(np.hypot(walked[:, 0], walked[:, 1])))
    # Dearer than the cells walked on the flat (the flight is slow), but not by more than the
    # whole flight's five cells at the time its slope and down factor take.
    s = w.stair(0)
    slow = s["length"] / (s["plan_length"] * s["down_factor"])
    assert length + 1 < w.cost_to_shelter((25.5, 1.5)) <= length + 1 + 5 * slow


def test_the_tower_getters_agree_with_the_command_line(tmp_path):
    """The same scene, seed, threads and steps run by ``throng run --json``: its building
    figures are what the getters read."""
    if not os.access(CLI, os.X_OK):
        pytest.skip(f"no command line at {CLI} (set THRONG_CLI)")
    out = tmp_path / "cli.json"
    r = subprocess.run([CLI, "run", os.path.join(SCENES, "tower.yaml"), "--steps", "1500",
                        "--seed", "5", "--threads", "2", "--headless", "--no-progress",
                        "--fixed-steps", "--json", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    doc = json.loads(out.read_text())
    w = throng.load(os.path.join(SCENES, "tower.yaml"), seed=5, threads=2)
    w.step(1500)
    assert f"0x{w.hash():016x}" == doc["hash"]
    check_against_report(w, doc)
    assert sum(s["crossed_down"] for s in w.stairs) > 0 and w.elevator("lift")["trips"] > 0


def test_a_bunker_can_be_the_buildings_exit():
    """``add_bunker(exit=True)``: the same in the simulation as a shelter (the same hash),
    read back as an exit and reported as one, as the tower scene's door is."""
    worlds = []
    for is_exit in (False, True):
        w = throng.World(20, 10, cell_size=1, seed=3)
        b = w.add_bunker("door", (0, 4, 0, 5), exit=is_exit)
        c = w.add_crowd("staff", model="pedestrian", goal="shelter")
        w.add_agents(c, [(10.5 + (i % 4), 2.5 + (i // 4)) for i in range(12)])
        w.step(600)
        assert w.bunker(b)["exit"] is is_exit
        assert [x["exit"] for x in w.report()["bunkers"]] == [is_exit]
        worlds.append(w)
    assert worlds[0].hash() == worlds[1].hash()
    assert worlds[1].bunker(0)["sheltered"] > 0
    tower = throng.load(os.path.join(SCENES, "tower.yaml"), threads=1)
    assert tower.bunker("door")["exit"] is True
