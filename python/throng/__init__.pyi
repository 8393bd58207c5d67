"""Type stub of the throng package (throng/__init__.py holds the documentation)."""
import enum
import os
from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple, Union
import numpy as np
__all__ = ['AGENT_LEADER', 'AGENT_STALLED', 'AGENT_STRANDED', 'Agents', 'Error', 'ErrorCode', 'Planner', 'Trajectories', 'World', '__version__', 'check', 'clean_air', 'demo', 'elevator_travel_time', 'fed_rate', 'load', 'read_results', 'version']
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

def elevator_travel_time(metres: float, speed: float, acceleration: float=0.0) -> float:
    ...

def clean_air() -> Dict[str, float]:
    ...

def fed_rate(air: Dict[str, float]) -> float:
    ...

def check(path: Union[str, 'os.PathLike[str]'], *, seed: Optional[int]=None, threads: int=0, agents: int=0, allow_outside_paths: bool=False) -> Dict[str, Any]:
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

    def start_results(self, folder: Union[str, 'os.PathLike[str]']) -> None:
        ...

    def write_results(self) -> str:
        ...

    def sheltered_times(self) -> np.ndarray:
        ...

    def exited_times(self) -> np.ndarray:
        ...

    def set_cell(self, x: int, y: int, kind: str='wall', cost: int=1) -> None:
        ...

    def cell(self, x: int, y: int) -> Tuple[str, int]:
        ...

    def add_bunker(self, name: str, cells: CellRect, capacity: int=0, exit: bool=False, max_flow: float=0.0) -> int:
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

    def set_crowd(self, crowd: int, at: Optional[int]=None, **values: float) -> None:
        ...

    def crowd_changes(self, crowd: int) -> Tuple[int, int]:
        ...

    def add_crowd(self, name: str='crowd', *, model: str='boids', goal: str='none', route: Optional[Sequence[Point]]=None, route_mode: str='once', radius: float=0.0, heading: Optional[Point]=None, wander_rate: float=0.0, field: Optional[int]=None, color: int=0, target: Optional[int]=None, **params: Any) -> int:
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

    def add_exit(self, area: Optional[Rect]=None, *, name: Optional[str]=None, crowds: Optional[Sequence[int]]=None, field: Optional[int]=None, max_flow: float=0.0) -> int:
        ...

    def add_measure_area(self, name: str, area: Rect, lanes: Optional[str]=None) -> int:
        ...

    def add_measure_line(self, name: str, a: Point, b: Point, window: float=0.0) -> int:
        ...

    def measure_area(self, area: Union[int, str]) -> Dict[str, Any]:
        ...

    def measure_line(self, line: Union[int, str]) -> Dict[str, Any]:
        ...

    def add_level(self, name: str, cells: CellRect, elevation: float=0.0) -> int:
        ...

    def level(self, level: Union[int, str]) -> Dict[str, Any]:
        ...

    @property
    def levels(self) -> List[Dict[str, Any]]:
        ...

    def find_level(self, name: str) -> Optional[int]:
        ...

    def level_at(self, position: Point) -> Optional[int]:
        ...

    def add_stair(self, name: str, cells: CellRect, up: str, landing: Tuple[int, int], *, length: float=0.0, up_factor: float=0.0, down_factor: float=0.0) -> int:
        ...

    def stair(self, stair: Union[int, str]) -> Dict[str, Any]:
        ...

    @property
    def stairs(self) -> List[Dict[str, Any]]:
        ...

    def find_stair(self, name: str) -> Optional[int]:
        ...

    def stair_at(self, position: Point) -> Optional[int]:
        ...

    def add_elevator(self, name: str, stops: Sequence[Tuple[Union[int, str], Tuple[int, int]]], crowds: Sequence[int], *, capacity: int, speed: float, discharge: int=0, start: int=0, acceleration: float=0.0, door_time: float=2.0, dwell: float=2.0, board_time: float=1.0, radius: float=1.5, policy: str='shuttle', patience: float=0.0) -> int:
        ...

    def elevator(self, elevator: Union[int, str]) -> Dict[str, Any]:
        ...

    @property
    def elevators(self) -> List[Dict[str, Any]]:
        ...

    def find_elevator(self, name: str) -> Optional[int]:
        ...

    def agent_elevator(self, agent_id: int) -> Optional[int]:
        ...

    def add_hazard(self, area: Rect, keys: Sequence[Dict[str, float]]) -> int:
        ...

    def air(self, position: Point) -> Dict[str, float]:
        ...

    def smoke_factor(self, crowd: int, extinction: float) -> float:
        ...

    def hazard_info(self, crowd: int) -> Optional[Dict[str, Any]]:
        ...

    def agent_fed(self, agent_id: int) -> Optional[Tuple[float, Optional[float]]]:
        ...

    def set_agent_goal(self, agent_id: int, *, point: Optional[Point]=None, exit: Optional[Union[int, str]]=None, follow: Optional[int]=None, radius: float=0.0, priority: int=0) -> None:
        ...

    def set_agents_goal(self, agent_ids: Union[np.ndarray, Sequence[int]], *, point: Optional[Point]=None, exit: Optional[Union[int, str]]=None, follow: Optional[int]=None, radius: float=0.0, priority: int=0) -> int:
        ...

    def schedule_agents_goal(self, agent_ids: Union[np.ndarray, Sequence[int]], at: Optional[int]=None, *, point: Optional[Point]=None, exit: Optional[Union[int, str]]=None, follow: Optional[int]=None, radius: float=0.0, priority: int=0) -> None:
        ...

    def agent_goal(self, agent_id: int) -> Optional[Dict[str, Any]]:
        ...

    def goal_changes(self) -> Dict[str, int]:
        ...

    def own_goals(self) -> Dict[str, int]:
        ...

    def set_goal_planning(self, budget: int, *, cluster_size: int=0, max_requests: int=0) -> None:
        ...

    def goal_planning(self) -> Dict[str, int]:
        ...

    def agent_path(self, agent_id: int) -> np.ndarray:
        ...

    def agent_path_pending(self, agent_id: int) -> bool:
        ...

    def agent_remaining(self, agent_id: int) -> float:
        ...

    def agent_next_step(self, agent_id: int) -> Optional[Tuple[float, float]]:
        ...

    def set_agent_exit(self, agent_id: int, bunker: Optional[Union[int, str]]) -> None:
        ...

    def set_agent_speed(self, agent_id: int, speed: float) -> None:
        ...

    def set_agent_radius(self, agent_id: int, radius: float) -> None:
        ...

    def agent_radius(self, agent_id: int) -> float:
        ...

    def pre_movement(self, crowd: int) -> Optional[Dict[str, Any]]:
        ...

    def stall_info(self) -> Dict[str, Any]:
        ...

    def flow(self, position: Point) -> Optional[Tuple[float, float]]:
        ...

    def bunker_flow(self, bunker: Union[int, str], position: Point) -> Optional[Tuple[float, float]]:
        ...

    def cost_to_shelter(self, position: Point) -> float:
        ...

    def nearest_bunker(self, position: Point) -> Optional[int]:
        ...

    def shelter_path(self, position: Point) -> np.ndarray:
        ...

    def destination_flow(self, field: int, position: Point) -> Optional[Tuple[float, float]]:
        ...

    def destination_cost(self, field: int, position: Point) -> float:
        ...

    def destination_path(self, field: int, position: Point) -> np.ndarray:
        ...

    def find_path(self, start: Point, goal: Point) -> Tuple[np.ndarray, float]:
        ...

    def find_path_ida(
        self, start: Point, goal: Point, max_expansions: int = 0
    ) -> Tuple[np.ndarray, float]:
        ...

    def wall_distance(self, position: Point) -> Tuple[float, Tuple[float, float]]:
        ...

    def set_cell_speed(self, x: int, y: int, factor: float) -> None:
        ...

    def cell_speed(self, x: int, y: int) -> float:
        ...

    def exit(self, exit: Union[int, str]) -> Dict[str, Any]:
        ...

    @property
    def exits(self) -> List[Dict[str, Any]]:
        ...

    def exit_covers(self, exit: int, x: int, y: int) -> bool:
        ...

    def spawner(self, spawner: Union[int, str]) -> Dict[str, Any]:
        ...

    @property
    def spawners(self) -> List[Dict[str, Any]]:
        ...

    def spawner_covers(self, spawner: int, x: int, y: int) -> bool:
        ...

    def add_group(self, agent_ids: Union[np.ndarray, Sequence[int]], spread: float=0.0) -> int:
        ...

    def group(self, group: int) -> Dict[str, Any]:
        ...

    @property
    def groups(self) -> List[Dict[str, Any]]:
        ...

    def add_squad(self, crowd: int, count: int, start: Point, goal: Point, *, formation: str='box', files: int=0, spacing: float=1.5, speed: float=1.5, tolerance: float=0.5, slot_weight: float=3.0, rigid: bool=False) -> int:
        ...

    def squad(self, squad: int) -> Dict[str, Any]:
        ...

    def squad_members(self, squad: int) -> Tuple[np.ndarray, np.ndarray]:
        ...

    def squad_path(self, squad: int) -> np.ndarray:
        ...

    def squad_join(self, squad: int, agent_id: int) -> None:
        ...

    def add_target(self, kind: str='point', *, position: Point=(0.0, 0.0), velocity: Point=(0.0, 0.0), points: Optional[Sequence[Point]]=None, speed: float=0.0, loop: bool=False, agent: Optional[int]=None) -> int:
        ...

    def target(self, target: int) -> Optional[Tuple[Tuple[float, float], Tuple[float, float]]]:
        ...

    def breadcrumbs(self, crowd: int) -> np.ndarray:
        ...

    def waypoint_hop(self, crowd: int, start: int, end: int) -> Optional[Tuple[int, float]]:
        ...

    def forage(self, crowd: int) -> Optional[Dict[str, Any]]:
        ...

    def food_source(self, crowd: int, source: int) -> Optional[Dict[str, Any]]:
        ...

    def pheromone(self, crowd: int) -> Optional[Tuple[np.ndarray, float]]:
        ...

    def add_pheromone(self, crowd: int, position: Point, amount: float) -> None:
        ...

    def history(self) -> Dict[str, Any]:
        ...

    def set_validation(self, on: bool=True) -> None:
        ...

    def validation_error(self) -> Optional[str]:
        ...

    def step_error(self) -> Optional[Error]:
        ...

    def phase_ms(self, last: bool=False) -> Dict[str, float]:
        ...

    def reset_profile(self) -> None:
        ...

    def trace_start(self, max_spans: int) -> None:
        ...

    def trace_spans(self) -> Dict[str, Any]:
        ...

    def trace_stop(self) -> None:
        ...

class Planner:

    def __init__(self, world: World, *, cluster_size: int=0, max_requests: int=0, max_waypoints: int=0, trouble_half_life: float=0.0, stall_trouble: float=0.0, trouble_interval: float=0.0) -> None:
        ...

    def close(self) -> None:
        ...

    def __enter__(self) -> 'Planner':
        ...

    def __exit__(self, *exc: Any) -> None:
        ...

    @property
    def info(self) -> Dict[str, int]:
        ...

    def refresh(self) -> None:
        ...

    def cells_changed(self, cells: CellRect) -> None:
        ...

    def find_path(self, start: Point, goal: Point) -> Tuple[np.ndarray, float]:
        ...

    def submit(self, start: Point, goal: Point, priority: int=0) -> int:
        ...

    def update(self, budget: int) -> int:
        ...

    def result(self, request: int) -> Tuple[str, Optional[np.ndarray], float]:
        ...

    def direction(self, request: int) -> Optional[Tuple[float, float]]:
        ...

    def release(self, request: int) -> None:
        ...

    def set_anytime(self, request: int, anytime: bool=True) -> None:
        ...

    def progress(self, request: int) -> Dict[str, Any]:
        ...

    def find_tour(self, start: Point, goal: Point, rewards: Sequence[Tuple[Point, float]]=()) -> Tuple[np.ndarray, List[int], float]:
        ...

    def note_trouble(self, position: Point, weight: float) -> None:
        ...

    def trouble(self, position: Point) -> float:
        ...

def demo(name: str, *, agents: int=0, seed: int=1, threads: int=0) -> World:
    ...

def load(path: Union[str, 'os.PathLike[str]'], *, seed: Optional[int]=None, threads: int=0, agents: int=0, allow_outside_paths: bool=False) -> World:
    ...

def read_results(folder: Union[str, 'os.PathLike[str]']) -> Dict[str, Any]:
    ...
