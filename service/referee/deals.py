"""Secret deals: every deal the service chooses comes from a 256-bit secret, which never leaves the game's state.

A seed is for reproducing a game: the engine's shuffle is documented (:mod:`engine.deal`) and fast, so whoever
knows a seed, or can search for it (a seat knows its own ten cards and the dealer; a seed of 53 or 64 bits is
within reach of rented GPUs), computes every hand and kitty of the game. So when the service deals and no
client chose the deal, it does not deal from a seed at all: it draws :data:`SECRET_BYTES` (256 bits) from the
operating system and deals every hand from deck orders derived from them.

The engine deals the explicit ``deck_orders`` of its state first, front first, and only then from its seed.
The service keeps that queue filled, as data of the state itself, so that the snapshot (sealed) and the
session's record (in the store) carry the secret and nothing else does:

- the last :func:`key_decks` entries of ``deck_orders`` are the secret, written as permutations of the pack
  (a Lehmer code, as many decks as the pack's permutations need to hold 256 bits: 3 for a 33-card pack); the
  engine never deals them, because
- before every move (:func:`topped_up`, called wherever the service applies one) at least one deck dealt from
  the secret waits ahead of them: the deck of hand ``h`` is a Fisher–Yates shuffle of the pack driven by
  HMAC-SHA256(secret, ``"deal/<h>/<block>"``), so replicas and retries derive the same deal, and a move deals
  at most one hand.

A game dealt this way is marked by its seed: the service draws it at or above :data:`SECRET_SEED_FLOOR` (2**63),
which no client can give (a client's seed is at most 2**53 − 1); such a seed only picks a random first dealer.
A game dealt from a client's seed (or from its deck orders, then its seed) is left exactly as the engine deals
it: reproducible, as documented.

>>> from engine import Options, new_game
>>> secret = bytes(range(32))
>>> state, _ = new_game(Options(), **secret_setup(Options(), secret, ()))
>>> secret_of(state) == secret, state.seed >= SECRET_SEED_FLOOR, len(state.deck_orders) == key_decks(43)
(True, True, True)
>>> topped_up(state).deck_orders[0] == secret_deck(state.options, secret, 1)
True
"""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
import struct
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import msgspec

from engine import GameState, Options
from engine.deal import pack_for

__all__ = ["SECRET_BYTES", "SECRET_SEED_FLOOR", "draw_secret", "is_secretly_dealt", "key_decks", "secret_deck",
           "secret_of", "secret_setup", "topped_up"]

#: The secret's size: 256 bits, as much as the key that seals a snapshot.
SECRET_BYTES = 32
#: The seeds the service draws for a secretly dealt game: 2**63 and above (a client's are below 2**53).
SECRET_SEED_FLOOR = 2**63
_SECRET_LIMIT = 2 ** (8 * SECRET_BYTES)


def draw_secret() -> bytes:
    """A fresh secret: :data:`SECRET_BYTES` from the operating system's CSPRNG."""
    return secrets.token_bytes(SECRET_BYTES)


@lru_cache(maxsize=16)
def key_decks(pack_size: int) -> int:
    """How many permutations of a ``pack_size``-card pack hold a 256-bit secret."""
    return math.ceil(256 / math.log2(math.factorial(pack_size)))


def _encoded(secret: bytes, pack: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """The secret as :func:`key_decks` permutations of ``pack`` (mixed radix, each deck a Lehmer code)."""
    number = int.from_bytes(secret, "big")
    decks = []
    for _ in range(key_decks(len(pack))):
        left, deck = list(pack), []
        for radix in range(len(pack), 0, -1):
            number, index = divmod(number, radix)
            deck.append(left.pop(index))
        decks.append(tuple(deck))
    return tuple(decks)


def _decoded(decks: Sequence[Sequence[str]], pack: Sequence[str]) -> bytes:
    number, scale = 0, 1
    for deck in decks:
        left = list(pack)
        for radix, card in zip(range(len(pack), 0, -1), deck, strict=True):
            index = left.index(card)
            left.pop(index)
            number += index * scale
            scale *= radix
    secret: bytes = (number % _SECRET_LIMIT).to_bytes(SECRET_BYTES, "big")
    return secret


def secret_deck(options: Options, secret: bytes, hand_number: int) -> tuple[str, ...]:
    """The deck hand ``hand_number`` is dealt from: Fisher–Yates over HMAC-SHA256(secret, ``deal/<h>/<i>``),
    each word a big-endian 64-bit integer, a uniform draw below ``n`` rejecting words at or above
    ``2**64 - 2**64 % n`` (as :mod:`engine.deal` does with its seed)."""
    deck = list(pack_for(options))
    words: list[int] = []
    block = 0

    def below(n: int) -> int:
        nonlocal block
        limit = 2**64 - 2**64 % n
        while True:
            if not words:
                digest = hmac.new(secret, f"deal/{hand_number}/{block}".encode(), hashlib.sha256).digest()
                words.extend(reversed(struct.unpack(">4Q", digest)))
                block += 1
            word = words.pop()
            if word < limit:
                return word % n

    for i in range(len(deck) - 1, 0, -1):
        j = below(i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def secret_setup(options: Options, secret: bytes, deck_orders: Sequence[Sequence[str]]) -> dict[str, Any]:
    """The engine's ``new_game`` arguments of a game dealt from ``secret`` after the client's ``deck_orders``
    (if any): a marking seed, and the deck orders with the secret behind them."""
    pack = pack_for(options)
    given = tuple(tuple(deck) for deck in deck_orders)
    first = given or (secret_deck(options, secret, 0),)
    return {"seed": SECRET_SEED_FLOOR + secrets.randbits(63), "deck_orders": (*first, *_encoded(secret, pack))}


def is_secretly_dealt(state: GameState) -> bool:
    return state.seed >= SECRET_SEED_FLOOR


def secret_of(state: GameState) -> bytes:
    """The secret a secretly dealt game deals from (read from the end of its deck orders)."""
    pack = pack_for(state.options)
    return _decoded(state.deck_orders[-key_decks(len(pack)):], pack)


def topped_up(state: GameState) -> GameState:
    """``state`` with the deck of the next hand waiting ahead of the secret, if it is dealt from one (else
    ``state`` itself): called before every move the service applies, since a move deals at most one hand."""
    if not is_secretly_dealt(state):
        return state
    pack = pack_for(state.options)
    keys = key_decks(len(pack))
    waiting = len(state.deck_orders) - keys
    if waiting >= 1 or waiting < 0:  # a deck waits (or the state was not made here: left as it is)
        return state
    secret = _decoded(state.deck_orders[waiting:], pack)
    deck = secret_deck(state.options, secret, state.hand_number + 1)
    return msgspec.structs.replace(state, deck_orders=(deck, *state.deck_orders))
