"""Sealed snapshots: a game state as an opaque, versioned, authenticated-encrypted string.

Format (base64url without padding): ``v1.<key id>.<nonce ‖ AES-256-GCM(zstd(msgpack(state), dictionary))>``,
where the zstd dictionary is ``service/snapshot.zdict`` (see :mod:`service.snapshot_dictionary`).
The key id is the first 8 hex digits of SHA-256(key), so rotation works by configuring several keys: the first
seals, all open. The version and key id are bound as associated data, so changing any byte is detected.
After opening, the state's integrity is checked by the engine before anything uses it.

A sealer may keep a bounded cache of recent snapshots (``cache_size``): the exact string of a snapshot it opened
(authenticated and integrity-checked) or sealed from a state the engine just produced (``remember=True``) maps
to that state, so a client sending the snapshot back skips decryption, decoding and the integrity check. This is
sound because the cache key is the whole authenticated string: an equal string can only hold that same state.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import threading
from collections import OrderedDict

import msgspec
import zstandard
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from engine import GameState, integrity_problems
from service import snapshot_dictionary
from service.problems import Problem

VERSION = "v1"
SUPPORTED_VERSIONS = ("v1",)
_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(GameState)
MAX_SNAPSHOT_CHARS = 64_000
MAX_STATE_BYTES = 1 << 20
_DICTIONARY = snapshot_dictionary.load()
_CODECS = threading.local()


def _compressor() -> zstandard.ZstdCompressor:
    """One compressor per thread (zstd contexts are not thread-safe), with the dictionary loaded once."""
    c: zstandard.ZstdCompressor | None = getattr(_CODECS, "c", None)
    if c is None:
        c = _CODECS.c = zstandard.ZstdCompressor(level=3, dict_data=_DICTIONARY, write_checksum=False,
                                                 write_content_size=True, write_dict_id=False)
    return c


def _decompressor() -> zstandard.ZstdDecompressor:
    d: zstandard.ZstdDecompressor | None = getattr(_CODECS, "d", None)
    if d is None:
        d = _CODECS.d = zstandard.ZstdDecompressor(dict_data=_DICTIONARY)
    return d


def _b64e(b: bytes) -> str:
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def _b64d(s: str) -> bytes:
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def key_id(key: bytes) -> str:
    return hashlib.sha256(key).hexdigest()[:8]


class SnapshotError(Problem):
    def __init__(self, code: str, detail: str) -> None:
        super().__init__(400 if code != "SNAPSHOT_CORRUPT" else 422, code, detail)


class Sealer:
    """Seals and opens snapshots under the configured keys (the first seals; all open)."""

    def __init__(self, keys: list[bytes], *, cache_size: int = 0) -> None:
        if not keys:
            raise ValueError("at least one snapshot key is needed")
        for k in keys:
            if len(k) != 32:
                raise ValueError("snapshot keys must be 32 bytes")
        self._seal_id = key_id(keys[0])
        self._seal = AESGCM(keys[0])
        self._open = {key_id(k): AESGCM(k) for k in keys}
        self._cache_size = cache_size
        self._cache: OrderedDict[str, GameState] = OrderedDict()
        self._cache_lock = threading.Lock()

    def _remember(self, snapshot: str, state: GameState) -> None:
        with self._cache_lock:
            self._cache[snapshot] = state
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)

    def _recall(self, snapshot: str) -> GameState | None:
        with self._cache_lock:
            state = self._cache.get(snapshot)
            if state is not None:
                self._cache.move_to_end(snapshot)
            return state

    @staticmethod
    def generate_key() -> bytes:
        return AESGCM.generate_key(bit_length=256)

    def seal(self, state: GameState, *, remember: bool = False) -> str:
        """``state`` as a snapshot. ``remember``: the engine just produced ``state`` in this process (it is not
        outside input), so a later :meth:`open` of this exact snapshot may return it from the cache."""
        nonce = os.urandom(12)
        aad = f"{VERSION}.{self._seal_id}".encode()
        body = self._seal.encrypt(nonce, _compressor().compress(_ENCODER.encode(state)), aad)
        snapshot = f"{VERSION}.{self._seal_id}.{_b64e(nonce + body)}"
        if remember and self._cache_size:
            self._remember(snapshot, state)
        return snapshot

    def open(self, snapshot: str) -> GameState:
        """The state inside ``snapshot``; a :class:`SnapshotError` naming what is wrong otherwise."""
        if not isinstance(snapshot, str) or len(snapshot) > MAX_SNAPSHOT_CHARS:
            raise SnapshotError("SNAPSHOT_MALFORMED", "the snapshot is not a string of a plausible size")
        if self._cache_size and (cached := self._recall(snapshot)) is not None:
            return cached
        parts = snapshot.split(".")
        if len(parts) != 3:
            raise SnapshotError("SNAPSHOT_MALFORMED", "a snapshot has three dot-separated parts")
        version, kid, payload = parts
        if version not in SUPPORTED_VERSIONS:
            raise SnapshotError("SNAPSHOT_VERSION_UNSUPPORTED",
                                f"snapshot version {version[:16]!r} is not supported (supported: "
                                f"{', '.join(SUPPORTED_VERSIONS)})")
        aead = self._open.get(kid)
        if aead is None:
            raise SnapshotError("SNAPSHOT_UNKNOWN_KEY", "the snapshot was sealed under a key this service "
                                "does not hold")
        try:
            raw = _b64d(payload)
        except (binascii.Error, ValueError):
            raise SnapshotError("SNAPSHOT_MALFORMED", "the snapshot payload is not base64url") from None
        if _b64e(raw) != payload:
            # The decoder skips characters outside the alphabet and ignores the spare bits of the last
            # character: without this check, such an altered string would open as the original.
            raise SnapshotError("SNAPSHOT_MALFORMED", "the snapshot payload is not canonical base64url")
        if len(raw) < 12 + 16:
            raise SnapshotError("SNAPSHOT_MALFORMED", "the snapshot payload is too short")
        try:
            plain = aead.decrypt(raw[:12], raw[12:], f"{version}.{kid}".encode())
        except InvalidTag:
            raise SnapshotError("SNAPSHOT_TAMPERED", "the snapshot failed authentication: it was altered or "
                                "sealed elsewhere") from None
        try:
            # The frame records its size (sealed by us, so trustworthy); decompressing into an exact buffer is
            # ~15x faster than into a max_output_size one.
            if not 0 < zstandard.frame_content_size(plain) <= MAX_STATE_BYTES:
                raise zstandard.ZstdError("frame size missing or too large")
            state = _DECODER.decode(_decompressor().decompress(plain))
        except (zstandard.ZstdError, msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise SnapshotError("SNAPSHOT_CORRUPT", f"the snapshot's state does not decode: {exc}") from None
        problems = integrity_problems(state)
        if problems:
            raise SnapshotError("SNAPSHOT_CORRUPT", "the snapshot's state is inconsistent: " + "; ".join(problems))
        if self._cache_size:
            self._remember(snapshot, state)
        return state
