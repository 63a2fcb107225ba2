"""The sampler's own draws (:func:`bots.knowledge.sampled`, :func:`bots.knowledge.shuffled`) make exactly the
picks of ``random.Random.sample`` and ``shuffle`` from the same generator, and leave it in the same state: the
deals the expert samples are the ones the standard library's methods would give."""

from __future__ import annotations

import random

import pytest

from bots.knowledge import sampled, shuffled


@pytest.mark.parametrize("n", [1, 2, 5, 6, 13, 21, 22, 30, 43, 53, 64, 85, 86, 120])
def test_sampled_is_random_sample(n: int) -> None:
    population = list(range(100, 100 + n))
    for seed in range(40):
        for k in sorted({0, 1, 2, 3, 5, 6, 7, n // 2, n - 1, n} - {-1}):
            if not 0 <= k <= n:
                continue
            mine, theirs = random.Random(seed), random.Random(seed)
            assert sampled(mine, population, k) == theirs.sample(population, k), (n, k, seed)
            assert mine.getstate() == theirs.getstate()
            # A spare list is drawn from in place: the same picks.
            mine, theirs = random.Random(seed), random.Random(seed)
            assert sampled(mine, list(population), k, spare=True) == theirs.sample(population, k), (n, k, seed)
            assert mine.getstate() == theirs.getstate()
    assert population == list(range(100, 100 + n))  # left as it was


def test_sampled_refuses_what_sample_refuses() -> None:
    with pytest.raises(ValueError):
        sampled(random.Random(1), [1, 2], 3)
    with pytest.raises(ValueError):
        sampled(random.Random(1), [1, 2], -1)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 33, 53])
def test_shuffled_is_random_shuffle(n: int) -> None:
    for seed in range(40):
        mine, theirs = random.Random(seed), random.Random(seed)
        a = [f"c{i}" for i in range(n)]
        b = list(a)
        shuffled(mine, a)
        theirs.shuffle(b)
        assert a == b and mine.getstate() == theirs.getstate()
