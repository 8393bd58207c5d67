"""One agent's own goal and way from Python (docs/goals.md, "An agent's own goal" and
"Per-agent queries"): goals set now and at a later step, the way each agent has left, goal
planning, own exits and speeds, pre-movement times."""
import math
import os

import numpy as np
import pytest

import throng
import worlds

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def street(n=60):
    """The shared street (worlds.py) with residents who all walk at the mean speed."""
    return worlds.street(n, desired_speed_sd=0)


def test_one_agent_walks_to_its_point_while_the_others_flee():
    w, c, ids = street()
    me, goal = ids[0], (45.5, 15.5)
    assert w.agent_goal(me) == {"kind": "crowd", "point": None, "radius": 0.0, "exit": None,
                                "follow": None, "priority": 0}
    w.set_agent_goal(me, point=goal, radius=0.5)
    g = w.agent_goal(me)
    assert g["kind"] == "point" and g["point"] == goal and g["radius"] == 0.5
    # Its way: from where it stands, through the gap in the wall, to the point.
    path = w.agent_path(me)
    assert path.dtype == np.float32 and path.shape[1] == 2
    assert tuple(path[0]) == pytest.approx(w.agent(me)["position"], abs=1e-4)
    assert tuple(path[-1]) == pytest.approx(goal, abs=0.5)
    assert any(abs(x - 30.5) < 1.5 and 8.5 <= y <= 11.5 for x, y in path)
    # Remaining: at least the straight line, at most the polyline plus a cell.
    rem = w.agent_remaining(me)
    legs = float(np.sum(np.hypot(*np.diff(path.astype(np.float64), axis=0).T)))
    assert math.dist(path[0], goal) <= rem <= legs + 1.5
    d = w.agent_next_step(me)
    assert math.hypot(*d) == pytest.approx(1.0, abs=1e-4)
    before = rem
    for _ in range(60):
        w.step(60)
        if math.dist(w.agent(me)["position"], goal) < 0.7:
            break
    assert math.dist(w.agent(me)["position"], goal) < 0.7
    assert w.agent_remaining(me) < before and w.agent_remaining(me) < 1.0
    assert w.stats()["sheltered"] > 0
    # The others fled: none walked to the point.
    others = [i for i in ids[1:] if w.agent(i) is not None]
    assert all(math.dist(w.agent(i)["position"], goal) > 3 for i in others)
    assert w.agent(me) is not None  # it stays at its point, not in a bunker
    # Back to its crowd's goal: it flees too.
    w.set_agent_goal(me)
    assert w.agent_goal(me)["kind"] == "crowd"
    w.run(3000)
    assert w.agent(me) is None


def test_own_goal_calls_refuse_bad_input():
    w, c, ids = street(n=4)
    with pytest.raises(throng.Error) as e:
        w.set_agent_goal(99, point=(10, 10))
    assert e.value.code == throng.ErrorCode.TH_ERR_HANDLE
    with pytest.raises(throng.Error) as e:
        w.set_agent_goal(ids[0], point=(30.5, 3.5))  # in the wall
    assert e.value.code == throng.ErrorCode.TH_ERR_BLOCKED
    with pytest.raises(throng.Error):
        w.set_agent_goal(ids[0], point=(70, 3.5))  # off the world
    with pytest.raises(throng.Error) as e:
        w.set_agent_goal(ids[0], follow=ids[0])  # itself: no other agent
    assert e.value.code == throng.ErrorCode.TH_ERR_HANDLE
    with pytest.raises(throng.Error) as e:
        w.set_agent_goal(ids[0], point=(10, 10), follow=ids[1])
    assert e.value.code == throng.ErrorCode.TH_ERR_INVALID
    assert w.agent_goal(ids[0])["kind"] == "crowd"
    assert w.agent_goal(99) is None
    assert w.agent_remaining(99) == math.inf and w.agent_next_step(99) is None
    with pytest.raises(throng.Error) as e:
        w.agent_path(99)
    assert e.value.code == throng.ErrorCode.TH_ERR_HANDLE
    # A walled-in pocket: no path to it.
    for x in range(40, 45):
        for y in (14, 18):
            w.set_cell(x, y, "wall")
    for y in range(14, 19):
        w.set_cell(40, y, "wall")
        w.set_cell(44, y, "wall")
    with pytest.raises(throng.Error) as e:
        w.set_agent_goal(ids[0], point=(42.5, 16.5))
    assert e.value.code == throng.ErrorCode.TH_ERR_UNREACHABLE


def test_a_selection_now_and_another_at_a_later_step():
    w, c, ids = street(n=40)
    first, later = ids[:10], ids[10:20]
    assert w.set_agents_goal(first, point=(45.5, 4.5)) == 10
    assert all(w.agent_goal(i)["kind"] == "point" for i in first)
    w.schedule_agents_goal(later, 30, point=(45.5, 16.5), radius=1)
    assert w.goal_changes() == {"pending": 10, "made": 0, "passed": 0}
    w.step(30)
    assert all(w.agent_goal(i)["kind"] == "crowd" for i in later)
    w.step()
    assert w.goal_changes() == {"pending": 0, "made": 10, "passed": 0}
    assert all(w.agent_goal(i)["point"] == (45.5, 16.5) for i in later)
    assert all(w.agent_goal(i)["kind"] == "crowd" for i in ids[20:])
    # An unknown agent anywhere is refused before any is changed.
    with pytest.raises(throng.Error) as e:
        w.set_agents_goal(ids[20:25] + [99], point=(45.5, 4.5))
    assert e.value.code == throng.ErrorCode.TH_ERR_HANDLE
    assert all(w.agent_goal(i)["kind"] == "crowd" for i in ids[20:25])
    with pytest.raises(throng.Error):
        w.schedule_agents_goal(ids[20:25], 0, point=(45.5, 4.5))  # a step gone by
    w.run(3000)
    for i, target in [(i, (45.5, 4.5)) for i in first] + [(i, (45.5, 16.5)) for i in later]:
        assert math.dist(w.agent(i)["position"], target) < 3.0


def test_an_agent_sent_to_the_far_bunker_and_one_slowed_down():
    w, c, ids = street(n=20)
    w.step()
    far, slow, plain = ids[0], ids[1], ids[2]
    w.set_agent_exit(far, "east")
    w.set_agent_speed(slow, 0.5)
    w.step()
    assert w.agent(far)["exit"] == 1
    assert w.nearest_bunker(w.agent(far)["position"]) == 0  # west is nearer
    x0 = w.agent(slow)["position"]
    w.step(240)
    # The slowed walker made about 0.5 m/s; the plain one its crowd's 1.34 m/s.
    assert math.dist(w.agent(slow)["position"], x0) / 4.0 == pytest.approx(0.5, abs=0.1)
    w.run(6000)
    assert w.bunker("east")["sheltered"] >= 1
    assert w.bunker("west")["sheltered"] == len(ids) - w.bunker("east")["sheltered"]
    with pytest.raises(throng.Error):
        w.set_agent_speed(plain, 0.5)  # gone: sheltered
    w2, c2, ids2 = street(n=2)
    with pytest.raises(throng.Error) as e:
        w2.set_agent_speed(ids2[0], -1)
    assert e.value.code == throng.ErrorCode.TH_ERR_INVALID
    with pytest.raises(throng.Error) as e:
        w2.set_agent_exit(ids2[0], "north")
    assert e.value.code == throng.ErrorCode.TH_ERR_HANDLE
    flock = w2.add_crowd("birds")
    bird = w2.add_agent(flock, (40.5, 5.5))
    with pytest.raises(throng.Error):
        w2.set_agent_exit(bird, "east")  # its crowd does not flee


def test_goal_planning_plans_over_steps():
    w, c, ids = street(n=20)
    assert w.goal_planning()["budget"] == 0
    w.set_goal_planning(200, cluster_size=8, max_requests=4)
    g = w.goal_planning()
    assert (g["budget"], g["cluster_size"], g["max_requests"]) == (200, 8, 4)
    w.set_agents_goal(ids[:10], point=(50.5, 16.5), priority=2)
    assert w.agent_goal(ids[0])["priority"] == 2
    assert any(w.agent_path_pending(i) for i in ids[:10])
    for _ in range(50):
        w.step()
        if w.goal_planning()["answered"] >= 10:
            break
    g = w.goal_planning()
    assert g["answered"] == 10 and g["waiting"] == 0 and g["expanded"] > 0
    assert g["last_expanded"] <= 200 and g["most_steps"] >= 1
    assert not any(w.agent_path_pending(i) for i in ids[:10])
    w.set_goal_planning(0)
    assert w.goal_planning()["budget"] == 0
    with pytest.raises(throng.Error) as e:
        w.set_goal_planning(100, cluster_size=2)
    assert e.value.code == throng.ErrorCode.TH_ERR_INVALID


def test_pre_movement_times_of_the_fire_scene():
    w = throng.load(os.path.join(ROOT, "scenes", "fire.yaml"), threads=2)
    n = np.bincount(w.agents.crowd, minlength=len(w.crowds))
    seen = 0
    for i in range(len(w.crowds)):
        p = w.pre_movement(i)
        if p is None:
            continue
        seen += 1
        assert p["drawn"] == n[i] and p["waiting"] <= p["drawn"]
        assert 0 <= p["min_s"] <= p["mean_s"] <= p["max_s"]
        # Each agent's start time is its drawn time (all were added at time 0), on the steps.
        starts = [w.agent(int(a))["start_time"] for a in w.agents.id[w.agents.crowd == i]]
        dt = w.timestep
        assert min(starts) == pytest.approx(p["min_s"], abs=dt)
        assert max(starts) == pytest.approx(p["max_s"], abs=dt)
        assert np.mean(starts) == pytest.approx(p["mean_s"], abs=dt)
    assert seen > 0
    w2, c, _ = street(n=2)
    assert w2.pre_movement(c) is None
    with pytest.raises(throng.Error) as e:
        w2.pre_movement(5)
    assert e.value.code == throng.ErrorCode.TH_ERR_HANDLE


def test_add_crowd_takes_pre_movement_and_free_speed_distributions():
    """Pre-movement times and free speeds set from Python, in the scene file's forms: each
    agent stands until its drawn time and then walks at a speed inside the drawn range."""
    w = throng.World(40, 10, cell_size=1, seed=3, threads=2)
    w.add_bunker("east", (38, 0, 39, 9))
    c = w.add_crowd("late", model="pedestrian", goal="shelter",
                    pre_movement={"uniform": (2.0, 4.0)}, free_speed={"age": (60, 70)})
    k = w.add_crowd("now", model="pedestrian", goal="shelter", pre_movement=1.5)
    w.add_agents(c, [(2.5 + 1.5 * (i % 10), 1.5 + 2.0 * (i // 10)) for i in range(30)])
    w.add_agents(k, [(2.5 + 1.5 * i, 8.5) for i in range(5)])
    p = w.pre_movement(c)
    assert p["drawn"] == 30 and 2.0 <= p["min_s"] < p["max_s"] <= 4.0
    assert w.pre_movement(k)["min_s"] == pytest.approx(1.5)
    assert w.pre_movement(k)["max_s"] == pytest.approx(1.5)
    start = {int(a): w.agent(int(a))["start_time"] for a in w.agents.id}
    dt = w.timestep
    moved = {}
    for step in range(int(5.0 / dt)):
        w.step()
        a = w.agents
        for i, aid in enumerate(a.id):
            if int(aid) not in moved and np.hypot(*a.velocity[i]) > 0:
                moved[int(aid)] = w.time
    # Nobody moves before its time; everyone has by 5 s.
    assert len(moved) == 35
    for aid, t in moved.items():
        assert t >= start[aid] - 1e-6
    # Free speeds of walkers aged 60 to 70 (RiMEA's table): 1.07 to 1.43 m/s, never faster.
    a = w.agents
    speeds = np.hypot(a.velocity[:, 0], a.velocity[:, 1])[a.crowd == c]
    assert speeds.max() <= 1.43 + 1e-3 and speeds.max() > 1.0


def test_add_crowd_refuses_bad_distributions():
    w = throng.World(10, 10, cell_size=1, seed=1)
    for bad in ({"uniform": 3.0}, {"uniform": (1, 2), "normal": (1, 2)}, {"poisson": (1, 2)},
                {"constant": 2.0, "max": 0}, "soon", {"uniform": (4.0, 2.0)},
                {"normal": (10.0, 1.0), "min": 5.0, "max": 2.0}):
        with pytest.raises(throng.Error) as e:
            w.add_crowd("x", model="pedestrian", pre_movement=bad)
        assert e.value.code == throng.ErrorCode.TH_ERR_INVALID, bad
        assert "pre_movement" in str(e.value) or "pre-movement" in str(e.value), bad


def test_the_report_counts_own_goals_reached_walking_and_with_no_way():
    w, c, ids = street(n=12)
    near, far, pocket = ((12.5, 15.5), 1.5), ((45.5, 15.5), 1.0), ((42.5, 16.5), 1.0)
    goals = {ids[0]: near, ids[1]: near, ids[2]: far, ids[3]: pocket}
    for i, (p, r) in goals.items():
        w.set_agent_goal(i, point=p, radius=r)
    w.set_agent_goal(ids[4], follow=ids[0], radius=2.5)
    w.step()
    # The pocket's point walled in: no way to it from outside.
    for rect in ((41, 15, 43, 15), (41, 17, 43, 17), (41, 16, 41, 16), (43, 16, 43, 16)):
        w.block_cells(rect)
    w.step(1800)  # 30 s: time for the near point, not for the far one round the wall
    reached = walking = no_way = 0
    for i, ((x, y), r) in goals.items():
        at = w.agent(i)["position"]
        if math.dist(at, (x, y)) <= r:
            reached += 1
        elif (x, y) == pocket[0] and not (41 < at[0] < 44 and 15 < at[1] < 18):
            no_way += 1
        else:
            walking += 1
    if math.dist(w.agent(ids[4])["position"], w.agent(ids[0])["position"]) <= 2.5:
        reached += 1
    else:
        walking += 1
    assert reached and walking and no_way, (reached, walking, no_way)
    want = {"given": 5, "reached": reached, "walking": walking, "unreachable": no_way}
    assert w.own_goals() == want, w.own_goals()
    assert w.report()["own_goals"] == dict(want, passed_over=0), w.report()["own_goals"]


def test_a_squad_member_takes_no_goal_of_its_own():
    w = worlds.street_walls()
    inf = w.add_crowd("infantry")
    s = w.add_squad(inf, 4, (10, 4), (20, 14))
    members, _ = w.squad_members(s)
    m = int(members[0])
    loner = int(w.add_agents(inf, [(5.5, 15.5)])[0])
    for call in (lambda: w.set_agent_goal(m, point=(25.5, 5.5)),
                 lambda: w.set_agent_goal(m, follow=loner),
                 lambda: w.set_agents_goal([m], point=(25.5, 5.5)),
                 lambda: w.schedule_agents_goal([m], 20, point=(25.5, 5.5))):
        with pytest.raises(throng.Error) as e:
            call()
        assert e.value.code == throng.ErrorCode.TH_ERR_STATE and "squad" in str(e.value)
    assert w.agent_goal(m)["kind"] == "crowd"
    assert w.goal_changes()["pending"] == 0
    w.run(3600)
    assert w.squad(s)["arrived"]
