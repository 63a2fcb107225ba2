"""The engine's fast paths give exactly what the general code gives: the seed's deal read off shuffled pack
positions against the packet deal of the shuffled pack, and the play's memos against fresh answers."""

from __future__ import annotations

import random

import msgspec
import pytest

from engine import Options, apply_move, legal_moves, new_game
from engine.deal import _shuffled, shuffled
from engine.model import GameState, Move
from engine.options import PRESETS
from engine.setup import resolve_options, seed_deck

VARIANTS: list[Options] = [
    Options(players=2), Options(players=2, two_player_method="uspcc_24_card"), Options(players=3),
    Options(players=4), Options(players=4, deck_4p="45"), Options(players=4, deck_4p="46"),
    Options(players=4, deal_pattern="4-1-3-1-3-1"), Options(players=4, blind_misere_enabled=True),
    Options(players=5), Options(players=5, five_player_deck="stripped_63"), Options(players=6),
    Options(players=6, six_player_kitty=6), Options(players=2, two_player_method="ghost_partners"),
    Options(players=4, joker_follow_first_round=True, joker_low_in_misere=True),
    Options(players=4, joker_lead_restriction="not_shown_void", joker_lead_timing="last_trick_only"),
    Options(players=4, deck_4p="46", joker_forced_in_misere=False),
    *(resolve_options(4, p) for p in PRESETS),
]


@pytest.mark.parametrize("size", [2, 3, 24, 33, 43, 46, 53, 63, 66, 127])
def test_shuffle_fast_path_equals_general_loop(size: int) -> None:
    pack = tuple(f"c{i}" for i in range(size))
    for seed in range(200):
        assert shuffled(pack, seed, f"deal/{seed % 3}") == _shuffled(pack, seed, f"deal/{seed % 3}")


@pytest.mark.parametrize("opts", VARIANTS, ids=lambda o: msgspec.json.encode(o).decode()[:60])
def test_seed_deal_equals_dealing_the_seed_deck(opts: Options) -> None:
    """Dealing from the seed equals dealing the seed's deck given as an explicit deck order (the general path)."""
    for seed in range(40):
        for first_dealer in range(opts.players):
            fast, fast_events = new_game(opts, seed=seed, first_dealer=first_dealer)
            slow, slow_events = new_game(opts, seed=seed, first_dealer=first_dealer,
                                         deck_orders=[seed_deck(opts, seed, 0)])
            assert msgspec.structs.replace(slow, dealt_decks=()) == fast
            assert slow_events == fast_events


def _random_walk(opts: Options, seed: int) -> list[tuple[GameState, list[Move]]]:
    rng = random.Random(seed)
    state, _ = new_game(opts, seed=seed)
    seen: list[tuple[GameState, list[Move]]] = []
    while state.to_act is not None and len(seen) < 400:
        moves = list(legal_moves(state))
        seen.append((state, moves))
        state, _ = apply_move(state, moves[rng.randrange(len(moves))])
    return seen


@pytest.mark.parametrize("opts", VARIANTS, ids=lambda o: msgspec.json.encode(o).decode()[:60])
def test_play_memos_give_fresh_answers(opts: Options) -> None:
    """The legal moves of a state reached through the play's memos equal those of the same state decoded afresh
    (a new object, so no memo applies), and applying each gives equal states and events."""
    enc, dec = msgspec.msgpack.Encoder(), msgspec.msgpack.Decoder(GameState)
    for seed in range(6):
        for state, moves in _random_walk(opts, seed):
            copy = dec.decode(enc.encode(state))
            assert list(legal_moves(copy)) == moves
            move = moves[seed % len(moves)]
            legal_moves(state)
            assert apply_move(state, move) == apply_move(dec.decode(enc.encode(state)), move)
