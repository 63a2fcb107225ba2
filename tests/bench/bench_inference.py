"""How well the expert's sampled deals place the cards a seat cannot see, beside another checkout.

The positions are the card-play decisions of the ``expert`` seats (every other one) in the first hands of seeded
games, its side against ``basic`` (the expert at a small budget, so that the positions come quickly; they are
made once, by this checkout, and put to both). At each, the checkout's sampler (``bots.inference``: the bids,
passes and plays read) draws deals of the unseen cards, and the figure is the share of the cards in the other
seats' hands that a sampled deal puts in the hand that really holds them; also for the high cards alone (joker,
aces, jacks, kings), and by the tricks played so far. A uniform deal of the unseen cards scores about one in the
number of places they may lie; knowing every hand would score 1.

    python tests/bench/bench_inference.py --games 24
    python tests/bench/bench_inference.py --games 24 --against /path/to/other/checkout

This is a benchmark that prints figures, not a test.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[2]
HIGH = ("A", "J", "K")  # ranks; the joker counts too


def positions(games: int, players: int, hands: int, budget: int, seed: int) -> bytes:
    """The expert seats' card-play positions of ``games`` games, as JSON."""
    import msgspec

    from bots import decide
    from engine import Options, apply_move, new_game, sides, view

    opts = Options(players=players)  # type: ignore[arg-type]
    side = {s: i for i, members in enumerate(sides(opts)) for s in members}
    out = []
    for g in range(games):
        state, _ = new_game(opts, seed=seed + g)
        expert_side = g % 2
        step = 0
        while state.to_act is not None and state.hand_number < hands:
            seat = state.to_act
            expert = side[seat] == expert_side
            if expert and state.phase == "play" and step % 2 == 0:
                out.append(state)
            decision = decide(view(state, seat), opts, level="expert" if expert else "basic",
                              seed=g * 1000 + step, budget=budget if expert else None)
            state, _ = apply_move(state, decision.move)
            step += 1
    return msgspec.json.encode(out)


def work(root: Path, data: bytes, deals: int) -> dict[str, object]:
    """The placement shares of the checkout at ``root`` on the positions in ``data``."""
    sys.path.insert(0, str(root))
    import msgspec

    from bots.inference import read_auction, sample
    from bots.knowledge import Knowledge
    from engine import GameState, view
    from engine.cards import JOKERS

    shares: list[float] = []
    high: list[float] = []
    by_trick: dict[int, list[float]] = {}
    for state in msgspec.json.decode(data, type=list[GameState]):
        seat = state.to_act
        assert seat is not None
        knowledge = Knowledge(view(state, seat), state.options)
        evidence = read_auction(knowledge)
        holder = {c: s for s in range(len(state.hands)) if s != seat for c in state.hands[s]}
        hidden = [c for c in knowledge.unseen if c in holder]
        if not hidden:
            continue
        hits = high_hits = high_n = 0
        for k in range(deals):
            dealt = sample(knowledge, random.Random(k), evidence).hands
            for c in hidden:
                right = c in dealt[holder[c]]
                hits += right
                if c in JOKERS or c[:-1] in HIGH:
                    high_hits += right
                    high_n += 1
        share = hits / (deals * len(hidden))
        shares.append(share)
        if high_n:
            high.append(high_hits / high_n)
        by_trick.setdefault(len(state.tricks), []).append(share)
    return {"positions": len(shares), "all": statistics.fmean(shares), "high": statistics.fmean(high),
            "by_trick": {str(t): statistics.fmean(v) for t, v in sorted(by_trick.items())}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=24)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--hands", type=int, default=2, help="hands played per game")
    parser.add_argument("--budget", type=int, default=48, help="the expert's playouts while making the positions")
    parser.add_argument("--deals", type=int, default=20, help="deals sampled per position")
    parser.add_argument("--seed", type=int, default=9000)
    parser.add_argument("--against", type=Path, default=None, help="another checkout to compare with")
    parser.add_argument("--worker", type=Path, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--positions-file", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker is not None:
        print(json.dumps(work(args.worker, args.positions_file.read_bytes(), args.deals)))
        return
    sys.path.insert(0, str(HERE))
    data = positions(args.games, args.players, args.hands, args.budget, args.seed)
    roots = [HERE] + ([args.against.resolve()] if args.against else [])
    env = dict(os.environ, FIVE_HUNDRED_ENGINE=os.environ.get("FIVE_HUNDRED_ENGINE", "pure"))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "positions.json"
        path.write_bytes(data)
        for root in roots:
            command = [sys.executable, __file__, "--worker", str(root), "--positions-file", str(path),
                       "--deals", str(args.deals)]
            out = subprocess.run(command, capture_output=True, text=True, check=True, env=env, cwd=root)
            result = json.loads(out.stdout)
            tricks = " ".join(f"{t}: {v:.3f}" for t, v in result["by_trick"].items())
            print(f"{root}: {result['positions']} positions, {args.deals} deals each; placed right "
                  f"{result['all']:.4f}, high cards {result['high']:.4f}; by tricks played {tricks}")


if __name__ == "__main__":
    main()
