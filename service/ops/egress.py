"""Where the service may send requests of its own (webhooks): the operator's allow-list, never a private network
unless the operator says so.

A URL a client names is a way into the service's own network (server-side request forgery): a webhook to
``http://127.0.0.1:6379/`` or ``http://169.254.169.254/`` would have the service call its Redis or its cloud's
metadata endpoint. So a webhook's URL must

* use ``https`` (``http`` only with ``WEBHOOK_ALLOW_HTTP``), carry no user or password, and name a host;
* match an entry of ``WEBHOOK_HOSTS`` (the operator's allow-list: ``hooks.example.com``, ``*.example.com`` for
  any name under it, ``*`` for any host at all); with no entry, webhooks are off;
* resolve only to global addresses: loopback, private, link-local, shared, multicast and reserved ranges are
  refused (``WEBHOOK_ALLOW_PRIVATE`` lifts this, for a test bed or a receiver on the operator's own network).

The name is checked when a webhook is registered and resolved again before deliveries (every few seconds at
most, :data:`RESOLVED_SECONDS`); :class:`Poster` then connects to the very address it checked (the name goes in
``Host`` and, over TLS, in SNI and the certificate check), so a name that resolves elsewhere a moment later
(DNS rebinding) changes nothing.

>>> policy = EgressPolicy(hosts=("*.example.com",))
>>> policy.refusal("https://hooks.example.com/five-hundred") is None
True
>>> policy.refusal("http://hooks.example.com/")
'a webhook URL uses https'
>>> policy.refusal("https://example.org/")
'the host example.org is not among the hosts this service sends webhooks to (WEBHOOK_HOSTS)'
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
import time
import urllib.parse
from dataclasses import dataclass, field

__all__ = ["EgressPolicy", "MAX_URL", "PostFailed", "Poster"]

#: The longest webhook URL.
MAX_URL = 2048


@dataclass(frozen=True)
class EgressPolicy:
    """The operator's rules for the service's own requests (``WEBHOOK_*`` settings)."""

    #: Host patterns a URL's host must match: a name, ``*.`` and a domain, or ``*``. Empty: webhooks are off.
    hosts: tuple[str, ...] = ()
    allow_http: bool = False
    allow_private: bool = False

    @property
    def enabled(self) -> bool:
        return bool(self.hosts)

    def refusal(self, url: str) -> str | None:
        """Why ``url`` may not be a webhook's (``None``: it may, as far as its text goes)."""
        if len(url) > MAX_URL:
            return f"a webhook URL is at most {MAX_URL} characters"
        try:
            parts = urllib.parse.urlsplit(url)
            port = parts.port
        except ValueError:
            return "the webhook URL is not a URL"
        allowed = ("https", "http") if self.allow_http else ("https",)
        if parts.scheme not in allowed:
            return "a webhook URL uses https" if not self.allow_http else "a webhook URL uses https or http"
        if parts.username is not None or parts.password is not None:
            return "a webhook URL carries no user or password"
        host = (parts.hostname or "").rstrip(".").lower()
        if not host or parts.fragment:
            return "a webhook URL names a host, and has no fragment"
        if port == 0:
            return "a webhook URL's port is 1 to 65535"
        if not self._listed(host):
            return f"the host {host} is not among the hosts this service sends webhooks to (WEBHOOK_HOSTS)"
        literal = _address(host)
        if literal is not None and not self._reachable(literal):
            return f"the address {host} is in a private, loopback, link-local or reserved range"
        return None

    def _listed(self, host: str) -> bool:
        for pattern in self.hosts:
            if pattern == "*" or host == pattern or (pattern.startswith("*.") and host.endswith(pattern[1:])):
                return True
        return False

    def _reachable(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
        if self.allow_private:
            return True
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        return address.is_global and not address.is_multicast

    async def resolved_refusal(self, url: str) -> str | None:
        """:meth:`refusal`, and every address the URL's host resolves to now must be one the policy allows."""
        refused = self.refusal(url)
        if refused is not None:
            return refused
        return (await self.resolve(url))[0]

    async def resolve(self, url: str) -> tuple[str | None, str]:
        """``(refusal, address)``: why the URL's host may not be reached now (``None``: it may), and the address
        to connect to (the first the host resolves to; every one of them must be allowed)."""
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname or ""
        if _address(host) is not None:
            return None, host.strip("[]")
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(host, parts.port or 443, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError):
            return f"the host {host} does not resolve", ""
        addresses = [str(info[4][0]) for info in infos]
        for text in addresses:
            address = _address(text)
            if address is None or not self._reachable(address):
                return f"the host {host} resolves to a private, loopback, link-local or reserved address", ""
        return (None, addresses[0]) if addresses else (f"the host {host} does not resolve", "")


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]").split("%")[0])
    except ValueError:
        return None


# ------------------------------------------------------------------------------------------------ posting

#: How long a host's checked addresses are used before it is resolved and checked again.
RESOLVED_SECONDS = 10.0
#: The most of an answer's body read (the rest is not read: the connection is closed instead).
MAX_ANSWER_BYTES = 65_536
#: Idle connections kept per host.
IDLE_PER_HOST = 4


class PostFailed(Exception):
    """A POST that got no HTTP answer (refused by the policy, unreachable, timed out, a broken answer)."""


@dataclass
class _Target:
    scheme: str
    host: str
    port: int
    path: bytes
    host_header: bytes


@dataclass
class Poster:
    """POSTs small JSON bodies to URLs the policy allows, over kept-alive HTTP/1.1 connections, each to the address
    the policy checked. One per replica; an answer's status and (up to :data:`MAX_ANSWER_BYTES` of) its body."""

    policy: EgressPolicy
    timeout: float = 5.0
    _resolved: dict[str, tuple[float, str | None, str]] = field(default_factory=dict)
    _idle: dict[tuple[str, str, int, str], list[tuple[asyncio.StreamReader, asyncio.StreamWriter]]] = \
        field(default_factory=dict)
    _tls: ssl.SSLContext | None = None

    async def post(self, url: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
        """``(status, body)`` of one POST of ``body`` to ``url``; :class:`PostFailed` without an answer."""
        refused = self.policy.refusal(url)
        if refused is not None:
            raise PostFailed(refused)
        target = _target(url)
        address = await self._address(url, target.host)
        head = [b"POST ", target.path, b" HTTP/1.1\r\nhost: ", target.host_header,
                b"\r\ncontent-length: %d\r\nconnection: keep-alive\r\n" % len(body)]
        for name, value in headers.items():
            head += [name.encode("latin-1"), b": ", value.encode("latin-1"), b"\r\n"]
        request = b"".join(head) + b"\r\n" + body
        key = (target.scheme, target.host, target.port, address)
        try:
            async with asyncio.timeout(self.timeout):
                pooled = self._take(key)
                if pooled is not None:
                    try:
                        return await self._exchange(key, pooled, request)
                    except (OSError, asyncio.IncompleteReadError, PostFailed):
                        pass  # a kept connection the receiver had closed: once more on a new one
                return await self._exchange(key, await self._connect(target, address), request)
        except TimeoutError:
            raise PostFailed("timed out") from None
        except (OSError, asyncio.IncompleteReadError, ValueError) as exc:
            raise PostFailed(type(exc).__name__) from None

    async def close(self) -> None:
        for connections in self._idle.values():
            for _, writer in connections:
                writer.close()
        self._idle.clear()

    async def _address(self, url: str, host: str) -> str:
        now = time.monotonic()
        known = self._resolved.get(host)
        if known is None or now - known[0] > RESOLVED_SECONDS:
            refused, address = await self.policy.resolve(url)
            known = self._resolved[host] = (now, refused, address)
            if len(self._resolved) > 4096:
                self._resolved = {h: v for h, v in self._resolved.items() if now - v[0] <= RESOLVED_SECONDS}
        if known[1] is not None:
            raise PostFailed(known[1])
        return known[2]

    def _take(self, key: tuple[str, str, int, str]) -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        idle = self._idle.get(key)
        while idle:
            reader, writer = idle.pop()
            if not writer.is_closing() and not reader.at_eof():
                return reader, writer
            writer.close()
        return None

    async def _connect(self, target: _Target, address: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if target.scheme == "https":
            if self._tls is None:
                self._tls = ssl.create_default_context()
            return await asyncio.open_connection(address, target.port, ssl=self._tls, server_hostname=target.host)
        return await asyncio.open_connection(address, target.port)

    async def _exchange(self, key: tuple[str, str, int, str],
                        connection: tuple[asyncio.StreamReader, asyncio.StreamWriter],
                        request: bytes) -> tuple[int, bytes]:
        reader, writer = connection
        keep = False
        try:
            writer.write(request)
            await writer.drain()
            status, keep, answer = await _read_answer(reader)
            return status, answer
        finally:
            if keep and len(self._idle.setdefault(key, [])) < IDLE_PER_HOST:
                self._idle[key].append(connection)
            else:
                writer.close()


def _target(url: str) -> _Target:
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    port = parts.port or (443 if parts.scheme == "https" else 80)
    default = (parts.scheme, port) in (("https", 443), ("http", 80))
    shown = f"[{host}]" if ":" in host else host
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return _Target(parts.scheme, host, port, path.encode("ascii", "strict"),
                   (shown if default else f"{shown}:{port}").encode("ascii"))


async def _read_answer(reader: asyncio.StreamReader) -> tuple[int, bool, bytes]:
    """An HTTP/1.1 answer: its status, whether the connection may be kept, and (up to a bound) its body."""
    line = await reader.readuntil(b"\r\n")
    parts = line.split(b" ", 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
        raise PostFailed("not an HTTP answer")
    status = int(parts[1])
    length: int | None = None
    chunked = False
    keep = parts[0] == b"HTTP/1.1"
    for _ in range(100):
        header = await reader.readuntil(b"\r\n")
        if header == b"\r\n":
            break
        name, _, value = header.partition(b":")
        name, value = name.strip().lower(), value.strip().lower()
        if name == b"content-length" and value.isdigit():
            length = int(value)
        elif name == b"transfer-encoding" and b"chunked" in value:
            chunked = True
        elif name == b"connection":
            keep = value == b"keep-alive" or (keep and value != b"close")
    else:
        raise PostFailed("too many answer headers")
    if status in (204, 304) or 100 <= status < 200:
        return status, keep, b""
    if chunked:
        out = bytearray()
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while await reader.readuntil(b"\r\n") != b"\r\n":
                    pass
                return status, keep and len(out) <= MAX_ANSWER_BYTES, bytes(out[:MAX_ANSWER_BYTES])
            if len(out) + size > MAX_ANSWER_BYTES:
                return status, False, bytes(out)  # too long: not read further (the connection is closed)
            out += await reader.readexactly(size)
            await reader.readexactly(2)
    if length is not None:
        if length > MAX_ANSWER_BYTES:
            return status, False, b""
        return status, keep, await reader.readexactly(length)
    return status, False, await reader.read(MAX_ANSWER_BYTES)  # until the receiver closes
