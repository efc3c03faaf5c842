"""The serving physics of :func:`economics.evaluate.evaluate`, remembered for the inputs it last saw.

A price edit (a node's purchase price, an API rate, electricity) re-evaluates a scenario whose models,
replicas, schemes, workloads and SLOs did not change, so the SLO capacity and the operating point of every
owned option come out the same: about a third of an evaluation of the Singapore bank, paid again on every
price a user types. :func:`slo_capacity` and :func:`continuous_batching` here are those of
:mod:`economics.serving`, answered from a small bounded memo when called again with equal arguments.

The key is exact: the frozen model, deployment, efficiency and scheme objects (hashed by value) and every
array argument's dtype, shape and bytes. Results are shared between callers, so their arrays are made
read-only. Calls with large arrays (portfolios, sweeps: more than :data:`MAX_ELEMENTS` values) are computed
every time, so the memo stays small. :func:`clear` empties it (benchmarks that time a cold evaluation).
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, ParamSpec, TypeVar

import numpy as np

from economics.serving.capacity import slo_capacity as _slo_capacity
from economics.serving.continuous import continuous_batching as _continuous_batching

__all__ = ["MAX_ELEMENTS", "clear", "continuous_batching", "slo_capacity"]

P = ParamSpec("P")
R = TypeVar("R")

#: Calls whose array arguments hold more values than this in total are not remembered [count].
MAX_ELEMENTS = 4096
_SIZE = 128
_MEMOS: list[OrderedDict[Hashable, Any]] = []


def _key(value: Any) -> tuple[Hashable, int]:
    """(hashable key, number of array values) of one argument; raises TypeError if it cannot be keyed."""
    if isinstance(value, np.ndarray):
        return (value.dtype.str, value.shape, value.tobytes()), value.size
    if isinstance(value, list | tuple):
        parts = [_key(v) for v in value]
        return (type(value).__name__, *(k for k, _ in parts)), sum(n for _, n in parts)
    hash(value)  # a frozen model, a number, a string or None
    return (type(value).__name__, value), 0


def _read_only(result: R) -> R:
    """The result with read-only copies of its arrays (a field may be one of the caller's arrays)."""
    copies = {}
    for f in dataclasses.fields(result):  # type: ignore[arg-type]
        value = getattr(result, f.name)
        if isinstance(value, np.ndarray):
            copies[f.name] = value.copy()
            copies[f.name].flags.writeable = False
    return dataclasses.replace(result, **copies)  # type: ignore[type-var]


def _remembered(fn: Callable[P, R]) -> Callable[P, R]:
    memo: OrderedDict[Hashable, R] = OrderedDict()
    lock = threading.Lock()
    _MEMOS.append(memo)

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            parts = [_key(a) for a in args] + [_key(v) for v in kwargs.values()]
        except TypeError:  # an argument with no value key (e.g. a mutable container): compute
            return fn(*args, **kwargs)
        if sum(n for _, n in parts) > MAX_ELEMENTS:
            return fn(*args, **kwargs)
        key = (tuple(k for k, _ in parts), tuple(kwargs))
        with lock:
            if key in memo:
                memo.move_to_end(key)
                return memo[key]
        result = _read_only(fn(*args, **kwargs))
        with lock:
            memo[key] = result
            while len(memo) > _SIZE:
                memo.popitem(last=False)
        return result

    return wrapper


slo_capacity = _remembered(_slo_capacity)
continuous_batching = _remembered(_continuous_batching)


def clear() -> None:
    """Forget every remembered result."""
    for memo in _MEMOS:
        memo.clear()
