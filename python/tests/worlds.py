"""Worlds the suites share."""
from typing import Any, List, Tuple

import throng


def street_walls(threads: int = 2, seed: int = 1) -> throng.World:
    """The C examples' street (examples/minimal.c, examples/host.cpp): 60 m x 20 m of 1 m cells,
    a wall across x = 30 with a gap at y 9-10; nothing else."""
    w = throng.World(60, 20, cell_size=1, seed=seed, threads=threads)
    for y in range(20):
        if y < 9 or y > 10:
            w.set_cell(30, y, "wall")
    return w


def street(n: int, *, per_row: int = 20, threads: int = 2, seed: int = 1,
           **crowd: Any) -> Tuple[throng.World, int, List[int]]:
    """The street with its bunkers at both ends ("west", "east") and ``n`` residents fleeing
    from the west half, ``per_row`` to a row of 1 m from (5.5, 2.5), rows 0.8 m apart; ``crowd``:
    more add_crowd parameters. Returns the world, the crowd and the agents' ids."""
    w = street_walls(threads, seed)
    w.add_bunker("west", (1, 8, 2, 11))
    w.add_bunker("east", (57, 8, 58, 11))
    c = w.add_crowd("residents", model="pedestrian", goal="shelter", **crowd)
    ids = w.add_agents(c, [(5.5 + i % per_row, 2.5 + 0.8 * (i // per_row)) for i in range(n)])
    return w, c, [int(i) for i in ids]
