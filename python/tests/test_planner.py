"""The hierarchical planner from Python (throng.Planner, docs/planning.md): paths at once and
queued, anytime improvement to A*'s cost, tours through rewards, trouble memory, and the
planner's life with its world."""
import math

import numpy as np
import pytest

import throng
from worlds import street_walls as street


def legs(path):
    return float(np.sum(np.hypot(*np.diff(path.astype(np.float64), axis=0).T)))


def test_paths_at_once_and_queued_agree():
    w = street()
    p = throng.Planner(w, cluster_size=8)
    assert p.info["cluster_size"] == 8 and p.info["clusters"] > 0
    path, cost = p.find_path((10.5, 2.5), (50.5, 2.5))
    assert tuple(path[0]) == (10.5, 2.5) and tuple(path[-1]) == (50.5, 2.5)
    assert any(abs(x - 30.5) < 1.5 and 8.5 <= y <= 10.5 for x, y in path)  # through the gap
    exact_path, exact = w.find_path((10.5, 2.5), (50.5, 2.5))
    # A few percent dearer than A* at most here, never cheaper; the waypoints see each other.
    assert exact - 1e-3 <= cost <= 1.25 * exact and legs(path) <= cost + 1e-3
    r = p.submit((10.5, 2.5), (50.5, 2.5), priority=1)
    status, pts, c = p.result(r)
    assert (status, pts, c) == ("waiting", None, math.inf)
    d = p.direction(r)
    assert math.hypot(*d) == pytest.approx(1.0, abs=1e-5)
    assert p.info["waiting"] == 1
    spent = 0
    while p.result(r)[0] == "waiting":
        spent += p.update(5)
        assert spent < 10000
    status, pts, c = p.result(r)
    assert status == "done" and c == pytest.approx(cost) and np.array_equal(pts, path)
    assert p.info["waiting"] == 0 and p.info["expanded"] > 0
    # Anytime: improved with the budget left over until no cheaper path exists: A*'s cost.
    p.set_anytime(r)
    for _ in range(100):
        p.update(1000)
        if p.progress(r)["final"]:
            break
    g = p.progress(r)
    assert g["anytime"] and g["final"] and g["first_cost"] == pytest.approx(cost)
    assert p.result(r)[2] == pytest.approx(exact, abs=1e-3)
    p.release(r)
    with pytest.raises(throng.Error) as e:
        p.result(r)
    assert e.value.code == throng.ErrorCode.TH_ERR_HANDLE
    assert p.direction(r) is None
    unreachable = p.submit((10.5, 2.5), (30.5, 2.5))  # into the wall
    p.update(1000)
    assert p.result(unreachable)[0] == "unreachable"
    with pytest.raises(throng.Error) as e:
        p.find_path((10.5, 2.5), (30.5, 2.5))
    assert e.value.code == throng.ErrorCode.TH_ERR_UNREACHABLE
    with pytest.raises(throng.Error) as e:
        p.find_path((10.5, 2.5), (70.5, 2.5))
    assert e.value.code == throng.ErrorCode.TH_ERR_BLOCKED


def test_a_tour_takes_the_rewards_worth_their_detour():
    w = street()
    p = throng.Planner(w)
    start, goal = (10.5, 2.5), (50.5, 2.5)
    _, direct = p.find_path(start, goal)
    near, far = ((20.5, 4.5), 20.0), ((20.5, 18.5), 1.0)
    path, taken, net = p.find_tour(start, goal, [near, far])
    assert taken == [0]  # the far point is not worth 30 m of detour for 1
    assert any(tuple(q) == (20.5, 4.5) for q in path)
    assert net < direct  # the reward paid for its detour
    path, taken, net = p.find_tour(start, goal)
    assert taken == [] and net == pytest.approx(p.find_path(start, goal)[1], rel=0.25)
    with pytest.raises(throng.Error) as e:
        p.find_tour(start, goal, [((5.5, 5.5), 1.0)] * 9)
    assert e.value.code == throng.ErrorCode.TH_ERR_LIMIT
    with pytest.raises(throng.Error) as e:
        p.find_tour(start, goal, [((5.5, 5.5), -1.0)])
    assert e.value.code == throng.ErrorCode.TH_ERR_INVALID


def test_trouble_makes_later_plans_go_round():
    w = throng.World(40, 20, cell_size=1, threads=1)
    p = throng.Planner(w, trouble_half_life=1e6)
    path, cost = p.find_path((2.5, 10.5), (37.5, 10.5))
    assert 35 - 1e-3 <= cost <= 1.2 * 35
    for y in range(3, 18):
        p.note_trouble((20.5, y + 0.5), 500)
    assert p.trouble((20.5, 10.5)) == pytest.approx(500)
    assert p.info["trouble_cells"] == 15
    path2, cost2 = p.find_path((2.5, 10.5), (37.5, 10.5))
    # Round the troubled band (rows 3-17 of column 20): through row 0-2 or 18-19.
    crossing = [y for x, y in path2 if abs(x - 20.5) < 1]
    assert cost2 > cost and (not crossing or all(y < 3 or y > 18 for y in crossing))
    with pytest.raises(throng.Error) as e:
        p.note_trouble((50, 5), 1)
    assert e.value.code == throng.ErrorCode.TH_ERR_BLOCKED
    # A map change the planner is told of is taken up at once.
    w.set_cell(5, 10, "wall")
    p.cells_changed((5, 10, 5, 10))
    p.refresh()
    assert all(tuple(np.floor(q)) != (5, 10) for q in p.find_path((2.5, 10.5), (8.5, 10.5))[0])


def test_the_planner_lives_and_dies_with_its_world():
    assert throng.Planner.__doc__
    with pytest.raises(throng.Error):
        throng.Planner(throng.World(10, 10))  # no map
    with pytest.raises(throng.Error):
        throng.Planner(street(), cluster_size=2)
    w = street()
    p = throng.Planner(w)
    q = throng.Planner(w)
    w.close()  # destroys its planners first
    for planner in (p, q):
        with pytest.raises(RuntimeError):
            planner.find_path((1.5, 1.5), (5.5, 1.5))
    w = street()
    with throng.Planner(w) as p:
        p.find_path((1.5, 1.5), (5.5, 1.5))
    with pytest.raises(RuntimeError):
        p.info
    # A planner keeps its world alive; dropping both in any order is safe.
    w = street()
    p = throng.Planner(w)
    del w
    p.find_path((1.5, 1.5), (5.5, 1.5))
    del p
