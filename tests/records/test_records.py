"""Game records: JSON ↔ text ↔ JSON round trips, replay, and every kind of corruption refused where it is."""

from __future__ import annotations

import random

import msgspec
import pytest

from engine import Bid, Options, Pass, Play, apply_move, legal_moves, new_game, resolve_options
from engine.record_text import RecordTextError, record_from_text, record_to_text
from engine.records import MAX_RECORD_MOVES, RECORD_FORMAT, GameRecord, RecordRefused
from engine.replay import build_record, replay_states, verify_record
from tests.records.games import PlayedGame, play_game

replace = msgspec.structs.replace
ENCODER = msgspec.json.Encoder()
DECODER = msgspec.json.Decoder(GameRecord)
PLAYER_COUNTS = (2, 3, 4, 5, 6)


def _games(count: int, seed: int, **kwargs: object) -> list[PlayedGame]:
    rng = random.Random(seed)
    return [play_game(rng, PLAYER_COUNTS[i % 5], **kwargs) for i in range(count)]  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def games() -> list[PlayedGame]:
    """100 full games of every player count under random rule sets (about half the options changed)."""
    return _games(100, 2026, change_probability=0.5)


# --------------------------------------------------------------------------------------------- round trips


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_json_text_json_round_trip_over_random_games(players: int) -> None:
    """400 games per player count (2000 in all; one in five played to the end, the others cut off at a random
    move, in any phase): JSON → text → JSON and text → JSON → text are exact."""
    rng = random.Random(players)
    for _ in range(400):
        game = play_game(rng, players, change_probability=rng.choice((0.0, 0.3, 0.6)),
                         deck_orders=rng.choice((0, 0, 1, 3)),
                         cut_at=None if rng.random() < 0.2 else rng.randrange(120))
        wire = ENCODER.encode(game.record)
        record = DECODER.decode(wire)
        assert record == game.record
        text = record_to_text(record)
        back = record_from_text(text)
        assert back == record
        assert ENCODER.encode(back) == wire
        assert record_to_text(back) == text


def test_every_option_value_round_trips_and_verifies() -> None:
    """Each allowed value of every option, in a game of a player count it applies to, records and verifies."""
    from engine import option_catalogue

    rng = random.Random(5)
    for spec in option_catalogue():
        if spec["name"] == "players" or not spec.get("allowed"):
            continue
        for value in spec["allowed"]:
            for players in PLAYER_COUNTS:
                try:
                    opts = resolve_options(players, None, {spec["name"]: value})
                except ValueError:
                    continue
                state, _ = new_game(opts, seed=rng.randrange(2**32), first_dealer=0)
                moves = []
                for _ in range(120):
                    if state.to_act is None:
                        break
                    move = rng.choice(legal_moves(state))
                    moves.append(move)
                    state, _ = apply_move(state, move)
                record = build_record(opts, seed=state.seed, first_dealer=0, moves=moves)
                assert record_from_text(record_to_text(record)) == record
                assert verify_record(record).state == state


def test_seedless_records_hold_every_deal() -> None:
    rng = random.Random(11)
    beyond = 0
    for i in range(40):
        game = play_game(rng, PLAYER_COUNTS[i % 5], deck_orders=2, seedless=True)
        rec = game.record
        assert rec.seed is None and len(rec.hands) <= 2
        assert record_from_text(record_to_text(rec)) == rec
        # The deals after the deck orders come from the verifier's seed, which is not part of the record: the
        # record is the same whatever that seed, and a hand the last move dealt from it is left out.
        one, two = verify_record(rec, replay_seed=1), verify_record(rec, replay_seed=2)
        assert one.record == two.record == rec
        last = game.states[-1]
        if last.hand_number < 2:
            assert one.state == replace(last, seed=1)
        else:
            beyond += 1
            assert one.state.hand_number == two.state.hand_number == 2 and one.state.hands != two.state.hands
            assert len(rec.hands) == 2
            # A move in that hand is refused: the record would have to show cards no deck order deals.
            assert one.state.phase == "auction" and one.state.to_act is not None
            with pytest.raises(RecordRefused) as info:
                verify_record(replace(rec, moves=(*rec.moves, Pass(seat=one.state.to_act))))
            assert (info.value.code, info.value.index) == ("INVALID_DECK_ORDER", len(rec.moves))
    assert beyond > 5


def test_text_form_reads_as_documented() -> None:
    opts = resolve_options(4, None, {})
    state, _ = new_game(opts, seed=3, first_dealer=3)
    moves = [Bid(seat=0, bid="6S"), Pass(seat=1), Pass(seat=2), Pass(seat=3)]
    record = build_record(opts, seed=3, first_dealer=3, moves=moves)
    text = record_to_text(record)
    lines = text.splitlines()
    assert lines[0] == f"Five Hundred record {RECORD_FORMAT}"
    assert "Seed: 3" in lines and "First dealer: 3" in lines and "Status: in_progress" in lines
    assert "Hand 0, dealer 3" in lines
    assert "Auction: 0 bid 6S, 1 pass, 2 pass, 3 pass" in lines
    assert "Contract: 6S by 0" in lines
    assert "Outcome: in_progress" in lines
    assert [x for x in lines if x.startswith("Dealt ")] == [
        f"Dealt {s}: {' '.join(h)}" for s, h in enumerate(record.hands[0].dealt)]


def test_text_errors_name_the_line(games: list[PlayedGame]) -> None:
    text = record_to_text(games[3].record)
    lines = text.splitlines()
    trick = next(i for i, x in enumerate(lines) if x.startswith("Trick 1: "))
    broken = "\n".join(lines[:trick] + [lines[trick].replace("; won by", "; taken by")] + lines[trick + 1:])
    with pytest.raises(RecordTextError, match=f"line {trick + 1}:"):
        record_from_text(broken)
    with pytest.raises(RecordTextError, match="line 1:"):
        record_from_text("PGN\n")
    with pytest.raises(RecordTextError, match="line 4: options"):
        record_from_text(text.replace('"players":', '"playerz":', 1))


# ------------------------------------------------------------------------------------------------ replay


def test_replay_gives_exactly_the_states_the_game_went_through(games: list[PlayedGame]) -> None:
    for game in games:
        assert tuple(replay_states(game.record)) == game.states
        verified = verify_record(game.record)
        assert verified.state == game.states[-1]
        assert verified.record == game.record


def test_derived_fields_match_the_engine(games: list[PlayedGame]) -> None:
    for game in games:
        rec = game.record
        assert sum(h.move_count for h in rec.hands) == len(rec.moves)
        assert [h.hand_number for h in rec.hands] == list(range(len(rec.hands)))
        last = game.states[-1]
        assert rec.scores == last.scores
        assert rec.status == ("game_over" if last.phase == "game_over" else "in_progress")
        assert (rec.result is None) == (last.result is None)
        for h in rec.hands:
            if h.outcome == "scored":
                assert h.score is not None
                assert sum(h.score.tricks_won) == len(h.tricks)
                assert all(t.winner is not None for t in h.tricks)
        plays = [m for m in rec.moves if isinstance(m, Play)]
        assert [c for h in rec.hands for t in h.tricks for c in t.cards] == [m.card for m in plays]
        scored = [h.score for h in rec.hands if h.score is not None]
        if scored:
            assert scored[-1].scores == rec.scores


# ------------------------------------------------------------------------------------------- corruptions


def _refusal(record: GameRecord) -> RecordRefused:
    with pytest.raises(RecordRefused) as info:
        verify_record(record)
    return info.value


def test_an_illegal_move_at_k_is_refused_at_k_with_the_state_before_it(games: list[PlayedGame]) -> None:
    rng = random.Random(1)
    for game in games:
        k = rng.randrange(len(game.moves))
        state = game.states[k]
        actor = state.to_act
        assert actor is not None
        wrong_seat = Pass(seat=(actor + 1) % game.options.players)
        moves = game.moves[:k] + (wrong_seat,) + game.moves[k + 1:]
        refusal = _refusal(replace(game.record, moves=moves))
        assert (refusal.code, refusal.index, refusal.reason) == ("ILLEGAL_MOVE", k, "NOT_YOUR_TURN")
        assert refusal.state == state


def test_a_malformed_move_at_k_is_refused_at_k(games: list[PlayedGame]) -> None:
    rng = random.Random(2)
    for game in games[:30]:
        k = rng.randrange(len(game.moves))
        actor = game.states[k].to_act
        assert actor is not None
        moves = game.moves[:k] + (Play(seat=actor, card="ZZ"),) + game.moves[k + 1:]
        refusal = _refusal(replace(game.record, moves=moves))
        assert refusal.index == k and refusal.state == game.states[k]
        # Outside the play the engine first says a play is out of phase; during it, the card is unknown.
        if game.states[k].phase == "play":
            assert (refusal.code, refusal.reason) == ("MALFORMED_MOVE", "UNKNOWN_CARD")
        else:
            assert (refusal.code, refusal.reason) == ("ILLEGAL_MOVE", "WRONG_PHASE")


def test_a_move_after_the_game_is_over_is_refused() -> None:
    game = next(g for g in _games(20, 9) if g.record.status == "game_over")
    refusal = _refusal(replace(game.record, moves=(*game.moves, Pass(seat=0))))
    assert (refusal.code, refusal.index, refusal.reason) == ("ILLEGAL_MOVE", len(game.moves), "GAME_OVER")


def test_a_changed_score_is_refused_naming_the_field(games: list[PlayedGame]) -> None:
    checked = 0
    for game in games:
        rec = game.record
        scored = [i for i, h in enumerate(rec.hands) if h.score is not None]
        if not scored:
            continue
        i = scored[len(scored) // 2]
        hand = rec.hands[i]
        assert hand.score is not None
        changes = (hand.score.deltas[0] + 10, *hand.score.deltas[1:])
        hands = rec.hands[:i] + (replace(hand, score=replace(hand.score, deltas=changes)),) + rec.hands[i + 1:]
        refusal = _refusal(replace(rec, hands=hands))
        assert (refusal.code, refusal.field) == ("RECORD_MISMATCH", f"hands[{i}].score.deltas[0]")
        assert refusal.index is None
        refusal = _refusal(replace(rec, scores=(rec.scores[0] - 10, *rec.scores[1:])))
        assert (refusal.code, refusal.field) == ("RECORD_MISMATCH", "scores[0]")
        checked += 1
    assert checked > 50


def test_a_swapped_card_in_a_derived_deal_is_refused_naming_the_card(games: list[PlayedGame]) -> None:
    rng = random.Random(3)
    for game in games:
        rec = game.record
        i = rng.randrange(len(rec.hands))
        hand = rec.hands[i]
        dealt = [list(h) for h in hand.dealt]
        x, y = rng.randrange(len(dealt[0])), rng.randrange(len(dealt[1]))
        dealt[0][x], dealt[1][y] = dealt[1][y], dealt[0][x]
        corrupt = replace(hand, dealt=tuple(tuple(h) for h in dealt))
        refusal = _refusal(replace(rec, hands=rec.hands[:i] + (corrupt,) + rec.hands[i + 1:]))
        assert (refusal.code, refusal.field) == ("RECORD_MISMATCH", f"hands[{i}].dealt[0][{x}]")


def test_a_swapped_card_in_a_deck_order_is_refused_where_the_replay_breaks() -> None:
    """Swap two cards of different seats in the first deck: the first move that the swap makes illegal is
    refused, or, when every move stays legal, the first hand as dealt no longer matches."""
    rng = random.Random(4)
    moves_refused = mismatches = 0
    for i in range(60):
        game = play_game(rng, PLAYER_COUNTS[i % 5], deck_orders=1)
        deck = list(game.deck_orders[0])
        dealt = game.record.hands[0].dealt
        a, b = deck.index(dealt[0][0]), deck.index(dealt[1][-1])
        deck[a], deck[b] = deck[b], deck[a]
        corrupt = replace(game.record, deck_orders=(tuple(deck),))
        # The oracle: replay the moves one by one on the swapped deal.
        state, _ = new_game(game.options, seed=game.seed or 0, deck_orders=[deck], first_dealer=game.first_dealer)
        expected = None
        for k, move in enumerate(game.moves):
            try:
                state, _ = apply_move(state, move)
            except ValueError:
                expected = k
                break
        refusal = _refusal(corrupt)
        if expected is None:
            assert (refusal.code, refusal.field) == ("RECORD_MISMATCH", "hands[0].dealt[0][0]")
            mismatches += 1
        else:
            assert refusal.code == "ILLEGAL_MOVE" and refusal.index == expected
            moves_refused += 1
    assert moves_refused and mismatches


def test_wrong_options_are_refused() -> None:
    rng = random.Random(6)
    game = play_game(rng, 4, change_probability=0.0)
    rec = game.record
    # A pack of another size: the first hand dealt from the seed differs (or a move breaks first).
    refusal = _refusal(replace(rec, options=replace(rec.options, deck_4p="45")))
    assert refusal.code in ("ILLEGAL_MOVE", "MALFORMED_MOVE") or refusal.field == "hands[0].dealt[0][0]"
    # A scoring option: the moves still replay, the first score derived differs.
    first_scored = next(i for i, h in enumerate(rec.hands) if h.score is not None and h.score.made is not None)
    refusal = _refusal(replace(rec, options=replace(rec.options, score_table="perfect")))
    assert refusal.code == "RECORD_MISMATCH" and refusal.field is not None
    assert refusal.field.startswith("options.") or refusal.field.startswith(f"hands[{first_scored}]")
    # The options are part of the record too: the same options spelled differently are refused at options.
    refusal = _refusal(replace(rec, players=5))
    assert (refusal.code, refusal.field) == ("RECORD_MISMATCH", "players")
    refusal = _refusal(replace(rec, options=replace(rec.options, deal_pattern="1-1")))
    assert (refusal.code, refusal.field) == ("INVALID_OPTIONS", "options")
    refusal = _refusal(replace(rec, rules_version="1999.1.1"))
    assert (refusal.code, refusal.field) == ("RECORD_MISMATCH", "rules_version")
    refusal = _refusal(replace(rec, first_dealer=7))
    assert refusal.code == "INVALID_FIRST_DEALER"


def test_a_changed_winner_contract_or_result_is_refused(games: list[PlayedGame]) -> None:
    game = next(g for g in games if g.record.result is not None and
                any(h.contract is not None and h.tricks for h in g.record.hands))
    rec = game.record
    i = next(i for i, h in enumerate(rec.hands) if h.contract is not None and h.tricks)
    hand = rec.hands[i]
    assert hand.contract is not None
    t0 = hand.tricks[0]
    other = next(s for s in range(rec.players) if s != t0.winner)
    bad = replace(hand, tricks=(replace(t0, winner=other), *hand.tricks[1:]))
    refusal = _refusal(replace(rec, hands=rec.hands[:i] + (bad,) + rec.hands[i + 1:]))
    assert (refusal.code, refusal.field) == ("RECORD_MISMATCH", f"hands[{i}].tricks[0].winner")
    bad = replace(hand, contract=replace(hand.contract, contractor=(hand.contract.contractor + 1) % rec.players))
    refusal = _refusal(replace(rec, hands=rec.hands[:i] + (bad,) + rec.hands[i + 1:]))
    assert (refusal.code, refusal.field) == ("RECORD_MISMATCH", f"hands[{i}].contract.contractor")
    assert rec.result is not None
    refusal = _refusal(replace(rec, result=replace(rec.result, reason="points" if rec.result.reason != "points"
                                                   else "contract")))
    assert (refusal.code, refusal.field) == ("RECORD_MISMATCH", "result.reason")
    refusal = _refusal(replace(rec, hands=rec.hands[:-1]))
    assert (refusal.code, refusal.field) == ("RECORD_MISMATCH", f"hands[{len(rec.hands) - 1}]")


def test_the_work_per_record_is_bounded() -> None:
    opts = Options()
    with pytest.raises(RecordRefused) as info:
        build_record(opts, seed=1, first_dealer=0, moves=[Pass(seat=0)] * (MAX_RECORD_MOVES + 1))
    assert info.value.code == "RECORD_TOO_LONG"
