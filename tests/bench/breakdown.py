"""Where the points go in a duplicate match, hand by hand.

Each hand met at both tables of a deal pair (the same cards, the levels swapped: ``match.py``) is classed by what
the two tables did with it, and level A's duplicate gain on it (its sides' mean score change minus the others',
averaged over the two tables, so the cards' luck cancels) is summed per class and divided by the hands compared:
points per compared hand, the classes adding up to A's whole duplicate gain per hand. The classes:

- ``misère``: a misère bid at either table, by who bid it and how it ended, and whether the other table's seat
  with the same cards bid it too;
- ``same contract``: the same seat's cards bought the same contract at both tables, one declared by A and one by
  B: card play as contractor and in defence (they cannot be told apart in duplicate: A declares against B's
  defence at one table, B against A's at the other); the mean of A's tricks as contractor minus B's on them;
- ``same cards, A higher`` / ``B higher``: the same seat's cards bought at both tables, at different bids, with
  how each ended (A higher and failed where B made less: an overbid; B higher and made: a contract A undersold);
- ``A bought at both`` / ``B bought at both``: the two tables' contracts were bought with different cards, both
  by one level: at the table where it held the other side's cards it outbid (or pushed) them; with how its two
  contracts ended (B bought at both and made them: contracts A let the other side buy and make);
- ``thrown in at one table``: no contract at one table (all passed), the other's declared by A or B.

    python tests/bench/breakdown.py saved.json [other.json ...]

reads the games ``match.py --save`` wrote and prints each file's breakdown side by side (the same seeds in two
files: the same hands, so the columns compare two versions of a level on the same cards).
"""

from __future__ import annotations

import json
import statistics
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

MISERES = ("MISERE", "OPEN_MISERE", "BLIND_MISERE")


def _level(bid: str | None) -> int:
    if bid is None or bid in MISERES:
        return 0
    return int(bid[:-1] if not bid.endswith("NT") else bid[:-2])


def classify(games: Sequence[dict[str, Any]], a: str) -> tuple[dict[str, list[float]], list[int]]:
    """Per class (see the module docstring) A's duplicate gain on each hand compared, and A's tricks as
    contractor minus B's on the hands with the same contract at both tables."""
    classes: dict[str, list[float]] = defaultdict(list)
    trick_diffs: list[int] = []
    for i in range(0, len(games) - 1, 2):
        t1, t2 = games[i], games[i + 1]
        by_hand2 = {h[0]: h for h in t2["hands"]}
        for h1 in t1["hands"]:
            h2 = by_hand2.get(h1[0])
            if h2 is None:
                continue
            gain = 0.0
            rows = []
            for game, h in ((t1, h1), (t2, h2)):
                levels = game["levels"]
                mine = [k for k, lv in enumerate(levels) if lv == a]
                theirs = [k for k, lv in enumerate(levels) if lv != a]
                deltas = h[4]
                gain += (sum(deltas[k] for k in mine) / len(mine) - sum(deltas[k] for k in theirs) / len(theirs)) / 2
                who = "-" if h[2] is None else ("A" if levels[h[2]] == a else "B")
                tricks = h[5] if len(h) > 5 else None
                rows.append((who, h[2], h[1], h[3], tricks))
            classes[_key(rows)].append(gain)
            (w1, s1, b1, _m1, k1), (w2, s2, b2, _m2, k2) = rows
            if s1 is not None and s1 == s2 and b1 == b2 and b1 not in MISERES and w1 != w2 and \
                    k1 is not None and k2 is not None:
                trick_diffs.append((k1 - k2) if w1 == "A" else (k2 - k1))
    return classes, trick_diffs


def _key(rows: list[tuple[str, int | None, str | None, bool | None, int | None]]) -> str:
    (w1, s1, b1, m1, _), (w2, s2, b2, m2, _) = rows

    def res(made: bool | None) -> str:
        return "made" if made else "failed"

    mis = [(w, s, m) for w, s, b, m, _ in rows if b in MISERES]
    if mis:
        parts = []
        for w, s, m in mis:
            both = all(b in MISERES for _, s2_, b, _, _ in rows if s2_ == s) and \
                sum(1 for _, s2_, _, _, _ in rows if s2_ == s) == 2
            parts.append(f"{w} {res(m)}" + (" (both bid it)" if both else f" ({'B' if w == 'A' else 'A'} did not)"))
        return "misère: " + "; ".join(sorted(set(parts)))
    if w1 == "-" and w2 == "-":
        return "thrown in at both tables"
    if "-" in (w1, w2):
        w, m = (w2, m2) if w1 == "-" else (w1, m1)
        return f"thrown in at one table, {w} declared at the other: {res(m)}"
    if s1 == s2:
        if b1 == b2:
            return "same contract, same cards: card play (contractor and defence)"
        (wa, ba, ma), (wb, bb, mb) = ((w1, b1, m1), (w2, b2, m2)) if w1 == "A" else ((w2, b2, m2), (w1, b1, m1))
        if _level(ba) == _level(bb):
            return f"same cards, same level, other strain: A {res(ma)}, B {res(mb)}"
        higher = "A" if _level(ba) > _level(bb) else "B"
        return f"same cards, {higher} bid higher: A {res(ma)}, B {res(mb)}"
    made = sum(1 for m in (m1, m2) if m)
    return f"{w1} bought at both tables (other cards): made {made} of 2"


def group(key: str) -> str:
    """The part of the game a class belongs to: misère, card play, or the auction."""
    if key.startswith("misère"):
        return "misère"
    if key.startswith("same contract"):
        return "card play (same contract)"
    return "auction"


def report(classes: dict[str, list[float]], trick_diffs: list[int]) -> list[tuple[str, int, float]]:
    """(class, hands, A's gain per compared hand) rows, the groups' totals first and then each class."""
    total = sum(len(v) for v in classes.values())
    rows: list[tuple[str, int, float]] = [("all hands", total, sum(map(sum, classes.values())) / max(1, total))]
    groups: dict[str, list[float]] = defaultdict(list)
    for key, gains in classes.items():
        groups[group(key)] += gains
    for name in ("auction", "card play (same contract)", "misère"):
        rows.append((f"[{name}]", len(groups[name]), sum(groups[name]) / max(1, total)))
    for key, gains in sorted(classes.items(), key=lambda kv: sum(kv[1])):
        rows.append((key, len(gains), sum(gains) / max(1, total)))
    if trick_diffs:
        rows.append(("A's tricks as contractor minus B's, same contract (mean)", len(trick_diffs),
                     statistics.fmean(trick_diffs)))
    return rows


def print_breakdown(games: Sequence[dict[str, Any]], a: str) -> None:
    classes, trick_diffs = classify(games, a)
    rows = report(classes, trick_diffs)
    print(f"\nwhere the points go ({a} = A), per hand met at both tables: class, hands, A's gain in points per "
          f"compared hand (the classes add up to the first row)")
    for key, n, value in rows:
        print(f"  {key:<86} {n:>5} {value:>+8.2f}")


def main(paths: Sequence[str]) -> None:
    tables = []
    for path in paths:
        data = json.loads(Path(path).read_text())
        tables.append((path, {k: (n, v) for k, n, v in report(*classify(data["games"], data["a"]))}))
    keys: list[str] = []
    for _, rows in tables:
        keys += [k for k in rows if k not in keys]
    print("class".ljust(86) + "".join(f" | {p[-24:]:>24}" for p, _ in tables))
    for k in keys:
        cells = "".join(f" | {rows[k][0]:>6} {rows[k][1]:>+8.2f}".ljust(27) if k in rows else " |" + " " * 25
                        for _, rows in tables)
        print(f"{k[:86]:<86}{cells}")


if __name__ == "__main__":
    main(sys.argv[1:])
