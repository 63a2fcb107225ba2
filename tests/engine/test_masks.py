"""The engine's inside for searches (engine/masks.py, engine.playout.BitPlayout) is the engine: every rule written
over masks answers as its general form (engine/tricks.py, engine/play.py, engine.playout.Playout) on many random
states of every player count and random rule sets (jokers high, low and nominated, bowers, misère, the follow and
lead rules)."""

from __future__ import annotations

import random

import pytest

from engine import GameState
from engine.masks import beating_mask, cards_of, count, follow_mask, mask_of, winning_index
from engine.play import cards_to_follow
from engine.playout import BitPlayout, Playout
from engine.tricks import beats, joker_forced, strain_of, trick_winner_index
from tests.engine.test_playout import _play_states

PLAYER_COUNTS: tuple[int, ...] = (2, 3, 4, 5, 6)
#: The two-player counts again with the ghost-partners game (face-down cards turned up during play).
WITH_GHOSTS: tuple[int | str, ...] = (2, 3, 4, 5, 6, "ghosts")


def test_the_bit_order_is_power_within_each_effective_suit_and_the_winners_above() -> None:
    for players in PLAYER_COUNTS:
        for st in _play_states(players, games=12, seed=3):
            table = strain_of(st)
            assert sorted(table.cards) == sorted(table.suit) and len(table.bit) == len(table.cards)
            assert cards_of(mask_of(table.cards, table), table) == list(table.suit)  # the pack's order
            for a in table.cards:
                for b in table.cards:
                    if table.suit[a] == table.suit[b]:
                        assert (table.bit[a] > table.bit[b]) == (table.power[a] > table.power[b])


def _random_tricks(rng: random.Random, st: GameState, n: int) -> list[tuple[list[str], str | None]]:
    table = strain_of(st)
    out = []
    for _ in range(n):
        cards = rng.sample(table.cards, rng.randint(1, min(6, len(table.cards))))
        nominate = rng.choice("SCDH") if table.suit[cards[0]] is None else None
        out.append((cards, nominate))
    return out


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_the_trick_rules_over_masks_are_the_general_ones(players: int) -> None:
    rng = random.Random(f"masks-{players}")
    checked = 0
    for st in _play_states(players, games=20, seed=11):
        table = strain_of(st)
        for cards, nominate in _random_tricks(rng, st, 30):
            led = table.suit[cards[0]] or nominate
            bits = [table.bit[c] for c in cards]
            w = trick_winner_index(cards, nominate, table)
            assert winning_index(bits, led, table) == w, (cards, nominate)
            hand = rng.sample(table.cards, rng.randint(1, 12))
            winners = {c for c in hand if beats(c, cards[w], led, table)}
            assert set(cards_of(beating_mask(mask_of(hand, table), bits[w], led, table), table)) == winners
            if not st.options.joker_follow_first_round:
                legal = cards_to_follow(st.options, st.contract, sorted(hand, key=list(table.suit).index), led,
                                        table, st.tricks)
                forced = joker_forced(st.options, st.contract)
                assert cards_of(follow_mask(mask_of(hand, table), led, table, forced), table) == legal
            assert count(mask_of(hand, table)) == len(hand)
            checked += 1
    assert checked >= 1000


def _same_hand(rng: random.Random, st: GameState) -> int:
    """Play ``st``'s hand to its end with a Playout and a BitPlayout, the same random cards; the cards compared."""
    general, fast = Playout(st), BitPlayout(st)
    table = fast.table
    compared = 0
    while not general.over:
        assert not fast.over and fast.to_act == general.to_act
        legal = general.legal_cards()
        assert cards_of(fast.legal(), table) == legal
        assert [cards_of(h, table) for h in fast.hands] == general.hands
        card = legal[rng.randrange(len(legal))]
        suits = general.lead_suits(card)
        assert fast.lead_suits(table.bit[card]) == suits
        nominate = suits[rng.randrange(len(suits))]
        general.play(card, nominate)
        fast.play(table.bit[card], nominate)
        assert fast.won == general.won and fast.leader == general.leader
        assert fast.suits_led == general.suits_led and fast.shown_void == general.shown_void
        compared += 1
    assert fast.over and fast.score() == general.score()
    return compared


@pytest.mark.parametrize("players", WITH_GHOSTS)
def test_the_bit_playout_plays_exactly_as_the_playout(players: int | str) -> None:
    rng = random.Random(f"bit-playout-{players}")
    states = _play_states(players, games=30, seed=41)
    cards = sum(_same_hand(rng, st) for st in states)
    assert len(states) >= 100 and cards >= 500, (len(states), cards)


@pytest.mark.parametrize(("players", "options"), [
    (6, {}), (6, {"six_player_kitty": 5}), (6, {"six_player_kitty": 6}), (5, {"five_player_deck": "stripped_63"}),
    (4, {}), (4, {"deck_4p": "46"})])
def test_the_64_bit_forms_and_the_wide_ones_are_the_general_rule(players: int, options: dict[str, object]) -> None:
    """The compiled build takes the trick rules over 64-bit integers while the pack fits (``table.narrow``: up to
    63 cards, as the six-player pack with its top card at bit 62) and over Python integers past it (the 65- and
    66-card six-player packs): both answer as the general rule, on every contract shape of the pack."""
    from engine.cards import build_pack, strain_table
    from engine.options import Options

    opts = Options(players=players, **options)  # type: ignore[arg-type]
    pack = build_pack(players, deck_4p=opts.deck_4p, five_player_deck=opts.five_player_deck,
                      six_player_kitty=opts.six_player_kitty)
    rng = random.Random(f"widths-{players}-{sorted(options.items())}")
    checked = 0
    for trump in (None, "S", "C", "D", "H"):
        for joker_low in ((False, True) if trump is None else (False,)):
            table = strain_table(pack, trump, None, joker_low)
            assert table.narrow == (len(pack) <= 63)
            for _ in range(300):
                cards = rng.sample(table.cards, rng.randint(1, min(6, len(table.cards))))
                nominate = rng.choice("SCDH") if table.suit[cards[0]] is None else None
                led = table.suit[cards[0]] or nominate
                bits = [table.bit[c] for c in cards]
                w = trick_winner_index(cards, nominate, table)
                assert winning_index(bits, led, table) == w
                hand = rng.sample(table.cards, rng.randint(1, 12))
                expected = {c for c in hand if beats(c, cards[w], led, table)}
                assert set(cards_of(beating_mask(mask_of(hand, table), bits[w], led, table), table)) == expected
                checked += 1
    assert checked == 300 * 6
