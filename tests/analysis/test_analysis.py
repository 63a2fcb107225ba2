"""The analysis after the game (bots/analysis.py): no peeking, reproducibility, exact cost, the figures' shapes,
the fair-play statistic, and ``POST /v1/records/analyse`` over HTTP."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from bots import decide
from bots.analysis import (
    FAIR_PLAY_MIN_DECISIONS,
    FAIR_PLAY_Z,
    GAIN_PRIOR,
    LUCK_REDEALS,
    OpenHand,
    _redeals,
    analyse_decision,
    analyse_game,
    analysis_cost,
    decision_gain,
    decision_moves,
    decision_seed,
    expected_values,
    fair_play,
    luck_playouts,
    side_gains,
)
from bots.expert import playout_outcome, playout_values
from bots.knowledge import Knowledge
from engine import GameRecord, GameState, Options, canonical_move, legal_moves, new_game, sides, view
from engine.record_text import record_to_text
from engine.replay import replay_states
from service.games.analysis import analyse_records
from service.referee.playouts import MemoryPlayoutBudget
from service.referee.search import SearchPool
from tests.analysis.players import level_player, peeking_player, play_records
from tests.bots.states import PLAYER_COUNTS, mover, random_states
from tests.bots.test_bot_properties import _permute_hidden
from tests.support import app_with_key

PATH = "/v1/records/analyse"
Client = TestClient[Litestar]
#: Small budgets keep the properties affordable; the code path is the same at any budget.
BUDGET = 8


@pytest.fixture(scope="module")
def records() -> list[GameRecord]:
    """A few short games of basic players: four, three and six players."""
    out = []
    for players, seed in ((4, 3), (3, 4), (6, 5)):
        opts = Options(players=players)  # type: ignore[arg-type]
        out += play_records([level_player("basic")] * players, seed=seed, hands=2, options=opts)
    return out


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_no_peeking_a_decisions_values_ignore_the_cards_the_seat_cannot_see(players: int | str) -> None:
    """Everything reported for a decision but its fair-play reading is the same when the cards the seat could
    not see are dealt afresh among the places it could not see."""
    rng = random.Random(7)
    compared = 0
    for i, (opts, state) in enumerate(random_states(players, games=6, seed=21, every=5)):
        seat = mover(state)
        other = _permute_hidden(state, seat, rng)
        played = decide(view(state, seat), opts, level="basic", legal=legal_moves(state)).move
        found = [analyse_decision(view(s, seat), opts, [] if s.phase == "exchange" else legal_moves(s), played,
                                  move_index=i, hand_number=s.hand_number, seat=seat, seed=i, budget=BUDGET,
                                  true_state=s)[0] for s in (state, other)]
        a, b = (msgspec.structs.replace(d, open_hand=None) for d in found)
        assert a == b, (state.phase, played)
        compared += a.weighed
    assert compared >= 5


def test_an_analysis_is_reproducible_and_costs_exactly_what_it_said(records: list[GameRecord]) -> None:
    for record in records:
        first = analyse_game(record, seed=5, budget=BUDGET)
        assert first == analyse_game(record, seed=5, budget=BUDGET)
        assert first.playouts == analysis_cost(record, budget=BUDGET)
        assert analyse_game(record, [0], seed=5, budget=BUDGET, fair_play=False, luck=False).playouts == \
            analysis_cost(record, [0], budget=BUDGET, fair_play=False, luck=False)


def test_every_decision_of_the_chosen_seats_is_weighed_best_first(records: list[GameRecord]) -> None:
    record = records[0]
    analysis = analyse_game(record, [1, 3], seed=2, budget=BUDGET)
    assert analysis.seats == (1, 3)
    opts = Options(players=record.players)  # type: ignore[arg-type]
    assert [d.move_index for d in analysis.decisions] == [
        i for i, m in enumerate(record.moves) if m.seat in (1, 3)]
    weighed = [d for d in analysis.decisions if d.weighed]
    assert weighed
    for d in weighed:
        values = [c.value for c in d.candidates]
        assert values == sorted(values, reverse=True)
        assert d.played in [c.move for c in d.candidates]
        assert d.best_value == values[0] and d.loss == pytest.approx(values[0] - (d.played_value or 0.0), abs=0.02)
        assert d.loss >= 0 and (not d.error or d.loss >= 50)
    for d in analysis.decisions:
        if not d.weighed:
            assert d.candidates == () and d.loss == 0
    for summary in analysis.summaries:
        mine = [d for d in weighed if d.seat == summary.seat]
        assert summary.weighed == len(mine) and summary.errors == sum(d.error for d in mine)
    assert len(analysis.hands) == len(record.hands) and opts.players == 4


def test_luck_and_the_adjusted_result_add_up_to_the_result(records: list[GameRecord]) -> None:
    for record in records:
        hands = analyse_game(record, seed=1, budget=2).hands
        assert any(h.luck is not None for h in hands)
        for hand in hands:
            if hand.luck is None:
                continue
            assert hand.result is not None and hand.adjusted is not None
            for result, luck, adjusted in zip(hand.result, hand.luck, hand.adjusted, strict=True):
                assert adjusted == pytest.approx(result - luck, abs=0.02)


def _hand_starts(record: GameRecord) -> dict[int, GameState]:
    starts: dict[int, GameState] = {}
    for state in replay_states(record):
        starts.setdefault(state.hand_number, state)
    return starts


def test_the_adjusted_result_is_the_expected_value_plus_every_decisions_gain(records: list[GameRecord]) -> None:
    """A hand's adjusted result: its expected value before the deal (the reference playout over re-deals), plus
    what every decision of the hand gained over the reference move, for its side (the others losing it)."""
    opts = Options()
    (record, *_) = play_records([level_player("random")] + [level_player("basic")] * 3, seed=11, hands=3,
                                options=opts)
    for game in (record, *records):
        analysis = analyse_game(game, seed=6, budget=BUDGET)
        gained = [d for d in analysis.decisions if d.gain]
        starts = _hand_starts(game)
        checked = 0
        for hand in analysis.hands:
            if hand.adjusted is None:
                continue
            expected = expected_values(starts[hand.hand_number], seed=decision_seed(6, -1 - hand.hand_number))
            mine = [d for d in gained if d.hand_number == hand.hand_number]
            for i, adjusted in enumerate(hand.adjusted):
                total = expected[i] + sum(side_gains(opts_of(game), d.seat, d.gain)[i] for d in mine)
                assert adjusted == pytest.approx(total, abs=0.02 * (len(mine) + 1))
            checked += 1
        assert checked
    # The random seat departs from the reference (basic) moves, and some of those departures show.
    assert any(d.gain for d in analyse_game(record, seed=6, budget=BUDGET).decisions if d.seat == 0)


def opts_of(record: GameRecord) -> Options:
    return Options(players=record.players)  # type: ignore[arg-type]


def test_basic_players_gain_nothing_so_their_adjusted_result_is_the_expected_value(
        records: list[GameRecord]) -> None:
    """``basic`` plays the reference move at every decision: each decision gains exactly 0, and each hand's
    adjusted result is its expected value before the deal, the rest of the result being luck."""
    for record in records:
        analysis = analyse_game(record, seed=2, budget=BUDGET)
        assert all(d.gain == 0.0 for d in analysis.decisions)
        starts = _hand_starts(record)
        for hand in analysis.hands:
            if hand.adjusted is not None:
                expected = expected_values(starts[hand.hand_number], seed=decision_seed(2, -1 - hand.hand_number))
                assert hand.adjusted == tuple(round(x, 2) for x in expected)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_reference_move_is_weighed_first_and_playing_it_gains_exactly_nothing(players: int) -> None:
    compared = 0
    for i, (opts, state) in enumerate(random_states(players, games=4, seed=31, every=7)):
        seat = mover(state)
        legal = [] if state.phase == "exchange" else legal_moves(state)
        reference = decide(view(state, seat), opts, level="basic", legal=legal_moves(state)).move
        played = decide(view(state, seat), opts, level="random", seed=i, legal=legal_moves(state)).move
        moves = decision_moves(Knowledge(view(state, seat), opts), legal, played)
        assert moves[0] == canonical_move(reference, opts)
        found, _ = analyse_decision(view(state, seat), opts, legal, reference, move_index=i,
                                    hand_number=state.hand_number, seat=seat, seed=i, budget=BUDGET)
        assert found.gain == 0.0
        compared += found.weighed
    assert compared >= 3


def test_a_gain_is_the_paired_difference_shrunk_by_its_uncertainty() -> None:
    reference = [0.0, 100.0, -50.0, 20.0]
    played = [r + d for r, d in zip(reference, [10.0, 20.0, 30.0, 40.0], strict=True)]  # mean 25, se^2 41.67
    prior = GAIN_PRIOR["auction"]
    assert decision_gain([reference, played], 1, "auction") == pytest.approx(25.0 * prior / (prior + 125 / 3))
    assert decision_gain([played, reference], 1, "auction") == pytest.approx(-25.0 * prior / (prior + 125 / 3))
    noisy = [r + d for r, d in zip(reference, [-300.0, 400.0, -200.0, 250.0], strict=True)]
    assert 0 < decision_gain([reference, noisy], 1, "play") < 0.5 * 37.5  # mostly noise: mostly shrunk
    sure = [r + 40.0 for r in reference]
    assert decision_gain([reference, sure], 1, "play") == 40.0  # the same on every deal: no doubt
    assert decision_gain([reference, played], 0, "auction") == 0.0


@pytest.mark.parametrize("count", [2, 3, 5])
def test_a_gain_is_the_movers_sides_and_the_others_lose_it(count: int) -> None:
    opts = Options(players=count)  # type: ignore[arg-type]
    for seat in range(count):
        shares = side_gains(opts, seat, 30.0)
        assert len(shares) == len(sides(opts)) and sum(shares) == pytest.approx(0.0)
        assert shares[[i for i, m in enumerate(sides(opts)) if seat in m][0]] == 30.0
    assert side_gains(Options(players=2), 0, 30.0) == (30.0, -30.0)  # two sides: exact


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_a_round_of_re_deals_passes_each_hand_round_the_table(players: int) -> None:
    opts = Options(players=players)  # type: ignore[arg-type]
    state, _ = new_game(opts, seed=players)
    cards = sorted(c for h in (*state.hands, state.kitty, state.dead_hand) for c in h)
    round_ = _redeals(state, random.Random(1))
    assert len(round_) == players and luck_playouts(opts) % players == 0 and luck_playouts(opts) >= LUCK_REDEALS
    first = round_[0]
    for r, dealt in enumerate(round_):
        assert sorted(c for h in (*dealt.hands, dealt.kitty, dealt.dead_hand) for c in h) == cards
        assert dealt.kitty == first.kitty and dealt.dead_hand == first.dead_hand
        assert dealt.hands == tuple(first.hands[(s + r) % players] for s in range(players))
        assert (dealt.dealer, dealt.scores) == (state.dealer, state.scores)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_one_reference_playout_values_every_side(players: int) -> None:
    opts = Options(players=players)  # type: ignore[arg-type]
    for seed in range(4):
        state, _ = new_game(opts, seed=seed)
        assert playout_values(state) == tuple(playout_outcome(state, m[0])[0] for m in sides(opts))


def test_luck_needs_every_seat_and_costs_nothing_without_it(records: list[GameRecord]) -> None:
    """The adjusted result sums every decision's gain: a caller who analyses some seats gets no luck, and pays
    none."""
    record = records[0]
    some = analyse_game(record, [0, 1], seed=5, budget=BUDGET)
    assert all(h.luck is None and h.adjusted is None for h in some.hands)
    assert any(h.result is not None for h in some.hands)
    assert some.playouts == analysis_cost(record, [0, 1], budget=BUDGET) == \
        analysis_cost(record, [0, 1], budget=BUDGET, luck=False)
    assert analysis_cost(record, budget=BUDGET) > analysis_cost(record, budget=BUDGET, luck=False)


def test_the_fair_play_statistic_labels_agreement_beyond_what_the_view_explains() -> None:
    def readings(agreed: int, count: int, p: float) -> list[OpenHand]:
        return [OpenHand(best=(), agreed=i < agreed, informative=True, expected=p) for i in range(count)]

    assert fair_play(readings(3, 3, 0.3)).label == "too_few_decisions"
    honest = fair_play(readings(9, 30, 0.3) + [OpenHand(best=(), agreed=True, informative=False, expected=0)])
    assert honest.decisions == 30 and honest.label == "no_signal" and abs(honest.z or 0) < 1
    peeking = fair_play(readings(25, 30, 0.3))
    assert peeking.label == "review" and (peeking.z or 0) >= FAIR_PLAY_Z
    assert FAIR_PLAY_MIN_DECISIONS <= 30


def test_a_seat_that_plays_the_open_hand_best_agrees_wherever_that_differs() -> None:
    opts = Options()
    records = play_records([peeking_player(1.0)] + [level_player("basic")] * 3, seed=9, hands=3, options=opts)
    readings = [d.open_hand for r in records for d in analyse_game(r, [0], seed=1, budget=BUDGET, luck=False).decisions
                if d.open_hand is not None and d.open_hand.informative]
    assert readings and all(r.agreed for r in readings)


# ---------------------------------------------------------------------------------------------------- HTTP


@pytest.fixture(scope="module")
def client() -> Iterator[Client]:
    with TestClient(app_with_key()) as test_client:
        yield test_client


def _post(client: Client, body: Any, status: int) -> Any:
    response = client.post(PATH, json=body)
    assert response.status_code == status, response.text
    return response.json()


def test_the_api_analyses_a_record_reproducibly(client: Client, records: list[GameRecord]) -> None:
    record = msgspec.to_builtins(records[0])
    body = _post(client, {"record": record, "seats": [0, 2], "seed": 3, "budget": BUDGET}, 200)
    assert body["seed"] == 3 and body["budget"] == BUDGET and body["fair_play"] is None
    (game,) = body["games"]
    assert game["seats"] == [0, 2] and {d["seat"] for d in game["decisions"]} == {0, 2}
    assert body["playouts"] == analysis_cost(records[0], [0, 2], budget=BUDGET)
    again = _post(client, {"text": record_to_text(records[0]), "seats": [2, 0], "seed": 3, "budget": BUDGET}, 200)
    assert again == body
    drawn = _post(client, {"record": record, "seats": [1], "budget": 1}, 200)
    assert isinstance(drawn["seed"], int)


def test_the_api_takes_several_games_of_one_player(client: Client, records: list[GameRecord]) -> None:
    games = [{"record": msgspec.to_builtins(r), "seats": [0]} for r in records[:2]]
    body = _post(client, {"games": games, "seed": 1, "budget": 2}, 200)
    assert len(body["games"]) == 2 and body["fair_play"]["label"] in ("too_few_decisions", "no_signal", "review")


def test_the_api_refuses_what_it_cannot_analyse(client: Client, records: list[GameRecord]) -> None:
    record = msgspec.to_builtins(records[0])
    assert _post(client, {"record": record, "seats": [4]}, 400)["code"] == "NO_SUCH_SEAT"
    assert _post(client, {"seats": [0]}, 400)["code"] == "MALFORMED_REQUEST"
    both = {"record": record, "text": record_to_text(records[0])}
    assert _post(client, both, 400)["code"] == "MALFORMED_REQUEST"
    changed = {**record, "scores": [1, 2]}
    assert _post(client, {"record": changed}, 422)["code"] == "RECORD_MISMATCH"
    games = [{"record": record, "seats": [0]}, {"record": changed}]
    problem = _post(client, {"games": games}, 422)
    assert problem["code"] == "RECORD_MISMATCH" and problem["detail"].startswith("games[1]: ")
    assert _post(client, {"record": record, "budget": 0}, 400)["code"] == "MALFORMED_REQUEST"


def test_an_analysis_is_charged_to_the_clients_playouts(records: list[GameRecord]) -> None:
    record = msgspec.to_builtins(records[0])
    cost = analysis_cost(records[0], [0], budget=BUDGET)
    with TestClient(app_with_key(search_playouts_per_minute=cost + 5)) as limited:
        _post(limited, {"record": record, "seats": [0], "seed": 1, "budget": BUDGET}, 200)
        problem = _post(limited, {"record": record, "seats": [0], "seed": 1, "budget": BUDGET}, 429)
        assert problem["code"] == "RATE_LIMITED"


def test_the_session_route_gets_a_seats_analysis_without_the_true_deal(records: list[GameRecord]) -> None:
    async def run() -> Any:
        pool = SearchPool(concurrency=1, queue=1, playouts_per_minute=100_000, budget=MemoryPlayoutBudget())
        await pool.start()
        try:
            return await analyse_records(pool, "ip:test", [(records[0], [1])], seed=4, budget=BUDGET,
                                         fair_play=False)
        finally:
            await pool.stop()

    answer = asyncio.run(run())
    (game,) = answer.games
    assert game.seats == (1,) and all(d.open_hand is None for d in game.decisions)
    assert all(s.fair_play is None for s in game.summaries) and answer.fair_play is None


def test_an_analysis_larger_than_a_whole_minute_is_refused_saying_so(records: list[GameRecord]) -> None:
    record = msgspec.to_builtins(records[0])
    cost = analysis_cost(records[0], [0], budget=BUDGET)
    with TestClient(app_with_key(search_playouts_per_minute=cost - 1)) as limited:
        problem = _post(limited, {"record": record, "seats": [0], "seed": 1, "budget": BUDGET}, 429)
        assert problem["code"] == "RATE_LIMITED" and f"costs {cost} playouts" in problem["detail"]
