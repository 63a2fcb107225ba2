"""Outside bots: a seat played by a bot at a URL of its author's (a seat's webhook registered with ``bot``).

At each of the seat's turns the deliverer (:mod:`.deliverer`) POSTs it ``session.turn`` (:class:`BotTurn`: the
seat's view as ``getSession`` answers the seat's token, its legal moves, the turn clock's deadline), signed as
every webhook is, and makes the move in its answer with the seat's own token, through the very path a player's
move takes (:class:`~service.sessions.move_loop.MoveLoop`), for the version it was asked at only (``If-Match``):
a late answer, a wrong one or none changes nothing, and the turn clock moves for the seat as for a player. The
bot learns what the seat's token would: never more.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from service.referee import operations
from service.sessions.clock import deadline_text
from service.sessions.move_loop import MoveLoop
from service.sessions.schemas import BotAnswer, BotTurn, BotTurnMessage, engine_move
from service.sessions.store import SessionRecord
from service.web.problems import Problem

__all__ = ["OutsideBots"]

_ANSWER = msgspec.json.Decoder(BotAnswer)


class OutsideBots:
    """The deliverer's side of the sessions' service for outside bots (:class:`~.deliverer.BotTurns`)."""

    def __init__(self, moves: MoveLoop, now_ms: Callable[[], int]) -> None:
        self.moves = moves
        self.now_ms = now_ms

    def turn(self, session_id: str, webhook_id: str, record: SessionRecord, seat: int) -> BotTurnMessage:
        from service.sessions.service import state_of

        _, legal, choice = operations.legal_listing(record.state, seat, list_discards=False)
        clock = record.clock
        data = BotTurn(session_id=session_id, webhook_id=webhook_id, id=f"{record.version}-turn",
                       version=record.version, seat=seat,
                       deadline=deadline_text(clock.deadline) if clock is not None else None,
                       state=state_of(session_id, record, seat), legal_moves=legal, discard_choice=choice)
        return BotTurnMessage(type="session.turn", timestamp=deadline_text(self.now_ms()) or "", data=data)

    async def answer(self, session_id: str, token: str, version: int, answer: bytes) -> str | None:
        try:
            decoded = _ANSWER.decode(answer)
        except msgspec.DecodeError as exc:
            return f"MALFORMED_MOVE: the answer is not {{\"move\": …}} ({str(exc)[:120]})"
        try:
            await self.moves.move(session_id, token, engine_move(decoded.move), if_match=f'"{version}"')
        except Problem as problem:
            return f"{problem.code}: {problem.detail}"
        return None
