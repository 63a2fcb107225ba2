"""The standard card play over masks (bots.cardplay.choose_bit) is the standard card play (choose_card): at every
card of random hands of every player count and random rule sets, from random play states, both pick the same
card, the others' tops taken from the hands in the open as the expert's playouts do."""

from __future__ import annotations

import random

import pytest

from bots.cardplay import HandInPlay, bit_keys, choose_bit, choose_card, outstanding_tops
from bots.expert import _teams
from engine.masks import cards_of
from engine.model import Trick
from engine.playout import BitPlayout
from tests.engine.test_playout import _play_states


@pytest.mark.parametrize("players", (2, 3, 4, 5, 6, "ghosts"))
def test_choose_bit_plays_as_choose_card(players: int | str) -> None:
    rng = random.Random(f"choose-bit-{players}")
    compared = 0
    for st in _play_states(players, games=30, seed=23):
        game = BitPlayout(st)
        table = game.table
        c = st.contract
        in_play = HandInPlay(table, c.bid if c else None, c.contractor if c else None, game.active)
        keys = bit_keys(table)
        teams = _teams(st)
        while not game.over:
            actor = game.to_act
            legal = game.legal()
            others = 0
            for s in game.active:
                if s != actor:
                    others |= game.hands[s]
            hand = cards_of(game.hands[actor], table)
            cards = cards_of(legal, table)
            trick = Trick(game.leader, tuple(table.cards[b.bit_length() - 1] for b in game.bits), game.nominate) \
                if game.bits else None
            leads = "".join(rng.sample("SCDH", rng.randint(0, 2)))
            want = choose_card(in_play, actor, hand, cards, trick, teams[actor],
                               outstanding_tops(cards_of(others, table), table), leads)
            got = choose_bit(in_play, keys, actor, game.hands[actor], legal, game.leader, game.bits, game.led,
                             teams[actor], others, leads)
            assert table.cards[got.bit_length() - 1] == want, (hand, cards, trick, c)
            compared += len(cards) > 1
            # Then a random legal card, so that the hands wander off the policy's own lines.
            bit = got if rng.random() < 0.5 else table.bit[rng.choice(cards)]
            suits = game.lead_suits(bit)
            game.play(bit, rng.choice(suits))
    assert compared >= 400, compared
