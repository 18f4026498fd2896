"""efield.sweep's configuration: a TOML file read as data (tomllib; nothing in it is evaluated)
and checked whole before anything runs; each design x parameter combination is one Job.

    kind = "place"                  # "place" (efield.place) or "evaluate" (efield.density_timing)
    [[designs]]
    aux = "../data/synthetic2000/synthetic2000.aux"    # relative to this file's folder
    [[designs]]
    synthetic = { cells = 5000, macros = 40, pads = 200, utilization = 0.7, seed = 1 }
    [[designs]]
    standin = "adaptec1"            # an ISPD2005 stand-in; scale = 0.01 for a smaller one
    [params]                        # the same for every job
    max_iters = 300
    [grid]                          # every combination of these lists
    target_density = [0.9, 1.0]
    [[cases]]                       # and/or explicit combinations (crossed with the grid)
    seed = 1
"""

import dataclasses
import hashlib
import itertools
import json
import pathlib
from dataclasses import dataclass
from typing import Any, Dict

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None


class ConfigError(ValueError):
    """A sweep configuration that cannot run; the message names the file and the problem."""


KINDS = ("place", "evaluate")
TOP_LEVEL = {"kind", "designs", "params", "grid", "cases", "results"}
SYNTHETIC_KEYS = {"cells": int, "macros": int, "pads": int, "utilization": float, "macro_area": float,
                  "nets": bool, "seed": int}

TYPE_NAMES = {int: "an integer", float: "a number", bool: "true or false", str: "a string"}


@dataclass(frozen=True)
class Job:
    """One placement or timing run: what the workers receive (plain data)."""

    kind: str
    design: Dict[str, Any]      # {"label", and one of "aux" (absolute path), "synthetic" (dict), "standin"...}
    params: Dict[str, Any]      # the kind's parameters; device "auto" is resolved on the worker
    swept: Dict[str, Any]       # the parameters that vary in this sweep (for tables and plots)

    @property
    def id(self):
        """A stable name of the job (its kind, design and parameters), the key of resume."""
        text = json.dumps({"kind": self.kind, "design": self.design["spec"], "params": self.params}, sort_keys=True)
        return hashlib.sha1(text.encode()).hexdigest()[:16]

    @property
    def label(self):
        swept = " ".join(f"{k}={v}" for k, v in self.swept.items() if k != "design")
        return f"{self.design['label']} {swept}".strip()


def params_class(kind):
    if kind == "place":
        from .place import PlaceParams

        return PlaceParams
    from .density_timing import TimingParams

    return TimingParams


def load(path):
    """Reads and checks the config at `path`; returns (kind, [Job], results path or None)."""
    path = pathlib.Path(path)
    if tomllib is None:
        raise ConfigError("efield.sweep needs Python 3.11 or later (tomllib)")
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from None
    return from_dict(data, path.parent, str(path))


def from_dict(data, base_dir=".", where="config"):
    """The jobs of a config already parsed into a dict (paths relative to base_dir)."""
    unknown = sorted(set(data) - TOP_LEVEL)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(TOP_LEVEL))}")
    kind = data.get("kind", "place")
    if kind not in KINDS:
        raise ConfigError(f"{where}: kind must be one of {', '.join(KINDS)}, got {kind!r}")
    designs = data.get("designs")
    if not isinstance(designs, list) or not designs:
        raise ConfigError(f"{where}: no designs: add [[designs]] tables (aux, synthetic or standin)")
    designs = [_design(d, i, pathlib.Path(base_dir), where) for i, d in enumerate(designs)]
    labels = [d["label"] for d in designs]
    if len(set(labels)) != len(labels):
        raise ConfigError(f"{where}: two designs have the same label {_first_duplicate(labels)!r}; give one a name")
    cls = params_class(kind)
    fixed = _table(data, "params", where)
    grid = _table(data, "grid", where)
    if "grid" in data and not grid:
        raise ConfigError(f"{where}: [grid] is empty")
    for name, values in grid.items():
        if not isinstance(values, list) or not values:
            raise ConfigError(f"{where}: grid.{name} must be a non-empty list of values")
    cases = data.get("cases", [{}])
    if not isinstance(cases, list) or not cases or not all(isinstance(c, dict) for c in cases):
        raise ConfigError(f"{where}: cases must be a non-empty list of tables ([[cases]])")
    for section, names in [("params", fixed), ("grid", grid)] + [(f"cases[{i}]", c) for i, c in enumerate(cases)]:
        _check_names(cls, names, f"{where}: {section}")
    swept_names = list(grid) + [k for c in cases for k in c if k not in grid]
    swept_names = list(dict.fromkeys(swept_names))
    jobs = []
    for design in designs:
        for case in cases:
            for combo in itertools.product(*grid.values()):
                values = {**fixed, **case, **dict(zip(grid, combo))}
                params = _checked_params(cls, values, f"{where}: {design['label']} {values}")
                swept = {"design": design["label"], **{k: params[k] for k in swept_names}}
                jobs.append(Job(kind, design, params, swept))
    ids = [j.id for j in jobs]
    if len(set(ids)) != len(ids):
        dup = next(j for j in jobs if ids.count(j.id) > 1)
        raise ConfigError(f"{where}: the job {dup.label!r} appears twice (a grid value repeated or a case that "
                          "equals another)")
    results = data.get("results")
    if results is not None and not isinstance(results, str):
        raise ConfigError(f"{where}: results must be a file name")
    return kind, jobs, results  # relative to the current directory, like --results


def _first_duplicate(items):
    seen = set()
    for x in items:
        if x in seen:
            return x
        seen.add(x)
    return None


def _table(data, name, where):
    t = data.get(name, {})
    if not isinstance(t, dict):
        raise ConfigError(f"{where}: {name} must be a table ([{name}])")
    return t


def _check_names(cls, values, where):
    unknown = sorted(set(values) - set(cls.names()))
    if unknown:
        raise ConfigError(f"{where}: unknown parameter(s) {', '.join(unknown)}; known: {', '.join(cls.names())}")


def _checked_params(cls, values, where):
    """The full parameter dict (defaults filled in) after the class's own checks; "auto" is a
    device too (the worker's GPU when it has one, else the CPU)."""
    defaults = {f.name: f.default for f in dataclasses.fields(cls)}
    for name, v in values.items():
        want = type(defaults[name])
        ok = isinstance(v, want) and not (want is int and isinstance(v, bool))
        if want is float and isinstance(v, int) and not isinstance(v, bool):
            ok, values = True, {**values, name: float(v)}
        if not ok:
            raise ConfigError(f"{where}: {name} must be {TYPE_NAMES[want]}, got {v!r}")
    params = {**defaults, "device": "auto", **values}
    try:
        cls(**{**params, "device": "cpu" if params["device"] == "auto" else params["device"]})
    except (ValueError, TypeError, RuntimeError) as e:
        raise ConfigError(f"{where}: {e}") from None
    return params


def _design(d, index, base_dir, where):
    """A [[designs]] table as {"label", "spec" (as written), and what the worker loads}."""
    where = f"{where}: designs[{index}]"
    if not isinstance(d, dict):
        raise ConfigError(f"{where} must be a table")
    sources = [k for k in ("aux", "synthetic", "standin") if k in d]
    if len(sources) != 1:
        raise ConfigError(f"{where} needs exactly one of aux, synthetic, standin")
    allowed = {"name", sources[0]} | ({"scale", "seed"} if sources[0] == "standin" else set())
    unknown = sorted(set(d) - allowed)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)}")
    name = d.get("name")
    if name is not None and not isinstance(name, str):
        raise ConfigError(f"{where}: name must be a string")
    out = {"spec": dict(d)}
    if "aux" in d:
        aux = pathlib.Path(d["aux"]) if isinstance(d["aux"], str) else None
        if aux is None:
            raise ConfigError(f"{where}: aux must be a path")
        aux = aux if aux.is_absolute() else base_dir / aux
        if not aux.is_file():
            raise ConfigError(f"{where}: design file {aux} does not exist")
        out.update(aux=str(aux.resolve()), label=name or aux.stem)
    elif "synthetic" in d:
        s = d["synthetic"]
        if not isinstance(s, dict) or "cells" not in s:
            raise ConfigError(f"{where}: synthetic must be a table with cells (and macros, pads, utilization, "
                              "macro_area, nets, seed)")
        for k, v in s.items():
            want = SYNTHETIC_KEYS.get(k)
            if want is None:
                raise ConfigError(f"{where}: synthetic has an unknown key {k!r}; known: {', '.join(SYNTHETIC_KEYS)}")
            if not (isinstance(v, want) or (want is float and isinstance(v, int))) or \
                    (want is not bool and isinstance(v, bool)):
                raise ConfigError(f"{where}: synthetic.{k} must be {TYPE_NAMES[want]}, got {v!r}")
        if s["cells"] < 1:
            raise ConfigError(f"{where}: synthetic.cells must be >= 1")
        label = f"synthetic{s['cells']}" + (f"-s{s['seed']}" if "seed" in s else "")
        out.update(synthetic=dict(s), label=name or label)
    else:
        from .bookshelf import ispd2005_designs

        names = [x["name"] for x in ispd2005_designs()]
        if d["standin"] not in names:
            raise ConfigError(f"{where}: standin {d['standin']!r} is not an ISPD2005 design ({', '.join(names)})")
        scale, seed = d.get("scale", 1.0), d.get("seed", 1)
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not 0 < scale <= 1:
            raise ConfigError(f"{where}: scale must be a number in (0, 1], got {scale!r}")
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ConfigError(f"{where}: seed must be an integer >= 0, got {seed!r}")
        label = f"{d['standin']}-synthetic" + ("" if scale == 1 else f"@{scale:g}")
        out.update(standin=d["standin"], scale=float(scale), seed=seed, label=name or label)
    return out
