"""The referee: start a game, whose turn, legal moves, check a move, apply a move.

Three layers as in python-chess: a move is *parsed* by the caller (msgspec decoding into :data:`Move`, its tokens
by :mod:`engine.tokens`), *checked* here (:func:`check_move` answers ``None`` or a :class:`Rejection` with a
stable :class:`engine.reasons.Reason` and a sentence), and *applied* (:func:`apply_move` calls the check first,
so an illegal move never changes anything).

This module is only the dispatch: each phase's legal moves, checks and application live together in its own
module (:mod:`engine.setup`, :mod:`engine.auction`, :mod:`engine.contract`, :mod:`engine.play`,
:mod:`engine.scoring`). Everything is a pure function of its arguments: no I/O, no clock, no global random
state. The deals come from ``seed`` through the documented stream of :mod:`engine.deal`.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.auction import apply_call, apply_redeal_answer, check_call, legal_calls, legal_redeal_answers
from engine.contract import (
    apply_discard,
    apply_nomination,
    apply_partner_call,
    check_discard,
    check_nomination,
    check_partner_call,
    legal_discards,
    legal_nominations,
    legal_partner_calls,
    listed_discard,
    partners,
)
from engine.deal import pack_index
from engine.model import (
    AnswerRedeal,
    Bid,
    CallCard,
    ChoosePartners,
    Discard,
    Event,
    GameState,
    GoAlone,
    LookAtHand,
    Move,
    NominateJoker,
    Pass,
    Play,
    ProposeRedeal,
    Rejection,
)
from engine.options import Options
from engine.play import AFTER_PLAY, check_play, fields_plays, legal_plays, play
from engine.reasons import Reason
from engine.scoring import judge_game, score_hand
from engine.seats import controller, seat_count
from engine.setup import GameSetupError, new_game
from engine.tokens import seat_rejection


class IllegalMove(ValueError):
    def __init__(self, rejection: Rejection) -> None:
        super().__init__(f"{rejection.reason}: {rejection.detail}")
        self.rejection = rejection


def to_act(state: GameState) -> int | None:
    """The one seat to act, or ``None`` once the game is over."""
    return state.to_act


def legal_moves(state: GameState, seat: int | None = None) -> Sequence[Move]:
    """Every legal move of ``seat`` (default: the seat to act); empty for a seat that may not act now. In the
    ghost-partners game a human's legal moves include its ghost's when the ghost is to act (the moves name the
    ghost's seat: :func:`engine.seats.controlled_seats`).

    A list, except at the exchange: there the discards come as a :class:`engine.model.DiscardChoices`, a sequence
    equal to the list of them that builds each move only when it is read (``list(...)`` gives the list)."""
    if seat is None:
        after, fields = AFTER_PLAY[0]
        if after is state:  # the state the last play returned, in the play phase: its fields are known
            to_act = fields[0]
            assert to_act is not None
            return fields_plays(state, to_act, fields)
    actor = state.to_act
    phase = state.phase
    if seat is None and phase == "play" and actor is not None:
        return legal_plays(state, actor)
    if actor is None or (seat is not None and seat != actor and controller(state.options, actor) != seat):
        return []
    if phase == "play":
        return legal_plays(state, actor)
    if phase == "auction":
        return legal_calls(state, actor)
    if phase == "exchange":
        return legal_discards(state, actor)
    if phase == "nominate":
        return legal_nominations(state, actor)
    if phase == "call":
        return legal_partner_calls(state, actor)
    if phase == "redeal_answer":
        return legal_redeal_answers(state, actor)
    return []


_PHASE_MOVES: dict[str, tuple[type, ...]] = {
    "auction": (Bid, Pass, LookAtHand, ProposeRedeal),
    "redeal_answer": (AnswerRedeal,),
    "call": (CallCard, GoAlone, ChoosePartners),
    "exchange": (Discard,),
    "nominate": (NominateJoker,),
    "play": (Play,),
}
_MOVE_NAMES: dict[type, str] = {Bid: "bid", Pass: "pass", LookAtHand: "look_at_hand", ProposeRedeal: "propose_redeal",
               AnswerRedeal: "answer_redeal", CallCard: "call_card", GoAlone: "go_alone",
               ChoosePartners: "choose_partners", Discard: "discard", NominateJoker: "nominate_joker",
               Play: "play"}


_PHASE_MOVE_SET: dict[str, frozenset[type]] = {p: frozenset(t) for p, t in _PHASE_MOVES.items()}
_PHASE_MOVE_SET["game_over"] = frozenset()


def _check_turn(state: GameState, move: Move) -> Rejection:
    """Why a move by the wrong seat, of the wrong kind, or after the game is refused."""
    seat = move.seat
    rejection = seat_rejection(seat, seat_count(state.options))
    if rejection is not None:
        return rejection
    if state.phase == "game_over":
        return Rejection(Reason.GAME_OVER, "the game is over")
    if seat != state.to_act:
        return Rejection(Reason.NOT_YOUR_TURN, f"it is seat {state.to_act}'s turn, not seat {seat}'s",
                         {"to_act": state.to_act, "seat": seat})
    allowed = ", ".join(_MOVE_NAMES[t] for t in _PHASE_MOVES[state.phase])
    return Rejection(Reason.WRONG_PHASE, f"a {_MOVE_NAMES.get(type(move), '?')} move is not possible during the "
                     f"{state.phase} phase (expected {allowed})",
                     {"move": _MOVE_NAMES.get(type(move), "?"), "phase": state.phase,
                      "moves": [_MOVE_NAMES[t] for t in _PHASE_MOVES[state.phase]]})


def check_move(state: GameState, move: Move) -> Rejection | None:
    """``None`` if ``move`` is legal now, else why not.

    >>> from engine.options import Options
    >>> st, _ = new_game(Options(), seed=1, first_dealer=3)
    >>> check_move(st, Bid(seat=0, bid="MISERE")).reason
    'MISERE_NEEDS_SEVEN_BID'
    >>> check_move(st, Pass(seat=1)).reason
    'NOT_YOUR_TURN'
    """
    seat = move.seat
    phase = state.phase
    if type(seat) is not int or seat != state.to_act or type(move) not in _PHASE_MOVE_SET[phase]:
        return _check_turn(state, move)
    if phase == "play":
        assert isinstance(move, Play)
        return check_play(state, move)
    if phase == "auction" or phase == "redeal_answer":
        return check_call(state, move)
    if phase == "exchange":
        assert isinstance(move, Discard)
        return check_discard(state, move)
    if phase == "nominate":
        assert isinstance(move, NominateJoker)
        return check_nomination(state, move)
    return check_partner_call(state, move)


def canonical_move(move: Move, options: Options) -> Move:
    """The one form of ``move`` that the engine (and so every API) writes: a discard's cards in pack order (the
    order of the hand, and of :func:`legal_moves`), chosen partners in seat order; any other move as it is.

    A move and its canonical form are the same move: checking or applying either gives the same answer. Cards
    the pack does not have keep their place after the pack's own, so a malformed move stays as malformed.

    >>> from engine.options import Options
    >>> canonical_move(Discard(seat=0, cards=("7D", "9D", "8S")), Options()).cards
    ('8S', '9D', '7D')
    >>> canonical_move(ChoosePartners(seat=1, partners=(4, 2)), Options(players=5)).partners
    (2, 4)
    """
    kind = type(move)
    if kind is Discard:
        assert isinstance(move, Discard)
        index = pack_index(options)
        last = len(index)
        if type(move.cards) is tuple and _in_order(move.cards, index, last):
            return move  # (most discards, the legal moves' and the bots', come in pack order already)
        cards = tuple(sorted(move.cards, key=lambda c: _pack_place(c, index, last)))
        return move if cards == move.cards else Discard(seat=move.seat, cards=cards)
    if kind is ChoosePartners:
        assert isinstance(move, ChoosePartners)
        if all(type(s) is int for s in move.partners):
            chosen = tuple(sorted(move.partners))
            return move if chosen == move.partners else ChoosePartners(seat=move.seat, partners=chosen)
    return move


def _pack_place(card: object, index: dict[str, int], last: int) -> int:
    """A discarded card's key in :func:`canonical_move`'s order: its place in the pack, ``last`` for anything the
    pack does not have."""
    return index.get(card, last) if isinstance(card, str) else last


def _in_order(cards: tuple[object, ...], index: dict[str, int], last: int) -> bool:
    """Whether ``cards`` are in :func:`canonical_move`'s order already (their :func:`_pack_place` never
    decreasing)."""
    before = -1
    for c in cards:
        at = _pack_place(c, index, last)
        if at < before:
            return False
        before = at
    return True


def apply_move(state: GameState, move: Move) -> tuple[GameState, list[Event]]:
    """Apply a legal move: the new state and the events it caused. Raises :class:`IllegalMove` otherwise;
    the given state is never changed (it is immutable)."""
    events: list[Event] = []
    if type(move) is Play and state.phase == "play":
        # The play checks and applies in one step (engine.play.play, which also checks the turn; the phase is
        # this line's): the move's and the state's fields are read once for both.
        played = play(state, move, events)
        if type(played) is GameState:
            return played, events
        if isinstance(played, Rejection):
            raise IllegalMove(played)
    phase = state.phase
    if phase == "auction" and type(move) is Pass:
        seat = move.seat
        if type(seat) is int and seat == state.to_act:  # a pass of the seat to act is always legal (check_call)
            return apply_call(state, move, events), events
    if phase == "exchange" and type(move) is Discard:
        assert isinstance(move, Discard)
        if listed_discard(state, move):  # listed for this very state: legal, and in canonical order
            return apply_discard(state, move, events), events
    rejection = check_move(state, move)
    if rejection is not None:
        raise IllegalMove(rejection)
    if phase == "auction":
        return apply_call(state, move, events), events
    if phase == "exchange":
        discard = canonical_move(move, state.options)
        assert isinstance(discard, Discard)
        return apply_discard(state, discard, events), events
    if phase == "nominate":
        assert isinstance(move, NominateJoker)
        return apply_nomination(state, move, events), events
    if phase == "call":
        return apply_partner_call(state, canonical_move(move, state.options), events), events
    assert isinstance(move, AnswerRedeal)
    return apply_redeal_answer(state, move, events), events


__all__ = ["GameSetupError", "IllegalMove", "Rejection", "apply_move", "check_move", "judge_game",
           "legal_moves", "new_game", "partners", "score_hand", "to_act"]
