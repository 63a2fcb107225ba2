"""``POST /v1/records/verify``: replay a whole game in one request (engine/replay.py, docs/RECORDS.md).

This is the call a host makes to validate a game played offline or sent by an untrusted client: the body is a
record (JSON, or its plain-text form), or just the inputs of one (options, deal source, moves). The answer is
the final state as a sealed snapshot (so play can continue), and the record as the moves derive it (its
per-hand summary and result); or, refused, the first malformed (400) or illegal (422) move with its index, the
engine's reason and the state before it as a snapshot, or the first derived field that differs (422).

Bounds: the body may be up to :data:`MAX_RECORD_BODY_BYTES` (a full game is a few tens of kB; larger is 413
before anything is decoded), and a record holds at most ``MAX_RECORD_MOVES`` moves (the schema's bound, 400
beyond it), so one request replays at most that many moves. Replay runs in a worker thread, so a long record
does not hold the event loop while other requests wait.

Moves are screened exactly as ``/v1/games/apply`` screens them (:func:`service.referee.moves.syntax_rejection` before
the engine), so a move is ``MALFORMED_MOVE`` or ``ILLEGAL_MOVE`` here exactly when it would be there. A record
without a seed (every deal in its deck orders) is replayed with a secret seed drawn for the deals after them,
as a new game without a seed would be. A move that is not a move object at all (an unknown ``type``, a field of
the wrong type) is found while the body is decoded; :class:`RecordRequestDTO` then decodes the moves before it,
so that it too is answered as ``MALFORMED_MOVE`` at its index with the state before it, as ``/v1/games/apply``
would answer it (no ``reason``: the move has no card, bid, suit or seat to name).
"""

from __future__ import annotations

import re
import secrets
from typing import Annotated, Any, Literal

import msgspec
from litestar import Controller, post
from litestar.di import NamedDependency
from litestar.params import Body
from msgspec import Meta

from engine import Bid, Move, OptionsError, Pass, legal_moves, new_game, resolve_options
from engine.model import Phase
from engine.record_text import RecordTextError, record_from_text, record_to_text
from engine.records import MAX_DECK_ORDERS, MAX_RECORD_MOVES, GameRecord, RecordRefused, Verified, engine_options
from engine.replay import build_record, replay_game, verify_record
from engine.seat_records import SeatCheck, SeatRecord, verify_seat_record
from service.referee.errors import options_problem, record_problem, refusal_listing
from service.referee.moves import syntax_rejection
from service.referee.schemas import (
    SEED_BITS,
    SEED_MAX,
    OptionOverrides,
    PlayerCount,
    PresetName,
    Seat,
    Snapshot,
    overrides_dict,
)
from service.referee.snapshots import Sealer
from service.web.exception_handlers import validation_errors
from service.web.openapi import ExactExample, problem_responses, response_spec
from service.web.problems import Problem
from service.web.struct_dto import StructDTO, struct_decoder, validation_exception

#: The largest body ``/v1/records/verify`` reads (the app's MAX_BODY_BYTES is for single moves).
MAX_RECORD_BODY_BYTES = 1 << 20
#: The most characters of a record's plain-text form.
MAX_RECORD_TEXT = MAX_RECORD_BODY_BYTES

Moves = Annotated[list[Move], Meta(max_length=MAX_RECORD_MOVES, description=(
    f"The moves in order, each exactly as sent to /v1/games/apply (at most {MAX_RECORD_MOVES})."))]


class VerifyRecordRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Exactly one of: ``record`` (a JSON record), ``seat_record`` (a seat's own record, as
    ``GET /v1/sessions/{id}/record`` answers a seat token), ``text`` (a record's plain-text form), or ``moves``
    with the inputs of a game as for ``POST /v1/games`` (``players``, ``preset``, ``options``, ``seed``,
    ``deck_orders``, ``first_dealer``)."""

    record: GameRecord | None = None
    seat_record: SeatRecord | None = None
    text: Annotated[str, Meta(max_length=MAX_RECORD_TEXT, description=(
        "A record in its plain-text form (docs/RECORDS.md)."))] | None = None
    players: PlayerCount | None = None
    preset: PresetName | None = None
    options: OptionOverrides | None = None
    seed: Annotated[int, Meta(ge=0, le=SEED_MAX, extra_json_schema={"extra": {"minimum": 0}}, description=(
        "Derives every deal not given in deck_orders. Omitted: every deal of the moves must be in deck_orders."
    ))] | None = None
    deck_orders: Annotated[list[list[str]], Meta(max_length=MAX_DECK_ORDERS)] | None = None
    first_dealer: Seat | None = None
    moves: Moves | None = None
    #: Also answer the record's plain-text form.
    as_text: bool = False


class RecordVerified(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="record"):
    """The record replays and agrees with itself: the final state, and the record as its moves derive it
    (``type`` tells it from a seat's record checked, :class:`SeatRecordVerified`)."""

    valid: Literal[True]
    snapshot: Snapshot
    phase: Phase
    to_act: int | None
    record: GameRecord
    #: The record's plain-text form, when asked for with ``as_text``.
    text: str | None = None


class SeatRecordVerified(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", tag="seat_record"):
    """A seat's record that a game fits exactly, as far as that seat's knowledge goes (docs/RECORDS.md): what
    was checked, and the record as its moves derive it. Nothing the seat's record does not hold: no snapshot (the
    game found is one of many that fit), no other seat's cards."""

    valid: Literal[True]
    seat: int
    #: What was checked: ``options``, ``own_cards``, ``public_moves``, ``tricks``, ``scores``, ``result``,
    #: ``hidden_moves`` (docs/RECORDS.md says what each covers).
    checked: tuple[SeatCheck, ...]
    seat_record: SeatRecord




#: Setup problems of a record are the same 400s as creating a game.
_SETUP_CODES = ("INVALID_OPTIONS", "INVALID_SEED", "INVALID_DECK_ORDER", "INVALID_FIRST_DEALER")


def _example_record() -> GameRecord:
    opts = resolve_options(4, None, {})
    moves: list[Move] = [Bid(seat=0, bid="7H"), Pass(seat=1), Pass(seat=2), Pass(seat=3)]
    state, _ = new_game(opts, seed=42, first_dealer=3)
    return build_record(opts, seed=42, first_dealer=3, moves=moves)


_EXAMPLE = _example_record()
_EXAMPLE_JSON: Any = msgspec.to_builtins(_EXAMPLE)
# (No request example of a whole JSON record: the document writer drops the nulls a record holds. The text form
# is the same record, and the 200 example shows its JSON.)
REQUESTS = [
    ExactExample(summary="Moves only", description="A seeded four-player game's first auction.",
                 value={"players": 4, "seed": 42, "first_dealer": 3,
                        "moves": msgspec.to_builtins(list(_EXAMPLE.moves))}),
    ExactExample(summary="The text form", value={"text": record_to_text(_EXAMPLE)}),
]
def _ascii(text: str) -> str:
    """A detail that quotes the client's own tokens, in ASCII: a problem body is JSON without a charset, and some
    clients guess the encoding of non-ASCII text wrong."""
    return text.encode("ascii", "backslashreplace").decode("ascii")


def _refused(exc: RecordRefused, sealer: Sealer) -> Problem:
    """The problem answering a refused record (:func:`service.referee.errors.record_problem`), its details in
    ASCII, with the state before a refused move as a snapshot."""
    snapshot = None if exc.state is None else sealer.seal(exc.state, remember=True)
    return record_problem(exc, _ascii(exc.detail), snapshot)


def _verify_seat(data: VerifyRecordRequest, record: SeatRecord) -> SeatRecordVerified:
    """Check a seat's own record (raises :class:`RecordRefused`, without a state, or a 400 :class:`Problem`)."""
    if data.as_text:
        raise Problem("MALFORMED_REQUEST", "as_text is for a whole game's record: a seat's record has no text "
                      "form", message=("problem.MALFORMED_REQUEST.detail.verify_seat_text", {}))
    checked = verify_seat_record(record, screen=syntax_rejection)
    return SeatRecordVerified(valid=True, seat=checked.record.seat, checked=checked.checked,
                              seat_record=checked.record)


def _verify(data: VerifyRecordRequest) -> Verified:
    """Replay what the request holds (raises :class:`RecordRefused` or a 400 :class:`Problem`)."""
    given = [name for name, value in (("record", data.record), ("seat_record", data.seat_record),
                                      ("text", data.text), ("moves", data.moves)) if value is not None]
    if len(given) != 1:
        raise Problem("MALFORMED_REQUEST", "send exactly one of record, seat_record, text, or moves (with the "
                      "game's players, options and deal source)",
                      message=("problem.MALFORMED_REQUEST.detail.verify_one_of", {}))
    inputs = (data.players, data.preset, data.options, data.seed, data.deck_orders, data.first_dealer)
    if data.moves is None and any(x is not None for x in inputs):
        raise Problem("MALFORMED_REQUEST", "players, preset, options, seed, deck_orders and first_dealer "
                      "go with moves; a record holds its own",
                      message=("problem.MALFORMED_REQUEST.detail.verify_inputs", {}))
    replay_seed = secrets.randbits(SEED_BITS)  # the deals after a seedless record's deck orders stay secret
    record = data.record
    if data.text is not None:
        try:
            record = record_from_text(data.text)
        except RecordTextError as exc:
            error = _ascii(str(exc))
            raise Problem("MALFORMED_REQUEST", f"the text record does not parse: {error}",
                          message=("problem.MALFORMED_REQUEST.detail.text_record", {"error": error})) from None
    if record is not None:
        if record.seed is not None and not 0 <= record.seed <= SEED_MAX:  # read exactly by every client, or not at all
            raise Problem("INVALID_SEED", f"the record's seed must be an integer from 0 to {SEED_MAX}",
                          message=("problem.INVALID_SEED.detail", {}))
        return verify_record(record, screen=syntax_rejection, replay_seed=replay_seed)
    assert data.moves is not None
    if data.players is None:
        raise Problem("MALFORMED_REQUEST", "give players (2 to 6) with the moves",
                      message=("problem.MALFORMED_REQUEST.detail.verify_players", {}))
    try:
        opts = resolve_options(data.players, data.preset, overrides_dict(data.options))
    except OptionsError as exc:
        raise options_problem(_ascii(str(exc))) from None
    if data.seed is None and not data.deck_orders:
        raise Problem("INVALID_SEED", "give the seed the game was dealt from, or its deck orders",
                      message=("problem.INVALID_SEED.detail.verify", {}))
    return replay_game(opts, seed=data.seed, deck_orders=data.deck_orders or (), first_dealer=data.first_dealer,
                       moves=data.moves, screen=syntax_rejection, replay_seed=replay_seed)


#: Where msgspec reports a move that does not decode: ``$.moves[3].type`` or ``$.record.moves[3]``.
_MOVE_PATH = re.compile(r" - at `\$(?P<record>\.record)?\.moves\[(?P<index>\d+)\]")


class UndecodableMove(msgspec.Struct, frozen=True, kw_only=True):
    """A request whose move ``index`` does not decode: the request with the moves before it, and the error."""

    request: VerifyRecordRequest
    index: int
    error: msgspec.ValidationError


class RecordRequestDTO(StructDTO[VerifyRecordRequest]):
    """Decodes a verify request strictly; a move that is not a move object becomes an :class:`UndecodableMove`
    (the moves before it still strictly decoded), so the handler can answer it at its index."""

    def decode_bytes(self, value: bytes) -> Any:
        try:
            return struct_decoder(VerifyRecordRequest).decode(value)
        except msgspec.ValidationError as exc:
            found = _MOVE_PATH.search(str(exc))
            if found is not None:
                index = int(found["index"])
                partial = _before_move(value, index, in_record=found["record"] is not None)
                if partial is not None:
                    return UndecodableMove(request=partial, index=index, error=exc)
            raise validation_exception(exc) from None
        except msgspec.DecodeError:
            return super().decode_bytes(value)


def _before_move(body: bytes, index: int, *, in_record: bool) -> VerifyRecordRequest | None:
    """The request with only the moves before ``index``, or ``None`` if anything else in it is wrong too."""
    try:
        raw = msgspec.json.decode(body)
        holder = raw["record"] if in_record else raw
        holder["moves"] = holder["moves"][:index]
        if in_record:
            holder["hands"], holder["scores"], holder["result"] = [], [], None  # re-derived by the replay
            holder["status"] = "in_progress"
        return msgspec.convert(raw, VerifyRecordRequest)
    except (msgspec.DecodeError, msgspec.ValidationError, KeyError, TypeError, IndexError):
        return None


def _refuse_undecodable(bad: UndecodableMove, sealer: Sealer) -> Problem:
    """``MALFORMED_MOVE`` at the move that did not decode, with the state before it; or the first problem of
    the moves before it, if one of them is refused."""
    rec = bad.request.record
    if rec is not None:  # its derived fields are cut with its moves: replay the moves alone
        try:
            opts = engine_options(rec.options)
        except OptionsError as exc:  # as verify_record answers the record's options
            raise options_problem(_ascii(str(exc))) from None
        verified = replay_game(opts, seed=rec.seed, deck_orders=rec.deck_orders,
                               first_dealer=rec.first_dealer, moves=rec.moves, screen=syntax_rejection,
                               replay_seed=secrets.randbits(SEED_BITS))
    else:
        verified = _verify(bad.request)
    state = verified.state
    listed, choice = refusal_listing(legal_moves(state))
    return Problem("MALFORMED_MOVE", _ascii(str(bad.error)), move_index=bad.index,
                   snapshot=sealer.seal(state, remember=True), legal_moves=listed, discard_choice=choice,
                   errors=validation_errors(validation_exception(bad.error)))


class RecordsController(Controller):
    path = "/v1/records"
    tags = ["records"]

    @post("/verify", operation_id="verifyRecord", dto=RecordRequestDTO, return_dto=None,
          summary="Verify a whole game", status_code=200, sync_to_thread=True,
          request_max_body_size=MAX_RECORD_BODY_BYTES,
          description="Replay a game record (JSON or text, docs/RECORDS.md) or a game's moves: the final state "
          "as a snapshot (play can continue from it) and the record as the moves derive it; or, at the first "
          "malformed (400 MALFORMED_MOVE) or illegal (422 ILLEGAL_MOVE) move, its `move_index`, `reason`, the "
          "state before it as `snapshot` and its legal moves; or 422 RECORD_MISMATCH naming the first derived "
          "`field` that differs. A seat's own record (`seat_record`, as `GET /v1/sessions/{id}/record` answers a "
          "seat token) is checked as far as that seat's knowledge goes: some deal of the pack and some hidden "
          "discards make a legal game whose record for that seat is exactly the one sent (its own cards, every "
          "public move, the tricks, the scores; docs/RECORDS.md); the answer says what was checked and shows "
          "nothing the record does not hold (a refusal has no snapshot and no legal moves). Bodies up to 1 MiB; "
          "at most "
          f"{MAX_RECORD_MOVES} moves.",
          responses={200: response_spec(RecordVerified | SeatRecordVerified, "The record is valid (a seat's record: "
                                        "as far as that seat's knowledge goes).", ("Valid", {
              "type": "record", "valid": True, "snapshot": "v1.d0c5e3a1.…", "phase": "exchange", "to_act": 0,
              "record": _EXAMPLE_JSON})),
              **problem_responses("MALFORMED_REQUEST", *_SETUP_CODES, "MALFORMED_MOVE", "ILLEGAL_MOVE",
                                  "RECORD_MISMATCH", "BODY_TOO_LARGE", "UNSUPPORTED_MEDIA_TYPE")})
    def verify(self, data: Annotated[VerifyRecordRequest, Body(examples=REQUESTS)],
               sealer: NamedDependency[Sealer]) -> RecordVerified | SeatRecordVerified:
        try:
            if isinstance(data, UndecodableMove):  # RecordRequestDTO's answer for a move that does not decode
                raise _refuse_undecodable(data, sealer)
            if data.seat_record is not None and data.record is None and data.text is None and data.moves is None:
                return _verify_seat(data, data.seat_record)
            verified = _verify(data)
        except RecordRefused as exc:
            raise _refused(exc, sealer) from None
        state = verified.state
        return RecordVerified(valid=True, snapshot=sealer.seal(state, remember=True), phase=state.phase,
                              to_act=state.to_act, record=verified.record,
                              text=record_to_text(verified.record) if data.as_text else None)


__all__ = ["MAX_RECORD_BODY_BYTES", "RecordVerified", "RecordsController", "SeatRecordVerified", "VerifyRecordRequest"]
