"""Who holds each seat of a hosted session, as typed data: a player (by its token's hash), a bot, or nobody yet.

The store keeps this as the record's ``auth`` bytes, one 32-byte slot after another: SHA-256(host token), then
one slot per seat, which is

- a **player's**: SHA-256 of the seat's token;
- a **bot's** (:class:`BotSeat`): :data:`BOT_MARK`, the level's code (one byte) and 27 random bytes, the seat's
  secret seed (:mod:`.bots`);
- an **open** seat's (:class:`OpenSeat`): :data:`OPEN_MARK` and 28 random bytes, waiting for a player to redeem
  an invitation (:mod:`.seating`).

No token hashes to a bot's or an open slot (that would be a SHA-256 preimage), so nobody acts for such a seat.
Only this module knows the layout: the rest of the service reads :class:`Seats` (``record.seats``, decoded once
per record) and writes a new one with :meth:`Seats.replace`. Tokens are compared against every hash, in constant
time per comparison.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import os

import msgspec

from bots import LEVELS, Level

#: The width of a slot in ``auth``: a SHA-256.
SLOT = 32
#: First bytes of a bot seat's slot.
BOT_MARK = b"\x00bot"
#: First bytes of an open seat's slot.
OPEN_MARK = b"\x00opn"
#: What :meth:`Seats.role` answers for a token that is none of the session's.
NOBODY = -1
_LEVEL_CODES: dict[str, int] = {level: i + 1 for i, level in enumerate(LEVELS)}
_LEVEL_NAMES: dict[int, Level] = {i + 1: level for i, level in enumerate(LEVELS)}


class PlayerSeat(msgspec.Struct, frozen=True):
    """A seat a player holds: the SHA-256 of its token."""

    token_hash: bytes


class BotSeat(msgspec.Struct, frozen=True):
    """A seat the service plays at ``level``, with its own secret seed."""

    level: Level
    secret: bytes


class OpenSeat(msgspec.Struct, frozen=True):
    """A seat waiting for a player (its slot's random bytes keep it apart from every other)."""

    slot: bytes


Seat = PlayerSeat | BotSeat | OpenSeat


def hash_token(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def new_bot(level: Level) -> BotSeat:
    """A new bot seat, with a fresh secret seed."""
    return BotSeat(level, os.urandom(SLOT - len(BOT_MARK) - 1))


def new_open() -> OpenSeat:
    return OpenSeat(OPEN_MARK + os.urandom(SLOT - len(OPEN_MARK)))


def _slot(seat: Seat) -> bytes:
    if isinstance(seat, PlayerSeat):
        return seat.token_hash
    if isinstance(seat, BotSeat):
        return BOT_MARK + bytes([_LEVEL_CODES[seat.level]]) + seat.secret
    return seat.slot


def _seat(slot: bytes) -> Seat:
    if slot.startswith(BOT_MARK) and slot[len(BOT_MARK)] in _LEVEL_NAMES:
        return BotSeat(_LEVEL_NAMES[slot[len(BOT_MARK)]], slot[len(BOT_MARK) + 1:])
    if slot.startswith(OPEN_MARK):
        return OpenSeat(slot)
    return PlayerSeat(slot)


class Seats(msgspec.Struct, frozen=True, dict=True):
    """The host's token hash and who holds each seat."""

    host: bytes
    seats: tuple[Seat, ...]

    @staticmethod
    @functools.lru_cache(maxsize=4096)
    def decode(auth: bytes) -> Seats:
        """The seats ``auth`` holds (the same immutable answer for the same bytes: a session's seats change rarely,
        and are read at every move)."""
        slots = [auth[i:i + SLOT] for i in range(0, len(auth), SLOT)]
        return Seats(slots[0] if slots else b"", tuple(_seat(slot) for slot in slots[1:]))

    def encode(self) -> bytes:
        return self.host + b"".join(_slot(seat) for seat in self.seats)

    def __getitem__(self, seat: int) -> Seat:
        return self.seats[seat]

    def replace(self, seat: int, holder: Seat) -> Seats:
        """These seats with ``seat`` held by ``holder``."""
        seats = list(self.seats)
        seats[seat] = holder
        return Seats(self.host, tuple(seats))

    @functools.cached_property
    def _bots(self) -> dict[int, tuple[Level, bytes]]:
        return {i: (s.level, s.secret) for i, s in enumerate(self.seats) if isinstance(s, BotSeat)}

    def bots(self) -> dict[int, tuple[Level, bytes]]:
        """The bot seats: seat → (level, secret). Shared by every reader of these seats: never changed."""
        return self._bots

    def is_bot(self, seat: int | None) -> bool:
        return seat is not None and isinstance(self.seats[seat], BotSeat)

    def is_player(self, seat: int) -> bool:
        return isinstance(self.seats[seat], PlayerSeat)

    def token_hash(self, seat: int) -> bytes | None:
        """The hash of the token of ``seat``'s player (``None``: a bot's or an open seat)."""
        held = self.seats[seat]
        return held.token_hash if isinstance(held, PlayerSeat) else None

    def secret(self, seat: int) -> bytes:
        """A secret of ``seat`` that no other seat knows: its slot's bytes (its token's hash, say)."""
        return _slot(self.seats[seat])

    @functools.cached_property
    def _slots(self) -> tuple[bytes, ...]:
        return tuple(_slot(seat) for seat in self.seats)

    def role(self, digest: bytes) -> int | None:
        """Whose token hashes to ``digest``: ``None`` the host's, a seat number, or :data:`NOBODY`. Every slot is
        compared (no early exit), each in constant time."""
        found: int | None = NOBODY
        if hmac.compare_digest(digest, self.host):
            found = None
        for i, slot in enumerate(self._slots):
            if hmac.compare_digest(digest, slot):
                found = i
        return found
