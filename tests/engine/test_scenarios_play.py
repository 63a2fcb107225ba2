"""RULES.md 5.4 (T23–T35) following suit, bowers and trick winners in suit contracts, and 5.5 (T36–T45) the
joker in no-trump contracts. Every position is reached by dealing explicit hands and playing to it."""

from __future__ import annotations

import pytest

from engine import Discard, GameState, NominateJoker, Play, check_move, legal_moves, view
from engine.model import HandScored, JokerNominated, TrickWon
from engine.rules import hand_strain
from tests.engine.helpers import (
    E,
    N,
    S,
    W,
    calls,
    exchange,
    legal_cards,
    move,
    of_type,
    opts,
    play,
    play_reason,
    setup,
    start,
)

# ------------------------------------------------------------------------------------------------ 5.4


def test_T23_left_bower_cannot_follow_its_printed_suit():
    hands = {N: ["9D"], E: ["JD"], S: ["10D"], W: ["AD"]}
    state = setup(opts(), hands, "6H", N, voids={E: "D"})
    state, _ = play(state, "9D")
    assert state.to_act == E
    assert not any(c.endswith("D") for c in state.hands[E] if c != "JD")
    assert legal_cards(state) == set(state.hands[E])  # void in diamonds: anything goes
    assert play_reason(state, "JD") is None
    state, _ = play(state, "JD", "10D", "AD")
    assert state.tricks[-1].winner == E  # J♦ played as a trump (left bower) beats A♦


def test_T24_left_bower_illegal_when_holding_the_printed_suit():
    hands = {N: ["9D"], E: ["JD", "7D"]}
    state = setup(opts(), hands, "6H", N, voids={E: "D"})
    state, _ = play(state, "9D")
    assert legal_cards(state) == {"7D"}
    assert play_reason(state, "JD") == "MUST_FOLLOW_SUIT"


def test_T25_left_bower_lead_is_a_trump_lead():
    hands = {N: ["JD"], E: ["5H", "AD", "KD"]}
    state = setup(opts(), hands, "6H", N, voids={E: "H"})
    state, _ = play(state, "JD")
    assert legal_cards(state) == {"5H"}
    assert play_reason(state, "AD") == "MUST_FOLLOW_SUIT"


def test_T26_joker_and_left_bower_must_follow_trumps():
    hands = {N: ["AH"], S: ["JK", "JD"]}
    state = setup(opts(), hands, "6H", N, voids={S: "H"})
    state, _ = play(state, "AH", None)
    assert state.to_act == S
    assert legal_cards(state) == {"JK", "JD"}
    other = next(c for c in state.hands[S] if c not in ("JK", "JD"))
    assert play_reason(state, other) == "MUST_FOLLOW_SUIT"


def test_T27_left_bower_in_spades_is_not_a_club():
    hands = {N: ["KC"], E: ["JC"], S: ["5C"], W: ["AC"]}
    state = setup(opts(), hands, "6S", N, voids={E: "C"})
    state, _ = play(state, "KC")
    assert legal_cards(state) == set(state.hands[E])
    state, _ = play(state, "JC", "5C", "AC")
    assert state.tricks[-1].winner == E


def test_T28_left_bower_in_clubs_cannot_follow_spades():
    hands = {N: ["9S"], W: ["JS", "8S"]}
    state = setup(opts(), hands, "6C", N, voids={W: "S"})
    state, _ = play(state, "9S", None, None)
    assert state.to_act == W
    assert legal_cards(state) == {"8S"}
    assert play_reason(state, "JS") == "MUST_FOLLOW_SUIT"


def test_T29_right_bower_beats_left_bower():
    hands = {N: ["AD"], E: ["JD"], S: ["JH"], W: ["10D"]}
    state = setup(opts(), hands, "6H", N, voids={E: "D", S: "D"})
    state, events = play(state, "AD", "JD", "JH", "10D")
    assert of_type(events, TrickWon)[0].seat == S


def test_T30_joker_beats_both_bowers():
    hands = {N: ["4H"], E: ["JK"], S: ["JH"], W: ["JD"]}
    state = setup(opts(), hands, "6H", N)
    state, events = play(state, "4H", "JK", "JH", "JD")
    assert of_type(events, TrickWon)[0].seat == E


def test_T31_any_trump_beats_a_plain_ace():
    hands = {N: ["6C"], E: ["AC"], S: ["5S"], W: ["KC"]}
    state = setup(opts(), hands, "6S", N, voids={S: "C"})
    state, events = play(state, "6C", "AC", "5S", "KC")
    assert of_type(events, TrickWon)[0].seat == S


def test_T32_joker_cannot_be_played_when_able_to_follow_a_plain_suit():
    hands = {N: ["7C"], W: ["JK", "9C"]}
    state = setup(opts(), hands, "6D", N, voids={W: "C"})
    state, _ = play(state, "7C", None, None)
    assert state.to_act == W
    assert legal_cards(state) == {"9C"}
    assert play_reason(state, "JK") == "MUST_FOLLOW_SUIT"


def test_T33_joker_as_only_trump_must_follow_and_wins():
    hands = {N: ["AD"], W: ["JK"]}
    state = setup(opts(), hands, "6D", N, voids={W: "DH"})
    state, _ = play(state, "AD", None, None)
    assert legal_cards(state) == {"JK"}
    state, events = play(state, "JK")
    assert of_type(events, TrickWon)[0].seat == W


def test_T34_joker_lead_is_a_trump_lead():
    hands = {E: ["JK"], S: ["JH"], W: ["5D", "JD"]}
    state = setup(opts(), hands, "6D", E, voids={S: "D", N: "D"})
    assert state.to_act == E
    assert play_reason(state, "JK", "H") == "NOMINATION_NOT_ALLOWED"  # a suit contract: no nomination
    state, _ = play(state, "JK")
    assert state.to_act == S
    assert legal_cards(state) == {"JH"}  # the left bower is a diamond here
    state, _ = play(state, "JH")
    assert legal_cards(state) == {c for c in state.hands[W] if c.endswith("D")} >= {"5D", "JD"}
    state, _ = play(state, "5D")
    assert legal_cards(state) == set(state.hands[N])  # N holds no trump
    state, events = play(state, None)
    assert of_type(events, TrickWon)[0].seat == E


@pytest.mark.parametrize(("east", "winner"), [("QD", E), ("5D", S)])
def test_T35_jacks_are_ordinary_in_no_trumps(east: str, winner: int):
    table = hand_strain(opts(), "7NT", ())
    assert table.suit["JD"] == "D" and table.suit["JH"] == "H"
    assert table.power["QD"] > table.power["JD"] > table.power["10D"]
    hands = {N: ["10D"], E: [east], S: ["JD"], W: ["9D"]}
    state = setup(opts(), hands, "7NT", N, voids={S: "D"})
    state, _ = play(state, "10D", east)
    assert legal_cards(state) == {"JD"}
    state, events = play(state, "JD", "9D")
    assert of_type(events, TrickWon)[0].seat == winner


# ------------------------------------------------------------------------------------------------ 5.5


def test_T36_nominated_joker_discarded_on_another_suit_does_not_win():
    hands = {N: ["JK", "AD", "KD", "5C", "6C", "7C", "4H", "5H", "6H", "7H"],
             E: ["9S", "AC", "4D", "5D"], S: ["6S", "6D", "7D", "8C"], W: ["KS", "8D", "9D", "9C"]}
    state = setup(opts(), hands, "7NT", N, nominate="H")
    assert all(view(state, s).joker_nominations == {"JK": "H"} for s in (N, E, S, W, None))
    state, _ = play(state, "AD", "4D", "6D", "8D", "KD", "5D", "7D", "9D", "5C", "AC", "8C", "9C")
    assert [t.winner for t in state.tricks] == [N, N, E]
    state, _ = play(state, "9S", "6S", "KS")
    assert state.to_act == N and legal_cards(state) == set(state.hands[N])  # void in spades
    state, events = play(state, "JK")
    assert of_type(events, TrickWon)[0].seat == W  # the highest spade, not the joker


def _west_leads_hearts(north: list[str]) -> GameState:
    hands = {N: north, E: ["6C"], S: ["7C"], W: ["AC", "AH"]}
    state = setup(opts(), hands, "7NT", N, nominate="H")
    state, _ = play(state, "5C", "6C", "7C", "AC")
    assert state.tricks[-1].winner == W
    state, _ = play(state, "AH")
    assert state.to_act == N
    return state


def test_T37_nominated_joker_is_the_top_card_of_its_suit():
    state = _west_leads_hearts(["JK", "5H", "5C", "AS", "KS", "QS", "AD", "KD", "QD", "JD"])
    assert legal_cards(state) == {"JK", "5H"}
    assert play_reason(state, "5H") is None
    state, events = play(state, "JK", None, None)
    assert of_type(events, TrickWon)[0].seat == N  # beats A♥


def test_T38_nominated_joker_must_follow_its_suit():
    state = _west_leads_hearts(["JK", "5C", "AS", "KS", "QS", "AD", "KD", "QD", "JD", "10D"])
    assert legal_cards(state) == {"JK"}
    assert play_reason(state, "AS") == "MUST_FOLLOW_SUIT"


def test_T39_unnominated_joker_may_not_be_played_when_holder_can_follow():
    hands = {N: ["7C"], E: ["8C", "JK"]}
    state = setup(opts(), hands, "7NT", N, voids={E: "C"})
    assert state.nominations == ()
    state, _ = play(state, "7C")
    assert legal_cards(state) == {"8C"}
    assert play_reason(state, "JK") == "JOKER_ONLY_WHEN_VOID"


@pytest.mark.parametrize("plays_joker", [True, False])
def test_T40_void_holder_may_play_the_joker_but_need_not(plays_joker: bool):
    hands = {N: ["7C"], E: ["JK"], S: ["8C"], W: ["AC"]}
    state = setup(opts(), hands, "7NT", N, voids={E: "C"})
    state, _ = play(state, "7C")
    assert legal_cards(state) == set(state.hands[E]) and "JK" in legal_cards(state)
    card = "JK" if plays_joker else next(c for c in state.hands[E] if c != "JK")
    assert play_reason(state, card) is None
    state, events = play(state, card, "8C", "AC")
    assert of_type(events, TrickWon)[0].seat == (E if plays_joker else W)


def test_T41_unnominated_joker_wins_and_its_player_leads():
    hands = {N: ["AS"], E: ["JK"]}
    state = setup(opts(), hands, "7NT", N, voids={E: "S"})
    state, events = play(state, "AS", "JK", None, None)
    assert of_type(events, TrickWon)[0].seat == E
    assert state.to_act == E and state.trick is None


def test_T42_joker_lead_must_nominate_an_unled_suit():
    hands = {N: ["AS", "4D"], E: ["JK", "AD", "5S"], S: ["7C", "8C", "6S", "6D"]}
    state = setup(opts(), hands, "7NT", N, voids={W: "C"})
    state, _ = play(state, "AS", "5S", "6S", None, "4D", "AD", "6D", None)
    assert [t.winner for t in state.tricks] == [N, E]
    assert state.to_act == E
    joker_leads = {m.nominate for m in legal_moves(state) if isinstance(m, Play) and m.card == "JK"}
    assert joker_leads == {"C", "H"}
    assert play_reason(state, "JK", "S") == "JOKER_SUIT_ALREADY_LED"
    assert play_reason(state, "JK", "D") == "JOKER_SUIT_ALREADY_LED"
    assert play_reason(state, "JK") == "JOKER_LEAD_NEEDS_SUIT"
    state, _ = play(state, ("JK", "C"))
    assert state.to_act == S
    assert legal_cards(state) == {c for c in state.hands[S] if c.endswith("C")} >= {"7C", "8C"}
    state, _ = play(state, "7C")
    assert legal_cards(state) == set(state.hands[W])  # W has no club
    state, events = play(state, None, None)
    assert of_type(events, TrickWon)[0].seat == E


def test_T43_joker_lead_after_all_suits_led_only_at_trick_ten():
    hands = {N: ["AS", "KS", "AD", "KD", "AC", "KC", "4H", "QS", "QD", "QC"],
             E: ["5S", "5D", "5C", "AH", "KH", "QH", "JH", "10H", "9H", "JK"]}
    state = setup(opts(), hands, "7NT", N)
    state, _ = play(state, "AS", "5S", None, None, "AD", "5D", None, None, "AC", "5C", None, None,
                    "4H", "AH", None, None)
    assert [t.winner for t in state.tricks] == [N, N, N, E]  # ♠ ♦ ♣ ♥ all led by trick 4
    state, _ = play(state, "KH", None, None, None)
    assert len(state.tricks) == 5 and state.to_act == E
    assert sorted(state.hands[E]) == sorted(["QH", "JH", "10H", "9H", "JK"])  # Jkr plus 4 others
    assert "JK" not in legal_cards(state)
    for x in ("S", "C", "D", "H"):
        assert play_reason(state, "JK", x) == "JOKER_LEAD_NOT_ALLOWED"
    assert play_reason(state, "JK") == "JOKER_LEAD_NOT_ALLOWED"
    state, _ = play(state, "QH", None, None, None, "JH", None, None, None, "10H", None, None, None,
                    "9H", None, None, None)
    assert len(state.tricks) == 9 and state.to_act == E and state.hands[E] == ("JK",)
    assert legal_moves(state) == [Play(seat=E, card="JK")]
    assert play_reason(state, "JK", "C") == "NOMINATION_NOT_ALLOWED"
    state, events = play(state, "JK", None, None, None)
    won = of_type(events, TrickWon)
    assert won[0].seat == E and won[0].trick_number == 10
    hs = of_type(events, HandScored)[0]
    assert hs.tricks_won == (3, 7, 0, 0) and hs.deltas == (-220, 70)


def test_T44_contractor_declines_nomination_and_leads_joker():
    hands = {N: ["JK"], E: ["5D", "6D"]}
    state = start(opts(), hands)
    state, _ = calls(state, "7NT", "P", "P", "P")
    state, events = exchange(state, nominate=None)
    assert of_type(events, JokerNominated)[0].suit is None
    assert state.nominations == () and state.to_act == N
    assert {m.nominate for m in legal_moves(state) if m.card == "JK"} == {"S", "C", "D", "H"}  # type: ignore
    assert play_reason(state, "JK", "D") is None
    state, _ = play(state, ("JK", "D"))
    assert legal_cards(state) == {c for c in state.hands[E] if c.endswith("D")} >= {"5D", "6D"}
    state, events = play(state, None, None, None)
    assert of_type(events, TrickWon)[0].seat == N


def test_T45_partner_holding_the_joker_cannot_nominate():
    hands = {N: ["7C"], S: ["JK", "8C"]}
    state = start(opts(), hands, voids={S: "C"})
    state, _ = calls(state, "7NT", "P", "P", "P")
    state, _ = move(state, Discard(seat=N, cards=state.kitty))
    # N holds no joker yet takes the same nomination step, where declining is the only legal move.
    assert state.phase == "nominate" and state.to_act == N
    assert legal_moves(state) == [NominateJoker(seat=N, suit=None)]
    assert check_move(state, NominateJoker(seat=N, suit="H")).reason == "NO_JOKER_TO_NOMINATE"  # type: ignore
    state, events = move(state, NominateJoker(seat=N, suit=None))
    assert of_type(events, JokerNominated) == [JokerNominated(seat=N, card="JK", suit=None)]
    assert state.phase == "play" and state.to_act == N and state.nominations == ()
    assert check_move(state, NominateJoker(seat=S, suit="H")) is not None
    assert check_move(state, NominateJoker(seat=N, suit="H")).reason == "WRONG_PHASE"  # type: ignore[union-attr]
    assert view(state, S).joker_nominations == {}
    state, _ = play(state, "7C", None)
    assert state.to_act == S
    assert legal_cards(state) == {"8C"}  # T39 applies to S
    assert play_reason(state, "JK") == "JOKER_ONLY_WHEN_VOID"


def test_T36_to_T38_prenominated_joker_led_is_a_lead_of_its_suit():
    hands = {N: ["JK", "5C"], E: ["5H", "6H"]}
    state = setup(opts(), hands, "7NT", N, nominate="H")
    assert play_reason(state, "JK", "S") == "NOMINATION_NOT_ALLOWED"
    state, _ = play(state, "JK")
    assert legal_cards(state) == {c for c in state.hands[E] if c.endswith("H")} >= {"5H", "6H"}
    state, events = play(state, None, None, None)
    assert of_type(events, TrickWon)[0].seat == N


def test_T43_A9_void_follower_may_still_play_the_joker_after_all_suits_led():
    # RULES.md A9: the "all four suits led" restriction is on leading only.
    hands = {N: ["AS", "AD", "AC", "AH", "KS"], E: ["JK", "6D", "5D", "5C", "5H"]}
    state = setup(opts(), hands, "7NT", N, voids={E: "S"})
    state, _ = play(state, "AS", "6D", None, None, "AD", "5D", None, None, "AC", "5C", None, None,
                    "AH", "5H", None, None)
    assert [t.winner for t in state.tricks] == [N, N, N, N]
    state, _ = play(state, "KS")
    assert "JK" in legal_cards(state) and play_reason(state, "JK") is None
    state, events = play(state, "JK", None, None)
    assert of_type(events, TrickWon)[0].seat == E


# ------------------------------------------------------------------------------ the legal-plays memo


def test_a_play_is_checked_unless_it_is_one_of_the_legal_plays_just_answered_for_that_very_state():
    """apply_move skips the check only for a move equal to one of the legal plays answered for the same state
    object (engine/play.py's memo): a move added to the returned list is still refused, an equal state from
    the wire is checked in full, and both give the same answers."""
    import msgspec

    from engine import IllegalMove, apply_move

    hands = {N: ["9D"], E: ["7D", "AS", "KC"]}
    state = setup(opts(), hands, "6H", N, voids={E: "D"})
    state, _ = play(state, "9D")
    moves = legal_moves(state)
    assert [m.card for m in moves if isinstance(m, Play)] == ["7D"]
    moves.append(Play(seat=E, card="AS"))  # the caller's list is its own: the memo kept a copy
    with pytest.raises(IllegalMove) as refused:
        apply_move(state, moves[-1])
    assert refused.value.rejection.reason == "MUST_FOLLOW_SUIT"
    with pytest.raises(IllegalMove):
        apply_move(state, Play(seat=E, card="KC"))
    wire = msgspec.msgpack.decode(msgspec.msgpack.encode(state), type=GameState)
    assert wire == state and wire is not state
    assert apply_move(wire, Play(seat=E, card="7D")) == apply_move(state, moves[0])
    with pytest.raises(IllegalMove):
        apply_move(wire, Play(seat=E, card="AS"))
