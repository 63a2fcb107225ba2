"""The analysis's figures (docs/ANALYSIS.md): its cost per whole game, how well it tells skill and luck apart,
and the fair-play signal's power and false-positive rate.

``skill``: duplicate games of ``expert`` against ``basic`` (each deal seed twice, the levels swapping sides) at
each player count, every seat analysed at the default budget. Printed: the CPU time of the analysis per whole
game (median, p95; the thread's CPU time, the game's generation not counted), each level's average loss per
weighed decision (its distribution over the games), the playouts per game (and how many exceed a client's default
playouts per minute), and per hand and side the standard deviation of the raw result against the luck-adjusted
one, overall and about each level's mean, the adjusted result's variance by part (the expected value before the
deal, each phase's gains), and the expert sides' edge over the basic sides' per hand, raw and adjusted.
``--games DIR`` keeps the games played in ``DIR`` and reads them back, so that a change to the analysis is
measured on the same games without playing them again.

``fairplay``: trials of ``--hands`` hands in which seat 0 is the bot under test (the others ``basic``): the peeking
bot of tests/analysis/players.py (every decision, or one in five) and the honest ``random``, ``basic`` and
``expert``. Seat 0 is analysed over each trial's games together; printed per bot: how many trials were labelled
``review``, the statistic's mean and spread, and the share labelled by 10, 20, … hands (power against hands).

    nice -n 5 .venv/bin/python tests/bench/bench_analysis.py skill --players 4 --pairs 10 --jobs 2 --games games
    nice -n 5 .venv/bin/python tests/bench/bench_analysis.py fairplay --trials 20 --hands 50 --jobs 2

A benchmark that prints figures, not a test.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bots import BOTS_BUILD, Level  # noqa: E402
from bots.analysis import (  # noqa: E402
    ANALYSIS_BUDGET,
    FAIR_PLAY_MIN_DECISIONS,
    FAIR_PLAY_Z,
    OpenHand,
    analyse_game,
    fair_play,
    side_gains,
)
from engine import ENGINE_BUILD, GameRecord, Options, sides  # noqa: E402
from engine.replay import replay_states  # noqa: E402
from tests.analysis.players import level_player, peeking_player, play_game, play_records, side_players  # noqa: E402

#: A client's default playouts per minute (``SEARCH_PLAYOUTS_PER_MINUTE``): the games whose analysis costs more
#: cannot be analysed whole at once.
PLAYOUTS_PER_MINUTE = 20_000
#: The bots of the fair-play trials.
FAIR_PLAY_BOTS = ("peek", "peek_one_in_five", "random", "basic", "expert")


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a share of ``k`` in ``n`` (95% by default)."""
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _game(seed: int, opts: Options, order: tuple[Level, Level], games: str | None) -> GameRecord:
    """The duplicate game of ``order`` dealt from ``seed``: played, or read from ``games`` (a folder of the games
    played before, kept there as JSON records: the games do not depend on the analysis)."""
    path = None if games is None else Path(games) / f"{seed}_{order[0]}_{order[1]}.json"
    if path is not None and path.exists():
        return msgspec.json.decode(path.read_bytes(), type=GameRecord)
    record = play_game(side_players(order, opts), seed=seed, options=opts)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(msgspec.json.encode(record))
    return record


def _skill_pair(args: tuple[int, int, int, str | None]) -> list[dict[str, Any]]:
    seed, players, budget, games = args
    opts = Options(players=players)  # type: ignore[arg-type]
    out = []
    orders: tuple[tuple[Level, Level], ...] = (("expert", "basic"), ("basic", "expert"))
    for order in orders:
        record = _game(seed, opts, order, games)
        started = time.thread_time()
        analysis = analyse_game(record, seed=seed, budget=budget)
        cpu = time.thread_time() - started
        level_of = {s: order[i % 2] for i, members in enumerate(sides(opts)) for s in members}
        losses: dict[str, list[float]] = {"expert": [], "basic": []}
        for d in analysis.decisions:
            if d.weighed:
                losses[level_of[d.seat]].append(d.loss)
        hands = [(h.result, h.adjusted) for h in analysis.hands if h.result is not None and h.adjusted is not None]
        # Each such hand's adjusted result by part: the decisions' gains of each phase, by side (the rest is the
        # expected value before the deal); and the level of each side.
        parts: dict[int, dict[str, list[float]]] = {}
        for d in analysis.decisions:
            if d.gain:
                by_phase = parts.setdefault(d.hand_number, {})
                row = by_phase.setdefault(d.phase, [0.0] * len(sides(opts)))
                for i, g in enumerate(side_gains(opts, d.seat, d.gain)):
                    row[i] += g
        gains = [parts.get(h.hand_number, {}) for h in analysis.hands
                 if h.result is not None and h.adjusted is not None]
        levels = [order[i % 2] for i in range(len(sides(opts)))]
        # The cards of each scored hand and the scores before it, with its result by side: the two games of a deal
        # seed deal the same cards to the same seats in each hand they both reach (the duplicate comparison below).
        before: dict[int, tuple[int, ...]] = {}
        for state in replay_states(record):
            before.setdefault(state.hand_number, state.scores)
        dealt = {h.hand_number: (record.hands[h.hand_number].dealt, record.hands[h.hand_number].kitty,
                                 before[h.hand_number], h.result)
                 for h in analysis.hands if h.result is not None and h.adjusted is not None}
        out.append({"cpu": cpu, "hands": len(record.hands), "moves": len(record.moves),
                    "playouts": analysis.playouts, "losses": losses, "results": hands, "dealt": dealt,
                    "gains": gains, "levels": levels})
    return out


def skill(args: argparse.Namespace) -> None:
    for players in args.players:
        work = [(args.seed * 1_000 + players * 100 + i, players, args.budget, args.games) for i in range(args.pairs)]
        started = time.time()
        with Pool(args.jobs) as pool:
            games = [g for pair in pool.imap(_skill_pair, work) for g in pair]
        cpus = [g["cpu"] for g in games]
        print(f"\n{players} players: {len(games)} games ({args.pairs} deal seeds, each twice with the sides "
              f"swapped), expert against basic, every seat analysed at budget {args.budget}; "
              f"{time.time() - started:.0f} s wall, {args.jobs} job(s)")
        print(f"  analysis CPU per whole game: median {statistics.median(cpus):.2f} s, p95 {_quantile(cpus, 0.95):.2f} "
              f"s, max {max(cpus):.2f} s; hands per game median {statistics.median(g['hands'] for g in games)}, "
              f"moves {statistics.median(g['moves'] for g in games)}")
        playouts = [g["playouts"] for g in games]
        print(f"  playouts per whole game: median {statistics.median(playouts)}, p95 {_quantile(playouts, 0.95)}, "
              f"max {max(playouts)}; {sum(1 for p in playouts if p > PLAYOUTS_PER_MINUTE)} of {len(games)} games "
              f"above {PLAYOUTS_PER_MINUTE:,} (a client's default playouts per minute)")
        for level in ("expert", "basic"):
            per_game = [statistics.fmean(g["losses"][level]) for g in games if g["losses"][level]]
            every = [x for g in games for x in g["losses"][level]]
            print(f"  {level:>6}: average loss per weighed decision {statistics.fmean(every):.2f} over {len(every)} "
                  f"decisions; per game median {statistics.median(per_game):.2f}, quartiles "
                  f"{_quantile(per_game, 0.25):.2f} to {_quantile(per_game, 0.75):.2f}, range {min(per_game):.2f} "
                  f"to {max(per_game):.2f}")
        paired = [statistics.fmean(games[i + 1]["losses"]["basic"] + games[i]["losses"]["basic"])
                  - statistics.fmean(games[i]["losses"]["expert"] + games[i + 1]["losses"]["expert"])
                  for i in range(0, len(games), 2)]
        print(f"  basic minus expert, per deal seed: mean {statistics.fmean(paired):.2f}, positive in "
              f"{sum(1 for x in paired if x > 0)} of {len(paired)}")
        expert_games = [statistics.fmean(g["losses"]["expert"]) for g in games if g["losses"]["expert"]]
        basic_games = [statistics.fmean(g["losses"]["basic"]) for g in games if g["losses"]["basic"]]
        below = sum((e < b) + 0.5 * (e == b) for e in expert_games for b in basic_games)
        print(f"  separation: a game's expert average loss below a game's basic one in "
              f"{below / (len(expert_games) * len(basic_games)):.2f} of the pairs of games (1.00: no overlap)")
        raw = [r for g in games for result, _ in g["results"] for r in result]
        adjusted = [a for g in games for _, adj in g["results"] for a in adj]
        if len(raw) > 1:
            luck = [r - a for r, a in zip(raw, adjusted, strict=True)]
            slope = statistics.covariance(raw, luck) / statistics.variance(luck) if statistics.variance(luck) else 0.0
            print(f"  per hand and side ({len(raw)}): raw result sd {statistics.stdev(raw):.1f}, luck-adjusted sd "
                  f"{statistics.stdev(adjusted):.1f}, ratio {statistics.stdev(raw) / statistics.stdev(adjusted):.2f}; "
                  f"correlation of the result with the luck {statistics.correlation(raw, luck):.2f}, slope of the "
                  f"result on the luck {slope:.2f} (1: the luck is uncorrelated with the adjusted result)")
            variance = statistics.variance(adjusted)
            phases = ("auction", "exchange", "call", "nominate", "play")
            by_phase = {p: [row.get(p, [0.0] * len(result))[i] for g in games for (result, _), row
                            in zip(g["results"], g["gains"], strict=True) for i in range(len(result))] for p in phases}
            gained = [sum(v) for v in zip(*by_phase.values(), strict=True)]
            expected = [a - x for a, x in zip(adjusted, gained, strict=True)]
            shares = ", ".join(f"{p} {statistics.variance(v) / variance:.2f}" for p, v in
                               (("expected value", expected), *by_phase.items()) if any(v))
            print(f"  the adjusted result's variance by part (each part's variance over the whole's): {shares}")
            rows = [(result, adj, g["levels"]) for g in games for result, adj in g["results"]]
            # The same spread about each level's mean (the expert sides' and the basic sides'): what is left once
            # the levels' difference, the skill the adjusted result is meant to keep, is set aside.
            within = []
            for pick in (0, 1):
                by_level: dict[str, list[float]] = {"expert": [], "basic": []}
                for row in rows:
                    for x, lv in zip(row[pick], row[2], strict=True):
                        by_level[lv].append(x)
                within.append(math.sqrt(sum((x - statistics.fmean(v)) ** 2 for v in by_level.values() for x in v)
                                        / (sum(len(v) for v in by_level.values()) - 2)))
            print(f"  about each level's mean: raw sd {within[0]:.1f}, luck-adjusted sd {within[1]:.1f}, ratio "
                  f"{within[0] / within[1]:.2f}")
            for name, pick in (("raw", 0), ("adjusted", 1)):
                # Per hand: the expert sides' mean result less the basic sides' (the skill the figures should keep).
                edge = [statistics.fmean(x for x, lv in zip(row[pick], row[2], strict=True) if lv == "expert")
                        - statistics.fmean(x for x, lv in zip(row[pick], row[2], strict=True) if lv == "basic")
                        for row in rows]
                se = statistics.stdev(edge) / math.sqrt(len(edge))
                print(f"  {name:>8}: the expert sides' result less the basic sides', per hand: mean "
                      f"{statistics.fmean(edge):.1f}, standard error {se:.1f} ({len(edge)} hands)")
        # Duplicate: a hand both games of a deal seed reached with the same cards in the same seats and the same
        # scores. Any luck that is a function of the cards (and the scores, the dealer) is the same at both tables,
        # so the luck-adjusted results of such a pair differ exactly as the raw ones do; the least spread it can
        # leave is that of half their difference about the pair's mean (the luck then being the pair's mean).
        pairs = [(a[3], b[3]) for i in range(0, len(games), 2)
                 for h, a in games[i]["dealt"].items() if (b := games[i + 1]["dealt"].get(h)) and a[:3] == b[:3]]
        same = [x for a, b in pairs for x in a + b]
        half = [(x - y) / 2 for a, b in pairs for x, y in zip(a, b, strict=True)]
        if len(half) > 1:
            floor = math.sqrt(sum(d * d for d in half) / len(half))
            print(f"  duplicate hands (the same cards and scores at both tables: {len(pairs)} pairs): raw sd "
                  f"{statistics.stdev(same):.1f}, the least sd any luck of the cards alone can leave {floor:.1f}, "
                  f"so at most a ratio of {statistics.stdev(same) / floor:.2f}")


def _player(name: str) -> Any:
    if name == "peek":
        return peeking_player(1.0)
    if name == "peek_one_in_five":
        return peeking_player(0.2)
    return level_player(name)  # type: ignore[arg-type]


def _trial(args: tuple[str, int, int, int]) -> dict[str, Any]:
    name, seed, hands, budget = args
    players = [_player(name)] + [level_player("basic")] * 3
    records = play_records(players, seed=seed, hands=hands)
    readings: list[tuple[int, OpenHand]] = []  # (hands played before this decision's hand ended, the reading)
    before = 0
    for record in records:
        analysis = analyse_game(record, [0], seed=seed, budget=budget, luck=False)
        for d in analysis.decisions:
            if d.open_hand is not None:
                readings.append((before + d.hand_number + 1, d.open_hand))
        before += len(record.hands)
    checkpoints = {}
    for upto in range(10, hands + 1, 10):
        checkpoints[upto] = fair_play(r for h, r in readings if h <= upto)
    return {"name": name, "final": fair_play(r for _, r in readings), "checkpoints": checkpoints}


def fairplay(args: argparse.Namespace) -> None:
    for name in args.bots:
        work = [(name, args.seed * 10_000 + i, args.hands, args.budget) for i in range(args.trials)]
        started = time.time()
        with Pool(args.jobs) as pool:
            trials = list(pool.imap(_trial, work))
        finals = [t["final"] for t in trials]
        zs = [f.z for f in finals if f.z is not None]
        labelled = sum(1 for f in finals if f.label == "review")
        print(f"\n{name}: {len(trials)} trials of {args.hands} hands (seat 0; the others basic), budget "
              f"{args.budget}, threshold z >= {FAIR_PLAY_Z}; {time.time() - started:.0f} s wall")
        low, high = _wilson(labelled, len(trials))
        print(f"  labelled review: {labelled} of {len(trials)} (95% interval {low:.3f} to {high:.3f}); informative "
              f"decisions per trial median "
              f"{statistics.median(f.decisions for f in finals)}; z mean {statistics.fmean(zs):.2f}, sd "
              f"{statistics.stdev(zs) if len(zs) > 1 else 0.0:.2f}, max {max(zs):.2f}")
        enough = [f.z for f in finals if f.z is not None and f.decisions >= FAIR_PLAY_MIN_DECISIONS]
        at = ", ".join(f"z >= {z}: {sum(1 for x in enough if x >= z)}" for z in (3.0, 3.5, 4.0, 4.5))
        print(f"  labelled after {args.hands} hands at other thresholds (the same fewest decisions): {at}")
        power = ", ".join(f"{h} hands {sum(1 for t in trials if t['checkpoints'][h].label == 'review')}"
                          for h in sorted(trials[0]["checkpoints"]))
        print(f"  labelled by: {power} (of {len(trials)})")
        ordered = sorted(zs)
        shown = ordered if len(ordered) <= 30 else [_quantile(ordered, q) for q in (0.0, 0.01, 0.05, 0.25, 0.5, 0.75,
                                                                                     0.95, 0.99)] + [ordered[-1]]
        which = "each trial" if len(ordered) <= 30 else "min, 1%, 5%, 25%, median, 75%, 95%, 99%, max"
        print(f"  z after {args.hands} hands, {which}: {', '.join(f'{z:.2f}' for z in shown)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=("skill", "fairplay"))
    parser.add_argument("--players", type=int, nargs="+", default=[4])
    parser.add_argument("--pairs", type=int, default=10, help="skill: deal seeds per player count (two games each)")
    parser.add_argument("--bots", nargs="+", default=list(FAIR_PLAY_BOTS), choices=FAIR_PLAY_BOTS)
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--hands", type=int, default=50)
    parser.add_argument("--budget", type=int, default=ANALYSIS_BUDGET)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--games", help="skill: a folder keeping the games played (read back when there)")
    args = parser.parse_args()
    print(f"engine {ENGINE_BUILD}, bots {BOTS_BUILD}")
    (skill if args.what == "skill" else fairplay)(args)


if __name__ == "__main__":
    main()
