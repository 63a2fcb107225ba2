"""The webhook deliverer: each replica's one asyncio task that POSTs the sessions' events to their webhooks.

The outbox is the session's own event log, in the store: a webhook's deliveries are a cursor into it (its
:class:`~service.sessions.webhooks.HookState`, kept beside the session), never a queue in a process. Which
sessions have something to deliver is the store's webhook index (:meth:`~.store.SessionStore.claim_hooks`),
claimed as the clock sweeper claims deadlines: a change of a session with webhooks marks its entry due (the
replica that made the change also wakes its own deliverer at once), and each pass claims the due entries for
``claim_seconds``, so one replica at a time works a session, in the log's order. A replica that dies holding a
claim delays that session's deliveries by the claim's length; the next replica sends again what the dead one
may have sent without saving its cursor: at least once, each message with the same ``webhook-id``. While a
session's game goes on its entry stays in the index (``backstop_seconds`` ahead), so that an entry a change
failed to mark is still found.

A delivery is one signed POST per event (Standard Webhooks: ``webhook-id``, ``webhook-timestamp``,
``webhook-signature``, HMAC-SHA256 with the webhook's secret), answered by any 2xx within ``timeout_seconds``;
anything else (another status, a redirect, a timeout, an address the policy refuses) is retried with a doubling
backoff up to ``max_backoff_seconds``, the later events waiting behind it (in order). A webhook that has failed for
``retry_seconds`` is disabled: removed from the session, with a ``webhook_disabled`` event in the log and the
``webhooks_disabled_total`` metric, and the events it never got are counted there. Deliveries never hold up a
move: they run here, off the requests' path, at most ``concurrency`` sessions at a time per replica.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import msgspec
from standardwebhooks import Webhook as Signer

from engine import player_to_act
from service.ops.egress import EgressPolicy, Poster, PostFailed
from service.sessions.changes import Changes, Done, Plan, Seen
from service.sessions.clock import deadline_text
from service.sessions.log import LogEntry, WebhookDisabled
from service.sessions.problems import SessionBusy, SessionGone
from service.sessions.schemas import BotTurnMessage, ClockLow, WebhookData, WebhookMessage
from service.sessions.store import EVENTS_PER_READ, Change, LoggedEvent, SessionRecord, StoreUnavailable
from service.sessions.streams import shown
from service.sessions.table import Webhook
from service.sessions.webhooks import AFTER_VERSION, STATE_DECODER, STATE_ENCODER, HookState
from service.version import __version__

logger = logging.getLogger("fivehundred.webhooks")

#: Sessions one pass claims at most (and at most the free delivery slots).
CLAIM_BATCH = 16
#: The most events one pass delivers to one webhook (then the session is due again at once).
EVENTS_PER_PASS = 200
_ENCODER = msgspec.json.Encoder()
_USER_AGENT = f"five-hundred-referee/{__version__} (webhooks)"


class BotTurns(Protocol):
    """What the deliverer asks of the sessions' service for an outside bot's seat."""

    def turn(self, session_id: str, webhook_id: str, record: SessionRecord, seat: int) -> BotTurnMessage:
        """The ``session.turn`` message of ``seat``'s turn in ``record``."""
        ...

    async def answer(self, session_id: str, token: str, version: int, answer: bytes) -> str | None:
        """Make the move in a bot's ``answer`` with the seat's ``token``, at ``version`` only; ``None`` when it
        was made, else the refusal's code and detail."""
        ...


@runtime_checkable
class WebhookMetrics(Protocol):
    def webhook_delivered(self) -> None: ...

    def webhook_failed(self) -> None: ...

    def webhook_disabled(self) -> None: ...


@dataclass(frozen=True)
class WebhookSettings:
    """How this replica delivers (``WEBHOOK_*`` settings; deploy/CONFIGURATION.md)."""

    timeout_seconds: float = 5.0
    #: How long a failing webhook is retried before it is disabled.
    retry_seconds: float = 3600.0
    max_backoff_seconds: float = 300.0
    first_backoff_seconds: float = 1.0
    #: Sessions delivered to at once by this replica.
    concurrency: int = 16
    poll_seconds: float = 0.5
    claim_seconds: float = 30.0
    backstop_seconds: float = 30.0
    #: The ``clock_low`` notice, this long before the deadline of a turn at least twice as long (0: none).
    clock_low_seconds: float = 10.0
    #: The largest message sent (an event is far smaller).
    max_payload_bytes: int = 65_536
    #: How long a pass waits once a change woke it, for the changes that follow at once (the bots').
    linger_seconds: float = 0.01


class WebhookDeliverer:
    """Delivers the webhooks of the sessions in one store."""

    def __init__(self, changes: Changes, policy: EgressPolicy, settings: WebhookSettings | None = None,
                 metrics: WebhookMetrics | None = None, now_ms: Callable[[], int] | None = None) -> None:
        self.changes = changes
        self.policy = policy
        self.settings = settings or WebhookSettings()
        self.metrics = metrics
        self.now_ms = now_ms or changes.clock.now_ms
        self._wakeup = asyncio.Event()
        self._slots = asyncio.Semaphore(self.settings.concurrency)
        #: The replica's one HTTP client for webhooks: kept-alive connections, each to the address the policy
        #: checked.
        self.poster = Poster(policy, timeout=self.settings.timeout_seconds)
        #: The outside bots' turns: their messages, and their answers made into moves (the sessions' service
        #: sets it, :class:`BotTurns`).
        self.turns: BotTurns | None = None
        #: Deliveries this replica made (for tests and logs).
        self.delivered = 0
        self.running = False

    def wake(self, session_id: str = "") -> None:
        """Something is due now (a change of a session with webhooks, made on this replica)."""
        self._wakeup.set()

    async def close(self) -> None:
        await self.poster.close()

    async def run(self, stopping: asyncio.Event) -> None:
        """Deliver until ``stopping`` is set; a store outage only delays the next pass."""
        self.running = True
        try:
            while not stopping.is_set():
                self._wakeup.clear()
                delay = self.settings.poll_seconds
                try:
                    delay = await self.sweep()
                except StoreUnavailable:
                    pass
                except Exception:  # a defect must not stop every session's webhooks
                    logger.exception("webhook pass failed")
                waits = [asyncio.ensure_future(stopping.wait()), asyncio.ensure_future(self._wakeup.wait())]
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait(waits, timeout=delay, return_when=asyncio.FIRST_COMPLETED)
                for w in waits:
                    w.cancel()
                if self._wakeup.is_set() and not stopping.is_set():
                    # A change woke it: the bot moves that follow a move come within milliseconds, and one pass
                    # then delivers them all (a pass costs a few store round trips whatever it sends).
                    await asyncio.sleep(self.settings.linger_seconds)
        finally:
            self.running = False
            await self.close()

    async def sweep(self) -> float:
        """One pass: claim the due sessions and deliver; answers how long to wait for the next."""
        settings = self.settings
        now = self.now_ms()
        free = max(1, min(CLAIM_BATCH, settings.concurrency))
        due, earliest = await self.changes.store.claim_hooks(now, now + round(settings.claim_seconds * 1000), free)
        if due:
            await asyncio.gather(*(self._held(session_id, claimed) for session_id, claimed in due))
        if len(due) >= free:
            return 0.0
        if earliest is None:
            return settings.poll_seconds
        return min(settings.poll_seconds, max(0.0, (earliest - self.now_ms()) / 1000))

    async def _held(self, session_id: str, claimed: int) -> None:
        async with self._slots:
            try:
                next_ms = await self.deliver(session_id, claimed)
            except StoreUnavailable:
                logger.warning("webhooks of session %s left for a later pass: the store failed", session_id[:8])
                return
            with contextlib.suppress(StoreUnavailable):
                await self.changes.store.settle_hooks(session_id, claimed, next_ms)

    async def deliver(self, session_id: str, claimed: int) -> int | None:
        """Deliver what is due of one claimed session; answers when it is next due (``None``: never, until a
        change marks it)."""
        store = self.changes.store
        loaded = await store.load(session_id)
        if loaded is None:
            return None
        record = loaded.record
        hooks = record.settings.webhooks
        if not hooks:
            return None
        deadline = time.monotonic() + self.settings.claim_seconds / 2  # leave the rest of the claim unused
        raw = await store.hook_states(session_id)
        states = {h.id: STATE_DECODER.decode(raw[h.id]) if h.id in raw else HookState((h.since, AFTER_VERSION))
                  for h in hooks}
        next_due: list[int] = []
        kept: dict[str, bytes] = {}

        async def one(hook: Webhook) -> bool | None:
            """One webhook's deliveries (each webhook in order, the session's webhooks side by side)."""
            if hook.seat is not None and record.seats.token_hash(hook.seat) != hook.holder:
                await self._disable(session_id, hook, "seat_changed_hands", 0)
                return None
            state = states[hook.id]
            done: bool | None
            if hook.bot:
                done = await self._ask_bot(session_id, record, hook, state)
            else:
                done = await self._deliver_hook(session_id, record, hook, state, deadline)
            if done is None:
                return None  # disabled: its state is gone with it
            kept[hook.id] = STATE_ENCODER.encode(state)
            if state.next_at:
                next_due.append(state.next_at)
            low = None if hook.bot else self._low_at(record, state)
            if low is not None:
                next_due.append(low)
            return done

        done = await asyncio.gather(*(one(hook) for hook in hooks))
        await store.save_hook_states(session_id, kept)  # what was sent stays sent, whatever comes next
        now = self.now_ms()
        if False in done:
            return now  # the claim's time is up: due again at once, from where this pass got to
        if record.state.phase != "game_over" and record.settings.ended is None:
            next_due.append(now + round(self.settings.backstop_seconds * 1000))
        return min(next_due) if next_due else None

    async def _deliver_hook(self, session_id: str, record: SessionRecord, hook: Webhook, state: HookState,
                            deadline: float) -> bool | None:
        """Deliver ``hook``'s events after its cursor up to ``record``'s version, in order, updating ``state``;
        ``False`` when the claim's time ran out first, ``None`` when it was disabled."""
        now = self.now_ms()
        if state.next_at > now:
            return True
        sent = 0
        while sent < EVENTS_PER_PASS:
            batch = await self.changes.store.read_events(session_id, state.cursor, 0)
            for e in batch:
                if e.version > record.version:
                    # Logged after the record this pass checked (who holds the seat, which webhooks there are):
                    # the next pass, which that change marked due, sends it.
                    return True
                if time.monotonic() > deadline:
                    return False
                if hook.events and _type(e) not in hook.events:
                    state.cursor = (e.version, e.seq)
                    continue
                to_act = None if e.to_act is not None and e.to_act < 0 else e.to_act
                ok = await self._post(session_id, hook, f"{e.version}-{e.seq}", e.version, shown(e, hook.seat),
                                      to_act, e.deadline)
                if not ok:
                    return await self._failed(session_id, hook, state)
                state.cursor, state.attempts, state.failing_since, state.next_at = (e.version, e.seq), 0, 0, 0
                sent += 1
            if len(batch) < EVENTS_PER_READ:
                break  # the end of the log when it was read
        low = self._low_at(record, state)
        if low is not None and low <= now and (not hook.events or "clock_low" in hook.events):
            clock = record.clock
            assert clock is not None and clock.seat is not None and clock.deadline is not None
            notice = ClockLow(seat=clock.seat, deadline=deadline_text(clock.deadline) or "")
            if not await self._post(session_id, hook, f"{record.version}-low", record.version, notice, clock.seat,
                                    clock.deadline):
                return await self._failed(session_id, hook, state)
            state.low_version = record.version
        return True

    async def _ask_bot(self, session_id: str, record: SessionRecord, hook: Webhook, state: HookState) -> bool:
        """An outside bot's seat to act in ``record`` (and not asked yet): ask its URL for the move, and make the
        move it answers, for that very version (``If-Match``). A bot that does not answer, answers late or
        wrongly changes nothing: the turn clock moves for its seat, as for a player's."""
        seat = hook.seat
        table = record.settings
        if seat is None or state.asked_version >= record.version or player_to_act(record.state) != seat \
                or table.paused or table.waiting or table.ended is not None or self.turns is None:
            return True
        state.asked_version, state.asked = record.version, state.asked + 1
        message = self.turns.turn(session_id, hook.id, record, seat)
        body = _ENCODER.encode(message)
        try:
            status, answer = await self.poster.post(hook.url, body, _signed(hook, message.data.id, body))
        except PostFailed as exc:
            logger.info("outside bot %s of session %s: no answer (%s)", hook.id, session_id[:8], exc)
            state.unanswered += 1
            return True
        if not 200 <= status < 300:
            state.unanswered += 1
            return True
        if status == 202 or not answer.strip():
            return True  # it posts the move itself, with the seat's token
        refusal = await self.turns.answer(session_id, hook.token, record.version, answer)
        if refusal is None:
            state.moved += 1
        elif refusal.startswith(("VERSION_CONFLICT", "MOVE_TIMED_OUT")):
            state.unanswered += 1  # too late: the clock (or the bot's own post) moved first
        else:
            state.refused += 1
            state.last_refusal = refusal[:200]
        return True

    def _low_at(self, record: SessionRecord, state: HookState) -> int | None:
        """When the ``clock_low`` notice of the turn on the clock is due (``None``: none to send)."""
        clock = record.clock
        low_ms = round(self.settings.clock_low_seconds * 1000)
        if not low_ms or clock is None or clock.deadline is None or clock.seat is None \
                or state.low_version == record.version or player_to_act(record.state) is None:
            return None
        if clock.deadline - clock.started < 2 * low_ms:
            return None
        return clock.deadline - low_ms

    async def _failed(self, session_id: str, hook: Webhook, state: HookState) -> bool | None:
        now = self.now_ms()
        state.attempts += 1
        state.failing_since = state.failing_since or now
        if now - state.failing_since >= self.settings.retry_seconds * 1000:
            undelivered = await self._pending(session_id, hook, state)
            await self._disable(session_id, hook, "failing", undelivered)
            return None
        backoff = min(self.settings.max_backoff_seconds,
                      self.settings.first_backoff_seconds * 2 ** min(state.attempts - 1, 30))
        state.next_at = now + round(backoff * 1000)
        return True

    async def _pending(self, session_id: str, hook: Webhook, state: HookState) -> int:
        count, cursor = 0, state.cursor
        while True:
            batch = await self.changes.store.read_events(session_id, cursor, 0)
            if not batch:
                return count
            count += sum(1 for e in batch if not hook.events or _type(e) in hook.events)
            cursor = batch[-1].version, batch[-1].seq

    async def _disable(self, session_id: str, hook: Webhook, reason: str, undelivered: int) -> None:
        """Remove ``hook`` from the session, logging why (``webhook_disabled``)."""

        async def step(seen: Seen) -> Plan[None] | Done[None]:
            table = seen.record.settings
            if all(h.id != hook.id for h in table.webhooks):
                return Done(None)
            new = msgspec.structs.replace(table, webhooks=tuple(h for h in table.webhooks if h.id != hook.id))
            event = WebhookDisabled(webhook_id=hook.id, reason=reason,  # type: ignore[arg-type]
                                    undelivered=undelivered, to_act=seen.record.state.to_act)
            return Plan(Change(state=seen.record.state, events=[event], table=new), lambda _: None, follow=False)

        try:
            await self.changes.run(session_id, step)
        except (SessionGone, SessionBusy):
            return
        await self.changes.store.save_hook_states(session_id, {}, [hook.id])
        if reason == "failing" and self.metrics is not None:
            self.metrics.webhook_disabled()
        logger.info("webhook %s of session %s disabled: %s", hook.id, session_id[:8], reason)

    async def _post(self, session_id: str, hook: Webhook, event_id: str, version: int, event: LogEntry | ClockLow,
                    to_act: int | None, deadline: int | None) -> bool:
        """One signed POST of ``event`` (as ``hook``'s credential may see it); whether it was taken (2xx)."""
        body = _ENCODER.encode(WebhookMessage(
            type=f"session.{_tag(event)}", timestamp=_now_text(),
            data=WebhookData(session_id=session_id, webhook_id=hook.id, id=event_id, version=version,
                             event=event, to_act=to_act, deadline=deadline_text(deadline))))
        if len(body) > self.settings.max_payload_bytes:
            logger.warning("webhook %s: event %s is over the payload bound, passed over", hook.id, event_id)
            return True
        try:
            status, _ = await self.poster.post(hook.url, body, _signed(hook, event_id, body))
            ok = 200 <= status < 300
        except PostFailed as exc:
            logger.info("webhook %s of session %s failed: %s", hook.id, session_id[:8], exc)
            ok = False
        self._count(ok)
        if ok:
            self.delivered += 1
        return ok

    def _count(self, ok: bool) -> None:
        if self.metrics is not None:
            if ok:
                self.metrics.webhook_delivered()
            else:
                self.metrics.webhook_failed()


def _signed(hook: Webhook, event_id: str, body: bytes) -> dict[str, str]:
    """The headers of one message to ``hook``: its ``webhook-id`` (``<webhook id>_<event id>``, the same on every
    retry), the time, and the Standard Webhooks signature of the three under the webhook's secret."""
    message_id = f"{hook.id}_{event_id}"
    moment = datetime.datetime.now(tz=datetime.UTC)
    return {"content-type": "application/json", "user-agent": _USER_AGENT, "webhook-id": message_id,
            "webhook-timestamp": str(int(moment.timestamp())),
            "webhook-signature": Signer(hook.secret).sign(message_id, moment, body)}


def _tag(event: Any) -> str:
    return str(event.__struct_config__.tag)


def _type(e: LoggedEvent) -> str:
    return _tag(e.event)


def _now_text() -> str:
    now = datetime.datetime.now(tz=datetime.UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"
