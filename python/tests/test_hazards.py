"""Fire hazards from Python (docs/hazards.md): smoke that slows walking, gases that give a dose,
read back through the getters and checked against World.report() and the formulas."""
import math
import os

import pytest

import throng

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def walker_in_smoke(extinction):
    """One pedestrian walking east along a 60 m corridor, smoke of ``extinction`` over all of
    it (None: clean air). Returns the world, the crowd and its speed once settled."""
    w = throng.World(60, 6, cell_size=1, seed=2, threads=1)
    c = w.add_crowd("walkers", model="pedestrian", heading=(1, 0), desired_speed_sd=0)
    if extinction is not None:
        assert w.add_hazard((0, 0, 60, 6), [{"time": 0, "extinction": extinction}]) == 0
    a = w.add_agent(c, (2.5, 3.0))
    w.step(300)
    x0 = w.agent(a)["position"][0]
    w.step(60)
    return w, c, (w.agent(a)["position"][0] - x0) / (60 * w.timestep)


def test_smoke_slows_walkers_by_the_smoke_factor():
    _, c, clean = walker_in_smoke(None)
    assert clean == pytest.approx(1.34, rel=1e-3)
    last = clean
    for k in (0.5, 1.0, 3.0):
        w, c, v = walker_in_smoke(k)
        f = w.smoke_factor(c, k)
        assert 0 < f < 1 and v < last
        assert v == pytest.approx(clean * f, rel=2e-3), k
        assert w.air((30, 3))["extinction"] == pytest.approx(k)
        last = v
    assert w.smoke_factor(c, 0.0) == 1.0
    assert w.smoke_factor(c, 1e6) > 0  # never below the crowd's smoke_min_factor
    assert w.info["hazards"] == 1
    with pytest.raises(throng.Error) as e:
        w.smoke_factor(7, 1.0)
    assert e.value.code == throng.ErrorCode.TH_ERR_HANDLE


def test_air_between_keys_is_linear_and_clean_outside():
    w = throng.World(20, 10, cell_size=1, threads=1)
    w.add_hazard((0, 0, 10, 10), [{"time": 0}, {"time": 10, "extinction": 2, "co": 1000, "o2": 18}])
    clean = throng.clean_air()
    assert clean == pytest.approx({"extinction": 0, "co": 0, "co2": 0.04, "o2": 20.9, "hcn": 0})
    assert w.air((5, 5)) == pytest.approx(clean)
    assert w.air((15, 5)) == pytest.approx(clean)
    w.step(int(round(5 / w.timestep)))  # 5 s: halfway between the keys
    air = w.air((5, 5))
    assert air["extinction"] == pytest.approx(1.0, rel=1e-3)
    assert air["co"] == pytest.approx(500, rel=1e-3)
    assert air["o2"] == pytest.approx((20.9 + 18) / 2, rel=1e-3)
    assert air["co2"] == pytest.approx(0.04, rel=1e-3)
    assert w.air((15, 5)) == pytest.approx(clean)
    with pytest.raises(throng.Error) as e:
        w.air((25, 5))
    assert e.value.code == throng.ErrorCode.TH_ERR_BLOCKED


def test_gases_give_the_dose_the_report_counts():
    w = throng.World(20, 6, cell_size=1, seed=2, threads=1)
    c = w.add_crowd("walkers", model="pedestrian")
    calm = w.add_crowd("calm", model="pedestrian")
    assert w.hazard_info(c) is None  # no hazards yet
    w.add_hazard((0, 0, 10, 6), [{"time": 0, "co": 40000, "co2": 5, "o2": 14, "hcn": 200}])
    inside = w.add_agent(c, (3.5, 3.0))
    outside = w.add_agent(calm, (15.5, 3.0))
    rate = throng.fed_rate(w.air((3.5, 3.0)))
    # Clean air's rate is only the hypoxia term at 20.9 % oxygen (outside every hazard the
    # engine gives no dose at all).
    assert throng.fed_rate(throng.clean_air()) == pytest.approx(1 / math.exp(8.13) / 60, rel=1e-4)
    assert rate > 1000 * throng.fed_rate(throng.clean_air())
    steps = 0
    while w.agent_fed(inside)[1] is None and steps < 20000:
        w.step(60)
        steps += 60
    fed, at = w.agent_fed(inside)
    assert fed >= 1 and at is not None
    state = w.agent(inside)
    assert state["incapacitated"] and state["fed"] == pytest.approx(fed, rel=1e-6)
    assert not w.agent(outside)["incapacitated"] and w.agent(outside)["fed"] == 0
    # The dose grows at the constant rate of constant air: 1 is reached at 1 / rate seconds.
    assert at == pytest.approx(1 / rate, rel=0.02)
    assert w.agent_fed(outside) == (0.0, None)
    h = w.hazard_info(c)
    assert h["incapacitated"] == 1 and h["first_s"] == pytest.approx(at) and h["max_fed"] >= 1
    assert w.hazard_info(calm) == {"incapacitated": 0, "first_s": 0.0, "max_fed": 0.0}
    report = {h["crowd"]: h for h in w.report()["hazards"]}
    assert report["walkers"]["incapacitated"] == 1
    assert report["walkers"]["first_incapacitated_s"] == pytest.approx(at, abs=1e-3)
    assert report["walkers"]["max_fed"] == pytest.approx(h["max_fed"], rel=1e-5)
    # An incapacitated agent stands for good.
    p = w.agent(inside)["position"]
    w.step(120)
    assert w.agent(inside)["position"] == pytest.approx(p, abs=0.05)


def test_fed_rate_is_pursers_formula():
    air = {"co": 3000, "co2": 4, "o2": 16, "hcn": 50}
    co = 2.764e-5 * 3000 ** 1.036
    cn = max(0.0, math.exp(50 / 43) / 220 - 0.0045)
    hv = math.exp(0.1903 * 4 + 2.0004) / 7.1
    o2 = 1 / math.exp(8.13 - 0.54 * (20.9 - 16))
    per_minute = (co + cn) * hv + o2
    assert throng.fed_rate(air) == pytest.approx(per_minute / 60, rel=1e-4)
    with pytest.raises(throng.Error):
        throng.fed_rate({"smoke": 1})


def test_add_hazard_refuses_bad_input():
    w = throng.World(20, 10, cell_size=1, threads=1)
    bad = [
        ((0, 0, 10, 10), []),                                      # no keys
        ((0, 0, 10, 10), [{"time": 5}, {"time": 1}]),              # times not increasing
        ((0, 0, 10, 10), [{"time": -1}]),                          # negative time
        ((0, 0, 10, 10), [{"time": 0, "co2": 101}]),               # a value out of range
        ((0, 0, 0, 10), [{"time": 0}]),                            # no area
        ((0, 0, 10, 10), [{"time": 0, "smoke": 1}]),               # an unknown gas
        ((0, 0, 10, 10), [{"extinction": 1}]),                     # no time
    ]
    for area, keys in bad:
        with pytest.raises(throng.Error) as e:
            w.add_hazard(area, keys)
        assert e.value.code in (throng.ErrorCode.TH_ERR_INVALID, throng.ErrorCode.TH_ERR_LIMIT), keys
    assert w.info["hazards"] == 0
    with pytest.raises(throng.Error) as e:
        w.add_hazard((0, 0, 10, 10), [{"time": float(t)} for t in range(4097)])
    assert e.value.code == throng.ErrorCode.TH_ERR_LIMIT
    with pytest.raises(throng.Error):
        throng.World(20, 10).add_hazard((0, 0, 10, 10), [{"time": 0}])  # no map
    assert w.add_hazard((0, 0, 10, 10), [{"time": 0, "extinction": 1}]) == 0
    assert w.add_hazard((5, 0, 10, 10), [{"time": 0, "extinction": 3}]) == 1
    # The later hazard covers the earlier where they overlap.
    assert w.air((2.5, 5))["extinction"] == 1 and w.air((7.5, 5))["extinction"] == 3


def test_the_fire_scene_through_the_getters():
    w = throng.load(os.path.join(ROOT, "scenes", "fire.yaml"), threads=2)
    assert w.info["hazards"] > 0
    w.step(1600)
    report = {h["crowd"]: h for h in w.report()["hazards"]}
    assert report
    for i, name in enumerate(w.crowds):
        h = w.hazard_info(i)
        if name in report:
            assert h["incapacitated"] == report[name]["incapacitated"]
            assert h["max_fed"] == pytest.approx(report[name]["max_fed"], rel=1e-4)
