"""Hostile states for the integrity check: real states of random games, mutated field by field into states the
game cannot reach. Each is refused with a named problem, and nothing given to the check makes it raise (the
service would answer a 500)."""

from __future__ import annotations

import random
from collections.abc import Callable

import msgspec
import pytest

from engine import GameState, Options, apply_move, integrity_problems, new_game, structure_problems
from engine.cards import SUITS
from engine.deal import pack_for
from engine.integrity import MAX_HAND_NUMBER
from engine.model import Call, Contract, GameResult, Play, Trick
from engine.rules import ladder
from engine.seats import seat_count
from tests.engine.helpers import misere_hands, opts, setup
from tests.engine.randomplay import random_game, random_ghost_options, random_options

replace = msgspec.structs.replace
_DECODER = msgspec.msgpack.Decoder(GameState)
STATES_PER_COUNT = 24


def sample_states() -> list[GameState]:
    """States of every phase from random games of 2 to 6 players, finished games included."""
    out: list[GameState] = []
    for players in (2, 3, 4, 5, 6, GHOSTS):
        rng = random.Random(players * 31)
        got: list[GameState] = []
        for g in range(40):
            if players == GHOSTS:
                opts = GHOST if g % 3 == 0 else random_ghost_options(rng)
            else:
                opts = Options(players=players) if g % 3 == 0 else random_options(rng, players)  # type: ignore[arg-type]
            state, _ = new_game(opts, seed=g)
            last = state
            for before, mv in random_game(rng, state, pass_bias=0.6):
                if rng.random() < 0.04 or (before.phase != "play" and rng.random() < 0.3):
                    got.append(before)
                last = apply_move(before, mv)[0]
            if last.phase == "game_over":
                got.append(last)
            if len(got) >= STATES_PER_COUNT:
                break
        out += got[:STATES_PER_COUNT]
    return out


GHOSTS = 7  # sample_states' stand-in player count for the two-player ghost-partners game
GHOST = Options(players=2, two_player_method="ghost_partners")
STATES = sample_states()


def _move_card(st: GameState, src: int, dst: int) -> GameState | None:
    if not st.hands[src] or src == dst:
        return None
    hands = list(st.hands)
    card = hands[src][-1]
    hands[src] = hands[src][:-1]
    hands[dst] = hands[dst] + (card,)
    return replace(st, hands=tuple(hands))


def _other_bid(st: GameState) -> str:
    assert st.contract is not None
    return next(b for b in ladder(st.options) if b != st.contract.bid)


def _in_auction(st: GameState) -> bool:
    return st.phase in ("auction", "redeal_answer")


Mutation = Callable[[GameState], "GameState | None"]
N = 0  # a seat every game has

#: (field, what is done, the mutation; ``None`` where it does not apply). Each yields a state no game reaches.
MUTATIONS: list[tuple[str, str, Mutation]] = [
    ("rules_version", "another rules version", lambda s: replace(s, rules_version="1999.1.1")),
    ("options", "a target that cannot be played", lambda s: replace(s, options=replace(s.options, target=0))),
    ("options", "another player count", lambda s: replace(s, options=replace(
        s.options, players=3 if s.options.players != 3 else 4))),
    ("seed", "a negative seed", lambda s: replace(s, seed=-1)),
    ("seed", "a seed of 2**64", lambda s: replace(s, seed=2**64)),
    ("deck_orders", "a deck order missing a card", lambda s: replace(
        s, deck_orders=(*s.deck_orders, pack_for(s.options)[1:]))),
    ("dealt_decks", "a dealt deck missing a card", lambda s: replace(
        s, dealt_decks=(pack_for(s.options)[1:],) * (s.hand_number + 1))),
    ("dealt_decks", "more dealt decks than hands", lambda s: replace(
        s, dealt_decks=(pack_for(s.options),) * (s.hand_number + 2))),
    ("hand_number", "hand -1", lambda s: replace(s, hand_number=-1)),
    ("hand_number", "hand -2**63", lambda s: replace(s, hand_number=-2**63)),
    ("hand_number", "beyond the bound", lambda s: replace(s, hand_number=MAX_HAND_NUMBER + 1)),
    ("dealer", "a seat that does not exist", lambda s: replace(s, dealer=s.options.players)),
    ("dealer", "seat -1", lambda s: replace(s, dealer=-1)),
    ("phase", "not a phase", lambda s: replace(s, phase="bidding")),  # type: ignore[arg-type]
    ("phase", "the game is over", lambda s: None if s.phase == "game_over" else replace(s, phase="game_over")),
    ("phase", "play before it starts", lambda s: replace(s, phase="play") if s.phase in (
        "auction", "exchange", "call") else None),
    ("phase", "back to the auction", lambda s: None if _in_auction(s) else replace(s, phase="auction")),
    ("to_act", "nobody in a game in progress", lambda s: None if s.to_act is None else replace(s, to_act=None)),
    ("to_act", "the next seat", lambda s: None if s.to_act is None else replace(
        s, to_act=(s.to_act + 1) % s.options.players)),
    ("to_act", "a seat that does not exist", lambda s: replace(s, to_act=seat_count(s.options))),
    ("scores", "ten more for side 0", lambda s: replace(s, scores=(s.scores[0] + 10, *s.scores[1:]))),
    ("scores", "a score not a multiple of 10", lambda s: replace(s, scores=(s.scores[0] + 5, *s.scores[1:]))),
    ("scores", "one score too many", lambda s: replace(s, scores=(*s.scores, 0))),
    ("hands", "a card moved to another hand", lambda s: _move_card(s, N, 1)),
    ("hands", "a hand out of order", lambda s: None if len(s.hands[N]) < 2 else replace(
        s, hands=(tuple(reversed(s.hands[N])), *s.hands[1:]))),
    ("hands", "a card twice", lambda s: None if not s.hands[N] or not s.hands[1] else replace(
        s, hands=(s.hands[N], (s.hands[N][0], *s.hands[1][1:]), *s.hands[2:]))),
    ("dead_hand", "a dead hand where there is none, or a card gone from it", lambda s: replace(
        s, dead_hand=s.dead_hand[1:]) if s.dead_hand else (replace(
            s, dead_hand=(s.hands[N][0],), hands=(s.hands[N][1:], *s.hands[1:])) if s.hands[N] else None)),
    ("ghost_piles", "ghost piles in a game without ghosts", lambda s: None if s.ghost_piles else replace(
        s, ghost_piles=((("AS", "KS"),),))),
    ("ghost_piles", "a ghost's face-down card replaced by a card held elsewhere", lambda s: replace(
        s, ghost_piles=(*s.ghost_piles[:2], ((s.ghost_piles[2][0][0], s.hands[N][0]), *s.ghost_piles[2][1:]),
                        s.ghost_piles[3])) if s.ghost_piles and s.hands[N] else None),
    ("ghost_piles", "a ghost with four piles", lambda s: replace(
        s, ghost_piles=(*s.ghost_piles[:3], s.ghost_piles[3][1:])) if s.ghost_piles else None),
    ("ghost_piles", "no piles in a ghost-partners game", lambda s: replace(s, ghost_piles=())
     if s.ghost_piles else None),
    ("kitty", "a kitty card lost", lambda s: replace(s, kitty=s.kitty[1:]) if s.kitty else None),
    ("kitty", "a kitty during the play of an exchanged contract", lambda s: replace(
        s, kitty=s.discards, discards=()) if s.discards and s.phase != "game_over" else None),
    ("discards", "discards before the exchange", lambda s: replace(
        s, discards=(s.hands[N][0],), hands=(s.hands[N][1:], *s.hands[1:])) if _in_auction(s) else None),
    ("viewed", "a seat that has not looked after the auction",
     lambda s: None if _in_auction(s) else replace(s, viewed=(False, *s.viewed[1:]))),
    ("viewed", "not looked in a game without blind misère", lambda s: None if s.options.blind_misere_enabled
     else replace(s, viewed=(False, *s.viewed[1:]))),
    ("viewed", "one entry too few", lambda s: replace(s, viewed=s.viewed[1:])),
    ("kitty_shown", "shown without show_kitty", lambda s: None if s.options.show_kitty or s.kitty_shown
     else replace(s, kitty_shown=True)),
    ("calls", "the last call made twice", lambda s: replace(s, calls=(*s.calls, s.calls[-1])) if s.calls
     else None),
    ("calls", "a call that is no bid", lambda s: replace(s, calls=(*s.calls[:-1], Call(s.calls[-1].seat, "11NT")))
     if s.calls else None),
    ("calls", "a pass made sans kitty", lambda s: replace(s, calls=(*s.calls, Call(s.to_act or 0, None, True)))),
    ("passed", "a seat marked as passed", lambda s: replace(s, passed=(not s.passed[0], *s.passed[1:]))
     if _in_auction(s) else None),
    ("high", "a high bid nobody made", lambda s: replace(s, high=Call(N, "10NT")) if s.high is None or
     s.high.bid != "10NT" else None),
    ("raising", "a raise offered out of turn", lambda s: replace(s, raising=not s.raising)
     if s.phase == "auction" else None),
    ("redeal_proposer", "a proposal in a game without it", lambda s: None if s.options.no_ace_no_face
     else replace(s, redeal_proposer=N)),
    ("redeal_proposer", "a proposer that is no seat", lambda s: replace(s, redeal_proposer=s.options.players)),
    ("misere_barred", "misère barred without a proposal", lambda s: None if s.redeal_proposer is not None
     else replace(s, misere_barred=(N,))),
    ("contract", "a contract during the auction", lambda s: replace(s, contract=Contract(bid="7S", contractor=0))
     if _in_auction(s) else None),
    ("contract", "another contractor", lambda s: replace(s, contract=replace(
        s.contract, contractor=(s.contract.contractor + 1) % s.options.players)) if s.contract else None),
    ("contract", "another bid", lambda s: replace(s, contract=replace(s.contract, bid=_other_bid(s)))
     if s.contract else None),
    ("contract", "a called card in a game of fixed partners", lambda s: replace(s, contract=replace(
        s.contract, called_card="AS")) if s.contract and s.options.players != 5 else None),
    ("contract", "played alone the other way", lambda s: replace(s, contract=replace(
        s.contract, alone=not s.contract.alone)) if s.contract else None),
    ("nominations", "a joker nominated as game_over", lambda s: replace(s, nominations=(("JK", "game_over"),))),
    ("nominations", "a nomination in a suit contract", lambda s: replace(s, nominations=(("JK", "H"),))
     if s.contract and s.contract.bid[-1] in SUITS else None),
    ("nominations", "a nomination by a contractor who never held the joker", lambda s: replace(
        s, nominations=(("JK", "S"),)) if s.contract and not any("JK" in t.cards for t in s.tricks) and "JK" not in
     s.hands[s.contract.contractor] else None),
    ("active", "a seat dropped from the play", lambda s: replace(s, active=s.active[:-1]) if s.active else None),
    ("tricks", "a trick led by a seat not playing", lambda s: replace(s, tricks=(replace(
        s.tricks[0], leader=seat_count(s.options)), *s.tricks[1:])) if s.tricks else None),
    ("tricks", "a trick won by another seat", lambda s: replace(s, tricks=(replace(
        s.tricks[0], winner=next(x for x in s.active if x != s.tricks[0].winner)), *s.tricks[1:]))
     if s.tricks else None),
    ("tricks", "a trick of a nominated lead with no suit", lambda s: replace(s, tricks=(replace(
        s.tricks[0], nominate="X"), *s.tricks[1:])) if s.tricks else None),
    ("trick", "the trick in progress led by a seat that does not exist", lambda s: replace(
        s, trick=replace(s.trick, leader=-1)) if s.trick else None),
    ("trick", "a trick in progress during the auction", lambda s: replace(s, trick=Trick(N, ("AS",)))
     if _in_auction(s) else None),
    ("suits_led", "a suit led that was not", lambda s: replace(
        s, suits_led=s.suits_led + next(x for x in SUITS if x not in s.suits_led))
     if s.phase == "play" and len(s.suits_led) < 4 else None),
    ("shown_void", "a void nobody showed", lambda s: replace(s, shown_void=(
        s.shown_void[0] + next(x for x in SUITS if x not in s.shown_void[0]), *s.shown_void[1:]))
     if s.shown_void and len(s.shown_void[0]) < 4 else None),
    ("tricks_won", "a trick counted twice", lambda s: replace(s, tricks_won=(s.tricks_won[0] + 1,
                                                                             *s.tricks_won[1:]))
     if s.tricks_won else None),
    ("result", "a result in a game in progress", lambda s: replace(s, result=GameResult((0,), (), "points"))
     if s.result is None else replace(s, result=replace(s.result, winners=(*s.result.winners, 99)))),
    ("last_hand", "a last hand that does not give the scores", lambda s: replace(s, last_hand=replace(
        s.last_hand, scores=(s.last_hand.scores[0] + 10, *s.last_hand.scores[1:])))
     if s.last_hand else None),
    ("last_hand", "no last hand although the game is over", lambda s: replace(s, last_hand=None)
     if s.phase == "game_over" else None),
]


@pytest.mark.parametrize("index", range(0, len(STATES), 8), ids=lambda i: f"state{i}")
def test_real_states_pass(index: int) -> None:
    for state in STATES[index:index + 8]:
        assert integrity_problems(state) == []
        assert structure_problems(state) == []


def test_every_state_of_random_games_passes_the_structural_check() -> None:
    """Every state (not a sample) of random games of every size and option set: the structural check refuses
    nothing the game reaches, or a snapshot of it would be refused."""
    checked = 0
    for players in (2, 3, 4, 5, 6, GHOSTS):
        rng = random.Random(players * 7 + 1)
        for g in range(6):
            opts = random_ghost_options(rng) if players == GHOSTS else random_options(rng, players)  # type: ignore[arg-type]
            state, _ = new_game(opts, seed=g)
            for before, mv in random_game(rng, state, pass_bias=0.6):
                assert structure_problems(before) == [], (players, g, before.phase)
                state = apply_move(before, mv)[0]
                checked += 1
            assert structure_problems(state) == []
    assert checked > 1000


#: Mutations the structural check alone refuses in every state they apply to: ranges, every card once, the
#: phase and the turn (the rest, the legality of the recorded moves, is the replay's).
STRUCTURAL = {"another rules version", "a target that cannot be played", "another player count", "a negative seed",
              "a seed of 2**64", "a deck order missing a card", "a dealt deck missing a card",
              "more dealt decks than hands", "hand -1", "hand -2**63", "beyond the bound",
              "a seat that does not exist", "seat -1", "not a phase", "the game is over", "play before it starts",
              "back to the auction", "nobody in a game in progress", "ten more for side 0",
              "a score not a multiple of 10", "one score too many", "a card moved to another hand", "a card twice",
              "a dead hand where there is none, or a card gone from it", "a kitty card lost", "one entry too few",
              "a call that is no bid", "a pass made sans kitty", "a proposer that is no seat",
              "a joker nominated as game_over", "a trick led by a seat not playing",
              "a trick of a nominated lead with no suit", "the trick in progress led by a seat that does not exist",
              "discards before the exchange", "a contract during the auction", "a trick in progress during the auction",
              "a last hand that does not give the scores", "no last hand although the game is over"}


def test_the_structural_check_refuses_ranges_cards_phase_and_turn() -> None:
    tried: set[str] = set()
    for state in STATES:
        for _, what, mutate in MUTATIONS:
            if what not in STRUCTURAL:
                continue
            try:
                bad = mutate(state)
            except (StopIteration, IndexError, TypeError):
                continue
            if bad is None or bad == state:
                continue
            assert structure_problems(bad), f"{what} in a {state.options.players}-player {state.phase} state"
            tried.add(what)
    assert tried == STRUCTURAL
    # In the play, the turn: the seat after the one that played last, or the last trick's winner.
    play = next(s for s in STATES if s.phase == "play" and s.trick is not None and len(s.active) > 2)
    assert play.to_act is not None
    assert any("not the next seat" in p for p in structure_problems(replace(
        play, to_act=next(x for x in play.active if x != play.to_act))))


def test_every_mutation_is_refused_with_a_named_problem_and_nothing_raises() -> None:
    refused: dict[str, int] = {}
    tried = 0
    for state in STATES:
        for field, what, mutate in MUTATIONS:
            try:
                bad = mutate(state)
            except (StopIteration, IndexError, TypeError):
                continue  # the mutation does not apply to this state
            if bad is None or bad == state:
                continue
            tried += 1
            problems = integrity_problems(bad)
            assert problems, f"accepted {what} ({field}) in a {state.options.players}-player {state.phase} state"
            assert all(isinstance(p, str) and p for p in problems)
            refused[field] = refused.get(field, 0) + 1
            # Through the snapshot decoder too, when the mutation still decodes (types are right).
            try:
                decoded = _DECODER.decode(msgspec.msgpack.encode(bad))
            except (msgspec.DecodeError, msgspec.ValidationError, OverflowError):
                continue
            assert integrity_problems(decoded), f"accepted decoded {what}"
    missing = set(GameState.__struct_fields__) - set(refused)
    assert not missing, f"no mutation of {sorted(missing)} was tried"
    assert tried > 500


def _hostile_values() -> list[tuple[str, object]]:
    return [("to_act", True), ("to_act", "0"), ("hands", None), ("hands", ((),)), ("calls", ((1, 2),)),
            ("calls", "7S"), ("tricks", ("x",)), ("trick", 5), ("contract", 5), ("nominations", (("JK",),)),
            ("nominations", "JK"), ("options", None), ("scores", None), ("scores", ("a",)), ("viewed", None),
            ("active", (99, -1)), ("tricks_won", None), ("last_hand", 3), ("result", "won"), ("deck_orders", 7),
            ("kitty", None), ("seed", 1.5), ("hand_number", None), ("high", "7S"), ("shown_void", None),
            ("suits_led", 3), ("passed", (1,)), ("misere_barred", None), ("redeal_proposer", "0"),
            ("phase", None), ("rules_version", None), ("dealer", None), ("discards", None),
            ("dead_hand", None), ("raising", None), ("kitty_shown", "yes")]


def test_values_of_the_wrong_kind_are_refused_not_raised() -> None:
    for state in STATES[::5]:
        for name, value in _hostile_values():
            bad = replace(state, **{name: value})
            for check in (integrity_problems, structure_problems):
                problems = check(bad)
                assert problems and all(isinstance(p, str) and p for p in problems), (check, name, value)


def test_the_reported_cases() -> None:
    """The states that answered 500 or passed before: a trick led by a seat not playing, a nomination of
    ``game_over``, duplicated auction calls, hand_number -2**63."""
    hands, kitty = misere_hands(N)
    play = setup(opts(), hands, "MISERE", N, call_seq=["7S", "7C", "P", "P", "MISERE", "P"], kitty=kitty)
    play, _ = apply_move(play, Play(seat=N, card=play.hands[N][0]))
    assert play.contract is not None and play.contract.sitting_out == (2,) and play.trick is not None
    bad = replace(play, trick=replace(play.trick, leader=2))
    assert any("not a seat playing" in p for p in integrity_problems(bad))
    done = next(s for s in STATES if s.phase == "play" and s.tricks)
    bad = replace(done, tricks=(replace(done.tricks[0], leader=-7), *done.tricks[1:]))
    assert any("not a seat playing" in p for p in integrity_problems(bad))
    assert any("game_over" in p for p in integrity_problems(replace(play, nominations=(("JK", "game_over"),))))
    auction = next(s for s in STATES if s.phase == "auction" and s.calls)
    assert any("auction call" in p for p in integrity_problems(replace(auction, calls=(*auction.calls,
                                                                                      auction.calls[-1]))))
    assert integrity_problems(replace(auction, hand_number=-2**63)) == [
        f"hand_number {-2**63} is not 0 to {MAX_HAND_NUMBER}"]
