"""Seeded random games of every player count, under random rule sets (every option's values drawn) and the
ghost-partners game, against digests of the same games recorded before the engine's general API got its fast
paths: every state, every event and the legal moves of every state must come out byte for byte as they did.

The digests in ``game_digests.json`` were written by the engine before those fast paths (``python -m
tests.engine.test_game_digests --write`` writes them afresh; run it only on an engine whose answers are known to be
right). Each game also applies every move to a decoded copy of its state and to a decoded copy of the move (new
objects, so that no memo keyed by an object's identity applies) and checks that the answers are equal, so both the
memoised and the general path of each step are compared, not only the one the loop takes.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path

import msgspec
import pytest

from engine import GameState, Move, Options, apply_move, legal_moves, new_game
from engine.model import Discard, DiscardChoices, Pass
from tests.engine.randomplay import random_ghost_options, random_options

DIGESTS = Path(__file__).with_name("game_digests.json")
_ENC = msgspec.msgpack.Encoder()
_STATE = msgspec.msgpack.Decoder(GameState)
_MOVE = msgspec.msgpack.Decoder(Move)
GAMES = 20


def variants() -> dict[str, Options]:
    """The rule sets: the defaults of each player count, then random ones (half of the options changed)."""
    out: dict[str, Options] = {}
    for players in (2, 3, 4, 5, 6):
        out[f"p{players}-default"] = Options(players=players)
        rng = random.Random(players * 7919)
        for i in range(5):
            out[f"p{players}-random{i}"] = random_options(rng, players, 0.5)
    out["ghosts-default"] = Options(players=2, two_player_method="ghost_partners")
    rng = random.Random(4242)
    for i in range(4):
        out[f"ghosts-random{i}"] = random_ghost_options(rng, 0.5)
    return out


def _moves_digest(moves: object) -> bytes:
    if isinstance(moves, DiscardChoices):  # every discard would be thousands; its size and a spread of them
        picks = sorted({0, len(moves) - 1, len(moves) // 2, len(moves) // 3})
        return _ENC.encode([len(moves), *(moves[i] for i in picks)])
    assert isinstance(moves, list)
    return _ENC.encode(moves)


def play_games(opts: Options, games: int, seed: int) -> str:
    """The digest of ``games`` random games: odd games pass often (so they run over several hands), even ones
    choose uniformly (as the benchmarks do). Each step also checks the memo-free path against the one taken."""
    rng = random.Random(seed)
    digest = hashlib.sha256()
    for g in range(games):
        state, events = new_game(opts, seed=rng.randrange(2**64), first_dealer=None if g % 3 else g % opts.players)
        digest.update(_ENC.encode(state))
        digest.update(_ENC.encode(events))
        steps = 0
        while state.to_act is not None and steps < 3000:
            steps += 1
            moves = legal_moves(state)
            digest.update(_moves_digest(moves))
            move = moves[rng.randrange(len(moves))]
            if g % 2 and state.phase == "auction" and rng.random() < 0.6 and isinstance(moves[0], Pass):
                move = moves[0]
            if isinstance(move, Discard) and rng.random() < 0.3:  # the same discard, its cards in another order
                move = Discard(seat=move.seat, cards=tuple(reversed(move.cards)))
            fresh_state = _STATE.decode(_ENC.encode(state))
            fresh_move = _MOVE.decode(_ENC.encode(move))
            after, events = apply_move(state, move)
            assert apply_move(fresh_state, fresh_move) == (after, events)
            assert _moves_digest(legal_moves(fresh_state)) == _moves_digest(moves)
            digest.update(_ENC.encode(move))
            digest.update(_ENC.encode(after))
            digest.update(_ENC.encode(events))
            state = after
    return digest.hexdigest()


def compute() -> dict[str, str]:
    return {name: play_games(opts, GAMES, i) for i, (name, opts) in enumerate(variants().items())}


@pytest.mark.parametrize("name", sorted(variants()))
def test_games_match_their_recorded_digests(name: str) -> None:
    expected = json.loads(DIGESTS.read_text())
    index = list(variants()).index(name)
    assert play_games(variants()[name], GAMES, index) == expected[name]


def test_every_variant_has_a_digest() -> None:
    assert sorted(json.loads(DIGESTS.read_text())) == sorted(variants())


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        DIGESTS.write_text(json.dumps(compute(), indent=1, sort_keys=True) + "\n")
    else:
        sys.exit("usage: python -m tests.engine.test_game_digests --write")
