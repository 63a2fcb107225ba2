"""The play of the cards: the legal plays, their checks and their application, trick by trick.

The rules of a trick (the led suit, the free joker, the misère-forced joker, the winner) are
:mod:`engine.tricks`'s; this module applies them to the seat to act: :func:`follow_cards` (what a follower may
play), :func:`joker_lead_suits` (what a free joker may be led as), :func:`check_play` and :func:`play` (which
checks and applies).
The hand ends after the tenth trick, or as soon as a misère contractor wins a trick (then
:func:`engine.scoring.finish_hand`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import msgspec

from engine.cards import ALL_CARDS, JOKERS, SUITS, Strain
from engine.deal import pack_for
from engine.ghosts import turn_up
from engine.memo import remember
from engine.model import (
    CardPlayed,
    Contract,
    Event,
    GameState,
    HandExposed,
    Move,
    PartnerRevealed,
    Play,
    Rejection,
    Trick,
    TrickWon,
)
from engine.options import Options
from engine.reasons import Reason
from engine.rules import MISERE_BIDS, OPEN_MISERE
from engine.scoring import TRICKS_PER_HAND, finish_hand
from engine.tokens import card_rejection, suit_rejection
from engine.tricks import (
    free_joker,
    high_free_joker,
    joker_forced,
    joker_may_follow,
    seat_after,
    strain_of,
    trick_led_suit,
    trick_winner_index,
)

replace: Final = msgspec.structs.replace

#: Play moves are immutable, so each (seat, card, nomination) is built once and shared (a pure memo).
_PLAYS: Final[dict[tuple[int, str, str | None], Play]] = {}
#: The plays without a nomination, per seat then card, built once: the legal-move lists of the play share them.
_SEAT_PLAYS: Final = tuple({c: Play(seat=s, card=c) for c in sorted(ALL_CARDS)} for s in range(6))


#: The plain play events (no nomination), per seat then card, built once and shared like the moves (immutable).
_SEAT_PLAYED: Final = tuple({c: CardPlayed(seat=s, card=c) for c in sorted(ALL_CARDS)} for s in range(6))
#: What the play reads of a state in the play phase, read once: (the seat to act, its hands, its trick, the hand's
#: strain table, the trick's led suit (``None`` between tricks), the options, the contract, the active seats, the
#: ghosts' piles, the suits led, the suits each seat has shown void in). See :func:`play_fields`.
PlayFields = tuple[int | None, tuple[tuple[str, ...], ...], Trick | None, Strain, str | None, Options,
                   Contract | None, tuple[int, ...], tuple[tuple[tuple[str, str], ...], ...], str, tuple[str, ...]]
_NO_TABLE: Final = Strain((), None, ())  # (the memos' entries before any answer)
_NO_FIELDS: Final[PlayFields] = (None, (), None, _NO_TABLE, None, Options(), None, (), (), "", ())
#: The last legal plays answered: (state, the moves as a tuple, the hand, the state's :data:`PlayFields`). A move
#: equal to one of them, applied to that very state object (immutable), is legal without another check (so its
#: seat is the seat to act), and the state's fields are the ones already read: the loop of a search or a bot
#: (legal moves, then apply one) checks and looks up once per move. A pure memo, like
#: :func:`engine.tricks.strain_of`'s: the answers are the same with or without it.
_LAST_PLAYS: Final[list[tuple[object, tuple[Move, ...], tuple[str, ...], PlayFields]]] = [(None, (), (), _NO_FIELDS)]
#: The state the last play returned (still in the play phase) and its :data:`PlayFields`, which the play wrote or
#: carried over: the next :func:`legal_plays` of that very state object takes them instead of reading the state
#: (each read of a field of the msgspec state costs the compiled engine a generic attribute lookup). A pure memo
#: like ``_LAST_PLAYS``.
AFTER_PLAY: Final[list[tuple[object, PlayFields]]] = [(None, _NO_FIELDS)]
#: The next seat to play after each seat, per tuple of active seats (:func:`engine.tricks.seat_after`, memoised):
#: indexed by seat, ``-1`` for a seat not playing the hand.
_NEXT_SEAT: Final[dict[tuple[int, ...], tuple[int, ...]]] = {}
#: The last (active seats, their next seats) answered: a hand's states share one ``active`` tuple, so the plays of
#: a hand find it by identity, without hashing the tuple. A pure memo.
_LAST_NEXT: Final[list[tuple[tuple[int, ...], tuple[int, ...]]]] = [((), ())]


def next_seats(active: tuple[int, ...]) -> tuple[int, ...]:
    """The seat after each seat among ``active`` (:func:`engine.tricks.seat_after` by one place), indexed by seat
    (``-1`` for a seat not in ``active``), memoised."""
    last, nexts = _LAST_NEXT[0]
    if last is active:
        return nexts
    found = _NEXT_SEAT.get(active)
    if found is None:
        after = {s: seat_after(active, s, 1) for s in active}
        found = _NEXT_SEAT[active] = tuple(after.get(s, -1) for s in range(max(active) + 1))
    _LAST_NEXT[0] = (active, found)
    return found


def next_seat(active: tuple[int, ...], seat: int) -> int:
    """The seat after ``seat`` among ``active`` (:func:`engine.tricks.seat_after` by one place), memoised."""
    return next_seats(active)[seat]


def play_move(seat: int, card: str, nominate: str | None) -> Play:
    """The move playing ``card`` for ``seat`` (naming ``nominate``), built once and shared."""
    key = (seat, card, nominate)
    move = _PLAYS.get(key)
    if move is None:
        move = remember(_PLAYS, key, Play(seat=seat, card=card, nominate=nominate), 50_000)
    return move


# ------------------------------------------------------------------------------------------------ legal plays


def play_fields(state: GameState) -> PlayFields:
    """The :data:`PlayFields` of a state in the play phase: the state's own fields, its strain table
    (:func:`engine.tricks.strain_of`) and its trick's led suit; those the last play wrote when ``state`` is the
    state it returned (``AFTER_PLAY``), which are the same values."""
    after, fields = AFTER_PLAY[0]
    if after is state:
        return fields
    trick = state.trick
    table = strain_of(state)
    return (state.to_act, state.hands, trick, table, None if trick is None else trick_led_suit(trick, table),
            state.options, state.contract, state.active, state.ghost_piles, state.suits_led, state.shown_void)


def legal_plays(state: GameState, seat: int) -> list[Move]:
    """Every legal play of ``seat``, the seat to act: any card to lead (a free joker as each suit it may be led
    as), else the cards :func:`follow_cards` allows."""
    return fields_plays(state, seat, play_fields(state))


def fields_plays(state: GameState, seat: int, fields: PlayFields) -> list[Move]:
    """:func:`legal_plays` of ``state`` whose :data:`PlayFields` are ``fields`` (so :func:`engine.game.legal_moves`
    answers the state the last play returned, ``AFTER_PLAY``, without reading it). (One function, loops rather
    than comprehensions: on this, the hottest call of a game, each Python call or comprehension costs more than the
    work it wraps.)"""
    _, hands, trick, table, led, opts, contract, _, _, _, _ = fields
    hand = hands[seat]
    plays = _SEAT_PLAYS[seat]
    moves: list[Move]
    if trick is not None:
        moves = []
        if not opts.joker_follow_first_round:
            # Fast path for the common case (a seat holding the led suit plays one of its cards).
            suit_of = table.suit
            for c in hand:
                if suit_of[c] == led:
                    moves.append(plays[c])
            if not moves and not joker_forced(opts, contract):
                moves = list(map(plays.__getitem__, hand))  # void, no joker forced: any card (follow_cards)
        if not moves:
            moves = list(map(plays.__getitem__, follow_cards(state, hand, led, table)))
    else:
        free = table.by_suit.get(None)
        if free is None or free.isdisjoint(hand):  # no free joker: every card, as it is
            moves = list(map(plays.__getitem__, hand))
        else:
            moves = []
            suit_of = table.suit
            for c in hand:
                if suit_of[c] is None:
                    moves.extend(play_move(seat, c, x) for x in joker_lead_suits(state, seat, hand,
                                                                                 table.power[c] < 0))
                else:
                    moves.append(plays[c])
    _LAST_PLAYS[0] = (state, tuple(moves), hand, fields)
    return moves


def follow_cards(state: GameState, hand: tuple[str, ...], led: str | None, table: Strain) -> list[str]:
    """The cards of ``hand`` that may follow to a trick led in ``led`` (RULES.md 1.10.2, 3.3): the led suit if
    held (and the high free joker too on the suit's first round, with ``joker_follow_first_round``); void, any
    card, except that in misère with ``joker_forced_in_misere`` the high free joker must be played."""
    return cards_to_follow(state.options, state.contract, hand, led, table, state.tricks)


def cards_to_follow(opts: Options, contract: Contract | None, hand: Sequence[str], led: str | None, table: Strain,
                    tricks: Sequence[Trick]) -> list[str]:
    """:func:`follow_cards` from the values it reads: the options, the contract, the hand, the led suit, the strain
    table and the hand's completed ``tricks`` (also for :class:`engine.playout.Playout`, which keeps no state)."""
    suit_of = table.suit
    same = [c for c in hand if suit_of[c] == led]
    if same:
        if opts.joker_follow_first_round:  # (the suits led before are gathered only when they can matter)
            before = {trick_led_suit(t, table) for t in tricks}
            same += [c for c in hand if joker_may_follow(opts, c, led, before, table)]
        return same
    if joker_forced(opts, contract):
        forced = [c for c in hand if high_free_joker(c, table)]
        if forced:
            return forced
    return list(hand)


def joker_lead_suits(state: GameState, seat: int, hand: tuple[str, ...], low: bool) -> tuple[str | None, ...]:
    """Suits a free joker may be led as (``(None,)``: the last trick, no suit needed; empty: it may not be led
    now). ``low``: the low joker of ``joker_low_in_misere``, whose lead always names a suit."""
    return lead_suits(state.options, len(state.tricks), state.suits_led, state.shown_void[seat], hand, low)


def lead_suits(opts: Options, tricks_done: int, suits_led: str, shown_void: str, hand: Sequence[str],
               low: bool) -> tuple[str | None, ...]:
    """:func:`joker_lead_suits` from the values it reads: the options, the number of completed tricks, the suits
    led this hand, the suits the leader has shown void in, and its hand."""
    # The last trick by the trick count, not by the hand's size: a ghost's face-up cards may be its last one with
    # a face-down card still beneath it (ghost partners).
    last = tricks_done == TRICKS_PER_HAND - 1
    if last and not low:
        return (None,)
    only_jokers = all(x in JOKERS for x in hand)
    if opts.joker_lead_timing == "last_trick_only" and not last and not only_jokers:
        return ()
    rule = opts.joker_lead_restriction
    if rule == "unled_suit":
        allowed = tuple(s for s in SUITS if s not in suits_led)
    elif rule == "not_shown_void":
        allowed = tuple(s for s in SUITS if s not in shown_void)
    else:
        allowed = SUITS
    if not allowed and (last or only_jokers):
        # Only jokers left (a two-joker pack, or the low joker on the last trick): any suit rather than deadlock.
        allowed = SUITS
    return allowed


# ------------------------------------------------------------------------------------------------ checks


def check_play(state: GameState, move: Play, table: Strain | None = None) -> Rejection | None:
    """Why a play of the seat to act is refused, else ``None``."""
    seat = move.seat
    return _play_rejection(state, seat, move.card, move.nominate, state.hands[seat], state.trick,
                           table if table is not None else strain_of(state))


def _play_rejection(state: GameState, seat: int, card: str, nominate: str | None, hand: tuple[str, ...],
                    trick: Trick | None, table: Strain) -> Rejection | None:
    """:func:`check_play` on the move's and the state's values, read once by the caller (see :func:`play`)."""
    if card not in hand:
        return card_rejection(card, pack_for(state.options)) or Rejection(
            Reason.CARD_NOT_IN_HAND, f"seat {seat} does not hold {card}", {"seat": seat, "card": card})
    if nominate is not None and (rejection := suit_rejection(nominate)) is not None:
        return rejection
    if trick is None:
        return _check_lead(state, seat, hand, card, nominate, table)
    if nominate is not None:
        return Rejection(Reason.NOMINATION_NOT_ALLOWED, "only a lead of the un-nominated joker names a suit")
    led = trick_led_suit(trick, table)
    if table.suit[card] == led:
        # A card of the led suit may always follow. Answering it before building follow_cards' list keeps the
        # median apply_move at 7.29 µs instead of 7.83 (tests/bench/bench_engine.py, pure engine).
        return None
    legal = follow_cards(state, hand, led, table)
    if card in legal:
        return None
    joker = free_joker(card, table)
    if len(legal) < len(hand) and all(free_joker(c, table) for c in legal) and not joker:
        return Rejection(Reason.JOKER_MUST_BE_PLAYED, "in misère a player void in the led suit must play the joker")
    if joker:
        return Rejection(Reason.JOKER_ONLY_WHEN_VOID, "the un-nominated joker may be played only when void in the "
                         "led suit")
    return Rejection(Reason.MUST_FOLLOW_SUIT, f"seat {seat} must follow {led}: play one of {legal}",
                     {"seat": seat, "suit": led, "cards": legal})


def _check_lead(state: GameState, seat: int, hand: tuple[str, ...], card: str, nominate: str | None,
                table: Strain) -> Rejection | None:
    """Any card may be led; only a free joker's lead names a suit, one of :func:`joker_lead_suits`."""
    if not free_joker(card, table):
        if nominate is None:
            return None
        return Rejection(Reason.NOMINATION_NOT_ALLOWED, "only a lead of the un-nominated joker names a suit")
    allowed = joker_lead_suits(state, seat, hand, table.power[card] < 0)
    if nominate in allowed:
        return None
    if allowed == (None,):
        return Rejection(Reason.NOMINATION_NOT_ALLOWED, "the joker led to the last trick needs no suit",
                         {"case": "last_trick"})
    if not allowed:
        if state.options.joker_lead_timing == "last_trick_only":
            return Rejection(Reason.JOKER_LEAD_LAST_TRICK_ONLY, "the joker may be led only to the last trick")
        return Rejection(Reason.JOKER_LEAD_NOT_ALLOWED, "every suit has been led: the joker may be led only to "
                         "the last trick")
    if nominate is None:
        return Rejection(Reason.JOKER_LEAD_NEEDS_SUIT, f"leading the joker needs a suit: one of {list(allowed)}",
                         {"suits": list(allowed)})
    if state.options.joker_lead_restriction == "not_shown_void":
        return Rejection(Reason.JOKER_SUIT_SHOWN_VOID, f"seat {seat} has shown void in {nominate}",
                         {"seat": seat, "suit": nominate})
    return Rejection(Reason.JOKER_SUIT_ALREADY_LED, f"{nominate} has already been led this hand; "
                     f"nominate one of {list(allowed)}", {"suit": nominate, "suits": list(allowed)})


# ------------------------------------------------------------------------------------------------ application


# long: the check and the application in one frame (a Python call costs about as much as a third of the work)
def play(state: GameState, move: Play, events: list[Event]) -> GameState | Rejection | None:
    """Check a play and, if legal, apply it: the next state, else why not; ``None`` if the move is not of the
    seat to act (the caller's general check answers it). The move's and the state's fields are read once for
    both, and a move among the legal plays just answered for this very state is not checked again
    (``_LAST_PLAYS``)."""
    seat, card, move_nominate = move.seat, move.card, move.nominate
    if type(seat) is not int:
        return None
    last, legal, hand, fields = _LAST_PLAYS[0]
    if last is not state or move not in legal:  # (else a legal play, so of the seat to act)
        if seat != state.to_act:
            return None
        fields = play_fields(state)
        hand = fields[1][seat]
        rejection = _play_rejection(state, seat, card, move_nominate, hand, fields[2], fields[3])
        if rejection is not None:
            return rejection
    _, hands, trick, table, led, opts, c, active, ghost_piles, suits_led, shown_void = fields
    # Apply the checked play: the next seat to play, or the completed trick (and perhaps the end of the hand).
    i = hand.index(card)
    hands_list = list(hands)
    hands_list[seat] = hand[:i] + hand[i + 1:]
    new_hands = tuple(hands_list)
    events.append(_SEAT_PLAYED[seat][card] if move_nominate is None
                  else CardPlayed(seat=seat, card=card, nominate=move_nominate))
    if ghost_piles:  # ghost partners: the card beneath a ghost's played card is turned up
        new_hands = turn_up(state, seat, card, new_hands, events)
    cards: tuple[str, ...]
    if trick is None:
        leader, cards, nominate = seat, (card,), move_nominate
        led = table.suit[card] or nominate  # (engine.tricks.led_suit)
        if led and led not in suits_led:
            suits_led += led
    else:
        leader, cards, nominate = trick.leader, trick.cards + (card,), trick.nominate
        if led is not None and table.suit[card] != led and led not in shown_void[seat]:
            shown_void = shown_void[:seat] + (shown_void[seat] + led,) + shown_void[seat + 1:]
    if c is not None and c.called_card == card and seat != c.contractor:
        events.append(PartnerRevealed(seat=seat, card=card))
    if len(cards) < len(active):
        last_active, nexts = _LAST_NEXT[0]
        to_act = nexts[seat] if last_active is active else next_seats(active)[seat]
        new_trick = Trick(leader, cards, nominate)
        st = replace(state, hands=new_hands, trick=new_trick, to_act=to_act, suits_led=suits_led,
                     shown_void=shown_void)
        AFTER_PLAY[0] = (st, (to_act, new_hands, new_trick, table, led, opts, c, active, ghost_piles, suits_led,
                               shown_void))
        return st
    return _complete_trick(state, new_hands, leader, cards, nominate, suits_led, shown_void, events, fields)


def _complete_trick(state: GameState, hands: tuple[tuple[str, ...], ...], leader: int, cards: tuple[str, ...],
                    nominate: str | None, suits_led: str, shown_void: tuple[str, ...], events: list[Event],
                    fields: PlayFields) -> GameState:
    """The last card of a trick is played: its winner leads next, or the hand is over. (The play's changes come
    as arguments, so that the state is copied once per trick: one ``replace`` of the 33-field state instead of
    two, which tests/bench/bench_engine.py's loop shows in the trick's last play; ``fields`` are the state's
    :data:`PlayFields` before the play.)"""
    _, _, _, table, _, opts, c, active, ghost_piles, _, _ = fields
    winner = active[(active.index(leader) + trick_winner_index(cards, nominate, table)) % len(active)]  # seat_after
    tricks = state.tricks + (Trick(leader, cards, nominate, winner),)
    won = state.tricks_won
    won = won[:winner] + (won[winner] + 1,) + won[winner + 1:]
    events.append(TrickWon(seat=winner, trick_number=len(tricks), cards=cards))
    st = replace(state, hands=hands, suits_led=suits_led, shown_void=shown_void, tricks=tricks, trick=None,
                 tricks_won=won, to_act=winner)
    if c is not None:
        bid = c.bid
        if bid == OPEN_MISERE and len(tricks) == 1 and opts.open_misere_expose == "after_first_trick" and \
                winner != c.contractor:
            events.append(HandExposed(seat=c.contractor, cards=hands[c.contractor]))
        if bid in MISERE_BIDS and winner == c.contractor:
            return finish_hand(st, events)
    if len(tricks) == TRICKS_PER_HAND:
        return finish_hand(st, events)
    AFTER_PLAY[0] = (st, (winner, hands, None, table, None, opts, c, active, ghost_piles, suits_led, shown_void))
    return st


__all__ = ["PlayFields", "cards_to_follow", "check_play", "fields_plays", "follow_cards", "joker_lead_suits",
           "lead_suits", "legal_plays", "play", "play_fields", "play_move"]
