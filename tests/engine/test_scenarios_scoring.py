"""RULES.md 5.7 (T55–T65) hand scoring and 5.8 (T66–T75) the end of the game.

Every hand is played through ``apply_move`` from a designed deal (``helpers.designed_hands``), so the
``HandScored`` and ``GameOver`` events and ``state.scores`` are the engine's own. Running totals other than
0–0 are set with ``msgspec.structs.replace`` on the freshly dealt state (integrity-checked)."""

from __future__ import annotations

import pytest

from engine import GameState, integrity_problems, judge_game, score_hand
from engine.model import GameOver, GameResult, HandDealt, HandScored
from tests.engine.helpers import (
    EW,
    NS,
    E,
    N,
    W,
    auction_calls,
    calls,
    deck_for,
    designed_hands,
    exchange,
    of_type,
    opts,
    play_contract,
    play_out,
    scored,
    start,
)


def hand(bid: str, t: int, contractor: int = N, scores: tuple[int, int] | None = None):
    state, events = play_contract(opts(), bid, contractor, t, scores=scores)
    hs = scored(events)
    side = (contractor, (contractor + 2) % 4)
    assert hs.tricks_won[side[0]] + hs.tricks_won[side[1]] == t
    assert hs.bid == bid and hs.contractor == contractor
    return state, events, hs


def over(events) -> GameOver | None:
    found = of_type(events, GameOver)
    assert len(found) <= 1
    return found[0] if found else None


# ------------------------------------------------------------------------------------------------ 5.7


def test_T55_six_spades_made_exactly():
    state, events, hs = hand("6S", 6)
    assert hs.made is True and hs.contracting_seats == (0, 2)
    assert hs.deltas == (40, 40)
    assert state.scores == (40, 40)
    assert over(events) is None and state.phase == "auction" and state.hand_number == 1


def test_T56_six_spades_slam_scores_250():
    state, events, hs = hand("6S", 10)
    assert hs.deltas == (250, 0)
    assert state.scores == (250, 0)


def test_T57_eight_spades_slam_scores_250():
    _, _, hs = hand("8S", 10)
    assert hs.deltas == (250, 0)


def test_T58_eight_clubs_slam_scores_its_value():
    _, _, hs = hand("8C", 10)
    assert hs.deltas == (260, 0)


def test_T59_eight_no_trumps_slam_scores_its_value():
    _, _, hs = hand("8NT", 10)
    assert hs.deltas == (320, 0)


def test_T60_seven_no_trumps_slam_scores_250():
    _, _, hs = hand("7NT", 10)
    assert hs.deltas == (250, 0)


def test_T61_nine_diamonds_all_tricks():
    _, _, hs = hand("9D", 10)
    assert hs.deltas == (380, 0)


@pytest.mark.parametrize(("bid", "value"), [("10H", 500), ("10NT", 520)])
def test_T62_ten_level_made(bid: str, value: int):
    _, _, hs = hand(bid, 10)
    assert hs.made is True and hs.deltas == (value, 0)


def test_T63_seven_hearts_failed():
    state, _, hs = hand("7H", 6)
    assert hs.made is False and hs.deltas == (-200, 40)
    assert state.scores == (-200, 40)


def test_T64_six_no_trumps_failed_without_a_trick():
    _, _, hs = hand("6NT", 0)
    assert hs.made is False and hs.deltas == (-120, 100)


def test_T65_eight_diamonds_with_nine_tricks():
    _, _, hs = hand("8D", 9)
    assert hs.made is True and hs.deltas == (280, 10)


@pytest.mark.parametrize(("bid", "t", "made", "deltas"), [
    ("6S", 6, True, (40, 30)),     # after 9 tricks: NS 6, EW 3
    ("8D", 9, True, (280, 0)),     # NS 9, EW 0
    ("7H", 6, False, (-200, 30)),  # NS 6, EW 3
    ("6NT", 0, False, (-120, 90)),  # NS 0, EW 9
])
def test_score_hand_on_a_real_position(bid: str, t: int, made: bool, deltas: tuple[int, int]):
    # score_hand directly on a real state (nine tricks played, the tenth in progress): it counts the tricks
    # taken so far by the RULES.md 1.11.3 formula.
    hands, kitty = designed_hands(opts(), bid, N, t)
    state = start(opts(), hands, kitty=kitty)
    state, _ = calls(state, *auction_calls(bid, N))
    state, _ = exchange(state)
    state, _ = play_out(state, tricks=({N, 2}, t), stop_after=38)
    assert len(state.tricks) == 9 and state.trick is not None and len(state.trick.cards) == 2
    assert integrity_problems(state) == []
    assert score_hand(state) == (deltas, (N, 2), made)


# ------------------------------------------------------------------------------------------------ 5.8


def test_T66_making_a_contract_to_reach_500_wins():
    state, events, hs = hand("6S", 6, scores=(460, 0))
    assert hs.deltas == (40, 40) and hs.scores == (500, 40)
    assert state.scores == (500, 40)
    g = over(events)
    assert g is not None and g.winners == (NS,) and g.losers == () and g.reason == "contract"
    assert state.phase == "game_over" and state.to_act is None
    assert state.result == GameResult((NS,), (), "contract")


def _two_hands(t1: int, t2: int) -> tuple[GameState, list, list]:
    """T67 then T68: NS 7♥ with EW at 480 (dealer W), then EW 6♠ (dealer N)."""
    o = opts()
    h1, k1 = designed_hands(o, "7H", N, t1)
    h2, k2 = designed_hands(o, "6S", E, t2)
    deck2 = deck_for(o, N, h2, k2)
    state = start(o, h1, kitty=k1, scores=(0, 480), more_decks=[deck2])
    state, _ = calls(state, *auction_calls("7H", N))
    state, _ = exchange(state)
    state, ev1 = play_out(state, tricks=({N, 2}, t1))
    if state.phase != "auction":
        return state, ev1, []
    assert state.dealer == N and state.to_act == E
    state, _ = calls(state, *auction_calls("6S", E, eldest=E))
    state, _ = exchange(state)
    state, ev2 = play_out(state, tricks=({E, W}, t2))
    return state, ev1, ev2


def test_T67_reaching_500_by_defending_does_not_win():
    state, ev1, _ = _two_hands(5, 6)
    hs = scored(ev1)
    assert hs.deltas == (-200, 50) and hs.scores == (-200, 530)
    assert over(ev1) is None
    assert of_type(ev1, HandDealt)[-1].hand_number == 1  # the game goes on: N deals the next hand


@pytest.mark.parametrize(("t", "ew_total", "ends"), [(6, 570, True), (5, 490, False)])
def test_T68_side_over_500_wins_only_by_its_own_contract(t: int, ew_total: int, ends: bool):
    state, ev1, ev2 = _two_hands(5, t)
    assert scored(ev1).scores == (-200, 530)
    hs = scored(ev2)
    assert hs.contractor == E and hs.contracting_seats == (1, 3)
    assert hs.scores[EW] == ew_total
    assert state.scores[EW] == ew_total
    g = over(ev2)
    if ends:
        assert g is not None and g.winners == (EW,) and g.reason == "contract"
        assert state.phase == "game_over"
    else:
        assert g is None and state.phase == "auction" and state.result is None


def test_T69_going_out_backwards():
    state, events, hs = hand("7C", 6, scores=(-380, 0))
    assert hs.made is False and hs.deltas == (-160, 40)
    assert state.scores == (-540, 40)
    g = over(events)
    assert g is not None and g.losers == (NS,) and g.winners == (EW,) and g.reason == "out_backwards"
    assert state.phase == "game_over"
    # "whatever EW's total": the loss does not depend on the other side
    for ew in (-490, 0, 490, 900):
        assert judge_game(opts(), (-540, ew), [NS], False) == GameResult((EW,), (NS,), "out_backwards")


def test_T70_misere_made_wins_the_game():
    state, events, hs = hand("MISERE", 0, scores=(400, 0))
    assert hs.deltas == (250, 0) and state.scores == (650, 0)
    g = over(events)
    assert g is not None and g.winners == (NS,) and g.reason == "contract"


def test_T71_seven_no_trumps_slam_wins_the_game():
    state, events, hs = hand("7NT", 10, scores=(300, 0))
    assert hs.deltas == (250, 0) and state.scores == (550, 0)
    g = over(events)
    assert g is not None and g.winners == (NS,)


def test_T72_contract_win_while_opponents_are_over_500():
    state, events, hs = hand("8H", 8, scores=(280, 510))
    assert hs.deltas == (300, 20) and state.scores == (580, 530)
    g = over(events)
    assert g is not None and g.winners == (NS,) and g.reason == "contract"


@pytest.mark.parametrize("t", [0, 6, 10])
def test_T73_defenders_cannot_go_out_backwards(t: int):
    state, events, hs = hand("6S", t, contractor=E, scores=(-470, 0))
    assert hs.deltas[NS] == 10 * (10 - t) >= 0
    assert state.scores[NS] == -470 + 10 * (10 - t) >= -470
    g = over(events)
    assert g is None or NS not in g.losers
    assert g is None  # EW cannot reach 500 from 0 with 6♠ either


def test_T74_failed_misere_below_minus_500_loses():
    state, events, hs = hand("MISERE", 1, scores=(-480, 0))
    assert hs.made is False and hs.deltas == (-250, 0)
    assert state.scores == (-730, 0)
    g = over(events)
    assert g is not None and g.losers == (NS,) and g.winners == (EW,) and g.reason == "out_backwards"


def test_T75_failed_contract_above_500_does_not_win():
    state, events, hs = hand("6S", 5, contractor=E, scores=(0, 560))
    assert hs.made is False and hs.deltas == (50, -40)
    assert state.scores == (50, 520)
    assert over(events) is None and state.phase == "auction" and state.result is None


def test_hand_scored_event_is_also_last_hand_in_views():
    state, events, hs = hand("6S", 6)
    assert isinstance(state.last_hand, HandScored) and state.last_hand == hs
