"""The auction over plain values (:class:`engine.auction.CallRun`) against the general engine: on random games of
every player count under random rule sets and the ghost-partners game, from every auction state met, a run of random
passes and bids makes each step's legal list, and ends in the state and the events, that
:func:`engine.legal_moves` and :func:`engine.apply_move` give for the same moves one by one."""

from __future__ import annotations

import random

import pytest

from engine import GameState, LookAtHand, Move, Options, Pass, ProposeRedeal, apply_move, legal_moves, new_game
from engine.auction import CallRun
from engine.model import Bid, Event, ThrownIn
from tests.engine.randomplay import random_ghost_options, random_options

PLAYERS: tuple[int | str, ...] = (2, 3, 4, 5, 6, "ghosts")


def _options(players: int | str, rng: random.Random, g: int) -> Options:
    if players == "ghosts":
        return Options(players=2, two_player_method="ghost_partners") if g % 4 == 0 else random_ghost_options(rng, 0.5)
    assert isinstance(players, int)
    return Options(players=players) if g % 4 == 0 else random_options(rng, players, 0.5)


def _pick(moves: tuple[Move, ...] | list[Move], rng: random.Random, passes: float) -> Move:
    if isinstance(moves[0], Pass) and rng.random() < passes:
        return moves[0]
    bids = [m for m in moves if isinstance(m, Bid)]
    # Mostly the cheaper bids, so that auctions run long; now and then any bid (the top one ends the auction).
    if bids and rng.random() < 0.9:
        return bids[min(len(bids) - 1, int(rng.expovariate(0.7)))]
    return moves[rng.randrange(len(moves))]


def run_and_compare(state: GameState, rng: random.Random, passes: float) -> tuple[int, bool]:
    """From ``state`` (in the auction), a run of random listed calls against the general engine, step by step:
    (the calls made, whether the run reached the end of the auction)."""
    run = CallRun(state)
    undealt = CallRun(state, deal=False)  # the same run, stopping at a throw-in
    general = state
    events: list[Event] = []
    assert run.state() is state and run.made == 0
    while True:
        listed = run.listed()
        legal = legal_moves(general) if general.phase == "auction" else []
        if listed is None:
            # Nothing listed: the auction is over, or the seat may also look at its hand or propose a redeal.
            assert run.ended is not None or general.phase != "auction" or any(
                isinstance(m, LookAtHand | ProposeRedeal) for m in legal), (general, legal)
            break
        assert general.phase == "auction" and run.to_act == general.to_act
        assert list(listed) == list(legal)
        assert run.situation[0] == general.to_act
        move = _pick(listed, rng, passes)
        run.call(move)
        assert undealt.listed() == listed
        undealt.call(move)
        general, step = apply_move(general, move)
        events += step
        assert run.state() == general
        assert run.events == events
        thrown = [e for e in step if isinstance(e, ThrownIn)]
        if thrown:
            assert run.thrown_in == undealt.thrown_in == thrown[0].reason
            assert undealt.events == events[:events.index(thrown[0])] and undealt.ended is None
            assert undealt.to_act == -1 and undealt.listed() is None
            with pytest.raises(ValueError):
                undealt.state()
        else:
            assert run.thrown_in is None and undealt.thrown_in is None
            assert undealt.state() == general and undealt.events == events
        if run.ended is not None:
            assert run.to_act == -1 and run.listed() is None
            break
    return run.made, run.ended is not None


@pytest.mark.parametrize("players", PLAYERS)
def test_a_run_of_calls_is_the_general_engine_s(players: int | str) -> None:
    rng = random.Random(f"call-run/{players}")
    calls = ended = runs = 0
    for g in range(120):
        opts = _options(players, rng, g)
        state, _ = new_game(opts, seed=rng.randrange(2**64))
        passes = rng.choice((0.2, 0.5, 0.8))
        for _ in range(600):
            if state.to_act is None:
                break
            if state.phase == "auction" and rng.random() < 0.5:
                made, done = run_and_compare(state, random.Random(rng.random()), passes)
                runs += 1
                calls += made
                ended += done
            moves = legal_moves(state)
            move = _pick(moves, rng, passes) if state.phase == "auction" else moves[rng.randrange(len(moves))]
            state, _ = apply_move(state, move)
    assert runs > 600 and calls > 3000 and ended > 300, (runs, calls, ended)


def test_a_move_not_listed_is_refused() -> None:
    state, _ = new_game(Options(), seed=5, first_dealer=0)
    run = CallRun(state)
    assert run.listed() is not None
    with pytest.raises(ValueError):
        run.call(Pass(seat=(run.to_act + 1) % 4))
    assert run.made == 0 and run.state() is state
