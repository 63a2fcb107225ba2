"""The seats at the table and who moves for each: the humans, and the ghosts of ``two_player_method=ghost_partners``.

In every game but one, each seat is a player: ``options.players`` seats, each moving for itself. The Australian
two-player "ghost partners" game (RULES.md 2.2, method C) seats four: the two humans side by side at seats 0 and 1,
and each human's ghost partner opposite it, at seat ``human + 2`` (so the sides are 0 and 2 against 1 and 3, as in
the four-player game). A ghost never bids and never deals; its human partner plays its cards for it.

>>> from typing import TYPE_CHECKING

from engine.options import Options

if TYPE_CHECKING:
    from engine.model import GameState
>>> g = Options(players=2, two_player_method="ghost_partners")
>>> seat_count(g), ghost_seats(g), controller(g, 3), controlled_seats(g, 0)
(4, (2, 3), 1, (0, 2))
>>> seat_count(Options()), controlled_seats(Options(), 2)
(4, (2,))
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.options import Options

if TYPE_CHECKING:
    from engine.model import GameState

#: The seats of the ghosts in a ghost-partners game: opposite humans 0 and 1.
GHOSTS = (2, 3)
#: Cards a ghost is dealt face down (each covered by one of the same number of face-up cards).
GHOST_PILES = 5


def is_ghost_game(opts: Options) -> bool:
    """Whether this is the two-player ghost-partners game."""
    return opts.players == 2 and opts.two_player_method == "ghost_partners"


def seat_count(opts: Options) -> int:
    """Seats at the table, each holding a hand: ``players``, and four in the ghost-partners game. (Bidding and
    dealing go round the ``players`` humans only, seats 0 to players - 1.)"""
    return 4 if is_ghost_game(opts) else opts.players


def ghost_seats(opts: Options) -> tuple[int, ...]:
    """The ghosts' seats (empty unless this is the ghost-partners game)."""
    return GHOSTS if is_ghost_game(opts) else ()


def controller(opts: Options, seat: int) -> int:
    """The seat whose player makes ``seat``'s moves: a ghost's human partner opposite it, else the seat itself."""
    return seat - 2 if is_ghost_game(opts) and seat in GHOSTS else seat


def controlled_seats(opts: Options, seat: int) -> tuple[int, ...]:
    """The seats a player sitting at ``seat`` moves for: itself, and in the ghost-partners game its ghost."""
    if is_ghost_game(opts) and seat in (0, 1):
        return (seat, seat + 2)
    return (seat,)


def player_to_act(state: GameState) -> int | None:
    """The seat whose player is to move now (``None`` once the game is over): the seat to act, or the human
    partner of a ghost to act. A token, a bot or a clock acts for this seat (its move names ``state.to_act``)."""
    to_act = state.to_act
    return None if to_act is None else controller(state.options, to_act)


__all__ = ["GHOSTS", "GHOST_PILES", "controlled_seats", "controller", "ghost_seats", "is_ghost_game", "player_to_act",
           "seat_count"]
