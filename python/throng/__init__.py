"""throng: deterministic, multithreaded crowd simulation, from Python.

A :class:`World` holds crowds (named groups of agents sharing their parameters), agents, and
for worlds with a terrain map, walls, bunkers, exits, spawners, measurement areas and lines,
building levels joined by stairs and elevators, and fire hazards. It advances in fixed steps
(:meth:`World.step`), on the library's own worker threads, with the GIL released; between
steps it is a consistent snapshot that may be read freely.

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
Handles (crowds, bunkers, spawners, exits, areas, lines, destination fields, levels, stairs,
elevators, hazards, groups, squads, targets) are indices from 0 in the order of addition. Agent ids are integers, ``slot | generation << 32``, that stay
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
    "Planner",
    "Trajectories",
    "World",
    "__version__",
    "check",
    "clean_air",
    "demo",
    "elevator_travel_time",
    "fed_rate",
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


def elevator_travel_time(metres: float, speed: float, acceleration: float = 0.0) -> float:
    """Seconds an elevator car takes to travel ``metres`` at top ``speed`` (m/s) with
    ``acceleration`` (m/s², 0 = none): metres / speed + speed / acceleration when it reaches
    its top speed, else 2 sqrt(metres / acceleration). For hand calculations."""
    return _throng.elevator_travel_time(metres, speed, acceleration)


def clean_air() -> Dict[str, float]:
    """Clean air, the air outside every hazard: extinction 0 (1/m), co 0 (ppm), co2 0.04 (%),
    o2 20.9 (%), hcn 0 (ppm)."""
    return _throng.clean_air()


def fed_rate(air: Dict[str, float]) -> float:
    """Purser's fractional effective dose per second in ``air`` (a dict as :meth:`World.air`
    returns; gases left out are clean air's): docs/hazards.md has the formula."""
    clean = _throng.clean_air()
    unknown = set(air) - set(_AIR)
    if unknown:
        raise Error(int(ErrorCode.TH_ERR_INVALID), "TH_ERR_INVALID",
                    f"fed_rate: unknown gas {sorted(unknown)}; expected {', '.join(_AIR)}")
    return _throng.fed_rate(tuple(float(air.get(g, clean[g])) for g in _AIR))


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
_WAYS = {"east": 0, "north": 1, "west": 2, "south": 3}
_POLICIES = {"shuttle": 0, "collective": 1}
_AGENT_GOALS = {"crowd": 0, "point": 1, "exit": 2, "follow": 3}
_FORMATIONS = {"line": 0, "column": 1, "wedge": 2, "box": 3, "circle": 4}
_TARGETS = {"point": 0, "path": 1, "agent": 2, "shelter": 3}
_AIR = ("extinction", "co", "co2", "o2", "hcn")
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


def _agent_ids(agent_ids: Any) -> np.ndarray:
    """Agent ids as a uint64 array: an unsigned array as it is, integers checked (a negative
    or too large one raises OverflowError, as a single id does, instead of wrapping)."""
    a = np.asarray(agent_ids)
    if a.dtype.kind == "u":
        return a.astype(np.uint64).reshape(-1)
    if a.size == 0:
        return np.zeros(0, dtype=np.uint64)
    if a.dtype.kind not in "iO":
        raise TypeError(f"agent ids are integers, got an array of {a.dtype}")
    ids = [int(x) for x in a.reshape(-1)]
    for v in ids:
        if not 0 <= v < 2 ** 64:
            raise OverflowError(f"expected an integer in [0, 2**64 - 1], got {v}")
    return np.array(ids, dtype=np.uint64)


_DISTRIBUTIONS = {"constant": 1, "uniform": 2, "normal": 3, "lognormal": 4, "gamma": 5,
                  "weibull": 6, "age": 7}


def _distribution(value: Any, what: str) -> Tuple[int, float, float, float, float]:
    """A per-agent distribution in the scene file's forms as th_distribution's fields."""
    def bad(msg: str) -> Error:
        return Error(int(ErrorCode.TH_ERR_INVALID), "TH_ERR_INVALID", f"{what}: {msg}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (_DISTRIBUTIONS["constant"], float(value), 0.0, 0.0, 0.0)
    if not isinstance(value, dict):
        raise bad(f"expected a number or a dict such as {{'uniform': (a, b)}}, got {value!r}")
    forms = [k for k in value if k in _DISTRIBUTIONS]
    unknown = sorted(set(value) - set(_DISTRIBUTIONS) - {"min", "max"})
    if unknown or len(forms) != 1:
        raise bad(f"expected one of {', '.join(_DISTRIBUTIONS)} and optional min and max, "
                  f"got {sorted(value)}")
    form = forms[0]
    if form == "constant":
        a, b = float(value[form]), 0.0
    else:
        try:
            a, b = (float(x) for x in value[form])
        except (TypeError, ValueError):
            raise bad(f"{form} takes two numbers, got {value[form]!r}") from None
    lo = float(value.get("min", 0.0))
    hi = float(value["max"]) if "max" in value else 0.0
    if "max" in value and not hi > 0.0:
        raise bad(f"max must be above 0 (leave it out for no bound), got {value['max']!r}")
    return (_DISTRIBUTIONS[form], a, b, lo, hi)


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
        cell_size (0 without a map), the numbers of agents, crowds, bunkers, spawners, exits,
        areas, lines, levels, stairs, elevators, hazards, destinations (fields), groups and
        pending_events, id_slots (slots of the id table used so far) and grid (the spatial
        grid's cols, rows, cell width and height)."""
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
        """One agent's state, or None when ``agent_id`` names no agent (it has left:
        sheltered, exited or removed): position (m), velocity (m/s), acceleration (the
        steering of the last step, m/s²), crowd, stranded, leader, neighbors, waypoint (the
        route waypoint or graph node it walks to), carrying (foraging), start_time (world
        seconds from which it moves), fed (its hazard dose), incapacitated, and exit (the
        bunker index it walks to, chosen or set; None for the nearest open one)."""
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
        history_dropped, performance, hash, machine, build, crowd_changes: each crowd whose
        steering set_crowd changed, how often and when last), from the same code. ``run.steps``
        is the steps completed; ``run.steps_asked`` the steps asked of step() and run();
        ``run.scene_over`` whether the last run() stopped because the scene was over.
        ``stalls`` holds the stalled agents now (stalled, longest_s, box_m, stall_time_s) and
        over the whole run: peak (most stalled at once), peak_s (when first reached, None if
        never), agent_seconds (the stalled count integrated over simulated time),
        longest_run_s (the longest single stall), queued and queued_peak (agents queuing now
        and at most: no progress of their own, but behind walkers who progress).
        ``own_goals`` counts the agents an own goal leads (given) and of them those that
        reached it, are walking and have no way to it, and the changes given for a later step
        that were passed over (docs/goals.md)."""
        fd, path = tempfile.mkstemp(prefix="throng-report-", suffix=".json")
        os.close(fd)
        try:
            self._w.report_json(path)
            with open(path, encoding="utf-8") as f:
                return json.load(f)
        finally:
            os.unlink(path)

    def start_results(self, folder: Union[str, "os.PathLike[str]"]) -> None:
        """Gather what ``throng run --results FOLDER`` writes (docs/results.md: flows and
        queues at every exit, bunker, stair and line, the evacuation curve, every occupant,
        density maps and levels of service) after every step from now on, into ``folder``
        (made when missing; a folder or a name in one this user may write into). Call it
        before the first step. Raises :class:`Error` (TH_ERR_STATE) once the world has
        stepped or while results are gathered already, (TH_ERR_IO) for a folder it cannot
        write. Gathering reads the world only: the hash is the same as without it."""
        self._w.start_results(os.fspath(folder))

    def write_results(self) -> str:
        """Write the gathered results into the folder :meth:`start_results` named (the same
        files as the command line's, read back by :func:`read_results`) and end the
        gathering; returns the path of the folder's ``index.html``. Raises :class:`Error`
        (TH_ERR_STATE) when nothing is gathered."""
        return self._w.write_results()

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

    def add_bunker(self, name: str, cells: CellRect, capacity: int = 0, exit: bool = False,
                   max_flow: float = 0.0) -> int:
        """Add a bunker over the cell rectangle ``(x0, y0, x1, y1)`` (inclusive) before the
        first step; ``capacity`` 0 = unlimited; ``exit`` makes it a way out of the scene (a
        building's door) rather than a shelter: the same in the simulation, shown and reported
        as an exit; ``max_flow`` lets at most that many persons a second in (a door of that
        capacity; those beyond it wait in its cells), 0 = no limit. Returns its index."""
        x0, y0, x1, y1 = cells
        return self._w.add_bunker(name, x0, y0, x1, y1, capacity, exit, max_flow)

    def _bunker_index(self, bunker: Union[int, str]) -> int:
        if isinstance(bunker, str):
            i = self._w.find_bunker(bunker)
            if i < 0:
                raise Error(int(ErrorCode.TH_ERR_HANDLE), "TH_ERR_HANDLE", f"no bunker called {bunker!r}")
            return i
        return int(bunker)

    def bunker(self, bunker: Union[int, str]) -> Dict[str, Any]:
        """A bunker's state by index or name: name, cells, capacity, sheltered, destroyed,
        full, exit, max_flow (persons a second, 0 = no limit)."""
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

    _TUNE = ("separation_weight", "alignment_weight", "cohesion_weight", "flow_weight",
             "wall_weight", "pursuit_weight", "flee_weight", "max_speed", "max_force")

    def set_crowd(self, crowd: int, at: Optional[int] = None, **values: float) -> None:
        """Change a boids crowd's steering at the start of the next step, or of the step leaving
        step count ``at``: any of separation_weight, alignment_weight, cohesion_weight,
        flow_weight, wall_weight, pursuit_weight, flee_weight, max_speed (at most the crowd's
        own) and max_force, each bounded as the crowd key of its name
        (``th_world_schedule_crowd``)."""
        fields, vals = 0, []
        for bit, key in enumerate(self._TUNE):
            if key in values:
                fields |= 1 << bit
                vals.append(float(values.pop(key)))
            else:
                vals.append(0.0)
        if values:
            raise TypeError(f"set_crowd: unknown key(s) {sorted(values)}; expected {list(self._TUNE)}")
        self._w.schedule_crowd(at, crowd, fields, tuple(vals))

    def crowd_changes(self, crowd: int) -> Tuple[int, int]:
        """Steering changes applied to the crowd so far, and the step that applied the last
        (0 with none)."""
        n, last = self._w.crowd_changes(crowd)
        return int(n), int(last)

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
        target: Optional[int] = None,
        **params: Any,
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
            target: a target (:meth:`add_target`) the crowd's leaders pursue (boids: the
                agents with no one of their kind ahead lead, the others flock after them).
            params: any float parameter of th_crowd_def (include/throng/throng.h), e.g.
                ``desired_speed=1.2``, ``max_speed=2``, ``body_radius=0.25``, ``time_gap=0.8``,
                ``smoke_slope=0.1``, ``flee_radius=20``; and the two distributions drawn per
                agent, in the scene file's forms: ``pre_movement`` (seconds) and ``free_speed``
                (m/s, pedestrians), each a number (every agent's value) or a dict with one of
                ``constant: t``, ``uniform: (a, b)``, ``normal: (mean, sd)``,
                ``lognormal: (mu, sigma)``, ``gamma: (shape, scale)``,
                ``weibull: (shape, scale)`` or (free speeds) ``age: (from, to)`` years, and
                optional ``min`` and ``max`` (truncation), e.g.
                ``pre_movement={"lognormal": (3.0, 0.5), "max": 120}``.
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
        params = dict(params)
        for key in ("pre_movement", "free_speed"):
            if key in params:
                params[key] = _distribution(params[key], f"add_crowd: {key}")
        return self._w.add_crowd(name, model == "pedestrian", g, params, pts, mode, radius,
                                 None if heading is None else tuple(heading), wander_rate,
                                 0 if field is None else field + 1, color,
                                 0 if target is None else target + 1)

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
                 crowds: Optional[Sequence[int]] = None, field: Optional[int] = None,
                 max_flow: float = 0.0) -> int:
        """Add an exit: agents (of ``crowds``, default every crowd) that reach the rectangle
        ``area`` (metres), or the goal cells of destination field ``field``, leave the world;
        ``max_flow`` lets at most that many out a second (those beyond it wait in its area),
        0 = no limit. Returns its index."""
        if area is None and field is None:
            raise Error(int(ErrorCode.TH_ERR_INVALID), "TH_ERR_INVALID", "add_exit: give area or field")
        return self._w.add_exit(name, tuple(area) if area is not None else (0.0, 0.0, 0.0, 0.0),
                                -1 if field is None else field, None if crowds is None else list(crowds),
                                max_flow)

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

    # ---- buildings: levels, stairs, elevators (docs/buildings.md) -----------------------
    def _handle(self, kind: str, find: Any, what: Union[int, str]) -> int:
        if isinstance(what, str):
            i = find(what)
            if i is None:
                raise Error(int(ErrorCode.TH_ERR_HANDLE), "TH_ERR_HANDLE", f"no {kind} called {what!r}")
            return i
        return int(what)

    def _record(self, kind: str, get: Any, find: Any, what: Union[int, str]) -> Dict[str, Any]:
        info = get(self._handle(kind, find, what))
        if info is None:
            raise Error(int(ErrorCode.TH_ERR_HANDLE), "TH_ERR_HANDLE", f"no {kind} {what!r}")
        return info

    def add_level(self, name: str, cells: CellRect, elevation: float = 0.0) -> int:
        """Add a building level (floor): the cell rectangle ``(x0, y0, x1, y1)`` (inclusive) of
        the map, not overlapping another level, its floor at ``elevation`` metres. After the
        map's cells, before the first step. Returns its index."""
        return self._w.add_level(name, tuple(cells), elevation)

    def level(self, level: Union[int, str]) -> Dict[str, Any]:
        """A level by index or name: name, cells ``(x0, y0, x1, y1)``, elevation (metres) and
        agents (standing on it now)."""
        return self._record("level", self._w.level, self._w.find_level, level)

    @property
    def levels(self) -> List[Dict[str, Any]]:
        """Every level (see :meth:`level`), by index."""
        return [self._w.level(i) for i in range(self._w.counts()["levels"])]

    def find_level(self, name: str) -> Optional[int]:
        """The index of the level called ``name``, or None."""
        return self._w.find_level(name)

    def level_at(self, position: Point) -> Optional[int]:
        """The index of the level whose cells hold ``position`` (metres), or None (off every
        level, or a world without levels)."""
        return self._w.level_at(tuple(position))

    def add_stair(self, name: str, cells: CellRect, up: str, landing: Tuple[int, int], *,
                  length: float = 0.0, up_factor: float = 0.0, down_factor: float = 0.0) -> int:
        """Add a stair: a flight of open cells ``(x0, y0, x1, y1)`` (inclusive) on one level
        climbing ``up`` (``"east"``, ``"north"``, ``"west"`` or ``"south"``), its top edge glued
        to the landing on a higher level whose first cell is ``landing`` (C's top_x, top_y: the
        cell across the top edge from the top row's cell of least x, or least y). ``length``:
        metres along the slope (0 = from the plan length and the rise); ``up_factor`` and
        ``down_factor``: speed along the slope as a share of the free speed, in (0, 2] (0 =
        Weidmann's). The cells beyond the flight's top and behind the landing must be walls.
        After the levels, before the first step. Returns its index."""
        way = _choice(_WAYS, up, "add_stair: up")
        return self._w.add_stair(name, tuple(cells), way, tuple(landing), length, up_factor,
                                 down_factor)

    def stair(self, stair: Union[int, str]) -> Dict[str, Any]:
        """A stair by index or name: name, lower and upper (level indices), cells, up, landing,
        plan_length, rise and length (metres), up_factor and down_factor (as used), agents (on
        the flight now), crossed_up and crossed_down (crossings of its top edge so far, each
        way: crossed_down - crossed_up is the net number gone down)."""
        return self._record("stair", self._w.stair, self._w.find_stair, stair)

    @property
    def stairs(self) -> List[Dict[str, Any]]:
        """Every stair (see :meth:`stair`), by index."""
        return [self._w.stair(i) for i in range(self._w.counts()["stairs"])]

    def find_stair(self, name: str) -> Optional[int]:
        """The index of the stair called ``name``, or None."""
        return self._w.find_stair(name)

    def stair_at(self, position: Point) -> Optional[int]:
        """The index of the stair whose flight holds ``position`` (metres), or None."""
        return self._w.stair_at(tuple(position))

    def add_elevator(self, name: str, stops: Sequence[Tuple[Union[int, str], Tuple[int, int]]],
                     crowds: Sequence[int], *, capacity: int, speed: float, discharge: int = 0,
                     start: int = 0, acceleration: float = 0.0, door_time: float = 2.0,
                     dwell: float = 2.0, board_time: float = 1.0, radius: float = 1.5,
                     policy: str = "shuttle", patience: float = 0.0) -> int:
        """Add an elevator (after its levels and crowds, before the first step).

        Args:
            stops: 2 to 16 ``(level, (x, y))``: the open cell in front of the doors on that
                level (index or name), each on its own level, off every stair's seam.
            crowds: the pedestrian crowds it serves (each served by one elevator at most).
            capacity: riders per trip, 1..64. speed: m/s; acceleration: m/s² (0 = none).
            discharge, start: indices into ``stops``: where riders are taken, where the car
                waits at first.
            door_time: seconds to open, and again to close; dwell: seconds open after the last
                rider in or out; board_time: seconds per rider in or out (0 = all at once);
                radius: metres around a stop where riders wait and board. The defaults are
                the scene format's.
            policy: ``"shuttle"`` (straight to the discharge stop) or ``"collective"`` (stops
                on the way where agents called, while it has room).
            patience: seconds an agent waits before it gives up and follows its crowd's goal
                (0 = for ever).

        Returns its index. Raises :class:`Error` (TH_ERR_BLOCKED for a stop that is not an
        open cell of its level or lies on a stair's seam)."""
        pol = _choice(_POLICIES, policy, "add_elevator: policy")
        st = [(self._handle("level", self._w.find_level, lv), int(x), int(y)) for lv, (x, y) in stops]
        return self._w.add_elevator(name, st, [int(c) for c in crowds], discharge, start, capacity,
                                    speed, acceleration, door_time, dwell, board_time, radius, pol,
                                    patience)

    def elevator(self, elevator: Union[int, str]) -> Dict[str, Any]:
        """An elevator by index or name, as it stands: name, stops (``{"level": index,
        "cell": (x, y)}``), discharge, capacity, speed (m/s), acceleration (m/s²), door_time,
        dwell, board_time (s), radius (m), policy, state (``"idle"``, ``"moving"``,
        ``"opening"``, ``"open"``, ``"closing"``), at (the stop it stands at or left last), to
        (where it travels), riders, waiting (at its stops) and stop_waiting (per stop), trips,
        carried, patience (s), gave_up, last_out (world seconds of the last rider out; None
        before) and walking (agents on their way to a stop)."""
        return self._record("elevator", self._w.elevator, self._w.find_elevator, elevator)

    @property
    def elevators(self) -> List[Dict[str, Any]]:
        """Every elevator (see :meth:`elevator`), by index."""
        return [self._w.elevator(i) for i in range(self._w.counts()["elevators"])]

    def find_elevator(self, name: str) -> Optional[int]:
        """The index of the elevator called ``name``, or None."""
        return self._w.find_elevator(name)

    def agent_elevator(self, agent_id: int) -> Optional[int]:
        """The index of the elevator agent ``agent_id`` rides now, or None."""
        return self._w.agent_elevator(agent_id)

    # ---- hazards (docs/hazards.md) --------------------------------------------------------
    def add_hazard(self, area: Rect, keys: Sequence[Dict[str, float]]) -> int:
        """Add a fire hazard over the rectangle ``(x0, y0, x1, y1)`` (metres; it covers the
        cells whose centres lie inside): ``keys``, 1 to 4096 dicts in increasing ``time``
        (seconds of world time), each with any of ``extinction`` (smoke, 1/m), ``co`` (ppm),
        ``co2`` (volume %), ``o2`` (volume %) and ``hcn`` (ppm); a gas left out is clean air's
        (:func:`clean_air`). Linear between keys, the first before it and the last after.
        Where hazards overlap the one added last covers the others. Needs a map. Returns its
        index (hazards count from 0 in order of addition)."""
        x0, y0, x1, y1 = area
        clean = _throng.clean_air()
        ks = []
        for k in keys:
            unknown = set(k) - {"time", *_AIR}
            if unknown or "time" not in k:
                raise Error(int(ErrorCode.TH_ERR_INVALID), "TH_ERR_INVALID",
                            f"add_hazard: a key is time and {', '.join(_AIR)}; got {sorted(k)}")
            ks.append((k["time"], tuple(float(k.get(g, clean[g])) for g in _AIR)))
        return self._w.add_hazard((x0, y0, x1 - x0, y1 - y0), ks)

    def air(self, position: Point) -> Dict[str, float]:
        """The air at ``position`` (metres) as agents breathe it in the next step: extinction
        (1/m), co (ppm), co2 (%), o2 (%), hcn (ppm). Raises :class:`Error` (TH_ERR_BLOCKED)
        off the world."""
        return self._w.air(tuple(position))

    def smoke_factor(self, crowd: int, extinction: float) -> float:
        """The factor, in (0, 1], that smoke of ``extinction`` (1/m) scales crowd ``crowd``'s
        free speed by: max(smoke_min_factor, 1 - smoke_slope * extinction)."""
        return self._w.smoke_factor(crowd, extinction)

    def hazard_info(self, crowd: int) -> Optional[Dict[str, Any]]:
        """A crowd's exposure: incapacitated (agents whose dose reached 1), first_s (world
        seconds of the first; 0 when none) and max_fed (the highest dose of its agents); None in
        a world without hazards."""
        return self._w.hazard_info(crowd)

    def agent_fed(self, agent_id: int) -> Optional[Tuple[float, Optional[float]]]:
        """One agent's fractional effective dose so far and the world time (seconds) it reached
        1 (None while it has not); None for an unknown agent or a world without hazards."""
        return self._w.agent_fed(agent_id)

    # ---- one agent's goal and way (docs/goals.md) -------------------------------------------
    def _goal(self, what: str, point: Optional[Point], exit: Optional[Union[int, str]],
              follow: Optional[int], radius: float, priority: int) -> Tuple[Any, ...]:
        given = [n for n, v in (("point", point), ("exit", exit), ("follow", follow)) if v is not None]
        if len(given) > 1:
            raise Error(int(ErrorCode.TH_ERR_INVALID), "TH_ERR_INVALID",
                        f"{what}: give one of point, exit and follow, not {' and '.join(given)}")
        kind = _AGENT_GOALS[given[0] if given else "crowd"]
        p = (0.0, 0.0) if point is None else tuple(point)
        b = -1 if exit is None else self._bunker_index(exit)
        return (kind, p, radius, b, 0 if follow is None else int(follow), priority)

    def set_agent_goal(self, agent_id: int, *, point: Optional[Point] = None,
                       exit: Optional[Union[int, str]] = None, follow: Optional[int] = None,
                       radius: float = 0.0, priority: int = 0) -> None:
        """Give one agent its own goal from the next step on: walk to ``point`` (metres, along
        an A* path, staying once within ``radius``, 0 = 1 m), flee to bunker ``exit`` (index
        or name; fleeing crowds), or ``follow`` another agent (keeping ``radius`` off). With
        none of them it returns to its crowd's goal. ``priority`` orders point goals under
        goal planning. Raises :class:`Error`: TH_ERR_HANDLE for an unknown agent,
        TH_ERR_UNREACHABLE for a point with no path, TH_ERR_STATE for a squad member."""
        self._w.set_agent_goal(agent_id, self._goal("set_agent_goal", point, exit, follow, radius, priority))

    def set_agents_goal(self, agent_ids: Union[np.ndarray, Sequence[int]], *,
                        point: Optional[Point] = None, exit: Optional[Union[int, str]] = None,
                        follow: Optional[int] = None, radius: float = 0.0, priority: int = 0) -> int:
        """Give each of ``agent_ids``, in order, the goal :meth:`set_agent_goal` describes.
        Returns how many were given it. At the first that fails raises :class:`Error` naming
        its place: those before it keep the new goal. An unknown agent anywhere is refused
        before any is changed."""
        g = self._goal("set_agents_goal", point, exit, follow, radius, priority)
        return self._w.set_agents_goal(_agent_ids(agent_ids), g)

    def schedule_agents_goal(self, agent_ids: Union[np.ndarray, Sequence[int]], at: Optional[int] = None, *,
                             point: Optional[Point] = None, exit: Optional[Union[int, str]] = None,
                             follow: Optional[int] = None, radius: float = 0.0,
                             priority: int = 0) -> None:
        """Give ``agent_ids`` the goal :meth:`set_agent_goal` describes at the start of the
        step leaving step count ``at`` (None = the next step), before its terrain events.
        Checked now (every agent must be in the world now); at that step an agent gone is
        passed over, and one with no path to the point keeps its goal (:meth:`goal_changes`
        counts both)."""
        g = self._goal("schedule_agents_goal", point, exit, follow, radius, priority)
        self._w.schedule_agents_goal(at, _agent_ids(agent_ids), g)

    def agent_goal(self, agent_id: int) -> Optional[Dict[str, Any]]:
        """An agent's own goal: kind (``"crowd"`` when it follows its crowd's, ``"point"``,
        ``"exit"``, ``"follow"``), point ((x, y) for a point, else None), radius, exit (bunker
        index, else None), follow (agent id, else None) and priority; None for an unknown
        agent."""
        return self._w.agent_goal(agent_id)

    def goal_changes(self) -> Dict[str, int]:
        """Goal changes scheduled by :meth:`schedule_agents_goal`: pending (not made yet, one
        per agent), made, and passed (the agent had left, or had no path to the point)."""
        return self._w.goal_changes()

    def own_goals(self) -> Dict[str, int]:
        """Agents an own goal leads now (a point, or another agent still in the world): given,
        and of them reached (within the goal's radius), walking, and unreachable (a point with
        no way to it from where they stand); the report's ``own_goals`` as it stands now."""
        return self._w.own_goals()

    def set_goal_planning(self, budget: int, *, cluster_size: int = 0, max_requests: int = 0) -> None:
        """Plan own point goals over steps with the hierarchical planner: ``budget``
        expansions per step (0 turns it off: goals still waiting are planned at once),
        ``cluster_size`` 4..64 (0 = 16), ``max_requests`` goals held at once (0 = 64). Needs
        a map; call it between steps."""
        self._w.set_goal_planning(budget, cluster_size, max_requests)

    def goal_planning(self) -> Dict[str, int]:
        """How goal planning stands: budget (0 = off), cluster_size and max_requests (as set,
        defaults filled), waiting (point goals without their path after the last step),
        searching (of those, held by the planner), answered, unreachable, at_once (planned at
        once with A* instead), expanded, last_expanded, most_steps (the longest an answered
        goal waited) and wait_steps (the steps answered goals waited, summed)."""
        return self._w.goal_planning()

    def agent_path(self, agent_id: int) -> np.ndarray:
        """The agent's way to its goal as waypoints, float32 (N, 2) metres, its position first
        (a field's cell path string-pulled; a route's or graph's points). Raises
        :class:`Error` for an unknown agent or a goal without an end or out of reach."""
        return self._w.agent_path(agent_id)

    def agent_path_pending(self, agent_id: int) -> bool:
        """Whether the agent's own point goal waits for the goal planner's path."""
        return self._w.agent_path_pending(agent_id)

    def agent_remaining(self, agent_id: int) -> float:
        """Metres the agent still has to walk to its goal (route cost, terrain costs
        included); ``inf`` for an unknown agent or a goal without an end or out of reach, 0 at
        its goal."""
        return self._w.agent_remaining(agent_id)

    def agent_next_step(self, agent_id: int) -> Optional[Tuple[float, float]]:
        """The unit direction its goal gives the agent where it stands ((0, 0) at its goal or
        without one); None for an unknown agent or one that cannot reach its goal."""
        return self._w.agent_next_step(agent_id)

    def set_agent_exit(self, agent_id: int, bunker: Optional[Union[int, str]]) -> None:
        """Send one agent of a fleeing crowd to ``bunker`` (index or name) from the next step
        on; None sends it to the nearest open bunker again."""
        self._w.set_agent_exit(agent_id, -1 if bunker is None else self._bunker_index(bunker))

    def set_agent_speed(self, agent_id: int, speed: float) -> None:
        """Give one pedestrian its own free walking speed (m/s, in (0, its crowd's
        max_speed]) from the next step on."""
        self._w.set_agent_speed(agent_id, speed)

    def set_agent_radius(self, agent_id: int, radius: float) -> None:
        """Give one agent a body radius of its own (metres, in (0, its crowd's body_radius])
        from the next step on: a child among adults. Everything that reads bodies reads it."""
        self._w.set_agent_radius(agent_id, radius)

    def agent_radius(self, agent_id: int) -> float:
        """The agent's body radius: its own, else its crowd's (0 without bodies). KeyError for
        an unknown agent."""
        return self._w.agent_radius(agent_id)

    def pre_movement(self, crowd: int) -> Optional[Dict[str, Any]]:
        """A crowd's pre-movement times: drawn (agents given one), mean_s, min_s, max_s
        (seconds) and waiting (agents whose time has not come); None for a crowd without
        pre-movement times."""
        return self._w.pre_movement(crowd)

    # ---- stalls, flows and paths ------------------------------------------------------------
    def stall_info(self) -> Dict[str, Any]:
        """Stalled agents as of the last step and figures over the run: stalled, longest
        (seconds without progress), box ((x0, y0, x1, y1) metres around the stalled; zeros
        when none), stall_time (s), peak, peak_time (s), agent_seconds, longest_run (s),
        queued and queued_peak; the report's ``stalls`` section."""
        return self._w.stall_info()

    def flow(self, position: Point) -> Optional[Tuple[float, float]]:
        """The unit direction toward the nearest open bunker at ``position`` ((0, 0) inside
        one); None when none can be reached from there. Valid after the first step."""
        return self._w.flow(tuple(position))

    def bunker_flow(self, bunker: Union[int, str], position: Point) -> Optional[Tuple[float, float]]:
        """The direction toward ``bunker`` alone (its own river map, standing or not) at
        ``position``; None when it cannot be reached from there. Valid after the first step."""
        return self._w.bunker_flow(self._bunker_index(bunker), tuple(position))

    def cost_to_shelter(self, position: Point) -> float:
        """Cost-weighted metres from ``position`` to the nearest open bunker; ``inf`` when
        unreachable."""
        return self._w.cost_to_shelter(tuple(position))

    def nearest_bunker(self, position: Point) -> Optional[int]:
        """The index of the open bunker whose river map wins at ``position``, or None."""
        return self._w.nearest_bunker(tuple(position))

    def shelter_path(self, position: Point) -> np.ndarray:
        """Cell-centre path, float32 (N, 2) metres, from ``position`` down the river map to
        the nearest open bunker (start cell first, bunker cell last): each cell a neighbour
        of the next, but where a stair's seam joins two levels, from a landing cell to the
        flight's top row (cells apart on the map). Raises :class:`Error` when no open bunker
        is reachable. Valid after the first step."""
        return self._w.shelter_path(tuple(position))

    def destination_flow(self, field: int, position: Point) -> Optional[Tuple[float, float]]:
        """The unit direction toward destination field ``field``'s cheapest goal at
        ``position``; None when no goal is reachable."""
        return self._w.destination_flow(field, tuple(position))

    def destination_cost(self, field: int, position: Point) -> float:
        """Cost-weighted metres from ``position`` to the field's cheapest goal, its weight
        included; ``inf`` when unreachable."""
        return self._w.destination_cost(field, tuple(position))

    def destination_path(self, field: int, position: Point) -> np.ndarray:
        """Cell-centre path, float32 (N, 2) metres, from ``position`` to the field's cheapest
        goal, like :meth:`shelter_path`. These destination queries answer for the field as
        built, without a crowd's congestion term."""
        return self._w.destination_path(field, tuple(position))

    def find_path(self, start: Point, goal: Point) -> Tuple[np.ndarray, float]:
        """Any-angle path from ``start`` to ``goal`` (A* over the terrain costs, string
        pulled): waypoints, float32 (N, 2) metres at cell centres, start first, and the route's
        cost in cost-weighted metres. Raises :class:`Error` when an end is blocked or no route
        exists. The first call after the map changed builds A*'s landmark bounds."""
        return self._w.find_path(tuple(start), tuple(goal))

    def find_path_ida(
        self, start: Point, goal: Point, max_expansions: int = 0
    ) -> Tuple[np.ndarray, float]:
        """:meth:`find_path` by IDA* (iterative deepening A*): the same route cost and kind of
        waypoints, with memory for the route only (13 to 26 bytes per cell of the deepest route
        it follows, nothing per cell of the map) but often far more time. ``max_expansions``
        bounds the work (0: 5 million, about 3 s); past it, :class:`Error` with code
        TH_ERR_LIMIT ("gave up"). Raises :class:`Error` when an end is blocked or no route
        exists, as find_path. Uses A*'s landmark bounds only when find_path has built them for
        the map as it is."""
        return self._w.find_path_ida(tuple(start), tuple(goal), int(max_expansions))

    def wall_distance(self, position: Point) -> Tuple[float, Tuple[float, float]]:
        """Metres from ``position`` to the nearest wall (bilinear over cell centres) and the
        unit direction away from it; ``(inf, (0, 0))`` without a map, ``(0, (0, 0))`` off the
        world. The distances are built by the first step: call it after one."""
        return self._w.wall_distance(tuple(position))

    def set_cell_speed(self, x: int, y: int, factor: float) -> None:
        """Set how fast agents walk on open cell (x, y), a factor in (0, 1] of their speed,
        apart from its routing cost; before the first step."""
        self._w.set_cell_speed(x, y, factor)

    def cell_speed(self, x: int, y: int) -> float:
        """Cell (x, y)'s walking speed factor: 1 unless set, 0 outside the map."""
        return self._w.cell_speed(x, y)

    # ---- exits and spawners as they stand ----------------------------------------------------
    def exit(self, exit: Union[int, str]) -> Dict[str, Any]:
        """An exit by index or name: name, exited, first_step and last_step (steps after which
        its first and latest agent had left; 0 while none has), area ((x0, y0, x1, y1)
        metres: its rectangle, or the bounding box of its cells), max_flow (persons a second,
        0 = no limit)."""
        return self._named_record("exit", self._w.exit, "exits", exit)

    @property
    def exits(self) -> List[Dict[str, Any]]:
        """Every exit (see :meth:`exit`), by index."""
        return [self._w.exit(i) for i in range(self._w.counts()["exits"])]

    def exit_covers(self, exit: int, x: int, y: int) -> bool:
        """Whether map cell (x, y) is one of the cells of an exit given by cells (False for
        one given by a rectangle)."""
        return self._w.exit_covers(exit, x, y)

    def spawner(self, spawner: Union[int, str]) -> Dict[str, Any]:
        """A spawner by index or name, as of the last step: name, crowd, emitted, due,
        waiting (owed but not placed), total (``inf`` for an endless one), done, area
        ((x0, y0, x1, y1) metres, or the bounding box of its cells)."""
        return self._named_record("spawner", self._w.spawner, "spawners", spawner)

    @property
    def spawners(self) -> List[Dict[str, Any]]:
        """Every spawner (see :meth:`spawner`), by index."""
        return [self._w.spawner(i) for i in range(self._w.counts()["spawners"])]

    def spawner_covers(self, spawner: int, x: int, y: int) -> bool:
        """Whether map cell (x, y) is one of the cells of a spawner given by cells."""
        return self._w.spawner_covers(spawner, x, y)

    def _named_record(self, kind: str, get: Any, count_key: str, what: Union[int, str]) -> Dict[str, Any]:
        if isinstance(what, str):
            for i in range(self._w.counts()[count_key]):
                info = get(i)
                if info["name"] == what:
                    return info
        else:
            info = get(int(what))
            if info is not None:
                return info
        raise Error(int(ErrorCode.TH_ERR_HANDLE), "TH_ERR_HANDLE", f"no {kind} {what!r}")

    # ---- groups, squads and targets (docs/goals.md, "Groups"; squads; leaders) ----------------
    def add_group(self, agent_ids: Union[np.ndarray, Sequence[int]], spread: float = 0.0) -> int:
        """Make 2 to 32 pedestrians (each in no other group) walk together: whoever is more than
        ``spread`` metres (0 = 1.5) ahead of the group's last member along the way slows down,
        standing at twice that, so the group keeps its slowest member's pace. Returns its
        index."""
        return self._w.add_group(_agent_ids(agent_ids), spread)

    def group(self, group: int) -> Dict[str, Any]:
        """A group as of the last step: members (as added), present (still in the world),
        stretch (metres from the last member to the first along the way), waiting (members
        slowed down for the others)."""
        info = self._w.group(int(group))
        if info is None:
            raise Error(int(ErrorCode.TH_ERR_HANDLE), "TH_ERR_HANDLE", f"no group {group!r}")
        return info

    @property
    def groups(self) -> List[Dict[str, Any]]:
        """Every group (see :meth:`group`), by index."""
        return [self._w.group(i) for i in range(self._w.counts()["groups"])]

    def add_squad(self, crowd: int, count: int, start: Point, goal: Point, *,
                  formation: str = "box", files: int = 0, spacing: float = 1.5,
                  speed: float = 1.5, tolerance: float = 0.5, slot_weight: float = 3.0,
                  rigid: bool = False) -> int:
        """Add a squad of ``count`` agents of ``crowd`` (1..1024), spawned on their slots around
        ``start`` and marching in ``formation`` (``"line"``, ``"column"``, ``"wedge"``,
        ``"box"`` of ``files`` per rank, 0 = ceil(sqrt(count)), or ``"circle"``) along an A*
        path to ``goal``: ``spacing`` metres between slots, the centre at ``speed`` m/s,
        arrived when every member is within ``tolerance`` metres of its slot; ``slot_weight``
        pulls members to their slots; ``rigid`` moves the formation as one body. Returns its
        index."""
        form = _choice(_FORMATIONS, formation, "add_squad: formation")
        return self._w.add_squad(crowd, count, form, files, spacing, tuple(start), tuple(goal),
                                 speed, tolerance, slot_weight, rigid)

    def squad(self, squad: int) -> Dict[str, Any]:
        """A squad as of the last step: centre (metres), heading (unit vector), members (alive),
        error (mean metres from members to their slots), arrived, waypoints (of the centre's
        path), stuck (no route, or a rigid shape that does not fit the way ahead)."""
        info = self._w.squad(int(squad))
        if info is None:
            raise Error(int(ErrorCode.TH_ERR_HANDLE), "TH_ERR_HANDLE", f"no squad {squad!r}")
        return info

    def squad_members(self, squad: int) -> Tuple[np.ndarray, np.ndarray]:
        """A squad's members: their ids (uint64) and their slots (float32 (N, 2), metres)."""
        got = self._w.squad_members(int(squad))
        if got is None:
            raise Error(int(ErrorCode.TH_ERR_HANDLE), "TH_ERR_HANDLE", f"no squad {squad!r}")
        return got

    def squad_path(self, squad: int) -> np.ndarray:
        """The points of a squad centre's path, float32 (N, 2) metres, start first (planned
        again after terrain events)."""
        got = self._w.squad_path(int(squad))
        if got is None:
            raise Error(int(ErrorCode.TH_ERR_HANDLE), "TH_ERR_HANDLE", f"no squad {squad!r}")
        return got

    def squad_join(self, squad: int, agent_id: int) -> None:
        """Add an agent (of any crowd, in no squad, without a goal of its own) to a squad: the
        slots are laid out again for the new count and go to the nearest members."""
        self._w.squad_join(squad, agent_id)

    def add_target(self, kind: str = "point", *, position: Point = (0.0, 0.0),
                   velocity: Point = (0.0, 0.0), points: Optional[Sequence[Point]] = None,
                   speed: float = 0.0, loop: bool = False, agent: Optional[int] = None) -> int:
        """Add a target for leaders to pursue (``add_crowd(target=...)``): ``"point"`` (from
        ``position`` at constant ``velocity``), ``"path"`` (along ``points`` at ``speed`` m/s,
        back to the first when ``loop``), ``"agent"`` (follows agent ``agent``) or
        ``"shelter"`` (the nearest open bunker). Returns its index."""
        k = _choice(_TARGETS, kind, "add_target: kind")
        pts = None if points is None else np.asarray(points, dtype=np.float32).reshape(-1, 2)
        return self._w.add_target(k, tuple(position), tuple(velocity), pts, speed, loop,
                                  0 if agent is None else int(agent))

    def target(self, target: int) -> Optional[Tuple[Tuple[float, float], Tuple[float, float]]]:
        """A target's position and velocity as of the start of the last step, or None when it
        does not exist (a gone agent, a shelter target, no such target)."""
        return self._w.target(target)

    # ---- trails, waypoint graphs and colonies ---------------------------------------------------
    def breadcrumbs(self, crowd: int) -> np.ndarray:
        """The trail of a crowd with a breadcrumbs goal as of the last step, float32 (N, 2)
        metres, oldest first (empty for any other crowd)."""
        return self._w.breadcrumbs(crowd)

    def waypoint_hop(self, crowd: int, start: int, end: int) -> Optional[Tuple[int, float]]:
        """On the waypoint graph of a crowd with a waypoints goal: the node after ``start`` on a
        cheapest route to ``end`` and that route's length in metres; None without a route."""
        return self._w.waypoint_hop(crowd, start, end)

    def forage(self, crowd: int) -> Optional[Dict[str, Any]]:
        """A foraging colony's totals: nest (metres), nest_radius, sources, taken, delivered,
        carried, lost, pheromone (the grid's sum); None for a crowd that does not forage."""
        return self._w.forage(crowd)

    def food_source(self, crowd: int, source: int) -> Optional[Dict[str, Any]]:
        """Food source ``source`` of a foraging crowd: at (metres), radius, amount (at the
        start), remaining; None when there is none."""
        return self._w.food_source(crowd, source)

    def pheromone(self, crowd: int) -> Optional[Tuple[np.ndarray, float]]:
        """A copy of a foraging crowd's pheromone grid, float32 (rows, cols), row 0 the south
        edge, and its cell size in metres; None for a crowd that does not forage."""
        return self._w.pheromone(crowd)

    def add_pheromone(self, crowd: int, position: Point, amount: float) -> None:
        """Add ``amount`` (may be negative) of pheromone to the cell of a foraging crowd's grid
        holding ``position``: a trail laid by hand. Call between steps."""
        self._w.add_pheromone(crowd, tuple(position), amount)

    # ---- history, checks and timing ---------------------------------------------------------
    def history(self) -> Dict[str, Any]:
        """What happened over the run, in order: ``entries``, dicts of step, kind
        (``"bunker_destroyed"``, ``"bunker_restored"``, ``"bunker_full"``,
        ``"squad_arrived"``, ``"buried"``), bunker and squad (indices or None) and count
        (agents buried); ``dropped``: entries past the 1,024 kept."""
        entries, dropped = self._w.history()
        return {"entries": entries, "dropped": dropped}

    def set_validation(self, on: bool = True) -> None:
        """Check the engine's invariants inside every step from now on (a few passes over the
        agents per step); turning it on clears an earlier violation."""
        self._w.set_validation(on)

    def validation_error(self) -> Optional[str]:
        """None while every check has held since validation was turned on, else the first
        violation (step, agent, values)."""
        return self._w.validation_error()

    def step_error(self) -> Optional[Error]:
        """None while every step has done all its work; else the first :class:`Error` a step
        met (memory short for an endless spawner's agents), returned, not raised."""
        got = self._w.step_error()
        return None if got is None else Error(*got)

    def phase_ms(self, last: bool = False) -> Dict[str, float]:
        """Milliseconds per phase of a step (events, nav, grid, steer, ...): the mean per step
        since the world was made or :meth:`reset_profile`, or those of the last step."""
        return self._w.phase_ms(last)

    def reset_profile(self) -> None:
        """Forget the phase totals (after warm-up steps, say)."""
        self._w.reset_profile()

    def trace_start(self, max_spans: int) -> None:
        """Record one span per phase per worker of every step from now on, into room for
        ``max_spans`` spans (recording stops when full); an earlier recording is discarded."""
        self._w.trace_start(max_spans)

    def trace_spans(self) -> Dict[str, Any]:
        """The spans recorded so far, in recording order: step, begin_ns, end_ns (monotonic
        nanoseconds, uint64 arrays), worker (uint32) and phase (a list of names)."""
        return self._w.trace_spans()

    def trace_stop(self) -> None:
        """Stop recording and free the spans."""
        self._w.trace_stop()


class Planner:
    """A hierarchical path planner (HPA*, docs/planning.md) on a world's map: many paths for a
    fraction of A*'s work each, a few percent dearer, across a building's stairs.

    Ask at once (:meth:`find_path`, :meth:`find_tour`) or queue requests (:meth:`submit`)
    and serve them with a budget of expansions per call (:meth:`update`, once per step, say);
    :meth:`direction` gives a coarse heading meanwhile. Results are the same either way and
    for any thread count. :meth:`note_trouble` makes cells dearer for later plans in the
    planner's own view, a memory that fades with ``trouble_half_life``.

    Args:
        world: a :class:`World` with a map; the planner is closed with it.
        cluster_size: cells a cluster side, 4..64. max_requests: requests held at once,
            waiting or answered. max_waypoints: waypoints kept per answered request.
        trouble_half_life: seconds of world time in which remembered trouble halves.
        stall_trouble: cost added per second to the cell of each stalled agent (0 = off).
        trouble_interval: seconds between takes of changed trouble (0 = at every refresh).

    Zero takes the default (16, 1024, 256, 30 s, off, every refresh). Call it between steps, from
    the thread that steps the world. Request ids are ints (``slot | generation << 32``).
    """

    def __init__(self, world: World, *, cluster_size: int = 0, max_requests: int = 0,
                 max_waypoints: int = 0, trouble_half_life: float = 0.0,
                 stall_trouble: float = 0.0, trouble_interval: float = 0.0) -> None:
        self._p = _throng.planner(world._w, cluster_size, max_requests, max_waypoints,
                                  trouble_half_life, stall_trouble, trouble_interval)

    def close(self) -> None:
        """Free the planner now; further calls raise RuntimeError."""
        self._p.close()

    def __enter__(self) -> "Planner":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def info(self) -> Dict[str, int]:
        """Its counts: cluster_size, clusters, nodes, edges, bytes, waiting, expanded,
        cells_expanded, rebuilt, improving, improve_expanded, trouble_cells."""
        return self._p.info()

    def refresh(self) -> None:
        """Bring the planner up to date with the world's map and its trouble memory now
        (the calls that plan do it first anyway; this chooses when the work is done)."""
        self._p.refresh()

    def cells_changed(self, cells: CellRect) -> None:
        """The cells of ``(x0, y0, x1, y1)`` (inclusive) changed: rebuild the clusters they
        touch now."""
        self._p.cells_changed(tuple(cells))

    def find_path(self, start: Point, goal: Point) -> Tuple[np.ndarray, float]:
        """A path now: string-pulled waypoints, float32 (N, 2) metres (start cell centre first,
        goal cell centre last), and the cell route's cost in cost-weighted metres. Raises
        :class:`Error`: TH_ERR_BLOCKED off the world, TH_ERR_UNREACHABLE for a blocked or
        unconnected end."""
        return self._p.find_path(tuple(start), tuple(goal))

    def submit(self, start: Point, goal: Point, priority: int = 0) -> int:
        """Queue a request; higher ``priority`` is served first, then earlier submissions.
        Returns its id. Raises :class:`Error` (TH_ERR_LIMIT when every slot is held: release
        answered ones)."""
        return self._p.submit(tuple(start), tuple(goal), priority)

    def update(self, budget: int) -> int:
        """Serve queued requests (then improve anytime ones) with at most ``budget``
        expansions; returns the expansions spent."""
        return self._p.update(budget)

    def result(self, request: int) -> Tuple[str, Optional[np.ndarray], float]:
        """A request's status (``"waiting"``, ``"done"``, ``"unreachable"``, ``"too_long"``)
        and, once done, its waypoints (float32 (N, 2), else None) and cost (``inf`` before).
        Raises :class:`Error` for an unknown or released request."""
        return self._p.result(request)

    def direction(self, request: int) -> Optional[Tuple[float, float]]:
        """A coarse unit heading for a request from its start (toward its first waypoint once
        done, the best route's first cluster entrance while searched, the goal while queued);
        None for an unknown request, an unreachable goal or a start at the goal."""
        return self._p.direction(request)

    def release(self, request: int) -> None:
        """Drop a request (waiting or answered) and free its slot."""
        self._p.release(request)

    def set_anytime(self, request: int, anytime: bool = True) -> None:
        """Mark a request anytime: once answered, :meth:`update` improves it with the budget
        the queue leaves over toward the optimal cell path."""
        self._p.set_anytime(request, anytime)

    def progress(self, request: int) -> Dict[str, Any]:
        """How far a request's improvement has gone: anytime, final (nothing cheaper exists
        on the planner's view), iterations (0 = the first answer, 1 = the corridor's best,
        2 = the whole map's) and first_cost (``inf`` before the first answer)."""
        return self._p.progress(request)

    def find_tour(self, start: Point, goal: Point,
                  rewards: Sequence[Tuple[Point, float]] = ()) -> Tuple[np.ndarray, List[int], float]:
        """A tour from ``start`` to ``goal`` through those of up to 8 reward points
        ``((x, y), reward)`` whose reward outweighs their detour, in the best order: its
        waypoints (float32 (N, 2)), the indices of the points taken, and the route cost minus
        the rewards collected."""
        pts, taken, net = self._p.find_tour(tuple(start), tuple(goal),
                                            [(tuple(p), float(r)) for p, r in rewards])
        return pts, [i for i in range(len(rewards)) if taken >> i & 1], net

    def note_trouble(self, position: Point, weight: float) -> None:
        """Remember trouble at ``position``: ``weight`` terrain-cost units are added to its
        cell's cost in the planner's view (fading with the half-life), for later plans."""
        self._p.note_trouble(tuple(position), weight)

    def trouble(self, position: Point) -> float:
        """The trouble remembered at ``position``'s cell, terrain-cost units."""
        return self._p.trouble(tuple(position))


def demo(name: str, *, agents: int = 0, seed: int = 1, threads: int = 0) -> World:
    """A built-in demo world, as ``throng run NAME``: ``"flock"`` (boids on a torus),
    ``"evac"`` (a walled city with four bunkers and fleeing pedestrians) or ``"pedestrians"``
    (four crossing streams); ``agents`` 0 = the demo's default (10,000)."""
    return World._wrap(_throng.demo(name, agents, seed, threads))


def check(path: Union[str, "os.PathLike[str]"], *, seed: Optional[int] = None, threads: int = 0,
          agents: int = 0, allow_outside_paths: bool = False) -> Dict[str, Any]:
    """Validate a scene file as :func:`load` would load it, with the same options, without
    building what only stepping needs (much less memory and time on large maps): returns its
    summary (name, steps, timestep, agents, crowds, bunkers, events, map_cols, map_rows,
    map_image, warnings, warning) or raises the :class:`Error` load would raise."""
    return _throng.check(os.fspath(path), seed, threads, agents, allow_outside_paths)

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
