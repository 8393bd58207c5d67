"""throng: deterministic, multithreaded crowd simulation, from Python.

A :class:`World` holds crowds (named groups of agents sharing their parameters), agents, and
for worlds with a terrain map, walls, bunkers, exits, spawners and measurement areas and lines.
It advances in fixed steps (:meth:`World.step`), on the library's own worker threads, with the
GIL released; between steps it is a consistent snapshot that may be read freely.

Load a scene file (docs/scene-format.md), or build a world in code::

    import throng
    w = throng.load("scenes/air_raid.yaml", seed=7, threads=2)
    w.step(600)                         # 10 s at 60 steps per second
    a = w.agents                        # numpy arrays: a.position (N, 2), a.velocity, ...
    print(w.report()["outcome"])        # the figures of `throng run --json`

    w = throng.World(60, 20, cell_size=1, seed=1)
    w.set_cell(30, 5, "wall")
    west = w.add_bunker("west", (1, 8, 2, 11))
    c = w.add_crowd("residents", model="pedestrian", goal="shelter")
    w.add_agents(c, [(5.5, 2.5), (6.5, 2.5)])
    w.step(60)
    w.destroy_bunker(west)              # applied at the start of the next step

Units are metres, seconds and degrees; map cell (x, y) is the square of side cell_size whose
lower corner is (x * cell_size, y * cell_size).
Handles (crowds, bunkers, spawners, exits, areas, lines, destination fields) are indices from
0 in the order of addition. Agent ids are integers, ``slot | generation << 32``, that stay
the same while the engine reorders its arrays and become stale when the agent leaves.

Reading agents: :attr:`World.agents` returns **copies** (numpy arrays owned by Python): they
stay valid, and unchanged, for as long as they are referenced, whatever the world does next,
and even after it is closed. A copy of 100,000 agents' positions takes well under a
millisecond (docs/python.md has the measurement).

Errors: every failure the library reports raises :class:`Error`, with the error code
(:class:`ErrorCode`), its name, the message and, for scene files, the line and column.
Wrong Python types raise TypeError as usual.

Threads: a world is used by one thread at a time (a call on a world that another thread is
stepping raises RuntimeError); different worlds step in parallel from different Python threads.

The same scene, seed and number of steps give the same :meth:`World.hash` as the C library
and the ``throng`` command line, for any number of threads.
"""
import enum
import json
import math
import os
import tempfile
from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from . import _throng
from .results import read_results

__all__ = [
    "AGENT_LEADER",
    "AGENT_STALLED",
    "AGENT_STRANDED",
    "Agents",
    "Error",
    "ErrorCode",
    "Trajectories",
    "World",
    "__version__",
    "demo",
    "load",
    "read_results",
    "version",
]

#: The library's version, "MAJOR.MINOR.PATCH".
__version__: str = _throng.version()

#: Bits of :attr:`Agents.state`.
AGENT_LEADER = 1  #: led in the last step (its crowd pursues a target, no one ahead)
AGENT_STRANDED = 2  #: its goal could not be reached from where it stood in the last step
AGENT_STALLED = 4  #: no progress toward its goal for the world's stall time

ErrorCode = enum.IntEnum(  # type: ignore[misc]
    "ErrorCode",
    {name: value for name, (value, _) in sorted(_throng.error_codes().items(), key=lambda kv: kv[1][0])},
)
ErrorCode.__doc__ = """The library's error codes (include/throng/error.h): what kind of thing
went wrong. ``TH_ERR_INVALID``: an argument out of range; ``TH_ERR_HANDLE``: no such crowd,
bunker or agent; ``TH_ERR_BLOCKED``: a position in a wall or off the world;
``TH_ERR_SCENE_*``: a scene file's syntax, keys or values; ``TH_ERR_IO``: a file."""

_MEANINGS = {name: meaning for name, (_, meaning) in _throng.error_codes().items()}


class Error(Exception):
    """A failure reported by the throng library.

    Attributes:
        code: the :class:`ErrorCode` (an int).
        name: the code's C name, e.g. ``"TH_ERR_SCENE_KEY"``.
        message: what failed and why; for a scene file it begins ``FILE:LINE:COLUMN: KEY:``.
        line, column: the place in a scene file, 1-based; 0 for other errors.
    """

    def __init__(self, code: int, name: str, message: str, line: int = 0, column: int = 0):
        super().__init__(f"{name}: {message}")
        try:
            self.code: ErrorCode = ErrorCode(code)
        except ValueError:
            self.code = code  # type: ignore[assignment]
        self.name = name
        self.message = message
        self.line = line
        self.column = column

    @property
    def meaning(self) -> str:
        """The code's one-line meaning, as th_error_code_message gives it."""
        return _MEANINGS.get(self.name, "unknown error code")


_throng._set_error_class(Error)


def version() -> str:
    """The version of the throng library this package runs on ("MAJOR.MINOR.PATCH")."""
    return _throng.version()


class Agents(NamedTuple):
    """Every agent as of the last step, in the engine's storage order (which changes from step
    to step: match agents across steps by ``id``). All arrays are copies owned by Python."""

    position: np.ndarray  #: float32 (N, 2), metres
    velocity: np.ndarray  #: float32 (N, 2), metres per second
    id: np.ndarray  #: uint64 (N,): ``slot | generation << 32``, stable for an agent's life
    crowd: np.ndarray  #: uint16 (N,): crowd index
    state: np.ndarray  #: uint8 (N,): AGENT_LEADER | AGENT_STRANDED | AGENT_STALLED bits

    def __len__(self) -> int:  # type: ignore[override]
        return int(self.id.shape[0])


class Trajectories(NamedTuple):
    """Recorded positions in long form, one row per agent and frame (PedPy's layout:
    ``id, frame, x, y``), ordered by frame and, within a frame, by id."""

    frame: np.ndarray  #: int64: the world's step count when the row was recorded
    id: np.ndarray  #: uint64: agent ids
    x: np.ndarray  #: float32, metres
    y: np.ndarray  #: float32, metres
    level: np.ndarray  #: int32: the building level it stood on (index; -1 off every level)
    timestep: float  #: seconds per step: ``frame * timestep`` is the time

    def __len__(self) -> int:  # type: ignore[override]
        return int(self.id.shape[0])


_CELLS = {"open": 0, "wall": 1, "destructible": 2}
_CELL_NAMES = {v: k for k, v in _CELLS.items()}
_GOALS = {"none": 0, "shelter": 1, "destinations": 2, "route": 3, "wander": 4}
_ROUTE_MODES = {"once": 0, "loop": 1, "patrol": 2}
_LANES = {None: 0, "x": 1, "y": 2}
_EVENTS = {"destroy_bunker": 0, "restore_bunker": 1, "break_walls": 2, "block_cells": 3, "set_cost": 4,
           "open_cells": 5}

Rect = Tuple[float, float, float, float]
CellRect = Tuple[int, int, int, int]
Point = Tuple[float, float]


def _choice(table: Dict[Any, int], value: Any, what: str) -> int:
    if value not in table:
        names = ", ".join(repr(k) for k in table)
        raise Error(int(ErrorCode.TH_ERR_INVALID), "TH_ERR_INVALID", f"{what}: {value!r} is not one of {names}")
    return table[value]


class World:
    """A throng world. ``World(width, height, ...)`` builds an empty one; :func:`load` builds
    one from a scene file.

    Args:
        width, height: the world rectangle in metres (default 100 x 100).
        cell_size: side of a terrain cell in metres; 0 (default) = no map (no walls or bunkers).
        seed: keys every random draw (default 1).
        threads: worker threads including the caller, 1..64; 0 = every core.
        timestep: seconds per step (default 1/60).
        wrap: True for a torus (leaving one edge re-enters at the opposite one), else walls.
        stall_time: seconds without progress before an agent counts as stalled (0 = 10 s).
        agent_capacity: agents to make room for up front (grows as needed).

    A world is closed (its memory and threads released) by :meth:`close`, by leaving a
    ``with`` block, or when it is garbage collected.
    """

    def __init__(
        self,
        width: float = 100.0,
        height: float = 100.0,
        *,
        cell_size: float = 0.0,
        seed: int = 1,
        threads: int = 0,
        timestep: float = 1.0 / 60.0,
        wrap: bool = False,
        stall_time: float = 0.0,
        agent_capacity: int = 0,
    ) -> None:
        self._w = _throng.create(
            width, height, cell_size, seed, threads, timestep, wrap, stall_time, agent_capacity
        )

    @classmethod
    def _wrap(cls, low: Any) -> "World":
        self = cls.__new__(cls)
        self._w = low
        return self

    # ---- life ------------------------------------------------------------------------
    def close(self) -> None:
        """Destroy the world now (joining its threads). Further calls raise RuntimeError;
        arrays already read stay valid (they are copies)."""
        self._w.close()

    def __enter__(self) -> "World":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        try:
            c = self._w.counts()
        except RuntimeError:
            return "<throng.World closed>"
        return f"<throng.World {c['width']:g} x {c['height']:g} m, {c['agents']} agents, step {c['step']}>"

    # ---- stepping --------------------------------------------------------------------
    def step(self, n: int = 1) -> None:
        """Advance ``n`` fixed steps (default 1). The GIL is released while the world steps,
        so other Python threads run meanwhile (on other worlds). Ctrl-C (KeyboardInterrupt,
        or any signal handler that raises) stops it within about 50 ms of stepping, the steps
        taken so far kept."""
        self._w.step(n)

    def run(self, steps: Optional[int] = None, *, fixed: bool = False) -> int:
        """Step as ``throng run`` does: at most ``steps`` steps (default: the scene's
        ``steps``), stopping early once the scene is over (no agent left that could move, no
        spawner or event to come) unless ``fixed``. Returns the steps run. Ctrl-C stops it as
        it stops ``step``."""
        if steps is None:
            steps = self._w.scene_steps
        return self._w.run(steps, fixed)

    @property
    def step_count(self) -> int:
        """Steps completed since the world was made."""
        return self._w.counts()["step"]

    @property
    def time(self) -> float:
        """Simulated seconds: step_count x timestep."""
        c = self._w.counts()
        return c["step"] * c["timestep"]

    @property
    def scene_over(self) -> bool:
        """Whether nothing will happen any more: no spawner or event to come, and no agent
        left that could move toward a goal."""
        return self._w.scene_over()

    # ---- the world's shape -----------------------------------------------------------
    @property
    def info(self) -> Dict[str, Any]:
        """Sizes and counts: width, height, timestep, threads, seed, wrap, map cols, rows and
        cell_size (0 without a map), and the numbers of agents, crowds, bunkers, spawners,
        exits, areas and lines."""
        return self._w.counts()

    @property
    def timestep(self) -> float:
        """Seconds per step."""
        return self._w.counts()["timestep"]

    @property
    def crowds(self) -> List[str]:
        """Crowd names, by index."""
        n = self._w.counts()["crowds"]
        return [self._w.crowd_name(i) for i in range(n)]

    # ---- reading agents --------------------------------------------------------------
    @property
    def agent_count(self) -> int:
        """Agents in the world."""
        return self._w.counts()["agents"]

    @property
    def agents(self) -> Agents:
        """Every agent (an :class:`Agents` of numpy arrays), copied: valid and unchanged for
        as long as they are referenced, whatever the world does afterwards."""
        return Agents(**self._w.agents())

    def positions(self, out: Optional[np.ndarray] = None) -> np.ndarray:
        """Positions alone, float32 (N, 2), in storage order: into ``out`` (a writable
        C-contiguous float32 array of that shape, reused from step to step to save the
        allocation) or a new array. Either way a copy, as :attr:`agents`."""
        return self._w.positions(out)

    def agent(self, agent_id: int) -> Optional[Dict[str, Any]]:
        """One agent's state (position, velocity, crowd, stranded, leader, neighbors), or None
        when ``agent_id`` names no agent (it has left: sheltered, exited or removed)."""
        return self._w.agent(agent_id)

    def trajectories(self, steps: int, every: int = 1) -> Trajectories:
        """Step ``steps`` times, recording every agent's position every ``every`` steps
        (and once before the first step); returns a :class:`Trajectories`."""
        if steps < 0 or every < 1:
            raise Error(int(ErrorCode.TH_ERR_INVALID), "TH_ERR_INVALID",
                        "trajectories: steps must be 0 or more and every 1 or more")
        frames, ids, xs, ys, levels = [], [], [], [], []
        # A building's levels: rectangles of map cells (the report's), none without levels.
        info = self.info
        rects = [l["cells"] for l in self.report().get("levels") or []]
        cell = info.get("cell_size") or 0.0

        def level_of(p: np.ndarray) -> np.ndarray:
            out = np.full(p.shape[0], -1, dtype=np.int32)
            if not rects or not cell:
                return out
            cx = np.floor(p[:, 0] / cell).astype(np.int64)
            cy = np.floor(p[:, 1] / cell).astype(np.int64)
            for i, (x0, y0, x1, y1) in enumerate(rects):
                inside = (cx >= x0) & (cx <= x1) & (cy >= y0) & (cy <= y1) & (out < 0)
                out[inside] = i
            return out

        def record() -> None:
            a = self._w.agents()
            order = np.argsort(a["id"], kind="stable")
            frames.append(np.full(order.shape[0], self.step_count, dtype=np.int64))
            ids.append(a["id"][order])
            xs.append(a["position"][order, 0])
            ys.append(a["position"][order, 1])
            levels.append(level_of(a["position"][order]))

        record()
        done = 0
        while done < steps:
            n = min(every, steps - done)
            self._w.step(n)
            done += n
            if n == every:
                record()
        cat = np.concatenate
        return Trajectories(cat(frames), cat(ids), cat(xs), cat(ys), cat(levels), self.timestep)

    def hash(self) -> int:
        """64-bit fingerprint of the whole simulation state: equal to the C library's
        th_world_hash and to the hash ``throng run`` prints for the same scene, seed and steps,
        for any number of threads."""
        return self._w.hash()

    def stats(self) -> Dict[str, Any]:
        """Figures of the last step: step, agents, spawned, sheltered, stranded, removed,
        buried, exited, stalled, mean_neighbors, mean_candidates."""
        return self._w.stats()

    def report(self) -> Dict[str, Any]:
        """The run report as a dict: the same document ``throng run --json`` writes (scene,
        run, stalls, outcome, bunkers, squads, buried, spawners, exits, colonies, exited,
        history_dropped, performance, hash, machine, build), from the same code. ``run.steps``
        is the steps completed; ``run.steps_asked`` the steps asked of step() and run();
        ``run.scene_over`` whether the last run() stopped because the scene was over.
        ``stalls`` holds the stalled agents now (stalled, longest_s, box_m, stall_time_s) and
        over the whole run: peak (most stalled at once), peak_s (when first reached, None if
        never), agent_seconds (the stalled count integrated over simulated time),
        longest_run_s (the longest single stall), queued and queued_peak (agents queuing now
        and at most: no progress of their own, but behind walkers who progress)."""
        fd, path = tempfile.mkstemp(prefix="throng-report-", suffix=".json")
        os.close(fd)
        try:
            self._w.report_json(path)
            with open(path, encoding="utf-8") as f:
                return json.load(f)
        finally:
            os.unlink(path)

    def sheltered_times(self) -> np.ndarray:
        """Seconds at which the k-th agent (k = 1, 2, ...) was sheltered: a sorted float64
        array, one entry per agent sheltered so far (the evacuation curve)."""
        return self._w.times(0).astype(np.float64) * self.timestep

    def exited_times(self) -> np.ndarray:
        """Seconds at which the k-th agent left through an exit, as :meth:`sheltered_times`."""
        return self._w.times(1).astype(np.float64) * self.timestep

    # ---- terrain and bunkers ---------------------------------------------------------
    def set_cell(self, x: int, y: int, kind: str = "wall", cost: int = 1) -> None:
        """Set map cell (x, y) to ``"open"`` (with terrain ``cost`` 1..1000), ``"wall"`` or
        ``"destructible"``; before the first step (afterwards use the events)."""
        self._w.set_cell(x, y, _choice(_CELLS, kind, "set_cell: kind"), cost)

    def cell(self, x: int, y: int) -> Tuple[str, int]:
        """Map cell (x, y): its kind (``"open"``, ``"wall"``, ``"destructible"``) and cost;
        ``"wall"`` outside the map."""
        kind, cost = self._w.cell(x, y)
        return _CELL_NAMES.get(kind, "wall"), cost

    def add_bunker(self, name: str, cells: CellRect, capacity: int = 0) -> int:
        """Add a bunker over the cell rectangle ``(x0, y0, x1, y1)`` (inclusive) before the
        first step; ``capacity`` 0 = unlimited. Returns its index."""
        x0, y0, x1, y1 = cells
        return self._w.add_bunker(name, x0, y0, x1, y1, capacity)

    def _bunker_index(self, bunker: Union[int, str]) -> int:
        if isinstance(bunker, str):
            i = self._w.find_bunker(bunker)
            if i < 0:
                raise Error(int(ErrorCode.TH_ERR_HANDLE), "TH_ERR_HANDLE", f"no bunker called {bunker!r}")
            return i
        return int(bunker)

    def bunker(self, bunker: Union[int, str]) -> Dict[str, Any]:
        """A bunker's state by index or name: name, cells, capacity, sheltered, destroyed,
        full."""
        info = self._w.bunker(self._bunker_index(bunker))
        if info is None:
            raise Error(int(ErrorCode.TH_ERR_HANDLE), "TH_ERR_HANDLE", f"no bunker {bunker!r}")
        return info

    @property
    def bunkers(self) -> List[Dict[str, Any]]:
        """Every bunker's state (see :meth:`bunker`)."""
        return [self._w.bunker(i) for i in range(self._w.counts()["bunkers"])]

    # ---- events ----------------------------------------------------------------------
    def _event(self, kind: str, at: Optional[int], bunker: int = -1, cells: CellRect = (0, 0, 0, 0),
               cost: int = 0) -> None:
        x0, y0, x1, y1 = cells
        self._w.schedule(at, _EVENTS[kind], bunker, x0, y0, x1, y1, cost)

    def destroy_bunker(self, bunker: Union[int, str], at: Optional[int] = None) -> None:
        """Destroy a bunker (by index or name) at the start of the next step, or of the step
        leaving step count ``at``: nobody else shelters there, its crowd re-routes."""
        self._event("destroy_bunker", at, bunker=self._bunker_index(bunker))

    def restore_bunker(self, bunker: Union[int, str], at: Optional[int] = None) -> None:
        """Restore a destroyed bunker (it opens again unless full); timing as destroy_bunker."""
        self._event("restore_bunker", at, bunker=self._bunker_index(bunker))

    def break_walls(self, cells: CellRect, at: Optional[int] = None) -> None:
        """Break every destructible wall in the cell rectangle ``(x0, y0, x1, y1)``."""
        self._event("break_walls", at, cells=cells)

    def block_cells(self, cells: CellRect, at: Optional[int] = None) -> None:
        """Turn every open, non-bunker cell of the rectangle into wall (agents caught inside
        are moved out, or buried when walled in)."""
        self._event("block_cells", at, cells=cells)

    def open_cells(self, cells: CellRect, at: Optional[int] = None) -> None:
        """Open again the cells of the rectangle that block_cells closed, with the terrain cost
        they had (walls of the map stay walls)."""
        self._event("open_cells", at, cells=cells)

    def set_cost(self, cells: CellRect, cost: int, at: Optional[int] = None) -> None:
        """Give every open, non-bunker cell of the rectangle terrain cost ``cost`` (1..1000):
        routes re-plan around expensive ground."""
        self._event("set_cost", at, cells=cells, cost=cost)

    # ---- crowds and agents -----------------------------------------------------------
    def add_crowd(
        self,
        name: str = "crowd",
        *,
        model: str = "boids",
        goal: str = "none",
        route: Optional[Sequence[Point]] = None,
        route_mode: str = "once",
        radius: float = 0.0,
        heading: Optional[Point] = None,
        wander_rate: float = 0.0,
        field: Optional[int] = None,
        color: int = 0,
        **params: float,
    ) -> int:
        """Add a crowd; returns its index.

        Args:
            name: the crowd's name.
            model: ``"boids"`` (Reynolds steering) or ``"pedestrian"`` (the collision-free
                speed model; bodies of 0.2 m, 1.34 m/s desired speed).
            goal: ``"none"``, ``"shelter"`` (flee to the nearest open bunker),
                ``"destinations"`` (a destination field, ``field``), ``"route"`` (waypoints
                ``route`` in turn, ``route_mode`` ``"once"``, ``"loop"`` or ``"patrol"``,
                each reached within ``radius``) or ``"wander"`` (``wander_rate``).
            heading: the direction a pedestrian crowd without goal walks.
            color: 0xRRGGBB for viewers (0 = automatic).
            params: any float parameter of th_crowd_def (include/throng/throng.h), e.g.
                ``desired_speed=1.2``, ``max_speed=2``, ``body_radius=0.25``, ``time_gap=0.8``.
        """
        if model not in ("boids", "pedestrian"):
            raise Error(int(ErrorCode.TH_ERR_INVALID), "TH_ERR_INVALID",
                        f"add_crowd: model {model!r} is not 'boids' or 'pedestrian'")
        g = _choice(_GOALS, goal, "add_crowd: goal")
        mode = _choice(_ROUTE_MODES, route_mode, "add_crowd: route_mode")
        if goal == "destinations" and field is None:
            raise Error(int(ErrorCode.TH_ERR_INVALID), "TH_ERR_INVALID",
                        "add_crowd: goal 'destinations' needs field= (add_destinations)")
        pts = None if route is None else np.asarray(route, dtype=np.float32).reshape(-1, 2)
        return self._w.add_crowd(name, model == "pedestrian", g, dict(params), pts, mode, radius,
                                 None if heading is None else tuple(heading), wander_rate,
                                 0 if field is None else field + 1, color)

    def add_agent(self, crowd: int, position: Point, velocity: Point = (0.0, 0.0)) -> int:
        """Add one agent of ``crowd`` at ``position`` (metres, on open ground) with
        ``velocity``; returns its id."""
        return int(self._w.add_agents(crowd, np.asarray([position], np.float32),
                                      np.asarray([velocity], np.float32))[0])

    def add_agents(self, crowd: int, positions: Union[np.ndarray, Sequence[Point]],
                   velocities: Optional[Union[np.ndarray, Sequence[Point]]] = None) -> np.ndarray:
        """Add agents of ``crowd`` at ``positions`` (N, 2); returns their ids (uint64). Stops
        at the first refused position (in a wall, off the world) and raises :class:`Error`
        naming it; the agents before it stay."""
        return self._w.add_agents(crowd, positions, velocities)

    def remove_agent(self, agent_id: int) -> None:
        """Remove an agent at the start of the next step."""
        self._w.remove_agent(agent_id)

    # ---- steering agents from the host (docs/embedding.md) ----------------------------
    def set_agent_preferred_velocity(self, agent_id: int, velocity: Point) -> None:
        """Steer one agent: from the next step it wants ``velocity`` (m/s) in place of what
        its goal asks, until :meth:`clear_agent_preferred_velocity`. Neighbours, walls and
        contacts still push it; a velocity above the crowd's max_speed is clamped to it.
        Raises :class:`Error` for an unknown agent or a velocity not finite."""
        self._w.set_agent_preferred_velocity(agent_id, tuple(velocity))

    def clear_agent_preferred_velocity(self, agent_id: int) -> None:
        """Return the agent to its goal from the next step on."""
        self._w.clear_agent_preferred_velocity(agent_id)

    def agent_preferred_velocity(self, agent_id: int) -> Optional[Tuple[float, float]]:
        """The preferred velocity the agent holds (as clamped), or None when its goal steers
        it or ``agent_id`` names no agent."""
        return self._w.agent_preferred_velocity(agent_id)

    def set_agent_position(self, agent_id: int, position: Point) -> None:
        """Move one agent to ``position`` (metres) at once; it arrives standing. Raises
        :class:`Error` for an unknown agent or a place off the world or in a wall (the agent
        stays where it was)."""
        self._w.set_agent_position(agent_id, tuple(position))

    def agent_neighbors(self, agent_id: int, radius: float) -> np.ndarray:
        """Ids (uint64) of the agents within ``radius`` metres of agent ``agent_id``, itself
        left out, nearest first."""
        return self._w.agent_neighbors(agent_id, radius)

    def add_destinations(self, goals: Iterable[Tuple[int, ...]]) -> int:
        """Build a destination field over goal cells ``(x, y)`` or ``(x, y, weight)`` (weight:
        cost-weighted metres added to reaching that goal); returns its index for
        ``add_crowd(goal="destinations", field=...)`` and ``add_exit(field=...)``."""
        return self._w.add_destinations(list(goals))

    def add_spawner(self, crowd: int, area: Rect, rate: float, *, start: float = 0.0,
                    stop: float = math.inf, limit: int = 0, velocity: Point = (0.0, 0.0),
                    name: Optional[str] = None) -> int:
        """Add ``rate`` agents per second of ``crowd`` in the rectangle ``(x0, y0, x1, y1)``
        (metres) from time ``start`` to ``stop`` (seconds), at most ``limit`` in all (0 = no
        limit). Returns its index."""
        return self._w.add_spawner(name, crowd, tuple(area), rate, start, stop, limit, tuple(velocity))

    def add_exit(self, area: Optional[Rect] = None, *, name: Optional[str] = None,
                 crowds: Optional[Sequence[int]] = None, field: Optional[int] = None) -> int:
        """Add an exit: agents (of ``crowds``, default every crowd) that reach the rectangle
        ``area`` (metres), or the goal cells of destination field ``field``, leave the world.
        Returns its index."""
        if area is None and field is None:
            raise Error(int(ErrorCode.TH_ERR_INVALID), "TH_ERR_INVALID", "add_exit: give area or field")
        return self._w.add_exit(name, tuple(area) if area is not None else (0.0, 0.0, 0.0, 0.0),
                                -1 if field is None else field, None if crowds is None else list(crowds))

    # ---- measurement -----------------------------------------------------------------
    def add_measure_area(self, name: str, area: Rect, lanes: Optional[str] = None) -> int:
        """Measure density and speed in the rectangle ``(x0, y0, x1, y1)`` (metres), and the
        lane order parameter for motion along ``lanes`` (``"x"`` or ``"y"``). Returns its
        index; read it with :meth:`measure_area`."""
        return self._w.add_measure_area(name, tuple(area), _choice(_LANES, lanes, "add_measure_area: lanes"))

    def add_measure_line(self, name: str, a: Point, b: Point, window: float = 0.0) -> int:
        """Count crossings of the segment a-b (forward: left to right looking from a to b);
        ``flow`` is averaged over ``window`` seconds (0 = 1 s). Returns its index."""
        return self._w.add_measure_line(name, tuple(a), tuple(b), window)

    def _named(self, get: Any, count_key: str, what: Union[int, str]) -> Dict[str, Any]:
        if isinstance(what, str):
            for i in range(self._w.counts()[count_key]):
                info = get(i)
                if info["name"] == what:
                    return info
        else:
            info = get(int(what))
            if info is not None:
                return info
        raise Error(int(ErrorCode.TH_ERR_HANDLE), "TH_ERR_HANDLE", f"no measurement {what!r}")

    def measure_area(self, area: Union[int, str]) -> Dict[str, Any]:
        """An area's figures as of the last step (by index or name): count, density
        (persons/m²), mean_speed (m/s; NaN when empty), lane_order (NaN when not measured)."""
        return self._named(self._w.measure_area, "areas", area)

    def measure_line(self, line: Union[int, str]) -> Dict[str, Any]:
        """A line's figures as of the last step (by index or name): crossed, forward, backward
        (last step), their totals, and flow (net persons per second over the window)."""
        return self._named(self._w.measure_line, "lines", line)


def demo(name: str, *, agents: int = 0, seed: int = 1, threads: int = 0) -> World:
    """A built-in demo world, as ``throng run NAME``: ``"flock"`` (boids on a torus),
    ``"evac"`` (a walled city with four bunkers and fleeing pedestrians) or ``"pedestrians"``
    (four crossing streams); ``agents`` 0 = the demo's default (10,000)."""
    return World._wrap(_throng.demo(name, agents, seed, threads))


def load(path: Union[str, "os.PathLike[str]"], *, seed: Optional[int] = None, threads: int = 0,
         agents: int = 0, allow_outside_paths: bool = False) -> World:
    """Load a scene file (docs/scene-format.md) and build its world, events scheduled.

    Args:
        path: the scene file.
        seed: replaces the file's seed (None keeps it).
        threads: worker threads; 0 = the scene's ``threads``, else every core.
        agents: 0 = as written; else the randomly spawned crowds are scaled to this many agents.
        allow_outside_paths: let the scene read files outside its folder (map images).

    Raises:
        Error: with ``code`` (e.g. ErrorCode.TH_ERR_SCENE_KEY), ``line`` and ``column`` of
            the problem in the file.
    """
    return World._wrap(_throng.load(os.fspath(path), seed, threads, agents, allow_outside_paths))
