"""RULES.md 5.1 (T01–T05): the deck, the deal mapping and card order; plus a check of the deck builder."""

from __future__ import annotations

import pytest

from engine import Options, effective_suit, new_game, pack_for
from engine.deal import shuffled
from engine.rules import hand_strain
from tests.engine.helpers import E, N, S, W, deck_for, opts, play, setup, start


def _suit(ranks: str, s: str) -> set[str]:
    return {r + s for r in ranks.split()}


def test_T01_four_player_deck_has_43_cards():
    pack = pack_for(Options())
    assert len(pack) == 43 and len(set(pack)) == 43
    red = "A K Q J 10 9 8 7 6 5 4"
    black = "A K Q J 10 9 8 7 6 5"
    expected = _suit(red, "H") | _suit(red, "D") | _suit(black, "S") | _suit(black, "C") | {"JK"}
    assert set(pack) == expected
    assert not any(c.startswith(("2", "3")) for c in pack)
    assert "4S" not in pack and "4C" not in pack
    assert [c for c in pack if c.startswith("JK")] == ["JK"]


def test_T02_deal_mapping_W_deals():
    deck = shuffled(pack_for(Options()), seed=12345, label="test")
    state, _ = new_game(Options(), seed=0, deck_orders=[deck], first_dealer=W)
    d = deck

    def cards(*ranges: tuple[int, int]) -> set[str]:
        return {d[i] for a, b in ranges for i in range(a, b + 1)}

    assert set(state.hands[N]) == cards((0, 2), (13, 16), (30, 32))
    assert set(state.hands[E]) == cards((3, 5), (17, 20), (33, 35))
    assert set(state.hands[S]) == cards((6, 8), (21, 24), (36, 38))
    assert set(state.hands[W]) == cards((9, 11), (25, 28), (39, 41))
    assert state.kitty == (d[12], d[29], d[42])
    assert state.to_act == N and state.dealer == W


def test_T03_hearts_trumps_suit_membership():
    table = hand_strain(Options(), "6H", ())
    pack = pack_for(Options())
    by = {s: {c for c in pack if effective_suit(c, table) == s} for s in "SCDH"}
    assert by["H"] == {"JK", "JH", "JD"} | _suit("A K Q 10 9 8 7 6 5 4", "H")
    assert len(by["H"]) == 13
    assert by["D"] == _suit("A K Q 10 9 8 7 6 5 4", "D") and "JD" not in by["D"]
    assert len(by["S"]) == 10 and len(by["C"]) == 10


def test_T04_spades_trumps_suit_membership():
    table = hand_strain(Options(), "6S", ())
    pack = pack_for(Options())
    by = {s: {c for c in pack if effective_suit(c, table) == s} for s in "SCDH"}
    assert by["S"] == {"JK", "JS", "JC"} | _suit("A K Q 10 9 8 7 6 5", "S")
    assert len(by["S"]) == 12
    assert by["C"] == _suit("A K Q 10 9 8 7 6 5", "C") and len(by["C"]) == 9
    assert len(by["H"]) == 11 and len(by["D"]) == 11


def test_T05_clubs_trumps_ranking():
    table = hand_strain(Options(), "6C", ())
    trumps = [c for c in pack_for(Options()) if effective_suit(c, table) == "C"]
    assert table.order(trumps) == ["JK", "JC", "JS", "AC", "KC", "QC", "10C", "9C", "8C", "7C", "6C", "5C"]


def test_T05_clubs_trumps_ranking_in_play():
    # The same order decides real tricks: with clubs trumps the joker beats both bowers, and the right bower
    # (J♣) beats the left bower (J♠) and the ace of trumps.
    hands = {N: ["AC", "KD"], E: ["JS", "5D"], S: ["JC", "6D"], W: ["JK", "7D"]}
    state = setup(opts(), hands, "6C", N, voids={E: "C", S: "C", W: "C"})
    state, _ = play(state, "AC", "JS", "JC", "JK")
    assert state.tricks[-1].winner == W
    hands2 = {N: ["AC", "KD"], E: ["JS", "5D"], S: ["JC", "6D"], W: ["7D"]}
    state = setup(opts(), hands2, "6C", N, voids={E: "C", S: "C", W: "C"})
    state, _ = play(state, "AC", "JS", "JC", "7D")
    assert state.tricks[-1].winner == S


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_deck_for_helper_deals_the_requested_hands(dealer: int):
    o = opts()
    hands = {0: ["JK", "AS", "4H"], 1: ["JD", "5C"], 3: ["QH", "9S"]}
    deck = deck_for(o, dealer, hands, kitty=["KS", "KC", "KD"], voids={2: "H"})
    state = start(o, hands, dealer=dealer, kitty=["KS", "KC", "KD"], voids={2: "H"})
    for s, cards in hands.items():
        assert set(cards) <= set(state.hands[s])
    assert sorted(state.kitty) == ["KC", "KD", "KS"]
    assert not any(c.endswith("H") for c in state.hands[2])
    assert sorted(deck) == sorted(pack_for(o))
    # the joker, unless named, goes to the kitty
    state = start(o, {0: ["AS"]}, dealer=dealer)
    assert "JK" in state.kitty
