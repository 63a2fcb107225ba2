"""A frozen copy of the ``expert`` bot as it played before inference and exact endgames (PIMC, 64 playouts),
kept as the baseline of ``tests/bench/match.py --b frozen``. Not a bot level: the API never serves it.

The copy holds the bot modules it was built from (``expert``, ``basic``, ``cardplay``, ``knowledge``) so that
later changes to ``bots/`` do not move the baseline; it calls the engine, whose rules are the game's.
"""

from __future__ import annotations

import random

from engine import Move, Options, SeatView, canonical_move, legal_moves
from tests.bench.frozen.expert import DEFAULT_BUDGET, search
from tests.bench.frozen.knowledge import Knowledge, determinize


def decide_frozen(view: SeatView, options: Options, *, seed: int = 0, budget: int | None = None) -> Move:
    """The frozen expert's move for the seat to act in ``view`` (as :func:`bots.decide` at level ``expert``)."""
    knowledge = Knowledge(view, options)
    legal = [] if view.phase == "exchange" else legal_moves(determinize(knowledge, random.Random(0)))
    move, _values, _playouts, _deals = search(knowledge, legal, random.Random(seed),
                                              DEFAULT_BUDGET if budget is None else budget)
    return canonical_move(move, options)
