"""Seeded random game states for the bot properties: every player count, random option sets, every phase."""

from __future__ import annotations

import random
from collections.abc import Iterator

from engine import GameState, Options, apply_move, legal_moves, new_game
from engine.deal import has_dead_hand
from tests.engine.randomplay import random_ghost_options, random_options

#: "ghosts" is the two-player ghost-partners game (``two_player_method=ghost_partners``).
PLAYER_COUNTS: tuple[int | str, ...] = (2, 3, 4, 5, 6, "ghosts")


def random_states(players: int | str, games: int, seed: int, every: int = 1) -> Iterator[tuple[Options, GameState]]:
    """States along seeded random games (a quarter with default options), every ``every``-th one.

    The moves are random but pass often, and misère and the setup phases come up under the random options, so
    the states cover the auction, redeal answers, partner calls, the exchange, joker nominations and play.
    """
    if players == "ghosts":
        rng = random.Random(seed * 7919 + 7)
        default = Options(players=2, two_player_method="ghost_partners")
    else:
        rng = random.Random(seed * 7919 + players)  # type: ignore[operator]
        default = Options(players=players)  # type: ignore[arg-type]
    for g in range(games):
        opts = default if g % 4 == 0 else random_ghost_options(rng) if players == "ghosts" \
            else random_options(rng, players)  # type: ignore[arg-type]
        state, _ = new_game(opts, seed=seed * 1000 + g)
        for step in range(400):
            if state.to_act is None:
                break
            moves = legal_moves(state)
            if state.phase == "exchange":
                hand = state.hands[state.to_act]
                k = len(state.kitty)
                from engine import Discard

                moves = [Discard(seat=state.to_act, cards=tuple(rng.sample(hand, k)))]
            if step % every == 0:
                yield opts, state
            passes = [m for m in moves if type(m).__name__ == "Pass"]
            move = passes[0] if passes and rng.random() < 0.55 else moves[rng.randrange(len(moves))]
            state, _ = apply_move(state, move)


def hidden_places(state: GameState, seat: int) -> list[tuple[str, int]]:
    """The places whose cards ``seat`` cannot see, by the rules (RULES.md and engine/views.py's docstring):
    other seats' hands (not an exposed open-misère hand), the kitty unless the seat sees it, the discards unless
    it made them, the dead hand, each ghost's face-down cards (a ghost's face-up cards are seen by all)."""
    places: list[tuple[str, int]] = []
    c = state.contract
    exposed = c is not None and c.bid == "OPEN_MISERE" and state.phase == "play" and (
        state.tricks or state.options.open_misere_expose == "before_opening_lead")
    for s in range(state.options.players):
        if s == seat and state.viewed[s]:
            continue
        if exposed and c is not None and s == c.contractor:
            continue
        if state.phase == "exchange" and c is not None and s == c.contractor:
            continue  # the contractor's hand holds the kitty during the exchange (only the contractor acts)
        places.append(("hand", s))
    kitty_seen = state.phase == "exchange" and c is not None and (seat == c.contractor or state.kitty_shown)
    if state.kitty and not kitty_seen:
        places.append(("kitty", 0))
    if state.discards and not (c is not None and seat == c.contractor):
        places.append(("discards", 0))
    if has_dead_hand(state.options):
        places.append(("dead", 0))
    for g, piles in enumerate(state.ghost_piles):
        if any(up in state.hands[g] for up, _ in piles):
            places.append(("face_down", g))
    return places


def mover(state: GameState) -> int:
    """The seat whose player moves now: the seat to act, or the human (opposite) of a ghost to act."""
    seat = state.to_act
    assert seat is not None
    return seat - 2 if state.ghost_piles and seat in (2, 3) else seat
