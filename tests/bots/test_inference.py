"""Inference about the unseen hands (bots/inference.py): sampled deals agree with the other seats' calls."""

from __future__ import annotations

import random
import statistics

from bots import decide
from bots.basic import own_tricks
from bots.inference import placeable, read_auction, read_plays, sample
from bots.knowledge import Knowledge, determinize
from engine import GameState, Play, apply_move, legal_moves, new_game, view
from tests.engine.helpers import E, N, S, W, calls, opts, play, setup, start


def knowledge_of(state: GameState, seat: int) -> Knowledge:
    return Knowledge(view(state, seat), state.options)


def strength(states: list[GameState], seat: int, strain: str) -> float:
    return statistics.fmean(own_tricks(s.hands[seat], strain, s.options) for s in states)


def test_a_bidder_is_dealt_a_hand_worth_its_bid() -> None:
    state = start(opts(), {S: ["9S", "6S", "8C", "5C", "7D", "5D", "4D", "9H", "7H", "5H"]}, dealer=W)
    state, _ = calls(state, "P", "8H")  # North passes, East bids eight hearts; South to call
    know = knowledge_of(state, S)
    evidence = read_auction(know)
    bounds = {(b.seat, b.strain): b for b in evidence.bounds}
    assert bounds[(E, "H")].low is not None and (N, "H") in bounds and bounds[(N, "H")].high is not None
    uniform = [determinize(know, random.Random(i)) for i in range(60)]
    inferred = [sample(know, random.Random(i), evidence) for i in range(60)]
    assert strength(inferred, E, "H") > strength(uniform, E, "H") + 1.0
    assert strength(inferred, N, "S") < strength(uniform, N, "S")  # North passed: weaker than a random hand
    low = bounds[(E, "H")].low
    assert low is not None
    fits = sum(own_tricks(s.hands[E], "H", s.options) >= low for s in inferred)
    assert fits > sum(own_tricks(s.hands[E], "H", s.options) >= low for s in uniform)


def test_a_pass_over_partners_bid_says_nothing() -> None:
    state = start(opts(), {E: ["9S", "6S", "8C", "5C", "7D", "5D", "4D", "9H", "7H", "5H"]}, dealer=W)
    state, _ = calls(state, "7S", "P", "P")  # North bids, East passes, South (North's partner) passes
    evidence = read_auction(knowledge_of(state, W))
    assert {b.seat for b in evidence.bounds if b.high is not None} == {E}
    assert {(b.seat, b.strain) for b in evidence.bounds if b.low is not None} == {(N, "S")}


def test_sampling_is_driven_by_the_rng_alone() -> None:
    state = start(opts(), {S: ["9S", "6S", "8C", "5C", "7D", "5D", "4D", "9H", "7H", "5H"]}, dealer=W)
    state, _ = calls(state, "P", "8H")
    know = knowledge_of(state, S)
    evidence = read_auction(know)
    assert sample(know, random.Random(7), evidence) == sample(know, random.Random(7), evidence)


def test_a_seat_that_plays_under_the_winner_lacks_the_lower_cards_of_the_suit() -> None:
    hands = {N: ["AH", "KH", "QH", "JS", "AS", "KS", "QS", "10S", "9S", "8S"],
             E: ["9H", "5H", "AC", "KC", "QC", "JC", "10C", "AD", "KD", "QD"],
             S: ["4H", "6H", "9C", "8C", "7C", "6C", "5C", "JD", "10D", "9D"]}
    state = setup(opts(), hands, "7S", contractor=N)
    state, _ = play(state, "AH", "9H", "4H", None)  # East plays under the ace although it holds the five
    evidence = read_auction(knowledge_of(state, S))
    assert {"5H", "7H", "8H"} <= evidence.lacks[E] and not evidence.lacks[E] & {"4H", "6H", "10H", "JH"}
    know = knowledge_of(state, S)
    for i in range(20):
        assert not set(sample(know, random.Random(i), evidence).hands[E]) & evidence.lacks[E]
    state, _ = play(state, "KH", "5H", "6H", None)  # East plays the five after all: its plays are not read
    assert E not in read_auction(knowledge_of(state, S)).lacks


def test_a_seat_that_does_not_take_another_sides_trick_when_it_could_lacks_the_cards_that_would() -> None:
    hands = {N: ["AC", "9C", "AS", "KS", "QS", "10S", "9S", "8S", "7S", "6S"],
             E: ["7C", "6C", "5C", "KH", "QH", "JH", "10H", "9H", "8H", "7H"],
             S: ["KC", "QC", "10C", "AD", "KD", "QD", "JD", "10D", "9D", "8D"],
             W: ["8C", "6H", "5H", "4H", "AH", "7D", "6D", "5D", "4D", "5S"]}
    state = setup(opts(), hands, "7S", contractor=N)
    state, _ = play(state, "9C")
    # Second to play, East follows low under North's nine: by the standard policy it holds no club that no one
    # can beat (the ace), or it would have taken the trick with it; so far nothing is read of a higher club.
    state, _ = play(state, "5C", "KC")
    lacks = read_plays(knowledge_of(state, S))
    assert "AC" in lacks[E] and "AC" in read_plays(knowledge_of(state, W))[E]
    # Last to play under South's king (another side's card), West holds no club that beats it.
    state, _ = play(state, "8C")
    lacks = read_plays(knowledge_of(state, S))
    assert "AC" in lacks[W] and not {"JC", "QC", "10C"} & lacks[W]
    assert not set(state.hands[W]) & lacks[W] and not set(state.hands[E]) & lacks[E]


def test_a_seat_that_leads_below_the_best_card_of_its_suit_holds_the_best_card_of_no_plain_suit() -> None:
    hands = {E: ["7D", "KC", "QC", "9C", "8C", "KH", "QH", "AS", "KS", "QS"],
             S: ["6D", "5D", "4D", "10C", "7C", "6C", "10H", "9H", "8H", "7H"],
             W: ["AD", "KD", "QD", "JD", "10D", "9D", "8D", "6H", "5H", "4H"],
             N: ["AC", "AH", "JC", "10S", "9S", "8S", "7S", "6S", "5S", "5C"]}
    state = setup(opts(), hands, "7S", contractor=E)
    state, _ = play(state, "7D")
    lacks = read_plays(knowledge_of(state, W))
    assert {"AC", "AH"} <= lacks[E] and not {"KC", "KH", "KD"} & lacks[E]
    assert "AD" in read_plays(knowledge_of(state, N))[E]  # (North holds the other two)
    # A lead of the best card left in its suit says nothing of the other suits.
    state, _ = play(state, "4D", "AD", "5C", "KD")  # West takes the trick and leads the best diamond left
    assert "AH" not in read_plays(knowledge_of(state, N)).get(W, frozenset())


def test_what_the_plays_say_holds_when_every_seat_plays_the_standard_policy() -> None:
    read = 0
    for players, seed in ((4, 1), (4, 2), (4, 3), (3, 1), (5, 1), (5, 2), (6, 1), (2, 1)):
        options = opts(players)
        state, _ = new_game(options, seed=seed)
        while state.to_act is not None and state.hand_number < 2:
            if state.phase == "play":
                for seat in range(players):
                    for other, cards in read_plays(knowledge_of(state, seat)).items():
                        read += len(cards)
                        assert not set(cards) & set(state.hands[other]), (players, seed, seat, other)
            state, _ = apply_move(state, decide(view(state, state.to_act), options, level="basic").move)
    assert read > 100


def test_plays_that_no_deal_can_honour_are_not_read() -> None:
    hands = {N: ["AS", "KS", "QS", "JS", "10S", "9S", "8S", "7S", "6S", "5S"],
             E: ["AH", "KH", "QH", "AC", "KC", "QC", "AD", "KD", "QD", "9H"],
             S: ["4H", "6H", "9C", "8C", "7C", "6C", "5C", "JD", "10D", "9D"]}
    state = setup(opts(), hands, "7S", contractor=N)
    # East, void in trumps, discards its ace of hearts: by the model it holds no lower plain card at all, which
    # leaves it too few cards to hold (only the unseen aces); its plays are not read, rather than fail every deal.
    state, _ = play(state, "AS", "AH")
    know = knowledge_of(state, S)
    lower = {x for x in know.unseen if know.table.suit[x] != "S" and x not in {"AC", "AD"}}
    assert not placeable(know, {E: lower}) and placeable(know, {})
    assert E not in read_plays(know)
    dealt = sample(know, random.Random(3), read_auction(know)).hands[E]
    assert len(dealt) == 9 and all(know.table.suit[x] != "S" for x in dealt)


def test_the_plays_read_can_always_be_honoured_by_some_deal() -> None:
    for players in (6, 2):
        options = opts(players)
        state, _ = new_game(options, seed=4)
        while state.to_act is not None and state.hand_number < 1:
            if state.phase == "play":
                for seat in range(players):
                    know = knowledge_of(state, seat)
                    assert placeable(know, read_plays(know))
            state, _ = apply_move(state, decide(view(state, state.to_act), options, level="basic").move)


def _reads_broken(players: int, seed: int, card_play: str) -> tuple[int, int]:
    """Play one seeded hand with every seat's auction and setup by ``basic`` and its card play by ``card_play``
    (``standard``: bots.cardplay.choose_card, through the basic bot; ``highest``: the highest legal card), and
    count, after every card, the reads of every seat (bots.inference.read_plays) and those that the seats' real
    hands contradict."""
    options = opts(players)
    state, _ = new_game(options, seed=seed)
    read = broken = 0
    while state.to_act is not None and state.hand_number < 2:
        if state.phase == "play":
            for seat in range(players):
                for other, cards in read_plays(knowledge_of(state, seat)).items():
                    read += len(cards)
                    broken += len(set(cards) & set(state.hands[other]))
        move = decide(view(state, state.to_act), options, level="basic").move
        if state.phase == "play" and card_play == "highest":
            table = knowledge_of(state, state.to_act).table
            plays = [m for m in legal_moves(state) if isinstance(m, Play)]
            move = max(plays, key=lambda m: table.power[m.card])
        state, _ = apply_move(state, move)
    return read, broken


def test_the_reading_of_plays_is_tied_to_the_standard_card_play() -> None:
    """bots/inference.py reads plays with bots.cardplay.choose_card as the model of how a seat plays: over many
    hands played by that policy no read is contradicted by a real hand, and the same hands played by another
    policy (the highest legal card) contradict some reads, so neither can change without this test noticing."""
    read = broken = read_other = broken_other = 0
    for players in (3, 4, 5, 6):
        for seed in range(1, 9):
            r, b = _reads_broken(players, seed, "standard")
            read, broken = read + r, broken + b
            r, b = _reads_broken(players, seed, "highest")
            read_other, broken_other = read_other + r, broken_other + b
    assert read > 500 and broken == 0, (read, broken)
    assert read_other > 100 and broken_other > 0, (read_other, broken_other)


def test_a_misere_bidder_is_dealt_a_misere_hand() -> None:
    """A misère bid bounds its bidder's hand too: before its discard, the sampled hands of a seat that bid misère
    hold fewer cards that could be forced to win a trick, once the cards it would discard are set aside, than
    uniform deals give it, and most are misère hands by that count."""
    from bots.inference import MISERE_DANGER, MISERE_KEPT_STRAIN
    from bots.sampling import kept_misere_danger

    state = start(opts(), {S: ["AS", "KS", "QS", "AC", "KC", "AD", "KD", "AH", "KH", "QH"]}, dealer=W)
    state, _ = calls(state, "7S", "MISERE")  # North bids seven spades, East misère; South to call
    know = knowledge_of(state, S)
    evidence = read_auction(know)
    assert any(b.seat == E and b.strain == MISERE_KEPT_STRAIN and b.high == MISERE_DANGER for b in evidence.bounds)
    uniform = [determinize(know, random.Random(i)) for i in range(60)]
    inferred = [sample(know, random.Random(i), evidence) for i in range(60)]

    def danger(states: list[GameState]) -> float:
        return statistics.fmean(kept_misere_danger(s.hands[E], s.options) for s in states)

    assert danger(inferred) < danger(uniform) - 1.0
    assert sum(kept_misere_danger(s.hands[E], s.options) <= MISERE_DANGER for s in inferred) >= 30


def test_a_misere_contractor_that_has_discarded_is_bounded_on_the_hand_it_kept() -> None:
    """Once the misère contractor has discarded, its bound is on the cards it kept (and played), not on a hand it
    could still discard from."""
    from bots.inference import MISERE_DANGER, MISERE_STRAIN

    state = start(opts(), {S: ["AS", "KS", "QS", "AC", "KC", "AD", "KD", "AH", "KH", "QH"]}, dealer=W)
    state, _ = calls(state, "7S", "MISERE", "P", "P", "P")  # East's misère stands
    while state.phase != "play":
        seat = state.to_act
        assert seat is not None
        state, _ = apply_move(state, decide(view(state, seat), state.options, level="basic").move)
    know = knowledge_of(state, S)
    bounds = [b for b in read_auction(know).bounds if b.seat == E]
    assert [(b.strain, b.high) for b in bounds] == [(MISERE_STRAIN, MISERE_DANGER)]
