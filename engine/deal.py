"""Packs per rule set, the reproducible shuffle, the packet deal, and the cut for the first dealer.

The shuffle is a Fisher–Yates shuffle driven by a SHA-256 counter stream, so the same seed gives the same deals
on every machine and Python version (``random.Random`` makes no such promise):

- stream block ``i`` is ``SHA-256(b"fivehundred/v1/" + label + b"/" + str(seed) + b"/" + str(i))``; its 32 bytes
  are four big-endian unsigned 64-bit words, consumed in order;
- a uniform integer below ``n`` takes words until one is below ``2**64 - 2**64 % n`` and returns it ``% n``;
- for ``i`` from ``len(pack) - 1`` down to 1, swap positions ``i`` and ``uniform(i + 1)``;
- the label for hand ``h`` (0-based, every deal including redeals) is ``deal/h``; the cut uses ``cut`` and a random
  first dealer uses ``dealer``.

>>> shuffled(("a", "b", "c", "d"), seed=7, label="deal/0")
('d', 'c', 'b', 'a')
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterator, Sequence
from functools import lru_cache
from operator import ge, mod
from typing import TypeVar

from engine.cards import JOKERS, RANK_ORDER, build_pack, rank_of
from engine.memo import remember
from engine.options import Options, OptionsError
from engine.seats import GHOST_PILES, GHOSTS, is_ghost_game, seat_count

T = TypeVar("T")

_STANDARD_KITTY_PACKETS = {3: (1, 1, 1), 4: (1, 2, 1), 5: (2, 2, 1), 6: (2, 2, 2)}
HAND_SIZE = 10


class SeedStream:
    """Uniform integers from the documented SHA-256 counter stream."""

    def __init__(self, seed: int, label: str) -> None:
        self._prefix = b"fivehundred/v1/" + label.encode() + b"/" + str(seed).encode() + b"/"
        self._block = 0
        self._words: list[int] = []

    def _word(self) -> int:
        if not self._words:
            digest = hashlib.sha256(self._prefix + str(self._block).encode()).digest()
            self._block += 1
            self._words = list(struct.unpack(">4Q", digest)[::-1])
        return self._words.pop()

    def below(self, n: int) -> int:
        limit = 2**64 - (2**64 % n)
        while True:
            w = self._word()
            if w < limit:
                return w % n


def first_below(seed: int, label: str, n: int) -> int:
    """``SeedStream(seed, label).below(n)``: the same number, its first word read at once (the stream's first
    block's first eight bytes, big-endian), and only a rejected first word draws on through the stream."""
    digest = hashlib.sha256(b"fivehundred/v1/" + label.encode() + b"/" + str(seed).encode() + b"/0").digest()
    word = int.from_bytes(digest[:8], "big")
    if word < _TWO64 - _TWO64 % n:
        return word % n
    return SeedStream(seed, label).below(n)


def shuffled(pack: Sequence[T], seed: int, label: str) -> tuple[T, ...]:
    """Fisher–Yates over the SHA-256 stream (the same numbers as :class:`SeedStream`, drawn in bulk for speed)."""
    deck = list(pack)
    size = len(deck)
    blocks = (size + 3) // 4  # enough words unless a draw is rejected (odds about n / 2**64)
    if size >= 128 or blocks > len(_BLOCK_SUFFIXES) or size < 2:
        return _shuffled(pack, seed, label)
    # Each block's hash continues a copy of the prefix's hash state: the same digests as hashing each block's
    # whole message, without setting up a new hash for each (tests/engine/test_fast_paths.py compares them).
    base = hashlib.sha256(b"fivehundred/v1/" + label.encode() + b"/" + str(seed).encode() + b"/")
    digests: list[bytes] = []
    for suffix in _BLOCK_SUFFIXES[:blocks]:
        block = base.copy()
        block.update(suffix)
        digests.append(block.digest())
    stream = b"".join(digests)
    # i = n - 1 down to 1, one word each (more were drawn): a rejected draw (a word at or above its limit) takes
    # the general loop below, from the start; else swap i with the word mod n. A word is rejected only at or
    # above 2**64 - 2**64 % n, so for n < 128 only if its seven high bytes are all 0xFF: without seven 0xFF
    # bytes in a row anywhere in the stream no word is, and the words' limits are compared only with them.
    # The remainders are taken a word at a time by map (in C), the swaps alone by the loop.
    words = _UNPACK[blocks](stream)
    if _SEVEN_FF in stream and any(map(ge, words, _LIMITS[size:1:-1])):
        return _shuffled(pack, seed, label)
    i = size - 1
    for j in map(mod, words, range(size, 1, -1)):  # (j: word mod i + 1)
        deck[i], deck[j] = deck[j], deck[i]
        i -= 1
    return tuple(deck)


def _shuffled(pack: Sequence[T], seed: int, label: str) -> tuple[T, ...]:
    """:func:`shuffled` for any pack and any draws, rejected ones included (drawing further blocks)."""
    deck = list(pack)
    prefix = b"fivehundred/v1/" + label.encode() + b"/" + str(seed).encode() + b"/"
    sha = hashlib.sha256
    blocks = (len(deck) + 3) // 4
    words = struct.unpack(f">{4 * blocks}Q", b"".join(sha(prefix + str(b).encode()).digest()
                                                        for b in range(blocks)))
    k = 0
    available = len(words)
    limits = _LIMITS
    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        limit = limits[n] if n < 128 else _TWO64 - _TWO64 % n
        while True:
            if k == available:
                words += struct.unpack(">4Q", sha(prefix + str(blocks).encode()).digest())
                blocks += 1
                available = len(words)
            w = words[k]
            k += 1
            if w < limit:
                break
        j = w % n
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


_TWO64 = 2**64
_LIMITS = tuple(_TWO64 - _TWO64 % n if n else 0 for n in range(128))
_BLOCK_SUFFIXES = tuple(str(b).encode() for b in range(40))
#: The big-endian unpacking of ``blocks`` stream blocks into their 64-bit words, per number of blocks.
_UNPACK = tuple(struct.Struct(f">{4 * blocks}Q").unpack for blocks in range(len(_BLOCK_SUFFIXES) + 1))
_SEVEN_FF = b"\xff" * 7


@lru_cache(maxsize=64)
def pack_for(opts: Options) -> tuple[str, ...]:
    if is_ghost_game(opts):  # the standard four-player 43-card pack (fours_removed applies; deck_4p does not)
        return build_pack(4, fours_removed=opts.fours_removed)
    return build_pack(opts.players, deck_4p=opts.deck_4p, fours_removed=opts.fours_removed,
                      two_player_method=opts.two_player_method, five_player_deck=opts.five_player_deck,
                      six_player_kitty=opts.six_player_kitty)


def pack_index(opts: Options) -> dict[str, int]:
    """Each card's position in the pack, kept per options in a plain dict (the compiled build calls an
    ``lru_cache`` wrapper as a generic Python call, and the engine asks this at every discard and exchange)."""
    found = _PACK_INDEX.get(opts)
    if found is None:
        found = remember(_PACK_INDEX, opts, {c: i for i, c in enumerate(pack_for(opts))}, 64)
    return found


#: :func:`pack_index` by options (a pure memo).
_PACK_INDEX: dict[Options, dict[str, int]] = {}


def has_dead_hand(opts: Options) -> bool:
    return opts.players == 2 and opts.two_player_method == "uspcc_dead_hand"


def hand_count(opts: Options) -> int:
    """Hands dealt: one per seat (ghosts included), plus the dead hand of the two-player game."""
    return seat_count(opts) + (1 if has_dead_hand(opts) else 0)


def kitty_size(opts: Options) -> int:
    """The kitty's cards: the pack less the hands dealt, kept per options in a plain dict (see :func:`pack_index`)."""
    found = _KITTY_SIZES.get(opts)
    if found is None:
        found = remember(_KITTY_SIZES, opts, len(pack_for(opts)) - HAND_SIZE * hand_count(opts), 64)
    return found


#: :func:`kitty_size` by options (a pure memo).
_KITTY_SIZES: dict[Options, int] = {}


@lru_cache(maxsize=64)
def kitty_packets(opts: Options) -> tuple[tuple[int, int], ...]:
    """The deal as (cards to each recipient, cards to the kitty) rounds; raises OptionsError if it cannot fit."""
    try:
        numbers = [int(x) for x in opts.deal_pattern.split("-")]
    except ValueError:
        raise OptionsError(f"deal_pattern {opts.deal_pattern!r} is not numbers joined by '-'") from None
    if len(numbers) % 2 or not numbers or any(n < 0 for n in numbers) or len(numbers) > 20:
        raise OptionsError(f"deal_pattern {opts.deal_pattern!r} must alternate player and kitty packets")
    if is_ghost_game(opts) and opts.deal_pattern != "3-1-4-1-3-1":
        raise OptionsError("deal_pattern does not apply to two_player_method=ghost_partners: its deal is fixed "
                           "(RULES.md 2.2); leave it at 3-1-4-1-3-1")
    players, kitty = numbers[0::2], numbers[1::2]
    size = kitty_size(opts)
    if opts.deal_pattern == "3-1-4-1-3-1" and size in _STANDARD_KITTY_PACKETS:
        kitty = list(_STANDARD_KITTY_PACKETS[size])
    if sum(players) != HAND_SIZE or sum(kitty) != size:
        raise OptionsError(f"deal_pattern {opts.deal_pattern!r} must give {HAND_SIZE} cards to each hand and "
                           f"{size} to the kitty")
    return tuple(zip(players, kitty, strict=True))


def deal(opts: Options, deck: Sequence[str], dealer: int) -> tuple[list[list[str]], list[str], list[str]]:
    """Deal ``deck`` (``deck[0]`` first) in packets starting at the dealer's left.

    Returns (hands per seat, dead hand, kitty). The two-player dead hand is dealt first, as the hand on the
    dealer's left (RULES.md 2.2).
    """
    if is_ghost_game(opts):
        return _deal_ghosts(opts, deck, dealer)
    n = opts.players
    order: list[int] = [(dealer + 1 + i) % n for i in range(n)]
    hands: list[list[str]] = [[] for _ in range(n)]
    dead: list[str] = []
    targets: list[list[str]] = ([dead] if has_dead_hand(opts) else []) + [hands[s] for s in order]
    kitty: list[str] = []
    pos = 0
    for to_each, to_kitty in kitty_packets(opts):
        for target in targets:
            target.extend(deck[pos:pos + to_each])
            pos += to_each
        kitty.extend(deck[pos:pos + to_kitty])
        pos += to_kitty
    return hands, dead, kitty


def _deal_ghosts(opts: Options, deck: Sequence[str], dealer: int) -> tuple[list[list[str]], list[str], list[str]]:
    """The ghost-partners deal (RULES.md 2.2, method C), clockwise from the dealer's left within each kind of seat:
    3 to each human; 5 face down in a row to each ghost; 1 to the kitty; 4 to each human; 5 face up to each ghost,
    one on each face-down card; 1 to the kitty; 3 to each human; 1 to the kitty.

    A ghost's hand comes back as its 10 cards in dealt order: the 5 face down, then the 5 face up, the ``i``-th
    face-up card lying on the ``i``-th face-down one (:func:`engine.ghosts.lay_out` splits it)."""
    n = seat_count(opts)
    clockwise = [(dealer + 1 + i) % n for i in range(n)]
    humans = [s for s in clockwise if s not in GHOSTS]
    ghosts = [s for s in clockwise if s in GHOSTS]
    hands: list[list[str]] = [[] for _ in range(n)]
    kitty: list[str] = []
    pos = 0
    for to_human, to_ghost in ((3, GHOST_PILES), (4, GHOST_PILES), (3, 0)):
        for s in humans:
            hands[s].extend(deck[pos:pos + to_human])
            pos += to_human
        for s in ghosts:
            hands[s].extend(deck[pos:pos + to_ghost])
            pos += to_ghost
        kitty.extend(deck[pos:pos + 1])  # (a slice, as deal() takes it: tests deal positions through it)
        pos += 1
    return hands, [], kitty


def _cut_value(c: str) -> int:
    """Cutting for the deal: joker lowest, then the ace, then the rank order upwards (… 10 11 12 13 J Q K)."""
    if c in JOKERS:
        return -1
    r = rank_of(c)
    return 0 if r == "A" else len(RANK_ORDER) - RANK_ORDER.index(r)


def cut_for_dealer(opts: Options, seed: int) -> tuple[tuple[tuple[int, str], ...], int]:
    """``first_dealer=cut_low``: seats cut in turn from a shuffled pack; the lowest deals; ties cut again."""
    pack = pack_for(opts)
    decks = 0
    deck: Iterator[str] = iter(())
    draws: list[tuple[int, str]] = []
    contenders = list(range(opts.players))
    while True:
        cut: list[tuple[int, str]] = []
        for s in contenders:
            c = next(deck, None)
            if c is None:  # long runs of ties: cut again from a fresh shuffle
                deck = iter(shuffled(pack, seed, "cut" if decks == 0 else f"cut/{decks}"))
                decks += 1
                c = next(deck)
            cut.append((s, c))
        draws += cut
        low = min(_cut_value(c) for _, c in cut)
        contenders = [s for s, c in cut if _cut_value(c) == low]
        if len(contenders) == 1:
            return tuple(draws), contenders[0]
