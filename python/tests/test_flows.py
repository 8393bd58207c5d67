"""Stalls, flows and paths from Python: stall figures against World.report(), the river maps'
and destination fields' paths against their costs, A* paths, walls, walking speeds, and the
counts of exits and spawners."""
import math
import os

import numpy as np
import pytest

import throng
from worlds import street

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def check_cell_path(w, path, cell_ok):
    """Cell centres, each adjacent (8 neighbours) to the next, on open ground, the last one
    accepted by ``cell_ok``; returns the path's length in metres."""
    assert path.dtype == np.float32 and path.ndim == 2 and path.shape[1] == 2 and len(path) >= 1
    cells = np.floor(path).astype(int)
    assert np.allclose(path, cells + 0.5)
    steps = np.abs(np.diff(cells, axis=0))
    assert np.all(steps.max(axis=1) == 1), "consecutive cells are neighbours"
    for x, y in cells:
        assert w.cell(int(x), int(y))[0] == "open"
    assert cell_ok(*cells[-1])
    return float(np.sum(np.hypot(steps[:, 0], steps[:, 1])))


def in_rect(r):
    return lambda x, y: r[0] <= x <= r[2] and r[1] <= y <= r[3]


def test_stall_info_is_the_reports_stalls():
    w = throng.load(os.path.join(ROOT, "tests", "data", "stall_jam.yaml"), threads=2)
    saw_stalled = False
    while w.step_count < 5400:
        w.step(150)
        s, r = w.stall_info(), w.report()["stalls"]
        assert s["stalled"] == r["stalled"] and s["peak"] == r["peak"]
        assert s["stall_time"] == r["stall_time_s"] == 5
        assert s["longest"] == pytest.approx(r["longest_s"], abs=1e-3)
        assert s["agent_seconds"] == pytest.approx(r["agent_seconds"], abs=1e-3)
        assert s["longest_run"] == pytest.approx(r["longest_run_s"], abs=1e-3)
        assert (s["queued"], s["queued_peak"]) == (r["queued"], r["queued_peak"])
        assert s["stalled"] == w.stats()["stalled"]
        if s["stalled"]:
            saw_stalled = True
            assert s["box"] == pytest.approx(r["box_m"], abs=1e-3)
            # The box holds the agents flagged stalled.
            a = w.agents
            p = a.position[(a.state & throng.AGENT_STALLED) != 0]
            x0, y0, x1, y1 = s["box"]
            assert len(p) == s["stalled"]
            assert np.all((p[:, 0] >= x0 - 1e-4) & (p[:, 0] <= x1 + 1e-4))
            assert np.all((p[:, 1] >= y0 - 1e-4) & (p[:, 1] <= y1 + 1e-4))
        else:
            assert s["box"] == (0, 0, 0, 0) and r["box_m"] is None
        if r["peak_s"] is None:
            assert s["peak_time"] == 0
        else:
            assert s["peak_time"] == pytest.approx(r["peak_s"], abs=1e-3)
        if w.stats()["sheltered"] == 8:
            break
    assert saw_stalled and w.stall_info()["peak"] > 0


def test_shelter_paths_step_cell_by_cell_to_the_bunker_at_their_cost():
    w, c, _ = street(40)
    w.step()
    bunkers = [in_rect(b["cells"]) for b in w.bunkers]
    for p in [(5.5, 2.5), (20.2, 15.7), (29.5, 3.5), (40.5, 17.5), (55.3, 1.2)]:
        path = w.shelter_path(p)
        assert tuple(np.floor(path[0])) == tuple(np.floor(p))
        b = w.nearest_bunker(p)
        length = check_cell_path(w, path, bunkers[b])
        cost = w.cost_to_shelter(p)
        # Cost 1 everywhere: the cost is the metres walked from the cell centre, give or take
        # the way the field is interpolated inside the start cell.
        assert cost == pytest.approx(length, abs=1.0), p
        d = w.flow(p)
        assert math.hypot(*d) == pytest.approx(1.0, abs=1e-4)
        # The flow points the way of the path's first steps.
        ahead = path[min(2, len(path) - 1)] - np.asarray(p)
        assert np.dot(d, ahead) > 0
        bd = w.bunker_flow(b, p)
        assert bd == pytest.approx(d, abs=1e-4)
    assert w.nearest_bunker((45.5, 5.5)) == 1 and w.nearest_bunker((10.5, 5.5)) == 0
    assert w.flow((1.5, 9.5)) == (0.0, 0.0)  # inside a bunker
    assert w.cost_to_shelter((30.5, 3.5)) == math.inf and w.nearest_bunker((30.5, 3.5)) is None
    assert w.flow((30.5, 3.5)) is None
    assert w.cost_to_shelter((-1, 5)) == math.inf
    with pytest.raises(throng.Error):
        w.shelter_path((30.5, 3.5))  # in the wall
    # A dearer street: the cost counts it, the cell path is the same shape.
    w.set_cost((3, 0, 12, 19), 5)
    w.step()
    assert w.cost_to_shelter((10.5, 2.5)) > 4 * 6


def test_destination_paths_end_in_a_goal_at_their_cost():
    w, c, _ = street(40)
    goals = [(50, 3), (50, 16, 4.0)]
    f = w.add_destinations(goals)
    assert w.info["destinations"] == 1
    for p in [(5.5, 5.5), (20.5, 12.5), (45.5, 10.5), (52.5, 16.5)]:
        path = w.destination_path(f, p)
        length = check_cell_path(w, path, lambda x, y: (x, y) in {(50, 3), (50, 16)})
        end = tuple(int(v) for v in np.floor(path[-1]))
        weight = 4.0 if end == (50, 16) else 0.0
        assert w.destination_cost(f, p) == pytest.approx(length + weight, abs=1.0), p
        d = w.destination_flow(f, p)
        assert math.hypot(*d) == pytest.approx(1.0, abs=1e-4)
    # The weight makes the farther goal win from nearer the weighted one.
    assert tuple(np.floor(w.destination_path(f, (50.5, 10.5))[-1])) == (50, 3)
    assert tuple(np.floor(w.destination_path(f, (50.5, 12.5))[-1])) == (50, 16)
    assert w.destination_cost(f, (30.5, 3.5)) == math.inf
    assert w.destination_flow(f, (30.5, 3.5)) is None
    for bad in (lambda: w.destination_cost(3, (5, 5)), lambda: w.destination_path(3, (5, 5)),
                lambda: w.destination_flow(3, (5, 5))):
        with pytest.raises(throng.Error) as e:
            bad()
        assert e.value.code == throng.ErrorCode.TH_ERR_HANDLE


def test_find_path_goes_round_the_wall():
    w, c, _ = street(40)
    path, cost = w.find_path((10.5, 2.5), (50.5, 2.5))
    assert tuple(path[0]) == (10.5, 2.5) and tuple(path[-1]) == (50.5, 2.5)
    legs = float(np.sum(np.hypot(*np.diff(path.astype(np.float64), axis=0).T)))
    # Through the gap at y 9-10: longer than the straight line, the pulled path no dearer.
    assert cost > 40 and legs <= cost + 1e-3
    assert any(abs(x - 30.5) < 1 for x, _ in path)
    with pytest.raises(throng.Error) as e:
        w.find_path((10.5, 2.5), (30.5, 2.5))  # into the wall
    assert e.value.code in (throng.ErrorCode.TH_ERR_BLOCKED, throng.ErrorCode.TH_ERR_UNREACHABLE)



def test_find_path_ida_matches_a_star():
    w, c, _ = street(40)
    path, cost = w.find_path_ida((10.5, 2.5), (50.5, 2.5))
    _, a_star = w.find_path((10.5, 2.5), (50.5, 2.5))
    assert cost == a_star
    assert tuple(path[0]) == (10.5, 2.5) and tuple(path[-1]) == (50.5, 2.5)
    assert any(abs(x - 30.5) < 1 for x, _ in path)
    with pytest.raises(throng.Error) as e:
        w.find_path_ida((10.5, 2.5), (30.5, 2.5))  # into the wall
    assert e.value.code == throng.ErrorCode.TH_ERR_UNREACHABLE
    with pytest.raises(throng.Error) as e:
        w.find_path_ida((10.5, 2.5), (50.5, 2.5), max_expansions=3)  # gives up
    assert e.value.code == throng.ErrorCode.TH_ERR_LIMIT
    with pytest.raises(OverflowError):
        w.find_path_ida((10.5, 2.5), (50.5, 2.5), max_expansions=-1)

def test_walls_and_walking_speeds():
    w, c, _ = street(40)
    w.step()  # the wall distances are built by the first step
    d, away = w.wall_distance((28.5, 3.5))
    assert 1.0 <= d <= 2.5 and away[0] < -0.9
    assert w.wall_distance((26.5, 3.5))[0] > d
    assert w.wall_distance((-1, 3.5)) == (0.0, (0.0, 0.0))
    assert throng.World(10, 10).wall_distance((5, 5)) == (math.inf, (0.0, 0.0))
    assert w.cell_speed(5, 5) == 1.0 and w.cell_speed(-1, 5) == 0.0
    w = street(40)[0]
    for x in range(0, 60):
        for y in range(0, 20):
            if w.cell(x, y)[0] == "open" and 12 <= x <= 25:
                w.set_cell_speed(x, y, 0.5)
    assert w.cell_speed(15, 3) == 0.5 and w.cell_speed(26, 3) == 1.0
    with pytest.raises(throng.Error) as e:
        w.set_cell_speed(15, 3, 0.0)
    assert e.value.code == throng.ErrorCode.TH_ERR_INVALID
    with pytest.raises(throng.Error):
        w.set_cell_speed(15, 3, 1.5)


def test_a_slow_floor_slows_the_walk():
    def speed(factor):
        w = throng.World(60, 6, cell_size=1, threads=1)
        if factor != 1:
            for x in range(60):
                for y in range(6):
                    w.set_cell_speed(x, y, factor)
        c = w.add_crowd("w", model="pedestrian", heading=(1, 0), desired_speed_sd=0)
        a = w.add_agent(c, (2.5, 3.0))
        w.step(300)
        x0 = w.agent(a)["position"][0]
        w.step(60)
        return (w.agent(a)["position"][0] - x0) / (60 * w.timestep)

    assert speed(0.5) == pytest.approx(0.5 * speed(1), rel=2e-3)


def test_exits_and_spawners_count_as_the_report_does():
    w = throng.load(os.path.join(ROOT, "scenes", "exits.yaml"), threads=2)
    w.step(300)
    r = w.report()
    assert [e["name"] for e in w.exits] == [e["name"] for e in r["exits"]]
    for got, want in zip(w.exits, r["exits"]):
        assert got["exited"] == want["exited"]
        if want["first_s"] is None:
            assert got["first_step"] == got["last_step"] == 0
        else:
            assert got["first_step"] * w.timestep == pytest.approx(want["first_s"], abs=1e-3)
            assert got["last_step"] * w.timestep == pytest.approx(want["last_s"], abs=1e-3)
    assert sum(e["exited"] for e in w.exits) == w.stats()["exited"]
    e0 = w.exit(w.exits[0]["name"])
    x0, y0, x1, y1 = e0["area"]
    cs = w.info["cell_size"]
    covered = [(x, y) for x in range(int(x0 / cs) - 1, int(x1 / cs) + 1)
               for y in range(int(y0 / cs) - 1, int(y1 / cs) + 1) if w.exit_covers(0, x, y)]
    # An exit given by cells covers cells inside its bounding box and nothing else; one given
    # by a rectangle covers none.
    assert all(x0 <= (x + 0.5) * cs <= x1 and y0 <= (y + 0.5) * cs <= y1 for x, y in covered)
    with pytest.raises(throng.Error):
        w.exit("nowhere")

    w = throng.load(os.path.join(ROOT, "scenes", "corridor_flow.yaml"), threads=2)
    w.step(600)
    r = w.report()
    assert len(w.spawners) == len(r["spawners"]) > 0
    for i, (got, want) in enumerate(zip(w.spawners, r["spawners"])):
        assert got["name"] == want["name"]
        assert got["emitted"] == want.get("emitted", got["emitted"])
        assert got["due"] == got["emitted"] + got["waiting"]
        assert got["crowd"] is not None and not got["done"]
        x0, y0, x1, y1 = got["area"]
        cs = w.info["cell_size"]
        cells = [(x, y) for x in range(int(x0 / cs), int(math.ceil(x1 / cs)))
                 for y in range(int(y0 / cs), int(math.ceil(y1 / cs)))]
        assert any(w.spawner_covers(i, x, y) for x, y in cells)
        assert not w.spawner_covers(i, -1, -1)
    assert sum(s["emitted"] for s in w.spawners) == w.stats()["spawned"]

    plain, _, _ = street(40)
    s = plain.add_spawner(0, (40, 2, 45, 6), rate=2, stop=5)
    e = plain.add_exit((50, 0, 55, 3), name="gate")
    assert plain.spawner(s)["total"] == 10 and plain.spawner(s)["area"] == (40, 2, 45, 6)
    assert plain.exit("gate")["area"] == (50, 0, 55, 3) and not plain.exit_covers(e, 51, 1)
    assert plain.spawner(s)["name"] == plain.spawners[s]["name"]


def test_door_flow_limits_hold_and_are_read_back():
    # A 3 m corridor of 30 agents walking east into an exit at its end, and a bunker across the
    # same corridor in a second world: each limited to 0.5 persons/s, far below the flow the
    # crowd makes, so the people out over time are the limit's.
    def corridor(door):
        w = throng.World(20, 3, cell_size=1, threads=2)
        if door == "bunker":
            c = w.add_crowd("w", model="pedestrian", goal="shelter")
            b = w.add_bunker("out", (18, 0, 19, 2), max_flow=0.5)
            assert w.bunker(b)["max_flow"] == 0.5
        else:
            c = w.add_crowd("w", model="pedestrian", heading=(1, 0))
            e = w.add_exit((18, 0, 20, 3), name="out", max_flow=0.5)
            assert w.exit(e)["max_flow"] == 0.5
        for k in range(30):
            w.add_agent(c, (1.0 + 0.5 * (k // 5), 0.5 + 0.5 * (k % 5)))
        return w

    for door in ("exit", "bunker"):
        w = corridor(door)
        w.step(round(20 / w.timestep))  # the first arrive after about 12 s
        out = 30 - w.stats()["agents"]
        w.step(round(20 / w.timestep))
        # 20 s at 0.5 persons/s: 10 more out, give or take one at either end.
        assert 9 <= 30 - w.stats()["agents"] - out <= 11, door
    w = throng.World(20, 3, cell_size=1)
    assert w.exit(w.add_exit((18, 0, 20, 3)))["max_flow"] == 0.0
    for bad in (-1.0, float("nan")):
        with pytest.raises(throng.Error) as e:
            w.add_exit((18, 0, 20, 3), max_flow=bad)
        assert e.value.code == throng.ErrorCode.TH_ERR_INVALID
        with pytest.raises(throng.Error):
            w.add_bunker("b", (0, 0, 0, 0), max_flow=bad)
