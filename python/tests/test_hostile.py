"""Hostile input to the building, hazard, goal, path, squad and planner calls: NaN, infinite
and huge coordinates, ids and indices out of range, malformed records. Each raises (an Error,
or TypeError, ValueError or OverflowError for the wrong Python type or range) and none crashes
or breaks the world."""
import itertools
import math

import throng

from test_buildings import two_storeys

NAN, INF = math.nan, math.inf
POINTS = [(NAN, 1), (INF, 1), (-1e30, 5), (1e30, 1e30), (5.5, 5.5), (-0.0, 0.0)]
RAISED = (throng.Error, TypeError, ValueError, OverflowError)


def attempt(f):
    try:
        f()
    except RAISED:
        pass


def test_hostile_input_raises_never_crashes():
    w, c, ids = two_storeys(walkers=3)
    w.step()
    a = int(ids[0])
    for p in POINTS:
        for f in (lambda: w.level_at(p), lambda: w.stair_at(p), lambda: w.air(p),
                  lambda: w.flow(p), lambda: w.bunker_flow(0, p), lambda: w.cost_to_shelter(p),
                  lambda: w.nearest_bunker(p), lambda: w.shelter_path(p),
                  lambda: w.find_path(p, (5.5, 5.5)), lambda: w.find_path_ida(p, (5.5, 5.5)),
                  lambda: w.wall_distance(p),
                  lambda: w.set_agent_goal(a, point=p), lambda: w.set_agents_goal(ids, point=p),
                  lambda: w.schedule_agents_goal(ids, None, point=p),
                  lambda: w.add_hazard((p[0], p[1], 10, 10), [{"time": 0}]),
                  lambda: w.add_hazard((0, 0, 10, 10), [{"time": p[0], "co": p[1]}]),
                  lambda: w.add_target("point", position=p, velocity=p),
                  lambda: w.add_squad(c, 3, p, p), lambda: w.set_agent_speed(int(ids[1]), p[0]),
                  lambda: w.smoke_factor(0, p[0]), lambda: throng.fed_rate({"co": p[0]}),
                  lambda: w.set_cell_speed(1, 1, p[0]), lambda: w.add_group(ids, p[0]),
                  lambda: w.add_stair("s", (10, 2, 11, 6), "north", (30, 7), length=p[0])):
            attempt(f)
    for bad in ([], [2 ** 64 - 1], [0], [-1], [2 ** 64], "ids", [1.5]):
        for f in (lambda: w.set_agents_goal(bad, point=(5.5, 5.5)), lambda: w.add_group(bad),
                  lambda: w.schedule_agents_goal(bad, 10 ** 20, point=(5.5, 5.5))):
            attempt(f)
    # Ids out of range raise as a single id does, instead of wrapping to another agent.
    for bad in ([-1], [2 ** 64], [int(ids[0]), -5]):
        for f in (lambda: w.set_agents_goal(bad, point=(5.5, 5.5)), lambda: w.add_group(bad),
                  lambda: w.schedule_agents_goal(bad, None, point=(5.5, 5.5))):
            try:
                f()
            except OverflowError:
                continue
            raise AssertionError(f"{bad} accepted")
    assert w.set_agents_goal(ids[:1], point=(5.5, 5.5)) == 1  # a uint64 array as it is
    assert w.set_agents_goal([int(ids[1])], point=(5.5, 5.5)) == 1
    for big in (2 ** 32, 2 ** 64, -1, 0, 10 ** 6):
        for f in (lambda: w.level(big), lambda: w.stair(big), lambda: w.elevator(big),
                  lambda: w.agent_goal(big), lambda: w.agent_path(big), lambda: w.squad(big),
                  lambda: w.target(big), lambda: w.group(big), lambda: w.destination_path(big, (5, 5)),
                  lambda: w.trace_start(big), lambda: w.pheromone(big), lambda: w.breadcrumbs(big),
                  lambda: w.exit(big), lambda: w.spawner(big), lambda: w.waypoint_hop(0, big, big),
                  lambda: w.hazard_info(big), lambda: w.pre_movement(big)):
            attempt(f)
    for f in (lambda: w.add_elevator("e", [("ground", (1, 1))] * 20, [c], capacity=1, speed=1),
              lambda: w.add_elevator("e", [], [], capacity=0, speed=0),
              lambda: w.add_elevator("e", [("ground", (3, 3)), ("upper", (25, 3))], [c] * 300,
                                     capacity=1, speed=1),
              lambda: w.add_elevator("e", [("cellar", (3, 3))], [c], capacity=1, speed=1),
              lambda: w.add_hazard((0, 0, 5, 5), "nope"),
              lambda: w.add_hazard((0, 0, 5, 5), [{"time": "x"}]),
              lambda: w.add_stair("s", (0, 0, 1, 1), "north", (2 ** 40, 0))):
        attempt(f)
    p = throng.Planner(w)
    for s, g in itertools.product(POINTS, POINTS):
        for f in (lambda: p.find_path(s, g), lambda: p.submit(s, g),
                  lambda: p.find_tour(s, g, [(s, 1.0)]), lambda: p.note_trouble(s, g[0]),
                  lambda: p.trouble(s)):
            attempt(f)
    p.update(10 ** 6)
    # The world still steps, and its walkers still come down the stair to the door.
    w.set_agents_goal([int(i) for i in w.agents.id])
    w.run(6000)
    assert w.bunker("door")["sheltered"] == 3
