"""The per-hand breakdown of a duplicate match (tests/bench/breakdown.py): each hand met at both tables lands in
the class of what the two tables did with it, and the classes add up to the level's whole duplicate gain."""

from __future__ import annotations

from typing import Any

import pytest

from tests.bench.breakdown import classify, report


def _game(levels: tuple[str, str], hands: list[tuple[Any, ...]]) -> dict[str, Any]:
    return {"levels": list(levels), "hands": [list(h) for h in hands], "winners": [0], "hand_points": []}


def test_each_hand_is_classed_by_what_both_tables_did() -> None:
    # Table 1: A holds side 0; table 2: B holds side 0 (the same cards).
    t1 = _game(("expert", "guide"), [
        (1, "8H", 0, False, (-80, 0), 5),       # A bids 8H with side 0's cards and fails ...
        (2, "7S", 0, True, (140, 0), 7),        # the same contract at both tables
        (3, "MISERE", 1, True, (0, 250), 0),    # B's misère made; A with those cards bought 6C
        (4, "6D", 1, True, (0, 80), 6),         # B buys with side 1's cards ...
    ])
    t2 = _game(("guide", "expert"), [
        (1, "6H", 0, True, (100, 0), 6),        # ... where B made 6H with them
        (2, "7S", 0, True, (140, 0), 8),
        (3, "6C", 1, True, (0, 60), 6),
        (4, "7C", 0, True, (120, 0), 7),        # ... and with side 0's cards: B bought at both tables
    ])
    classes, tricks = classify([t1, t2], "expert")
    assert classes["same cards, A bid higher: A failed, B made"] == [pytest.approx((-80 - 100) / 2)]
    assert classes["same contract, same cards: card play (contractor and defence)"] == [pytest.approx(-70 + 70)]
    assert classes["misère: B made (A did not)"] == [pytest.approx((-250 + 60) / 2)]
    assert classes["B bought at both tables (other cards): made 2 of 2"] == [pytest.approx((-80 - 120) / 2)]
    assert tricks == [7 - 8]  # A declared 7S at table 1 and took 7; B took 8 at table 2
    rows = {k: v for k, _n, v in report(classes, tricks)}
    assert rows["all hands"] == pytest.approx(((-80 - 100) / 2 + (-250 + 60) / 2 + (-80 - 120) / 2) / 4)
    assert rows["[auction]"] + rows["[card play (same contract)]"] + rows["[misère]"] == \
        pytest.approx(rows["all hands"])


def test_a_hand_met_at_one_table_only_is_not_compared() -> None:
    t1 = _game(("expert", "guide"), [(1, "6H", 0, True, (60, 0), 6), (2, "6S", 1, True, (0, 40), 6)])
    t2 = _game(("guide", "expert"), [(1, "6H", 0, True, (60, 0), 6)])
    classes, _ = classify([t1, t2], "expert")
    assert sum(len(v) for v in classes.values()) == 1
