"""Behind a proxy: the rate limiter counts the client that the proxy forwards (``X-Forwarded-For``) only when
the connection comes from a trusted proxy (``FORWARDED_ALLOW_IPS``), and then the client the proxy itself saw,
not whatever the client wrote into the header. Against the Dockerfile's own command line, in real server
processes; the test's connections come from 127.0.0.1, which plays the proxy."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from .served import Server, dockerfile_command

LIMIT = 3


@pytest.fixture(scope="module")
def behind_trusted_proxy() -> Iterator[Server]:
    server = Server({"RATE_LIMIT_PER_MINUTE": str(LIMIT), "FORWARDED_ALLOW_IPS": "127.0.0.1"},
                    dockerfile_command())
    yield server
    server.stop()


@pytest.fixture(scope="module")
def proxy_not_trusted() -> Iterator[Server]:
    server = Server({"RATE_LIMIT_PER_MINUTE": str(LIMIT), "FORWARDED_ALLOW_IPS": "192.0.2.10,198.51.100.0/24"},
                    dockerfile_command())
    yield server
    server.stop()


def _statuses(server: Server, forwarded: list[str | None]) -> list[int]:
    out = []
    with httpx.Client(base_url=server.url, timeout=10) as client:
        for value in forwarded:
            headers = {} if value is None else {"X-Forwarded-For": value}
            out.append(client.get("/v1/rules", headers=headers).status_code)
    return out


def test_from_a_trusted_proxy_each_forwarded_client_has_its_own_budget(behind_trusted_proxy: Server) -> None:
    one = ["203.0.113.1"] * (LIMIT + 1)
    assert _statuses(behind_trusted_proxy, one) == [200] * LIMIT + [429]
    # Another client behind the same proxy is not held up by the first.
    assert _statuses(behind_trusted_proxy, ["203.0.113.2"] * LIMIT) == [200] * LIMIT


def test_a_client_cannot_mint_budgets_by_writing_the_header_itself(behind_trusted_proxy: Server) -> None:
    """The proxy appends the address it saw; what the client sent stands to its left and is not believed."""
    spoofed = [f"10.0.0.{i}, 203.0.113.7" for i in range(LIMIT + 1)]
    assert _statuses(behind_trusted_proxy, spoofed) == [200] * LIMIT + [429]


def test_from_an_untrusted_peer_the_header_is_ignored(proxy_not_trusted: Server) -> None:
    """Every request counts against the connecting address, whatever it claims to forward."""
    claims: list[str | None] = [f"203.0.113.{i}" for i in range(LIMIT)] + [None]
    assert _statuses(proxy_not_trusted, claims) == [200] * LIMIT + [429]
