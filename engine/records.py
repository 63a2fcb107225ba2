"""Game records: a whole game as a versioned document, built by replaying its moves, verified, and printed.

A record (:class:`GameRecord`) holds what a game *is*: the rules version, the full resolved options, the
player count, the deal source (a ``seed``, and/or explicit ``deck_orders`` consumed first), the first dealer
and the moves in order, each as the API's move object. Everything else in it is *derived* from those and
checked: each hand's deal, contract, tricks and score (:class:`HandRecord`), the scores and the result.
OpenSpiel serializes a game the same way (its parameters plus the action history); PGN and PBN keep the
derived annotations beside the moves as this does.

- :func:`build_record` replays moves and writes the record (or raises :class:`RecordRefused` at the first bad
  move);
- :func:`verify_record` replays a record and answers :class:`Verified` (the final state and the record as
  derived) or :class:`RecordRefused`: the first malformed or illegal move (its index, ``code``, ``reason``,
  ``detail`` and the state before it), or the first derived field that differs (its path, e.g.
  ``hands[2].score.changes``);
- :func:`replay_states` yields every state the game went through;
- :func:`record_to_text` and :func:`record_from_text` are exact inverses (docs/RECORDS.md has the grammar).

Limits: a record holds at most :data:`MAX_RECORD_MOVES` moves and :data:`MAX_RECORD_HANDS` hands; replay is
linear in the moves (each move is one engine check and apply), so the work per record is bounded by them.

Everything here is pure (no I/O, no clock, no random state): a record without a seed is replayed with the
seed its caller passes for the deals after the deck orders (a service draws a secret one).

>>> from engine import Options, Pass
>>> rec = build_record(Options(), seed=7, first_dealer=3, moves=[Pass(seat=0)])
>>> rec.hands[0].dealer, len(rec.moves), rec.status
(3, 1, 'in_progress')
>>> record_from_text(record_to_text(rec)) == rec
True
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from engine.game import GameSetupError, IllegalMove, Rejection, apply_move, new_game
from engine.ghosts import dealt_hands
from engine.model import (
    AnswerRedeal,
    Bid,
    CallCard,
    CardPlayed,
    ChoosePartners,
    Discard,
    Event,
    GameOver,
    GameResult,
    GameState,
    GoAlone,
    HandDealt,
    HandScored,
    LookAtHand,
    Move,
    NominateJoker,
    Pass,
    Play,
    ProposeRedeal,
    ThrownIn,
    TrickWon,
)
from engine.options import RULES_VERSION, Options, OptionsError
from engine.reasons import MALFORMED_REASONS as _MALFORMED_REASONS
from engine.setup import validate_options

RECORD_FORMAT: Literal["fivehundred-record/1"] = "fivehundred-record/1"

#: The most moves a record may hold. Real games are far shorter: 200 random four-player games to 500 (bids kept
#: low, so that they last as many hands as real ones) took 384 moves at the median and 2,144 at most (49 hands);
#: a six-player hand takes about 90 moves. Replay is linear in the moves (one engine check and apply each), so
#: this bounds the work of one record (docs/RECORDS.md and tests/bench/bench_records.py have the figures).
MAX_RECORD_MOVES = 5_000
#: The most hands (deals, redeals included) a record may hold: every hand but the last takes two moves or more
#: (a two-player hand thrown in after two passes), so this follows from the move bound.
MAX_RECORD_HANDS = MAX_RECORD_MOVES // 2 + 1
#: The most explicit deck orders a record may hold.
MAX_DECK_ORDERS = MAX_RECORD_HANDS

_JSON = msgspec.json.Encoder()

#: Engine reasons that mean a token was not understood rather than a rule was broken.
MALFORMED_REASONS = _MALFORMED_REASONS


def _option_fields() -> list[tuple[str, Any]]:
    hints = typing.get_type_hints(Options, include_extras=True)
    return [(name, hints[name]) for name in Options.__struct_fields__]


# Options itself leaves defaults out when encoded; a record spells out every option (and a record missing one
# does not decode), so it stays exact if a default ever changes. Derived from Options, so it never drifts.
if TYPE_CHECKING:
    RecordOptions = Options
else:
    RecordOptions = msgspec.defstruct("RecordOptions", _option_fields(), module=__name__, frozen=True,
                                      kw_only=True, forbid_unknown_fields=True)
    RecordOptions.__doc__ = "Every rule option, spelled out (the full resolved rule set of the game)."


def record_options(opts: Options) -> RecordOptions:
    """``opts`` with every field present (as a record holds them)."""
    return RecordOptions(**msgspec.structs.asdict(opts))


def engine_options(opts: RecordOptions) -> Options:
    """The engine's :class:`Options` for a record's options (raises :class:`OptionsError` if unplayable)."""
    options = Options(**msgspec.structs.asdict(opts))
    validate_options(options)
    return options


class RecordContract(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A hand's contract as the auction and the partner call settled it."""

    bid: str
    contractor: int
    sans_kitty: bool
    #: Misère partners who sit the hand out.
    sitting_out: tuple[int, ...]
    #: Five players: the card called (its holder is the secret partner), the partners named, or alone.
    called_card: str | None
    chosen_partners: tuple[int, ...]
    alone: bool


class RecordTrick(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A trick: who led, the cards in play order, the suit a led joker named, and who won it (``null`` while
    the trick is in progress, at the end of a record of a game still being played)."""

    leader: int
    cards: tuple[str, ...]
    nominate: str | None
    winner: int | None


class HandScore(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How a played-out hand scored: ``changes`` and ``scores`` are per side (``sides(options)``)."""

    made: bool | None
    contracting_seats: tuple[int, ...]
    tricks_won: tuple[int, ...]
    changes: tuple[int, ...]
    scores: tuple[int, ...]


HandOutcome = Literal["scored", "thrown_in", "in_progress"]
ThrowInReason = Literal["all_passed", "inkle", "no_ace_no_face"]


class HandRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One deal (a redeal is a hand of its own) and what became of it, all derived from the moves."""

    hand_number: int
    dealer: int
    #: How many of the record's moves belong to this hand (they follow the previous hands' moves).
    move_count: int
    #: The hands as dealt, by seat (each in the pack's order; a ghost's ten cards, face up and face down), the
    #: two-player dead hand, and the kitty.
    dealt: tuple[tuple[str, ...], ...]
    dead_hand: tuple[str, ...]
    kitty: tuple[str, ...]
    #: ``null``: no contract (thrown in, every seat passed and the hand was played out at no trumps, or the
    #: auction is still going on).
    contract: RecordContract | None
    tricks: tuple[RecordTrick, ...]
    outcome: HandOutcome
    thrown_in: ThrowInReason | None
    score: HandScore | None


class RecordResult(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """How the game ended: winning and losing sides (indices into ``sides(options)``) and why."""

    winners: tuple[int, ...]
    losers: tuple[int, ...]
    reason: Literal["contract", "points", "out_backwards"]


class GameRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A whole game (or the game so far): its inputs, its moves, and what they derive. See the module doc."""

    format: Literal["fivehundred-record/1"]
    rules_version: str
    players: int
    options: RecordOptions
    #: Derives every deal not given in ``deck_orders``; ``null`` when every hand dealt is in ``deck_orders``.
    seed: int | None
    #: Explicit deck orders for the first hands, each a permutation of the pack (``deck[0]`` dealt first).
    deck_orders: tuple[tuple[str, ...], ...]
    first_dealer: int
    moves: tuple[Move, ...]
    # ------------------------------------------------------------------ derived from the above, and checked
    hands: tuple[HandRecord, ...]
    status: Literal["in_progress", "game_over"]
    #: Per side, after the last scored hand.
    scores: tuple[int, ...]
    result: RecordResult | None


class Verified(msgspec.Struct, frozen=True, kw_only=True):
    """A record that replays cleanly and agrees with itself: the final state and the record as derived."""

    state: GameState
    record: GameRecord


class RecordRefused(ValueError):
    """Why a record (or a list of moves) is refused.

    ``code`` is one of: ``INVALID_OPTIONS``, ``INVALID_SEED``, ``INVALID_DECK_ORDER``, ``INVALID_FIRST_DEALER``,
    ``RECORD_TOO_LONG`` (the record itself cannot start); ``MALFORMED_MOVE`` (a card,
    bid, suit or seat the game does not have) and ``ILLEGAL_MOVE`` at ``index`` with the engine's ``reason``
    and ``state`` the state before it; ``RECORD_MISMATCH``: a derived ``field`` differs (or ``rules_version``
    is not this engine's).
    """

    def __init__(self, code: str, detail: str, *, index: int | None = None, reason: str | None = None,
                 field: str | None = None, state: GameState | None = None) -> None:
        super().__init__(f"{code}: {detail}")
        self.code = code
        self.detail = detail
        self.index = index
        self.reason = reason
        self.field = field
        self.state = state


#: Checks a move before the engine does (the service's token check); ``None`` lets the engine decide.
MoveScreen = Callable[[GameState, Move], Rejection | None]


# ------------------------------------------------------------------------------------------------ replay


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
                                   changes=e.deltas, scores=e.scores)

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
        first_dealer=first_dealer, moves=tuple(moves), hands=tuple(built),
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


def _first_difference(given: Any, derived: Any, path: str) -> str | None:
    """The path of the first field (in document order) where two plain values differ."""
    if isinstance(given, dict) and isinstance(derived, dict):
        for key in derived:
            found = _first_difference(given.get(key), derived[key], f"{path}.{key}" if path else key)
            if found is not None:
                return found
        extra = [k for k in given if k not in derived]
        return f"{path}.{extra[0]}" if extra else None
    if isinstance(given, list | tuple) and isinstance(derived, list | tuple):
        for i, (a, b) in enumerate(zip(given, derived, strict=False)):
            found = _first_difference(a, b, f"{path}[{i}]")
            if found is not None:
                return found
        if len(given) != len(derived):
            return f"{path}[{min(len(given), len(derived))}]"
        return None
    return None if given == derived and type(given) is type(derived) else path


def verify_record(record: GameRecord, *, screen: MoveScreen | None = None, replay_seed: int = 0) -> Verified:
    """Replay ``record`` and check every derived field: :class:`Verified`, or raises :class:`RecordRefused`.

    Checked in order: the rules version, the player count against the options, the setup (options, seed,
    deck orders, first dealer), each move in turn, then every derived field in document order.
    """
    if len(record.hands) > MAX_RECORD_HANDS:
        raise RecordRefused("RECORD_TOO_LONG", f"a record holds at most {MAX_RECORD_HANDS} hands", field="hands")
    if record.rules_version != RULES_VERSION:
        raise RecordRefused("RECORD_MISMATCH", f"the record is of rules version {record.rules_version!r}; "
                            f"this engine plays {RULES_VERSION}", field="rules_version")
    try:
        options = engine_options(record.options)
    except (OptionsError, TypeError, msgspec.ValidationError) as exc:
        raise RecordRefused("INVALID_OPTIONS", str(exc), field="options") from None
    if record.players != options.players:
        raise RecordRefused("RECORD_MISMATCH", f"players is {record.players} but options.players is "
                            f"{options.players}", field="players")
    verified = replay_game(options, seed=record.seed, deck_orders=record.deck_orders,
                           first_dealer=record.first_dealer, moves=record.moves, screen=screen,
                           replay_seed=replay_seed)
    # Equal encodings are equal records (one encoding per record): walk the fields only to name a difference.
    if _JSON.encode(record) == _JSON.encode(verified.record):
        return verified
    field = _first_difference(msgspec.to_builtins(record), msgspec.to_builtins(verified.record), "")
    if field is not None:
        raise RecordRefused("RECORD_MISMATCH", f"{field} does not match what the moves derive", field=field,
                            state=verified.state)
    return verified


# -------------------------------------------------------------------------------------------------- text


class RecordTextError(ValueError):
    """A text record that does not parse (the message names the line), or a record the text cannot express."""


_SETUP_LINES: dict[type, str] = {Bid: "Auction", Pass: "Auction", LookAtHand: "Auction", ProposeRedeal: "Auction",
                                 AnswerRedeal: "Auction", CallCard: "Partner", GoAlone: "Partner",
                                 ChoosePartners: "Partner", Discard: "Exchange", NominateJoker: "Nominate"}
_OPTIONS_DECODER = msgspec.json.Decoder(RecordOptions)


def _cards(cards: Sequence[str]) -> str:
    return " ".join(cards) if cards else "-"


def _ints(values: Sequence[int]) -> str:
    return " ".join(str(v) for v in values) if values else "-"


def _signed(values: Sequence[int]) -> str:
    return " ".join(f"{v:+d}" for v in values)


def _move_token(move: Move) -> str:
    s = move.seat
    if isinstance(move, Bid):
        return f"{s} bid {move.bid}" + (" sans_kitty" if move.sans_kitty else "")
    if isinstance(move, Pass):
        return f"{s} pass"
    if isinstance(move, LookAtHand):
        return f"{s} look_at_hand"
    if isinstance(move, ProposeRedeal):
        return f"{s} propose_redeal"
    if isinstance(move, AnswerRedeal):
        return f"{s} {'accept' if move.accept else 'refuse'}_redeal"
    if isinstance(move, CallCard):
        return f"{s} call {move.card}"
    if isinstance(move, GoAlone):
        return f"{s} go_alone"
    if isinstance(move, ChoosePartners):
        return f"{s} choose {_ints(move.partners)}"
    if isinstance(move, Discard):
        return f"{s} discard {_cards(move.cards)}"
    if isinstance(move, NominateJoker):
        return f"{s} nominate {move.card} {move.suit or 'none'}"
    return f"{s} {move.card}" + (f":{move.nominate}" if move.nominate is not None else "")


def _contract_line(c: RecordContract) -> str:
    parts = [f"{c.bid} by {c.contractor}"]
    if c.sans_kitty:
        parts.append("sans kitty")
    if c.sitting_out:
        parts.append(f"sitting out {_ints(c.sitting_out)}")
    if c.called_card is not None:
        parts.append(f"called {c.called_card}")
    if c.chosen_partners:
        parts.append(f"partners {_ints(c.chosen_partners)}")
    if c.alone:
        parts.append("alone")
    return ", ".join(parts)


def _score_line(sc: HandScore) -> str:
    made = {True: "made", False: "failed", None: "no contract"}[sc.made]
    return (f"{made}; contracting {_ints(sc.contracting_seats)}; tricks won {_ints(sc.tricks_won)}; "
            f"changes {_signed(sc.changes)}; scores {_ints(sc.scores)}")


def record_to_text(record: GameRecord) -> str:
    """The plain-text form (docs/RECORDS.md): a header, then one block per hand. Exact inverse of
    :func:`record_from_text`. Raises :class:`RecordTextError` if the moves do not split into the hands and
    tricks the record lists (such a record fails verification anyway)."""
    out = [f"Five Hundred record {record.format}",
           f"Rules version: {record.rules_version}",
           f"Players: {record.players}",
           f"Options: {_JSON.encode(record.options).decode()}",
           f"Seed: {'none' if record.seed is None else record.seed}"]
    out += [f"Deck order {i}: {_cards(d)}" for i, d in enumerate(record.deck_orders)]
    out += [f"First dealer: {record.first_dealer}",
            f"Status: {record.status}",
            f"Scores: {_ints(record.scores)}"]
    r = record.result
    out.append("Result: none" if r is None else
               f"Result: winners {_ints(r.winners)}; losers {_ints(r.losers)}; by {r.reason}")
    pos = 0
    if sum(h.move_count for h in record.hands) != len(record.moves) or any(h.move_count < 0
                                                                           for h in record.hands):
        raise RecordTextError("the hands' move counts do not add up to the moves")
    for h in record.hands:
        out += _hand_lines(h, record.moves[pos:pos + h.move_count])
        pos += h.move_count
    return "\n".join(out) + "\n"


def _hand_lines(h: HandRecord, moves: tuple[Move, ...]) -> list[str]:
    """One hand's block of the plain-text form: the deal, the setup lines, the tricks and the outcome."""
    out = ["", f"Hand {h.hand_number}, dealer {h.dealer}"]
    out += [f"Dealt {s}: {_cards(cards)}" for s, cards in enumerate(h.dealt)]
    if h.dead_hand:
        out.append(f"Dead hand: {_cards(h.dead_hand)}")
    out.append(f"Kitty: {_cards(h.kitty)}")
    setup = [m for m in moves if not isinstance(m, Play)]
    if moves[:len(setup)] != tuple(setup):
        raise RecordTextError(f"hand {h.hand_number}: a play comes before a move of the setup")
    line_kind, tokens = "", list[str]()
    contract_written = False
    for m in setup:
        kind = _SETUP_LINES[type(m)]
        if kind != line_kind and tokens:
            out.append(f"{line_kind}: {', '.join(tokens)}")
            tokens = []
            if line_kind == "Auction" and not contract_written:
                out.append(f"Contract: {'none' if h.contract is None else _contract_line(h.contract)}")
                contract_written = True
        line_kind = kind
        tokens.append(_move_token(m))
    if tokens:
        out.append(f"{line_kind}: {', '.join(tokens)}")
    if not contract_written:
        out.append(f"Contract: {'none' if h.contract is None else _contract_line(h.contract)}")
    out += _trick_lines(h, [m for m in moves if isinstance(m, Play)])
    if h.thrown_in is not None or h.outcome == "thrown_in":
        out.append(f"Thrown in: {h.thrown_in or 'none'}")
    if h.score is not None:
        out.append(f"Score: {_score_line(h.score)}")
    out.append(f"Outcome: {h.outcome}")
    return out


def _trick_lines(h: HandRecord, plays: list[Play]) -> list[str]:
    """The hand's ``Trick`` lines, checking that the plays split into the tricks the record lists."""
    out: list[str] = []
    i = 0
    for n, t in enumerate(h.tricks, 1):
        chunk = plays[i:i + len(t.cards)]
        i += len(t.cards)
        if [m.card for m in chunk] != list(t.cards) or not chunk or chunk[0].seat != t.leader or \
                chunk[0].nominate != t.nominate or any(m.nominate is not None for m in chunk[1:]):
            raise RecordTextError(f"hand {h.hand_number}: trick {n} does not match the plays")
        winner = "in progress" if t.winner is None else f"won by {t.winner}"
        out.append(f"Trick {n}: {', '.join(_move_token(m) for m in chunk)}; {winner}")
    if i != len(plays):
        raise RecordTextError(f"hand {h.hand_number}: plays that belong to no trick")
    return out


class _Lines:
    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        if self.lines and self.lines[-1] == "":
            self.lines.pop()
        self.i = 0

    def peek(self) -> str | None:
        return self.lines[self.i] if self.i < len(self.lines) else None

    def take(self, label: str) -> str:
        line = self.peek()
        prefix = label + ": "
        if line is None or not line.startswith(prefix):
            raise self.error(f"expected {label!r}")
        self.i += 1
        return line[len(prefix):]

    def error(self, what: str) -> RecordTextError:
        shown = self.peek()
        return RecordTextError(f"line {self.i + 1}: {what}" + (f", found {shown[:60]!r}" if shown is not None
                                                               else ", found the end"))


def _int(text: str, lines: _Lines) -> int:
    if not (text.isdigit() or (text[:1] in "+-" and text[1:].isdigit())) or len(text) > 24:
        raise lines.error(f"{text[:30]!r} is not a number")
    return int(text)


def _int_list(text: str, lines: _Lines) -> tuple[int, ...]:
    return () if text == "-" else tuple(_int(x, lines) for x in text.split(" "))


def _card_list(text: str) -> tuple[str, ...]:
    return () if text == "-" else tuple(text.split(" "))


def _parse_play(token: str, lines: _Lines) -> Play:
    seat_text, _, rest = token.partition(" ")
    card, _, nominate = rest.partition(":")
    if not card or " " in rest:
        raise lines.error(f"{token[:40]!r} is not a play")
    return Play(seat=_int(seat_text, lines), card=card, nominate=nominate or None)


def _parse_move(token: str, lines: _Lines) -> Move:
    seat_text, _, rest = token.partition(" ")
    seat = _int(seat_text, lines)
    word, _, arg = rest.partition(" ")
    if word == "bid":
        bid, _, flag = arg.partition(" ")
        if flag not in ("", "sans_kitty"):
            raise lines.error(f"{token[:40]!r} is not a bid")
        return Bid(seat=seat, bid=bid, sans_kitty=flag == "sans_kitty")
    simple: dict[str, Move] = {"pass": Pass(seat=seat), "look_at_hand": LookAtHand(seat=seat),
                               "propose_redeal": ProposeRedeal(seat=seat), "go_alone": GoAlone(seat=seat),
                               "accept_redeal": AnswerRedeal(seat=seat, accept=True),
                               "refuse_redeal": AnswerRedeal(seat=seat, accept=False)}
    if word in simple and not arg:
        return simple[word]
    if word == "call" and arg and " " not in arg:
        return CallCard(seat=seat, card=arg)
    if word == "choose":
        return ChoosePartners(seat=seat, partners=_int_list(arg, lines))
    if word == "discard":
        return Discard(seat=seat, cards=_card_list(arg))
    if word == "nominate":
        card, _, suit = arg.partition(" ")
        if not suit or " " in suit:
            raise lines.error(f"{token[:40]!r} is not a nomination")
        return NominateJoker(seat=seat, card=card, suit=None if suit == "none" else suit)
    raise lines.error(f"{token[:40]!r} is not a move")


def _parse_contract(text: str, lines: _Lines) -> RecordContract | None:
    if text == "none":
        return None
    head, *parts = text.split(", ")
    bid, by, contractor = (head.split(" ") + ["", "", ""])[:3]
    if by != "by":
        raise lines.error("a contract reads '<bid> by <seat>'")
    fields: dict[str, Any] = {"sans_kitty": False, "sitting_out": (), "called_card": None, "chosen_partners": (),
                              "alone": False}
    for part in parts:
        if part == "sans kitty":
            fields["sans_kitty"] = True
        elif part == "alone":
            fields["alone"] = True
        elif part.startswith("sitting out "):
            fields["sitting_out"] = _int_list(part[len("sitting out "):], lines)
        elif part.startswith("called "):
            fields["called_card"] = part[len("called "):]
        elif part.startswith("partners "):
            fields["chosen_partners"] = _int_list(part[len("partners "):], lines)
        else:
            raise lines.error(f"{part[:30]!r} is not part of a contract")
    return RecordContract(bid=bid, contractor=_int(contractor, lines), **fields)


def _parse_score(text: str, lines: _Lines) -> HandScore:
    parts = text.split("; ")
    labels = ("contracting ", "tricks won ", "changes ", "scores ")
    made_words = {"made": True, "failed": False, "no contract": None}
    if len(parts) != 5 or parts[0] not in made_words or any(
            not p.startswith(label) for p, label in zip(parts[1:], labels, strict=True)):
        raise lines.error("a score reads 'made|failed|no contract; contracting …; tricks won …; changes …; "
                          "scores …'")
    values = [p[len(label):] for p, label in zip(parts[1:], labels, strict=True)]
    return HandScore(made=made_words[parts[0]], contracting_seats=_int_list(values[0], lines),
                     tricks_won=_int_list(values[1], lines), changes=_int_list(values[2], lines),
                     scores=_int_list(values[3], lines))


T = typing.TypeVar("T")


def _decode(lines: _Lines, tp: type[T], value: Any, label: str) -> T:
    try:
        return msgspec.convert(value, tp)
    except msgspec.ValidationError as exc:
        raise lines.error(f"{label}: {exc}") from None


def record_from_text(text: str) -> GameRecord:
    """Parse the plain-text form back into the record (raises :class:`RecordTextError` naming the line)."""
    lines = _Lines(text)
    first = lines.peek()
    prefix = "Five Hundred record "
    if first is None or not first.startswith(prefix):
        raise lines.error(f"a record starts with {prefix!r}")
    lines.i += 1
    fmt = first[len(prefix):]
    rules_version = lines.take("Rules version")
    players = _int(lines.take("Players"), lines)
    try:
        options = _OPTIONS_DECODER.decode(lines.take("Options"))
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        lines.i -= 1
        raise lines.error(f"options: {exc}") from None
    seed_text = lines.take("Seed")
    seed = None if seed_text == "none" else _int(seed_text, lines)
    decks: list[tuple[str, ...]] = []
    while (line := lines.peek()) is not None and line.startswith("Deck order "):
        decks.append(_card_list(lines.take(f"Deck order {len(decks)}")))
    first_dealer = _int(lines.take("First dealer"), lines)
    status = lines.take("Status")
    scores = _int_list(lines.take("Scores"), lines)
    result_text = lines.take("Result")
    result: RecordResult | None = None
    if result_text != "none":
        parts = result_text.split("; ")
        if len(parts) != 3 or not parts[0].startswith("winners ") or not parts[1].startswith("losers ") or \
                not parts[2].startswith("by "):
            raise lines.error("a result reads 'winners …; losers …; by <reason>' or 'none'")
        result = _decode(lines, RecordResult, {"winners": _int_list(parts[0][8:], lines),
                                               "losers": _int_list(parts[1][7:], lines),
                                               "reason": parts[2][3:]}, "result")
    moves: list[Move] = []
    hands: list[HandRecord] = []
    while lines.peek() is not None:
        if lines.peek() != "":
            raise lines.error("expected an empty line before a hand")
        lines.i += 1
        hands.append(_parse_hand(lines, moves))
    return _decode(lines, GameRecord, {
        "format": fmt, "rules_version": rules_version, "players": players, "options": options, "seed": seed,
        "deck_orders": decks, "first_dealer": first_dealer, "moves": moves, "hands": hands, "status": status,
        "scores": scores, "result": result}, "record")


def _parse_hand(lines: _Lines, moves: list[Move]) -> HandRecord:
    header = lines.peek() or ""
    parts = header.split(", ")
    if len(parts) != 2 or not parts[0].startswith("Hand ") or not parts[1].startswith("dealer "):
        raise lines.error("expected 'Hand <number>, dealer <seat>'")
    lines.i += 1
    hand_number = _int(parts[0][5:], lines)
    dealer = _int(parts[1][7:], lines)
    dealt: list[tuple[str, ...]] = []
    while (line := lines.peek()) is not None and line.startswith("Dealt "):
        dealt.append(_card_list(lines.take(f"Dealt {len(dealt)}")))
    dead: tuple[str, ...] = ()
    if (lines.peek() or "").startswith("Dead hand: "):
        dead = _card_list(lines.take("Dead hand"))
    kitty = _card_list(lines.take("Kitty"))
    count = 0
    contract: RecordContract | None = None
    tricks: list[RecordTrick] = []
    thrown_in: str | None = None
    score: HandScore | None = None
    while (line := lines.peek()) is not None and line != "":
        label, sep, body = line.partition(": ")
        if not sep:
            raise lines.error("expected '<label>: …'")
        if label in ("Auction", "Partner", "Exchange", "Nominate"):
            for token in body.split(", "):
                moves.append(_parse_move(token, lines))
                count += 1
        elif label == "Contract":
            contract = _parse_contract(body, lines)
        elif label == f"Trick {len(tricks) + 1}":
            plays_text, sep, won = body.rpartition("; ")
            if not sep or not (won == "in progress" or won.startswith("won by ")):
                raise lines.error("a trick ends '; won by <seat>' or '; in progress'")
            plays = [_parse_play(t, lines) for t in plays_text.split(", ")]
            moves.extend(plays)
            count += len(plays)
            tricks.append(RecordTrick(leader=plays[0].seat, cards=tuple(p.card for p in plays),
                                      nominate=plays[0].nominate,
                                      winner=None if won == "in progress" else _int(won[7:], lines)))
        elif label == "Thrown in":
            thrown_in = None if body == "none" else body
        elif label == "Score":
            score = _parse_score(body, lines)
        elif label == "Outcome":
            hand = _decode(lines, HandRecord, {
                "hand_number": hand_number, "dealer": dealer, "move_count": count, "dealt": dealt,
                "dead_hand": dead, "kitty": kitty, "contract": contract, "tricks": tricks, "outcome": body,
                "thrown_in": thrown_in, "score": score}, "hand")
            lines.i += 1
            return hand
        else:
            raise lines.error(f"{label[:30]!r} is not a line of a hand")
        lines.i += 1
    raise lines.error("a hand ends with 'Outcome: …'")


__all__ = [
    "MAX_RECORD_HANDS", "MAX_RECORD_MOVES", "RECORD_FORMAT", "GameRecord", "HandRecord", "HandScore",
    "RecordContract", "RecordOptions", "RecordRefused", "RecordResult", "RecordTextError", "RecordTrick",
    "Verified", "build_record", "engine_options", "record_from_text", "record_options", "record_to_text",
    "replay_game", "replay_states", "verify_record",
]
