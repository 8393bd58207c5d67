"""Reading a ``throng run --results DIR`` folder (docs/results.md) as numpy arrays."""
import csv
import os
from typing import Any, Dict, Union

import numpy as np

# Each table's columns and their types: text, integers, or floats (empty fields read as NaN).
_COLUMNS = {
    "flows.csv": [("time_s", "f8"), ("kind", "U8"), ("name", "U64"), ("count", "i8"),
                  ("flow_per_s", "f8"), ("queue", "i8")],
    "evacuation.csv": [("time_s", "f8"), ("out", "i8"), ("in_world", "i8")],
    "occupants.csv": [("id", "i8"), ("crowd", "U64"), ("level", "U64"), ("x0_m", "f8"),
                      ("y0_m", "f8"), ("added_s", "f8"), ("pre_movement_s", "f8"),
                      ("moved_s", "f8"), ("left_s", "f8"), ("left_by", "U64"),
                      ("left_kind", "U8"), ("distance_m", "f8"), ("queuing_s", "f8"),
                      ("state", "U16")],
    "density": [("x_m", "f8"), ("y_m", "f8"), ("mean_density", "f8"), ("max_density", "f8"),
                ("los", "U1")],
}


def _table(path: str, columns) -> np.ndarray:
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    header = [name for name, _ in columns]
    if not rows or rows[0] != header:
        raise ValueError("%s: expected the columns %s, found %s"
                         % (path, ",".join(header), ",".join(rows[0]) if rows else "nothing"))
    out = np.zeros(len(rows) - 1, dtype=columns)
    for i, row in enumerate(rows[1:]):
        if len(row) != len(columns):
            raise ValueError("%s:%d: expected %d fields, found %d"
                             % (path, i + 2, len(columns), len(row)))
        for (name, kind), value in zip(columns, row):
            if kind == "f8":
                out[name][i] = float(value) if value != "" else np.nan
            elif kind == "i8":
                out[name][i] = int(value)
            else:
                out[name][i] = value
    return out


def read_results(folder: Union[str, "os.PathLike[str]"]) -> Dict[str, Any]:
    """The tables of a results folder: a dict with ``flows``, ``evacuation`` and ``occupants``
    (numpy structured arrays, one field per column of docs/results.md; times never reached
    are NaN) and ``density``, a dict from each level's file name part (``1_ground``, or
    ``map``) to its cells' array. Raises FileNotFoundError for a missing table and ValueError
    for one whose columns are not the documented ones."""
    folder = os.fspath(folder)
    out: Dict[str, Any] = {}
    for name in ("flows.csv", "evacuation.csv", "occupants.csv"):
        out[name[:-4]] = _table(os.path.join(folder, name), _COLUMNS[name])
    density = {}
    for entry in sorted(os.listdir(folder)):
        if entry.startswith("density_") and entry.endswith(".csv"):
            density[entry[len("density_"):-4]] = _table(os.path.join(folder, entry),
                                                        _COLUMNS["density"])
    out["density"] = density
    return out
