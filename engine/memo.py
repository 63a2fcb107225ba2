"""The one rule of the engine's and the bots' memos: a plain dict per memo, read with ``dict.get`` where it is used
(the compiled build calls an ``lru_cache`` wrapper as a generic Python call), and emptied when it is full before a
new answer is kept, so that no memo grows without bound. A memo only saves work: every answer is the same with
it or without it.

>>> memo: dict[str, int] = {"a": 1, "b": 2}
>>> remember(memo, "c", 3, 2), memo
(3, {'c': 3})
"""

from __future__ import annotations

from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


def remember(memo: dict[K, V], key: K, value: V, limit: int) -> V:
    """Keep ``value`` in ``memo`` under ``key``, after emptying ``memo`` if it holds ``limit`` answers already, and
    return it."""
    if len(memo) >= limit:
        memo.clear()
    memo[key] = value
    return value


__all__ = ["remember"]
