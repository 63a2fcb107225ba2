"""A frozen copy of the ``expert`` bot as it played at commit ``4628e07``: the reference that the expert's
strength is measured against (``tests/bench/match.py --b baseline``; its speed is measured against that commit's
own checkout, ``bench_expert.py --against``). Not a bot level: the API never serves it.

The copy holds the bot modules of that commit (``expert``, ``basic``, ``cardplay``, ``endgame``, ``inference``,
``knowledge``, ``value``), their imports of one another pointed here, so that later changes to ``bots/`` do not
move the baseline; it calls the engine, whose rules are the game's. It runs as pure Python (the build compiles
``bots/`` only), so its decisions cost more wall time than the compiled expert's, and the same playouts: the
budgets are counted in playouts, so the strength compared is the same.
"""

from __future__ import annotations

import random

from engine import Move, Options, SeatView, canonical_move, legal_moves
from tests.bench.baseline.expert import default_budget, search_outcomes
from tests.bench.baseline.knowledge import Knowledge, determinize


def decide_baseline(view: SeatView, options: Options, *, seed: int = 0, budget: int | None = None) -> Move:
    """The baseline expert's move for the seat to act in ``view`` (as :func:`bots.decide` at level ``expert``
    decided it at ``4628e07``: the phase's default budget unless ``budget`` is given)."""
    knowledge = Knowledge(view, options)
    legal = [] if view.phase == "exchange" else legal_moves(determinize(knowledge, random.Random(0)))
    spend = default_budget(view.phase) if budget is None else budget
    move, _values, _playouts, _deals = search_outcomes(knowledge, legal, random.Random(seed), spend)
    return canonical_move(move, options)
