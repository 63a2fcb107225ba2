"""The auction: its legal calls, their checks and their application, to the contract or the throw-in.

A seat to act may pass, bid (:func:`bid_rejection` says why a bid is refused), look at its hand (blind misère)
or propose a no-ace-no-face redeal, which its partner answers (:func:`apply_redeal_answer`). The auction ends
in a contract (:func:`end_auction` then hands over to :mod:`engine.contract`), a no-trump play-out or a
throw-in and a new deal.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

import msgspec

from engine.cards import HONOURS, JOKERS, rank_of
from engine.contract import next_setup_step, start_play
from engine.memo import remember
from engine.model import (
    AnswerRedeal,
    AuctionReopened,
    AuctionWon,
    Bid,
    BidMade,
    Call,
    Contract,
    Event,
    GameState,
    LookAtHand,
    LookedAtHand,
    Move,
    NoTrumpPlayOut,
    Pass,
    Passed,
    ProposeRedeal,
    RedealAnswered,
    RedealProposed,
    Rejection,
    ThrownIn,
)
from engine.options import Options
from engine.reasons import Reason
from engine.rules import (
    BLIND_MISERE,
    MISERE,
    MISERE_BIDS,
    OPEN_MISERE,
    bid_level,
    bid_strain,
    has_teams,
    ladder,
    misere_allowed,
    plays_alone,
    side_of,
    top_rung,
)
from engine.seats import is_ghost_game, seat_count
from engine.setup import deal_hand
from engine.tokens import bid_rejection as unknown_bid

replace: Final = msgspec.structs.replace


# ------------------------------------------------------------------------------------------------ legal calls


def _max_level(calls: tuple[Call, ...]) -> int:
    best = 0
    for c in calls:
        if c.bid is not None:
            best = max(best, bid_level(c.bid))
    return best


@lru_cache(maxsize=10_000)
def _bid_move(seat: int, bid: str, sans_kitty: bool) -> Bid:
    return Bid(seat=seat, bid=bid, sans_kitty=sans_kitty)


@lru_cache(maxsize=64)
def _pass_move(seat: int) -> Pass:
    return Pass(seat=seat)


@lru_cache(maxsize=50_000)
def _legal_bid_list(opts: Options, high_bid: str | None, max_level: int, viewed: bool, barred: bool,
                    early: bool) -> tuple[tuple[str, bool], ...]:
    rungs = ladder(opts)
    out: list[tuple[str, bool]] = []
    for bid in sorted(rungs, key=lambda b: (rungs[b], b)):
        if bid_rejection(opts, bid, False, high_bid, max_level, viewed, barred, early) is None:
            out.append((bid, False))
            if opts.sans_kitty_enabled and bid not in MISERE_BIDS:
                out.append((bid, True))
    return tuple(out)


def bid_rejection(opts: Options, bid: str, sans: bool, high_bid: str | None, max_level: int, viewed: bool,
                  barred: bool, early: bool) -> Rejection | None:
    """Why ``bid`` may not be made in this auction situation (``None``: it may): the one rule for bids."""
    rungs = ladder(opts)
    if bid not in rungs:
        return unknown_bid(bid) or _unavailable_bid(opts, bid)
    if sans and not opts.sans_kitty_enabled:
        return Rejection(Reason.SANS_KITTY_DISABLED, "sans-kitty bids are not enabled in this game")
    if sans and bid in MISERE_BIDS:
        return Rejection(Reason.SANS_KITTY_NOT_FOR_MISERE, "only suit and NT bids may be made sans kitty")
    if high_bid is not None and rungs[bid] <= rungs[high_bid]:
        return Rejection(Reason.BID_TOO_LOW, f"{bid} does not outrank the current bid {high_bid}",
                         {"bid": bid, "high_bid": high_bid})
    if bid in MISERE_BIDS:
        return misere_rejection(opts, bid, max_level, viewed, barred)
    if opts.inkle_mode == "signal_only" and bid_level(bid) == 6 and not early:
        return Rejection(Reason.INKLE_TOO_LATE, "only the first two calls of the auction may be 6-level bids")
    return None


def _unavailable_bid(opts: Options, bid: str) -> Rejection:
    """Why a bid of no rung of this rule set's ladder is refused."""
    if bid in MISERE_BIDS:
        if bid == BLIND_MISERE and opts.misere_enabled:
            return Rejection(Reason.BLIND_MISERE_DISABLED, "blind misère is not enabled in this game")
        if bid == OPEN_MISERE and misere_allowed(opts):
            return Rejection(Reason.OPEN_MISERE_DISABLED, "open misère is not allowed in this game")
        return Rejection(Reason.MISERE_DISABLED, "misère bids are not allowed in this game")
    return Rejection(Reason.SIX_LEVEL_NOT_ALLOWED, "6-level bids are not allowed (inkle_mode=min_bid_seven)")


def misere_rejection(opts: Options, bid: str, max_level: int, viewed: bool, barred: bool) -> Rejection | None:
    """Whether a misère bid on this rule set's ladder, outranking the high bid, may be bid now: not blind after
    looking, not by a side that proposed a redeal, and only after a 7 (an 8 for open misère) if the options say
    so."""
    if bid == BLIND_MISERE and viewed:
        return Rejection(Reason.BLIND_MISERE_AFTER_LOOKING,
                         "blind misère may be bid only before looking at the hand")
    if barred:
        return Rejection(Reason.MISERE_BARRED, "a side that proposed a no-ace-no-face redeal may not bid misère")
    if bid == MISERE and opts.misere_requires_seven and max_level < 7:
        return Rejection(Reason.MISERE_NEEDS_SEVEN_BID,
                         "misère may be bid only after a bid at the 7 level or higher")
    if bid == OPEN_MISERE and opts.open_misere_requires_eight and max_level < 8:
        return Rejection(Reason.OPEN_MISERE_NEEDS_EIGHT_BID,
                         "open misère may be bid only after a bid of 8 or more")
    return None


def _bid_context(state: GameState, seat: int) -> tuple[str | None, int, bool, bool, bool]:
    high = state.high
    return (high.bid if high else None, _max_level(state.calls), state.viewed[seat],
            seat in state.misere_barred, len(state.calls) < 2)


#: Pass and every legal bid per auction situation, with the identities (``id``) of those move objects, memoised in a
#: plain dict (auctions repeat these situations; the compiled build calls an ``lru_cache`` wrapper as a generic
#: Python call, which cost more than the lookup).
_CALL_MOVES: Final[dict[tuple[Options, int, str | None, int, bool, bool, bool],
                        tuple[tuple[Move, ...], frozenset[int]]]] = {}


def _call_moves(opts: Options, seat: int, high_bid: str | None, max_level: int, viewed: bool, barred: bool,
                early: bool) -> tuple[tuple[Move, ...], frozenset[int]]:
    """Pass and every legal bid for one auction situation, and the set of their objects' ``id``."""
    key = (opts, seat, high_bid, max_level, viewed, barred, early)
    found = _CALL_MOVES.get(key)
    if found is None:
        bids = _legal_bid_list(opts, high_bid, max_level, viewed, barred, early)
        moves: tuple[Move, ...] = (_pass_move(seat), *(_bid_move(seat, b, sk) for b, sk in bids))
        found = remember(_CALL_MOVES, key, (moves, frozenset(map(id, moves))), 50_000)
    return found


#: The last pass-and-bids listing answered: (state, the moves, their objects' ``id``). A bid equal to one of them,
#: made in that very state object (immutable), is legal without another check; one of those very objects is found
#: by its ``id`` (the listing holds them, so no other live object has one of those ids), any other equal move by
#: comparing. The loop of a search or a bot (legal moves, then apply one) looks the auction situation up once per
#: call. A pure memo, like :data:`engine.play._LAST_PLAYS`: the answers are the same with or without it.
_LAST_CALLS: Final[list[tuple[GameState, tuple[Move, ...], frozenset[int]]]] = []


def legal_calls(state: GameState, seat: int) -> list[Move]:
    """Every legal auction move of ``seat``, the seat to act: pass, the bids, looking and proposing a redeal."""
    high_bid, max_level, viewed, barred, early = _bid_context(state, seat)
    listed, ids = _call_moves(state.options, seat, high_bid, max_level, viewed, barred, early)
    if _LAST_CALLS:
        _LAST_CALLS[0] = (state, listed, ids)
    else:
        _LAST_CALLS.append((state, listed, ids))
    moves: list[Move] = list(listed)
    if not state.raising:
        if not state.viewed[seat]:
            moves.append(LookAtHand(seat=seat))
        if may_propose_redeal(state, seat):
            moves.append(ProposeRedeal(seat=seat))
    return moves


def legal_redeal_answers(state: GameState, seat: int) -> list[Move]:
    """The proposer's partner accepts or refuses the redeal."""
    return [AnswerRedeal(seat=seat, accept=True), AnswerRedeal(seat=seat, accept=False)]


def may_propose_redeal(state: GameState, seat: int) -> bool:
    """No-ace-no-face (RULES.md 3.1): before its first call, once per hand, a seat holding no A, K, Q, J or
    joker may propose a redeal, in the games with partners (not the ghost-partners game: the partner who would
    answer is the proposer's own ghost)."""
    return _may_propose(state.options, state.redeal_proposer, state.misere_barred, state.viewed[seat], state.calls,
                        seat, state.hands[seat])


def _may_propose(opts: Options, proposer: int | None, barred: tuple[int, ...], viewed: bool,
                 calls: tuple[Call, ...], seat: int, hand: tuple[str, ...]) -> bool:
    """:func:`may_propose_redeal` from the values it reads."""
    return (opts.no_ace_no_face and has_teams(opts) and not is_ghost_game(opts) and proposer is None
            and not barred and viewed
            and all(c.seat != seat for c in calls)
            and not any(c in JOKERS or rank_of(c) in HONOURS for c in hand))


def first_partner(opts: Options, seat: int) -> int:
    """The proposer's partner who answers a redeal proposal: the next team-mate clockwise."""
    side = side_of(opts)
    n = opts.players
    return next(s for s in ((seat + i) % n for i in range(1, n)) if side[s] == side[seat])


def check_call(state: GameState, move: Move) -> Rejection | None:
    """Why an auction move (or a redeal answer) of the seat to act is refused, else ``None``."""
    seat = move.seat
    kind = type(move)  # exact types, not isinstance: the compiled build answers it without a generic call
    if kind is Bid:
        assert isinstance(move, Bid)
        last = _LAST_CALLS[0] if _LAST_CALLS else None
        if last is not None and last[0] is state and (id(move) in last[2] or move in last[1]):
            return None  # listed as legal for this very state (the listing applies every rule below)
        bid = move.bid
        if state.raising and state.high is not None and bid == state.high.bid:
            return Rejection(Reason.BID_TOO_LOW, "a raise must outrank your own bid",
                             {"bid": bid, "high_bid": state.high.bid})
        rejection = unknown_bid(bid)
        if rejection is not None:
            return rejection
        high_bid, max_level, viewed, barred, early = _bid_context(state, seat)
        return bid_rejection(state.options, bid, bool(move.sans_kitty), high_bid, max_level, viewed, barred, early)
    if kind is LookAtHand:
        if state.raising or state.viewed[seat]:
            return Rejection(Reason.ALREADY_LOOKED, "this seat has already looked at its hand")
        return None
    if kind is ProposeRedeal:
        if state.raising or not may_propose_redeal(state, seat):
            return Rejection(Reason.REDEAL_NOT_ALLOWED, "a redeal may be proposed only before a seat's first "
                             "call, once per hand, by a seat holding no A, K, Q, J or joker, with no_ace_no_face on")
        return None
    return None  # Pass, AnswerRedeal


# ------------------------------------------------------------------------------------------------ application


def apply_call(state: GameState, move: Move, events: list[Event]) -> GameState:
    """Apply a checked auction move: the next seat to call, or the end of the auction."""
    seat = move.seat
    kind = type(move)  # exact types, not isinstance: the compiled build answers it without a generic call
    if kind is Bid or kind is Pass:
        calls, passed, high, viewed, nxt, raising = _called(
            state.options, seat, move, state.calls, state.passed, state.high, state.viewed, state.raising,
            state.hands[seat], events)
        if nxt < 0:
            return end_auction(replace(state, calls=calls, passed=passed, high=high, viewed=viewed, raising=False),
                               events)
        return replace(state, calls=calls, passed=passed, high=high, viewed=viewed, raising=raising, to_act=nxt)
    if kind is LookAtHand:
        events.append(LookedAtHand(seat=seat, cards=state.hands[seat]))
        return replace(state, viewed=state.viewed[:seat] + (True,) + state.viewed[seat + 1:])
    events.append(RedealProposed(seat=seat))  # ProposeRedeal
    return replace(state, phase="redeal_answer", redeal_proposer=seat, to_act=first_partner(state.options, seat))


#: What follows a call (:func:`_called`): the auction is over (any seat to call next is ``>= 0``).
AUCTION_OVER: Final = -1

#: The auction's values after a call: its calls, passes, high call and looks, the seat to call next (or
#: :data:`AUCTION_OVER`), and whether that seat makes the high bidder's final call (``final_bidder_may_raise``).
Called = tuple[tuple[Call, ...], tuple[bool, ...], Call | None, tuple[bool, ...], int, bool]


def _called(opts: Options, seat: int, move: Move, calls: tuple[Call, ...], passed: tuple[bool, ...],
            high: Call | None, viewed: tuple[bool, ...], raising: bool, hand: tuple[str, ...],
            events: list[Event]) -> Called:
    """A checked pass or bid of ``seat`` (holding ``hand``) applied to the auction's values: the one rule for what a
    call does (:func:`apply_call` and :class:`CallRun` both apply it)."""
    if type(move) is not Bid:  # a pass
        events.append(Passed(seat=seat))
        call = Call(seat, None)
        if raising:  # the high bidder stands on its bid
            return calls + (call,), passed, high, viewed, AUCTION_OVER, False
        marks = list(passed)
        marks[seat] = True
        calls = calls + (call,)
        after = tuple(marks)
        nxt, raise_next = _next_to_call(opts, seat, calls, after, high)
        return calls, after, high, viewed, nxt, raise_next
    assert isinstance(move, Bid)
    call = Call(seat, move.bid, move.sans_kitty)
    events.append(BidMade(seat=seat, bid=move.bid, sans_kitty=move.sans_kitty))
    if move.bid != BLIND_MISERE and not viewed[seat]:
        viewed = viewed[:seat] + (True,) + viewed[seat + 1:]
        events.append(LookedAtHand(seat=seat, cards=hand))
    reopen = False
    if opts.pass_is_final == "reopen_on_suit_change":
        previous = next((c for c in reversed(calls) if c.seat == seat and c.bid is not None), None)
        reopen = (previous is not None and previous.bid is not None
                  and bid_strain(previous.bid) != bid_strain(move.bid))
    if raising:
        same = high is not None and high.bid is not None and bid_strain(high.bid) == bid_strain(move.bid)
        reopen = not same and opts.raise_strain_change_reopens
        if not reopen:
            return calls + (call,), passed, call, viewed, AUCTION_OVER, False
    now = passed
    if reopen:
        now = (False,) * opts.players
        events.append(AuctionReopened(seat=seat))
    rungs, top = _rungs(opts)
    if rungs[move.bid] == top:  # the top bid ends the auction (the passes stay as they were)
        return calls + (call,), passed, call, viewed, AUCTION_OVER, False
    calls = calls + (call,)
    nxt, raise_next = _next_to_call(opts, seat, calls, now, call)
    return calls, now, call, viewed, nxt, raise_next


#: Per rule set: its ladder and its top rung (:func:`engine.rules.ladder`, :func:`engine.rules.top_rung`), in a plain
#: dict (see ``_CALL_MOVES``).
_RUNGS: Final[dict[Options, tuple[dict[str, float], float]]] = {}


def _rungs(opts: Options) -> tuple[dict[str, float], float]:
    found = _RUNGS.get(opts)
    if found is None:
        found = remember(_RUNGS, opts, (ladder(opts), top_rung(opts)), 1024)
    return found


def _next_to_call(opts: Options, seat: int, calls: tuple[Call, ...], passed: tuple[bool, ...],
                  high: Call | None) -> tuple[int, bool]:
    """After ``seat``'s call, which made the auction's calls, passes and high call those given: the seat to call
    next and whether it makes the high bidder's final call, or :data:`AUCTION_OVER`."""
    n = opts.players
    if opts.bidding_style == "american_single_round":
        if len(calls) >= n:
            return AUCTION_OVER, False
        return (seat + 1) % n, False
    if opts.pass_is_final == "never":
        trailing = 0
        for c in reversed(calls):
            if c.bid is not None:
                break
            trailing += 1
        if (high is None and trailing >= n) or (high is not None and trailing >= n - 1):
            return _raise_or_end(opts, high)
        return (seat + 1) % n, False
    if high is None:
        if all(passed):
            return AUCTION_OVER, False
    elif passed.count(False) == 1 and not passed[high.seat]:  # everyone but the high bidder has passed
        return _raise_or_end(opts, high)
    nxt = seat
    for _ in range(n):
        nxt = nxt + 1 if nxt + 1 < n else 0
        if not passed[nxt]:
            return nxt, False
    raise AssertionError("an auction in progress with nobody left to call")  # unreachable: see above


def _raise_or_end(opts: Options, high: Call | None) -> tuple[int, bool]:
    """Everyone but the high bidder has passed: its final call (``final_bidder_may_raise``), else the end."""
    if high is not None and opts.final_bidder_may_raise:
        return high.seat, True
    return AUCTION_OVER, False


class CallRun:
    """An auction carried on over plain values: its calls, passes, high call, looks and the seat to call, without a
    :class:`GameState` per call, for a loop that makes many calls in a row (the expert bot's playouts: every seat
    calls by the ``basic`` bot's rules until the auction ends).

    :meth:`listed` gives the legal moves of the seat to act when they are a pass and the bids (the very tuple
    :func:`legal_calls` lists them from, in its order), or ``None`` when the state's legal moves would hold more
    (looking at the hand, proposing a redeal) or the auction is over; :meth:`call` makes one of those moves by the
    rules of :func:`apply_call` (the same :func:`_called`), and at the end of the auction applies
    :func:`end_auction` to the state the last call was made in. :meth:`state` is then the state, and :attr:`events`
    the events, that :func:`engine.game.apply_move` gives for the same moves one by one (tests/engine/test_call_run.py
    compares them on random games).

    >>> from engine.game import new_game
    >>> from engine.options import Options
    >>> st, _ = new_game(Options(), seed=1, first_dealer=3)
    >>> run = CallRun(st)
    >>> moves = run.listed()
    >>> moves is not None and moves[0] == Pass(seat=0)
    True
    >>> run.call(moves[1]); run.to_act, run.high
    (1, Call(seat=0, bid='6S', sans_kitty=False))
    """

    def __init__(self, state: GameState, deal: bool = True) -> None:
        self.start = state
        #: Whether a thrown-in auction deals the next hand (``False``: the run stops at the throw-in, which
        #: :attr:`thrown_in` names, with no state after it: for a caller that only asks whether the hand is played).
        self.deal = deal
        #: Why the auction was thrown in (:func:`thrown_in`), once it was here; else ``None``.
        self.thrown_in: str | None = None
        self.options = state.options
        self.to_act = -1 if state.to_act is None or state.phase != "auction" else state.to_act
        self.calls = state.calls
        self.passed = state.passed
        self.high = state.high
        self.viewed = state.viewed
        self.raising = state.raising
        self.max_level = _max_level(state.calls)
        self.made = 0  # the calls made here
        #: The events of the calls made here (and of the end of the auction).
        self.events: list[Event] = []
        #: The state after the auction's end, once it ended here.
        self.ended: GameState | None = None
        #: The auction situation :meth:`listed` last answered for (what decides the list, but the options): the seat,
        #: the high bid, the highest level bid, whether the seat has looked, is barred from misère, calls early.
        self.situation: tuple[int, str | None, int, bool, bool, bool] = (-1, None, 0, False, False, False)
        self._ids: frozenset[int] = frozenset()
        self._listed: tuple[Move, ...] = ()
        self._listed_at = -1  # the calls made when :meth:`listed` last answered (-1: never)

    def listed(self) -> tuple[Move, ...] | None:
        """The legal moves of the seat to act (:attr:`to_act`) if they are exactly a pass and the bids, else None."""
        seat = self.to_act
        if seat < 0 or self.ended is not None:
            return None
        st = self.start
        viewed = self.viewed[seat]
        calls = self.calls
        if not self.raising and (not viewed or _may_propose(self.options, st.redeal_proposer, st.misere_barred,
                                                             viewed, calls, seat, st.hands[seat])):
            return None  # legal_calls lists looking at the hand or proposing a redeal too
        high = self.high
        high_bid = None if high is None else high.bid
        barred = seat in st.misere_barred
        early = len(calls) < 2
        listed, ids = _call_moves(self.options, seat, high_bid, self.max_level, viewed, barred, early)
        self.situation = (seat, high_bid, self.max_level, viewed, barred, early)
        self._listed = listed
        self._ids = ids
        self._listed_at = self.made
        return listed

    def call(self, move: Move) -> None:
        """Make ``move`` for the seat to act: one of the moves :meth:`listed` just gave."""
        seat = self.to_act
        if self._listed_at != self.made or not (id(move) in self._ids or move in self._listed):
            raise ValueError(f"{move!r} is not one of the moves listed for seat {seat}")
        st = self.start
        calls, passed, high, viewed, nxt, raising = _called(
            self.options, seat, move, self.calls, self.passed, self.high, self.viewed, self.raising, st.hands[seat],
            self.events)
        self.made += 1
        if type(move) is Bid:
            assert isinstance(move, Bid)
            self.max_level = max(self.max_level, bid_level(move.bid))
        self.calls, self.passed, self.high, self.viewed = calls, passed, high, viewed
        if nxt < 0:
            self.to_act = -1
            self.thrown_in = thrown_in(self.options, high)
            if self.thrown_in is not None and not self.deal:
                return
            self.ended = end_auction(replace(st, calls=calls, passed=passed, high=high, viewed=viewed,
                                             raising=False, to_act=seat), self.events)
            return
        self.to_act = nxt
        self.raising = raising

    def state(self) -> GameState:
        """The state after the calls made so far (the given one if none was made). (A run that does not deal has
        no state after a throw-in: ValueError.)"""
        if self.ended is not None:
            return self.ended
        if self.thrown_in is not None:
            raise ValueError("the auction was thrown in, and the run does not deal the next hand")
        if self.made == 0:
            return self.start
        return replace(self.start, calls=self.calls, passed=self.passed, high=self.high, viewed=self.viewed,
                       raising=self.raising, to_act=self.to_act)


def apply_redeal_answer(state: GameState, move: AnswerRedeal, events: list[Event]) -> GameState:
    """The partner's answer: a redeal by the same dealer, or the auction goes on with the side barred from misère."""
    events.append(RedealAnswered(seat=move.seat, accept=move.accept))
    proposer = state.redeal_proposer
    assert proposer is not None
    if move.accept:
        events.append(ThrownIn(reason="no_ace_no_face", next_dealer=state.dealer))
        return deal_hand(state, state.dealer, events)
    side = side_of(state.options)
    barred = tuple(s for s in range(state.options.players) if side[s] == side[proposer])
    return replace(state, phase="auction", to_act=proposer, misere_barred=barred)


def thrown_in(opts: Options, high: Call | None) -> str | None:
    """Why an auction that ends with the high call ``high`` (``None``: everyone passed) is thrown in and the hand
    redealt (``"all_passed"``, ``"inkle"``: the :class:`engine.model.ThrownIn` reason), or ``None``: it is played (a
    contract, or an all-pass's no-trump play-out). The one rule :func:`end_auction` follows."""
    if high is None or high.bid is None:
        policy = opts.three_player_all_pass if opts.players == 3 else opts.all_pass
        return None if policy == "play_no_trumps" else "all_passed"
    if opts.inkle_mode == "signal_only" and bid_level(high.bid) == 6:
        return "inkle"
    return None


def end_auction(st: GameState, events: list[Event]) -> GameState:
    """The auction is over: the contract (then :func:`engine.contract.next_setup_step`), the no-trump play-out
    of an all-pass, or a throw-in and the next deal (:func:`thrown_in`)."""
    opts = st.options
    n = opts.players
    high = st.high
    reason = thrown_in(opts, high)
    if reason == "all_passed":
        policy = opts.three_player_all_pass if n == 3 else opts.all_pass
        next_dealer = st.dealer if policy == "redeal_same_dealer" else (st.dealer + 1) % n
        events.append(ThrownIn(reason="all_passed", next_dealer=next_dealer))
        return deal_hand(st, next_dealer, events)
    if reason == "inkle":
        events.append(ThrownIn(reason="inkle", next_dealer=st.dealer))
        return deal_hand(st, st.dealer, events)
    if high is None or high.bid is None:  # everyone passed: the hand is played at no trumps
        leader = (st.dealer + 1) % n
        st = everyone_looks(st, events)
        events.append(NoTrumpPlayOut(leader=leader))
        return start_play(replace(st, contract=None), leader, events)
    st = everyone_looks(st, events)
    contractor = high.seat
    sitting_out: tuple[int, ...] = ()
    if high.bid in MISERE_BIDS and has_teams(opts):
        side = side_of(opts)
        sitting_out = tuple(s for s in range(seat_count(opts)) if s != contractor and side[s] == side[contractor])
    alone = plays_alone(opts, high.bid)
    contract = Contract(bid=high.bid, contractor=contractor, sans_kitty=high.sans_kitty, sitting_out=sitting_out,
                        alone=alone, partner_settled=opts.players != 5 or alone)
    events.append(AuctionWon(contractor=contractor, bid=high.bid, sans_kitty=high.sans_kitty,
                             sitting_out=sitting_out))
    return next_setup_step(replace(st, contract=contract), events)


def everyone_looks(st: GameState, events: list[Event]) -> GameState:
    """Blind misère: the hand goes on, so every seat that has not looked picks up its cards (each sees its own).

    A hand thrown in is gathered unseen: a seat that passed without looking never learns those cards."""
    if all(st.viewed):
        return st
    for s in range(st.options.players):
        if not st.viewed[s]:
            events.append(LookedAtHand(seat=s, cards=st.hands[s]))
    return replace(st, viewed=(True,) * len(st.viewed))


__all__ = ["AUCTION_OVER", "CallRun", "apply_call", "apply_redeal_answer", "bid_rejection", "check_call",
           "end_auction", "everyone_looks", "first_partner", "legal_calls", "legal_redeal_answers",
           "may_propose_redeal", "misere_rejection", "thrown_in"]
