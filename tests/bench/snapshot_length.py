"""What a sealed snapshot's length still tells about the cards a seat cannot see.

A snapshot is an opaque string, but its length is visible to whoever holds it. For each of ``--views`` random
mid-game states (random player count, random options, a random point of a random game) and a random seat,
this draws ``--completions`` random completions of the hidden cards around that seat's view: the cards the
seat does not see (from its view: not its hand, not an exposed hand, not the kitty or discards it was shown,
not played) are permuted among the places that hold them (other hands, the kitty, the dead hand, the
discards), hands re-sorted, each completion kept only if the engine's integrity check accepts it (voids
shown in play are not enforced: the measure is of the length channel, not of a player's inference). Every
completion is then sealed, and the script prints, side by side:

* ``v1`` (before): the length of the unpadded format (``v1``: the compressed state, sealed as it is);
* ``v2`` (now): the length of :meth:`service.referee.snapshots.Sealer.seal` (the compressed state padded to a length
  that depends only on the public state).

Per view: the number of distinct lengths and their Shannon entropy (bits). Pooled over the views where the
joker is among the hidden cards: how often the joker's place (which hand, the kitty …) is guessed right from
the length alone (the most frequent place seen with that length on one half of the completions, tested on
the other half), against the best guess without the length (the most frequent place on the first half).

    .venv/bin/python tests/bench/snapshot_length.py --views 40 --completions 800

Current figures, each with its command, machine and engine: docs/BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine import GameState, apply_move, integrity_problems, legal_moves, new_game, pack_for, view  # noqa: E402
from service.referee.snapshots import _ENCODER, PAD_STEP, Sealer, _compressor, key_id, sealed_length  # noqa: E402
from tests.engine.randomplay import random_options  # noqa: E402

JOKERS = ("JK", "BJ", "RJ")


def random_state(rng: random.Random) -> tuple[GameState, int]:
    """A random point of a random game with cards still hidden from the chosen seat, and that seat."""
    while True:
        players = rng.choice([2, 3, 4, 4, 5, 6])
        state, _ = new_game(random_options(rng, players, 0.3), seed=rng.randrange(2**63))
        for _ in range(rng.randrange(0, 70)):
            moves = legal_moves(state)
            if not moves:
                break
            state, _ = apply_move(state, rng.choice(moves))
        if state.to_act is None:
            continue
        seat = rng.randrange(players)
        if len(hidden_cards(state, seat)) >= 4:
            return state, seat


def hidden_cards(state: GameState, seat: int) -> set[str]:
    """The cards held somewhere (hands, kitty, dead hand, discards) that ``seat``'s view does not show."""
    v = view(state, seat)
    seen = set(v.hand or ())
    for cards in v.exposed.values():
        seen.update(cards)
    seen.update(v.kitty or ())
    seen.update(v.discards or ())
    held = set(state.kitty) | set(state.dead_hand) | set(state.discards)
    for hand in state.hands:
        held.update(hand)
    return held - seen


def completion(state: GameState, hidden: set[str], rng: random.Random, rank: dict[str, int]) -> GameState:
    """``state`` with the ``hidden`` cards permuted among their places (consistently everywhere)."""
    cards = sorted(hidden, key=rank.__getitem__)
    shuffled = cards[:]
    rng.shuffle(shuffled)
    mapping = dict(zip(cards, shuffled, strict=True))

    def mapped(place: Iterable[str]) -> tuple[str, ...]:
        return tuple(mapping.get(c, c) for c in place)

    def sort(place: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(sorted(place, key=rank.__getitem__))

    return msgspec.structs.replace(state, hands=tuple(sort(mapped(h)) for h in state.hands),
                                   dead_hand=sort(mapped(state.dead_hand)), kitty=mapped(state.kitty),
                                   discards=mapped(state.discards))


def joker_place(state: GameState, hidden: set[str]) -> str | None:
    joker = next((j for j in JOKERS if j in hidden), None)
    if joker is None:
        return None
    for i, hand in enumerate(state.hands):
        if joker in hand:
            return f"seat {i}"
    for name in ("kitty", "dead_hand", "discards"):
        if joker in getattr(state, name):
            return name
    return "?"


def entropy(counts: Counter[int]) -> float:
    total = sum(counts.values())
    return abs(-sum(n / total * math.log2(n / total) for n in counts.values()))


def v1_length(state: GameState, kid: str) -> int:
    """The length of the unpadded (``v1``) snapshot of ``state``: nonce, compressed state, GCM tag."""
    raw = 12 + len(_compressor().compress(_ENCODER.encode(state))) + 16
    return len(f"v1.{kid}.") + math.ceil(raw * 4 / 3)


def guess_rate(samples: list[tuple[int, str]]) -> tuple[int, int, int]:
    """(right with the length, right without it, tested): trained on the first half, tested on the second."""
    half = len(samples) // 2
    train, test = samples[:half], samples[half:]
    overall = Counter(place for _, place in train).most_common(1)[0][0]
    by_length: dict[int, Counter[str]] = defaultdict(Counter)
    for length, place in train:
        by_length[length][place] += 1
    with_length = sum(1 for length, place in test
                      if (by_length[length].most_common(1)[0][0] if length in by_length else overall) == place)
    without = sum(1 for _, place in test if place == overall)
    return with_length, without, len(test)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--views", type=int, default=40)
    parser.add_argument("--completions", type=int, default=800)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    key = Sealer.generate_key()
    sealer, kid = Sealer([key]), key_id(key)
    totals = {"v1": [0, 0, 0], "v2": [0, 0, 0]}
    distinct: dict[str, list[int]] = {"v1": [], "v2": []}
    bits: dict[str, list[float]] = {"v1": [], "v2": []}
    sizes: list[int] = []
    v1_sizes: list[int] = []
    overflow = rejected = 0
    started = time.perf_counter()
    print(f"{'view':>4} {'players':>7} {'phase':>9} {'hidden':>6} {'kept':>5}   {'v1 lengths':>10} {'bits':>5}"
          f"   {'v2 lengths':>10} {'bits':>5}  {'v1 chars':>8} {'v2 chars':>8}")
    for i in range(args.views):
        state, seat = random_state(rng)
        hidden = hidden_cards(state, seat)
        rank = {c: n for n, c in enumerate(pack_for(state.options))}  # hands are kept in pack order
        lengths: dict[str, Counter[int]] = {"v1": Counter(), "v2": Counter()}
        jokers: dict[str, list[tuple[int, str]]] = {"v1": [], "v2": []}
        public_length = sealed_length(state)
        kept = 0
        for _ in range(args.completions):
            other = completion(state, hidden, rng, rank)
            if integrity_problems(other):
                rejected += 1
                continue
            kept += 1
            measured = {"v1": v1_length(other, kid), "v2": len(sealer.seal(other))}
            if sealed_length(other) != public_length:
                raise AssertionError("the padded length moved with hidden cards")
            frame = len(_compressor().compress(_ENCODER.encode(other)))
            overflow += frame > public_length
            place = joker_place(other, hidden)
            for name, length in measured.items():
                lengths[name][length] += 1
                if place is not None:
                    jokers[name].append((length, place))
        for name in ("v1", "v2"):
            distinct[name].append(len(lengths[name]))
            bits[name].append(entropy(lengths[name]))
            if jokers[name]:
                right, base, tested = guess_rate(jokers[name])
                totals[name][0] += right
                totals[name][1] += base
                totals[name][2] += tested
        sizes.append(lengths["v2"].most_common(1)[0][0])
        v1_sizes.append(sorted(lengths["v1"].elements())[kept // 2])
        print(f"{i:>4} {state.options.players:>7} {state.phase:>9} {len(hidden):>6} {kept:>5}   "
              f"{len(lengths['v1']):>10} {bits['v1'][-1]:>5.2f}   {len(lengths['v2']):>10} {bits['v2'][-1]:>5.2f}"
              f"  {v1_sizes[-1]:>8} {sizes[-1]:>8}")
    print()
    print(f"{args.views} views x {args.completions} completions ({rejected} completions refused by the "
          f"integrity check), {time.perf_counter() - started:.0f} s")
    for name, label in (("v1", "v1 (unpadded, before)"), ("v2", "v2 (padded, now)")):
        right, base, tested = totals[name]
        rate = f"{100 * right / tested:.1f}% right from the length vs {100 * base / tested:.1f}% without " \
               f"({tested} tested)" if tested else "no view with a hidden joker"
        print(f"{label:<22} distinct lengths per view: median {sorted(distinct[name])[len(distinct[name]) // 2]}, "
              f"max {max(distinct[name])}; bits per view: mean {sum(bits[name]) / len(bits[name]):.2f}, "
              f"max {max(bits[name]):.2f}; joker's place: {rate}")
    print(f"v2: completions whose compressed state overflowed the padded length (and took a further "
          f"{PAD_STEP}-byte step): {overflow}")
    for name, chars in (("v1", v1_sizes), ("v2", sizes)):
        print(f"{name} snapshot length over the views (median of each view's completions): median "
              f"{sorted(chars)[len(chars) // 2]} chars ({min(chars)}-{max(chars)})")


if __name__ == "__main__":
    main()
