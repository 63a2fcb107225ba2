"""The engine's fast paths give exactly what the general code gives: the seed's deal read off shuffled pack
positions against the packet deal of the shuffled pack, and the play's memos against fresh answers."""

from __future__ import annotations

import itertools
import random

import msgspec
import pytest

from engine import Options, apply_move, legal_moves, new_game
from engine.cards import ALL_CARDS, JOKERS, Strain
from engine.deal import _LIMITS, SeedStream, _shuffled, first_below, pack_for, shuffled
from engine.model import GameState, Move, Play
from engine.options import PRESETS
from engine.play import follow_cards, next_seats
from engine.rules import hand_strain
from engine.setup import resolve_options, seed_deck
from engine.tricks import seat_after, strain_of, trick_led_suit, trick_winner_index

VARIANTS: list[Options] = [
    Options(players=2), Options(players=2, two_player_method="uspcc_24_card"), Options(players=3),
    Options(players=4), Options(players=4, deck_4p="45"), Options(players=4, deck_4p="46"),
    Options(players=4, deal_pattern="4-1-3-1-3-1"), Options(players=4, blind_misere_enabled=True),
    Options(players=5), Options(players=5, five_player_deck="stripped_63"), Options(players=6),
    Options(players=6, six_player_kitty=6), Options(players=2, two_player_method="ghost_partners"),
    Options(players=4, joker_follow_first_round=True, joker_low_in_misere=True),
    Options(players=4, joker_lead_restriction="not_shown_void", joker_lead_timing="last_trick_only"),
    Options(players=4, deck_4p="46", joker_forced_in_misere=False),
    *(resolve_options(4, p) for p in PRESETS),
]


@pytest.mark.parametrize("size", [2, 3, 24, 33, 43, 46, 53, 63, 66, 127])
def test_shuffle_fast_path_equals_general_loop(size: int) -> None:
    pack = tuple(f"c{i}" for i in range(size))
    for seed in range(200):
        assert shuffled(pack, seed, f"deal/{seed % 3}") == _shuffled(pack, seed, f"deal/{seed % 3}")


@pytest.mark.parametrize("opts", VARIANTS, ids=lambda o: msgspec.json.encode(o).decode()[:60])
def test_seed_deal_equals_dealing_the_seed_deck(opts: Options) -> None:
    """Dealing from the seed equals dealing the seed's deck given as an explicit deck order (the general path)."""
    for seed in range(40):
        for first_dealer in range(opts.players):
            fast, fast_events = new_game(opts, seed=seed, first_dealer=first_dealer)
            slow, slow_events = new_game(opts, seed=seed, first_dealer=first_dealer,
                                         deck_orders=[seed_deck(opts, seed, 0)])
            assert msgspec.structs.replace(slow, dealt_decks=()) == fast
            assert slow_events == fast_events


def _random_walk(opts: Options, seed: int) -> list[tuple[GameState, list[Move]]]:
    rng = random.Random(seed)
    state, _ = new_game(opts, seed=seed)
    seen: list[tuple[GameState, list[Move]]] = []
    while state.to_act is not None and len(seen) < 400:
        moves = list(legal_moves(state))
        seen.append((state, moves))
        state, _ = apply_move(state, moves[rng.randrange(len(moves))])
    return seen


@pytest.mark.parametrize("opts", VARIANTS, ids=lambda o: msgspec.json.encode(o).decode()[:60])
def test_play_memos_give_fresh_answers(opts: Options) -> None:
    """The legal moves of a state reached through the play's memos equal those of the same state decoded afresh
    (a new object, so no memo applies), and applying each gives equal states and events."""
    enc, dec = msgspec.msgpack.Encoder(), msgspec.msgpack.Decoder(GameState)
    for seed in range(6):
        for state, moves in _random_walk(opts, seed):
            copy = dec.decode(enc.encode(state))
            assert list(legal_moves(copy)) == moves
            move = moves[seed % len(moves)]
            legal_moves(state)
            assert apply_move(state, move) == apply_move(dec.decode(enc.encode(state)), move)


def test_a_rejected_word_has_seven_high_bytes_of_ones() -> None:
    """The shuffle compares its words with their limits only when seven 0xFF bytes occur in the stream: sound,
    as every word at or above its limit (2**64 - 2**64 % n, n < 128) starts with seven 0xFF bytes."""
    for n in range(2, 128):
        assert _LIMITS[n] == 2**64 - 2**64 % n
        assert _LIMITS[n].to_bytes(9, "big")[:8] in (b"\x00" + b"\xff" * 7, b"\x01" + b"\x00" * 7)


@pytest.mark.parametrize("label", ["dealer", "cut", "deal/0"])
def test_first_below_equals_the_stream(label: str) -> None:
    for seed in range(300):
        for n in (2, 3, 4, 5, 6, 7, 64, 127, 2**63 + 5):
            assert first_below(seed, label, n) == SeedStream(seed, label).below(n)


def _reference_winner(cards: tuple[str, ...], nominate: str | None, table: Strain) -> int:
    """The trick's winner as RULES.md 1.10.3 words it, one card at a time: the general rule the ranks shortcut."""
    suit_of, power, trump = table.suit, table.power, table.trump
    led = suit_of[cards[0]] or nominate
    best_i, best_p = 0, -1000
    for i, c in enumerate(cards):
        s = suit_of[c]
        may_win = i == 0 or s == led or (trump is not None and s == trump) or (s is None and power[c] > 0)
        if may_win and power[c] > best_p:
            best_i, best_p = i, power[c]
    return best_i


@pytest.mark.parametrize("opts", VARIANTS, ids=lambda o: msgspec.json.encode(o).decode()[:60])
def test_trick_winner_by_ranks_equals_the_card_by_card_rule(opts: Options) -> None:
    """:func:`engine.tricks.trick_winner_index` (each card's rank for the led suit) against the card-by-card rule,
    on random tricks of every contract shape the variant's pack allows, jokers led with and without a suit."""
    rng = random.Random(opts.players)
    pack = pack_for(opts)
    for bid in ("6S", "7C", "8D", "9H", "10NT", "MISERE", "OPEN_MISERE", None):
        for nominations in ((), tuple((j, rng.choice("SCDH")) for j in pack if j in JOKERS)[:1]):
            table = hand_strain(opts, bid, nominations)
            for size in range(1, 7):
                for _ in range(60):
                    cards = tuple(rng.sample(pack, size))
                    for nominate in (None, rng.choice("SCDH")):
                        assert trick_winner_index(cards, nominate, table) == _reference_winner(cards, nominate, table)


@pytest.mark.parametrize("opts", VARIANTS, ids=lambda o: msgspec.json.encode(o).decode()[:60])
def test_legal_follows_equal_follow_cards(opts: Options) -> None:
    """A follower's legal plays (the fast paths: the led suit held; void with no joker forced) are exactly the
    cards :func:`engine.play.follow_cards` allows, in hand order."""
    for seed in range(6):
        for state, moves in _random_walk(opts, seed):
            if state.phase == "play" and state.trick is not None:
                assert state.to_act is not None
                table = strain_of(state)
                led = trick_led_suit(state.trick, table)
                hand = state.hands[state.to_act]
                assert [m.card for m in moves if isinstance(m, Play)] == follow_cards(state, hand, led, table)
                assert all(isinstance(m, Play) and m.nominate is None for m in moves)


@pytest.mark.parametrize("opts", VARIANTS, ids=lambda o: msgspec.json.encode(o).decode()[:60])
def test_cards_are_one_object_each(opts: Options) -> None:
    """The pack's cards, :data:`engine.cards.ALL_CARDS` and the strain tables' keys hold one string object per
    card (the interning the tables' lookups rely on to match by identity first)."""
    canonical = {c: c for c in ALL_CARDS}
    pack = pack_for(opts)
    assert all(canonical[c] is c for c in pack)
    for bid in ("6S", "7NT", "MISERE", None):
        table = hand_strain(opts, bid, ())
        assert all(canonical[c] is c for c in table.suit)
    state, _ = new_game(opts, seed=3)
    assert all(canonical[c] is c for hand in state.hands for c in hand)


def test_next_seats_equal_seat_after() -> None:
    """:func:`engine.play.next_seats` (memoised, found by identity first) against :func:`engine.tricks.seat_after`,
    for every set of two or more seats of up to six, each asked as a new tuple and as the one just asked."""
    for players in range(2, 7):
        for size in range(2, players + 1):
            for active in itertools.combinations(range(players), size):
                for fresh in (tuple(list(active)), active, active):
                    nexts = next_seats(fresh)
                    assert [nexts[s] for s in active] == [seat_after(active, s, 1) for s in active]
                    assert all(nexts[s] == -1 for s in range(len(nexts)) if s not in active)


@pytest.mark.parametrize("opts", VARIANTS, ids=lambda o: msgspec.json.encode(o).decode()[:60])
def test_a_listed_discard_applies_as_the_checked_discard_does(opts: Options) -> None:
    """A discard read off the exchange's legal moves, applied to that very state, skips the check and the
    canonical ordering (engine.contract.listed_discard): it gives what the same discard gives to a decoded copy of
    the state (no memo) in any order of its cards, and a move that is equal but names its seat by a ``bool`` or a
    ``float`` gets the answer the copy gets."""
    from engine.model import Discard, DiscardChoices

    enc, dec = msgspec.msgpack.Encoder(), msgspec.msgpack.Decoder(GameState)
    seen = 0
    for seed in range(12):
        for state, _ in _random_walk(opts, seed):
            if state.phase != "exchange":
                continue
            choices = legal_moves(state)
            assert isinstance(choices, DiscardChoices)
            for i in sorted({0, len(choices) // 2, len(choices) - 1, seed % len(choices)}):
                move = choices[i]
                legal_moves(state)  # the listing again: the move was read off the previous one
                fresh = dec.decode(enc.encode(state))
                expected = apply_move(fresh, Discard(seat=move.seat, cards=tuple(reversed(move.cards))))
                assert apply_move(state, move) == expected
                assert apply_move(state, legal_moves(state)[i]) == expected
                bad = Discard(seat=bool(move.seat) if move.seat in (0, 1) else move.seat + 0.0,  # type: ignore[arg-type]
                              cards=move.cards)
                assert _outcome(state, bad) == _outcome(fresh, bad)
                seen += 1
    assert seen > 0


@pytest.mark.parametrize("opts", VARIANTS, ids=lambda o: msgspec.json.encode(o).decode()[:60])
def test_the_play_fields_memo_answers_as_a_fresh_state(opts: Options) -> None:
    """The legal plays of the state the last play returned (its fields taken from engine.play's memo, not read)
    equal those of a decoded copy, for the seat to act and when asked for another seat; a play equal to a legal
    one but naming its seat by a ``bool`` gets the answer the copy gets."""
    enc, dec = msgspec.msgpack.Encoder(), msgspec.msgpack.Decoder(GameState)
    for seed in range(6):
        rng = random.Random(seed)
        state, _ = new_game(opts, seed=seed)
        while state.to_act is not None:
            moves = legal_moves(state)
            move = moves[rng.randrange(len(moves))]
            state, _ = apply_move(state, move)
            if state.phase != "play" or state.to_act is None:
                continue
            fresh = dec.decode(enc.encode(state))
            for seat in range(len(state.hands)):
                assert list(legal_moves(state, seat)) == list(legal_moves(fresh, seat))
            assert list(legal_moves(state)) == list(legal_moves(fresh))
            first = legal_moves(state)[0]
            if isinstance(first, Play) and first.seat in (0, 1):
                odd = Play(seat=bool(first.seat), card=first.card, nominate=first.nominate)
                assert _outcome(state, odd) == _outcome(fresh, odd)


def _outcome(state: GameState, move: Move) -> object:
    """What applying ``move`` gives: the new state and events, the rejection's reason, or a ``TypeError``. (A seat
    named by a ``bool`` is refused by the pure engine and read as the ``int`` by the compiled one, which types seats
    as ``int`` and raises ``TypeError`` for a ``float``: either way the memoised and the general path must agree.)"""
    from engine import IllegalMove

    try:
        return apply_move(state, move)
    except IllegalMove as exc:
        return exc.rejection.reason
    except TypeError:
        return TypeError


@pytest.mark.parametrize("opts", VARIANTS[:12])
def test_a_discard_in_pack_order_is_its_own_canonical_form_and_any_other_is_sorted(opts: Options) -> None:
    """``canonical_move`` answers a discard already in pack order with the move itself, without sorting it; any
    other (out of order, or with tokens the pack does not have) is the sorted form, as
    the general code sorts it."""
    from engine.deal import pack_index
    from engine.game import canonical_move
    from engine.model import Discard

    index = pack_index(opts)
    last = len(index)
    rng = random.Random(f"canonical-{opts.players}")
    pack = list(pack_for(opts))
    for _ in range(2000):
        cards = rng.sample(pack, rng.randint(0, 5))
        if rng.random() < 0.2:
            cards.append(rng.choice(["ZZ", "1S", "JK2"]))
        if rng.random() < 0.5:
            cards.sort(key=lambda c: index.get(c, last))
        move = Discard(seat=rng.randrange(opts.players), cards=tuple(cards))
        general = tuple(sorted(move.cards, key=lambda c: index.get(c, last)))
        answer = canonical_move(move, opts)
        assert isinstance(answer, Discard) and answer.cards == general and type(answer.cards) is tuple
        assert (answer is move) == (move.cards == general)
