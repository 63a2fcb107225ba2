"""Positions where the ``expert`` bot, at its default budget, must not go wrong: the blunders players notice.

Each position is reached by real play from a dealt deck (tests/engine/helpers.py builds the deck that deals the
wanted hands), and the expert decides from the seat's view with a fixed seed, so every test is deterministic.
Four players, default options (43 cards: the joker is the highest trump, and free in no trumps and misère).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from bots import Decision, decide
from engine import Bid, Discard, GameState, NominateJoker, Pass, Play, legal_moves, view
from engine.rules import MISERE_BIDS, bid_level, bid_strain, hand_strain
from tests.engine.helpers import E, N, S, W, calls, exchange, opts, play, setup, start
from tests.engine.helpers import move as checked_move

SEEDS = (1, 2, 3)


def expert(state: GameState, seed: int) -> Decision:
    seat = state.to_act
    assert seat is not None
    legal = None if state.phase == "exchange" else legal_moves(state)
    return decide(view(state, seat), state.options, level="expert", seed=seed, legal=legal)


def dealt(hands: Mapping[int, Sequence[str]], **kw: object) -> GameState:
    return start(opts(), hands, dealer=W, **kw)  # type: ignore[arg-type]


def trump_of(state: GameState, card: str) -> bool:
    c = state.contract
    assert c is not None
    table = hand_strain(state.options, c.bid, state.nominations)
    return table.suit[card] == table.trump


# ------------------------------------------------------------------------------------------------ bidding


@pytest.mark.parametrize("seed", SEEDS)
def test_a_weak_hand_passes(seed: int) -> None:
    state = dealt({N: ["9S", "6S", "8C", "5C", "7D", "5D", "4D", "9H", "7H", "5H"]})
    move = expert(state, seed).move
    assert isinstance(move, Pass), move


@pytest.mark.parametrize("seed", SEEDS)
def test_a_cold_contract_is_bid(seed: int) -> None:
    """Five top trumps with the joker and two side aces: at least eight spades is there for the taking."""
    state = dealt({N: ["JK", "JS", "JC", "AS", "KS", "QS", "10S", "AH", "AD", "KD"]})
    move = expert(state, seed).move
    assert isinstance(move, Bid) and move.bid not in MISERE_BIDS, move
    assert bid_strain(move.bid) == "S" and bid_level(move.bid) >= 7, move


@pytest.mark.parametrize("seed", SEEDS)
def test_no_misere_with_high_cards(seed: int) -> None:
    """After 7S, misère is open to the next seat; a hand with the joker and aces must not take it."""
    state = dealt({E: ["JK", "AS", "AC", "KC", "AD", "9D", "5D", "AH", "6H", "5H"]})
    state, _ = calls(state, "7S")
    move = expert(state, seed).move
    assert not (isinstance(move, Bid) and move.bid in MISERE_BIDS), move


@pytest.mark.parametrize("seed", SEEDS)
def test_misere_with_a_misere_hand(seed: int) -> None:
    """The lowest cards of every suit and no joker: after 7S, misère (250) beats anything the hand can make."""
    state = dealt({E: ["5S", "6S", "7S", "5C", "6C", "4D", "5D", "4H", "5H", "6H"]})
    state, _ = calls(state, "7S")
    move = expert(state, seed).move
    assert isinstance(move, Bid) and move.bid in MISERE_BIDS, move


# ------------------------------------------------------------------------------------------------ the joker


@pytest.mark.parametrize("seed", SEEDS)
def test_the_joker_is_nominated_in_the_contractors_long_suit(seed: int) -> None:
    """No trumps: the contractor names the joker's suit before play; its long suit, not a suit it lacks."""
    hands = {N: ["JK", "AH", "KH", "QH", "JH", "10H", "AS", "KS", "AD", "AC"]}
    state = dealt(hands)
    state, _ = calls(state, "8NT", "P", "P", "P")
    state, _ = checked_move(state, Discard(seat=N, cards=tuple(state.kitty)))
    assert state.phase == "nominate"
    move = expert(state, seed).move
    assert isinstance(move, NominateJoker) and move.suit == "H", move


@pytest.mark.parametrize("seed", SEEDS)
def test_the_joker_is_kept_when_partner_already_wins_the_trick(seed: int) -> None:
    """No trumps, the joker free: partner's ace of spades wins the trick; the joker is kept for a trick that
    needs it (only the joker could beat the ace, and this seat holds it)."""
    hands = {N: ["AS", "KS", "QS", "AH", "KH", "QH", "AD", "KD", "QD", "AC"],
             S: ["JK", "9H", "8H", "7H", "9D", "8D", "7D", "9C", "8C", "7C"]}
    state = setup(opts(joker_prenomination=False), hands, "8NT", N, dealer=W, voids={S: "S"})
    state, _ = play(state, "AS", None)
    assert state.to_act == S
    move = expert(state, seed).move
    assert isinstance(move, Play) and move.card != "JK", move


# ------------------------------------------------------------------------------------------------ trumps


@pytest.mark.parametrize("seed", SEEDS)
def test_the_contractor_draws_trumps(seed: int) -> None:
    hands = {N: ["JK", "JS", "JC", "AS", "KS", "AH", "KH", "QH", "AD", "KD"]}
    state = setup(opts(), hands, "8S", N, dealer=W)
    move = expert(state, seed).move
    assert isinstance(move, Play) and trump_of(state, move.card), move


@pytest.mark.parametrize("seed", SEEDS)
def test_no_ruffing_of_partners_winner(seed: int) -> None:
    """Last to play, void in the led suit: partner's ace wins the trick, so a trump would be thrown away."""
    hands = {N: ["4H", "JS", "AS", "KS", "10S", "JC", "5H", "6H", "5D", "4D"],
             E: ["AH", "9C", "8C", "7C", "9D", "8D", "7D", "6C", "6D", "5C"],
             S: ["KH", "QH", "JH", "7S", "6S", "10C", "10D", "9H", "8H", "7H"],
             W: ["QS", "9S", "8S", "AC", "KC", "QC", "AD", "KD", "QD", "JD"]}
    state = setup(opts(), hands, "6S", N, dealer=W)
    state, _ = play(state, "4H", "AH", None)
    assert state.to_act == W and state.trick is not None
    move = expert(state, seed).move
    assert isinstance(move, Play) and not trump_of(state, move.card), move


# ------------------------------------------------------------------------------------------------ misère


@pytest.mark.parametrize("seed", SEEDS)
def test_misere_defence_leads_the_suit_the_contractor_must_win(seed: int) -> None:
    """East's misère hand has one heart, the ace: North, on lead after winning the first trick, leads a heart
    and forces East to win it."""
    hands = {E: ["AH", "5S", "6S", "7S", "5C", "6C", "7C", "4D", "5D", "6D"],
             N: ["4H", "5H", "6H", "AS", "KS", "AC", "KC", "AD", "KD", "QD"]}
    state = start(opts(), hands, dealer=W)
    state, _ = calls(state, "7S", "MISERE", "P", "P", "P")
    assert state.contract is not None and state.contract.contractor == E
    state, _ = exchange(state, discards=tuple(state.kitty))  # East puts the kitty back as it was
    state, _ = play(state, "4D", None, "AD")  # West, East's partner, sits out the misère
    assert state.to_act == N and state.trick is None
    move = expert(state, seed).move
    assert isinstance(move, Play) and move.card.endswith("H"), move


# ------------------------------------------------------------------------------------------------ the kitty


@pytest.mark.parametrize("seed", SEEDS)
def test_the_kitty_discard_keeps_trumps_and_the_joker(seed: int) -> None:
    hands = {N: ["JS", "JC", "AS", "KS", "10S", "AH", "KH", "9D", "5C", "6C"]}
    state = start(opts(), hands, dealer=W, kitty=["JK", "QS", "7D"])
    state, _ = calls(state, "8S", "P", "P", "P")
    assert state.phase == "exchange"
    move = expert(state, seed).move
    assert isinstance(move, Discard), move
    assert not any(card == "JK" or trump_of(state, card) for card in move.cards), move
