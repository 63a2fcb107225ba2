"""Bot seats in hosted sessions: which seats the service plays, and the moves it plays for them.

A session is created with ``"bots": {"1": "expert", "2": "basic", ...}``. A bot seat gets no token: the record's
seats hold a :class:`~service.sessions.seats.BotSeat` for it, its level and a secret seed (:mod:`.seats`), so
nobody can move for it. Keeping the bots among the seats keeps them in the one record every store already
writes atomically, unchanged by every move.

The moves of the bot seats are a *deterministic* function of the committed state: a bot seat to act at version
``v`` plays ``bots.decide(its view, options, level, seed=H(secret, v), legal moves)``. Hence:

- every bot move is its own change: its own version, its own events on the streams, its own compare-and-set;
- replicas racing to play the same bot move compute the same move, and the compare-and-set lets exactly one
  apply it (the other sees the session moved on and carries on from there): a bot move is never applied twice;
- a human move's answer can describe the bot moves that follow it before they are committed, since nothing
  else can happen to the session meanwhile (only a seat to act may move, and bot seats have no token). If the
  store fails after the human move was committed, the answer still describes what the session *is* (the bot
  moves are implied by the committed state), and the next access by anyone commits them before answering.
"""

from __future__ import annotations

import hashlib

from bots import Level, decide
from engine import Event, GameState, Move, apply_move, legal_moves, player_to_act, view
from service.referee.deals import topped_up
from service.sessions.seats import BOT_MARK, Seats

__all__ = ["BOT_MARK", "BotSeats", "bot_chain", "bot_move", "bot_seats"]
#: The most bot moves one request plays (a hand the human's side sits out is ~30; a game of bots is bounded by
#: requiring one human seat). What is left is played by the next access.
MAX_CHAIN = 400

BotSeats = dict[int, tuple[Level, bytes]]


def bot_seats(auth: bytes) -> BotSeats:
    """The bot seats of a session's ``auth``: seat → (level, secret)."""
    return Seats.decode(auth).bots()


def bot_move(state: GameState, version: int, level: Level, secret: bytes) -> Move:
    """The move the bot seat to act (or whose ghost is to act) plays at ``version`` (decided from its own view
    only)."""
    seat = player_to_act(state)
    assert seat is not None
    seed = int.from_bytes(hashlib.sha256(secret + version.to_bytes(8, "big")).digest()[:8], "big")
    return decide(view(state, seat), state.options, level=level, seed=seed, legal=legal_moves(state, seat)).move


def bot_chain(state: GameState, version: int, bots: BotSeats, limit: int = MAX_CHAIN,
              once: frozenset[int] = frozenset()) -> list[tuple[GameState, list[Event]]]:
    """The states and events of the bot moves that follow ``state`` (at ``version``) until a human seat is to
    act or the game is over: entry ``i`` is the session at version ``version + 1 + i``. The seats of ``once`` are
    played for one move only (a seat whose player came back while its move was the bot's)."""
    out: list[tuple[GameState, list[Event]]] = []
    while (mover := player_to_act(state)) is not None and mover in bots and len(out) < limit:
        level, secret = bots[mover]
        state, events = apply_move(topped_up(state), bot_move(state, version, level, secret))
        version += 1
        out.append((state, events))
        if mover in once:
            bots = {seat: bot for seat, bot in bots.items() if seat != mover}
    return out
