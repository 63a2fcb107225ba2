"""Scoring a hand and the end of the game (RULES.md 1.11, 1.12, 3.4, 3.5).

:func:`score_hand` gives each side's change for the hand just played, :func:`judge_game` says whether the game
is over and who won, and :func:`finish_hand` applies both and deals the next hand if the game goes on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import msgspec

from engine.contract import partners
from engine.model import Event, GameOver, GameResult, GameState, HandScored
from engine.options import Options
from engine.rules import MISERE_BIDS, bid_level, bid_value, side_of, sides
from engine.setup import deal_hand

replace: Final = msgspec.structs.replace
TRICKS_PER_HAND: Final = 10


def score_hand(state: GameState) -> tuple[tuple[int, ...], tuple[int, ...], bool | None]:
    """(score change per side, contracting seats, made) for the hand just played out."""
    opts = state.options
    side = side_of(opts)
    all_sides = sides(opts)
    won = state.tricks_won
    side_tricks = [sum(won[s] for s in members) for members in all_sides]
    deltas = [0] * len(all_sides)
    c = state.contract
    if c is None:  # everyone passed and the hand was played out at no trumps
        return tuple(10 * t for t in side_tricks), (), None
    seats = (c.contractor, *partners(state))
    t = sum(won[s] for s in seats)
    value = bid_value(opts, c.bid)
    contracting_sides = sorted({side[s] for s in seats})
    if c.bid in MISERE_BIDS:
        made = t == 0
        for sd in contracting_sides:
            deltas[sd] = value if made else -value
        return tuple(deltas), seats, made
    made = t >= bid_level(c.bid)
    if made and t == TRICKS_PER_HAND and value < 250 and opts.slam_rule == "min_250":
        value = 250
    share = value
    if opts.players == 5 and len(seats) > 1 and opts.five_player_partner_share == "half":
        share = -(-value // 20) * 10  # half the value, rounded up to a multiple of 10
    for sd in contracting_sides:
        deltas[sd] = share if made else -share
    if opts.defender_trick_points == "always" or (opts.defender_trick_points == "on_failure_only" and not made):
        for sd in range(len(all_sides)):
            if sd not in contracting_sides:
                deltas[sd] = defender_points(opts, state.scores[sd], side_tricks[sd])
    return tuple(deltas), seats, made


def defender_points(opts: Options, before: int, tricks: int) -> int:
    """A defending side's points for its tricks: 10 each, none above ``defender_points_cutoff``, and never
    taking it past ``defender_trick_cap``."""
    gain = 10 * tricks
    if opts.defender_points_cutoff != "none" and before > int(opts.defender_points_cutoff):
        gain = 0
    if opts.defender_trick_cap != "none":
        gain = max(0, min(gain, int(opts.defender_trick_cap) - before))
    return gain


def judge_game(opts: Options, scores: tuple[int, ...], contracting_sides: Sequence[int],
               made: bool | None) -> GameResult | None:
    """Game end after a scored hand (RULES.md 1.12 and 3.5): contract wins first, then going out backwards."""
    target, lose_at = opts.target, opts.lose_at
    if opts.win_requires_contract:
        winners = tuple(sd for sd in contracting_sides if made and scores[sd] >= target)
        if winners:
            return GameResult(winners, (), "contract")
    else:
        winners = tuple(sd for sd in contracting_sides if scores[sd] >= target)
        if winners:
            return GameResult(winners, (), "contract" if made else "points")
        over = [sd for sd in range(len(scores)) if scores[sd] >= target]
        if over:
            top = max(scores[sd] for sd in over)
            return GameResult(tuple(sd for sd in over if scores[sd] == top), (), "points")
    losers = tuple(sd for sd in range(len(scores)) if scores[sd] <= lose_at)
    if losers and opts.out_backwards_only_if_opponent_nonnegative and not any(
            scores[sd] >= 0 for sd in range(len(scores)) if sd not in losers):
        losers = ()
    if losers:
        rest = [sd for sd in range(len(scores)) if sd not in losers]
        top = max((scores[sd] for sd in rest), default=0)
        return GameResult(tuple(sd for sd in rest if scores[sd] == top), losers, "out_backwards")
    return None


def finish_hand(st: GameState, events: list[Event]) -> GameState:
    """Score the hand just played, judge the game, and deal the next hand unless the game is over."""
    opts = st.options
    deltas, seats, made = score_hand(st)
    scores = tuple(a + b for a, b in zip(st.scores, deltas, strict=True))
    c = st.contract
    side = side_of(opts)
    scored = HandScored(bid=c.bid if c else None, contractor=c.contractor if c else None,
                        contracting_seats=seats, made=made, tricks_won=st.tricks_won, deltas=deltas,
                        scores=scores)
    events.append(scored)
    contracting_sides: list[int] = []
    for s in seats:
        if side[s] not in contracting_sides:
            contracting_sides.append(side[s])
    result = judge_game(opts, scores, contracting_sides, made)
    if result is not None:
        events.append(GameOver(winners=result.winners, losers=result.losers, reason=result.reason))
        return replace(st, scores=scores, last_hand=scored, phase="game_over", to_act=None, result=result)
    return deal_hand(replace(st, scores=scores, last_hand=scored), (st.dealer + 1) % opts.players, events)


__all__ = ["TRICKS_PER_HAND", "defender_points", "finish_hand", "judge_game", "score_hand"]
