"""The table of a hosted session: its settings and its spectators, kept in the record's ``table`` field.

Apart from the game state and the seats' tokens (``auth``), a session has a few things only the host
changes: whether its seats may ask for hints, and the spectators' tokens (SHA-256 hashes, as every token).
They travel in the same record as the state, so a change is one compare-and-set like a move: a spectator
minted on one replica is known to every replica at once, and a remembered record never lets a stale table
through (the compare-and-set fails and answers the current one).
"""

from __future__ import annotations

import msgspec

#: The most spectator tokens a session holds.
MAX_SPECTATORS = 32


class Table(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A session's own settings and its spectators."""

    #: Whether the seats may ask for a hint (``POST .../suggest``).
    hints: bool = True
    #: SHA-256 of each spectator token, in the order they were minted.
    spectators: tuple[bytes, ...] = ()


_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(Table)


def decode_table(raw: bytes) -> Table:
    """The table of a record (an empty field: the defaults, as for a session created before tables)."""
    return _DECODER.decode(raw) if raw else Table()


def encode_table(table: Table) -> bytes:
    return _ENCODER.encode(table)
