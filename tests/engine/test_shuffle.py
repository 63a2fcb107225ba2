"""The shuffle's two code paths agree, and both keep their known answers.

engine/deal.py draws the same numbers two ways: :class:`engine.deal.SeedStream` one word at a time (the cut and
the random first dealer use it) and :func:`engine.deal.shuffled`, which hashes the blocks it needs in bulk, reads
limits below 128 from a table and hashes more blocks only after a rejected draw. A Fisher–Yates shuffle written
over ``SeedStream`` (the documented algorithm, line by line) is the reference both are checked against, over
packs on both sides of the limit table, and with rejections forced so that the bulk path's refill runs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

import pytest

import engine
from engine import deal
from engine.deal import SeedStream, pack_for, shuffled
from engine.options import Options


def reference_shuffle(pack: Sequence[str], seed: int, label: str,
                      limit: Callable[[int], int] = lambda n: 2**64 - 2**64 % n) -> tuple[str, ...]:
    """The documented shuffle: for i from len(pack) - 1 down to 1, swap i and uniform(i + 1) from the stream."""
    stream = SeedStream(seed, label)
    deck = list(pack)
    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        while True:
            w = stream._word()
            if w < limit(n):
                break
        j = w % n
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def test_known_answers() -> None:
    assert shuffled(("a", "b", "c", "d"), seed=7, label="deal/0") == ("d", "c", "b", "a")
    assert " ".join(shuffled(pack_for(Options()), 1, "deal/0")[:12]) == "8D 10C 9S JH KH QH QC 8C AC AH 9H 8S"
    big = " ".join(shuffled(tuple(str(i) for i in range(200)), 2**64 - 1, "deal/7"))
    assert hashlib.sha256(big.encode()).hexdigest() == \
        "a1d9cd60bf614cbced014ac622f6ecd5b3e979eec8597876d92947df52edbd6f"
    stream = SeedStream(42, "dealer")
    assert [stream.below(n) for n in (4, 6, 1000, 2**63 + 1)] == [1, 1, 877, 3016768320998455342]


@pytest.mark.parametrize("size", [2, 4, 24, 33, 43, 63, 66, 127, 128, 129, 200])
@pytest.mark.parametrize(("seed", "label"), [(0, "deal/0"), (1, "cut"), (42, "deal/13"), (2**64 - 1, "cut/2")])
def test_bulk_and_streamed_shuffles_agree(size: int, seed: int, label: str) -> None:
    pack = tuple(f"c{i}" for i in range(size))
    assert shuffled(pack, seed, label) == reference_shuffle(pack, seed, label)


@pytest.mark.skipif(engine.ENGINE_BUILD == "compiled", reason="the compiled build reads its limit table directly")
@pytest.mark.parametrize("seed", range(5))
def test_they_agree_when_draws_are_rejected(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    """With limits at a quarter of the range most draws are rejected, so the bulk path must hash more blocks."""

    def limit(n: int) -> int:
        return 2**62 - 2**62 % n if n else 0

    monkeypatch.setattr(deal, "_LIMITS", tuple(limit(n) for n in range(128)))
    monkeypatch.setattr(deal, "_SEVEN_FF", b"")  # (the precheck holds for the true limits only: always compare)
    pack = tuple(f"c{i}" for i in range(63))
    expected = reference_shuffle(pack, seed, "deal/0", limit)
    assert shuffled(pack, seed, "deal/0") == expected
    assert expected != reference_shuffle(pack, seed, "deal/0")  # the rejections changed the draws
