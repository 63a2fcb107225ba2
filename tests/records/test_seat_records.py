"""A seat's own record in the engine (engine/seat_records.py): every seat's record of random games, under several
rule sets and every player count, verifies and comes back unchanged; tampered ones are refused."""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from engine import (
    Bid,
    Discard,
    Event,
    GameState,
    Options,
    Play,
    apply_move,
    legal_moves,
    new_game,
    pack_for,
    redact_events,
    resolve_options,
)
from engine.records import RecordRefused
from engine.seat_records import SEAT_CHECKS, SeatRecord, move_of, seat_record, verify_seat_record
from engine.setup import decks_so_far, seed_deck

VARIANTS: list[dict[str, Any]] = [
    {},
    {"no_ace_no_face": True, "show_kitty": True},
    {"five_player_partner_method": "choose_player", "open_misere_expose": "before_opening_lead"},
    {"misere_requires_seven": False, "pass_is_final": "never", "joker_lead_restriction": "any_suit"},
]


def _game(opts: Options, seed: int, length: int,
          seen: Callable[[GameState, GameState], None] | None = None) -> tuple[list[Event], list[list[Event]]]:
    """A random game's events, bidding kept low and misère bid often (so that every kind of hand is played);
    ``seen(before, after)`` is called with the states around each move."""
    rng = random.Random(seed)
    state, start = new_game(opts, seed=seed, first_dealer=0)
    steps: list[list[Event]] = []
    while state.to_act is not None and len(steps) < length:
        legal = legal_moves(state)
        if state.phase == "auction":
            bids = [m for m in legal if isinstance(m, Bid)]
            bids = bids[:3] + [b for b in bids if "MISERE" in b.bid]
            others = [m for m in legal if not isinstance(m, Bid)]
            move = rng.choice(bids) if bids and rng.random() < 0.4 else rng.choice(others or legal)
        else:
            move = legal[rng.randrange(len(legal))]
        before = state
        state, events = apply_move(state, move)
        steps.append(events)
        if seen is not None:
            seen(before, state)
    return start, steps


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("variant", range(len(VARIANTS)))
def test_every_seat_record_verifies(players: int, variant: int) -> None:
    opts = resolve_options(players, None, VARIANTS[variant])
    for game in range(3):
        start, steps = _game(opts, seed=100 * variant + 10 * players + game, length=60 + 70 * game)
        for seat in range(players):
            record = seat_record(opts, start, steps, seat)
            verified = verify_seat_record(record)
            assert verified.record == record and verified.checked == SEAT_CHECKS


def _tampered(record: SeatRecord, change: Any) -> SeatRecord:
    raw = msgspec.json.decode(msgspec.json.encode(record))
    change(raw)
    return msgspec.convert(raw, SeatRecord)


def test_tampered_seat_records_are_refused() -> None:
    opts = Options()
    start, steps = _game(opts, seed=3, length=120)
    record = seat_record(opts, start, steps, 2)
    scored = next(i for i, h in enumerate(record.hands) if h.score is not None)
    cases: list[tuple[Any, str, str | None]] = [
        (lambda r: r["hands"][scored]["tricks"][0].update(winner=(r["hands"][scored]["tricks"][0]["winner"] + 1) % 4),
         "RECORD_MISMATCH", f"hands[{scored}].tricks[0].winner"),
        (lambda r: r["scores"].__setitem__(0, r["scores"][0] + 10), "RECORD_MISMATCH", "scores[0]"),
        (lambda r: r.update(seat=7), "RECORD_MISMATCH", "seat"),
        (lambda r: r.update(first_dealer=None), "RECORD_MISMATCH", "first_dealer"),
        (lambda r: r["hands"][0].update(dealer=(r["hands"][0]["dealer"] + 1) % 4), "RECORD_MISMATCH",
         "hands[0].dealer"),
    ]
    for change, code, field in cases:
        with pytest.raises(RecordRefused) as refused:
            verify_seat_record(_tampered(record, change))
        assert (refused.value.code, refused.value.field, refused.value.state) == (code, field, None)


def test_a_seat_playing_a_card_it_never_held_is_refused() -> None:
    """The seat's own cards are checked: its play of a card it was not dealt (and no one played) is refused."""
    opts = Options()
    start, steps = _game(opts, seed=4, length=40)
    record = seat_record(opts, start, steps, 1)
    hand = record.hands[0]
    assert hand.dealt is not None
    played = {m.card for m in record.moves if isinstance(m, Play)}
    foreign = next(c for c in pack_for(opts) if c not in hand.dealt and c not in played and c not in (hand.kitty or ()))
    at = next(i for i, m in enumerate(record.moves) if isinstance(m, Play) and m.seat == 1)
    raw = msgspec.json.decode(msgspec.json.encode(record))
    raw["moves"][at]["card"] = foreign
    with pytest.raises(RecordRefused) as refused:
        verify_seat_record(msgspec.convert(raw, SeatRecord))
    assert refused.value.code in ("ILLEGAL_MOVE", "RECORD_MISMATCH") and refused.value.state is None


GHOSTS = {"two_player_method": "ghost_partners"}


@pytest.mark.parametrize("first_seed", [0, 20])
def test_every_seat_record_of_the_ghost_partners_game_verifies(first_seed: int) -> None:
    """Both humans' records of random ghost-partners games verify, ghosts' plays out of suit included (the piles
    are laid so that the ghost had none of the suit led face up), and come back unchanged."""
    opts = resolve_options(2, None, GHOSTS)
    out_of_suit: list[int] = []

    def count(before: GameState, after: GameState) -> None:  # a ghost shown void in the suit led: it did not follow
        voids = [(st.shown_void or ("",) * 4)[g] for st in (before, after) for g in (2, 3)]
        out_of_suit.extend(g for i, g in enumerate((2, 3)) if len(voids[2 + i]) > len(voids[i]))

    for seed in range(first_seed, first_seed + 20):
        start, steps = _game(opts, seed=seed, length=40 + 8 * seed, seen=count)
        for seat in (0, 1):
            record = seat_record(opts, start, steps, seat)
            verified = verify_seat_record(record)
            assert verified.record == record and verified.checked == SEAT_CHECKS
    assert len(out_of_suit) >= 5


def test_a_ghost_playing_a_card_the_seat_held_is_refused() -> None:
    opts = resolve_options(2, None, GHOSTS)
    start, steps = _game(opts, seed=9, length=60)
    record = seat_record(opts, start, steps, 0)
    hand = record.hands[0]
    assert hand.dealt is not None
    played = {m.card for m in record.moves if isinstance(m, Play)}
    mine = next(c for c in hand.dealt if c not in played)
    at = next(i for i, m in enumerate(record.moves) if isinstance(m, Play) and m.seat in (2, 3))
    raw = msgspec.json.decode(msgspec.json.encode(record))
    raw["moves"][at]["card"] = mine
    with pytest.raises(RecordRefused) as refused:
        verify_seat_record(msgspec.convert(raw, SeatRecord))
    assert refused.value.code in ("ILLEGAL_MOVE", "RECORD_MISMATCH") and refused.value.state is None


def test_every_move_is_named_by_its_first_event() -> None:
    """move_of gives back each move from the first event it makes (a hidden discard: None), in every kind of
    game the random games reach."""
    kinds: set[str] = set()
    for players in (2, 3, 4, 5, 6):
        opts = resolve_options(players, None, VARIANTS[players % len(VARIANTS)])
        rng = random.Random(players)
        state, _ = new_game(opts, seed=players, first_dealer=0)
        for _ in range(300):
            if state.to_act is None:
                break
            legal = legal_moves(state)
            move = legal[rng.randrange(len(legal))]
            state, events = apply_move(state, move)
            assert move_of(events[0]) == move
            kinds.add(type(move).__name__)
            hidden = redact_events(events, (move.seat + 1) % players)[0]
            assert move_of(hidden) == (None if isinstance(move, Discard) else move)
    assert {"Bid", "Pass", "Discard", "Play"} <= kinds


def test_decks_so_far_are_the_decks_each_hand_was_dealt_from() -> None:
    opts = resolve_options(4, None, {})
    rng = random.Random(2)
    explicit = [tuple(rng.sample(list(pack_for(opts)), len(pack_for(opts))))]
    state, _ = new_game(opts, seed=11, deck_orders=explicit, first_dealer=0)
    while state.hand_number < 3:
        state, _ = apply_move(state, legal_moves(state)[0])
    decks = decks_so_far(state)
    assert len(decks) == 4 and decks[0] == explicit[0]
    assert decks[1:] == tuple(seed_deck(opts, 11, h) for h in (1, 2, 3))
    # Replayed from those decks alone, the game is the same.
    replayed, _ = new_game(opts, seed=0, deck_orders=decks, first_dealer=0)
    assert replayed.hands == new_game(opts, seed=11, deck_orders=explicit, first_dealer=0)[0].hands


def test_a_mangled_seat_record_is_refused_never_crashes() -> None:
    """Random values put in random places of seat records: each either decodes and is answered (verified or
    refused with :class:`RecordRefused`), or does not decode; nothing else is raised."""
    rng = random.Random(8)
    answered = 0
    for game in range(120):
        players = rng.choice([2, 3, 4, 5, 6])
        opts = resolve_options(players, None, {})
        start, steps = _game(opts, seed=game, length=rng.randrange(5, 120))
        raw = msgspec.json.decode(msgspec.json.encode(seat_record(opts, start, steps, rng.randrange(players))))
        holder, key = _somewhere(raw, rng)
        value = holder[key]
        holder[key] = rng.choice([None, -1, 99, 0, "AS", "JK", "ZZ", [], ["AS", "AS"], True,
                                  *([value + 1, -value] if isinstance(value, int) and not isinstance(value, bool)
                                    else []), *([value[:-1], value + value[:1]] if isinstance(value, list) else [])])
        try:
            record = msgspec.convert(raw, SeatRecord)
        except msgspec.ValidationError:
            continue
        with contextlib.suppress(RecordRefused):
            verify_seat_record(record)
        answered += 1
    assert answered >= 25


def _somewhere(node: Any, rng: random.Random) -> tuple[Any, Any]:
    """A random (container, key) inside a decoded JSON document, at most four levels down."""
    for _ in range(4):
        key = rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node))
        inner = node[key]
        if not (isinstance(inner, dict | list) and inner and rng.random() < 0.7):
            return node, key
        node = inner
    return node, (rng.choice(list(node)) if isinstance(node, dict) else rng.randrange(len(node)))
