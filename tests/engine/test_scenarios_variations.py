"""RULES.md 5.9 (T76–T88): the scenarios for the named variations of section 3."""

from __future__ import annotations

import pytest

from engine import Bid, GameState, LookAtHand, Options, legal_moves, view
from engine.model import AuctionReopened, AuctionWon, GameOver, HandDealt, NoTrumpPlayOut
from tests.engine.helpers import (
    EW,
    NS,
    E,
    N,
    S,
    W,
    bid_reason,
    calls,
    designed_hands,
    fresh,
    move,
    of_type,
    opts,
    play,
    play_contract,
    play_out,
    play_reason,
    scored,
    setup,
    start,
)


def test_T76_misere_between_8S_and_8C():
    o = opts(misere_rank="between_8S_8C")
    state, _ = calls(fresh(o), "8S")
    assert bid_reason(state, "MISERE") is None
    state, _ = calls(fresh(o), "7S", "MISERE")
    assert bid_reason(state, "8S") == "BID_TOO_LOW"
    assert bid_reason(state, "8C") is None
    # default ladder for contrast: 8♠ overcalls misère, misère does not overcall 8♠
    state, _ = calls(fresh(opts()), "8S")
    assert bid_reason(state, "MISERE") == "BID_TOO_LOW"


def test_T77_misere_without_a_seven_bid():
    o = opts(misere_requires_seven=False)
    assert bid_reason(fresh(o), "MISERE") is None
    state, _ = calls(fresh(o), "6S")
    assert bid_reason(state, "MISERE") is None
    state, events = calls(fresh(o), "MISERE", "P", "P", "P")
    assert of_type(events, AuctionWon)[0].bid == "MISERE"


@pytest.mark.parametrize(("ew_before", "ew_tricks", "ew_after"), [(470, 4, 490), (490, 3, 490), (400, 3, 430)])
def test_T78_defender_trick_cap_490(ew_before: int, ew_tricks: int, ew_after: int):
    o = opts(defender_trick_cap="490")
    state, events = play_contract(o, "6S", N, 10 - ew_tricks, scores=(0, ew_before))
    hs = scored(events)
    assert hs.tricks_won[E] + hs.tricks_won[W] == ew_tricks
    assert hs.scores[EW] == ew_after and state.scores[EW] == ew_after
    assert hs.deltas == (40, ew_after - ew_before)


@pytest.mark.parametrize(("ns_before", "winner", "reason_"), [(160, EW, "points"), (400, NS, "contract")])
def test_T79_win_without_contract(ns_before: int, winner: int, reason_: str):
    o = opts(win_requires_contract=False)
    state, events = play_contract(o, "7S", N, 7, scores=(ns_before, 480))
    hs = scored(events)
    assert hs.scores == (ns_before + 140, 510)
    g = of_type(events, GameOver)
    assert len(g) == 1 and g[0].winners == (winner,) and g[0].reason == reason_
    # default rules for contrast: EW at 510 from defending do not win
    state, events = play_contract(opts(), "7S", N, 7, scores=(160, 480))
    assert not of_type(events, GameOver) and state.scores == (300, 510)


def _east_on_lead_at_trick_five(o: Options) -> GameState:
    hands = {N: ["AS", "KS", "AD", "KD", "AC", "KC", "4H", "QS", "QD", "QC"],
             E: ["5S", "5D", "6C", "AH", "KH", "QH", "JH", "10H", "9H", "JK"]}
    state = setup(o, hands, "7NT", N)
    state, _ = play(state, "AS", "5S", None, None, "AD", "5D", None, None, "4H", "AH", None, None,
                    "KH", None, None, None)
    assert [t.winner for t in state.tricks] == [N, N, E, E] and state.to_act == E
    return state


def test_T80_joker_lead_last_trick_only():
    state = _east_on_lead_at_trick_five(opts(joker_lead_timing="last_trick_only"))
    assert play_reason(state, "JK", "C") == "JOKER_LEAD_LAST_TRICK_ONLY"  # ♣ has not been led
    assert "JK" not in {m.card for m in legal_moves(state)}  # type: ignore[union-attr]
    # the default allows it
    state = _east_on_lead_at_trick_five(opts())
    assert play_reason(state, "JK", "C") is None


def test_T81_all_pass_play_no_trumps():
    o = opts(all_pass="play_no_trumps")
    hands, kitty = designed_hands(o, "6NT", N, 4)
    state = start(o, hands, kitty=kitty, scores=(480, 470))
    state, events = calls(state, "P", "P", "P", "P")
    assert of_type(events, NoTrumpPlayOut)[0].leader == N
    assert state.phase == "play" and state.contract is None and state.to_act == N
    assert sorted(state.kitty) == sorted(kitty) and all(len(h) == 10 for h in state.hands)  # kitty unused
    state, events = play_out(state, tricks=({N, S}, 4))
    hs = scored(events)
    assert hs.bid is None and hs.contractor is None and hs.made is None
    assert hs.tricks_won[E] + hs.tricks_won[W] == 6
    assert hs.deltas == (40, 60) and state.scores == (520, 530)
    assert not of_type(events, GameOver)  # both sides over 500, but nobody made a contract
    assert state.phase == "auction" and of_type(events, HandDealt)[-1].dealer == N


def test_T82_final_bidder_may_raise():
    o = opts(final_bidder_may_raise=True)
    state, _ = calls(fresh(o), "7S", "P", "P", "P")
    assert state.phase == "auction" and state.to_act == N  # N's final call
    raised, events = calls(state, "8S")
    assert raised.phase == "exchange" and raised.contract.bid == "8S"  # type: ignore[union-attr]
    assert not of_type(events, AuctionReopened)
    reopened, events = calls(state, "7NT")
    assert of_type(events, AuctionReopened) and reopened.phase == "auction"
    assert reopened.to_act == E
    assert bid_reason(reopened, "8D") is None
    # standing on the bid
    stood, _ = calls(state, "P")
    assert stood.contract.bid == "7S" and stood.contract.contractor == N  # type: ignore[union-attr]


def test_T83_american_single_round():
    o = opts(bidding_style="american_single_round")
    state, events = calls(fresh(o), "6S", "7H", "P", "P")
    won = of_type(events, AuctionWon)
    assert won and won[0].contractor == E and won[0].bid == "7H"
    assert state.phase == "exchange"
    assert [c.seat for c in state.calls] == [N, E, S, W]  # N had no second call


def test_T84_min_bid_seven():
    o = opts(inkle_mode="min_bid_seven")
    state = fresh(o)
    assert bid_reason(state, "6NT") == "SIX_LEVEL_NOT_ALLOWED"
    assert bid_reason(state, "6S") == "SIX_LEVEL_NOT_ALLOWED"
    bids = [m.bid for m in legal_moves(state) if isinstance(m, Bid)]
    assert bids[0] == "7S" and not any(b.startswith("6") for b in bids)
    assert bid_reason(state, "7S") is None


def test_T85_misere_disabled():
    o = opts(misere_enabled=False)
    state = fresh(o)
    for prefix in ([], ["7S"], ["7NT"], ["10D"]):
        st, _ = calls(state, *prefix)
        assert bid_reason(st, "MISERE") == "MISERE_DISABLED"
        assert bid_reason(st, "OPEN_MISERE") == "MISERE_DISABLED"
        assert not any(isinstance(m, Bid) and "MISERE" in m.bid for m in legal_moves(st))


def test_T86_joker_lead_not_shown_void():
    o = opts(joker_lead_restriction="not_shown_void")
    hands = {N: ["AS", "4H"], E: ["JK", "AH", "5C"]}
    state = setup(o, hands, "7NT", N, voids={E: "S"})
    state, _ = play(state, "AS", "5C", None, None)  # E shows void in ♠
    state, _ = play(state, "4H", "AH", None, None)  # ♥ is led
    assert state.to_act == E
    assert play_reason(state, "JK", "S") == "JOKER_SUIT_SHOWN_VOID"
    assert play_reason(state, "JK", "H") is None
    assert {m.nominate for m in legal_moves(state) if m.card == "JK"} == {"C", "D", "H"}  # type: ignore


@pytest.mark.parametrize(("t", "deltas"), [(7, (40, 0)), (5, (-40, 50))])
def test_T87_defender_points_on_failure_only(t: int, deltas: tuple[int, int]):
    o = opts(defender_trick_points="on_failure_only")
    _, events = play_contract(o, "6S", N, t)
    assert scored(events).deltas == deltas


def test_T88_blind_misere():
    o = opts(blind_misere_enabled=True)
    state = fresh(o)
    assert not any(state.viewed) and view(state, N).hand is None
    st, _ = calls(state, "OPEN_MISERE")
    assert bid_reason(st, "BLIND_MISERE") == "BID_TOO_LOW"
    st, _ = calls(state, "BLIND_MISERE")
    assert bid_reason(st, "OPEN_MISERE") == "BID_TOO_LOW"
    assert bid_reason(st, "10H") is None
    assert view(st, N).hand is None  # the blind bidder still has not seen the hand
    after_pass, _ = calls(state, "P")
    assert after_pass.to_act == E and not after_pass.viewed[E]
    assert bid_reason(after_pass, "BLIND_MISERE") is None
    seen, _ = move(state, LookAtHand(seat=N))
    assert seen.viewed[N] and view(seen, N).hand == state.hands[N]
    assert bid_reason(seen, "BLIND_MISERE") == "BLIND_MISERE_AFTER_LOOKING"

