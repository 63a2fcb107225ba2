"""Building, replaying and verifying game records (the schema is :mod:`engine.records`).

- :func:`build_record` replays moves and writes the record (or raises :class:`RecordRefused` at the first bad
  move);
- :func:`verify_record` replays a record and answers :class:`Verified` (the final state and the record as
  derived) or :class:`RecordRefused`: the first malformed or illegal move (its index, ``code``, ``reason``,
  ``detail`` and the state before it), or the first derived field that differs (its path, e.g.
  ``hands[2].score.deltas``);
- :func:`replay_game` replays a game's inputs and moves; :func:`replay_states` yields every state the game went
  through.

Everything here is pure (no I/O, no clock, no random state): a record without a seed is replayed with the
seed its caller passes for the deals after the deck orders (a service draws a secret one).

>>> from engine import Options, Pass
>>> rec = build_record(Options(), seed=7, first_dealer=3, moves=[Pass(seat=0)])
>>> rec.hands[0].dealer, len(rec.moves), rec.status
(3, 1, 'in_progress')
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import msgspec

from engine.game import GameSetupError, IllegalMove, Rejection, apply_move, canonical_move, new_game
from engine.ghosts import dealt_hands
from engine.model import (
    CardPlayed,
    Event,
    GameOver,
    GameResult,
    GameState,
    HandDealt,
    HandScored,
    Move,
    ThrownIn,
    TrickWon,
)
from engine.options import RULES_VERSION, Options, OptionsError
from engine.reasons import MALFORMED_REASONS
from engine.records import (
    MAX_DECK_ORDERS,
    MAX_RECORD_HANDS,
    MAX_RECORD_MOVES,
    RECORD_FORMAT,
    GameRecord,
    HandOutcome,
    HandRecord,
    HandScore,
    RecordContract,
    RecordOptions,
    RecordRefused,
    RecordResult,
    RecordTrick,
    ThrowInReason,
    Verified,
    engine_options,
    record_options,
)
from engine.setup import validate_options

_JSON = msgspec.json.Encoder()

#: Checks a move before the engine does (the service's token check); ``None`` lets the engine decide.
MoveScreen = Callable[[GameState, Move], Rejection | None]



class _HandBuilder:
    """Collects one hand's derived fields from the states and events of a replay."""

    def __init__(self, state: GameState) -> None:
        self.hand_number = state.hand_number
        self.dealer = state.dealer
        self.dealt = dealt_hands(state)
        self.dead_hand = state.dead_hand
        self.kitty = state.kitty
        self.move_count = 0
        self.contract: RecordContract | None = None
        self.tricks: list[RecordTrick] = []
        self.trick: RecordTrick | None = None
        self.outcome: HandOutcome = "in_progress"
        self.thrown_in: ThrowInReason | None = None
        self.score: HandScore | None = None

    def event(self, e: Event) -> None:
        replace = msgspec.structs.replace
        if isinstance(e, CardPlayed):
            t = self.trick
            if t is None:
                self.trick = RecordTrick(leader=e.seat, cards=(e.card,), nominate=e.nominate, winner=None)
            else:
                self.trick = replace(t, cards=(*t.cards, e.card))
        elif isinstance(e, TrickWon):
            assert self.trick is not None
            self.tricks.append(replace(self.trick, winner=e.seat))
            self.trick = None
        elif isinstance(e, ThrownIn):
            self.outcome, self.thrown_in = "thrown_in", e.reason
        elif isinstance(e, HandScored):
            self.outcome = "scored"
            self.score = HandScore(made=e.made, contracting_seats=e.contracting_seats, tricks_won=e.tricks_won,
                                   deltas=e.deltas, scores=e.scores)

    def build(self) -> HandRecord:
        contract = self.contract
        tricks = (*self.tricks, *((self.trick,) if self.trick is not None else ()))
        return HandRecord(hand_number=self.hand_number, dealer=self.dealer, move_count=self.move_count,
                          dealt=self.dealt, dead_hand=self.dead_hand, kitty=self.kitty, contract=contract,
                          tricks=tricks, outcome=self.outcome, thrown_in=self.thrown_in, score=self.score)


def _refuse_move(index: int, rejection: Rejection, state: GameState) -> RecordRefused:
    code = "MALFORMED_MOVE" if rejection.reason in MALFORMED_REASONS else "ILLEGAL_MOVE"
    return RecordRefused(code, f"move {index}: {rejection.detail}", index=index, reason=rejection.reason,
                         state=state)


def _start(options: Options, seed: int | None, deck_orders: Sequence[Sequence[str]], first_dealer: int | None,
           replay_seed: int) -> tuple[GameState, list[Event]]:
    if len(deck_orders) > MAX_DECK_ORDERS:
        raise RecordRefused("RECORD_TOO_LONG", f"a record holds at most {MAX_DECK_ORDERS} deck orders")
    try:
        validate_options(options)
    except OptionsError as exc:
        raise RecordRefused("INVALID_OPTIONS", str(exc)) from None
    try:
        return new_game(options, seed=replay_seed if seed is None else seed, deck_orders=deck_orders,
                        first_dealer=first_dealer)
    except GameSetupError as exc:
        raise RecordRefused(exc.code, str(exc)) from None


def _contract_record(state: GameState) -> RecordContract | None:
    c = state.contract
    if c is None:
        return None
    return RecordContract(bid=c.bid, contractor=c.contractor, sans_kitty=c.sans_kitty, sitting_out=c.sitting_out,
                          called_card=c.called_card, chosen_partners=c.chosen_partners, alone=c.alone)


def _replay(state: GameState, moves: Sequence[Move], screen: MoveScreen | None,
            on_state: Callable[[GameState], None] | None = None) -> tuple[GameState, list[_HandBuilder]]:
    if len(moves) > MAX_RECORD_MOVES:
        raise RecordRefused("RECORD_TOO_LONG", f"a record holds at most {MAX_RECORD_MOVES} moves, not "
                            f"{len(moves)}")
    hands = [_HandBuilder(state)]
    for index, move in enumerate(moves):
        rejection = screen(state, move) if screen is not None else None
        if rejection is None:
            try:
                new, events = apply_move(state, move)
            except IllegalMove as exc:
                rejection = exc.rejection
        if rejection is not None:
            raise _refuse_move(index, rejection, state)
        current = hands[-1]
        current.move_count += 1
        dealt = False
        for e in events:
            if isinstance(e, HandDealt):
                if len(hands) >= MAX_RECORD_HANDS:
                    raise RecordRefused("RECORD_TOO_LONG", f"a record holds at most {MAX_RECORD_HANDS} hands",
                                        index=index, state=state)
                # The contract as it stood when the hand ended (the state before the move that dealt anew).
                hands[-1].contract = _contract_record(state)
                hands.append(_HandBuilder(new))
                dealt = True
            elif not isinstance(e, GameOver):
                hands[-1].event(e)
        if not dealt:
            current.contract = _contract_record(new)
        state = new
        if on_state is not None:
            on_state(state)
    return state, hands


def _record(options: Options, seed: int | None, deck_orders: Sequence[Sequence[str]], first_dealer: int,
            moves: Sequence[Move], state: GameState, hands: list[_HandBuilder]) -> GameRecord:
    built = [h.build() for h in hands]
    result = state.result
    return GameRecord(
        format=RECORD_FORMAT, rules_version=state.rules_version, players=options.players,
        options=record_options(options), seed=seed, deck_orders=tuple(tuple(d) for d in deck_orders),
        first_dealer=first_dealer, moves=tuple(canonical_move(m, options) for m in moves), hands=tuple(built),
        status="game_over" if state.phase == "game_over" else "in_progress", scores=state.scores,
        result=None if result is None else _result(result))


def _result(result: GameResult) -> RecordResult:
    return RecordResult(winners=result.winners, losers=result.losers, reason=result.reason)


def build_record(options: Options, *, seed: int | None, deck_orders: Sequence[Sequence[str]] = (),
                 first_dealer: int, moves: Sequence[Move], screen: MoveScreen | None = None,
                 replay_seed: int = 0) -> GameRecord:
    """The record of the game these moves play (raises :class:`RecordRefused` at the first bad move).

    ``seed=None`` records a game whose deals are all in ``deck_orders``; ``replay_seed`` then stands in for
    the deals after them (it is not part of the record).
    """
    return replay_game(options, seed=seed, deck_orders=deck_orders, first_dealer=first_dealer, moves=moves,
                       screen=screen, replay_seed=replay_seed).record


def replay_game(options: Options, *, seed: int | None, deck_orders: Sequence[Sequence[str]] = (),
                first_dealer: int | None, moves: Sequence[Move], screen: MoveScreen | None = None,
                replay_seed: int = 0) -> Verified:
    """Replay ``moves`` from the start: the final state and the derived record (``first_dealer=None``: the
    dealer the options and the seed choose, as a new game would)."""
    state, _ = _start(options, seed, deck_orders, first_dealer, replay_seed)
    dealer = state.dealer
    final, hands = _replay(state, moves, screen)
    if seed is None and len(hands) > len(deck_orders):
        # The deals after the deck orders come from the verifier's secret seed: no move may be made in them,
        # and a hand the last move dealt from it is left out of the record (its cards stay secret).
        spare = hands[len(deck_orders):]
        if any(h.move_count for h in spare):
            first = sum(h.move_count for h in hands[:len(deck_orders)])
            raise RecordRefused("INVALID_DECK_ORDER", f"move {first} is in hand {len(deck_orders)}, which no deck "
                                "order deals: a record without a seed holds the deck of every hand it plays",
                                index=first, field="deck_orders")
        hands = hands[:len(deck_orders)]
    return Verified(state=final, record=_record(options, seed, deck_orders, dealer, moves, final, hands))


def replay_states(record: GameRecord, *, replay_seed: int = 0) -> Iterator[GameState]:
    """Every state of the game in order: after the deal, then after each move (raises at a bad move)."""
    options = engine_options(record.options)
    state, _ = _start(options, record.seed, record.deck_orders, record.first_dealer, replay_seed)
    states = [state]
    _replay(state, record.moves, None, states.append)
    yield from states


def first_difference(given: Any, derived: Any, path: str) -> str | None:
    """The path of the first field (in document order) where two plain values differ."""
    if isinstance(given, dict) and isinstance(derived, dict):
        for key in derived:
            found = first_difference(given.get(key), derived[key], f"{path}.{key}" if path else key)
            if found is not None:
                return found
        extra = [k for k in given if k not in derived]
        return f"{path}.{extra[0]}" if extra else None
    if isinstance(given, list | tuple) and isinstance(derived, list | tuple):
        for i, (a, b) in enumerate(zip(given, derived, strict=False)):
            found = first_difference(a, b, f"{path}[{i}]")
            if found is not None:
                return found
        if len(given) != len(derived):
            return f"{path}[{min(len(given), len(derived))}]"
        return None
    return None if given == derived and type(given) is type(derived) else path


def checked_options(rules_version: str, options: RecordOptions, players: int, hands: int) -> Options:
    """The engine's options of a record (a whole game's or a seat's), once its hand count is within the bound,
    its rules version is this engine's and its player count is its options' (raises :class:`RecordRefused`)."""
    if hands > MAX_RECORD_HANDS:
        raise RecordRefused("RECORD_TOO_LONG", f"a record holds at most {MAX_RECORD_HANDS} hands", field="hands")
    if rules_version != RULES_VERSION:
        raise RecordRefused("RECORD_MISMATCH", f"the record is of rules version {rules_version!r}; "
                            f"this engine plays {RULES_VERSION}", field="rules_version")
    try:
        opts = engine_options(options)
    except (OptionsError, TypeError, msgspec.ValidationError) as exc:
        raise RecordRefused("INVALID_OPTIONS", str(exc), field="options") from None
    if players != opts.players:
        raise RecordRefused("RECORD_MISMATCH", f"players is {players} but options.players is {opts.players}",
                            field="players")
    return opts


def verify_record(record: GameRecord, *, screen: MoveScreen | None = None, replay_seed: int = 0) -> Verified:
    """Replay ``record`` and check every derived field: :class:`Verified`, or raises :class:`RecordRefused`.

    Checked in order: the rules version, the player count against the options, the setup (options, seed,
    deck orders, first dealer), each move in turn, then every derived field in document order.
    """
    options = checked_options(record.rules_version, record.options, record.players, len(record.hands))
    verified = replay_game(options, seed=record.seed, deck_orders=record.deck_orders,
                           first_dealer=record.first_dealer, moves=record.moves, screen=screen,
                           replay_seed=replay_seed)
    # Equal encodings are equal records (one encoding per record): walk the fields only to name a difference.
    if _JSON.encode(record) == _JSON.encode(verified.record):
        return verified
    field = first_difference(msgspec.to_builtins(record), msgspec.to_builtins(verified.record), "")
    if field is not None:
        raise RecordRefused("RECORD_MISMATCH", f"{field} does not match what the moves derive", field=field,
                            state=verified.state)
    return verified


__all__ = ["MoveScreen", "build_record", "checked_options", "first_difference", "replay_game", "replay_states",
           "verify_record"]
