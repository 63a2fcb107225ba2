"""The search's statistics over paired playout values (bots/expert.py: ``prune``, ``futile``, ``indifferent``,
``settled``, ``choose``) answer as the forms first written, which built each pair's list of differences for every
ordered pair and summed it with ``sum`` (``_clear_gain`` and ``choose`` as the frozen baseline in
tests/bench/baseline still has them): the same floats, so the same candidates kept and chosen, on many random sets
of values of the shapes playouts give (whole contracts apart, ties, equal lists)."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from bots.expert import (
    INDIFFERENT,
    INDIFFERENT_CONFIDENCE,
    PRUNE_CONFIDENCE,
    _gain,
    choose,
    futile,
    indifferent,
    prune,
    settled,
)
from tests.bench.baseline.expert import _clear_gain as reference_clear_gain
from tests.bench.baseline.expert import choose as reference_choose


def reference_gain(other: Sequence[float], base: Sequence[float]) -> tuple[float, float]:
    n = len(base)
    diffs = [a - b for a, b in zip(other, base, strict=True)]
    mean = sum(diffs) / n
    return mean, math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1) / n)


def reference_prune(values: Sequence[Sequence[float]], ids: Sequence[int]) -> list[int]:
    n = len(values[0])
    keep = [ids[0]]
    for i in range(1, len(values)):
        if values[i] == values[0]:
            continue
        if not any(reference_clear_gain(values[j], values[i], n, PRUNE_CONFIDENCE) is not None
                   for j in range(len(values)) if j != i):
            keep.append(ids[i])
    return keep


def random_values(rng: random.Random) -> list[list[float]]:
    """Candidates' playout values on the same deals: a shared deal luck, each candidate's own edge and noise, in
    points and fractions as hand values come; some candidates equal to the first, some values tied."""
    deals = rng.choice((2, 3, 8, 16, 40, 120))
    luck = [rng.choice((-1, 1)) * rng.choice((0.0, 10.0, 40.0, 250.0)) + rng.uniform(-30, 30) for _ in range(deals)]
    out: list[list[float]] = []
    for c in range(rng.randint(1, 7)):
        if c and rng.random() < 0.15:
            out.append(list(out[0]))
            continue
        edge = rng.choice((-20.0, -3.0, 0.0, 0.5, 4.0, 25.0))
        spread = rng.choice((0.0, 1.0, 15.0, 80.0))
        out.append([round(x + edge + rng.gauss(0, spread), rng.choice((0, 2, 6))) for x in luck])
    return out


def test_the_statistics_are_the_ones_first_written() -> None:
    rng = random.Random(5)
    kept_fewer = chose_other = 0
    for _ in range(3000):
        values = random_values(rng)
        ids = list(range(10, 10 + len(values)))
        kept = prune(values, ids)
        assert kept == reference_prune(values, ids)
        kept_fewer += len(kept) < len(values)
        chosen = choose(values)
        assert chosen == reference_choose(values)
        chose_other += chosen != 0
        if len(values) > 1 and len(values[0]) > 1:
            for other in values[1:]:
                assert _gain(other, values[0]) == reference_gain(other, values[0])
            for trail in (0.0, 1.0):
                assert futile(values, ids, trail) == [ids[0]] + [
                    ids[i] for i in range(1, len(values))
                    if (g := reference_gain(values[i], values[0]))[0] > -trail * g[1]]
            assert indifferent(values) == all(
                (g := reference_gain(o, values[0]))[0] + INDIFFERENT_CONFIDENCE * g[1] < INDIFFERENT
                for o in values[1:])
            assert settled(values[:2]) == (len(values) >= 2 and reference_clear_gain(
                values[1], values[0], len(values[0]), PRUNE_CONFIDENCE) is not None)
    # The random values reached both answers of each rule.
    assert 0 < kept_fewer < 3000 and 0 < chose_other < 3000
