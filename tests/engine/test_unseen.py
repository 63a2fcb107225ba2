"""A seat's view completed by a deal of the cards it cannot see (engine/unseen.py) is a game state with that view.

Over random games of every player count and random rule sets (ghost partners, the dead hand, five-player calls,
blind and open misère, jokers, sans kitty), in every phase and for every seat:

- the places :func:`unseen_places` names hold exactly the cards the seat cannot see in the real game, in those
  numbers, and :func:`unseen_cards` lists them;
- completed by the real game's placement of them, the view gives the real state itself (but for what no view
  says: the seed and decks of the deals to come, a refused redeal's proposer and misère bar, and under which
  face-up card a ghost's already turned-up cards lay);
- completed by any other deal of them, the view gives a state whose view for that seat is the same view, and
  whose legal moves for that seat are the same moves.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import msgspec
import pytest

from engine import GameState, Options, apply_move, legal_moves, new_game, view
from engine.unseen import DEAD_HAND, DISCARDS, KITTY, complete_view, face_down_place, unseen_cards, unseen_places
from tests.engine.randomplay import random_game, random_ghost_options, random_options

PLAYER_COUNTS: tuple[int | str, ...] = (2, 3, 4, 5, 6, "ghosts")


def _states(players: int | str, games: int, seed: int) -> Iterator[GameState]:
    rng = random.Random(seed)
    for g in range(games):
        if players == "ghosts":
            opts = Options(players=2, two_player_method="ghost_partners") if g % 4 == 0 else random_ghost_options(rng)
        else:
            opts = Options(players=players) if g % 4 == 0 else random_options(rng, players)  # type: ignore[arg-type]
        state, _ = new_game(opts, seed=seed * 1000 + g)
        last = state
        for st, _move in random_game(rng, state, pass_bias=0.5, max_steps=1500):
            last = st
            if rng.random() < 0.15:
                yield st
        if last.to_act is not None:
            continue
        yield last


def _game_over(players: int | str, seed: int) -> GameState:
    """A finished game (short target, so random play gets there)."""
    rng = random.Random(seed)
    n = 2 if players == "ghosts" else players
    extra = {"two_player_method": "ghost_partners"} if players == "ghosts" else {}
    opts = Options(players=n, target=150, lose_at=-150, **extra)  # type: ignore[arg-type]
    state, _ = new_game(opts, seed=seed)
    for st, move in random_game(rng, state, pass_bias=0.2):
        state, _ = apply_move(st, move)
    assert state.phase == "game_over"
    return state


def _real_placement(state: GameState, seat: int) -> dict[int, list[str]]:
    """Where the real game holds the cards of each place the seat's view names."""
    seen = view(state, seat)
    c = state.contract
    out: dict[int, list[str]] = {}
    for place in unseen_places(seen, state.options):
        if place >= 0:
            cards = list(state.hands[place])
            if state.phase == "exchange" and c is not None and place == c.contractor:
                cards = [x for x in cards if x not in state.kitty]
            out[place] = cards
        elif place == KITTY:
            out[place] = list(state.kitty)
        elif place == DISCARDS:
            out[place] = list(state.discards)
        elif place == DEAD_HAND:
            out[place] = list(state.dead_hand)
        else:
            g = next(g for g in seen.ghosts if face_down_place(g.seat) == place)
            beneath = dict(state.ghost_piles[g.seat])
            out[place] = [beneath[up] for up in g.covered]
    return out


def _knowable(state: GameState) -> GameState:
    """The state without what no view says (see the module docstring)."""
    piles = tuple(tuple(sorted(p for p in piles if p[0] in state.hands[g])) for g, piles in
                  enumerate(state.ghost_piles))
    proposer = state.redeal_proposer if state.phase == "redeal_answer" else None
    return msgspec.structs.replace(state, seed=0, deck_orders=(), dealt_decks=(), misere_barred=(),
                                   redeal_proposer=proposer, ghost_piles=piles)


def _differences(a: GameState, b: GameState) -> dict[str, tuple[object, object]]:
    return {f: (getattr(a, f), getattr(b, f)) for f in a.__struct_fields__ if getattr(a, f) != getattr(b, f)}


def _other_deal(rng: random.Random, placed: dict[int, list[str]]) -> dict[int, list[str]]:
    pool = [x for cards in placed.values() for x in cards]
    rng.shuffle(pool)
    out: dict[int, list[str]] = {}
    for place, cards in placed.items():
        out[place], pool = pool[:len(cards)], pool[len(cards):]
    return out


def _check(state: GameState, seat: int, rng: random.Random) -> None:
    opts = state.options
    seen = view(state, seat)
    places = unseen_places(seen, opts)
    placed = _real_placement(state, seat)
    assert {p: len(cards) for p, cards in placed.items()} == places, (state.phase, seat)
    assert sorted(x for cards in placed.values() for x in cards) == sorted(unseen_cards(seen, opts))
    # The real placement gives the real state (but for what no view says).
    completed, real = _knowable(complete_view(seen, opts, placed)), _knowable(state)
    assert completed == real, (state.phase, seat, _differences(completed, real))
    # Any placement gives the same view and the same legal moves for the seat.
    other = complete_view(seen, opts, _other_deal(rng, placed))
    assert view(other, seat) == seen, (state.phase, seat)
    if not state.misere_barred and not (state.redeal_proposer is not None and state.phase == "auction"):
        assert legal_moves(other, seat) == legal_moves(state, seat), (state.phase, seat)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_a_completed_view_is_a_state_with_that_view(players: int | str) -> None:
    rng = random.Random(f"unseen-{players}")
    phases: dict[str, int] = {}
    for state in (*_states(players, games=24, seed=51), _game_over(players, seed=52)):
        phases[state.phase] = phases.get(state.phase, 0) + 1
        for seat in range(state.options.players):
            _check(state, seat, rng)
    assert {"auction", "play", "game_over"} <= set(phases), phases
    if players != "ghosts":
        assert "exchange" in phases and "nominate" in phases, phases
    if players == 5:
        assert "call" in phases, phases


def test_the_public_view_has_no_completion() -> None:
    state, _ = new_game(Options(), seed=1)
    with pytest.raises(ValueError, match="seat's view"):
        complete_view(view(state, None), state.options, {})


def test_a_redeal_proposal_and_its_refusal() -> None:
    """No-ace-no-face: the proposer's partner answering, then the auction going on after a refusal (the proposer
    and the misère bar are what no view says: the view and the state still complete)."""
    rng = random.Random(3)
    checked = 0
    for seed in range(3000):
        state, _ = new_game(Options(no_ace_no_face=True), seed=seed)
        while state.phase == "auction" and state.to_act is not None:
            moves = legal_moves(state)
            proposal = [m for m in moves if type(m).__name__ == "ProposeRedeal"]
            if proposal:
                state, _ = apply_move(state, proposal[0])
                break
            state, _ = apply_move(state, moves[0])  # pass
        if state.phase != "redeal_answer":
            continue
        for seat in range(4):
            _check(state, seat, rng)
        refusal = [m for m in legal_moves(state) if getattr(m, "accept", True) is False]
        state, _ = apply_move(state, refusal[0])
        assert state.misere_barred
        for seat in range(4):
            _check(state, seat, rng)
        checked += 1
        if checked >= 5:
            break
    assert checked >= 5
