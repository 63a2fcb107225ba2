"""RULES.md 5.2 (T06–T20) auction legality and 5.3 (T21–T22) the kitty."""

from __future__ import annotations

from itertools import combinations

import pytest

from engine import (
    Discard,
    GameState,
    NominateJoker,
    Pass,
    bid_value,
    canonical_move,
    check_move,
    legal_moves,
    redact_events,
    view,
)
from engine.model import AuctionWon, CardPlayed, Discarded, HandScored, KittyTaken, ThrownIn, TrickWon
from tests.engine.helpers import (
    NS,
    E,
    N,
    S,
    W,
    bid_reason,
    calls,
    designed_hands,
    exchange,
    fresh,
    misere_hands,
    move,
    of_type,
    opts,
    play_out,
    scored,
    start,
)

SUIT_BIDS = [f"{n}{s}" for n in range(6, 11) for s in ("S", "C", "D", "H", "NT")]


def test_T06_after_6S():
    state, _ = calls(fresh(), "6S")
    assert state.to_act == E
    assert bid_reason(state, "6S") == "BID_TOO_LOW"
    for b in SUIT_BIDS[1:]:
        assert bid_reason(state, b) is None, b
    assert bid_reason(state, "MISERE") == "MISERE_NEEDS_SEVEN_BID"
    assert bid_reason(state, "OPEN_MISERE") is None


def test_T07_over_7D():
    state, _ = calls(fresh(), "7D")
    assert bid_reason(state, "7C") == "BID_TOO_LOW"
    assert bid_reason(state, "7D") == "BID_TOO_LOW"
    for b in ("7H", "7NT", "MISERE", "8S", "OPEN_MISERE"):
        assert bid_reason(state, b) is None, b


def test_T08_opening_misere_illegal_open_misere_legal():
    state = fresh()
    assert bid_reason(state, "MISERE") == "MISERE_NEEDS_SEVEN_BID"
    assert bid_reason(state, "OPEN_MISERE") is None


def test_T09_misere_over_six_illegal_over_seven_legal():
    state, _ = calls(fresh(), "6H")
    assert bid_reason(state, "MISERE") == "MISERE_NEEDS_SEVEN_BID"
    state, _ = calls(state, "7S")
    assert state.to_act == S
    assert bid_reason(state, "MISERE") is None


def test_T10_eight_spades_overcalls_misere():
    state, events = calls(fresh(), "7NT", "MISERE", "8S", "P", "P", "P")
    won = of_type(events, AuctionWon)
    assert len(won) == 1 and won[0].contractor == S and won[0].bid == "8S"
    assert state.contract is not None and state.contract.bid == "8S" and state.contract.contractor == S
    assert view(state, N).contract.value == 240  # type: ignore[union-attr]
    assert bid_value(state.options, "MISERE") == 250
    assert state.phase == "exchange" and state.to_act == S


def test_T11_over_misere():
    state, _ = calls(fresh(), "7NT", "MISERE")
    assert state.to_act == S
    assert bid_reason(state, "7NT") == "BID_TOO_LOW"
    assert bid_reason(state, "8S") is None
    assert bid_reason(state, "OPEN_MISERE") is None


def test_T12_misere_over_8S_illegal():
    state, _ = calls(fresh(), "8S")
    assert bid_reason(state, "MISERE") == "BID_TOO_LOW"


def test_T13_open_misere_over_10D():
    state, _ = calls(fresh(), "10D")
    assert bid_reason(state, "OPEN_MISERE") is None
    state, _ = calls(state, "OPEN_MISERE")
    assert bid_reason(state, "10H") is None
    assert bid_reason(state, "10NT") is None
    assert bid_reason(state, "10D") == "BID_TOO_LOW"
    assert bid_reason(state, "MISERE") == "BID_TOO_LOW"


def test_T14_open_misere_over_10H_illegal():
    state, _ = calls(fresh(), "10H")
    assert bid_reason(state, "OPEN_MISERE") == "BID_TOO_LOW"


def _turns(state: GameState, seq: list[str]) -> tuple[GameState, list[int], list]:
    seats, events = [], []
    for c in seq:
        seats.append(state.to_act)
        state, ev = calls(state, c)
        events += ev
    return state, seats, events


def test_T15_passing_is_final():
    state, seats, _ = _turns(fresh(), ["P", "6S", "7S", "P", "7C", "P"])
    assert seats == [N, E, S, W, E, S]  # N is skipped after W's pass
    assert seats.count(N) == 1
    assert state.contract is not None and state.contract.contractor == E and state.contract.bid == "7C"
    assert state.phase == "exchange"


def test_T16_auction_ends_at_once_no_self_raise():
    state, seats, events = _turns(fresh(), ["6S", "P", "P", "P"])
    assert seats == [N, E, S, W]
    assert of_type(events, AuctionWon)[0].contractor == N
    assert state.contract is not None and state.contract.bid == "6S"
    assert state.phase == "exchange"  # no further call for N
    assert check_move(state, Pass(seat=N)).reason == "WRONG_PHASE"  # type: ignore[union-attr]
    assert all(isinstance(m, Discard) for m in legal_moves(state))


def test_T17_all_pass_throws_in_and_N_deals():
    state, events = calls(fresh(), "P", "P", "P", "P")
    thrown = of_type(events, ThrownIn)
    assert len(thrown) == 1 and thrown[0].reason == "all_passed" and thrown[0].next_dealer == N
    assert not of_type(events, HandScored)
    assert state.scores == (0, 0)
    assert state.dealer == N and state.hand_number == 1
    assert state.phase == "auction" and state.to_act == E  # E is eldest of N's deal
    assert state.calls == ()


def test_T18_dealer_bids_after_three_passes():
    state, events = calls(fresh(), "P", "P", "P", "6S")
    assert of_type(events, AuctionWon)[0].contractor == W
    assert state.contract is not None and state.contract.contractor == W and state.contract.bid == "6S"
    assert state.phase == "exchange"


def test_T19_skipping_passed_players():
    state, seats, _ = _turns(fresh(), ["6S", "P", "6C", "P", "6D", "6H", "P"])
    assert seats == [N, E, S, W, N, S, N]
    assert seats[4:] == [N, S, N]  # after W's pass: N, S, N
    assert E not in seats[2:] and W not in seats[4:]
    assert state.contract is not None and state.contract.contractor == S and state.contract.bid == "6H"


@pytest.mark.parametrize("before", [[], ["6S"], ["P", "9H"]])
def test_T20_ten_no_trumps_ends_auction_at_once(before: list[str]):
    state, _ = calls(fresh(), *before)
    bidder = state.to_act
    state, events = calls(state, "10NT")
    assert of_type(events, AuctionWon)[0].bid == "10NT"
    assert state.contract is not None and state.contract.bid == "10NT" and state.contract.contractor == bidder
    assert state.phase == "exchange"
    assert len(state.calls) == len(before) + 1  # nobody was asked to pass


# ------------------------------------------------------------------------------------------------ kitty


def test_T21_kitty_exchange_discards_hidden_and_out_of_play():
    hands, kitty = designed_hands(opts(), "7S", N, 7)
    assert kitty[0] == "JK"
    state = start(opts(), hands, kitty=kitty)
    state, events = calls(state, "7S", "P", "P", "P")
    assert state.phase == "exchange" and state.to_act == N
    assert len(state.hands[N]) == 13
    assert sorted(of_type(events, KittyTaken)[0].cards) == sorted(kitty)
    for seat in (E, S, W, None):  # nobody else learns the kitty
        assert of_type(redact_events(events, seat), KittyTaken)[0].cards is None
    # only 3-card discards are legal: every one of the C(13, 3) = 286, and nothing else
    discards = [m for m in legal_moves(state) if isinstance(m, Discard)]
    assert len(discards) == 286 and all(len(m.cards) == 3 for m in discards)
    assert {tuple(sorted(m.cards)) for m in discards} == {tuple(sorted(c)) for c in combinations(state.hands[N], 3)}
    own = hands[N][-1]
    assert check_move(state, Discard(seat=N, cards=(kitty[0], own))).reason == "WRONG_DISCARD_COUNT"  # type: ignore
    four = (*kitty, own)
    assert check_move(state, Discard(seat=N, cards=four)).reason == "WRONG_DISCARD_COUNT"  # type: ignore
    assert check_move(state, Discard(seat=N, cards=(*kitty[:2], hands[E][0]))).reason == "CARD_NOT_IN_HAND"  # type: ignore
    # the kitty is the contractor's only
    assert sorted(view(state, N).kitty) == sorted(kitty)  # type: ignore[arg-type]
    for seat in (E, S, W, None):
        assert view(state, seat).kitty is None
    assert check_move(state, Discard(seat=N, cards=tuple(kitty))) is None
    assert check_move(state, Discard(seat=N, cards=("JK", own, hands[N][0]))) is None  # joker and own cards
    sent = ("JK", kitty[1], own)  # the joker, a kitty card and an own card, in no particular order
    chosen = canonical_move(Discard(seat=N, cards=sent), opts()).cards  # the order the engine writes: the pack's
    state, ev = exchange(state, sent)
    assert state.discards == chosen and len(state.hands[N]) == 10
    assert view(state, N).discards == chosen
    for seat in (E, S, W, None):
        assert view(state, seat).discards is None
        redacted = of_type(redact_events(ev, seat), Discarded)
        assert redacted and all(d.cards is None for d in redacted)
        hand = view(state, seat).hand
        assert hand is None or not set(chosen) & set(hand)
    assert of_type(redact_events(ev, N), Discarded)[0].cards == chosen
    # play the hand out: 10 tricks of 4 cards, and the discards are in nobody's tricks
    state, events = play_out(state, tricks=({N, S}, 7))
    won = of_type(events, TrickWon)
    assert len(won) == 10 and sum(len(t.cards) for t in won) == 40
    played = {c for t in won for c in t.cards}
    assert len(played) == 40 and not played & set(chosen)
    hs = scored(events)
    assert sum(hs.tricks_won) == 10 and hs.deltas == (140, 30)
    assert state.scores[NS] == 140


def test_T22_misere_exchange_partner_sits_out():
    hands, kitty = misere_hands(N)
    state = start(opts(), hands, kitty=kitty)
    south = state.hands[S]
    state, events = calls(state, "7S", "7C", "P", "P", "MISERE", "P")
    assert of_type(events, AuctionWon)[0].sitting_out == (S,)
    assert state.phase == "exchange" and state.to_act == N and len(state.hands[N]) == 13
    assert len(state.hands[S]) == 10  # the partner takes no kitty
    state, _ = move(state, Discard(seat=N, cards=tuple(kitty)))
    # Every NT-family contractor, joker or not, answers the nomination step (declining here).
    assert state.phase == "nominate" and state.to_act == N
    state, _ = move(state, NominateJoker(seat=N, suit=None))
    assert state.phase == "play" and state.active == (N, E, W)
    assert view(state, E).hand_sizes[S] == 10
    state, events = play_out(state, [{E, W}] * 10)
    won = of_type(events, TrickWon)
    assert len(won) == 10 and all(len(t.cards) == 3 for t in won)
    played = [c for t in won for c in t.cards]
    assert len(played) == 30 and not set(played) & set(south)
    assert len(of_type(events, CardPlayed)) == 30 and all(e.seat != S for e in of_type(events, CardPlayed))
    assert scored(events).deltas == (250, 0)
