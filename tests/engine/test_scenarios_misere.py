"""RULES.md 5.6 (T46–T54): misère and open misère, played through ``apply_move``."""

from __future__ import annotations

from engine import Play, legal_moves, view
from engine.model import AuctionWon, CardPlayed, GameOver, HandDealt, HandExposed, TrickWon
from tests.engine.helpers import (
    EW,
    NS,
    E,
    N,
    S,
    W,
    calls,
    exchange,
    legal_cards,
    misere_hands,
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

MISERE_BY_N = ["7S", "7C", "P", "P", "MISERE", "P"]
LOW_N = ["4H", "5H", "6H", "4D", "5D", "6D", "5S", "6S", "5C", "6C"]


def test_T46_misere_turn_order_skips_the_partner():
    hands, kitty = misere_hands(N)
    state = start(opts(), hands, kitty=kitty)
    state, events = calls(state, *MISERE_BY_N)
    assert of_type(events, AuctionWon)[0].sitting_out == (S,)
    state, _ = exchange(state)
    assert state.active == (N, E, W)
    order = []
    for card in ("4H", "10H", "KH"):
        order.append(state.to_act)
        state, _ = play(state, card)
    assert order == [N, E, W]
    assert state.tricks[-1].winner == W and len(state.tricks[-1].cards) == 3
    order = []
    for _ in range(3):
        order.append(state.to_act)
        state, _ = play(state, None)
    assert order == [W, N, E]


def test_T47_defender_void_must_play_the_unnominated_joker():
    hands = {N: LOW_N, E: ["JK"], W: ["AD"]}
    state = setup(opts(), hands, "MISERE", N, call_seq=MISERE_BY_N, voids={E: "D"})
    state, _ = play(state, "6D")
    assert state.to_act == E
    assert legal_moves(state) == [Play(seat=E, card="JK")]
    other = next(c for c in state.hands[E] if c != "JK")
    assert play_reason(state, other) == "JOKER_MUST_BE_PLAYED"
    state, events = play(state, "JK", "AD")
    assert of_type(events, TrickWon)[0].seat == E
    assert state.phase == "play" and state.to_act == E and state.hand_number == 0  # the misère goes on


def test_T48_contractor_void_must_play_unnominated_joker_and_fails():
    north = ["JK", "4H", "5H", "6H", "4D", "5D", "6D", "5S", "6S", "7S"]
    hands = {N: north, E: ["8H"], W: ["AH", "9C"]}
    state = start(opts(), hands)
    state, _ = calls(state, *MISERE_BY_N)
    state, _ = exchange(state, nominate=None)  # declines to nominate
    assert state.nominations == ()
    state, _ = play(state, "4H", "8H", "AH")
    assert state.tricks[-1].winner == W
    state, _ = play(state, "9C")
    assert state.to_act == N
    assert legal_moves(state) == [Play(seat=N, card="JK")]
    assert play_reason(state, "5H") == "JOKER_MUST_BE_PLAYED"
    state, events = play(state, "JK", None)
    won = of_type(events, TrickWon)
    assert won[0].seat == N and won[0].trick_number == 2
    hs = scored(events)  # the hand ends at once
    assert hs.bid == "MISERE" and hs.made is False and hs.contracting_seats == (N,)
    assert hs.deltas == (-250, 0) and hs.scores == (-250, 0)
    assert state.scores == (-250, 0)
    dealt = of_type(events, HandDealt)
    assert dealt and dealt[0].dealer == N and state.hand_number == 1 and state.phase == "auction"


def test_T49_prenominated_joker_can_be_discarded_harmlessly():
    north = ["JK", "5C", "6C", "7C", "4H", "5H", "6H", "5S", "6S", "7S"]
    hands = {N: north, E: ["8H", "KD"], W: ["AH", "9D"]}
    state = setup(opts(), hands, "MISERE", N, call_seq=MISERE_BY_N, nominate="C")
    assert state.nominations == (("JK", "C"),)
    state, _ = play(state, "4H", "8H", "AH", "9D")
    assert state.to_act == N
    assert legal_cards(state) == set(state.hands[N])  # void in diamonds: anything, the joker included
    state, events = play(state, "JK", "KD")
    assert of_type(events, TrickWon)[0].seat == E  # the highest diamond wins, not the joker
    assert state.phase == "play" and state.tricks_won[N] == 0


def test_T50_prenominated_joker_must_follow_its_suit_and_wins():
    north = ["JK", "4H", "5H", "6H", "4D", "5D", "6D", "5S", "6S", "7S"]
    hands = {N: north, E: ["AH", "9C"], W: ["8H"]}
    state = setup(opts(), hands, "MISERE", N, call_seq=MISERE_BY_N, nominate="C")
    state, _ = play(state, "4H", "AH", "8H")
    assert state.tricks[-1].winner == E
    state, _ = play(state, "9C", None)
    assert state.to_act == N
    assert legal_cards(state) == {"JK"}
    assert play_reason(state, "5H") == "MUST_FOLLOW_SUIT"
    state, events = play(state, "JK")
    assert of_type(events, TrickWon)[0].seat == N
    hs = scored(events)
    assert hs.made is False and hs.deltas == (-250, 0)


def test_T51_misere_made_scores_250_defenders_nothing():
    state, events = play_contract(opts(), "MISERE", N, 0)
    hs = scored(events)
    assert hs.made is True
    assert hs.tricks_won[N] == 0 and hs.tricks_won[E] + hs.tricks_won[W] == 10
    assert hs.deltas == (250, 0)
    assert state.scores == (250, 0)


def test_T52_open_misere_hand_exposed_after_trick_one():
    hands, kitty = misere_hands(N)
    state = setup(opts(), hands, "OPEN_MISERE", N, kitty=kitty)
    assert state.contract.sitting_out == (S,)  # type: ignore[union-attr]
    assert all(view(state, s).exposed == {} for s in (N, E, S, W, None))
    state, _ = play(state, "4H", "AH")
    assert all(view(state, s).exposed == {} for s in (E, S, W, None))
    state, events = play(state, "KH")
    assert len(state.tricks[0].cards) == 3 and state.tricks[0].winner == E
    exposed = of_type(events, HandExposed)
    assert len(exposed) == 1 and exposed[0].seat == N and len(exposed[0].cards) == 9
    assert set(exposed[0].cards) == set(state.hands[N])
    for s in (E, S, W, None):
        assert view(state, s).exposed == {str(N): state.hands[N]}
    state, events = play_out(state, [{E, W}] * 10)
    played = of_type(events, CardPlayed)
    assert len(played) == 27 and all(p.seat != S for p in played)
    assert all(len(t.cards) == 3 for t in of_type(events, TrickWon))
    assert scored(events).deltas == (500, 0)


def test_T53_open_misere_lost_on_trick_seven():
    hands = {N: ["4H", "5H", "6H", "4D", "5D", "6D", "5C", "6C", "5S", "AS"],
             E: ["AH", "KH", "QH", "AD", "KD", "QD", "AC", "KC", "6S", "7S"],
             W: ["JH", "10H", "9H", "JD", "10D", "9D", "QC", "JC", "8S", "9S"]}
    state = setup(opts(), hands, "OPEN_MISERE", N)
    state, _ = play(state, "4H", "AH", "9H", "KH", "10H", "5H", "QH", "JH", "6H",
                    "AD", "9D", "4D", "KD", "10D", "5D", "QD", "JD", "6D")
    assert [t.winner for t in state.tricks] == [E] * 6 and state.phase == "play"
    state, events = play(state, "6S", "8S", "AS")
    won = of_type(events, TrickWon)
    assert won[0].seat == N and won[0].trick_number == 7
    hs = scored(events)
    assert hs.bid == "OPEN_MISERE" and hs.made is False
    assert hs.deltas == (-500, 0) and state.scores == (-500, 0)
    # From a 0–0 start the −500 is also exactly the losing threshold (1.12.5, inclusive): NS go out backwards.
    over = of_type(events, GameOver)
    assert len(over) == 1 and over[0].losers == (NS,) and over[0].winners == (EW,)
    assert over[0].reason == "out_backwards" and state.phase == "game_over"


def test_T54_first_lead_eldest_skips_sitting_out_eldest():
    o = opts(first_lead="eldest")
    hands, kitty = misere_hands(S)
    state = setup(o, hands, "MISERE", S, kitty=kitty, call_seq=["7S", "P", "MISERE", "P", "P"])
    assert state.contract.sitting_out == (N,)  # type: ignore[union-attr]
    assert state.active == (E, S, W)
    assert state.to_act == E
    state, _ = play(state, None)
    assert state.trick is not None and state.trick.leader == E
