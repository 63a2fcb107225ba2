"""A real webhook receiver for the tests and the benchmark: an ASGI app served by uvicorn on 127.0.0.1 that
verifies every message with the Standard Webhooks library's own verifier (``standardwebhooks.Webhook.verify``),
and keeps what it received, in the order it arrived, with when."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from standardwebhooks import Webhook as Verifier

from tests.sessions.conftest import serve_in_process


async def _request(scope: dict[str, Any], receive: Any, send: Any) -> tuple[dict[str, str], bytes] | None:
    """An ASGI request's headers (by lower-case name) and whole body; ``None`` for the server's lifespan, which
    this answers itself."""
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return None
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    return {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}, body


@dataclass
class Received:
    """One message as it arrived: its headers, its verified body, when (``time.monotonic()``), the status
    answered."""

    headers: dict[str, str]
    body: dict[str, Any]
    at: float
    status: int

    @property
    def id(self) -> str:
        return self.headers["webhook-id"]

    @property
    def webhook(self) -> str:
        return str(self.body["data"]["webhook_id"])


@dataclass
class Receiver:
    """The receiver's state: the secrets it verifies with (by webhook id), what arrived, and how it answers
    (``fail``: that many of the next messages get a 500; ``hang``: seconds each answer waits; ``down``: every
    answer is a 503)."""

    url: str = ""
    secrets: dict[str, str] = field(default_factory=dict)
    received: list[Received] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)  # messages whose signature did not verify
    fail: int = 0
    hang: float = 0.0
    down: bool = False

    def taken(self, webhook_id: str | None = None) -> list[Received]:
        """The messages answered 2xx (of one webhook), in the order they arrived."""
        return [r for r in self.received if r.status < 300 and (webhook_id is None or r.webhook == webhook_id)]

    async def wait_for(self, done: Any, timeout: float = 30.0) -> None:
        async with asyncio.timeout(timeout):
            while not done():
                await asyncio.sleep(0.02)

    async def app(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        request = await _request(scope, receive, send)
        if request is None:
            return
        headers, body = request
        at = time.monotonic()
        status = 204
        try:
            parsed = json.loads(body)
            Verifier(self.secrets[parsed["data"]["webhook_id"]]).verify(body, headers)
        except Exception as exc:  # a message that does not verify is refused, and noted
            self.rejected.append(f"{headers.get('webhook-id')}: {exc!r}")
            status, parsed = 400, {}
        if status == 204:
            if self.hang:
                await asyncio.sleep(self.hang)
            if self.down:
                status = 503
            elif self.fail > 0:
                self.fail -= 1
                status = 500
            self.received.append(Received(headers, parsed, at, status))
        await send({"type": "http.response.start", "status": status, "headers": []})
        await send({"type": "http.response.body", "body": b""})


@asynccontextmanager
async def receiver() -> AsyncIterator[Receiver]:
    r = Receiver()

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:  # a function: uvicorn's ASGI 3 test
        await r.app(scope, receive, send)

    async with serve_in_process(app) as url:
        r.url = url + "/hooks"
        yield r


@dataclass
class Bot:
    """An outside bot served by the test: verifies each ``session.turn`` with the Standard Webhooks library and
    answers by ``play``: ``"first"`` its first legal move (at the exchange, the first cards of the choice),
    ``"illegal"`` a move that is never legal (a card the pack does not have),
    ``"garbage"`` no move at all, ``"late"`` the first legal move after ``delay`` seconds, ``"silent"`` a 500."""

    play: str = "first"
    delay: float = 0.0
    url: str = ""
    secret: str = ""
    turns: list[dict[str, Any]] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)

    def move(self, turn: dict[str, Any]) -> Any:
        if self.play == "illegal":
            return {"type": "play", "card": "NOPE"}  # no such card: never legal, whatever the phase
        legal = turn["legal_moves"]
        if not legal and turn.get("discard_choice"):
            choice = turn["discard_choice"]
            return {"type": "discard", "cards": choice["cards"][:choice["count"]]}
        return legal[0]

    async def app(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        request = await _request(scope, receive, send)
        if request is None:
            return
        headers, body = request
        status, answer = 200, b""
        try:
            turn = Verifier(self.secret).verify(body, headers)["data"]
        except Exception as exc:
            self.rejected.append(repr(exc))
            status = 400
        else:
            self.turns.append(turn)
            if self.play == "silent":
                status = 500
            elif self.play == "garbage":
                answer = b'{"thinking": true}'
            else:
                if self.play == "late":
                    await asyncio.sleep(self.delay)
                answer = json.dumps({"move": self.move(turn)}).encode()
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(answer))]})
        await send({"type": "http.response.body", "body": answer})


@asynccontextmanager
async def outside_bot(play: str = "first", delay: float = 0.0) -> AsyncIterator[Bot]:
    bot = Bot(play, delay)

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await bot.app(scope, receive, send)

    async with serve_in_process(app) as url:
        bot.url = url + "/bot"
        yield bot
