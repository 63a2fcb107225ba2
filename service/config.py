"""All configuration comes from environment variables, validated at start with a clear message.

deploy/CONFIGURATION.md is the one table of the variables (name, default, meaning), checked against this module
by tests/deploy/test_configuration.py.

``REDIS_URL`` names one Redis (``redis://``, ``rediss://``, ``unix://``) or a Redis Cluster:
``redis+cluster://[user:password@]host:port[,host:port…]`` (``rediss+cluster://`` with TLS), any of its nodes
(several, so that starting does not depend on one); the client finds the others and follows failovers.

The four bounds on session creation keep a flood of cheap creations (each session is kept for
``SESSION_IDLE_SECONDS``) from filling the store: with the defaults a Redis of 400 MB (about 80,000 sessions
of 5 KB) cannot be filled by creations faster than in four hours, and creation stops at 80 % of it anyway,
while moves in existing sessions go on. Constructed in code, :class:`Settings` leaves them off (0), as tests
and benchmarks want; the environment's defaults, which the served configuration reads, turn them on.

The search bounds (``SEARCH_WORKERS``, ``SEARCH_CONCURRENCY``, ``SEARCH_PLAYOUTS_PER_MINUTE`` and the rest; see
:mod:`service.referee.search`) are the same: off in code (searches in threads, unbounded), on from the environment.

The server's own limits (``HEADER_TIMEOUT_SECONDS`` and the rest) are read by :func:`load_serving_limits`, for
the protocol the served configuration runs (:mod:`service.ops.serving`).
"""

from __future__ import annotations

import base64
import binascii
import os
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field

from bots import MAX_BUDGET

DEFAULT_SESSION_CREATE_PER_MINUTE = 30
DEFAULT_SESSION_CREATE_TOTAL_PER_MINUTE = 300
DEFAULT_SESSION_STORE_MAX_FILL = 80
DEFAULT_MEMORY_MAX_SESSIONS = 10_000
#: Search bounds (service/referee/search.py) the environment's defaults turn on.
DEFAULT_SEARCH_WORKERS = 2
DEFAULT_BOT_WORKERS = 1
DEFAULT_SEARCH_CONCURRENCY = 2
DEFAULT_SEARCH_QUEUE = 8
DEFAULT_SEARCH_WORKER_NICE = 10
DEFAULT_SEARCH_PLAYOUTS_PER_MINUTE = 20_000
DEFAULT_SEARCH_REFUSAL_HOLD_SECONDS = 5.0


class ConfigError(ValueError):
    """A bad environment variable; the message names it and says what is expected."""


@dataclass(frozen=True)
class Settings:
    redis_url: str | None = None
    #: On a Redis Cluster, publish changes with ``SPUBLISH`` and follow them per shard (Redis 7); off: ``PUBLISH``
    #: (every node carries every message), for a Redis 6.2 cluster.
    redis_sharded_pubsub: bool = True
    snapshot_keys: tuple[bytes, ...] = ()
    api_keys: tuple[str, ...] = ()
    rate_limit_per_minute: int = 0
    cors_origins: tuple[str, ...] = ()
    session_idle_seconds: int = 86_400
    max_body_bytes: int = 65_536
    log_level: str = "INFO"
    shutdown_grace_seconds: float = 10.0
    demo_enabled: bool = True
    #: Whether the stateless API is served (``/v1/games/*`` and ``/v1/records/verify``); off on a replica that
    #: players' browsers reach: whoever holds a snapshot opens every hand, and verify deals a seed's hands.
    stateless_api: bool = True
    #: Bounds on session creation (0: off). :func:`load_settings` defaults them to the ``DEFAULT_`` values.
    session_create_per_minute: int = 0
    session_create_total_per_minute: int = 0
    session_store_max_fill: int = 0
    memory_max_sessions: int = 0
    #: Turn clocks (service/sessions/clock.py): the least move time, the sweeper's pace, a claim's length.
    clock_min_move_seconds: float = 1.0
    clock_poll_seconds: float = 0.1
    clock_claim_seconds: float = 2.0
    #: Search bounds (service/referee/search.py; 0: off, searches in threads of the serving process).
    #: :func:`load_settings` defaults them to the ``DEFAULT_SEARCH_`` values.
    search_workers: int = 0
    bot_workers: int = 0
    search_concurrency: int = 0
    search_queue: int = 0
    search_worker_nice: int = 0
    search_playouts_per_minute: int = 0
    #: The longest a search refusal to a client that did not wait out its last ``Retry-After`` is held.
    search_refusal_hold_seconds: float = 0.0
    #: Webhooks (service/sessions/webhooks.py, service/ops/egress.py): the hosts they may go to (none: off),
    #: whether plain http and private addresses are allowed, and how they are delivered.
    webhook_hosts: tuple[str, ...] = ()
    webhook_allow_http: bool = False
    webhook_allow_private: bool = False
    webhook_timeout_seconds: float = 5.0
    webhook_retry_seconds: float = 3600.0
    webhook_concurrency: int = 16
    webhook_poll_seconds: float = 0.5
    webhook_claim_seconds: float = 30.0
    webhook_clock_low_seconds: float = 10.0
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def keys_generated(self) -> bool:
        return not self.snapshot_keys


def _int(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be an integer, got {raw!r}") from None
    if not low <= value <= high:
        raise ConfigError(f"{name} must be between {low} and {high}, got {value}")
    return value


def _flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = env.get(name, "").strip().lower()
    if raw in ("", "true", "false", "1", "0", "yes", "no", "on", "off"):
        return default if raw == "" else raw in ("true", "1", "yes", "on")
    raise ConfigError(f"{name} must be true or false, got {raw!r}")


def _list(env: Mapping[str, str], name: str) -> tuple[str, ...]:
    return tuple(x.strip() for x in env.get(name, "").split(",") if x.strip())


def _key(text: str, i: int) -> bytes:
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise ConfigError(f"SNAPSHOT_KEYS entry {i + 1} is not base64url") from None
    if len(raw) != 32:
        raise ConfigError(f"SNAPSHOT_KEYS entry {i + 1} must decode to 32 bytes, got {len(raw)}")
    return raw


def _origins(env: Mapping[str, str]) -> tuple[str, ...]:
    """``CORS_ORIGINS``: ``*``, or origins as browsers send them (``scheme://host[:port]``, no path); a trailing
    slash is removed (``https://play.example/`` is the origin ``https://play.example``), anything else with a
    path, query or fragment is refused, since it could never match a browser's ``Origin`` header."""
    out: list[str] = []
    for raw in _list(env, "CORS_ORIGINS"):
        origin = raw.rstrip("/") if raw != "*" else raw
        if origin != "*":
            parts = urllib.parse.urlsplit(origin)
            if (parts.scheme not in ("http", "https") or not parts.netloc or parts.path or parts.query
                    or parts.fragment or "@" in parts.netloc):
                raise ConfigError(f"CORS_ORIGINS entry {raw!r} is not an origin: use scheme://host[:port] "
                                  "(e.g. https://play.example) or *")
            origin = f"{parts.scheme}://{parts.netloc.lower()}"
        if origin not in out:
            out.append(origin)
    return tuple(out)


def _api_keys(env: Mapping[str, str]) -> tuple[str, ...]:
    """``API_KEYS``: unset or empty turns keys off; set to only separators and blanks (``" , ,"``) is refused,
    since it would silently turn keys off when keys were meant."""
    raw = env.get("API_KEYS")
    keys = _list(env, "API_KEYS")
    if raw is not None and raw.strip() and not keys:
        raise ConfigError("API_KEYS holds no key (only commas and blanks): give comma-separated keys, or leave it "
                          "unset to turn API keys off")
    return keys


def _cluster_url(url: str) -> None:
    """A cluster URL names its nodes as ``host:port``, comma-separated, and no database but 0."""
    parts = urllib.parse.urlsplit(url)
    hosts = parts.netloc.rpartition("@")[2]
    for item in hosts.split(","):
        host, _, port = item.strip().rpartition(":")
        if not host or not port.isdigit():
            raise ConfigError(f"REDIS_URL: cluster node {item.strip()!r} is not host:port (e.g. "
                              "redis+cluster://10.0.0.5:6379,10.0.0.6:6379)")
    if parts.path not in ("", "/", "/0"):
        raise ConfigError("REDIS_URL: a Redis Cluster has database 0 only")


def load_settings(env: Mapping[str, str] | None = None) -> Settings:
    """Read and validate the configuration (``os.environ`` by default)."""
    env = os.environ if env is None else env
    redis_url = env.get("REDIS_URL") or None
    if redis_url is not None and not redis_url.startswith(("redis://", "rediss://", "unix://", "redis+cluster://",
                                                           "rediss+cluster://")):
        raise ConfigError("REDIS_URL must start with redis://, rediss:// or unix:// (one Redis), or "
                          f"redis+cluster:// or rediss+cluster:// (a Redis Cluster), got {redis_url[:20]!r}…")
    if redis_url is not None and redis_url.startswith(("redis+cluster://", "rediss+cluster://")):
        _cluster_url(redis_url)
    keys = tuple(_key(k, i) for i, k in enumerate(_list(env, "SNAPSHOT_KEYS")))
    level = env.get("LOG_LEVEL", "INFO").upper()
    if level not in ("DEBUG", "INFO", "WARNING", "ERROR"):
        raise ConfigError(f"LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR, got {level!r}")
    grace_raw = env.get("SHUTDOWN_GRACE_SECONDS", "10")
    try:
        grace = float(grace_raw)
    except ValueError:
        raise ConfigError(f"SHUTDOWN_GRACE_SECONDS must be a number, got {grace_raw!r}") from None
    if not 0 <= grace <= 600:
        raise ConfigError("SHUTDOWN_GRACE_SECONDS must be between 0 and 600")
    return Settings(
        redis_url=redis_url,
        snapshot_keys=keys,
        api_keys=_api_keys(env),
        rate_limit_per_minute=_int(env, "RATE_LIMIT_PER_MINUTE", 0, 0, 1_000_000),
        cors_origins=_origins(env),
        session_idle_seconds=_int(env, "SESSION_IDLE_SECONDS", 86_400, 1, 30 * 86_400),
        max_body_bytes=_int(env, "MAX_BODY_BYTES", 65_536, 1_024, 16 * 1024 * 1024),
        log_level=level,
        shutdown_grace_seconds=grace,
        demo_enabled=_flag(env, "DEMO_ENABLED", True),
        stateless_api=_flag(env, "STATELESS_API", True),
        session_create_per_minute=_int(env, "SESSION_CREATE_PER_MINUTE", DEFAULT_SESSION_CREATE_PER_MINUTE, 0,
                                       1_000_000),
        session_create_total_per_minute=_int(env, "SESSION_CREATE_TOTAL_PER_MINUTE",
                                             DEFAULT_SESSION_CREATE_TOTAL_PER_MINUTE, 0, 10_000_000),
        session_store_max_fill=_int(env, "SESSION_STORE_MAX_FILL", DEFAULT_SESSION_STORE_MAX_FILL, 0, 100),
        memory_max_sessions=_int(env, "MEMORY_MAX_SESSIONS", DEFAULT_MEMORY_MAX_SESSIONS, 0, 100_000_000),
        clock_min_move_seconds=_seconds(env, "CLOCK_MIN_MOVE_SECONDS", 1.0, 0.05, 3600),
        clock_poll_seconds=_seconds(env, "CLOCK_POLL_SECONDS", 0.1, 0.01, 10),
        clock_claim_seconds=_seconds(env, "CLOCK_CLAIM_SECONDS", 2.0, 0.1, 600),
        search_workers=_int(env, "SEARCH_WORKERS", DEFAULT_SEARCH_WORKERS, 0, 256),
        bot_workers=_int(env, "BOT_WORKERS", DEFAULT_BOT_WORKERS, 0, 256),
        search_concurrency=_int(env, "SEARCH_CONCURRENCY", DEFAULT_SEARCH_CONCURRENCY, 0, 1024),
        search_queue=_int(env, "SEARCH_QUEUE", DEFAULT_SEARCH_QUEUE, 0, 100_000),
        search_worker_nice=_int(env, "SEARCH_WORKER_NICE", DEFAULT_SEARCH_WORKER_NICE, 0, 19),
        search_playouts_per_minute=_playouts(env),
        search_refusal_hold_seconds=_seconds(env, "SEARCH_REFUSAL_HOLD_SECONDS",
                                             DEFAULT_SEARCH_REFUSAL_HOLD_SECONDS, 0, 60),
        webhook_hosts=_hosts(env),
        redis_sharded_pubsub=_flag(env, "REDIS_SHARDED_PUBSUB", True),
        webhook_allow_http=_flag(env, "WEBHOOK_ALLOW_HTTP", False),
        webhook_allow_private=_flag(env, "WEBHOOK_ALLOW_PRIVATE", False),
        webhook_timeout_seconds=_seconds(env, "WEBHOOK_TIMEOUT_SECONDS", 5.0, 0.1, 60),
        webhook_retry_seconds=_seconds(env, "WEBHOOK_RETRY_SECONDS", 3600.0, 1, 7 * 86_400),
        webhook_concurrency=_int(env, "WEBHOOK_CONCURRENCY", 16, 1, 1024),
        webhook_poll_seconds=_seconds(env, "WEBHOOK_POLL_SECONDS", 0.5, 0.01, 60),
        webhook_claim_seconds=_seconds(env, "WEBHOOK_CLAIM_SECONDS", 30.0, 0.5, 3600),
        webhook_clock_low_seconds=_seconds(env, "WEBHOOK_CLOCK_LOW_SECONDS", 10.0, 0, 3600),
    )


def _hosts(env: Mapping[str, str]) -> tuple[str, ...]:
    """``WEBHOOK_HOSTS``: host names, ``*.`` and a domain, or ``*`` (any host), comma-separated."""
    out: list[str] = []
    for raw in _list(env, "WEBHOOK_HOSTS"):
        host = raw.lower().rstrip(".")
        name = host[2:] if host.startswith("*.") else host
        if host != "*" and (not name or any(c in name for c in "/:@*? ")):
            raise ConfigError(f"WEBHOOK_HOSTS entry {raw!r} is not a host: use hooks.example.com, *.example.com "
                              "or *")
        out.append(host)
    return tuple(out)


def _playouts(env: Mapping[str, str]) -> int:
    """``SEARCH_PLAYOUTS_PER_MINUTE``: 0 (off) or at least the largest budget one suggestion may ask for, so
    that every request the contract allows fits in a client's fresh minute."""
    value = _int(env, "SEARCH_PLAYOUTS_PER_MINUTE", DEFAULT_SEARCH_PLAYOUTS_PER_MINUTE, 0, 1_000_000_000)
    if 0 < value < MAX_BUDGET:
        raise ConfigError(f"SEARCH_PLAYOUTS_PER_MINUTE must be 0 (off) or at least {MAX_BUDGET} (the largest "
                          f"budget of one suggestion), got {value}")
    return value


@dataclass(frozen=True)
class ServingLimits:
    """What the server allows a connection (see :mod:`service.ops.serving`)."""

    header_timeout_seconds: float = 10.0
    body_timeout_seconds: float = 30.0
    write_stall_seconds: float = 30.0
    max_connections: int = 10_000


def _seconds(env: Mapping[str, str], name: str, default: float, low: float, high: float) -> float:
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number of seconds, got {raw!r}") from None
    if not low <= value <= high:
        raise ConfigError(f"{name} must be between {low:g} and {high:g}, got {value:g}")
    return value


def load_serving_limits(env: Mapping[str, str] | None = None) -> ServingLimits:
    """The server's connection limits from the environment (``os.environ`` by default)."""
    env = os.environ if env is None else env
    return ServingLimits(
        header_timeout_seconds=_seconds(env, "HEADER_TIMEOUT_SECONDS", 10.0, 0.1, 3600),
        body_timeout_seconds=_seconds(env, "BODY_TIMEOUT_SECONDS", 30.0, 0.1, 3600),
        write_stall_seconds=_seconds(env, "WRITE_STALL_SECONDS", 30.0, 0.1, 3600),
        max_connections=_int(env, "MAX_CONNECTIONS", 10_000, 1, 1_000_000),
    )
