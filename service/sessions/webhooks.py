"""Webhooks: a session's events POSTed to a URL as they happen, signed as Standard Webhooks sign them.

The host (or the table host) registers a URL for the public's events, a seat registers one for its own
(``POST /v1/sessions/{id}/webhooks``); the answer holds the signing secret, shown once. A webhook is kept in the
session's table (:class:`~service.sessions.table.Webhook`) by one compare-and-set, like a spectator token; its
deliveries are made by :mod:`.deliverer`, from the session's own event log, never from a process's memory.

Every message carries one event of the log as the webhook's credential may see it (the public's view, or the
seat's own: :func:`~service.sessions.streams.shown`), with the seat to act after it and that seat's deadline:
``{"type": "session.<event type>", "timestamp", "data": {"session_id", "webhook_id", "id", "version", "event",
"to_act", "deadline"}}``. Its ``webhook-id`` header, ``<webhook id>_<event id>``, is the same on every retry:
a receiver dedupes by it. A seat's webhook stops when the seat changes hands (its token reissued, its player
gone): the next holder's cards never reach the last one's URL.

Where a webhook may point is the operator's (:class:`~service.ops.egress.EgressPolicy`: ``WEBHOOK_HOSTS``): no
allow-list, no webhooks.
"""

from __future__ import annotations

import base64
import hmac
import secrets
from collections.abc import Callable
from typing import Any

import msgspec

from engine.model import Event
from service.ops.egress import EgressPolicy
from service.sessions.access import Access, Caller, no_spectator
from service.sessions.changes import Changes, Plan, Seen
from service.sessions.log import LogEntry
from service.sessions.problems import forbidden
from service.sessions.schemas import BotStats, WebhookCreated, WebhookInfo, WebhookList, WebhookRequest
from service.sessions.seats import hash_token
from service.sessions.store import Change
from service.sessions.table import Webhook
from service.web.problems import Problem

__all__ = ["EVENT_TYPES", "MAX_WEBHOOKS", "HookState", "Webhooks", "may_register_webhooks", "new_secret"]

#: The most webhooks one session holds.
MAX_WEBHOOKS = 8


def _tags(union: Any) -> frozenset[str]:
    members = getattr(union, "__args__", (union,))
    return frozenset(str(m.__struct_config__.tag) for m in members)


#: Every event type a session logs, and the clock's notice (what a webhook's ``events`` may name).
EVENT_TYPES = _tags(Event) | _tags(LogEntry) | {"clock_low"}


class HookState(msgspec.Struct, array_like=True):
    """Where one webhook's deliveries are (kept beside the session: :meth:`~.store.SessionStore.hook_states`)."""

    #: The last event delivered, or passed over (``(version, index)``; the log's order).
    cursor: tuple[int, int]
    #: Failed attempts at the next event in a row, since when (ms since the epoch; 0: none), and when the next
    #: attempt is due (0: at once).
    attempts: int = 0
    failing_since: int = 0
    next_at: int = 0
    #: The version whose turn's ``clock_low`` notice was sent.
    low_version: int = 0
    #: An outside bot's: the version whose turn it was last asked, and how its turns went (:class:`BotStats`).
    asked_version: int = 0
    asked: int = 0
    moved: int = 0
    refused: int = 0
    unanswered: int = 0
    last_refusal: str | None = None


STATE_ENCODER = msgspec.msgpack.Encoder()
STATE_DECODER = msgspec.msgpack.Decoder(HookState)
#: A cursor after every event of a version (an event index no version reaches).
AFTER_VERSION = 1 << 30


def new_secret() -> str:
    """A signing secret in the Standard Webhooks form: ``whsec_`` and 32 random bytes, base64."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


def _secret(given: str | None) -> str:
    """The signing secret a registration asked for (checked), or a new one."""
    if given is None:
        return new_secret()
    try:
        key = base64.b64decode(given.removeprefix("whsec_"), validate=True) if given.startswith("whsec_") else b""
    except ValueError:
        key = b""
    if not 24 <= len(key) <= 64:
        raise Problem("MALFORMED_REQUEST", "secret: a signing secret is whsec_ and the base64 of 24 to 64 random "
                                           "bytes", field="secret",
                      message=("problem.MALFORMED_REQUEST.detail.webhook_secret", {}))
    return given


def may_register_webhooks(caller: Caller, path_seat: int | None = None) -> None:
    """Who may register, list and remove webhooks: the host and the table host (the public's events), a seat
    (its own); never a spectator."""
    no_spectator(caller)


def _mine(caller: Caller, hook: Webhook, digest: bytes) -> bool:
    """Whether ``hook`` is the caller's to see and remove: the public's for the host and the table host, its own
    for a seat (registered with this very token)."""
    if caller.seat is None:
        return hook.seat is None
    return hook.seat == caller.seat and hmac.compare_digest(hook.holder, digest)


def info(hook: Webhook, state: HookState | None) -> WebhookInfo:
    from service.sessions.clock import deadline_text

    delivered = None if state is None or state.cursor[1] == AFTER_VERSION else f"{state.cursor[0]}-{state.cursor[1]}"
    bot = None
    if hook.bot:
        s = state or HookState((0, 0))
        bot = BotStats(asked=s.asked, moved=s.moved, refused=s.refused, unanswered=s.unanswered,
                       last_refusal=s.last_refusal)
    return WebhookInfo(webhook_id=hook.id, url=hook.url, seat=hook.seat, events=list(hook.events), since=hook.since,
                       delivered=None if hook.bot else delivered, attempts=0 if state is None else state.attempts,
                       failing_since=None if state is None or not state.failing_since
                       else deadline_text(state.failing_since), bot=bot)


class Webhooks:
    """Registers, lists and removes a session's webhooks."""

    def __init__(self, changes: Changes, access: Access, policy: EgressPolicy,
                 wake: Callable[[str], None] | None = None) -> None:
        self.changes = changes
        self.access = access
        self.policy = policy
        #: Told of a session whose webhooks have something to deliver (this replica's deliverer).
        self.wake = wake

    async def add(self, session_id: str, token: str, req: WebhookRequest) -> WebhookCreated:
        """A new webhook for the caller's events (the public's, or its seat's own), and its secret."""
        caller = await self.access.caller(session_id, token)
        may_register_webhooks(caller)
        if not self.policy.enabled:
            raise forbidden("this service sends no webhooks (its operator configured no WEBHOOK_HOSTS)",
                            "webhooks_off")
        refused = self.policy.refusal(req.url)
        if refused is None:
            refused = await self.policy.resolved_refusal(req.url)
        if refused is not None:
            raise Problem("MALFORMED_REQUEST", f"url: {refused}", field="url",
                          message=("problem.MALFORMED_REQUEST.detail.webhook_url", {}))
        unknown = sorted(set(req.events or ()) - EVENT_TYPES)
        if unknown:
            raise Problem("MALFORMED_REQUEST", f"events: no session logs an event of type {unknown[0]!r}",
                          field="events", message=("problem.MALFORMED_REQUEST.detail.webhook_events",
                                                   {"type": unknown[0][:40]}))
        digest = hash_token(token)
        if req.bot:
            if caller.seat is None:
                raise forbidden("an outside bot plays a seat: register it with that seat's token", "bot_seat_only")
            if caller.record.clock is None:
                raise forbidden("an outside bot sits only at a table with a turn clock, which moves for the seat "
                                "when the bot does not", "bot_needs_clock")
        hook = Webhook(id="wh_" + secrets.token_urlsafe(12), url=req.url, secret=_secret(req.secret), seat=caller.seat,
                       holder=digest if caller.seat is not None else b"", events=tuple(sorted(set(req.events or ()))),
                       bot=bool(req.bot), token=token if req.bot else "")

        async def add(seen: Seen) -> Plan[WebhookCreated]:
            table = seen.record.settings
            if hook.bot:  # one outside bot per seat: a new one replaces the last
                table = msgspec.structs.replace(table, webhooks=tuple(
                    h for h in table.webhooks if not (h.bot and h.seat == hook.seat)))
            if len(table.webhooks) >= MAX_WEBHOOKS:
                raise forbidden(f"this session already holds {MAX_WEBHOOKS} webhooks, the most it holds",
                                "webhooks_full", max=MAX_WEBHOOKS)
            registered = msgspec.structs.replace(hook, since=seen.record.version + 1)
            new = msgspec.structs.replace(table, webhooks=(*table.webhooks, registered))

            def answer(made: Any) -> WebhookCreated:
                return WebhookCreated(session_id=session_id, version=made.version, webhook_id=hook.id,
                                      url=hook.url, seat=hook.seat, events=list(hook.events), secret=hook.secret)

            return Plan(Change(state=seen.record.state, table=new), answer, follow=False)

        created = await self.changes.run(session_id, add, caller.record)
        await self.changes.store.mark_hooks(session_id, self.changes.clock.now_ms())
        if self.wake is not None:
            self.wake(session_id)
        return created

    async def listed(self, session_id: str, token: str) -> WebhookList:
        """The caller's webhooks (the public's, or its seat's own) and where their deliveries are."""
        caller = await self.access.caller(session_id, token)
        may_register_webhooks(caller)
        digest = hash_token(token)
        states = await self.changes.store.hook_states(session_id)
        record = caller.record
        return WebhookList(session_id=session_id, version=record.version, webhooks=[
            info(hook, STATE_DECODER.decode(states[hook.id]) if hook.id in states else None)
            for hook in record.settings.webhooks if _mine(caller, hook, digest)])

    async def remove(self, session_id: str, token: str, webhook_id: str) -> int:
        """Remove one of the caller's webhooks: the version that records it (404 ``NOT_FOUND`` for none)."""
        caller = await self.access.caller(session_id, token)
        may_register_webhooks(caller)
        digest = hash_token(token)

        async def drop(seen: Seen) -> Plan[int]:
            table = seen.record.settings
            kept = tuple(h for h in table.webhooks if not (h.id == webhook_id and _mine(caller, h, digest)))
            if len(kept) == len(table.webhooks):
                raise Problem("NOT_FOUND", "no webhook of yours in this session has that id (it was removed "
                                           "already, or never registered)",
                              message=("problem.NOT_FOUND.detail.webhook", {}))
            new = msgspec.structs.replace(table, webhooks=kept)
            return Plan(Change(state=seen.record.state, table=new), lambda made: made.version, follow=False)

        version = await self.changes.run(session_id, drop, caller.record)
        await self.changes.store.save_hook_states(session_id, {}, [webhook_id])
        return version
