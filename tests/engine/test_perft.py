"""Replay the perft data: the number of legal move sequences to a small depth from fixed positions."""

from __future__ import annotations

import json

import pytest

from engine import Options, legal_moves, new_game
from tests.engine.perft import DATA, divide, perft, position

ENTRIES = json.loads(DATA.read_text())


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: f"{e['players']}p-seed{e['seed']}-d{e['depth']}")
def test_perft(entry: dict) -> None:  # type: ignore[type-arg]
    state = position(entry)
    got = perft(state, entry["depth"])
    if got != entry["nodes"]:
        split = divide(state, entry["depth"])
        lines = "\n".join(f"  {move}: {n}" for move, n in sorted(split.items()))
        pytest.fail(f"perft {got} != expected {entry['nodes']}; per first move:\n{lines}")


def test_perft_depth_one_of_the_opening_auction_is_the_default_bid_box() -> None:
    # Known answer by hand: pass, the 25 suit/NT bids 6S..10NT, and open misère (misère needs a 7 bid first).
    state, _ = new_game(Options(), seed=11, first_dealer=3)
    assert perft(state, 1) == len(legal_moves(state)) == 1 + 25 + 1
    # Two calls deep: after a pass the next seat has the same 27; after the suit/NT bid r (1 = 6S … 25 = 10NT)
    # it has pass, the 25 - r higher suit bids, open misère while r <= 23 (10D), and misère once a 7-level bid
    # (r = 6..10) stands. 10NT ends the auction at once: the contractor then chooses 3 of 13 cards to discard.
    expected = 27
    for r in range(1, 25):
        expected += 1 + (25 - r) + (1 if r <= 23 else 0) + (1 if 6 <= r <= 10 else 0)
    expected += 286  # C(13, 3) discards after 10NT
    expected += 1 + 2  # after open misère: pass, 10H, 10NT
    assert perft(state, 2) == expected


def test_perft_of_the_ghost_partners_auction_is_the_four_player_bid_box() -> None:
    # Only the two humans call, from the same bid box as the four-player game: after the first call the other
    # human has exactly what the second seat of a four-player game has (a pass leaves the pass and every bid; a
    # second pass throws the hand in, one node like any other), and 10NT again ends the auction at once with C(13, 3)
    # discards.
    four, _ = new_game(Options(), seed=11, first_dealer=3)
    ghosts, _ = new_game(Options(players=2, two_player_method="ghost_partners"), seed=11, first_dealer=1)
    assert ghosts.to_act == 0 and legal_moves(ghosts) == legal_moves(four)
    assert perft(ghosts, 1) == 27 and perft(ghosts, 2) == perft(four, 2)
