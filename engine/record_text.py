"""A game record's plain-text form: :func:`record_to_text` and :func:`record_from_text`, exact inverses.

docs/RECORDS.md has the grammar: a header, then one block per hand (the deal, the auction and the other setup
moves, the contract, the tricks, the outcome and the score).

>>> from engine import Options, Pass
>>> from engine.replay import build_record
>>> rec = build_record(Options(), seed=7, first_dealer=3, moves=[Pass(seat=0)])
>>> record_from_text(record_to_text(rec)) == rec
True
"""

from __future__ import annotations

import typing
from collections.abc import Sequence
from typing import Any

import msgspec

from engine.model import (
    AnswerRedeal,
    Bid,
    CallCard,
    ChoosePartners,
    Discard,
    GoAlone,
    LookAtHand,
    Move,
    NominateJoker,
    Pass,
    Play,
    ProposeRedeal,
)
from engine.records import (
    GameRecord,
    HandRecord,
    HandScore,
    RecordContract,
    RecordOptions,
    RecordResult,
    RecordTrick,
)

_JSON = msgspec.json.Encoder()


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
            f"deltas {_signed(sc.deltas)}; scores {_ints(sc.scores)}")


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
    labels = ("contracting ", "tricks won ", "deltas ", "scores ")
    made_words = {"made": True, "failed": False, "no contract": None}
    if len(parts) != 5 or parts[0] not in made_words or any(
            not p.startswith(label) for p, label in zip(parts[1:], labels, strict=True)):
        raise lines.error("a score reads 'made|failed|no contract; contracting …; tricks won …; deltas …; "
                          "scores …'")
    values = [p[len(label):] for p, label in zip(parts[1:], labels, strict=True)]
    return HandScore(made=made_words[parts[0]], contracting_seats=_int_list(values[0], lines),
                     tricks_won=_int_list(values[1], lines), deltas=_int_list(values[2], lines),
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


__all__ = ["RecordTextError", "record_from_text", "record_to_text"]
