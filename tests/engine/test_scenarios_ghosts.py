"""docs/RULES.md 2.1 and 5 (T95–T104): the two-player ghost-partners game (``two_player_method=ghost_partners``).

The humans sit at seats 0 and 1, their ghosts opposite at 2 and 3. Each scenario reaches its position by real
play from an explicit deck order (``tests/engine/helpers.py`` ``deck_for``: a ghost's first five cards are dealt
face down, its last five face up on them, the i-th on the i-th).
"""

from __future__ import annotations

import msgspec
import pytest

from engine import (
    Bid,
    GameState,
    LookAtHand,
    OptionsError,
    Pass,
    Play,
    ProposeRedeal,
    Verified,
    apply_move,
    build_record,
    check_move,
    controlled_seats,
    controller,
    integrity_problems,
    legal_moves,
    new_game,
    pack_for,
    partners,
    player_to_act,
    redact_events,
    seat_count,
    sides,
    verify_record,
    view,
)
from engine.cards import build_pack
from engine.model import AuctionWon, CardsReceived, GhostCardsUp, ThrownIn, TrickWon
from engine.seat_records import seat_record, verify_seat_record
from engine.seats import ghost_seats, is_ghost_game
from tests.engine.helpers import calls, exchange, move, of_type, opts, play, play_out, scored, start, with_scores

GHOSTS = opts(2, two_player_method="ghost_partners")

#: Human 0 holds the hearts; its ghost (seat 2) shows 6S JS AD KD QD on KS 9C QC JC 10C; human 1 holds the joker.
HANDS = {0: ["JH", "JD", "AH", "KH", "QH", "10H", "9H", "AC", "KC", "5S"],
         1: ["JK", "AS", "QS", "7S"],
         2: ["KS", "QC", "JC", "10C", "9C", "6S", "AD", "KD", "QD", "JS"]}
KITTY = ["4H", "4D", "6H"]


def _dealt() -> GameState:
    return start(GHOSTS, HANDS, dealer=1, kitty=KITTY)


def _playing() -> GameState:
    """Human 0 has bid 7H (human 1 passed) and discarded the kitty: human 0 to lead."""
    state = _dealt()
    state, _ = calls(state, "7H", "P")
    state, _ = exchange(state)
    return state


def test_T95_the_deal_piles_and_packets() -> None:
    # Dealer 1: the packets go clockwise from its left within each kind of seat: humans 0 then 1, ghosts 2 then 3.
    assert len(pack_for(GHOSTS)) == 43 and pack_for(GHOSTS) == build_pack(4)
    deck = tuple(reversed(pack_for(GHOSTS)))
    state, events = new_game(GHOSTS, seed=0, deck_orders=[deck], first_dealer=1)
    assert seat_count(GHOSTS) == 4 and ghost_seats(GHOSTS) == (2, 3)
    # 3 to each human; 5 face down to each ghost; 1 kitty; 4 to each human; 5 face up to each ghost; 1 kitty;
    # 3 to each human; 1 kitty.
    assert set(state.hands[0]) == set(deck[0:3] + deck[17:21] + deck[36:39])
    assert set(state.hands[1]) == set(deck[3:6] + deck[21:25] + deck[39:42])
    assert state.ghost_piles[2] == tuple(zip(deck[25:30], deck[6:11], strict=True))
    assert state.ghost_piles[3] == tuple(zip(deck[30:35], deck[11:16], strict=True))
    assert set(state.hands[2]) == set(deck[25:30]) and set(state.hands[3]) == set(deck[30:35])
    assert state.kitty == (deck[16], deck[35], deck[42])
    assert state.ghost_piles[0] == state.ghost_piles[1] == ()
    # Each human privately gets its ten cards; everyone sees each ghost's five face-up cards; nobody its others.
    assert [e.seat for e in of_type(events, CardsReceived)] == [0, 1]
    shown = of_type(events, GhostCardsUp)
    assert [(e.seat, set(e.cards)) for e in shown] == [(2, set(deck[25:30])), (3, set(deck[30:35]))]
    for viewer in (0, 1, None):
        text = msgspec.json.encode([view(state, viewer), redact_events(events, viewer)]).decode()
        assert not [c for c in deck[6:16] if f'"{c}"' in text], viewer
    # The dealer's opponent bids first.
    assert state.to_act == 0 and state.dealer == 1


def test_T96_only_the_humans_bid() -> None:
    state = _dealt()
    assert check_move(state, Bid(seat=2, bid="7S")).reason == "NOT_YOUR_TURN"  # type: ignore[union-attr]
    assert legal_moves(state, 2) == [] and legal_moves(state, 0)
    state, _ = move(state, Bid(seat=0, bid="6S"))
    assert state.to_act == 1  # the auction goes round the two humans
    state, _ = move(state, Bid(seat=1, bid="6C"))
    assert state.to_act == 0
    state, events = move(state, Bid(seat=0, bid="7H"))
    assert state.phase == "auction" and state.to_act == 1
    state, events = move(state, Pass(seat=1))
    won = of_type(events, AuctionWon)[0]
    assert won.contractor == 0 and won.bid == "7H" and won.sitting_out == ()
    # The highest bidder takes the kitty.
    assert state.phase == "exchange" and state.to_act == 0 and set(KITTY) <= set(state.hands[0])


def test_T97_partners_are_each_human_and_its_ghost() -> None:
    state = _playing()
    assert sides(GHOSTS) == ((0, 2), (1, 3))
    assert partners(state) == (2,)
    assert state.active == (0, 1, 2, 3)
    assert [controller(GHOSTS, s) for s in range(4)] == [0, 1, 0, 1]
    assert controlled_seats(GHOSTS, 0) == (0, 2) and controlled_seats(GHOSTS, 1) == (1, 3)
    v = view(state, 1)
    assert v.players == 2 and v.sides == ((0, 2), (1, 3)) and len(v.hand_sizes) == 4
    assert [(g.seat, g.controlled_by) for g in v.ghosts] == [(2, 0), (3, 1)]


def test_T98_a_ghost_plays_only_its_face_up_cards_and_follows_with_them() -> None:
    state = _playing()
    state, _ = play(state, "5S", "7S")  # human 0 leads a spade, human 1 follows
    assert state.to_act == 2
    # Face up, the ghost holds JS and 6S in spades; the KS beneath 6S is not its to play.
    assert legal_moves(state) == [Play(seat=2, card="JS"), Play(seat=2, card="6S")]
    assert check_move(state, Play(seat=2, card="KS")).reason == "CARD_NOT_IN_HAND"  # type: ignore[union-attr]
    assert check_move(state, Play(seat=2, card="AD")).reason == "MUST_FOLLOW_SUIT"  # type: ignore[union-attr]


def test_T99_playing_a_covering_card_turns_up_the_card_beneath() -> None:
    state = _playing()
    state, _ = play(state, "5S", "7S")
    before = view(state, 1).ghosts[0]
    assert before.face_down == 5 and set(before.covered) == {"6S", "JS", "AD", "KD", "QD"}
    state, events = play(state, "6S")
    assert of_type(events, GhostCardsUp) == [GhostCardsUp(seat=2, cards=("KS",))]
    assert "KS" in state.hands[2] and "6S" not in state.hands[2]
    for viewer in (0, 1, None):
        g = view(state, viewer).ghosts[0]
        assert set(g.face_up) == {"KS", "JS", "AD", "KD", "QD"} and g.face_down == 4
        assert set(g.covered) == {"JS", "AD", "KD", "QD"}  # KS covers nothing: it was beneath
        assert GhostCardsUp(seat=2, cards=("KS",)) in redact_events(events, viewer)
    # Ghost 3 follows, the trick ends; the turned-up KS now counts for following suit.
    state, _ = play(state, None)
    assert state.tricks[-1].winner is not None


def test_T100_the_human_moves_for_its_ghost() -> None:
    state = _playing()
    state, _ = play(state, "5S", "7S")
    assert state.to_act == 2 and player_to_act(state) == 0
    # Human 0's legal moves are its ghost's, naming the ghost's seat; human 1 has none.
    assert legal_moves(state, 0) == legal_moves(state) and legal_moves(state, 1) == []
    assert check_move(state, Play(seat=0, card="AC")).reason == "NOT_YOUR_TURN"  # type: ignore[union-attr]
    assert check_move(state, Play(seat=2, card="JS")) is None
    # A ghost that wins a trick leads the next (its human chooses the card).
    state, _ = play(state, "JS", None)
    assert state.tricks[-1].winner in (1, 2, 3, 0)
    winner = state.tricks[-1].winner
    assert state.to_act == winner and player_to_act(state) == controller(GHOSTS, winner)


def test_T101_scoring_is_the_four_player_game_between_the_two_sides() -> None:
    state = _playing()
    state, events = play_out(state, tricks=({0, 2}, 8))
    hs = scored(events)
    assert hs.contracting_seats == (0, 2) and hs.made is True
    assert sum(hs.tricks_won[s] for s in (0, 2)) == 8
    assert hs.deltas == (200, 20)  # 7H is worth 200 to human 0's side; 10 a trick to the defenders
    assert state.scores == (200, 20)


def test_T102_misere_the_contractors_ghost_sits_out() -> None:
    state = _dealt()
    state, events = calls(state, "7S", "MISERE", "P")
    won = of_type(events, AuctionWon)[0]
    assert won.contractor == 1 and won.bid == "MISERE" and won.sitting_out == (3,)
    ghost_cards = state.hands[3]
    state, _ = exchange(state)
    assert state.active == (0, 1, 2) and partners(state) == ()
    state, _ = play(state, None, None)
    assert state.hands[3] == ghost_cards  # its cards stay where they are, face up and face down
    state, events = play(state, None)
    assert [len(e.cards) for e in of_type(events, TrickWon)] == [3]


def test_T103_the_deal_alternates_between_the_humans_and_eldest_is_the_dealers_opponent() -> None:
    state = _dealt()
    state, events = calls(state, "P", "P")
    thrown = of_type(events, ThrownIn)[0]
    assert thrown.next_dealer == 0 and state.dealer == 0 and state.to_act == 1
    state, _ = calls(state, "P", "P")
    assert state.dealer == 1 and state.to_act == 0
    # first_lead=eldest: the first lead is the dealer's opponent's, not the ghost on the dealer's left.
    eldest = opts(2, two_player_method="ghost_partners", first_lead="eldest")
    st = start(eldest, HANDS, dealer=1, kitty=KITTY)
    st, _ = calls(st, "P", "7C")  # human 0 has passed: human 1 wins at once
    st, _ = exchange(st)
    assert st.contract is not None and st.contract.contractor == 1 and st.to_act == 0


def test_T104_a_ghost_is_never_a_viewer_and_its_face_down_cards_are_in_no_view() -> None:
    state = _playing()
    down = {d for _, d in state.ghost_piles[2]} | {d for _, d in state.ghost_piles[3]}
    for viewer in (0, 1, None):
        text = msgspec.json.encode([view(state, viewer), legal_moves(state, viewer) if viewer is not None else []])
        assert not [c for c in down if f'"{c}"'.encode() in text], viewer
    # The engine's view of a ghost's own seat holds only what everyone sees of it.
    assert view(state, 2).hand == state.hands[2] == ("JS", "6S", "AD", "KD", "QD")


# ------------------------------------------------------------------------------------------------ the option


def test_option_off_the_two_player_game_has_no_ghosts() -> None:
    for method in ("uspcc_dead_hand", "uspcc_24_card"):
        o = opts(2, two_player_method=method)
        state, _ = new_game(o, seed=4, first_dealer=0)
        assert not is_ghost_game(o) and seat_count(o) == 2 and len(state.hands) == 2
        assert state.ghost_piles == () and view(state, 0).ghosts == () and sides(o) == ((0,), (1,))


def test_option_on_four_hands_and_two_sides() -> None:
    state, _ = new_game(GHOSTS, seed=4, first_dealer=0)
    assert is_ghost_game(GHOSTS) and [len(h) for h in state.hands] == [10, 10, 5, 5]
    assert len(state.kitty) == 3 and len(state.scores) == 2 and state.dead_hand == ()
    assert [len(p) for p in state.ghost_piles] == [0, 0, 5, 5]


def test_ghost_partners_keeps_its_own_deal_pattern() -> None:
    with pytest.raises(OptionsError, match="deal_pattern does not apply"):
        opts(2, two_player_method="ghost_partners", deal_pattern="3-1-3-1-4-1")
    opts(3, deal_pattern="3-1-3-1-4-1")  # the pattern still applies elsewhere


def test_ghost_partners_honours_fours_removed_and_ignores_deck_4p() -> None:
    o = opts(2, two_player_method="ghost_partners", fours_removed="4S_4D", deck_4p="46")
    assert pack_for(o) == build_pack(4, fours_removed="4S_4D")
    assert "4C" in pack_for(o) and "4D" not in pack_for(o) and "JKB" not in pack_for(o)


def test_no_ace_no_face_has_no_effect_with_ghosts() -> None:
    weak = {0: ["10S", "9S", "8S", "7S", "10C", "9C", "8C", "10D", "9D", "8D"]}
    four = start(opts(4, no_ace_no_face=True), weak, dealer=3)
    assert ProposeRedeal(seat=0) in legal_moves(four)  # the option works in the four-player game
    state = start(opts(2, two_player_method="ghost_partners", no_ace_no_face=True), weak, dealer=1)
    assert state.to_act == 0 and ProposeRedeal(seat=0) not in legal_moves(state)
    assert check_move(state, ProposeRedeal(seat=0)).reason == "REDEAL_NOT_ALLOWED"  # type: ignore[union-attr]


def test_blind_misere_only_the_humans_look() -> None:
    o = opts(2, two_player_method="ghost_partners", blind_misere_enabled=True)
    state, events = new_game(o, seed=2, first_dealer=1)
    assert state.viewed == (False, False, True, True)  # a ghost has nothing to look at: its face-up cards are seen
    assert view(state, 0).hand is None and view(state, 0).ghosts[0].face_up == state.hands[2]
    state, _ = apply_move(state, LookAtHand(seat=0))
    assert view(state, 0).hand == state.hands[0]


def test_integrity_accepts_ghost_states_and_refuses_a_ghost_contractor() -> None:
    state = with_scores(_playing(), (100, -50))  # checked by with_scores: a reachable state
    last = state.last_hand
    assert last is not None and len(last.tricks_won) == 4
    bad = msgspec.structs.replace(state, last_hand=msgspec.structs.replace(
        last, bid="7S", contractor=2, contracting_seats=(2, 0), made=True))
    assert "last_hand's contract is not one of this game" in integrity_problems(bad)
    piles = state.ghost_piles
    swapped = msgspec.structs.replace(state, ghost_piles=(*piles[:2], piles[3], piles[2]))
    assert integrity_problems(swapped)  # ghost 3's piles under ghost 2's cards: no game deals that


def test_records_of_a_ghost_game_the_hosts_and_each_seats_verify() -> None:
    state, start = new_game(GHOSTS, seed=5, first_dealer=0)
    moves, steps = [], []
    while state.to_act is not None and len(moves) < 60:
        move = list(legal_moves(state))[len(moves) % 3 if state.phase == "play" else 0]
        state, events = apply_move(state, move)
        moves.append(move)
        steps.append(events)
    record = build_record(GHOSTS, seed=5, first_dealer=0, moves=moves)
    assert isinstance(verify_record(record), Verified)
    assert all(len(h.dealt) == 4 and all(len(d) == 10 for d in h.dealt) for h in record.hands)
    for seat in (0, 1):
        own = seat_record(GHOSTS, start, steps, seat)
        assert verify_seat_record(own).record == own  # derived back unchanged, as far as the seat knows
