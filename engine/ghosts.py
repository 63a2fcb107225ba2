"""Ghost partners (RULES.md 2.2, method C): a ghost's piles, what of them is face up, and turning cards up.

Each ghost is dealt five cards face down in a row and five face up, one on each. Its hand for every rule of the
play is its face-up cards (``GameState.hands``): it may play only those, and it follows suit with those. The piles
(``GameState.ghost_piles``) record which card lies on which for the whole hand; when a face-up card that covers
another is played, the one beneath is turned up and joins the ghost's playable cards, announced to everyone by a
:class:`engine.model.GhostCardsUp` event. Nobody, not even the ghost's human partner, sees a face-down card before
then (the views show only how many there are and which face-up cards cover one).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.deal import pack_index
from engine.model import Event, GameState, GhostCardsUp, GhostView
from engine.seats import GHOST_PILES, controller, ghost_seats, seat_count


def lay_out(dealt: Sequence[str]) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """A ghost's ten dealt cards (the five face down, then the five face up, in dealt order) as its face-up cards
    and its piles, each (face-up card, the face-down card beneath it)."""
    down, up = dealt[:GHOST_PILES], dealt[GHOST_PILES:]
    return tuple(up), tuple(zip(up, down, strict=True))


def covered(state: GameState, seat: int) -> tuple[str, ...]:
    """The ghost's face-up cards that still lie on a face-down card (in its hand's order)."""
    if not state.ghost_piles or not state.ghost_piles[seat]:
        return ()
    tops = {up for up, _ in state.ghost_piles[seat]}
    return tuple(c for c in state.hands[seat] if c in tops)


def face_down(state: GameState, seat: int) -> tuple[str, ...]:
    """The ghost's cards still face down: those whose covering card has not been played. Hidden from every view."""
    if not state.ghost_piles or not state.ghost_piles[seat]:
        return ()
    hand = state.hands[seat]
    return tuple(down for up, down in state.ghost_piles[seat] if up in hand)


def turn_up(state: GameState, seat: int, card: str, hands: tuple[tuple[str, ...], ...],
            events: list[Event]) -> tuple[tuple[str, ...], ...]:
    """After ``seat`` played ``card``: if it lay on a face-down card, that card is turned up into the seat's
    playable cards (the hands as they are after the play, returned with it added)."""
    for up, down in state.ghost_piles[seat]:
        if up == card:
            index = pack_index(state.options)
            hand = tuple(sorted((*hands[seat], down), key=index.__getitem__))
            events.append(GhostCardsUp(seat=seat, cards=(down,)))
            return hands[:seat] + (hand,) + hands[seat + 1:]
    return hands


def dealt_hands(state: GameState) -> tuple[tuple[str, ...], ...]:
    """Every seat's cards as just dealt, a ghost's face-down cards included (for a game record's host, who sees
    everything; never for a view)."""
    if not state.ghost_piles:
        return state.hands
    index = pack_index(state.options)
    return tuple(tuple(sorted((*h, *face_down(state, s)), key=index.__getitem__)) if state.ghost_piles[s] else h
                 for s, h in enumerate(state.hands))


def ghost_views(state: GameState) -> tuple[GhostView, ...]:
    """Every ghost's public cards (empty outside the ghost-partners game)."""
    opts = state.options
    if not state.ghost_piles:
        return ()
    return tuple(GhostView(seat=g, controlled_by=controller(opts, g), face_up=state.hands[g],
                           covered=covered(state, g), face_down=len(face_down(state, g)))
                 for g in ghost_seats(opts) if g < seat_count(opts))


__all__ = ["covered", "dealt_hands", "face_down", "ghost_views", "lay_out", "turn_up"]
