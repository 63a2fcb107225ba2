"""What the languages cost per request: negotiation, the Content-Language/Vary labelling, wording a refusal.

    .venv/bin/python tests/bench/bench_i18n.py

Prints microseconds per call, each figure the best of five runs; the middleware figure is the difference
between a trivial ASGI app with and without :class:`service.i18n.LanguageMiddleware`, measured side by side.

Current figures, each with its command, machine and engine: docs/BENCHMARKS.md.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from service.i18n import LanguageMiddleware, rejection_text  # noqa: E402
from service.i18n.negotiation import negotiate  # noqa: E402

BROWSER = "hr-HR,hr;q=0.9,en-US;q=0.8,en;q=0.7"
HEADERS = [(b"host", b"x"), (b"content-type", b"application/json"), (b"accept-language", BROWSER.encode())]


def best(fn: Callable[[], Any], number: int) -> float:
    times = []
    for _ in range(5):
        start = time.perf_counter()
        for _ in range(number):
            fn()
        times.append((time.perf_counter() - start) / number)
    return min(times) * 1e6


async def _app(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": b"{}"})


async def _noop_send(message: Any) -> None:
    return None


def _asgi_per_request(app: Any, number: int = 20_000) -> float:
    """Microseconds per request of ``app``, ``number`` requests in one event-loop run (best of five)."""

    async def many() -> None:
        for _ in range(number):
            await app({"type": "http", "headers": HEADERS, "query_string": b""}, None, _noop_send)

    times = []
    for _ in range(5):
        start = time.perf_counter()
        asyncio.run(many())
        times.append((time.perf_counter() - start) / number)
    return min(times) * 1e6


def main() -> None:
    print(f"negotiate, a browser header, uncached: {best(lambda: negotiate.__wrapped__(BROWSER), 20_000):7.2f} µs")
    print(f"negotiate, a browser header, cached:   {best(lambda: negotiate(BROWSER), 200_000):7.2f} µs")
    plain, wrapped = _asgi_per_request(_app), _asgi_per_request(LanguageMiddleware(_app))
    print(f"trivial ASGI request: {plain:.2f} µs bare, {wrapped:.2f} µs with LanguageMiddleware "
          f"(+{wrapped - plain:.2f} µs)")
    params = {"seat": 1, "suit": "H", "cards": ["4H", "QH", "JD"]}
    for language in ("fil", "su", "sq", "th", "hr"):
        cost = best(lambda language=language: rejection_text(language, "MUST_FOLLOW_SUIT", "", params), 5_000)
        print(f"MUST_FOLLOW_SUIT worded in {language}: {cost:7.2f} µs")


if __name__ == "__main__":
    main()
