"""After the game: every decision of the chosen seats weighed by the expert, the luck of each deal, and a
fair-play signal (docs/ANALYSIS.md says what each figure means and what it cannot prove).

Pure like the rest of :mod:`bots`: no I/O, no clock, randomness only from an explicit seed.

**A decision's values** (:func:`weigh_decision`) come from the seat's *view* at that moment and nothing else:
the expert's candidates (:func:`bots.expert.candidates`) plus the move played, each played out on the same
deals sampled from the view (:func:`bots.inference.sample`, the deals the expert itself searches), the value of
a playout being the expert's (points for the seat's side minus the others' average for the hand, and 300 more
or less when the hand ends the game: :mod:`bots.value`). A move's value is its mean over the deals; the loss of
the move played is the best mean minus its own. Every candidate is tried on every deal (no pruning), so the
differences are paired and their standard error is known: a **clear error** is a loss of at least
:data:`CLEAR_ERROR_POINTS` that is also :data:`CLEAR_ERROR_SE` standard errors of the paired difference. A
decision with one legal move, or one candidate, is not *weighed* (loss 0, left out of the averages). Since the
input is the view, permuting the cards the seat could not see changes no value (tests/analysis).

**Luck** (in the manner of AIVAT): a hand's luck-adjusted result for a side is its expected value before the deal
(:func:`expected_values`: the expert's playout policy, the *reference policy*, plays the hand from before any call
on re-deals of the pack to the same places, the same dealer, scores and options, in whole rounds that pass each
re-deal's hands round the table) plus what every decision of the hand gained over the reference move
(:func:`decision_gain`: the move ``basic`` plays from the seat's view, always the first move weighed, so the gain
is a paired difference on the decision's own deals and costs no playout; exactly 0 where the seat played it),
the mover's side gaining it and the others losing it (:func:`side_gains`). Each gain is shrunk toward 0 by its
uncertainty against the spread that gains of its phase really have (:data:`GAIN_PRIOR`). The luck is the result
less the adjusted result: the deal, and the lie of the cards each seat could not see, beyond what the decisions
earned. It needs every seat's decisions, so it is measured only when every seat is analysed.

**Fair play** (:func:`open_hand`, :func:`fair_play`): the one figure that uses the true deal, and says so. At
each weighed decision the candidates are also played out once on the *true* deal: the moves that score best
there are the open-hand best. Where the open-hand best differs from the move the view ranks first, and the
seat played another move than that one (the decision is *informative*), the seat either agrees with the hidden
cards (it played an open-hand best) or not. An honest seat agrees as often as its information explains: on the
sampled deals, the share in which the move it played is best while the view's best is not, among those in which
the view's best is not best (smoothed towards the move's share of the deals it is best in), is the
chance ``p`` that it agrees without seeing. Over the informative decisions the agreements ``k`` are compared
with their expectation ``sum(p)``: ``z = (k - sum(p)) / sqrt(sum(p(1-p)))``; at least :data:`FAIR_PLAY_Z` over
at least :data:`FAIR_PLAY_MIN_DECISIONS` informative decisions is labelled for review, never more.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Iterator, Mapping, Sequence

import msgspec

from bots.endgame import BitSolver, Solver, shared_solver
from bots.expert import candidates as expert_candidates
from bots.expert import outcome_of, playout_values
from bots.inference import read_auction, sample
from bots.knowledge import Knowledge
from bots.value import hand_value
from engine import (
    GameRecord,
    GameState,
    Move,
    Options,
    SeatView,
    apply_move,
    canonical_move,
    controller,
    engine_options,
    legal_moves,
    sides,
    view,
)
from engine.contract import hand_teams
from engine.deal import pack_index
from engine.model import HandScored
from engine.replay import replay_states
from engine.rules import side_of

#: Default playouts per weighed decision (each one deal played out for one candidate): every candidate gets
#: ``budget // candidates`` deals, at least :data:`MIN_DEALS`.
ANALYSIS_BUDGET = 48
#: The fewest deals a weighed decision samples, whatever its budget (two give a standard error).
MIN_DEALS = 2
#: The most playouts per decision a caller may ask for.
MAX_ANALYSIS_BUDGET = 1000
#: A clear error: a loss of at least this many points (the value scale), and ...
CLEAR_ERROR_POINTS = 50.0
#: ... at least this many standard errors of the paired difference between the best move and the one played.
CLEAR_ERROR_SE = 2.0
#: The fewest reference playouts a hand's expected value before the deal is measured with (whole rounds of
#: re-deals, one playout per seat in each: :func:`luck_playouts`).
LUCK_REDEALS = 16
#: The spread of the gains over the reference move that decisions of each phase really have (the mean square of
#: the true gain, in points squared): the prior that a decision's measured gain is shrunk toward 0 by
#: (:func:`decision_gain`). Fitted on the benchmark's games of ``expert`` against ``basic`` (tests/bench/
#: bench_analysis.py ``skill``, seed 1, its first 10 deal seeds at 2 to 6 players, every seat at the default
#: budget) as the mean, over the decisions that departed from the reference move, of the squared measured gain less
#: its squared standard error: 19,500 (346 auction decisions), 35,000 (89 exchanges, a few of them worth hundreds),
#: 3,300 (1,407 card plays); the calls and nominations departed too rarely to fit (10 and 1, mean squares about 0
#: and 900) and take 1,000.
GAIN_PRIOR: Mapping[str, float] = {"auction": 19_500.0, "exchange": 35_000.0, "call": 1_000.0, "nominate": 1_000.0,
                                   "play": 3_300.0}
#: The fair-play statistic's threshold (one-sided standard scores), and the fewest informative decisions it
#: needs before it labels anything. Above 3 because the honest bots' statistic spreads wider than a standard
#: normal (the sampled deals' model of what a seat knows is approximate): its standard deviation was 1.2 to 1.5
#: over 50 hands of ``random``, ``basic`` and ``expert`` seats, and 1 of 300 ``basic`` trials reached it
#: (tests/bench/bench_analysis.py; docs/BENCHMARKS.md, "After the game").
FAIR_PLAY_Z = 3.5
FAIR_PLAY_MIN_DECISIONS = 10
#: What the statistic answers.
REVIEW = "review"
NO_SIGNAL = "no_signal"
TOO_FEW = "too_few_decisions"


class MoveValue(msgspec.Struct, frozen=True, kw_only=True):
    """A candidate's mean value over the decision's sampled deals (the value scale: points for the seat's side
    minus the others' average for the hand, 300 more or less when it ends the game)."""

    move: Move
    value: float


class OpenHand(msgspec.Struct, frozen=True, kw_only=True):
    """The fair-play reading of one decision, from the true deal: the moves that score best with every card in
    the open, whether the seat played one of them, and the chance ``expected`` that it would without seeing
    (``informative``: the open-hand best is not the move the view ranks first, and the seat played another)."""

    best: tuple[Move, ...]
    agreed: bool
    informative: bool
    expected: float


class DecisionAnalysis(msgspec.Struct, frozen=True, kw_only=True):
    """One decision of an analysed seat: where it is (``move_index`` in the record's moves, the hand), what was
    played, the candidates' values from the seat's view (best first), the played move's value, its loss against
    the best and whether that is a clear error. ``weighed`` is false where there was nothing to weigh: one legal move,
    or one move the expert finds worth searching, and it was played (no values, loss 0). ``gain``: what the move
    played gained over the reference move (:func:`decision_gain`; 0 when it is the reference move), the part of the
    hand's luck-adjusted result that is this decision's."""

    move_index: int
    hand_number: int
    seat: int
    phase: str
    played: Move
    weighed: bool
    deals: int = 0
    candidates: tuple[MoveValue, ...] = ()
    played_value: float | None = None
    best_value: float | None = None
    loss: float = 0.0
    error: bool = False
    gain: float = 0.0
    open_hand: OpenHand | None = None


class FairPlay(msgspec.Struct, frozen=True, kw_only=True):
    """How often a seat's choices agreed with the hidden cards, against what its information explains:
    ``decisions`` informative ones, ``agreed`` of them, ``expected`` agreements without seeing, the one-sided
    standard score ``z``, and the ``label`` (``review``: consistent with seeing hidden cards, for a human to
    review; ``no_signal``; ``too_few_decisions``)."""

    decisions: int
    agreed: int
    expected: float
    z: float | None
    label: str


class SeatSummary(msgspec.Struct, frozen=True, kw_only=True):
    """One analysed seat: its decisions, those weighed, the average loss per weighed decision
    overall and by phase, its clear errors, and (where the true deal was read) its fair-play statistic."""

    seat: int
    decisions: int
    weighed: int
    average_loss: float | None
    loss_by_phase: dict[str, float]
    errors: int
    fair_play: FairPlay | None = None


class HandLuck(msgspec.Struct, frozen=True, kw_only=True):
    """One hand, by side (``sides(options)``): the luck of the deal, what the side got for the hand (the value
    scale), and that result with the luck taken out. ``luck`` is ``null`` for a hand not played to a score
    (thrown in, or in progress) and in the two-player ghost-partners game."""

    hand_number: int
    luck: tuple[float, ...] | None
    result: tuple[float, ...] | None
    adjusted: tuple[float, ...] | None


class GameAnalysis(msgspec.Struct, frozen=True, kw_only=True):
    """A game's analysis: the seats analysed, their decisions and summaries, each hand's luck, and the playouts
    spent."""

    seats: tuple[int, ...]
    decisions: tuple[DecisionAnalysis, ...]
    summaries: tuple[SeatSummary, ...]
    hands: tuple[HandLuck, ...]
    playouts: int


# ------------------------------------------------------------------------------------------ one decision


def _solver(state: GameState, seat: int) -> Solver | BitSolver | None:
    return shared_solver(state, seat, hand_teams(state)[seat]) if state.phase == "play" else None


def decision_moves(knowledge: Knowledge, legal: Sequence[Move], played: Move) -> list[Move]:
    """The moves a decision weighs: the expert's candidates and the move played (once each, canonical). The first
    is the reference move, the one ``basic`` plays from this view: the expert's candidates begin with it."""
    opts = knowledge.options
    out = [canonical_move(m, opts) for m in expert_candidates(knowledge, legal)]
    mine = canonical_move(played, opts)
    if mine not in out:
        out.append(mine)
    return list(dict.fromkeys(out))


def weigh_decision(seat_view: SeatView, options: Options, legal: Sequence[Move], played: Move, *, seed: int,
                   budget: int = ANALYSIS_BUDGET) -> tuple[list[Move], list[list[float]], list[GameState]]:
    """The moves a decision weighs and each one's playout values on the same deals, sampled from
    ``seat_view`` alone (with ``seed``), and the deals: ``(moves, values by move, deals)``. One move: no deal.

    ``legal``: the seat's legal moves (a function of its view; empty at the exchange, where any cards make a
    discard)."""
    knowledge = Knowledge(seat_view, options)
    moves = decision_moves(knowledge, legal, played)
    if len(moves) == 1:
        return moves, [[]], []
    rng = random.Random(seed)
    evidence = read_auction(knowledge)
    count = max(MIN_DEALS, budget // len(moves))
    seat = knowledge.seat
    values: list[list[float]] = [[] for _ in moves]
    deals = []
    for _ in range(count):
        state = sample(knowledge, rng, evidence)
        deals.append(state)
        solver = _solver(state, seat)
        for i, m in enumerate(moves):
            values[i].append(outcome_of(state, m, seat, solver)[0])
    return moves, values, deals


def _paired_se(a: Sequence[float], b: Sequence[float]) -> float:
    n = len(a)
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    mean = sum(diffs) / n
    return math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1) / n) if n > 1 else math.inf


def _best_share(values: Sequence[Sequence[float]], i: int, top: int) -> float:
    """On the sampled deals: the chance that move ``i`` is best where move ``top`` (the view's best) is not,
    among the deals where ``top`` is not best (the chance that an honest seat playing ``i`` agrees with an
    open-hand best that differs from the view's). Smoothed towards ``i``'s share of the deals it is best in (itself
    smoothed towards a half), so that few deals where ``top`` is not best give no chance of 0 or 1."""
    deals = len(values[0])
    both = other = best = 0.0
    for d in range(deals):
        column = [v[d] for v in values]
        high = max(column)
        if column[i] >= high:
            best += 1.0
        if column[top] < high:
            other += 1.0
            if column[i] >= high:
                both += 1.0
    prior = (best + 0.5) / (deals + 1.0)
    return (both + prior) / (other + 1.0)


def open_hand(true_state: GameState, seat: int, moves: Sequence[Move], values: Sequence[Sequence[float]],
              played: Move) -> OpenHand:
    """The fair-play reading of a weighed decision (the module docstring): ``moves`` played out on the true deal
    ``true_state``, against their ``values`` on the deals sampled from the view. This, and only this, reads the
    cards the seat could not see."""
    solver = _solver(true_state, seat)
    truth = [outcome_of(true_state, m, seat, solver)[0] for m in moves]
    high = max(truth)
    best = tuple(m for m, v in zip(moves, truth, strict=True) if v >= high)
    means = [sum(v) / len(v) for v in values]
    top = max(range(len(moves)), key=means.__getitem__)
    mine = moves.index(played)
    # Informative: the open-hand best is not the view's best, and the seat played something else (a move the
    # same as the view's best on every deal, a card equal to it, cannot agree either: no information).
    informative = truth[top] < high and values[mine] != values[top]
    return OpenHand(best=best, agreed=truth[mine] >= high, informative=informative,
                    expected=round(_best_share(values, mine, top), 4) if informative else 0.0)


def decision_gain(values: Sequence[Sequence[float]], mine: int, phase: str) -> float:
    """The gain of the move played (``values[mine]``) over the reference move (``values[0]``, the ``basic`` move
    from the seat's view, which :func:`decision_moves` puts first), on the same deals: the paired mean difference
    ``m``, shrunk toward 0 as far as its standard error ``se`` makes it uncertain against the spread that gains
    of the ``phase`` really have (:data:`GAIN_PRIOR`, ``t2``): ``m * t2 / (t2 + se ** 2)``, the expected gain given
    ``m`` when the true gains spread about 0 by ``t2`` (a normal prior). Exactly 0 when the move played is the
    reference move; ``m`` itself when it differs from it by the same on every deal."""
    if mine == 0:
        return 0.0
    diffs = [a - b for a, b in zip(values[mine], values[0], strict=True)]
    n = len(diffs)
    mean = sum(diffs) / n
    variance = sum((d - mean) ** 2 for d in diffs) / (n - 1) / n if n > 1 else mean * mean
    if variance == 0.0:
        return mean
    prior = GAIN_PRIOR.get(phase, 0.0)
    return mean * prior / (prior + variance)


def analyse_decision(seat_view: SeatView, options: Options, legal: Sequence[Move], played: Move, *,
                     move_index: int, hand_number: int, seat: int, seed: int, budget: int = ANALYSIS_BUDGET,
                     true_state: GameState | None = None) -> tuple[DecisionAnalysis, int]:
    """One decision's analysis (and the playouts it spent), from ``seat_view``; with ``true_state``, also its
    fair-play reading (:func:`open_hand`)."""
    found, spent, _ = _analyse_decision(seat_view, options, legal, played, move_index=move_index,
                                        hand_number=hand_number, seat=seat, seed=seed, budget=budget,
                                        true_state=true_state)
    return found, spent


def _analyse_decision(seat_view: SeatView, options: Options, legal: Sequence[Move], played: Move, *,
                      move_index: int, hand_number: int, seat: int, seed: int, budget: int,
                      true_state: GameState | None) -> tuple[DecisionAnalysis, int, float]:
    """:func:`analyse_decision`, with the move's gain over the reference move (:func:`decision_gain`, for the
    seat's side; 0 where nothing was weighed)."""
    played = canonical_move(played, options)
    phase = seat_view.phase
    if seat_view.phase != "exchange" and len(legal) <= 1:
        return DecisionAnalysis(move_index=move_index, hand_number=hand_number, seat=seat, phase=phase,
                                played=played, weighed=False), 0, 0.0
    moves, values, deals = weigh_decision(seat_view, options, legal, played, seed=seed, budget=budget)
    if not deals:
        return DecisionAnalysis(move_index=move_index, hand_number=hand_number, seat=seat, phase=phase,
                                played=played, weighed=False), 0, 0.0
    means = [sum(v) / len(v) for v in values]
    order = sorted(range(len(moves)), key=lambda i: -means[i])
    best = order[0]
    mine = moves.index(played)
    loss = means[best] - means[mine]
    error = loss >= CLEAR_ERROR_POINTS and loss >= CLEAR_ERROR_SE * _paired_se(values[best], values[mine])
    gain = decision_gain(values, mine, phase)
    spent = len(deals) * len(moves)
    reading = None
    if true_state is not None:
        knowledge_seat = Knowledge(seat_view, options).seat
        reading = open_hand(true_state, knowledge_seat, moves, values, played)
        spent += len(moves)
    return DecisionAnalysis(
        move_index=move_index, hand_number=hand_number, seat=seat, phase=phase, played=played, weighed=True,
        deals=len(deals), candidates=tuple(MoveValue(move=moves[i], value=round(means[i], 2)) for i in order),
        played_value=round(means[mine], 2), best_value=round(means[best], 2), loss=round(loss, 2), error=error,
        gain=round(gain, 2), open_hand=reading), spent, gain


# ------------------------------------------------------------------------------------------------- luck


def _redeals(state: GameState, rng: random.Random) -> list[GameState]:
    """The same state before any call with its cards dealt afresh, and then with those hands passed round the
    table, one state per seat: every hand dealt in every seat, the kitty (and the dead hand) the same."""
    pool = [c for h in state.hands for c in h] + list(state.kitty) + list(state.dead_hand)
    rng.shuffle(pool)
    index = pack_index(state.options)
    hands = []
    at = 0
    for h in state.hands:
        hands.append(tuple(sorted(pool[at:at + len(h)], key=index.__getitem__)))
        at += len(h)
    kitty = tuple(sorted(pool[at:at + len(state.kitty)], key=index.__getitem__))
    at += len(state.kitty)
    dead = tuple(sorted(pool[at:], key=index.__getitem__))
    n = len(hands)
    return [msgspec.structs.replace(state, hands=tuple(hands[(s + r) % n] for s in range(n)), kitty=kitty,
                                    dead_hand=dead) for r in range(n)]


def luck_playouts(opts: Options) -> int:
    """The reference playouts that a hand's expected value takes: whole rounds of re-deals (one per seat), the
    fewest that make at least :data:`LUCK_REDEALS`."""
    n = opts.players
    return n * -(-LUCK_REDEALS // n)


def expected_values(dealt: GameState, *, seed: int) -> tuple[float, ...]:
    """Each side's expected value of the hand dealt in ``dealt`` (the state before any call), before the deal: the
    mean of the reference playout's value (:func:`bots.expert.playout_values`: one playout values every side)
    over re-deals of its cards to the same places, each re-deal played once with every seat holding each of its
    hands in turn (:func:`luck_playouts` playouts: the sides' shares of good and bad cards then cancel within a
    round, and the mean is that much firmer than over as many independent re-deals)."""
    rng = random.Random(seed)
    base = [0.0] * len(sides(dealt.options))
    count = luck_playouts(dealt.options)
    for _ in range(count // dealt.options.players):
        for state in _redeals(dealt, rng):
            for i, v in enumerate(playout_values(state)):
                base[i] += v / count
    return tuple(base)


def side_gains(opts: Options, seat: int, gain: float) -> tuple[float, ...]:
    """A decision's gain ``gain`` (for ``seat``'s side, :func:`decision_gain`) for each side: the seat's side gains
    it and the others lose it, shared equally (exact with two sides, where every value is one side's less the
    other's; an approximation with three or more, where the playouts value the seat's side alone)."""
    mine = side_of(opts)[seat]
    count = len(sides(opts))
    return tuple(gain if i == mine else -gain / (count - 1) for i in range(count))


# ------------------------------------------------------------------------------------------- fair play


def fair_play(readings: Iterable[OpenHand]) -> FairPlay:
    """The fair-play statistic over some decisions' readings (one seat's, over one game or many)."""
    informative = [r for r in readings if r.informative]
    k = sum(1 for r in informative if r.agreed)
    expected = sum(r.expected for r in informative)
    variance = sum(r.expected * (1.0 - r.expected) for r in informative)
    z = (k - expected) / math.sqrt(variance) if variance > 0 else None
    if len(informative) < FAIR_PLAY_MIN_DECISIONS or z is None:
        label = TOO_FEW
    else:
        label = REVIEW if z >= FAIR_PLAY_Z else NO_SIGNAL
    return FairPlay(decisions=len(informative), agreed=k, expected=round(expected, 3),
                    z=None if z is None else round(z, 3), label=label)


# ------------------------------------------------------------------------------------------- a whole game


def _summary(seat: int, decisions: Sequence[DecisionAnalysis], with_fair_play: bool) -> SeatSummary:
    mine = [d for d in decisions if d.seat == seat]
    weighed = [d for d in mine if d.weighed]
    by_phase: dict[str, list[float]] = {}
    for d in weighed:
        by_phase.setdefault(d.phase, []).append(d.loss)
    readings = [d.open_hand for d in weighed if d.open_hand is not None]
    return SeatSummary(
        seat=seat, decisions=len(mine), weighed=len(weighed),
        average_loss=round(sum(d.loss for d in weighed) / len(weighed), 2) if weighed else None,
        loss_by_phase={p: round(sum(v) / len(v), 2) for p, v in by_phase.items()},
        errors=sum(1 for d in weighed if d.error),
        fair_play=fair_play(readings) if with_fair_play else None)


def decision_seed(seed: int, move_index: int) -> int:
    """The seed of the decision at ``move_index`` in an analysis seeded with ``seed``."""
    return (seed * 1_000_003 + move_index * 7_919 + 1) & 0xFFFF_FFFF_FFFF


def decision_cost(seat_view: SeatView, options: Options, legal: Sequence[Move], played: Move, *,
                  budget: int = ANALYSIS_BUDGET, fair_play: bool = True) -> int:
    """The playouts :func:`analyse_decision` spends on this decision, found without playing any out."""
    if seat_view.phase != "exchange" and len(legal) <= 1:
        return 0
    n = len(decision_moves(Knowledge(seat_view, options), legal, canonical_move(played, options)))
    if n == 1:
        return 0
    return max(MIN_DEALS, budget // n) * n + (n if fair_play else 0)


def _decisions(record: GameRecord, chosen: frozenset[int]) -> Iterator[tuple[int, GameState, Move, GameState]]:
    """Each decision of the ``chosen`` seats' players in ``record``: its index, the state before it, the move,
    the state after."""
    opts = engine_options(record.options)
    states = replay_states(record)
    state = next(states)
    for index, (move, after) in enumerate(zip(record.moves, states, strict=True)):
        actor = state.to_act
        assert actor is not None
        if controller(opts, actor) in chosen:
            yield index, state, move, after
        state = after


def _legal(state: GameState) -> Sequence[Move]:
    return [] if state.phase == "exchange" else legal_moves(state)


def analysis_cost(record: GameRecord, seats: Iterable[int] | None = None, *, budget: int = ANALYSIS_BUDGET,
                  fair_play: bool = True, luck: bool = True) -> int:
    """The playouts :func:`analyse_game` spends on ``record`` with these arguments, exactly, found without
    playing any out (each decision's moves counted as it will weigh them): what a caller charges before the
    analysis runs."""
    opts = engine_options(record.options)
    chosen = _seats(opts, seats)
    total = 0
    for _, state, move, _ in _decisions(record, chosen):
        player = controller(opts, state.to_act or 0)
        total += decision_cost(view(state, player), opts, _legal(state), move, budget=budget, fair_play=fair_play)
    if _with_luck(opts, chosen, luck):
        total += luck_playouts(opts) * sum(1 for h in record.hands if h.score is not None)
    return total


def _with_luck(opts: Options, chosen: frozenset[int], luck: bool) -> bool:
    """Whether the luck is measured: asked for, every seat's decisions weighed (the adjusted result sums every
    decision's gain), and not the ghost-partners game (its face-down piles make re-dealing another game)."""
    return luck and not _ghosts(opts) and chosen == frozenset(range(opts.players))


def _ghosts(opts: Options) -> bool:
    return opts.players == 2 and opts.two_player_method == "ghost_partners"


def _seats(opts: Options, seats: Iterable[int] | None) -> frozenset[int]:
    n = opts.players
    return frozenset(range(n)) if seats is None else frozenset(s for s in seats if 0 <= s < n)


def _hand_result(scored: HandScored, before: tuple[int, ...], opts: Options) -> tuple[float, ...]:
    return tuple(round(hand_value(before, scored.deltas, scored.contracting_seats, scored.made, opts,
                                  members[0]), 2) for members in sides(opts))


def analyse_game(record: GameRecord, seats: Iterable[int] | None = None, *, seed: int = 0,
                 budget: int = ANALYSIS_BUDGET, fair_play: bool = True, luck: bool = True) -> GameAnalysis:
    """Analyse a game's record (verified beforehand: it is replayed here without checks): every decision of
    ``seats`` (every seat: ``None``; in the ghost-partners game a human's seat covers its ghost), each hand's
    luck (``luck``, when every seat is analysed), and with ``fair_play`` each decision's reading of the true deal
    and each seat's statistic. Reproducible: the same record, seats, seed and budget give the same analysis."""
    opts = engine_options(record.options)
    chosen = _seats(opts, seats)
    with_luck = _with_luck(opts, chosen, luck)
    decisions: list[DecisionAnalysis] = []
    scored: dict[int, HandLuck] = {}
    spent = 0
    states = replay_states(record)
    state = next(states)
    hand_start = state
    gains = [0.0] * len(sides(opts))
    for index, (move, after) in enumerate(zip(record.moves, states, strict=True)):
        actor = state.to_act
        assert actor is not None
        player = controller(opts, actor)
        if player in chosen:
            found, cost, gain = _analyse_decision(
                view(state, player), opts, _legal(state), move,
                move_index=index, hand_number=state.hand_number, seat=player, seed=decision_seed(seed, index),
                budget=budget, true_state=state if fair_play else None)
            decisions.append(found)
            spent += cost
            if gain:
                for i, g in enumerate(side_gains(opts, actor, gain)):
                    gains[i] += g
        _, events = apply_move(state, move)
        for e in events:
            if isinstance(e, HandScored):
                result = _hand_result(e, state.scores, opts)
                lucky: tuple[float, ...] | None = None
                adjusted: tuple[float, ...] | None = None
                if with_luck:
                    expected = expected_values(hand_start, seed=decision_seed(seed, -1 - state.hand_number))
                    spent += luck_playouts(opts)
                    adjusted = tuple(round(x + g, 2) for x, g in zip(expected, gains, strict=True))
                    lucky = tuple(round(r - a, 2) for r, a in zip(result, adjusted, strict=True))
                scored[state.hand_number] = HandLuck(hand_number=state.hand_number, luck=lucky, result=result,
                                                     adjusted=adjusted)
        if after.hand_number != state.hand_number:
            hand_start = after
            gains = [0.0] * len(gains)
        state = after
    hands = [scored.get(h.hand_number, HandLuck(hand_number=h.hand_number, luck=None, result=None, adjusted=None))
             for h in record.hands]
    ordered = tuple(sorted(chosen))
    return GameAnalysis(seats=ordered, decisions=tuple(decisions),
                        summaries=tuple(_summary(s, decisions, fair_play) for s in ordered), hands=tuple(hands),
                        playouts=spent)


def player_fair_play(analyses: Iterable[GameAnalysis], seats: Sequence[Iterable[int]]) -> FairPlay:
    """One player's fair-play statistic over several games: ``seats[i]`` the seats it held in ``analyses[i]``."""
    readings: list[OpenHand] = []
    for analysis, held in zip(analyses, seats, strict=True):
        mine = set(held)
        readings += [d.open_hand for d in analysis.decisions if d.seat in mine and d.open_hand is not None]
    return fair_play(readings)


__all__ = ["ANALYSIS_BUDGET", "CLEAR_ERROR_POINTS", "CLEAR_ERROR_SE", "FAIR_PLAY_MIN_DECISIONS", "FAIR_PLAY_Z",
           "GAIN_PRIOR", "LUCK_REDEALS", "MAX_ANALYSIS_BUDGET", "MIN_DEALS", "DecisionAnalysis", "FairPlay",
           "GameAnalysis", "HandLuck", "MoveValue", "OpenHand", "SeatSummary", "analyse_decision", "analyse_game",
           "analysis_cost", "decision_cost", "decision_gain", "decision_moves", "decision_seed", "expected_values",
           "fair_play", "luck_playouts", "open_hand", "player_fair_play", "side_gains", "weigh_decision"]
