"""Type stub of the throng package (throng/__init__.py holds the documentation)."""
import enum
import os
from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple, Union
import numpy as np
__all__ = ['AGENT_LEADER', 'AGENT_STALLED', 'AGENT_STRANDED', 'Agents', 'Error', 'ErrorCode', 'Trajectories', 'World', '__version__', 'demo', 'load', 'read_results', 'version']
__version__: str
AGENT_LEADER: int
AGENT_STRANDED: int
AGENT_STALLED: int

class ErrorCode(enum.IntEnum):
    TH_OK = 0
    TH_ERR_NOMEM = 1
    TH_ERR_INVALID = 2
    TH_ERR_HANDLE = 3
    TH_ERR_STATE = 4
    TH_ERR_LIMIT = 5
    TH_ERR_BLOCKED = 6
    TH_ERR_UNREACHABLE = 7
    TH_ERR_IO = 8
    TH_ERR_SYSTEM = 9
    TH_ERR_SCENE_SYNTAX = 10
    TH_ERR_SCENE_KEY = 11
    TH_ERR_SCENE_MISSING = 12
    TH_ERR_SCENE_VALUE = 13
    TH_ERR_SCENE_IMAGE = 14

class Error(Exception):
    code: ErrorCode
    name: str
    message: str
    line: int
    column: int

    def __init__(self, code: int, name: str, message: str, line: int=0, column: int=0):
        ...

    @property
    def meaning(self) -> str:
        ...

def version() -> str:
    ...

class Agents(NamedTuple):
    position: np.ndarray
    velocity: np.ndarray
    id: np.ndarray
    crowd: np.ndarray
    state: np.ndarray

    def __len__(self) -> int:
        ...

class Trajectories(NamedTuple):
    frame: np.ndarray
    id: np.ndarray
    x: np.ndarray
    y: np.ndarray
    level: np.ndarray
    timestep: float

    def __len__(self) -> int:
        ...
Rect = Tuple[float, float, float, float]
CellRect = Tuple[int, int, int, int]
Point = Tuple[float, float]

class World:

    def __init__(self, width: float=100.0, height: float=100.0, *, cell_size: float=0.0, seed: int=1, threads: int=0, timestep: float=1.0 / 60.0, wrap: bool=False, stall_time: float=0.0, agent_capacity: int=0) -> None:
        ...

    def close(self) -> None:
        ...

    def __enter__(self) -> 'World':
        ...

    def __exit__(self, *exc: Any) -> None:
        ...

    def step(self, n: int=1) -> None:
        ...

    def run(self, steps: Optional[int]=None, *, fixed: bool=False) -> int:
        ...

    @property
    def step_count(self) -> int:
        ...

    @property
    def time(self) -> float:
        ...

    @property
    def scene_over(self) -> bool:
        ...

    @property
    def info(self) -> Dict[str, Any]:
        ...

    @property
    def timestep(self) -> float:
        ...

    @property
    def crowds(self) -> List[str]:
        ...

    @property
    def agent_count(self) -> int:
        ...

    @property
    def agents(self) -> Agents:
        ...

    def positions(self, out: Optional[np.ndarray]=None) -> np.ndarray:
        ...

    def agent(self, agent_id: int) -> Optional[Dict[str, Any]]:
        ...

    def trajectories(self, steps: int, every: int=1) -> Trajectories:
        ...

    def hash(self) -> int:
        ...

    def stats(self) -> Dict[str, Any]:
        ...

    def report(self) -> Dict[str, Any]:
        ...

    def sheltered_times(self) -> np.ndarray:
        ...

    def exited_times(self) -> np.ndarray:
        ...

    def set_cell(self, x: int, y: int, kind: str='wall', cost: int=1) -> None:
        ...

    def cell(self, x: int, y: int) -> Tuple[str, int]:
        ...

    def add_bunker(self, name: str, cells: CellRect, capacity: int=0) -> int:
        ...

    def bunker(self, bunker: Union[int, str]) -> Dict[str, Any]:
        ...

    @property
    def bunkers(self) -> List[Dict[str, Any]]:
        ...

    def destroy_bunker(self, bunker: Union[int, str], at: Optional[int]=None) -> None:
        ...

    def restore_bunker(self, bunker: Union[int, str], at: Optional[int]=None) -> None:
        ...

    def break_walls(self, cells: CellRect, at: Optional[int]=None) -> None:
        ...

    def block_cells(self, cells: CellRect, at: Optional[int]=None) -> None:
        ...

    def open_cells(self, cells: CellRect, at: Optional[int]=None) -> None:
        ...

    def set_cost(self, cells: CellRect, cost: int, at: Optional[int]=None) -> None:
        ...

    def add_crowd(self, name: str='crowd', *, model: str='boids', goal: str='none', route: Optional[Sequence[Point]]=None, route_mode: str='once', radius: float=0.0, heading: Optional[Point]=None, wander_rate: float=0.0, field: Optional[int]=None, color: int=0, **params: float) -> int:
        ...

    def add_agent(self, crowd: int, position: Point, velocity: Point=(0.0, 0.0)) -> int:
        ...

    def add_agents(self, crowd: int, positions: Union[np.ndarray, Sequence[Point]], velocities: Optional[Union[np.ndarray, Sequence[Point]]]=None) -> np.ndarray:
        ...

    def remove_agent(self, agent_id: int) -> None:
        ...

    def set_agent_preferred_velocity(self, agent_id: int, velocity: Point) -> None:
        ...

    def clear_agent_preferred_velocity(self, agent_id: int) -> None:
        ...

    def agent_preferred_velocity(self, agent_id: int) -> Optional[Tuple[float, float]]:
        ...

    def set_agent_position(self, agent_id: int, position: Point) -> None:
        ...

    def agent_neighbors(self, agent_id: int, radius: float) -> np.ndarray:
        ...

    def add_destinations(self, goals: Iterable[Tuple[int, ...]]) -> int:
        ...

    def add_spawner(self, crowd: int, area: Rect, rate: float, *, start: float=0.0, stop: float=math.inf, limit: int=0, velocity: Point=(0.0, 0.0), name: Optional[str]=None) -> int:
        ...

    def add_exit(self, area: Optional[Rect]=None, *, name: Optional[str]=None, crowds: Optional[Sequence[int]]=None, field: Optional[int]=None) -> int:
        ...

    def add_measure_area(self, name: str, area: Rect, lanes: Optional[str]=None) -> int:
        ...

    def add_measure_line(self, name: str, a: Point, b: Point, window: float=0.0) -> int:
        ...

    def measure_area(self, area: Union[int, str]) -> Dict[str, Any]:
        ...

    def measure_line(self, line: Union[int, str]) -> Dict[str, Any]:
        ...

def demo(name: str, *, agents: int=0, seed: int=1, threads: int=0) -> World:
    ...

def load(path: Union[str, 'os.PathLike[str]'], *, seed: Optional[int]=None, threads: int=0, agents: int=0, allow_outside_paths: bool=False) -> World:
    ...

def read_results(folder: Union[str, 'os.PathLike[str]']) -> Dict[str, Any]:
    ...
