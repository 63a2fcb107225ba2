"""Bot properties over thousands of random states of every player count and random option sets.

- Legality: every level returns a legal move of the seat to act (checked by the engine's ``check_move``).
- No peeking: with the same seed, a decision does not change when the cards the seat cannot see are permuted
  among the places it cannot see (other hands, the kitty, the discards, the dead hand).
- Determinism: the same view, options and seed give the same decision, candidates and spending included.
"""

from __future__ import annotations

import random

import msgspec
import pytest

from bots import LEVELS, BotError, Decision, decide
from engine import GameState, check_move, legal_moves, view
from engine.cards import sort_hand
from engine.deal import pack_index
from tests.bots.states import PLAYER_COUNTS, hidden_places, mover, random_states

#: Expert at a tiny budget keeps the property affordable; the search code path is the same at any budget.
TINY_BUDGET = 2


def _decide(state: GameState, level: str, seed: int, with_legal: bool = True) -> Decision:
    seat = mover(state)  # the seat to act, or the human whose ghost is to act
    return decide(view(state, seat), state.options, level=level, seed=seed,  # type: ignore[arg-type]
                  budget=TINY_BUDGET if level == "expert" else None,
                  legal=legal_moves(state) if with_legal else None)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_every_level_plays_a_legal_move(players: int | str) -> None:
    checked = {level: 0 for level in LEVELS}
    phases: set[str] = set()
    for i, (_opts, state) in enumerate(random_states(players, games=24, seed=11)):
        phases.add(state.phase)
        for level in LEVELS:
            if level == "expert" and i % 5:
                continue
            decision = _decide(state, level, seed=i)
            assert check_move(state, decision.move) is None, (level, state.phase, decision.move)
            checked[level] += 1
    assert checked["basic"] >= 500 and checked["expert"] >= 100, checked
    assert {"auction", "play"} <= phases


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_moves_derived_from_the_view_alone_are_legal(players: int | str) -> None:
    """Without the legal-move list the bot derives its moves from its view; only a refused no-ace-no-face redeal
    (which a view does not show) can make it offer a misère bid the engine refuses."""
    checked = 0
    for i, (_opts, state) in enumerate(random_states(players, games=10, seed=12, every=2)):
        for level in ("random", "basic"):
            decision = _decide(state, level, seed=i, with_legal=False)
            rejection = check_move(state, decision.move)
            assert rejection is None or rejection.reason == "MISERE_BARRED", (level, state.phase, rejection)
            checked += 1
    assert checked >= 200


def _permute_hidden(state: GameState, seat: int, rng: random.Random) -> GameState:
    """The same state with the cards ``seat`` cannot see dealt afresh among the places it cannot see."""
    places = hidden_places(state, seat)
    contents: list[tuple[str, ...]] = []
    for kind, s in places:
        contents.append(state.hands[s] if kind == "hand" else
                        state.kitty if kind == "kitty" else state.discards if kind == "discards" else
                        tuple(down for up, down in state.ghost_piles[s] if up in state.hands[s])
                        if kind == "face_down" else state.dead_hand)
    pool = [c for cards in contents for c in cards]
    rng.shuffle(pool)
    index = pack_index(state.options)
    hands = list(state.hands)
    piles = list(state.ghost_piles)
    changes: dict[str, object] = {}
    pos = 0
    for (kind, s), cards in zip(places, contents, strict=True):
        if kind == "face_down":  # the same piles, other cards beneath the covered ones
            fresh = iter(pool[pos:pos + len(cards)])
            piles[s] = tuple((up, next(fresh) if up in state.hands[s] else down) for up, down in piles[s])
            changes["ghost_piles"] = tuple(piles)
            pos += len(cards)
            continue
        new = sort_hand(pool[pos:pos + len(cards)], index)
        pos += len(cards)
        if kind == "hand":
            hands[s] = new
        elif kind == "kitty":
            changes["kitty"] = new
        elif kind == "discards":
            changes["discards"] = new
        else:
            changes["dead_hand"] = new
    return msgspec.structs.replace(state, hands=tuple(hands), **changes)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_no_peeking_decisions_ignore_the_cards_the_seat_cannot_see(players: int | str) -> None:
    rng = random.Random(players)
    compared = {level: 0 for level in LEVELS}
    moved = 0
    for i, (_opts, state) in enumerate(random_states(players, games=12, seed=13, every=3)):
        seat = mover(state)
        other = _permute_hidden(state, seat, rng)
        moved += other != state
        # The views are equal (the engine shows nothing hidden), and so are the seat's legal moves ...
        assert view(other, seat) == view(state, seat)
        assert legal_moves(other) == legal_moves(state)
        # ... and so the decisions are equal: the bot's input is the view, and its randomness the seed.
        for level in LEVELS:
            if level == "expert" and i % 3:
                continue
            assert _decide(other, level, seed=i) == _decide(state, level, seed=i), (level, state.phase)
            compared[level] += 1
    assert moved >= 100 and compared["expert"] >= 30, (moved, compared)


def test_the_expert_search_ignores_hidden_cards_at_a_real_budget() -> None:
    """At a budget where the candidates' values are real estimates, they do not move with the hidden cards."""
    rng = random.Random(5)
    compared = 0
    for i, (_opts, state) in enumerate(random_states(4, games=6, seed=14, every=7)):
        seat = state.to_act
        assert seat is not None
        other = _permute_hidden(state, seat, rng)
        a = decide(view(state, seat), state.options, level="expert", seed=i, budget=24, legal=legal_moves(state))
        b = decide(view(other, seat), other.options, level="expert", seed=i, budget=24, legal=legal_moves(other))
        assert a == b
        compared += bool(a.candidates)
    assert compared >= 10


@pytest.mark.parametrize("players", (3, 4, 5))
def test_the_same_view_options_and_seed_give_the_same_decision(players: int) -> None:
    seen_different = 0
    for i, (_opts, state) in enumerate(random_states(players, games=6, seed=15, every=4)):
        for level in LEVELS:
            if level == "expert" and i % 2:
                continue
            first = _decide(state, level, seed=i)
            again = _decide(state, level, seed=i)
            assert first == again
        if len(legal_moves(state)) > 3:
            moves = {_decide(state, "random", seed=s).move for s in range(8)}
            seen_different += len(moves) > 1
    assert seen_different > 0  # the seed really drives the random level


def test_a_seat_that_is_not_to_act_is_refused_naming_who_is() -> None:
    _opts, state = next(random_states(4, games=1, seed=16))
    assert state.to_act is not None
    other = (state.to_act + 1) % 4
    with pytest.raises(BotError, match=f"seat {other} is not to act; seat {state.to_act} is"):
        decide(view(state, other), state.options)
    with pytest.raises(BotError, match="unknown level"):
        decide(view(state, state.to_act), state.options, level="grandmaster")  # type: ignore[arg-type]
    with pytest.raises(BotError, match="budget"):
        decide(view(state, state.to_act), state.options, level="expert", budget=0)


def test_expert_reports_its_candidates_and_spends_its_budget() -> None:
    for _opts, state in random_states(4, games=4, seed=17):
        if state.phase == "play" and len(legal_moves(state)) >= 3:
            break
    else:
        raise AssertionError("no play state with three legal moves")
    decision = decide(view(state, state.to_act), state.options, level="expert", seed=3,  # type: ignore[arg-type]
                      budget=30)
    moves = legal_moves(state)
    assert decision.move in moves and decision.move in [c.move for c in decision.candidates]
    assert {c.move for c in decision.candidates} <= set(moves) and len(decision.candidates) >= 2
    assert decision.playouts == sum(c.playouts for c in decision.candidates) <= 30
    assert decision.deals == decision.candidates[0].playouts >= 30 // len(moves)
    values = [c.value for c in decision.candidates]
    assert values == sorted(values, reverse=True)


@pytest.mark.parametrize("players", (2, 3, 4, 5, 6))
def test_the_expert_inference_and_endgame_ignore_hidden_cards(players: int) -> None:
    """The expert's reading of the auction (bots/inference.py) and its exact endgames (bots/endgame.py) see the
    view alone: auction states after other seats' bids and passes, and play states with few cards left."""
    from bots.endgame import solvable
    from bots.inference import read_auction
    from bots.knowledge import Knowledge

    rng = random.Random(players + 100)
    compared = {"auction": 0, "endgame": 0}
    for i, (_opts, state) in enumerate(random_states(players, games=30, seed=18)):
        seat = mover(state)
        if state.phase == "auction":
            if not read_auction(Knowledge(view(state, seat), state.options)).bounds or compared["auction"] >= 6:
                continue
            kind = "auction"
        elif solvable(state) and compared["endgame"] < 6:
            kind = "endgame"
        else:
            continue
        other = _permute_hidden(state, seat, rng)
        a = decide(view(state, seat), state.options, level="expert", seed=i, budget=24, legal=legal_moves(state))
        b = decide(view(other, seat), other.options, level="expert", seed=i, budget=24, legal=legal_moves(other))
        assert a == b, (kind, state.phase)
        compared[kind] += 1
    assert min(compared.values()) >= 3, compared
