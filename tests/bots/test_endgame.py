"""The exact endgame search (bots/endgame.py) against a brute-force minimax over the engine's own moves: positions
of random games of every player count, with free (un-nominated) jokers and ghosts' face-down cards, and the node
cap that makes a solve give up."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator

import msgspec
import pytest

import bots.endgame
import bots.expert
from bots import decide
from bots.endgame import (
    ENDGAME_CARDS,
    NODE_CAP,
    BitSolver,
    GiveUp,
    Position,
    Solver,
    cards_left,
    make_solver,
    shared_solver,
    solvable,
    solve,
    solve_outcome,
    tricks_left,
)
from bots.expert import _scored, _teams, outcome_of, playout_outcome
from engine import GameState, Play, apply_move, legal_moves, view
from engine.ghosts import face_down
from engine.seats import controller
from engine.tricks import strain_of, trick_led_suit
from tests.bots.states import random_states

#: For tests that patch a bots module's functions or constants: compiled bots call and read those directly, past
#: the patch, so such a test would check nothing there; it runs on the pure bots (the README's suite).
patches_the_bots = pytest.mark.skipif(bots.BOTS_BUILD == "compiled",
                                      reason="the compiled bots call their functions and read their constants "
                                             "directly, past the test's patches")


def brute_force(state: GameState, seat: int, team: frozenset[int]) -> float:
    """Minimax over every legal move by :func:`engine.apply_move` to the end of the hand, no pruning."""
    values = []
    for move in legal_moves(state):
        after, events = apply_move(state, move)
        value = _scored(events, state.options, seat)
        values.append(brute_force(after, seat, team) if value is None else value)
    return max(values) if state.to_act in team else min(values)


def kind(state: GameState) -> str:
    c = state.contract
    return "misère" if c is not None and "MISERE" in c.bid else "none" if c is None else \
        "suit" if strain_of(state).trump else "nt"


def free_joker(state: GameState) -> bool:
    """Whether a free (un-nominated) joker is still to be played, in a hand or face down."""
    suit_of = strain_of(state).suit
    return any(suit_of[c] is None for s in state.active for c in (*state.hands[s], *face_down(state, s)))


def ghost_down(state: GameState) -> bool:
    return any(face_down(state, s) for s in state.active)


def positions(players: int | str, tricks: int, seed: int = 11, games: int = 400) -> Iterator[GameState]:
    """Play positions of random games with at most ``tricks`` tricks left."""
    for _opts, state in random_states(players, games, seed=seed, every=1):
        if state.phase == "play" and state.to_act is not None and 0 < tricks_left(state) <= tricks:
            yield state


def endgames(players: int | str, tricks: int, count: int) -> list[GameState]:
    """Positions of random games with at most ``tricks`` tricks left, mostly exactly that many."""
    out: list[GameState] = []
    for state in positions(players, tricks):
        if tricks_left(state) == tricks or len(out) % 3 == 0:
            out.append(state)
            if len(out) == count:
                break
    return out


def assert_solved_exactly(state: GameState) -> None:
    team = _teams(state)
    for seat in {state.to_act, *state.active}:
        assert seat is not None
        assert solvable(state, 60)
        assert solve(state, seat, team[seat]) == pytest.approx(brute_force(state, seat, team[seat])), state


@pytest.mark.parametrize(("players", "limit", "count"), [(2, 3, 12), (3, 3, 12), (4, 3, 16), (5, 2, 12), (6, 2, 10)])
def test_solve_equals_brute_force_minimax(players: int, limit: int, count: int) -> None:
    states = endgames(players, limit, count)
    assert len(states) == count
    for state in states:
        assert_solved_exactly(state)
    assert "suit" in {kind(s) for s in states}


def test_solve_from_every_seat_of_other_games() -> None:
    for state in itertools.islice((s for s in positions(4, 2, seed=5) if cards_left(s) <= 8), 20):
        assert_solved_exactly(state)


@pytest.mark.parametrize(("players", "limit", "count"),
                         [(2, 3, 8), (3, 3, 10), (4, 3, 12), (5, 2, 8), (6, 2, 8), ("ghosts", 2, 8)])
def test_free_jokers_equal_brute_force_minimax(players: int | str, limit: int, count: int) -> None:
    """A free joker still to be played (no trumps, misère and the all-pass play-out): which cards may follow, the
    suits its lead may name (each a choice of the leader) and who wins come from the engine, as in the game."""
    states = list(itertools.islice((s for s in positions(players, limit) if free_joker(s)), count))
    assert len(states) == count
    for state in states:
        assert_solved_exactly(state)
    assert {kind(s) for s in states} & {"nt", "none"}


def test_free_jokers_in_misere_equal_brute_force_minimax() -> None:
    states = list(itertools.islice((s for p in (4, 2) for s in positions(p, 4, seed=11)
                                    if free_joker(s) and kind(s) == "misère"), 8))
    assert len(states) >= 4
    for state in states:
        assert_solved_exactly(state)


@pytest.mark.parametrize("rules", [{"joker_lead_restriction": "not_shown_void"},
                                   {"joker_lead_restriction": "any_suit"},
                                   {"joker_lead_timing": "last_trick_only"},
                                   {"joker_follow_first_round": True},
                                   {"joker_forced_in_misere": False}])
def test_joker_rule_variants_equal_brute_force_minimax(rules: dict[str, object]) -> None:
    """The same positions under each variant of the free joker's rules (its options read only in play)."""
    states = list(itertools.islice((s for s in positions(4, 3, seed=7) if free_joker(s) and tricks_left(s) >= 2),
                                   6))
    assert len(states) == 6
    for state in states:
        assert_solved_exactly(msgspec.structs.replace(state, options=msgspec.structs.replace(state.options, **rules)))


def test_ghosts_face_down_cards_equal_brute_force_minimax() -> None:
    """The ghost-partners game: a face-down card turns up when the card on it is played (known to the deal)."""
    states = list(itertools.islice((s for s in positions("ghosts", 3) if ghost_down(s)), 12))
    assert len(states) == 12
    assert any(free_joker(s) for s in states)
    for state in states:
        assert_solved_exactly(state)


def assert_same_position(solver: Solver, pos: Position, state: GameState) -> None:
    """The search's position stands for the engine's state: hands, trick, tricks won and, while a free joker is
    still to be played, what its rules read."""
    hands, leader, cards, nominate, won, ctx, free = pos
    assert [sorted(h) for h in hands] == [sorted(h) for h in state.hands]
    trick = state.trick
    assert (leader, cards, nominate) == ((trick.leader, trick.cards, trick.nominate) if trick is not None
                                         else (state.to_act, (), None))
    assert won == state.tricks_won
    assert free == sum(1 for s in state.active for c in (*state.hands[s], *face_down(state, s))
                       if solver.table.suit[c] is None)
    if ctx is not None:
        suits_led, shown_void, tricks = ctx
        assert set(suits_led) == set(state.suits_led)
        assert [set(v) for v in shown_void] == [set(v) for v in state.shown_void]
        assert [trick_led_suit(t, solver.table) for t in tricks] == [trick_led_suit(t, solver.table)
                                                                      for t in state.tricks]


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6, "ghosts"])
def test_the_search_moves_as_the_engine(players: int | str) -> None:
    """Random lines of play from whole hands: at every card the search's legal plays are the engine's (a free
    joker's lead once per suit it may name) and its position after each is the engine's state after it."""
    rng = random.Random(17)
    starts = [s for _o, s in random_states(players, 120, seed=23) if s.phase == "play" and not s.tricks and
              s.trick is None and free_joker(s)]
    assert len(starts) >= 5
    named = 0
    for state in starts[:40]:
        solver = Solver(state, 0, frozenset())
        pos = solver.root()
        while state.phase == "play" and state.hand_number == solver.state.hand_number:
            assert_same_position(solver, pos, state)
            legal = [m for m in legal_moves(state) if isinstance(m, Play)]
            assert sorted(solver.legal(pos), key=str) == sorted(((m.card, m.nominate) for m in legal), key=str)
            moves = solver.moves(pos, solver.actor(pos))
            assert set(moves) <= set(solver.legal(pos)) and moves
            move = legal[rng.randrange(len(legal))]
            named += move.nominate is not None
            pos = solver.child(pos, solver.actor(pos), move.card, move.nominate)
            state, _ = apply_move(state, move)
    assert named


def test_the_cap_makes_the_search_give_up() -> None:
    state = next(s for s in positions(4, 3, seed=5) if tricks_left(s) == 3 and s.trick is None)
    seat = state.to_act
    assert seat is not None
    team = _teams(state)[seat]
    exact = brute_force(state, seat, team)
    assert solve(state, seat, team, cap=5) is None
    assert solve_outcome(state, seat, team, cap=5) is None
    assert solve(state, seat, team, cap=100_000) == pytest.approx(exact)
    # The least cap that answers gives the exact value, and every cap below it gives up.
    least = next(cap for cap in itertools.count(1) if solve(state, seat, team, cap=cap) is not None)
    assert solve(state, seat, team, cap=least) == pytest.approx(exact)
    assert solve(state, seat, team, cap=least - 1) is None


@patches_the_bots
def test_the_expert_plays_the_deal_out_when_the_cap_is_met(monkeypatch: pytest.MonkeyPatch) -> None:
    state = next(s for s in positions(4, 3, seed=5) if tricks_left(s) == 3 and len(legal_moves(s)) > 1)
    seat = state.to_act
    assert seat is not None
    move = legal_moves(state)[0]
    after, _ = apply_move(state, move)
    assert solvable(after)
    monkeypatch.setattr(bots.endgame, "NODE_CAP", 0)
    assert solve(after, seat, _teams(after)[seat]) is None
    assert outcome_of(state, move, seat) == playout_outcome(after, seat)
    answers: list[object] = []

    def spy(*args: object) -> object:
        answers.append(solve_outcome(*args))  # type: ignore[arg-type]
        return answers[-1]

    monkeypatch.setattr(bots.expert, "solve_outcome", spy)
    shared = bots.endgame.Solver.after

    def shared_spy(self: Solver, card: str, named: str | None = None) -> object:
        answers.append(shared(self, card, named))
        return answers[-1]

    monkeypatch.setattr(bots.endgame.Solver, "after", shared_spy)
    chosen = decide(view(state, controller(state.options, seat)), state.options, level="expert", seed=1, budget=16,
                    legal=legal_moves(state))
    assert chosen.move in legal_moves(state)
    assert answers and all(a is None for a in answers)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6, "ghosts"])
def test_one_solver_shared_by_every_move_solves_each_as_a_solver_of_its_own(players: int | str) -> None:
    """The expert solves every candidate of one sampled deal with one solver (:func:`shared_solver`): each answer
    is the one a solver of the position after that move alone gives, whatever the order the moves are asked in,
    and the positions found for one move spare nodes for the next."""
    rng = random.Random(7)
    checked = spared = 0
    for _opts, state in random_states(players, 300, seed=31):
        if checked >= 12:
            break
        seat = state.to_act
        if seat is None or state.phase != "play" or len(legal_moves(state)) < 2:
            continue
        team = _teams(state)[seat]
        solver = shared_solver(state, seat, team)
        if solver is None:
            assert not 1 < cards_left(state) <= ENDGAME_CARDS[len(state.active)] + 1
            continue
        moves = [m for m in legal_moves(state) if isinstance(m, Play)]
        rng.shuffle(moves)
        alone_nodes = shared_nodes = 0
        for move in moves:
            after, events = apply_move(state, move)
            if _scored(events, state.options, seat) is not None:
                continue
            assert solvable(after)
            alone = Solver(after, seat, team, NODE_CAP)
            expected = alone.run()
            assert solver.after(move.card, move.nominate) == (expected, alone.made.get(expected))
            alone_nodes += alone.nodes
            shared_nodes += solver.nodes
        checked += 1
        spared += shared_nodes < alone_nodes
        assert shared_nodes <= alone_nodes
    assert checked == 12 and spared > 0


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6, "ghosts"])
def test_the_expert_endgames_stay_well_within_the_cap(players: int | str) -> None:
    """Where the expert solves (ENDGAME_CARDS), random positions with the most cards it solves need a fraction of
    the node cap: the cap is a bound for the odd deal, not the common case."""
    states = list(itertools.islice((s for _o, s in random_states(players, 200, seed=29) if s.phase == "play" and
                                    s.to_act is not None and solvable(s) and
                                    cards_left(s) >= ENDGAME_CARDS[len(s.active)] - 1), 12))
    assert len(states) >= 6
    for state in states:
        seat = state.to_act
        assert seat is not None
        solver = Solver(state, seat, _teams(state)[seat], NODE_CAP)
        solver.run()
        assert solver.nodes <= NODE_CAP // 2


@patches_the_bots
@pytest.mark.parametrize("players", [4, 5, "ghosts"])
def test_the_shared_solver_changes_no_value_of_the_search(players: int | str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The expert's search gives every candidate the same values with one solver per sampled deal as with one per
    candidate: at five players too, before the called partner is known (each sampled deal places it, so each
    deal's solver takes that deal's sides)."""
    from bots.expert import search_outcomes
    from bots.knowledge import Knowledge

    states = [s for _o, s in random_states(players, 300, seed=37) if s.phase == "play" and s.to_act is not None
              and len(legal_moves(s)) > 1 and 4 < cards_left(s) <= ENDGAME_CARDS[len(s.active)] + 1]
    if players == 5:  # the positions where the seat does not yet know who the called partner is
        contracts = [view(s, controller(s.options, s.to_act or 0)).contract for s in states]
        states = [s for s, c in zip(states, contracts, strict=True) if c is not None and not c.partners_known]
    assert len(states) >= 3
    for state in states[:4]:
        seat = state.to_act
        assert seat is not None
        knowledge = Knowledge(view(state, controller(state.options, seat)), state.options)
        shared = search_outcomes(knowledge, legal_moves(state), random.Random(5), 24)
        with monkeypatch.context() as m:
            m.setattr(bots.expert, "shared_solver", lambda *_args: None)
            alone = search_outcomes(knowledge, legal_moves(state), random.Random(5), 24)
        assert shared == alone


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_solver_over_masks_is_the_solver(players: int) -> None:
    """BitSolver (hands as masks) searches exactly as Solver where it applies (no face-down card, no free joker
    left): the same value and outcome, node for node, from every seat, at the most cards the expert solves."""
    checked = 0
    for _opts, state in random_states(players, 200, seed=37):
        if checked >= 15:
            break
        if state.phase != "play" or state.to_act is None or not solvable(state, ENDGAME_CARDS[len(state.active)] + 2):
            continue
        for seat in state.active:
            team = _teams(state)[seat]
            fast = make_solver(state, seat, team, NODE_CAP)
            if not isinstance(fast, BitSolver):
                assert free_joker(state) or ghost_down(state)
                break
            general = Solver(state, seat, team, NODE_CAP)
            try:
                expected: float | None = general.run()
            except GiveUp:
                expected = None
            try:
                value: float | None = fast.run()
            except GiveUp:
                value = None
            assert value == expected and fast.nodes == general.nodes
            if value is not None:
                assert fast.made.get(value) == general.made.get(expected)
        else:
            checked += 1
    assert checked == 15
