"""The expert's search economies (bots/expert.py, bots/knowledge.py): they save work without changing what is
computed, or drop only candidates the deals already rule out."""

from __future__ import annotations

import random
import statistics
from collections import Counter

from bots import decide
from bots.basic import decide_basic, helper_tricks, own_tricks
from bots.cardplay import HandInPlay, choose_card, outstanding_tops
from bots.expert import (
    DEFAULT_BUDGET,
    INTERMEDIATE_BIDS,
    PHASE_BUDGETS,
    PRUNE_EVERY,
    PRUNE_FROM,
    WORTH_MARGIN,
    _play_out,
    _teams,
    candidates,
    choose,
    default_budget,
    futile,
    indifferent,
    prune,
    search_outcomes,
    settled,
)
from bots.knowledge import Knowledge, deal_unseen
from bots.value import hand_value
from engine import Bid, Discard, GameState, Options, apply_move, legal_moves, new_game, view
from engine.cards import Strain
from engine.game import canonical_move
from engine.model import HandScored, Trick
from engine.playout import Playout
from engine.rules import MISERE_BIDS, bid_level, bid_strain
from service.referee.suggestions import playouts_asked
from tests.bots.states import random_states
from tests.engine.helpers import S, calls, opts, start


def reference_play_out(state: GameState, seat: int) -> float:
    """The playout as it was written first: each seat's outstanding cards are the others' hands, rescanned."""
    game = Playout(state)
    table = game.table
    teams = _teams(state)
    c = state.contract
    while not game.over:
        actor = game.to_act
        hand = game.hands[actor]
        cards = game.legal_cards()
        trick = game.cards
        others = [x for s in game.active if s != actor for x in game.hands[s]]
        card = choose_card(HandInPlay(table, c.bid if c else None, c.contractor if c else None, game.active),
                           actor, hand, cards, Trick(game.leader, tuple(trick), game.nominate) if trick else None,
                           teams[actor], outstanding_tops(others, table))
        nominate = None
        if not trick and table.suit[card] is None:
            suits = game.lead_suits(card)
            nominate = suits[0] if len(suits) == 1 else max(suits, key=lambda x: sum(
                1 for y in hand if table.suit[y] == x))
        game.play(card, nominate)
    deltas, seats, made = game.score()
    return hand_value(state.scores, deltas, seats, made, state.options, seat)


def test_the_playout_with_kept_top_cards_plays_as_the_rescanning_one() -> None:
    checked = 0
    for players in (3, 4, 5, 6, "ghosts"):
        for _opts, state in random_states(players, games=6, seed=5, every=3):
            if state.phase != "play" or state.to_act is None:
                continue
            assert _play_out(state, state.to_act)[0] == reference_play_out(state, state.to_act)
            checked += 1
    assert checked > 50


def test_a_deal_without_voids_is_uniform_and_fills_every_place() -> None:
    for _opts, state in random_states(4, games=8, seed=2):
        if state.phase == "auction" and state.to_act is not None:
            break
    know = Knowledge(view(state, state.to_act), state.options)
    assert not any(know.voids.values())
    card = know.unseen[0]
    where: Counter[int] = Counter()
    rng = random.Random(1)
    for _ in range(3000):
        placed = deal_unseen(know, rng)
        assert {p: len(cs) for p, cs in placed.items()} == know.slots
        assert sorted(x for cs in placed.values() for x in cs) == sorted(know.unseen)
        where[next(p for p, cs in placed.items() if card in cs)] += 1
    total = sum(know.slots.values())
    for place, size in know.slots.items():
        assert abs(where[place] / 3000 - size / total) < 0.03


def test_prune_drops_a_candidate_another_clearly_beats_and_keeps_the_basic_move() -> None:
    rng = random.Random(4)
    noise = [rng.gauss(0, 30) for _ in range(16)]
    basic = [x - 40 for x in noise]  # clearly worse than the second: kept all the same
    good = list(noise)
    bad = [x - 45 + rng.gauss(0, 5) for x in noise]  # clearly worse than ``good``
    close = [x + rng.gauss(0, 30) for x in noise]  # level with ``good`` within the noise
    assert prune([basic, good, bad, close], [0, 1, 2, 3]) == [0, 1, 3]
    assert prune([good, close], [5, 9]) == [5, 9]


def test_pruned_candidates_give_their_deals_to_the_others_and_a_settled_search_stops() -> None:
    pruned = reallocated = stopped = 0
    for _opts, state in random_states(4, games=6, seed=9, every=4):
        if state.phase != "play" or state.to_act is None or len(legal_moves(state)) < 3:
            continue
        know = Knowledge(view(state, state.to_act), state.options)
        move, found, playouts, deals = search_outcomes(know, legal_moves(state), random.Random(0), 128)
        assert playouts == sum(n for *_rest, n in found) <= 128
        # A candidate is dropped only at a check; the basic move (first) and the one played see every deal.
        assert all(n == deals or (n >= PRUNE_FROM and n % PRUNE_EVERY == 0) for *_rest, n in found)
        assert found[0][3] == deals and move in [m for m, *_rest in found if _rest[-1] == deals]
        survivors = [n for *_rest, n in found if n == deals]
        # (Candidates pruned at the last check saw every deal too: survivors may count more than were left.)
        if playouts + len(survivors) <= 128:  # budget left: only a settled choice, at a check, stops the search
            stopped += 1
            assert deals >= PRUNE_FROM and deals % PRUNE_EVERY == 0
        pruned += playouts < deals * len(found)
        reallocated += deals > 128 // len(found)
    assert pruned > 0 and reallocated > 0 and stopped > 0


def test_choose_leaves_the_basic_move_only_for_a_clear_gain_then_takes_the_best_average() -> None:
    rng = random.Random(6)
    noise = [rng.gauss(0, 30) for _ in range(64)]
    basic = list(noise)
    steady = [x + 30 for x in noise]  # beats the basic move by 30 on every deal: a tight margin
    swings = [x + 40 + rng.gauss(0, 60) for x in noise]  # beats it by about 40 on average, widely spread
    wild = [x + (560 if i % 2 else -460) for i, x in enumerate(noise)]  # +50 on average, within its noise

    def gain(values: list[float]) -> tuple[float, float]:
        diffs = [a - b for a, b in zip(values, basic, strict=True)]
        return statistics.mean(diffs), statistics.stdev(diffs) / 8  # mean and standard error (64 deals)

    (steady_mean, steady_se), (swings_mean, swings_se), (wild_mean, wild_se) = map(gain, (steady, swings, wild))
    assert steady_mean - steady_se > 0 and swings_mean - swings_se > 0 and wild_mean - wild_se <= 0
    assert wild_mean > swings_mean > steady_mean and swings_mean - swings_se < steady_mean - steady_se
    # Both steady and swings clear the basic move: the higher mean is played, not the higher lower bound.
    assert choose([basic, steady, swings]) == 2
    assert choose([basic, swings, steady]) == 1
    assert choose([basic, steady]) == 1
    # A gain within its own noise never displaces the basic move, nor outranks a clear one, however high its mean.
    assert choose([basic, wild]) == 0
    assert choose([basic, steady, swings, wild]) == 2
    assert choose([basic, [x - 5 for x in noise]]) == 0  # worse on every deal


def test_futile_drops_the_candidates_that_trail_the_basic_move_by_the_phase_s_margin() -> None:
    rng = random.Random(7)
    basic = [rng.gauss(0, 30) for _ in range(16)]
    swing = [20.0 if i % 2 else -20.0 for i in range(16)]  # the paired differences' spread: a standard error of 5.2
    ahead = [x + 3 + d for x, d in zip(basic, swing, strict=True)]  # leads on average, not clearly
    behind = [x - 3 + d for x, d in zip(basic, swing, strict=True)]  # trails by about half a standard error
    far_behind = [x - 30 + d for x, d in zip(basic, swing, strict=True)]  # trails by about six
    # Trailing at all (the card play's margin, 0) ...
    assert futile([basic, ahead, behind, far_behind], [0, 1, 2, 3], 0.0) == [0, 1]
    # ... or by more than a standard error (the auction's and the setup's).
    assert futile([basic, ahead, behind, far_behind], [4, 5, 6, 7], 1.0) == [4, 5, 6]
    # The basic move stays whatever it trails.
    assert futile([far_behind, basic], [0, 1], 0.0) == [0, 1]


def test_indifferent_when_no_candidate_can_beat_the_basic_move_by_more_than_the_margin() -> None:
    rng = random.Random(8)
    noise = [rng.gauss(0, 30) for _ in range(64)]
    basic = list(noise)
    level = [x + rng.gauss(0, 0.5) for x in noise]  # the same within half a point on every deal
    worse = [x - 10 for x in noise]
    unsure = [x + rng.gauss(0, 40) for x in noise]  # level on average, but could be worth much more
    slightly_better = [x + 4 for x in noise]  # surely better, by more than the margin
    assert indifferent([basic, level]) and indifferent([basic, level, worse])
    assert not indifferent([basic, unsure])
    assert not indifferent([basic, level, slightly_better])
    assert indifferent([basic])


def test_an_early_stop_spends_less_and_chooses_a_move_the_full_search_values_about_as_much() -> None:
    """The futility and indifference stops (``bots.expert.futile``, ``indifferent``) on card-play positions: they
    spend well under the full search's playouts on these positions (56% here), and the moves they choose are worth,
    by the full search's own values, within a few points of its choice."""
    from bots import expert

    saved = []
    for _opts, state in random_states(4, games=10, seed=9, every=5):
        if state.phase != "play" or state.to_act is None or len(legal_moves(state)) < 2:
            continue
        know = Knowledge(view(state, state.to_act), state.options)
        early, _found, spent, _deals = search_outcomes(know, legal_moves(state), random.Random(0), 256)
        kept = expert.FUTILE_FROM, expert.INDIFFERENT
        try:
            expert.FUTILE_FROM, expert.INDIFFERENT = 1 << 30, float("-inf")
            full, found, full_spent, _deals = search_outcomes(know, legal_moves(state), random.Random(0), 256)
        finally:
            expert.FUTILE_FROM, expert.INDIFFERENT = kept
        if not found:  # one candidate: no search
            continue
        values = {m: v for m, v, _share, _n in found}
        assert spent <= 256
        assert values[full] - values[early] < 15.0
        saved.append((spent, full_spent))
    assert len(saved) >= 10
    assert sum(s for s, _ in saved) < 0.65 * sum(f for _, f in saved)


def test_settled_means_one_candidate_left_or_the_basic_move_clearly_beaten() -> None:
    rng = random.Random(5)
    noise = [rng.gauss(0, 30) for _ in range(16)]
    assert settled([noise])
    assert settled([[x - 60 for x in noise], noise])  # the other beats the basic move: choose would take it
    assert not settled([noise, [x + rng.gauss(0, 30) for x in noise]])  # level within the noise
    assert not settled([noise, [x - 60 for x in noise]])  # the basic move ahead: pruning, not this, drops the other
    assert not settled([[x - 60 for x in noise], noise, noise])  # three left


def test_the_discards_searched_are_distinct_sets_of_cards_led_by_the_basic_one() -> None:
    checked = 0
    for players in (2, 4, 6):
        options = Options(players=players)  # type: ignore[arg-type]
        for seed in range(12):
            state, _ = new_game(options, seed=seed)
            while state.phase not in ("exchange", "play") and state.to_act is not None:
                state, _ = apply_move(state, decide(view(state, state.to_act), options, level="basic").move)
            if state.phase != "exchange" or state.to_act is None:
                continue
            know = Knowledge(view(state, state.to_act), options)
            cands = candidates(know, [])
            sets = [frozenset(m.cards) for m in cands if isinstance(m, Discard)]
            assert len(sets) == len(cands) == len(set(sets))
            assert cands[0] == canonical_move(decide_basic(know, []), options)
            assert all(canonical_move(m, options) is m for m in cands)  # in pack order, as the playouts apply them
            checked += 1
    assert checked > 20


def test_the_auction_searches_the_cheapest_bid_and_the_dearer_ones_around_the_basic_one() -> None:
    options = opts(2)
    state = start(options, {0: ["JH", "JD", "AH", "KH", "10H", "9H", "AS", "KS", "7C", "8C"]}, dealer=1)
    know = Knowledge(view(state, 0), options)
    basic = decide_basic(know, legal_moves(state))
    assert isinstance(basic, Bid) and bid_strain(basic.bid) == "H" and bid_level(basic.bid) > 7
    hearts = [bid_level(m.bid) for m in candidates(know, legal_moves(state))
              if isinstance(m, Bid) and m.bid not in MISERE_BIDS and bid_strain(m.bid) == "H"]
    level = bid_level(basic.bid)
    # The basic bid first, the cheapest, and the dearest few up to a trick above what basic counts the hand worth.
    assert hearts[0] == level and {6, level - 1, level, min(level + 1, 10)} <= set(hearts)
    assert len(hearts) == len(set(hearts)) <= 1 + 1 + INTERMEDIATE_BIDS


def test_the_auction_searches_bids_up_to_two_tricks_above_what_basic_counts_the_hand_worth() -> None:
    """A hand ``basic`` counts at under eight tricks in hearts (and bids 8H on): the search also asks about 9H,
    more than a trick above that count (the expert's side makes more of a hand than ``basic``'s play would), and
    not about 10H."""
    options = opts(2)
    state = start(options, {0: ["JH", "JD", "AH", "KH", "10H", "AS", "KS", "7C", "8C", "9D"]}, dealer=1)
    know = Knowledge(view(state, 0), options)
    assert know.hand is not None
    worth = own_tricks(know.hand, "H", options) + helper_tricks(options)
    basic = decide_basic(know, legal_moves(state))
    assert isinstance(basic, Bid) and basic.bid == "8H" and 7 < worth < 8
    hearts = {m.bid for m in candidates(know, legal_moves(state)) if isinstance(m, Bid)} & {"8H", "9H", "10H"}
    assert hearts == {"8H", "9H"}
    assert worth + 1 < 9 and 9 <= worth + WORTH_MARGIN < 10


def test_the_auction_searches_every_strains_cheapest_bid_when_the_high_bid_would_win_another_side_the_game(
) -> None:
    """East bids 6S. With East-West at 480, making it wins them the game, and South's weak hand is asked about
    the cheapest bid of every strain; with the scores at 100 each, it passes at once."""
    weak = ["9H", "8H", "7H", "QC", "JC", "10S", "9S", "8D", "7D", "6C"]
    searched = {}
    for scores in ((100, 480), (100, 100)):
        state = start(opts(), {S: weak}, scores=scores)
        state, _ = calls(state, "P", "6S")
        know = Knowledge(view(state, S), state.options)
        searched[scores] = [m.bid if isinstance(m, Bid) else None for m in candidates(know, legal_moves(state))]
    assert searched[(100, 100)] == [None]
    assert sorted(searched[(100, 480)], key=str) == sorted([None, "6C", "6D", "6H", "6NT", "7S"], key=str)


def test_the_default_budget_is_larger_in_the_auction_and_a_named_budget_holds_everywhere() -> None:
    options = opts(2)
    state = start(options, {0: ["JH", "JD", "AH", "KH", "10H", "9H", "AS", "KS", "7C", "8C"]}, dealer=1)
    seen = view(state, 0)
    assert PHASE_BUDGETS["auction"] > DEFAULT_BUDGET
    auction = decide(seen, options, level="expert", seed=3, legal=legal_moves(state))
    assert auction.budget == default_budget("auction") == PHASE_BUDGETS["auction"]
    assert 0 < auction.playouts <= auction.budget
    named = decide(seen, options, level="expert", seed=3, budget=40, legal=legal_moves(state))
    assert named.budget == 40 and named.playouts <= 40
    while state.phase != "play":
        state, _ = apply_move(state, decide(view(state, state.to_act), options, level="basic").move)
    play = decide(view(state, state.to_act), options, level="expert", seed=3, legal=legal_moves(state))
    assert play.budget == default_budget("play") == DEFAULT_BUDGET


def test_a_suggestion_without_a_budget_is_charged_the_largest_default_budget() -> None:
    # Charged before its phase is known: enough for a decision in any phase, and no more than the dearest.
    phases = ("auction", "call", "exchange", "nominate", "play")
    assert playouts_asked("expert", None) == max(default_budget(p) for p in phases) == default_budget("auction")
    assert playouts_asked("expert", 40) == 40
    assert playouts_asked("basic", None) == playouts_asked("random", 40) == 0


def test_the_playouts_basic_bid_from_the_state_is_the_basic_bid_from_the_view() -> None:
    """The playouts' auction bids and discards for every seat of a sampled deal from the state's values
    (bots.basic.bid_from_hand and discard_from_hand, through bots.expert._basic_move), without each seat's view:
    the same move the basic bot makes from the view."""
    from bots.expert import _basic_move
    from engine import controller

    checked = exchanges = ghosts = 0
    for players in (2, 3, 4, 5, 6, "ghosts"):
        for options, state in random_states(players, games=40, seed=13):
            if state.phase not in ("auction", "exchange") or state.to_act is None:
                continue
            seat = state.to_act
            knowledge = Knowledge(view(state, controller(options, seat)), options)
            legal = [] if state.phase == "exchange" else legal_moves(state)
            assert _basic_move(state) == decide_basic(knowledge, legal), (players, state.auction)
            checked += 1
            exchanges += state.phase == "exchange"
            ghosts += players == "ghosts"
    assert checked > 300 and exchanges > 20 and ghosts > 50, (checked, exchanges, ghosts)


def test_the_auction_searches_misere_on_a_hand_that_is_one_after_its_discard() -> None:
    """After 7S: low cards with the joker and two aces beside them are a misère hand once those three are discarded
    (the search asks about misère), not with two more high cards beside them."""
    from bots.basic import misere_danger
    from bots.sampling import kept_misere_danger

    asked = {}
    for name, hand in (("discardable", ["JK", "AS", "AC", "4H", "5H", "6S", "5S", "5C", "4D", "6D"]),
                       ("too high", ["JK", "AS", "AC", "KD", "QH", "6S", "5S", "5C", "4D", "6D"])):
        state = start(opts(), {S: hand})
        state, _ = calls(state, "P", "7S")
        know = Knowledge(view(state, S), state.options)
        asked[name] = any(isinstance(m, Bid) and m.bid == "MISERE" for m in candidates(know, legal_moves(state)))
        if name == "discardable":
            assert misere_danger(hand, state.options) > 1 and kept_misere_danger(hand, state.options) == 0
    assert asked == {"discardable": True, "too high": False}


def test_candidates_that_reach_the_same_card_play_on_a_deal_share_it_and_get_the_same_outcomes() -> None:
    """The card plays shared between the candidates of one sampled deal (``played`` of bots.expert.outcome_of):
    every candidate's outcome is the one it gets alone, in auctions and setups of every player count, and some
    candidates do share a card play."""
    from bots.expert import CardPlays, _to_card_play, outcome_of
    from bots.inference import read_auction, sample
    from tests.bots.states import mover

    compared = shared = 0
    for players in (2, 3, 4, 5, 6, "ghosts"):
        for options, state in random_states(players, games=12, seed=17, every=3):
            if state.phase not in ("auction", "exchange", "call") or state.to_act is None:
                continue
            know = Knowledge(view(state, mover(state)), options)
            legal = [] if state.phase == "exchange" else legal_moves(state)
            cands = candidates(know, legal)
            if len(cands) < 2:
                continue
            rng = random.Random(compared)
            deal = sample(know, rng, read_auction(know))
            played: CardPlays = {}
            reached = 0  # candidates whose playout reaches a card play (not scored or thrown in before it)
            for move in cands:
                assert outcome_of(deal, move, know.seat, None, played) == outcome_of(deal, move, know.seat)
                compared += 1
                after, events = apply_move(deal, move)
                if after.hand_number == deal.hand_number and not any(isinstance(e, HandScored) for e in events):
                    reached += _to_card_play(after)[0] is not None
            shared += reached - len(played)
    assert compared > 150 and shared > 10, (compared, shared)


def _reference_discard(opts: Options, hand: list[str], k: int, table: object) -> list[str]:
    """``bots.basic.discard_from_hand`` for a contract other than misère, as first written: each card's keep score
    from its suit's order in the strain, the lowest thrown one at a time."""
    from bots.basic import _suit_order

    suit_of, power, trump = table.suit, table.power, table.trump  # type: ignore[attr-defined]
    out: list[str] = []
    keep = list(hand)
    for _ in range(k):
        lengths: dict[str | None, int] = {}
        for x in keep:
            lengths[suit_of[x]] = lengths.get(suit_of[x], 0) + 1

        def keep_score(x: str, lengths: dict[str | None, int] = lengths) -> float:
            s = suit_of[x]
            if s is None or s == trump:
                return 1000.0 + power[x]
            order = _suit_order(opts, "NT" if trump is None else trump, s)
            rank = order.index(x) if x in order else 0
            top = 200.0 if rank == 0 else (60.0 if rank == 1 and lengths[s] >= 2 else 0.0)
            return top + 5.0 * lengths[s] - rank

        worst = min(keep, key=keep_score)
        keep.remove(worst)
        out.append(worst)
    return out


def test_the_discard_by_keep_scores_is_the_one_first_written_on_random_hands() -> None:
    from bots.basic import discard_from_hand
    from engine.deal import pack_for
    from engine.rules import hand_strain
    from tests.engine.randomplay import random_options

    rng = random.Random(23)
    checked = 0
    for players in (2, 3, 4, 5, 6):
        for _ in range(60):
            options = random_options(rng, players)  # type: ignore[arg-type]
            pack = list(pack_for(options))
            for strain in ("S", "C", "D", "H", "NT"):
                bid = f"{rng.choice((6, 7, 8, 9, 10))}{strain}"
                table = hand_strain(options, bid, ())
                hand = rng.sample(pack, rng.randint(10, 16))
                k = rng.randint(1, min(6, len(hand) - 1))
                assert discard_from_hand(options, hand, k, bid, table) == _reference_discard(options, hand, k, table)
                checked += 1
    assert checked == 1500


def _reference_misere_discard(hand: list[str], k: int, table: Strain) -> list[str]:
    """``bots.basic.discard_from_hand`` for misère as first written: the riskiest card of those kept, one at a
    time (a high free joker first, a low one last, then :func:`bots.cardplay.misere_risk` over the cards kept)."""
    from bots.cardplay import misere_risk
    from engine.tricks import free_joker, high_free_joker

    def joker_order(card: str) -> int:
        return 0 if not free_joker(card, table) else 1 if high_free_joker(card, table) else -1

    kept = list(hand)
    thrown: list[str] = []
    for _ in range(k):
        worst = max(kept, key=lambda x: (joker_order(x), misere_risk(x, kept, table)))
        kept.remove(worst)
        thrown.append(worst)
    return thrown


def test_the_misere_discard_over_bits_is_the_one_first_written_on_random_hands() -> None:
    from bots.basic import discard_from_hand
    from engine.deal import pack_for
    from engine.rules import hand_strain
    from tests.engine.randomplay import random_options

    rng = random.Random(29)
    checked = 0
    for players in (2, 3, 4, 5, 6):
        for _ in range(100):
            options = random_options(rng, players)
            pack = list(pack_for(options))
            for bid in sorted(MISERE_BIDS):
                table = hand_strain(options, bid, ())
                hand = rng.sample(pack, rng.randint(10, 16))
                if rng.random() < 0.5:  # a hand with a joker: a free joker, high or low, goes first or last
                    jokers = [c for c in pack if table.suit[c] is None and c not in hand]
                    if jokers:
                        hand[rng.randrange(len(hand))] = jokers[0]
                k = rng.randint(1, min(6, len(hand) - 1))
                assert discard_from_hand(options, hand, k, bid, table) == _reference_misere_discard(hand, k, table), \
                    (options, hand, k, bid)
                checked += 1
    assert checked == 5 * 100 * len(MISERE_BIDS)
