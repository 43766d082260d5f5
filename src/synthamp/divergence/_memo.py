"""A bounded memo for the engine's slow kernels (the finite release).

A calibration evaluates the worst case of a release at many candidate σ, and
the release then verifies its σ, writes its report's curves and its notes from
the same worst case: the same engine call (same orders, d, n_syn, a, b) comes
back several times in one process (one ``release --n-syn 1000`` on a 10⁶ × 20
table made 136 finite-engine calls, 96 of them distinct). :func:`memoised`
keeps the last :data:`MEMO_SIZE` results of a kernel, keyed by its exact
inputs (the orders' bytes, integers, floats), and returns copies, so a caller
that writes into a result cannot change a later one. The kernels are
deterministic functions of their inputs, so a memoised result is the result
(bit for bit); nothing is cached when a call raises (e.g. the time budget).
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["MEMO_SIZE", "memoised"]

#: Results kept per kernel (each a few arrays over the orders: ~100 KB in all).
MEMO_SIZE = 256


def _key(args: tuple) -> tuple:
    """The exact inputs as a hashable key: arrays by dtype, shape and bytes."""
    out: list[Any] = []
    for arg in args:
        if isinstance(arg, np.ndarray):
            out.append((arg.dtype.str, arg.shape, arg.tobytes()))
        elif isinstance(arg, (float, np.floating)):
            out.append(("f", float(arg)))
        elif isinstance(arg, (int, np.integer)):
            out.append(("i", int(arg)))
        else:
            raise TypeError(f"cannot memoise an argument of type {type(arg).__name__}")
    return tuple(out)


Kernel = Callable[..., tuple[np.ndarray, ...]]


def memoised(kernel: Kernel) -> Kernel:
    """``kernel`` with a memo of its last :data:`MEMO_SIZE` results (positional arguments).

    The wrapper has ``cache_clear()`` and ``cache_info()`` (hits, misses, size).
    """
    memo: OrderedDict[tuple, tuple[np.ndarray, ...]] = OrderedDict()
    lock = threading.Lock()
    counts = {"hits": 0, "misses": 0}

    @functools.wraps(kernel)
    def wrapper(*args):
        key = _key(args)
        with lock:
            found = memo.get(key)
            if found is not None:
                memo.move_to_end(key)
                counts["hits"] += 1
                return tuple(np.array(part, copy=True) for part in found)
        result = kernel(*args)
        stored = tuple(np.array(part, copy=True) for part in result)
        with lock:
            counts["misses"] += 1
            memo[key] = stored
            while len(memo) > MEMO_SIZE:
                memo.popitem(last=False)
        return result

    def cache_clear() -> None:
        with lock:
            memo.clear()
            counts.update(hits=0, misses=0)

    def cache_info() -> dict[str, int]:
        with lock:
            return {**counts, "size": len(memo)}

    wrapper.cache_clear = cache_clear  # type: ignore[attr-defined]
    wrapper.cache_info = cache_info  # type: ignore[attr-defined]
    return wrapper
