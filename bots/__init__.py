"""Computer players for Five Hundred: they decide one seat's move from that seat's view, and nothing else.

>>> from engine import Options, new_game, view, legal_moves
>>> state, _ = new_game(Options(), seed=7, first_dealer=3)
>>> decision = decide(view(state, 0), Options(), level="basic", seed=1)
>>> decision.move in legal_moves(state)
True

The input is the seat's :class:`engine.SeatView` (its information set) and the options: the full game state
never reaches a bot, so a bot cannot peek (``tests/bots`` permutes the cards a seat cannot see and checks that
the decision does not change). Everything is pure: no I/O, no clock, randomness only from ``seed`` through a
``random.Random`` of the bot's own. The levels:

- ``random``: a uniformly random legal move;
- ``basic``: rule-based (:mod:`bots.basic`, :mod:`bots.cardplay`);
- ``expert``: Perfect Information Monte Carlo search (:mod:`bots.expert`) with a budget counted in playouts
  (default :func:`bots.expert.default_budget`: more in the auction); the decision reports the
  candidates' values and what it spent.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Literal

import msgspec

from bots._native import BOTS_BUILD, BOTS_BUILD_REASON  # first: it chooses the compiled or pure modules
from bots.basic import decide_basic
from bots.expert import DEFAULT_BUDGET, default_budget, search_outcomes
from bots.knowledge import Knowledge, determinize
from engine import Discard, Move, Options, SeatView, canonical_move, legal_moves
from engine.cards import sort_hand
from engine.deal import pack_index
from engine.seats import controlled_seats

Level = Literal["random", "basic", "expert"]
LEVELS: tuple[Level, ...] = ("random", "basic", "expert")
#: The largest budget a caller may ask for (a decision then takes a few seconds).
MAX_BUDGET = 5000


class BotError(ValueError):
    """The bot cannot decide: the view is not of the seat to act, or the level or budget is unknown."""


class Candidate(msgspec.Struct, frozen=True, kw_only=True):
    """One move the expert searched: its mean playout value (points for its side minus the others' average,
    for this hand) over ``playouts`` sampled deals, and ``success``: the share of those playouts in which the
    seat's side got its way with the hand's contract (made it when the contract was the side's, defeated it when
    it was another side's), so a front end can say why; ``None`` when none of them played a contract out (every
    one thrown in, say)."""

    move: Move
    value: float
    playouts: int
    success: float | None = None


class Decision(msgspec.Struct, frozen=True, kw_only=True):
    """A bot's move, with what it spent finding it (``playouts`` and sampled ``deals``; 0 for a forced or
    rule-based move) and, for ``expert``, the candidates it weighed, by estimated value (the move played is the
    ``basic`` one unless a candidate beat it with confidence: see :func:`bots.expert.choose`)."""

    move: Move
    level: Level
    budget: int | None = None
    playouts: int = 0
    deals: int = 0
    candidates: tuple[Candidate, ...] = ()


def legal_moves_from_view(view: SeatView, options: Options) -> list[Move]:
    """The seat's legal moves as its view shows them (the exchange's discards are not listed: any cards of the
    hand, as many as the kitty holds, make a legal discard)."""
    knowledge = _knowledge(view, options)
    if view.phase == "exchange":
        return []
    return list(legal_moves(determinize(knowledge, random.Random(0))))


def _knowledge(view: SeatView, options: Options) -> Knowledge:
    if view.seat is None:
        raise BotError("a bot plays for a seat: this is the public view")
    if view.to_act is None or view.to_act not in controlled_seats(options, view.seat):
        who = "nobody: the game is over" if view.to_act is None else f"seat {view.to_act}"
        raise BotError(f"seat {view.seat} is not to act; {who} is")
    if view.players != options.players:
        raise BotError(f"the view is of a {view.players}-player game, the options of {options.players} players")
    return Knowledge(view, options)


def decide(view: SeatView, options: Options, *, level: Level = "basic", seed: int = 0, budget: int | None = None,
           legal: Sequence[Move] | None = None) -> Decision:
    """The move ``level`` plays for the seat of ``view`` (which must be the seat to act, or in the ghost-partners
    game the seat whose ghost is to act: the move is then the ghost's, decided from the human's view).

    ``legal``: the seat's legal moves when the caller has them (the API serves them to that seat); otherwise
    they are derived from the view (see :mod:`bots.knowledge` for the one thing a view does not say).
    """
    if level not in LEVELS:
        raise BotError(f"unknown level {level!r}; levels are {', '.join(LEVELS)}")
    if budget is not None and not 1 <= budget <= MAX_BUDGET:
        raise BotError(f"budget must be 1 to {MAX_BUDGET} playouts")
    knowledge = _knowledge(view, options)
    rng = random.Random(seed)
    if legal is None:
        legal = [] if view.phase == "exchange" else legal_moves(determinize(knowledge, random.Random(0)))
    elif view.phase == "exchange":
        legal = []
    if view.phase != "exchange" and not legal:
        raise BotError(f"seat {view.seat} has no legal move")
    # Every move a bot answers is in the engine's canonical form (engine.game.canonical_move): the form the
    # legal moves, events and records use, so a suggestion is found in the legal-move list as it is.
    if level == "random":
        return Decision(move=canonical_move(_random_move(knowledge, legal, rng), options), level=level)
    if level == "basic":
        return Decision(move=canonical_move(decide_basic(knowledge, legal), options), level=level)
    spend = default_budget(view.phase) if budget is None else budget
    move, values, playouts, deals = search_outcomes(knowledge, legal, rng, spend)
    ranked = sorted(values, key=lambda v: -v[1])
    return Decision(move=canonical_move(move, options), level=level, budget=spend, playouts=playouts, deals=deals,
                    candidates=tuple(Candidate(move=canonical_move(m, options), value=round(v, 2), playouts=p,
                                               success=None if share is None else round(share, 3))
                                     for m, v, share, p in ranked))


def _random_move(knowledge: Knowledge, legal: Sequence[Move], rng: random.Random) -> Move:
    if knowledge.view.phase == "exchange":
        hand = list(knowledge.hand or ())
        index = pack_index(knowledge.options)
        cards = sort_hand(rng.sample(hand, knowledge.view.kitty_size), index)
        return Discard(seat=knowledge.seat, cards=cards)
    return legal[rng.randrange(len(legal))]


__all__ = ["BOTS_BUILD", "BOTS_BUILD_REASON", "LEVELS", "MAX_BUDGET", "BotError", "Candidate", "Decision", "Level",
           "decide", "legal_moves_from_view", "DEFAULT_BUDGET"]
