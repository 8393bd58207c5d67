"""Groups, squads, targets and the rest of the world's records from Python: trails, waypoint
graphs, foraging colonies, the run history, validation, phase timings and traces, and
throng.check. Each against World.report(), a scene's figures or what the calls promise."""
import math
import os

import numpy as np
import pytest

import throng

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENES = os.path.join(ROOT, "scenes")


def scene(name):
    return os.path.join(SCENES, name + ".yaml")


def test_a_group_waits_for_its_slowest_member():
    def run(grouped):
        w = throng.World(80, 10, cell_size=1, seed=4, threads=1)
        c = w.add_crowd("family", model="pedestrian", heading=(1, 0), desired_speed_sd=0)
        fast = w.add_agent(c, (5.5, 3.5))
        slow = w.add_agent(c, (5.5, 6.5))
        w.set_agent_speed(slow, 0.6)
        g = w.add_group([fast, slow], spread=2.0) if grouped else None
        waited = 0
        for _ in range(20):
            w.step(30)
            if grouped:
                waited = max(waited, w.group(g)["waiting"])
        gap = w.agent(fast)["position"][0] - w.agent(slow)["position"][0]
        return w, g, gap, waited

    w, g, gap, waited = run(True)
    _, _, apart, _ = run(False)
    assert apart > 6  # alone, the fast walker leaves the slow one behind
    assert gap < 4.5 and waited == 1  # together, it is held within twice the spread
    info = w.group(g)
    assert (info["members"], info["present"]) == (2, 2)
    assert info["stretch"] == pytest.approx(gap, abs=1.0)
    assert w.info["groups"] == 1 and w.groups == [info]
    with pytest.raises(throng.Error) as e:
        w.group(3)
    assert e.value.code == throng.ErrorCode.TH_ERR_HANDLE
    a = w.agents.id
    with pytest.raises(throng.Error):
        w.add_group([int(a[0])])  # too few
    with pytest.raises(throng.Error):
        w.add_group([int(a[0]), int(a[1])])  # already in a group
    birds = w.add_crowd("birds")
    b1, b2 = w.add_agent(birds, (40, 5)), w.add_agent(birds, (41, 5))
    with pytest.raises(throng.Error):
        w.add_group([b1, b2])  # boids


def test_a_squad_marches_to_its_goal_and_takes_a_recruit():
    w = throng.World(60, 20, cell_size=1, seed=1, threads=2)
    for y in range(20):
        if y < 8 or y > 12:
            w.set_cell(30, y, "wall")
    inf = w.add_crowd("infantry")
    s = w.add_squad(inf, 9, (10, 4), (50, 3), formation="box", files=3, spacing=1.2)
    info = w.squad(s)
    assert info["members"] == 9 and not info["arrived"] and not info["stuck"]
    ids, slots = w.squad_members(s)
    assert ids.dtype == np.uint64 and slots.shape == (9, 2) and len(set(ids.tolist())) == 9
    # Members stand on their slots at the start; the slots sit around the start.
    for i, slot in zip(ids, slots):
        assert w.agent(int(i))["position"] == pytest.approx(tuple(slot), abs=1e-4)
    assert np.mean(slots, axis=0) == pytest.approx((10, 4), abs=0.01)
    assert len(w.squad_path(s)) >= 2  # planned in the first step
    w.step()
    path = w.squad_path(s)
    assert len(path) == w.squad(s)["waypoints"] > 2
    assert tuple(path[-1]) == pytest.approx((50, 3)) and math.dist(path[0], (10, 4)) < 1
    assert any(abs(x - 30.5) < 2 and 7 <= y <= 14 for x, y in path)  # through the gap
    recruit = w.add_agent(inf, (8.5, 8.5))
    w.squad_join(s, recruit)
    ids, slots = w.squad_members(s)
    assert len(ids) == 10 and recruit in ids.tolist() and w.squad(s)["members"] == 10
    with pytest.raises(throng.Error) as e:
        w.squad_join(s, recruit)  # in a squad already
    assert e.value.code == throng.ErrorCode.TH_ERR_STATE
    with pytest.raises(throng.Error):
        w.set_agent_goal(recruit, point=(5.5, 5.5))  # a member walks to its slot
    w.run(4000)
    info = w.squad(s)
    assert info["arrived"] and math.dist(info["centre"], (50, 3)) < 1
    assert info["error"] <= 0.5
    arrivals = [e for e in w.history()["entries"] if e["kind"] == "squad_arrived"]
    assert [e["squad"] for e in arrivals] == [s]
    r = w.report()["squads"]
    assert r[0]["arrived"] and r[0]["members"] == 10
    assert r[0]["arrived_s"] == pytest.approx(arrivals[0]["step"] * w.timestep, abs=1e-3)
    for bad in (lambda: w.squad(4), lambda: w.squad_members(4), lambda: w.squad_path(4)):
        with pytest.raises(throng.Error) as e:
            bad()
        assert e.value.code == throng.ErrorCode.TH_ERR_HANDLE
    with pytest.raises(throng.Error):
        w.add_squad(inf, 4, (30.5, 3.5), (50, 15))  # slots in the wall
    with pytest.raises(throng.Error):
        w.add_squad(inf, 4, (10, 4), (50, 15), formation="blob")


def test_leaders_pursue_a_moving_target():
    w = throng.World(200, 60, seed=2, threads=2)
    t = w.add_target("point", position=(20, 30), velocity=(3, 0))
    flock = w.add_crowd("flock", target=t, max_speed=5)
    rng = np.random.default_rng(1)
    w.add_agents(flock, rng.uniform((10, 20), (30, 40), size=(60, 2)))
    w.step()
    (x, y), v = w.target(t)
    assert (x, y) == pytest.approx((20, 30), abs=1e-4) and v == pytest.approx((3, 0))
    w.step(600)  # 10 s
    (x, y), _ = w.target(t)
    assert x == pytest.approx(20 + 3 * 600 * w.timestep, abs=0.1)
    a = w.agents
    leaders = a.position[(a.state & throng.AGENT_LEADER) != 0]
    assert len(leaders) > 0
    # The foremost leader caught up with the target; the flock followed east.
    assert leaders[:, 0].max() == pytest.approx(x, abs=2.0)
    assert a.position[:, 0].mean() > 25
    path = w.add_target("path", points=[(0, 0), (10, 0)], speed=1, loop=True)
    follow = w.add_target("agent", agent=int(w.agents.id[0]))
    w.step()
    assert w.target(path) is not None
    p, _ = w.target(follow)
    assert p == pytest.approx(tuple(w.agents.position[w.agents.id == w.agents.id[0]][0]), abs=0.5)
    assert w.target(17) is None
    with pytest.raises(throng.Error):
        w.add_target("path")  # no points
    with pytest.raises(throng.Error):
        w.add_target("orbit")


def test_hawks_targets_match_the_scene():
    w = throng.load(scene("hawks"), threads=2)
    w.step(60)
    (x, y), (vx, vy) = w.target(0)  # the circuit: a loop at 4 m/s
    assert math.hypot(vx, vy) == pytest.approx(4, rel=1e-4)
    assert 60 <= x <= 180 and 60 <= y <= 180


def test_trails_graphs_and_colonies_of_the_scenes():
    w = throng.load(scene("breadcrumbs"), threads=2)
    w.step(300)
    trails = [w.breadcrumbs(i) for i in range(len(w.crowds))]
    assert any(len(t) for t in trails)
    for t in trails:
        assert t.dtype == np.float32 and t.ndim == 2 and t.shape[1] == 2
    w = throng.load(scene("waypoints"), threads=2)
    hops = [w.waypoint_hop(i, 0, 3) for i in range(len(w.crowds))]
    assert any(h is not None for h in hops)
    for i, h in enumerate(hops):
        if h is None:
            continue
        nxt, cost = h
        assert cost > 0
        # The cost of a route is the first hop's leg plus the rest from there.
        if nxt != 3:
            rest = w.waypoint_hop(i, nxt, 3)
            assert rest is not None and rest[1] < cost
        assert w.waypoint_hop(i, 3, 3) == (3, 0.0)
        assert w.waypoint_hop(i, 0, 10 ** 6) is None

    w = throng.load(scene("ants"), threads=2)
    colonies = [i for i in range(len(w.crowds)) if w.forage(i) is not None]
    assert colonies
    c = colonies[0]
    f = w.forage(c)
    sources = [w.food_source(c, k) for k in range(f["sources"])]
    assert all(s["remaining"] == s["amount"] > 0 for s in sources)
    assert w.food_source(c, f["sources"]) is None
    grid, cs = w.pheromone(c)
    assert grid.dtype == np.float32 and grid.ndim == 2 and cs > 0
    w.add_pheromone(c, (5.0, 5.0), 3.0)
    grid2, _ = w.pheromone(c)
    assert grid2[int(5 // cs), int(5 // cs)] == pytest.approx(grid[int(5 // cs), int(5 // cs)] + 3)
    assert w.forage(c)["pheromone"] == pytest.approx(float(grid2.sum(dtype=np.float64)), rel=1e-4)
    w.run(3000, fixed=True)
    f = w.forage(c)
    remaining = sum(w.food_source(c, k)["remaining"] for k in range(f["sources"]))
    amount = sum(s["amount"] for s in sources)
    assert f["taken"] == amount - remaining > 0
    assert f["taken"] == f["delivered"] + f["carried"] + f["lost"]
    plain = throng.World(20, 20, cell_size=1)
    pc = plain.add_crowd("p", model="pedestrian")
    assert plain.forage(pc) is None and plain.pheromone(pc) is None
    assert len(plain.breadcrumbs(pc)) == 0 and plain.waypoint_hop(pc, 0, 1) is None
    with pytest.raises(throng.Error):
        plain.add_pheromone(pc, (5, 5), 1.0)


def test_history_records_the_bunker_events():
    w = throng.World(60, 20, cell_size=1, seed=1, threads=2)
    west = w.add_bunker("west", (1, 8, 2, 11))
    w.add_bunker("east", (57, 8, 58, 11), capacity=3)
    c = w.add_crowd("r", model="pedestrian", goal="shelter")
    w.add_agents(c, [(50.5 + i % 5, 3.5 + i // 5) for i in range(10)])
    w.destroy_bunker(west, at=5)
    w.restore_bunker(west, at=9)
    assert w.info["pending_events"] == 2
    w.step(10)
    assert w.info["pending_events"] == 0
    w.run(6000)
    h = w.history()
    kinds = [(e["kind"], e["bunker"], e["step"]) for e in h["entries"]]
    assert ("bunker_destroyed", 0, 5) in kinds and ("bunker_restored", 0, 9) in kinds
    assert [k for k in kinds if k[0] == "bunker_full"][0][1] == 1
    assert h["dropped"] == w.report()["history_dropped"] == 0


def test_validation_timing_and_traces():
    w = throng.load(scene("tower"), threads=2)
    w.set_validation(True)
    w.step(20)
    assert w.validation_error() is None and w.step_error() is None
    phases = w.phase_ms()
    assert list(phases)[:3] == ["events", "nav", "grid"] and all(v >= 0 for v in phases.values())
    assert set(w.phase_ms(last=True)) == set(phases)
    w.reset_profile()
    assert all(v == 0 for v in w.phase_ms().values())
    w.trace_start(10000)
    w.step(3)
    t = w.trace_spans()
    n = len(t["step"])
    assert n > 0 and len(t["phase"]) == len(t["worker"]) == n
    assert set(t["step"].tolist()) == {20, 21, 22}
    assert np.all(t["end_ns"] >= t["begin_ns"]) and set(t["phase"]) <= set(phases)
    assert set(t["worker"].tolist()) <= {0, 1}
    w.trace_stop()
    assert len(w.trace_spans()["step"]) == 0
    with pytest.raises(throng.Error):
        w.trace_start(0)
    assert w.info["id_slots"] >= w.agent_count and len(w.info["grid"]) == 4


def test_check_validates_as_load_does(tmp_path):
    info = throng.check(scene("tower"), seed=3)
    w = throng.load(scene("tower"), seed=3)
    assert info["name"] == "office tower" and info["steps"] == 6000
    assert info["agents"] == w.agent_count and info["crowds"] == len(w.crowds)
    assert (info["map_cols"], info["map_rows"]) == (w.info["cols"], w.info["rows"])
    assert info["warnings"] == 0 and info["warning"] == ""
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nworld: {size: [10, 10]}\ncrowds:\n  - {name: a, count: 3, colour: red}\n")
    with pytest.raises(throng.Error) as e1:
        throng.check(bad)
    with pytest.raises(throng.Error) as e2:
        throng.load(bad)
    assert (e1.value.code, e1.value.line, e1.value.column, e1.value.message) == \
        (e2.value.code, e2.value.line, e2.value.column, e2.value.message)
