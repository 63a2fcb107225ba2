"""Where the service's own requests may go (service/ops/egress.py): the operator's allow-list, https, and never a
private, loopback, link-local, shared or reserved address unless the operator allows private networks; and the
Poster connects to the very address it checked."""

from __future__ import annotations

import asyncio

import pytest

from service.ops.egress import EgressPolicy, Poster, PostFailed

ANY = EgressPolicy(hosts=("*",))


@pytest.mark.parametrize("url", [
    "https://127.0.0.1/hook", "https://[::1]/hook", "https://10.0.0.8/hook", "https://172.16.4.4/hook",
    "https://192.168.1.10/hook", "https://169.254.169.254/latest/meta-data", "https://100.64.0.1/hook",
    "https://0.0.0.0/hook", "https://[fc00::1]/hook", "https://[fe80::1]/hook", "https://[::ffff:127.0.0.1]/hook",
    "https://224.0.0.1/hook", "https://240.0.0.1/hook",
])
def test_private_loopback_link_local_and_reserved_addresses_are_refused(url: str) -> None:
    assert ANY.refusal(url) is not None
    assert EgressPolicy(hosts=("*",), allow_private=True).refusal(url) is None or "224." in url or "240." in url


@pytest.mark.parametrize(("policy", "url", "why"), [
    (EgressPolicy(), "https://hooks.example.com/", "WEBHOOK_HOSTS"),
    (EgressPolicy(hosts=("hooks.example.com",)), "https://evil.example.com/", "WEBHOOK_HOSTS"),
    (EgressPolicy(hosts=("*.example.com",)), "https://example.com.evil.org/", "WEBHOOK_HOSTS"),
    (EgressPolicy(hosts=("*",)), "http://hooks.example.com/", "https"),
    (EgressPolicy(hosts=("*",)), "https://user:pw@hooks.example.com/", "user"),
    (EgressPolicy(hosts=("*",)), "ftp://hooks.example.com/", "https"),
    (EgressPolicy(hosts=("*",)), "https://hooks.example.com:0/", "port"),
    (EgressPolicy(hosts=("*",)), "https://" + "a" * 2050 + ".com/", "2048"),
])
def test_urls_the_operator_did_not_allow_are_refused_by_name(policy: EgressPolicy, url: str, why: str) -> None:
    refusal = policy.refusal(url)
    assert refusal is not None and why in refusal, refusal


def test_allowed_urls_pass() -> None:
    assert EgressPolicy(hosts=("*.example.com",)).refusal("https://a.b.example.com:8443/x?y=1") is None
    assert EgressPolicy(hosts=("hooks.example.com",)).refusal("https://HOOKS.example.com./x") is None
    assert EgressPolicy(hosts=("*",), allow_http=True).refusal("http://8.8.8.8/hook") is None


async def test_a_name_that_resolves_to_a_private_address_is_refused_when_posted_to() -> None:
    """``localhost`` is a name on the list that resolves to loopback: refused before any connection."""
    poster = Poster(EgressPolicy(hosts=("localhost",), allow_http=True), timeout=2)
    with pytest.raises(PostFailed, match="private, loopback"):
        await poster.post("http://localhost:9/hook", b"{}", {})
    assert await EgressPolicy(hosts=("localhost",)).resolved_refusal("https://localhost/hook") is not None


async def test_the_poster_answers_status_and_body_and_keeps_the_connection() -> None:
    connections = 0

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length")))
            body = await reader.readexactly(length)
            answer = b'{"echo": ' + body + b"}"
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n%s" % (len(answer), answer))
            await writer.drain()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    poster = Poster(EgressPolicy(hosts=("127.0.0.1",), allow_http=True, allow_private=True), timeout=2)
    try:
        for i in range(3):
            status, body = await poster.post(f"http://127.0.0.1:{port}/hook", b"%d" % i, {"x-test": "1"})
            assert (status, body) == (200, b'{"echo": %d}' % i)
        assert connections == 1  # kept alive
    finally:
        await poster.close()
        server.close()
