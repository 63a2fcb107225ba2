"""RULES.md 5.10 (T89–T94) and section 2: the 2-, 3-, 5- and 6-player games, with known-answer hands."""

from __future__ import annotations

import msgspec
import pytest

from engine import (
    Bid,
    CallCard,
    GoAlone,
    check_move,
    effective_suit,
    judge_game,
    new_game,
    pack_for,
    sides,
    view,
)
from engine.model import AuctionWon, CardPlayed, GameOver, GameResult, PartnerRevealed
from engine.rules import hand_strain
from tests.engine.helpers import calls, exchange, move, of_type, opts, play_out, scored, start


def _suit(ranks: str, s: str) -> set[str]:
    return {r + s for r in ranks.split()}


# ------------------------------------------------------------------------------------------------ 3 players


def test_T89_three_players_deck_deal_and_order():
    o = opts(3)
    pack = pack_for(o)
    assert len(pack) == 33
    assert set(pack) == {"JK"} | {c for s in "SCDH" for c in _suit("A K Q J 10 9 8 7", s)}
    deck = tuple(reversed(pack))
    state, _ = new_game(o, seed=0, deck_orders=[deck], first_dealer=2)
    assert [len(h) for h in state.hands] == [10, 10, 10] and len(state.kitty) == 3
    assert state.kitty == (deck[9], deck[22], deck[32])  # the 3-1-4-1-3-1 packets
    assert set(state.hands[0]) == {deck[i] for i in (0, 1, 2, 10, 11, 12, 13, 23, 24, 25)}
    assert state.to_act == 0 and state.dead_hand == ()
    table = hand_strain(o, "6H", ())
    trumps = [c for c in pack if effective_suit(c, table) == "H"]
    assert table.order(trumps) == ["JK", "JH", "JD", "AH", "KH", "QH", "10H", "9H", "8H", "7H"]
    assert {c for c in pack if effective_suit(c, table) == "D"} == _suit("A K Q 10 9 8 7", "D")
    nt = hand_strain(o, "6NT", ())
    assert nt.suit["JD"] == "D" and nt.power["QD"] > nt.power["JD"] > nt.power["10D"]


def test_T90_three_player_scoring():
    o = opts(3)
    hands = {0: ["JS", "JC", "AS", "KS", "QS", "10S", "9S", "7H", "8D", "9D"],
             1: ["AH", "KH", "QD", "8S", "7S", "7C", "8C", "9C", "10C", "JD"],
             2: ["QC", "AD", "KD", "10D", "7D", "QH", "JH", "10H", "9H", "8H"]}
    state = start(o, hands, dealer=2, kitty=["JK", "AC", "KC"])
    state, events = calls(state, "7S", "P", "P")
    assert of_type(events, AuctionWon)[0].sitting_out == ()
    state, _ = exchange(state)
    state, events = play_out(state, [{0}] * 7 + [{1}] * 2 + [{2}])
    hs = scored(events)
    assert hs.tricks_won == (7, 2, 1)
    assert hs.contracting_seats == (0,) and hs.made is True
    assert hs.deltas == (140, 20, 10) and state.scores == (140, 20, 10)


def test_three_player_misere_nobody_sits_out():
    o = opts(3)
    state, _ = new_game(o, seed=1, first_dealer=2)
    state, events = calls(state, "7S", "MISERE", "P", "P")
    won = of_type(events, AuctionWon)[0]
    assert won.bid == "MISERE" and won.contractor == 1 and won.sitting_out == ()
    state, _ = exchange(state)
    assert state.active == (0, 1, 2)


# ------------------------------------------------------------------------------------------------ 5 players


def test_T91_five_players_deck_and_spade_order():
    o = opts(5)
    pack = pack_for(o)
    assert len(pack) == 53
    ranks = "A K Q J 10 9 8 7 6 5 4 3 2"
    assert set(pack) == {"JK"} | {c for s in "SCDH" for c in _suit(ranks, s)}
    table = hand_strain(o, "6S", ())
    trumps = table.order(c for c in pack if effective_suit(c, table) == "S")
    assert trumps == ["JK", "JS", "JC", "AS", "KS", "QS", "10S", "9S", "8S", "7S", "6S", "5S", "4S", "3S", "2S"]
    assert len([c for c in pack if effective_suit(c, table) == "C"]) == 12
    state, _ = new_game(o, seed=0, first_dealer=4)
    assert [len(h) for h in state.hands] == [10] * 5 and len(state.kitty) == 3


@pytest.mark.parametrize("where", ["own_hand", "discards"])
def test_T92_called_card_held_by_the_contractor_plays_alone(where: str):
    o = opts(5)
    if where == "own_hand":
        hands = {0: ["JS", "JC", "AS", "KS", "QS", "10S", "AH", "2C", "3C", "4C"], 1: ["AC", "KC", "QC"],
                 2: ["9S", "8S"], 3: ["7S", "6S"], 4: ["5S", "4S"]}
        kitty = ["JK", "3S", "2S"]
    else:
        hands = {0: ["JS", "JC", "AS", "KS", "QS", "10S", "9S", "2C", "3C", "4C"], 1: ["AC", "KC", "QC"],
                 2: ["8S", "7S"], 3: ["6S", "5S"], 4: ["4S", "3S", "2S"]}
        kitty = ["JK", "AH", "2D"]
    # every other trump is spread thinly, so the contractor's trump leads draw them all
    state = start(o, hands, dealer=4, kitty=kitty, voids={1: "SH"})
    state, _ = calls(state, "7S", "P", "P", "P", "P")
    assert state.phase == "call" and state.to_act == 0  # the call comes before the kitty
    assert check_move(state, CallCard(seat=0, card="JK")).reason == "CANNOT_CALL_JOKER"  # type: ignore
    state, _ = move(state, CallCard(seat=0, card="AH"))
    assert state.phase == "exchange"
    state, _ = exchange(state)
    assert "AH" not in [c for s in range(1, 5) for c in state.hands[s]]
    mine = view(state, 0).contract
    assert mine is not None and mine.partners == () and mine.partners_known is True
    for s in range(1, 5):  # the others cannot know the contractor is alone
        theirs = view(state, s).contract
        assert theirs is not None and theirs.partners == () and theirs.partners_known is False
    state, events = play_out(state, [{0}] * 7 + [{1}] * 3)
    hs = scored(events)
    assert hs.contracting_seats == (0,) and hs.made is True
    assert hs.tricks_won == (7, 3, 0, 0, 0)
    assert hs.deltas == (140, 30, 0, 0, 0) and state.scores == (140, 30, 0, 0, 0)
    assert not of_type(events, PartnerRevealed)


@pytest.mark.parametrize(("share", "value"), [("full", 140), ("half", 70)])
def test_five_players_called_partner_secret_until_played(share: str, value: int):
    o = opts(5, five_player_partner_share=share)
    hands = {0: ["JS", "JC", "AS", "KS", "QS", "10S", "9S", "2H", "2C", "3C"],
             3: ["AH", "6S", "5S", "3H", "4H", "5H", "6H", "7H", "8H", "9H"],
             1: ["AC", "KC", "QC"], 2: ["8S", "7S"], 4: ["4S", "3S", "KH", "QH"]}
    state = start(o, hands, dealer=4, kitty=["JK", "2S", "2D"], voids={1: "SH"})
    state, _ = calls(state, "7S", "P", "P", "P", "P")
    state, _ = move(state, CallCard(seat=0, card="AH"))
    state, _ = exchange(state)
    holder = view(state, 3).contract
    assert holder is not None and holder.partners == (3,) and holder.partners_known
    for s in (0, 1, 2, 4):
        v = view(state, s).contract
        assert v is not None and v.partners == () and v.partners_known is False
    state, events = play_out(state, [{0}] * 7 + [{0, 3}] + [{1, 2, 4}] * 2)
    revealed = of_type(events, PartnerRevealed)
    assert len(revealed) == 1 and revealed[0].seat == 3 and revealed[0].card == "AH"
    hs = scored(events)
    assert hs.contracting_seats == (0, 3)
    assert hs.tricks_won[0] + hs.tricks_won[3] == 8 and hs.made is True
    expected = tuple(value if s in (0, 3) else 10 * hs.tricks_won[s] for s in range(5))
    assert hs.deltas == expected
    assert sum(hs.tricks_won[s] for s in (1, 2, 4)) == 2


def test_five_players_go_alone_and_misere_alone_against_four():
    o = opts(5)
    state, _ = new_game(o, seed=2, first_dealer=4)
    st, _ = calls(state, "7S", "P", "P", "P", "P")
    st, events = move(st, GoAlone(seat=0))
    assert st.contract is not None and st.contract.alone and st.phase == "exchange"
    st, events = calls(state, "7S", "MISERE", "P", "P", "P", "P")
    won = of_type(events, AuctionWon)[0]
    assert won.bid == "MISERE" and won.contractor == 1 and won.sitting_out == ()
    assert st.phase == "exchange"  # no partner call in misère
    st, _ = exchange(st, nominate=None)
    assert st.active == (0, 1, 2, 3, 4)


# ------------------------------------------------------------------------------------------------ 6 players


def test_T93_six_players_deck_and_order():
    o = opts(6)
    pack = pack_for(o)
    assert len(pack) == 63
    assert "13H" in pack and "13D" in pack and "13S" not in pack and "13C" not in pack
    assert {"11S", "12S", "11C", "12C", "2S", "2H"} <= set(pack)
    nt = hand_strain(o, "6NT", ())
    hearts = nt.order(c for c in pack if effective_suit(c, nt) == "H")
    assert hearts == ["AH", "KH", "QH", "JH", "13H", "12H", "11H", "10H", "9H", "8H", "7H", "6H", "5H", "4H",
                      "3H", "2H"]
    spades = nt.order(c for c in pack if effective_suit(c, nt) == "S")
    assert spades[:6] == ["AS", "KS", "QS", "JS", "12S", "11S"] and len(spades) == 15
    trumps = hand_strain(o, "6H", ())
    assert len([c for c in pack if effective_suit(c, trumps) == "H"]) == 18
    black = hand_strain(o, "6S", ())
    assert len([c for c in pack if effective_suit(c, black) == "S"]) == 17
    state, _ = new_game(o, seed=0, first_dealer=5)
    assert [len(h) for h in state.hands] == [10] * 6 and len(state.kitty) == 3


def test_six_players_two_teams_of_three_slam():
    o = opts(6)
    assert sides(o) == ((0, 2, 4), (1, 3, 5))
    top = ["JH", "JD", "AH", "KH", "QH", "13H", "12H", "11H", "10H", "9H"]
    state = start(o, {0: top}, dealer=5)
    state, _ = calls(state, "6H", "P", "P", "P", "P", "P")
    state, _ = exchange(state)
    state, events = play_out(state, [{0, 2, 4}] * 10)
    hs = scored(events)
    assert hs.contracting_seats == (0, 2, 4) and hs.tricks_won[0] == 10
    assert hs.deltas == (250, 0)


def test_six_players_three_teams_of_two_scoring():
    o = opts(6, six_player_teams="three_teams_of_two")
    assert sides(o) == ((0, 3), (1, 4), (2, 5))
    mine = ["JH", "JD", "AH", "KH", "QH", "13H", "12H", "11H", "2C", "3C"]
    state = start(o, {0: mine, 1: ["AC", "KC"]}, dealer=5, voids={1: "H", 2: "H", 4: "H"})
    state, _ = calls(state, "8H", "P", "P", "P", "P", "P")
    state, _ = exchange(state)
    state, events = play_out(state, [{0, 3}] * 8 + [{1}] * 2)
    hs = scored(events)
    assert hs.contracting_seats == (0, 3) and hs.tricks_won[1] == 2
    assert hs.deltas == (300, 20, 0) and state.scores == (300, 20, 0)


def test_six_players_misere_disabled_by_default_and_partners_sit_out_when_enabled():
    state, _ = new_game(opts(6), seed=0, first_dealer=5)
    st, _ = calls(state, "7S")
    assert check_move(st, Bid(seat=1, bid="MISERE")).reason == "MISERE_DISABLED"  # type: ignore[union-attr]
    state, _ = new_game(opts(6, six_player_misere=True), seed=0, first_dealer=5)
    st, events = calls(state, "7S", "MISERE", "P", "P", "P", "P", "P")
    won = of_type(events, AuctionWon)[0]
    assert won.contractor == 1 and won.sitting_out == (3, 5)


# ------------------------------------------------------------------------------------------------ 2 players


def test_T94_two_players_dead_hand_and_going_out_backwards():
    o = opts(2)
    pack = pack_for(o)
    assert len(pack) == 33 and set(pack) == {"JK"} | {c for s in "SCDH" for c in _suit("A K Q J 10 9 8 7", s)}
    hands = {0: ["7C", "8C", "9C", "7D", "8D", "9D", "7H", "8H", "9H", "10H"],
             1: ["JS", "JC", "AS", "KS", "QS", "10S", "9S", "8S", "7S", "AC"]}
    state = start(o, hands, dealer=1, scores=(-380, 0))
    assert [len(h) for h in state.hands] == [10, 10] and len(state.dead_hand) == 10 and len(state.kitty) == 3
    dead = set(state.dead_hand)
    assert "JK" in state.kitty
    for seat in (0, 1, None):  # nobody sees the dead hand
        text = msgspec.json.encode(view(state, seat)).decode()
        assert not any(f'"{c}"' in text for c in dead)
    state, _ = calls(state, "7S", "P")
    state, _ = exchange(state)
    state, events = play_out(state, [{1}] * 10)
    assert not dead & {e.card for e in of_type(events, CardPlayed)}  # never played
    hs = scored(events)
    assert hs.tricks_won == (0, 10) and hs.deltas == (-140, 100)
    assert state.scores == (-520, 100)
    g = of_type(events, GameOver)
    assert len(g) == 1 and g[0].losers == (0,) and g[0].winners == (1,) and g[0].reason == "out_backwards"
    assert judge_game(o, (-500, 20), [0], False) == GameResult((1,), (0,), "out_backwards")
