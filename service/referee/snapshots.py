"""Sealed snapshots: a game state as an opaque, versioned, authenticated-encrypted string.

Format (base64url without padding): ``v2.<key id>.<nonce ‖ AES-256-GCM(len ‖ zstd(msgpack(state)) ‖ zeros)>``,
where ``len`` is the zstd frame's length (2 bytes, big-endian), the zstd dictionary is
``service/referee/snapshot.zdict`` (see :mod:`service.referee.snapshot_dictionary`) and the zeros pad the frame
to :func:`sealed_length`.
The key id is the first 8 hex digits of SHA-256(key), so rotation works by configuring several keys: the first
seals, all open. The version and key id are bound as associated data, so changing any byte is detected.
``v1`` snapshots (the same without the length and padding) still open.

**Checks after opening.** Authentication proves that a holder of one of the service's keys sealed the state,
and the service seals only states its engine produced or that passed the full integrity check on entry. So a
``v2`` snapshot gets the structural check (:func:`engine.structure_problems`: ranges, every card once, phase,
turn and tricks consistent; tens of microseconds), not the replay of its hand (hundreds): a snapshot sealed by
another replica costs about what one sealed here does. The full check (:func:`engine.integrity_problems`)
still runs for a ``v1`` snapshot, for ``open(replay=True)`` (a session restored from a snapshot) and, through
:class:`Guard`, whenever acting on an opened state raises: a state that only an insider holding the key could
have sealed, unreachable but well-formed, is then refused with ``SNAPSHOT_CORRUPT`` as before, never a 500.

**Length.** Compression makes a state's length depend on its content, hidden cards included (a hand of
touching cards compresses better than a scattered one), and a snapshot's length is visible to whoever holds
it. So the compressed frame is padded to a length that depends only on what every seat may know: the length
of the same state with every held, kitty, dead-hand, discarded and undealt card replaced by a canonical
assignment (the pack's cards in pack order, filled into the same places), plus a margin for the deal's
entropy (8 bytes, and half a byte per card so replaced), rounded up to 8 bytes. A real state that needs more
than that (measured: about one in 45,000 random completions) takes the next 8-byte steps.
``tests/bench/snapshot_length.py`` measures what the length still tells, over random completions of the
hidden cards around one seat's view.

A sealer may keep a bounded cache of recent snapshots (``cache_size``): the exact string of a snapshot it opened
with the full check or sealed from a state the engine just produced (``remember=True``) maps
to that state, so a client sending the snapshot back skips decryption, decoding and the integrity check. This is
sound because the cache key is the whole authenticated string: an equal string can only hold that same state.

The decoder is bounded: a state over :data:`MAX_STATE_BYTES`, or nested deeper than the interpreter's recursion
limit (only a state sealed under the service's own key by an insider could be), is ``SNAPSHOT_CORRUPT`` (422).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import threading
from collections import OrderedDict
from types import TracebackType

import msgspec
import zstandard
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from engine import GameState, Options, integrity_problems, pack_for, structure_problems
from engine.cards import sort_hand
from engine.options import interned
from service.referee import snapshot_dictionary
from service.web.problems import Problem

VERSION = "v2"
SUPPORTED_VERSIONS = ("v1", "v2")
_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(GameState)
MAX_SNAPSHOT_CHARS = 64_000
MAX_STATE_BYTES = 1 << 20
_LEVEL = 3
_DICTIONARY = snapshot_dictionary.load()
# The dictionary digested once for compression (the same frames as loading it raw, which each compression
# would otherwise do again).
_DICTIONARY.precompute_compress(level=_LEVEL)
_CODECS = threading.local()
#: Padding: the margin over the canonical state's compressed length, in bytes, per replaced card and fixed,
#: and the step the padded length is rounded up to.
PAD_PER_CARD = 0.5
PAD_FIXED = 8
PAD_STEP = 8


def _compressor() -> zstandard.ZstdCompressor:
    """One compressor per thread (zstd contexts are not thread-safe), with the dictionary loaded once."""
    c: zstandard.ZstdCompressor | None = getattr(_CODECS, "c", None)
    if c is None:
        c = _CODECS.c = zstandard.ZstdCompressor(level=_LEVEL, dict_data=_DICTIONARY, write_checksum=False,
                                                 write_content_size=True, write_dict_id=False)
    return c


def _decompressor() -> zstandard.ZstdDecompressor:
    d: zstandard.ZstdDecompressor | None = getattr(_CODECS, "d", None)
    if d is None:
        d = _CODECS.d = zstandard.ZstdDecompressor(dict_data=_DICTIONARY)
    return d


_POSITIONS: dict[Options, tuple[dict[str, int], tuple[str, ...]]] = {}


def _pack_positions(options: Options) -> tuple[dict[str, int], tuple[str, ...]]:
    """Each card's place in the pack of ``options``, and the pack (the last 256 rule sets kept)."""
    found = _POSITIONS.get(options)
    if found is None:
        if len(_POSITIONS) >= 256:
            _POSITIONS.clear()
        pack = pack_for(options)
        found = _POSITIONS[options] = ({c: i for i, c in enumerate(pack)}, pack)
    return found


def _canonical(state: GameState) -> tuple[GameState, int]:
    """``state`` with every card it holds out of sight (hands, dead hand, kitty, discards, undealt orders)
    replaced by its held cards in pack order, filled into the same places; and how many were replaced.

    The result depends only on the counts of cards in each place and on the public rest of the state, never
    on which cards are where. The kitty is filled first, so that during the exchange (when its cards sit in
    the contractor's hand as well) where they land in that sorted hand does not depend on the real kitty.
    """
    index, pack = _pack_positions(state.options)
    kitty, dead_hand, discards, hands = state.kitty, state.dead_hand, state.discards, state.hands
    held = set(kitty)
    held.update(dead_hand, discards, *hands)
    canonical = sort_hand(held, index)
    orders = tuple(pack[:len(order)] for order in state.deck_orders) if state.deck_orders else ()
    pos = len(kitty)
    if len(held) == pos + len(dead_hand) + len(discards) + sum(map(len, hands)):
        # Every card in one place only (all but the exchange, when the kitty is in the contractor's hand too):
        # each place takes the next block of the sorted cards, as the general fill below would.
        blocks = []
        for place in (dead_hand, discards, *hands):
            end = pos + len(place)
            blocks.append(canonical[pos:end])
            pos = end
        replaced = msgspec.structs.replace(state, hands=tuple(blocks[2:]), dead_hand=blocks[0],
                                           kitty=canonical[:len(kitty)], discards=blocks[1], deck_orders=orders,
                                           dealt_decks=())
        return replaced, len(held) + sum(len(order) for order in orders)
    in_kitty = dict(zip(kitty, canonical, strict=False))
    places = (state.dead_hand, state.discards, *state.hands)
    needed = len(kitty) + sum(1 for place in places for c in place if c not in in_kitty)
    if len(canonical) < needed:  # an inconsistent state (a card held twice): any deterministic fill will do
        canonical = (canonical * (needed // max(1, len(canonical)) + 1))[:needed]
    rank = index.__getitem__

    def fill(place: tuple[str, ...], sort: bool) -> tuple[str, ...]:
        nonlocal pos
        if in_kitty and any(c in in_kitty for c in place):
            out: list[str] = []
            for c in place:
                mapped = in_kitty.get(c)
                if mapped is None:
                    mapped, pos = canonical[pos], pos + 1
                out.append(mapped)
            return tuple(sorted(out, key=rank)) if sort else tuple(out)
        block = tuple(canonical[pos:pos + len(place)])
        pos += len(place)
        return block

    dead_hand = fill(state.dead_hand, True)
    discards = fill(state.discards, False)
    hands = tuple(fill(hand, True) for hand in state.hands)
    replaced = msgspec.structs.replace(state, hands=hands, dead_hand=dead_hand, kitty=tuple(canonical[:len(kitty)]),
                                       discards=discards, deck_orders=orders, dealt_decks=())
    return replaced, len(held) + sum(len(order) for order in orders)


def sealed_length(state: GameState) -> int:
    """The length the compressed state is padded to: a function of the public state only (see the module
    docstring), from the canonical state's compressed length and the number of cards it replaced."""
    canonical, replaced = _canonical(state)
    base = len(_compressor().compress(_ENCODER.encode(canonical)))
    target = base + PAD_FIXED + int(replaced * PAD_PER_CARD)
    return -(-target // PAD_STEP) * PAD_STEP


def _padded(frame: bytes, target: int) -> bytes:
    """``len ‖ frame ‖ zeros``, the zeros making ``frame`` up to ``target`` (or the next step past it)."""
    size = len(frame)
    if size > 0xFFFF:
        raise ValueError("a compressed state over 64 KiB cannot be sealed")
    while target < size:
        target += PAD_STEP
    return size.to_bytes(2, "big") + frame + bytes(target - size)


def _unpadded(plain: bytes) -> bytes:
    if len(plain) < 2 or (size := int.from_bytes(plain[:2], "big")) > len(plain) - 2:
        raise zstandard.ZstdError("the padded frame's length is out of range")
    return plain[2:2 + size]


def _b64e(b: bytes) -> str:
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


_URLSAFE = bytes.maketrans(b"-_", b"+/")
#: The characters of the alphabet whose unused low bits are zero, by what they end: a payload of 4k + 2
#: characters (one byte in its last group) uses 2 bits of its last character, one of 4k + 3 uses 4.
_LAST_CHARS = {2: frozenset(b"AQgw"), 3: frozenset(b"AEIMQUYcgkosw048")}


def _b64d(s: str) -> bytes:
    """Canonical unpadded base64url only: any other character, a padding, a length of 4k + 1 or unused bits set
    in the last character is ``ValueError`` (the lax decoder would skip or ignore them, so an altered string
    would open as the original)."""
    data = s.encode("ascii")
    tail = len(data) % 4
    if tail == 1 or (tail and data[-1] not in _LAST_CHARS[tail]) or b"=" in data or b"+" in data or b"/" in data:
        raise ValueError("not canonical base64url")
    return binascii.a2b_base64(data.translate(_URLSAFE) + b"=" * (-tail % 4), strict_mode=True)


def key_id(key: bytes) -> str:
    return hashlib.sha256(key).hexdigest()[:8]


class SnapshotError(Problem):
    def __init__(self, code: str, detail: str) -> None:
        super().__init__(code, detail)


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
        #: snapshot -> a state the engine produced here or the full integrity check passed.
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
        if state.dealt_decks:
            # The deck orders a game has dealt from stay out of snapshots: play continues without them, and a
            # deck's order would make the sealed length depend on cards nobody saw. (Hosted sessions keep them
            # in their store, for the host's record; a session restored from a snapshot has no record anyway.)
            state = msgspec.structs.replace(state, dealt_decks=())
        nonce = os.urandom(12)
        aad = f"{VERSION}.{self._seal_id}".encode()
        frame = _compressor().compress(_ENCODER.encode(state))
        body = self._seal.encrypt(nonce, _padded(frame, sealed_length(state)), aad)
        snapshot = f"{VERSION}.{self._seal_id}.{_b64e(nonce + body)}"
        if remember and self._cache_size:
            self._remember(snapshot, state)
        return snapshot

    def open(self, snapshot: str, *, replay: bool = False) -> GameState:
        """The state inside ``snapshot``; a :class:`SnapshotError` naming what is wrong otherwise.

        A snapshot of the current format gets the structural check (:func:`engine.structure_problems`); one of
        an older format, or any with ``replay`` (a state that is to live on in the service, such as a session's
        first), gets the full integrity check, which replays the current hand. Act on an opened state inside
        :meth:`acting_on` (or :class:`Guard`): an error there runs the full check, so that a state the
        structural check let through but the engine cannot act on is a 422, not a 500."""
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
        except (binascii.Error, ValueError):  # UnicodeEncodeError is a ValueError
            raise SnapshotError("SNAPSHOT_MALFORMED", "the snapshot payload is not canonical base64url") from None
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
            frame = plain if version == "v1" else _unpadded(plain)
            if not 0 < zstandard.frame_content_size(frame) <= MAX_STATE_BYTES:
                raise zstandard.ZstdError("frame size missing or too large")
            state = _DECODER.decode(_decompressor().decompress(frame))
        except RecursionError:  # nested beyond any real state (msgspec skips unknown fields recursively)
            raise SnapshotError("SNAPSHOT_CORRUPT", "the snapshot's state does not decode: nested too "
                                "deeply") from None
        except (zstandard.ZstdError, msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise SnapshotError("SNAPSHOT_CORRUPT", f"the snapshot's state does not decode: {exc}") from None
        options = interned(state.options)
        if options is not state.options:
            # The decoder's own object, not yet seen by anything else: the interned option set takes its place,
            # so that every memo keyed by the rules matches by identity (engine.options.interned).
            msgspec.structs.force_setattr(state, "options", options)
        replay = replay or version != VERSION
        problems = integrity_problems(state) if replay else structure_problems(state)
        if problems:
            raise SnapshotError("SNAPSHOT_CORRUPT", "the snapshot's state is inconsistent: " + "; ".join(problems))
        if replay and self._cache_size:
            # Only fully checked states are kept. A snapshot opened with the structural check is usually
            # another replica's, sent once: the state the move makes of it is kept (sealed here) instead.
            self._remember(snapshot, state)
        return state

    def acting_on(self, snapshot: str) -> Guard:
        """``with sealer.acting_on(snapshot) as state:`` the opened state, guarded (see :class:`Guard`)."""
        return Guard(self.open(snapshot))


def _refuse_if_broken(state: GameState) -> None:
    problems = integrity_problems(state)
    if problems:
        raise SnapshotError("SNAPSHOT_CORRUPT", "the snapshot's state is inconsistent: " + "; ".join(problems))


class Guard:
    """A context for acting on a state opened from a snapshot: an unexpected error inside it (anything but a
    :class:`Problem`) runs the full integrity check on the state, and if that finds problems the error becomes
    the 422 ``SNAPSHOT_CORRUPT`` naming them. A state that passes it re-raises the error unchanged (a defect of
    the service, not of the snapshot). The structural check on opening keeps this rare: it is what stands
    between an unreplayed state and a 500."""

    __slots__ = ("state",)

    def __init__(self, state: GameState) -> None:
        self.state = state

    def __enter__(self) -> GameState:
        return self.state

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if exc is not None and isinstance(exc, Exception) and not isinstance(exc, Problem):
            _refuse_if_broken(self.state)  # raises SNAPSHOT_CORRUPT in place of ``exc``, or lets ``exc`` go on
