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


@pytest.mark.parametrize(("players", "options"), [
    (6, {}), (6, {"six_player_kitty": 6}), (5, {"five_player_deck": "stripped_63"}), (4, {}), (2, {})])
def test_the_masters_over_64_bit_integers_and_wide_ones_are_the_cards_no_other_beats(
        players: int, options: dict[str, object]) -> None:
    """``_masters`` (the cards no card of the others beats in its effective suit; never a low free joker), over
    64-bit integers while the pack fits and over Python integers past it, is that definition card by card."""
    from bots.cardplay import _masters, _wide_masters
    from engine.cards import build_pack, strain_table
    from engine.masks import mask_of
    from engine.options import Options

    opts = Options(players=players, **options)  # type: ignore[arg-type]
    pack = build_pack(players, deck_4p=opts.deck_4p, five_player_deck=opts.five_player_deck,
                      six_player_kitty=opts.six_player_kitty)
    rng = random.Random(f"masters-{players}-{sorted(options.items())}")
    for trump in (None, "S", "H"):
        for joker_low in ((False, True) if trump is None else (False,)):
            table = strain_table(pack, trump, None, joker_low)
            suit, power = table.suit, table.power
            for _ in range(300):
                dealt = rng.sample(table.cards, rng.randint(2, min(30, len(table.cards))))
                split = rng.randint(1, len(dealt) - 1)
                mine, others = dealt[:split], dealt[split:]
                expected = {c for c in mine if not (suit[c] is None and power[c] < 0) and not any(
                    suit[o] == suit[c] and power[o] > power[c] for o in others)}
                cards, rest = mask_of(mine, table), mask_of(others, table)
                assert set(cards_of(_masters(cards, rest, table), table)) == expected
                assert set(cards_of(_wide_masters(cards, rest, table), table)) == expected
