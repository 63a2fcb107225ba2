"""The fast path of the play (engine/playout.py) is the engine: at every card of thousands of random hands, of every
player count and random rule sets (ghost partners, jokers, misère, the follow and lead rules), a
:class:`engine.playout.Playout` lists the same legal moves as :func:`engine.legal_moves` and stands for the same
state as :func:`engine.apply_move` gives, the scored hand and the next deal included."""

from __future__ import annotations

import random

import msgspec
import pytest

from engine import GameState, Options, Play, apply_move, legal_moves, new_game
from engine.model import HandScored
from engine.playout import Playout
from tests.engine.randomplay import random_game, random_ghost_options, random_options

PLAYER_COUNTS: tuple[int | str, ...] = (2, 3, 4, 5, 6, "ghosts")


def _play_states(players: int | str, games: int, seed: int) -> list[GameState]:
    """Play-phase states along random games (every trick position: leads, follows, the last trick)."""
    rng = random.Random(seed)
    out: list[GameState] = []
    for g in range(games):
        if players == "ghosts":
            opts = Options(players=2, two_player_method="ghost_partners") if g % 4 == 0 else random_ghost_options(rng)
        else:
            opts = Options(players=players) if g % 4 == 0 else random_options(rng, players)  # type: ignore[arg-type]
        state, _ = new_game(opts, seed=seed * 1000 + g)
        for st, _move in random_game(rng, state, pass_bias=0.4, max_steps=3000):
            if st.phase == "play" and rng.random() < 0.2:
                out.append(st)
    return out


def _same_hand(rng: random.Random, state: GameState) -> int:
    """Play ``state``'s hand to its end both ways with the same random moves; the number of cards compared."""
    fast = Playout(state)
    compared = 0
    while True:
        moves = legal_moves(state)
        assert fast.legal_plays() == list(moves), (fast.to_act, state.to_act)
        move = moves[rng.randrange(len(moves))]
        assert isinstance(move, Play)
        assert move.card in fast.legal_cards() and move.nominate in fast.lead_suits(move.card)
        after, events = apply_move(state, move)
        fast.play(move.card, move.nominate)
        compared += 1
        scored = [e for e in events if isinstance(e, HandScored)]
        assert fast.over == bool(scored)
        assert fast.state() == after, msgspec.structs.asdict(state)
        if scored:
            assert fast.score() == (scored[0].deltas, scored[0].contracting_seats, scored[0].made)
            assert fast.deltas() == scored[0].deltas
            return compared
        state = after


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_the_playout_plays_exactly_as_apply_move(players: int | str) -> None:
    rng = random.Random(f"playout-{players}")
    states = _play_states(players, games=30, seed=41)
    cards = sum(_same_hand(rng, st) for st in states)
    assert len(states) >= 100 and cards >= 500, (len(states), cards)


def test_the_playout_covers_free_jokers_ghosts_and_misere() -> None:
    """The cases the fast path must not simplify away come up in the states compared above."""
    seen = {"free_joker_lead": 0, "ghost_turn_up": 0, "misere_ends_early": 0}
    rng = random.Random(7)
    for players in (3, 4, "ghosts"):
        for st in _play_states(players, games=30, seed=43):
            fast = Playout(st)
            while not fast.over:
                cards = fast.legal_cards()
                card = cards[rng.randrange(len(cards))]
                suits = fast.lead_suits(card)
                if suits != (None,):
                    seen["free_joker_lead"] += 1
                before = sum(len(h) for h in fast.hands)
                fast.play(card, suits[rng.randrange(len(suits))] if suits else None)
                seen["ghost_turn_up"] += sum(len(h) for h in fast.hands) == before
            seen["misere_ends_early"] += sum(fast.won) < 10
    assert all(v > 0 for v in seen.values()), seen


def test_a_playout_starts_only_in_the_play_phase_and_scores_only_a_finished_hand() -> None:
    state, _ = new_game(Options(), seed=1)
    with pytest.raises(ValueError, match="play phase"):
        Playout(state)
    st = next(s for s in _play_states(4, games=1, seed=44))
    with pytest.raises(ValueError, match="not over"):
        Playout(st).score()
