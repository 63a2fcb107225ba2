"""Seeded random games and random junk moves for the property tests, the perft generator and the benchmarks."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from typing import Any

import msgspec

from engine import (
    ALL_CARDS,
    AnswerRedeal,
    Bid,
    CallCard,
    ChoosePartners,
    Discard,
    GameState,
    GoAlone,
    LookAtHand,
    Move,
    NominateJoker,
    Options,
    Pass,
    Play,
    ProposeRedeal,
    legal_moves,
    option_catalogue,
    resolve_options,
)
from engine.rules import ALL_BIDS

_CATALOGUE = {o["name"]: o for o in option_catalogue()}
_SKIP = {"players", "deal_pattern", "target", "lose_at"}


def random_options(rng: random.Random, players: int, change_probability: float = 0.3) -> Options:
    """A random rule set: each option takes a random allowed value with the given probability."""
    overrides: dict[str, Any] = {}
    for name, spec in _CATALOGUE.items():
        if name in _SKIP or not spec["allowed"]:
            continue
        if rng.random() < change_probability:
            overrides[name] = rng.choice(spec["allowed"])
    if rng.random() < 0.3:
        overrides["target"] = rng.choice([200, 300, 500])
        overrides["lose_at"] = rng.choice([-200, -300, -500])
    return resolve_options(players, None, overrides)


def random_ghost_options(rng: random.Random, change_probability: float = 0.3) -> Options:
    """A random rule set of the two-player ghost-partners game (``two_player_method=ghost_partners``)."""
    while True:
        base = random_options(rng, 2, change_probability)
        if base.two_player_method == "ghost_partners":
            return base
        overrides = msgspec.structs.asdict(base)
        overrides["two_player_method"] = "ghost_partners"
        del overrides["players"]
        return resolve_options(2, None, overrides)


def choose(rng: random.Random, state: GameState, moves: Sequence[Move], pass_bias: float) -> Move:
    """A random legal move; in the auction, pass with probability ``pass_bias`` so games last several hands."""
    if state.phase == "auction" and rng.random() < pass_bias:
        passes = [m for m in moves if isinstance(m, Pass)]
        if passes:
            return passes[0]
    return moves[rng.randrange(len(moves))]


def random_game(rng: random.Random, state: GameState, pass_bias: float = 0.6,
                max_steps: int = 5000) -> Iterator[tuple[GameState, Move]]:
    """Yield (state before, move chosen) along one random game (the caller applies the move).

    Every game must end within ``max_steps``, except under ``out_backwards_only_if_opponent_nonnegative``, where
    sides that are all below ``lose_at`` legitimately play on until one reaches the target (random play may never
    get there), and under ``win_requires_contract`` once a side stands at the target without having won it by a
    contract (it plays on until it makes one, which random play rarely does); such a game is cut off at
    ``max_steps``.
    """
    from engine import apply_move

    may_run_on = state.options.out_backwards_only_if_opponent_nonnegative
    for _ in range(max_steps):
        if state.to_act is None:
            return
        moves = legal_moves(state)
        move = choose(rng, state, moves, pass_bias)
        yield state, move
        state, _ = apply_move(state, move)
    past_target = state.options.win_requires_contract and max(state.scores) >= state.options.target
    if not (may_run_on or past_target):
        raise AssertionError(f"game did not end within {max_steps} moves")


def junk_moves(rng: random.Random, state: GameState, count: int) -> list[Move]:
    """Random moves of every type with plausible and implausible field values."""
    n = state.options.players
    seats = list(range(n)) + [-1, n, 99]
    cards = sorted(ALL_CARDS) + ["ZZ", "", "1H"]
    own = list(state.hands[state.to_act]) if state.to_act is not None else []
    bids = sorted(ALL_BIDS) + ["11NT", "5S", "NT", ""]
    suits = ["S", "C", "D", "H", None, "X"]
    out: list[Move] = []
    for _ in range(count):
        seat = rng.choice(seats) if rng.random() < 0.3 else (state.to_act if state.to_act is not None else 0)
        kind = rng.randrange(11)
        card = rng.choice(own) if own and rng.random() < 0.6 else rng.choice(cards)
        if kind == 0:
            out.append(Bid(seat=seat, bid=rng.choice(bids), sans_kitty=rng.random() < 0.2))
        elif kind == 1:
            out.append(Pass(seat=seat))
        elif kind == 2:
            out.append(Play(seat=seat, card=card, nominate=rng.choice(suits) if rng.random() < 0.3 else None))
        elif kind == 3:
            k = rng.choice([2, 3, 3, 3, 4, 5, 6])
            pool = own if own and rng.random() < 0.7 else cards
            out.append(Discard(seat=seat, cards=tuple(rng.choice(pool) for _ in range(k))))
        elif kind == 4:
            out.append(NominateJoker(seat=seat, suit=rng.choice(suits), card=rng.choice(["JK", "JKB", "AS"])))
        elif kind == 5:
            out.append(CallCard(seat=seat, card=card))
        elif kind == 6:
            out.append(GoAlone(seat=seat))
        elif kind == 7:
            out.append(ChoosePartners(seat=seat, partners=tuple(rng.choice(seats) for _ in range(rng.randrange(4)))))
        elif kind == 8:
            out.append(LookAtHand(seat=seat))
        elif kind == 9:
            out.append(ProposeRedeal(seat=seat))
        else:
            out.append(AnswerRedeal(seat=seat, accept=rng.random() < 0.5))
    return out


def move_key(move: Move) -> bytes:
    """A canonical identity for a move (discards are a set of cards)."""
    if isinstance(move, Discard):
        move = Discard(seat=move.seat, cards=tuple(sorted(move.cards)))
    elif isinstance(move, ChoosePartners):
        move = ChoosePartners(seat=move.seat, partners=tuple(sorted(move.partners)))
    return msgspec.json.encode(move)
