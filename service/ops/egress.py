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

The name is checked when a webhook is registered and resolved again before every delivery (an answer that
changed since to a private address is refused then). A name that resolves differently between that check and
the connection (DNS rebinding within one delivery) is not caught here: an operator who fears it names hosts it
controls in ``WEBHOOK_HOSTS``.

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
import urllib.parse
from dataclasses import dataclass

__all__ = ["EgressPolicy", "MAX_URL"]

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
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname or ""
        if _address(host) is not None:
            return None
        try:
            infos = await asyncio.get_running_loop().getaddrinfo(host, parts.port or 443, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError):
            return f"the host {host} does not resolve"
        for info in infos:
            address = _address(str(info[4][0]))
            if address is None or not self._reachable(address):
                return f"the host {host} resolves to a private, loopback, link-local or reserved address"
        return None


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host.strip("[]").split("%")[0])
    except ValueError:
        return None
