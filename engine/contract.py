"""From the contract to the first lead: the five-player partner call, the kitty exchange and the joker's
nomination, each with its legal moves, checks and application, and the decisions that order them.

:func:`next_setup_step` is the one place that decides what comes after the auction and after each of these
steps: the partner call (five players), the exchange (unless sans kitty), the nomination (NT family), then the
play (:func:`open_play`).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import lru_cache
from typing import Final

import msgspec

from engine.cards import JOKER, JOKERS, SUITS, sort_hand
from engine.deal import kitty_size, pack_for, pack_index
from engine.memo import remember
from engine.model import (
    CallCard,
    CardCalled,
    ChoosePartners,
    Discard,
    DiscardChoices,
    Discarded,
    Event,
    GameState,
    GoAlone,
    HandExposed,
    JokerNominated,
    KittyShown,
    KittyTaken,
    Move,
    NominateJoker,
    PartnersChosen,
    Rejection,
    WentAlone,
)
from engine.options import Options
from engine.reasons import Reason
from engine.rules import MISERE_BIDS, OPEN_MISERE, bid_level, has_teams, is_nt_family, joker_low, side_of, sides
from engine.seats import seat_count
from engine.tokens import card_rejection, suit_rejection
from engine.tricks import trick_seat

replace: Final = msgspec.structs.replace


def next_setup_step(st: GameState, events: list[Event]) -> GameState:
    """After the auction: the partner call, the exchange, the joker nomination, then play, as the rules need."""
    c = st.contract
    assert c is not None
    opts = st.options
    exchanged = c.sans_kitty or bool(st.discards)
    if not c.partner_settled and (opts.five_player_call_timing == "before_kitty" or exchanged):
        return replace(st, phase="call", to_act=c.contractor)
    if not exchanged:
        if opts.show_kitty and not st.kitty_shown:
            events.append(KittyShown(cards=st.kitty))
        events.append(KittyTaken(seat=c.contractor, cards=st.kitty))
        hands = list(st.hands)
        index = pack_index(opts)
        hands[c.contractor] = sort_hand(hands[c.contractor] + st.kitty, index)
        return replace(st, phase="exchange", to_act=c.contractor, hands=tuple(hands),
                       kitty_shown=opts.show_kitty)
    if may_nominate(st):
        return replace(st, phase="nominate", to_act=c.contractor)
    return open_play(st, events)


def open_play(st: GameState, events: list[Event]) -> GameState:
    """Start the play with the first lead: the contractor's, or eldest's (the next active seat) by option."""
    c = st.contract
    assert c is not None
    opts = st.options
    if opts.first_lead == "eldest":
        out = set(c.sitting_out)
        leader = next(s for s in ((st.dealer + i) % opts.players for i in range(1, opts.players + 1))
                      if s not in out)
    else:
        leader = c.contractor
    return start_play(st, leader, events)


def start_play(st: GameState, leader: int, events: list[Event]) -> GameState:
    """The play phase with ``leader`` to lead (also the no-trump play-out of an all-pass, without a contract)."""
    n = seat_count(st.options)
    c = st.contract
    active = active_seats(st.options, c.sitting_out if c else ())
    if c is not None and c.bid == OPEN_MISERE and st.options.open_misere_expose == "before_opening_lead":
        events.append(HandExposed(seat=c.contractor, cards=st.hands[c.contractor]))
    return replace(st, phase="play", to_act=leader, active=active, tricks=(), trick=None, suits_led="",
                   shown_void=("",) * n, tricks_won=(0,) * n)


def active_seats(opts: Options, sitting_out: Collection[int]) -> tuple[int, ...]:
    """The seats that play the hand: every seat but those sitting it out (a misère contractor's partners: the
    contract's ``sitting_out``)."""
    return tuple(s for s in range(seat_count(opts)) if s not in sitting_out)


# ------------------------------------------------------------------------------------------------ partner call


def legal_partner_calls(state: GameState, seat: int) -> list[Move]:
    """Five players: call any card but a joker, or name partners (``choose_player``), or go alone."""
    opts = state.options
    two = opts.five_player_partner_method == "choose_player"
    if two:
        assert state.contract is not None
        two = bid_level(state.contract.bid) >= 8
    key = (opts, seat, two)
    found = _PARTNER_CALLS.get(key)
    if found is None:
        found = remember(_PARTNER_CALLS, key, tuple(_partner_calls(opts, seat, two)), 1024)
    return list(found)


#: The partner calls of :func:`legal_partner_calls` by (options, seat, whether two partners may be named): the
#: same moves for every contract of a seat (a pure memo, like ``engine.auction._CALL_MOVES``).
_PARTNER_CALLS: Final[dict[tuple[Options, int, bool], tuple[Move, ...]]] = {}


def _partner_calls(opts: Options, seat: int, two: bool) -> list[Move]:
    if opts.five_player_partner_method == "choose_player":
        others = [s for s in range(opts.players) if s != seat]
        moves: list[Move] = [ChoosePartners(seat=seat, partners=(s,)) for s in others]
        if two:
            moves += [ChoosePartners(seat=seat, partners=(a, b)) for i, a in enumerate(others)
                      for b in others[i + 1:]]
        return [*moves, GoAlone(seat=seat)]
    return [*(CallCard(seat=seat, card=c) for c in pack_for(opts) if c not in JOKERS), GoAlone(seat=seat)]


def check_partner_call(state: GameState, move: Move) -> Rejection | None:
    """Why a partner call of the contractor is refused, else ``None``."""
    opts = state.options
    if isinstance(move, GoAlone):
        return None
    method = opts.five_player_partner_method
    if isinstance(move, CallCard):
        if method != "called_card":
            return Rejection(Reason.WRONG_PARTNER_METHOD, f"partners are chosen by {method} in this game",
                             {"method": method})
        if move.card in JOKERS:
            return Rejection(Reason.CANNOT_CALL_JOKER, "the joker may not be called")
        return card_rejection(move.card, pack_for(opts))
    assert isinstance(move, ChoosePartners)
    if method != "choose_player":
        return Rejection(Reason.WRONG_PARTNER_METHOD, f"partners are chosen by {method} in this game",
                         {"method": method})
    chosen = tuple(move.partners)
    c = state.contract
    assert c is not None
    most = 2 if bid_level(c.bid) >= 8 else 1
    if not 1 <= len(chosen) <= most or len(set(chosen)) != len(chosen) or any(
            not isinstance(p, int) or not 0 <= p < opts.players or p == move.seat for p in chosen):
        return Rejection(Reason.INVALID_PARTNERS, f"name 1 to {most} other seats as partners", {"count": most})
    return None


def apply_partner_call(state: GameState, move: Move, events: list[Event]) -> GameState:
    c = state.contract
    assert c is not None
    if isinstance(move, CallCard):
        events.append(CardCalled(seat=move.seat, card=move.card))
        c = replace(c, called_card=move.card, partner_settled=True)
    elif isinstance(move, ChoosePartners):
        events.append(PartnersChosen(seat=move.seat, partners=tuple(move.partners)))
        c = replace(c, chosen_partners=tuple(sorted(move.partners)), partner_settled=True)
    else:
        events.append(WentAlone(seat=move.seat))
        c = replace(c, alone=True, partner_settled=True)
    return next_setup_step(replace(state, contract=c), events)


def partners(state: GameState) -> tuple[int, ...]:
    """The contractor's partners this hand, derived from the state (never stored, so never stale).

    A called card's holder is whoever holds it or played it; a card nobody else holds means playing alone.
    """
    c = state.contract
    if c is None:
        return ()
    opts = state.options
    if c.bid in MISERE_BIDS:
        return ()
    if has_teams(opts):
        side = side_of(opts)
        return tuple(s for s in range(seat_count(opts)) if s != c.contractor and side[s] == side[c.contractor])
    if opts.players != 5 or c.alone:
        return ()
    if c.chosen_partners:
        return c.chosen_partners
    card = c.called_card
    if card is None:
        return ()
    for s, hand in enumerate(state.hands):
        if card in hand:
            return () if s == c.contractor else (s,)
    for t in (*state.tricks, *((state.trick,) if state.trick else ())):
        if card in t.cards:
            s = trick_seat(state, t, t.cards.index(card))
            return () if s == c.contractor else (s,)
    return ()


def playing_together(sides: Sequence[Sequence[int]], contracting: Sequence[int] | None) -> tuple[tuple[int, ...], ...]:
    """Per seat, the seats playing on its side this hand, itself included: before a contract, the scoring
    ``sides``; under one, the ``contracting`` seats (the contractor and its partners; the contractor alone at
    misère) together, and every other seat together against them (the defenders of a contract share one aim,
    to defeat it, whichever scoring side each belongs to; a misère partner sitting out counts among them and plays
    no card). The bots read a seat's side from it (from the state, :func:`hand_teams`; from a view, with the
    partners the view shows).

    >>> playing_together(((0, 2), (1, 3)), None)
    ((0, 2), (1, 3), (0, 2), (1, 3))
    >>> playing_together(((0,), (1,), (2,)), (1,))
    ((0, 2), (1,), (0, 2))
    """
    seats = sum(len(members) for members in sides)
    out: list[tuple[int, ...]] = [()] * seats
    if contracting is None:
        for members in sides:
            for s in members:
                out[s] = tuple(members)
        return tuple(out)
    ours = tuple(sorted(set(contracting)))
    theirs = tuple(s for s in range(seats) if s not in ours)
    return tuple(ours if s in ours else theirs for s in range(seats))


def hand_teams(state: GameState) -> tuple[tuple[int, ...], ...]:
    """:func:`playing_together` of the state's hand: the contract's partners as :func:`partners` derives them."""
    c = state.contract
    return playing_together(sides(state.options), None if c is None else (c.contractor, *partners(state)))


# ------------------------------------------------------------------------------------------------ exchange


def legal_discards(state: GameState, seat: int) -> DiscardChoices:
    """Every choice of discards is legal: all C(13, 3) of them, as a sequence that builds a move only when it is
    read (:class:`engine.model.DiscardChoices`: listing all 286 of a four-player hand was a large share of the
    hand's time in tests/bench/bench_engine.py)."""
    choices = DiscardChoices(seat, state.hands[seat], len(state.kitty))
    _LAST_DISCARDS[0] = (state, choices)
    return choices


#: The last discards listed: (state, its :class:`DiscardChoices`). A pure memo like
#: :data:`engine.auction._LAST_CALLS`: the answers are the same with or without it.
_LAST_DISCARDS: Final[list[tuple[GameState | None, DiscardChoices | None]]] = [(None, None)]


def listed_discard(state: GameState, move: Discard) -> bool:
    """Whether ``move`` is one of the discards just listed for this very state (immutable) for its seat to act:
    then it is legal (``k`` distinct cards of the hand, ``k`` the kitty's size: :func:`check_discard` passes) and
    in the hand's order, which is pack order, so it is its own canonical form (:func:`engine.game.canonical_move`).
    (``False`` says nothing: the general check answers.)"""
    last, choices = _LAST_DISCARDS[0]
    if last is not state or choices is None or type(move.seat) is not int or choices.seat != state.to_act:
        return False
    return move is choices.last_read or move in choices


def check_discard(state: GameState, move: Discard) -> Rejection | None:
    """Why a discard is refused: not as many cards as the kitty, a card twice, or a card not held."""
    k = kitty_size(state.options)
    cards = move.cards
    if not isinstance(cards, tuple | list) or len(cards) != k:
        return Rejection(Reason.WRONG_DISCARD_COUNT, f"discard exactly {k} cards", {"count": k})
    if len(set(cards)) != len(cards):
        return Rejection(Reason.DUPLICATE_CARD, "the discards name a card twice")
    hand = state.hands[move.seat]
    for c in cards:
        if c not in hand:
            return card_rejection(c, pack_for(state.options)) or Rejection(
                Reason.CARD_NOT_IN_HAND, f"seat {move.seat} does not hold {c}", {"seat": move.seat, "card": c})
    return None


def apply_discard(state: GameState, move: Discard, events: list[Event]) -> GameState:
    c = state.contract
    assert c is not None
    discards = tuple(move.cards)
    gone = set(discards)
    hand = tuple([x for x in state.hands[move.seat] if x not in gone])
    hands = state.hands[:move.seat] + (hand,) + state.hands[move.seat + 1:]
    events.append(Discarded(seat=move.seat, cards=discards))
    return next_setup_step(replace(state, hands=hands, kitty=(), discards=discards), events)


# ------------------------------------------------------------------------------------------------ nomination


def may_nominate(st: GameState) -> bool:
    """Whether the contractor gets (or keeps) the nomination step before the first lead.

    It depends only on public facts (the contract, the options, the pack and the nominations announced so far),
    never on whether the contractor holds a joker: every NT-family contractor takes the same step and may always
    decline, so the phase, the turn and the events tell nobody who holds the joker (RULES.md 1.9, A24).
    """
    c = st.contract
    opts = st.options
    if c is None or not is_nt_family(c.bid) or not opts.joker_prenomination:
        return False
    if joker_low(opts, c.bid):
        return False
    nominated = {j for j, _ in st.nominations}
    return any(x not in nominated for x in _pack_jokers(opts))


@lru_cache(maxsize=64)
def _pack_jokers(opts: Options) -> tuple[str, ...]:
    return tuple(x for x in JOKERS if x in pack_index(opts))


#: The decline move of each seat (``suit: null``, card ``JK``): the same whether or not the seat holds a joker.
_DECLINE: tuple[NominateJoker, ...] = tuple(NominateJoker(seat=s, suit=None) for s in range(6))


def legal_nominations(state: GameState, seat: int) -> list[Move]:
    """Each held un-nominated joker as each suit, and declining, which is always legal (see :func:`may_nominate`)."""
    nominated = dict(state.nominations)
    jokers = [c for c in state.hands[seat] if c in JOKERS and c not in nominated]
    out: list[Move] = [NominateJoker(seat=seat, card=j, suit=s) for j in jokers for s in SUITS]
    out.append(_DECLINE[seat])
    return out


def check_nomination(state: GameState, move: NominateJoker) -> Rejection | None:
    """Why a nomination is refused: not a suit, not a joker, declining spelled otherwise, or no such joker held."""
    if move.suit is not None and (rejection := suit_rejection(move.suit)) is not None:
        return rejection
    if move.card not in JOKERS:
        return Rejection(Reason.UNKNOWN_CARD, f"{move.card!r} is not a joker", {"card": move.card, "case": "joker"})
    if move.suit is None:
        # Declining needs no joker in hand (so that it gives nothing away); it is spelled one way only.
        if move.card != JOKER:
            return Rejection(Reason.UNKNOWN_CARD, f"decline with card {JOKER!r} (the default) and suit null, "
                             f"not {move.card!r}", {"card": move.card, "case": "decline"})
        return None
    if move.card not in state.hands[move.seat] or move.card in dict(state.nominations):
        return Rejection(Reason.NO_JOKER_TO_NOMINATE, f"seat {move.seat} holds no un-nominated {move.card}",
                         {"seat": move.seat, "card": move.card})
    return None


def apply_nomination(state: GameState, move: NominateJoker, events: list[Event]) -> GameState:
    events.append(JokerNominated(seat=move.seat, card=move.card, suit=move.suit))
    if move.suit is None:
        # Declining ends the nomination step: every joker not yet nominated stays un-nominated.
        return open_play(state, events)
    st = replace(state, nominations=tuple(sorted(state.nominations + ((move.card, move.suit),))))
    if may_nominate(st):
        return st
    return open_play(st, events)


__all__ = ["active_seats", "apply_discard", "apply_nomination", "apply_partner_call", "check_discard",
           "check_nomination", "check_partner_call", "hand_teams", "legal_discards", "legal_nominations",
           "legal_partner_calls", "may_nominate", "next_setup_step", "open_play", "partners", "playing_together",
           "start_play"]
