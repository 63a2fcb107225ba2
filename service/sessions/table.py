"""The table of a hosted session: its settings, its seats' names and invitations, its spectators.

Apart from the game state and the seats' tokens (``auth``), a session has what only its host and its players
change: the table host's token (SHA-256), whether the seats may ask for hints, the invitations of its open seats
(SHA-256 of each code, its expiry, whether it was redeemed), the players' display names, what happens to a seat
whose player leaves, the spectators' tokens and the tokens that were revoked (so that their holders are told
so). It travels in the record's ``table`` field beside the state, so that every change is one compare-and-set
like a move: an invitation redeemed on one replica is redeemed on every replica at once, and two players
redeeming the same invitation at the same moment on two replicas get one seat for one of them (the other's
compare-and-set loses, and it finds the invitation redeemed).

The changes of the seats are logged as events of their own (:data:`~service.sessions.log.TableEvent`) beside
the engine's, so that every reader of the event stream learns who joined, left or got a new token. Who holds
each seat is :mod:`.seats`'s; the rest of the service reads this record decoded (``record.settings``).

A table plays game after game (:mod:`.rematch`): :class:`Series` counts its games and matches, keeps the results
of the current match's finished games and who agreed to the next game.
"""

from __future__ import annotations

import functools
import unicodedata
from functools import lru_cache
from typing import Literal

import msgspec
from confusable_homoglyphs.utils import load as load_confusables  # type: ignore[import-untyped]

from bots import Level
from service.web.problems import Problem

#: The most spectator tokens a session holds.
MAX_SPECTATORS = 32
#: The most revoked token hashes a session remembers (older ones are then simply unknown: 401).
MAX_REVOKED = 32
#: A display name's length bounds (in characters, after NFC normalisation and trimming).
MAX_NAME = 32
#: The most combining marks a name's character may carry (Thai and Devanagari need two or three).
MAX_MARKS = 3
#: How long an invitation may live: at least a minute, at most a week (default a day).
MIN_INVITATION_SECONDS = 60
MAX_INVITATION_SECONDS = 7 * 86_400
DEFAULT_INVITATION_SECONDS = 86_400

OnLeave = Literal["bot", "wait"]
#: Who starts a table's next game: the host (or the table host), or every seat a player holds, by agreement.
RematchBy = Literal["host", "seats"]
#: The most games a match of a series may have.
MAX_SERIES_GAMES = 25
#: When a game starts: once every seat is taken (``"seated"``: at once when none is open), or when the host says.
StartWhen = Literal["seated", "host"]
HowEnded = Literal["called_off", "abandoned"]


class Ending(msgspec.Struct, frozen=True, array_like=True):
    """How a game ended before it was over (:mod:`.life`): called off (no result), or abandoned by the seats
    ``by``; at ``version``."""

    how: HowEnded
    by: tuple[int, ...] = ()
    version: int = 0


class Invitation(msgspec.Struct, frozen=True, array_like=True):
    """An invitation to one seat: the SHA-256 of its code, when it expires (Unix seconds), whether redeemed.

    Once redeemed, what a retry of that very join needs to be answered the same seat and token again
    (:mod:`.seating`): the ``salt`` the seat's token was derived with (from the code, which only the player
    holds: the token itself is never kept), the SHA-256 of the join's ``Idempotency-Key`` (empty: none), the
    ``name`` it joined under, when (Unix seconds) and the version it made."""

    seat: int
    code: bytes
    expires_at: float
    redeemed: bool = False
    salt: bytes = b""
    key: bytes = b""
    name: str = ""
    joined_at: float = 0.0
    version: int = 0


class GameTally(msgspec.Struct, frozen=True, array_like=True):
    """A finished game of a match: the sides that won it (indices into the game's sides, as ``scores``) and
    its final scores."""

    winners: tuple[int, ...]
    scores: tuple[int, ...]


class Series(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """The games played at a table: its current game's number, the match it belongs to, the finished games of
    that match, and who agreed to the next game (:mod:`.rematch`).

    A table created with ``series`` goes on (``continues``): its event streams stay open across games. A table
    without one has no record of this until its first rematch (:func:`series_of` answers the defaults)."""

    #: Games per match (a match of one game: every game a match of its own).
    games: int = 1
    #: Who starts the next game.
    start: RematchBy = "host"
    #: Whether the table was created with ``series`` (its streams stay open across games).
    continues: bool = False
    #: The table's game number (1, 2, …, across matches), the match's number and the game's number in its match.
    game: int = 1
    match: int = 1
    match_game: int = 1
    #: The version at which the current game began (its first deal).
    since: int = 1
    #: The finished games of the current match before the current game, in order.
    results: tuple[GameTally, ...] = ()
    #: The seats that asked for the next game since the current one ended (``start: "seats"``).
    votes: tuple[int, ...] = ()


class Webhook(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A URL the service POSTs the session's events to, signed (:mod:`.webhooks`)."""

    #: ``wh_`` and 16 base64url characters: names it in the answers, the deliveries' ids and their payloads.
    id: str
    url: str
    #: The signing secret (``whsec_`` and base64: the Standard Webhooks form), shown once, when registered.
    secret: str
    #: Whose events: ``None``, the public's (registered by the host or the table host); a seat, that seat's own
    #: (registered with its token, whose SHA-256 ``holder`` is: it stops when the seat changes hands).
    seat: int | None = None
    holder: bytes = b""
    #: The event types sent (empty: all).
    events: tuple[str, ...] = ()
    #: The version it was registered at: the events logged after it are sent.
    since: int = 0
    #: An outside bot's seat (a seat's webhook registered with ``bot``): the URL is asked for the seat's move
    #: at each of its turns (``session.turn``), and the move in its answer is made with ``token``, the seat's
    #: own (kept for that, as the secret is).
    bot: bool = False
    token: str = ""


class Table(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """A session's own settings, seats' names and invitations, and spectators."""

    #: Whether the seats may ask for a hint (``POST .../suggest``).
    hints: bool = True
    #: SHA-256 of each spectator token, in the order they were minted.
    spectators: tuple[bytes, ...] = ()
    #: Each seat's display name (``None``: none), by seat; empty: no names at all.
    names: tuple[str | None, ...] = ()
    invitations: tuple[Invitation, ...] = ()
    #: SHA-256 of the tokens that were replaced (reissued, or their seat handed on), newest last.
    revoked: tuple[bytes, ...] = ()
    #: What a seat whose player leaves becomes: a bot's (at ``leave_level``), or an open seat that waits.
    on_leave: OnLeave = "wait"
    leave_level: Level = "basic"
    invitation_seconds: int = DEFAULT_INVITATION_SECONDS
    #: SHA-256 of the table host's token (empty: a session created before there was one).
    table_host: bytes = b""
    #: Whether the host said, at creation, that the deal may be known (``known_deal``): a game dealt from a
    #: client's seed or deck orders (or restored from a snapshot of one) then opens seats to invited players.
    known_deal: bool = False
    #: The name of whoever hosts the table, if the host gave one (an invitation's preview shows it).
    host_name: str | None = None
    #: The games of the table (``None``: its first game, and no ``series`` asked): :attr:`games`.
    series: Series | None = None

    @property
    def games(self) -> Series:
        """The table's games: :attr:`series`, or the defaults of a table at its first game."""
        return self.series or Series()
    #: The game's life (:mod:`.life`): when it starts, whether it waits for that, is paused, or ended; the seats
    #: whose players left it since it started (and whose seats no new player took).
    start: StartWhen = "seated"
    waiting: bool = False
    paused: bool = False
    ended: Ending | None = None
    left: tuple[int, ...] = ()
    #: The session's webhooks (:mod:`.webhooks`), oldest first.
    webhooks: tuple[Webhook, ...] = ()

    def name(self, seat: int) -> str | None:
        return self.names[seat] if seat < len(self.names) else None

    def with_name(self, seat: int, name: str | None, players: int) -> tuple[str | None, ...]:
        names = list(self.names) + [None] * (players - len(self.names))
        names[seat] = name
        return tuple(names)


# ------------------------------------------------------------------------------------------------ helpers

_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(Table)


@functools.lru_cache(maxsize=4096)
def decode_table(raw: bytes) -> Table:
    """The table of a record (an empty field: the defaults, as for a session created before tables); the same
    immutable answer for the same bytes."""
    return _DECODER.decode(raw) if raw else Table()


def encode_table(table: Table) -> bytes:
    return _ENCODER.encode(table)


#: Characters allowed in a name beside letters, marks, digits and spaces.
_NAME_PUNCTUATION = frozenset("-'._")


def check_name(raw: str, others: tuple[str | None, ...] = ()) -> str:
    """A display name, normalised (NFC, trimmed): 1 to :data:`MAX_NAME` characters, each a Unicode letter,
    mark or digit, a space (not two in a row) or one of ``- ' . _``, none with more than :data:`MAX_MARKS`
    combining marks; no control or formatting characters; and not confusable with any of ``others`` (the other
    seats' names: :func:`name_skeleton`). 400 ``INVALID_NAME`` otherwise, whatever the length sent."""
    name = unicodedata.normalize("NFC", raw).strip()
    problem: tuple[str, str] | None = None
    if not 1 <= len(name) <= MAX_NAME:
        problem = (f"a name is 1 to {MAX_NAME} characters long", "length")
    elif "  " in name:
        problem = ("a name has no two spaces in a row", "spaces")
    elif any(not (unicodedata.category(c)[0] in "LMN" or c == " " or c in _NAME_PUNCTUATION) for c in name):
        problem = ("a name is made of letters, digits, spaces and - ' . _ only", "characters")
    elif _most_marks(name) > MAX_MARKS:
        problem = (f"a name's character carries at most {MAX_MARKS} combining marks", "marks")
    elif any(other is not None and names_alike(other, name) for other in others):
        problem = ("another player at this table has this name, or one that looks like it", "taken")
    if problem is not None:
        raise Problem("INVALID_NAME", f"name: {problem[0]}",
                      message=(f"problem.INVALID_NAME.detail.{problem[1]}", {"max": MAX_NAME, "marks": MAX_MARKS}))
    return name


def _most_marks(name: str) -> int:
    """The most combining marks in a row (after the character they combine with), in the decomposed name."""
    most = run = 0
    for c in unicodedata.normalize("NFD", name):
        run = run + 1 if unicodedata.category(c)[0] == "M" else 0
        most = max(most, run)
    return most


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """Each confusable character's class representative: Unicode's confusables.txt (as the
    ``confusable-homoglyphs`` package ships it) read as classes of look-alike characters, each represented by
    its smallest code point. Single characters only (``rn`` for ``m`` is not caught)."""
    parent: dict[str, str] = {}

    def root(c: str) -> str:
        while parent.get(c, c) != c:
            parent[c] = parent.get(parent[c], parent[c])
            c = parent[c]
        return c

    for char, homoglyphs in load_confusables("confusables.json").items():
        for glyph in homoglyphs:
            other = glyph["c"].strip("\u200e\u200f")
            if len(char) == 1 and len(other) == 1:
                a, b = root(char), root(other)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    return {c: root(c) for c in parent}


def name_skeleton(name: str) -> str:
    """What a name looks like, in the manner of Unicode's confusables skeleton (UTS #39): decomposed, each
    character replaced by its look-alike class's representative."""
    prototypes = _prototypes()
    return "".join(prototypes.get(c, c) for c in unicodedata.normalize("NFD", name.strip()))


def names_alike(one: str, other: str) -> bool:
    """Whether two names are one name at a table: the same skeleton as written or case folded (``"Alice"``,
    ``"alice"``, ``"Аlice"`` with a Cyrillic А, ``"Ian"`` and ``"lan"``).

    >>> names_alike("Alice", "\u0410lice"), names_alike("Pat", "pat"), names_alike("Ana", "Aná")
    (True, True, False)
    """
    return name_skeleton(one) == name_skeleton(other) or \
        name_skeleton(one.casefold()) == name_skeleton(other.casefold())
