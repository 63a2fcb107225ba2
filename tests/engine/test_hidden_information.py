"""Known-answer tests for what the rules keep hidden: who holds the joker before it is played or nominated,
the five-player partner while the called card is unplayed, a blind-misère hand nobody has looked at, and a
ghost's face-down cards (ghost partners).

Each test plays the same line from two deals that differ only in cards a viewer cannot see, and checks that
everything that viewer receives (view, phase, turn, events as redacted for it, its legal moves, and their
encoded sizes) is byte-identical.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
import pytest

from engine import (
    Discard,
    GameState,
    Move,
    NominateJoker,
    Options,
    Play,
    apply_move,
    legal_moves,
    new_game,
    redact_events,
    view,
)
from engine.model import CardsReceived, Event, GhostCardsUp, JokerNominated
from tests.engine.helpers import E, N, S, W, deck_for, opts

_ENC = msgspec.json.Encoder()


def received(state: GameState, events: Sequence[Event], viewer: int | None) -> bytes:
    """Everything ``viewer`` is sent after a move, as bytes: its view, its redacted events, its legal moves."""
    moves = list(legal_moves(state, viewer)) if viewer is not None else []
    return _ENC.encode([view(state, viewer), redact_events(events, viewer), moves])


def play_line(options: Options, deck: Sequence[str], line: Sequence[Move], dealer: int = W) -> list[tuple[GameState,
                                                                                                          list[Event]]]:
    state, events = new_game(options, seed=0, deck_orders=[deck], first_dealer=dealer)
    out = [(state, events)]
    for mv in line:
        state, events = apply_move(state, mv)
        out.append((state, events))
    return out


def swapped_deck(deck: Sequence[str], a: str, b: str) -> tuple[str, ...]:
    return tuple(b if c == a else a if c == b else c for c in deck)


# ------------------------------------------------------------------------------------------------ the joker


def _joker_decks(options: Options) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """A deal with the joker in North's hand, the same deal with it in South's, and the kitty (no joker)."""
    deck = deck_for(options, W, {N: ["JK", "AS", "KS"], S: ["5H", "6H"]}, kitty=["4H", "7H", "8H"])
    state, _ = new_game(options, seed=0, deck_orders=[deck], first_dealer=W)
    assert "JK" in state.hands[N] and "5H" in state.hands[S]
    return deck, swapped_deck(deck, "JK", "5H"), tuple(state.kitty)


@pytest.mark.parametrize("bid", ["7NT", "10NT"])
def test_joker_holder_is_not_announced_by_the_nomination_step(bid: str) -> None:
    # The reproduction: seat 0 bids no trumps, the others pass, seat 0 discards three non-joker cards.
    o = opts()
    with_joker, without_joker, kitty = _joker_decks(o)
    auction = [msgspec.convert({"type": "bid", "seat": N, "bid": bid}, Move)]  # type: ignore[arg-type]
    if bid != "10NT":
        auction += [msgspec.convert({"type": "pass", "seat": s}, Move) for s in (E, S, W)]  # type: ignore[arg-type]
    line: list[Move] = [*auction, Discard(seat=N, cards=kitty), NominateJoker(seat=N, suit=None)]
    a = play_line(o, with_joker, line)
    b = play_line(o, without_joker, line)
    assert a[-2][0].phase == b[-2][0].phase == "nominate" and a[-2][0].to_act == b[-2][0].to_act == N
    for (sa, ea), (sb, eb) in zip(a, b, strict=True):
        for viewer in (E, W, None):  # S's own hand differs (it holds the joker in one deal), so not S
            assert received(sa, ea, viewer) == received(sb, eb, viewer)
        assert (sa.phase, sa.to_act) == (sb.phase, sb.to_act)
    # Declining sends everyone the same event whether or not a joker is held.
    decline = JokerNominated(seat=N, card="JK", suit=None)
    assert [e for e in a[-1][1] if isinstance(e, JokerNominated)] == [decline]
    assert [e for e in b[-1][1] if isinstance(e, JokerNominated)] == [decline]
    assert a[-1][0].phase == b[-1][0].phase == "play"
    # The holder may nominate (then it is announced, RULES.md A24); the other contractor may only decline.
    assert len(legal_moves(a[-2][0])) == 5 and legal_moves(b[-2][0]) == [NominateJoker(seat=N, suit=None)]


def test_joker_holder_is_not_announced_in_misere_or_sans_kitty() -> None:
    for o, auction in ((opts(), ["7S", "7C", "P", "P", "MISERE", "P"]),
                       (opts(sans_kitty_enabled=True), ["7NT/SK", "P", "P", "P"])):
        with_joker, without_joker, kitty = _joker_decks(o)
        line: list[Move] = []
        seat = N
        for call in auction:
            if call == "P":
                line.append(msgspec.convert({"type": "pass", "seat": seat}, Move))  # type: ignore[arg-type]
            else:
                bid, sans = call.removesuffix("/SK"), call.endswith("/SK")
                line.append(msgspec.convert({"type": "bid", "seat": seat, "bid": bid, "sans_kitty": sans},
                                            Move))  # type: ignore[arg-type]
            seat = (seat + 1) % 4
        a0 = play_line(o, with_joker, line)
        contractor = a0[-1][0].contract.contractor  # type: ignore[union-attr]
        if a0[-1][0].phase == "exchange":
            line.append(Discard(seat=contractor, cards=tuple(a0[-1][0].kitty)))
        line.append(NominateJoker(seat=contractor, suit=None))
        a = play_line(o, with_joker, line)
        b = play_line(o, without_joker, line)
        holder_deal = "JK" in a[-2][0].hands[contractor]
        for (sa, ea), (sb, eb) in zip(a, b, strict=True):
            for viewer in (v for v in (N, E, S, W, None) if v not in (contractor, S)):
                assert received(sa, ea, viewer) == received(sb, eb, viewer)
        assert a[-2][0].phase == b[-2][0].phase == "nominate"
        assert holder_deal == (contractor == N)


def test_two_joker_pack_keeps_the_step_open_until_declined() -> None:
    # 46-card pack: after nominating one joker the step stays open whether or not the other is held.
    o = opts(deck_4p="46")
    deck = deck_for(o, W, {N: ["JK", "AS"], S: ["JKB", "5H"]})
    for other in (deck, swapped_deck(deck, "JKB", "AS")):
        st, _ = new_game(o, seed=0, deck_orders=[other], first_dealer=W)
        st, _ = apply_move(st, msgspec.convert({"type": "bid", "seat": N, "bid": "10NT"}, Move))  # type: ignore
        st, _ = apply_move(st, Discard(seat=N, cards=tuple(st.kitty)))
        st, ev = apply_move(st, NominateJoker(seat=N, card="JK", suit="H"))
        assert st.phase == "nominate" and st.to_act == N
        assert view(st, E).phase == "nominate" and redact_events(ev, E) == [JokerNominated(seat=N, card="JK",
                                                                                          suit="H")]
        st, _ = apply_move(st, NominateJoker(seat=N, suit=None))
        assert st.phase == "play"


# ------------------------------------------------------------------------------------------------ the partner


def _calls(seat0: int, players: int, *calls: str) -> list[Move]:
    out: list[Move] = []
    seat = seat0
    for call in calls:
        raw: dict[str, object] = {"type": "pass", "seat": seat} if call == "P" else {
            "type": "bid", "seat": seat, "bid": call.removesuffix("/SK"), "sans_kitty": call.endswith("/SK")}
        out.append(msgspec.convert(raw, Move))  # type: ignore[arg-type]
        seat = (seat + 1) % players
    return out


def test_called_card_in_a_sans_kitty_kitty_keeps_the_partner_secret() -> None:
    # Five players, sans kitty: the called card lies in the face-down kitty, or (the same deal with two cards
    # swapped) in seat 2's hand. Nobody, the contractor included, may tell the two apart before it is played.
    o = opts(5, sans_kitty_enabled=True)
    in_kitty = deck_for(o, 4, {0: ["AS", "KS"], 1: ["JK"], 2: ["5D"]}, kitty=["AH", "4C", "5C"])
    held = swapped_deck(in_kitty, "AH", "5D")
    line = [*_calls(0, 5, "7S/SK", "P", "P", "P", "P"), msgspec.convert(
        {"type": "call_card", "seat": 0, "card": "AH"}, Move)]  # type: ignore[arg-type]
    a = play_line(o, in_kitty, line, dealer=4)
    b = play_line(o, held, line, dealer=4)
    assert "AH" in a[-1][0].kitty and "AH" in b[-1][0].hands[2]
    for (sa, ea), (sb, eb) in zip(a, b, strict=True):
        for viewer in (0, 1, 3, 4, None):
            assert received(sa, ea, viewer) == received(sb, eb, viewer)
    for viewer in (0, 1, 3, 4, None):
        cv = view(a[-1][0], viewer).contract
        assert cv is not None and not cv.partners_known and cv.partners == ()
    cv = view(b[-1][0], 2).contract
    assert cv is not None and cv.partners_known and cv.partners == (2,)  # the holder knows it is the partner


def test_contractor_holding_the_called_card_knows_it_plays_alone() -> None:
    o = opts(5, sans_kitty_enabled=True)
    deck = deck_for(o, 4, {0: ["AS", "KS", "AH"], 1: ["JK"]}, kitty=["4C", "5C", "6C"])
    line = [*_calls(0, 5, "7S/SK", "P", "P", "P", "P"), msgspec.convert(
        {"type": "call_card", "seat": 0, "card": "AH"}, Move)]  # type: ignore[arg-type]
    state = play_line(o, deck, line, dealer=4)[-1][0]
    own = view(state, 0).contract
    assert own is not None and own.partners_known and own.partners == ()
    other = view(state, 1).contract
    assert other is not None and not other.partners_known


# ------------------------------------------------------------------------------------------------ blind misère


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_a_hand_thrown_in_unseen_is_never_shown(players: int) -> None:
    o = opts(players, blind_misere_enabled=True, six_player_misere=True)
    state, events = new_game(o, seed=players, first_dealer=players - 1)
    assert all(e.cards is None for e in events if isinstance(e, CardsReceived))
    old = state.hands
    moves = _calls(0, players, *["P"] * players)
    for mv in moves:
        state, ev = apply_move(state, mv)
        for viewer in (*range(players), None):
            for e in redact_events(ev, viewer):
                cards = getattr(e, "cards", None)
                assert cards is None or type(e).__name__ in ("TrickWon", "KittyShown"), (viewer, e)
    assert state.hand_number == 1 and not any(state.viewed)
    assert state.hands != old


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_blind_misere_seats_see_only_their_own_hand_when_the_hand_goes_on(players: int) -> None:
    o = opts(players, blind_misere_enabled=True, six_player_misere=True)
    state, _ = new_game(o, seed=players, first_dealer=players - 1)
    moves = _calls(0, players, "BLIND_MISERE", *["P"] * (players - 1))
    seen: dict[int | None, list[tuple[int, tuple[str, ...]]]] = {v: [] for v in (*range(players), None)}
    for mv in moves:
        before = state
        state, ev = apply_move(state, mv)
        for viewer in seen:
            for e in redact_events(ev, viewer):
                if type(e).__name__ == "LookedAtHand" and e.cards is not None:  # type: ignore[union-attr]
                    seen[viewer].append((e.seat, e.cards))  # type: ignore[union-attr]
            if viewer is not None and not before.viewed[viewer]:
                assert view(before, viewer).hand is None
    contract = state.contract
    assert contract is not None and contract.bid == "BLIND_MISERE" and all(state.viewed)
    for viewer, shown in seen.items():
        assert all(seat == viewer for seat, _ in shown)  # each seat sees its own cards, nobody another's
        if viewer is not None:
            assert len(shown) == 1
    assert view(state, 1).hand is not None and view(state, None).hand is None


# ------------------------------------------------------------------------------------------------ ghost partners


def test_a_ghosts_face_down_cards_are_hidden_from_everyone_until_turned_up() -> None:
    # Two deals that differ only in two face-down cards, one under each ghost (seats 2 and 3): until one of them
    # is turned up, both humans and the public receive exactly the same bytes (views, events, legal moves), the
    # ghost's own human included; the turn-up then shows the card to all at once.
    o = opts(2, two_player_method="ghost_partners")
    hands = {0: ["JH", "JD", "AH", "KH", "QH", "10H", "9H", "AC", "KC", "5S"], 1: ["JK"],
             2: ["KS", "QC", "JC", "10C", "9C", "6S", "AD", "KD", "QD", "JS"],
             3: ["8D", "7D", "6D", "5D", "4D", "10S", "9S", "8S", "AS", "QS"]}
    deck = deck_for(o, E, hands, kitty=["4H", "6H", "7H"])
    other = swapped_deck(deck, "9C", "8D")  # 9C lies under ghost 2's JS, 8D under ghost 3's 10S
    a, _ = new_game(o, seed=0, deck_orders=[deck], first_dealer=E)
    b, _ = new_game(o, seed=0, deck_orders=[other], first_dealer=E)
    assert ("JS", "9C") in a.ghost_piles[2] and ("JS", "8D") in b.ghost_piles[2]
    ea: list[Event] = []
    eb: list[Event] = []
    compared = 0
    line: list[Move] = [msgspec.convert({"type": "bid", "seat": N, "bid": "7H"}, Move),  # type: ignore[arg-type]
                        msgspec.convert({"type": "pass", "seat": E}, Move),  # type: ignore[arg-type]
                        Discard(seat=N, cards=("4H", "6H", "7H"))]
    while a.hand_number == 0:
        for viewer in (N, E, None):
            assert received(a, ea, viewer) == received(b, eb, viewer), (viewer, a.phase, compared)
        compared += 1
        legal = list(legal_moves(a))
        # Keep the covering cards JS and 10S back as long as the rules allow.
        mv = line.pop(0) if line else next((m for m in legal if getattr(m, "card", "") not in ("JS", "10S")),
                                           legal[0])
        if isinstance(mv, Play) and mv.card in ("JS", "10S"):
            break  # this play turns up one of the swapped cards
        a, ea = apply_move(a, mv)
        b, eb = apply_move(b, mv)
    assert compared > 10
    a, ea = apply_move(a, mv)
    b, eb = apply_move(b, mv)
    shown_a = [e for e in redact_events(ea, N) if isinstance(e, GhostCardsUp)]
    shown_b = [e for e in redact_events(eb, N) if isinstance(e, GhostCardsUp)]
    assert shown_a != shown_b and {shown_a[0].cards[0], shown_b[0].cards[0]} == {"9C", "8D"}
