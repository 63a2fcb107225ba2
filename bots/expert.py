"""The ``expert`` bot: Perfect Information Monte Carlo search (determinized search, as GIB plays Bridge).

For the seat to act it samples deals of the cards it has not seen among those consistent with its view (its own
hand, every card played, exposed hands, the kitty or its discards where it saw them, and the suits each seat has
shown void in), favouring the deals in which the other seats' hands agree with their bids and passes
(:mod:`bots.inference`). On each sampled deal it tries every candidate move and plays the hand out to its
score, then picks the candidate with the best average. The same sampled deals are used for every candidate
(common random numbers), so differences between candidates are not drowned by the luck of the samples. Every
few deals the search drops a candidate that another already beats clearly on the deals so far (:func:`prune`), or
that trails the ``basic`` move after enough deals (:func:`futile`), and the deals it would have taken go to the
others; once the choice is settled (:func:`settled`), or no candidate left can be worth more than a point or two
above the ``basic`` move (:func:`indifferent`), the search stops. A clear decision spends a fraction of its
budget, and a close one spends it on the candidates that lead.

A playout plays the rest of the hand: the auction (if it is still open) and the setup steps (partner call,
exchange, joker nomination) by the ``basic`` bot deciding from each seat's view of the sampled deal, and the
card play by the standard card-play policy of :mod:`bots.cardplay` with the sampled hands in the open (within a
sampled deal, every seat knows the deal: that is what makes it fast). A playout's value is the seat's side's
score change for the hand minus the average change of the other sides, plus or minus a bonus when the hand ends
the game (:mod:`bots.value`). When few cards are left in the hands
(:data:`bots.endgame.ENDGAME_CARDS`), each sampled deal is not played out but solved exactly by alpha-beta search
(:mod:`bots.endgame`). Each playout also tells whether the seat's side got its way with the contract (made it,
or defeated it); the decision reports each candidate's share of such playouts.

The ``basic`` move is always the first candidate, and is played unless another candidate beats it on the
sampled deals with confidence (:func:`choose`). Candidates: every legal card (and joker lead nomination) in
play; in the auction, pass, the ``basic`` choice, the cheapest legal bid in every strain the hand is near, in
the strain it is best in (and ``basic``'s strain) the dearest few bids up to two tricks above what ``basic``
counts it worth (once no one bids on, the contract is the bid: the cheapest undersells a strong hand), the
cheapest bid of every strain when another side holds the high bid and would win the game by making it (bidding
on to stop it may cost less than the game, whatever the hand), and the misère bids it might make (the hand near a
misère one once the cards it would discard are set aside); a handful of
discards (the ``basic`` one, ones that void each plain suit, the lowest cards; each set of cards once); every
nomination; the best few partner calls and going alone. With one candidate the bot answers at once and spends
nothing.

The budget is counted in playouts (never in time: the bots have no clock). The decision reports the playouts
and sampled deals it spent and each candidate's estimated value.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from functools import lru_cache
from itertools import combinations

from msgspec.structs import replace

from bots.basic import (
    HandReading,
    bid_from_hand,
    bid_from_reading,
    decide_basic,
    discard_from_hand,
    helper_tricks,
    misere_danger,
    nomination_from_hand,
    partner_call_from_hand,
    read_hand,
    situation_table,
    situation_tables,
    strain_tricks,
)
from bots.cardplay import HandInPlay, bit_keys, choose_bit
from bots.endgame import BitSolver, Solver, shared_solver, solvable, solve_outcome
from bots.inference import read_auction, sample
from bots.knowledge import Knowledge
from bots.sampling import misere_kept
from bots.value import hand_value, points_value, result_value
from engine import (
    SUITS,
    Bid,
    CallCard,
    ChoosePartners,
    Discard,
    GameState,
    GoAlone,
    Move,
    Options,
    Pass,
    Play,
    apply_move,
    legal_moves,
    partners,
    sides,
    view,
)
from engine.auction import CallRun
from engine.cards import STRAINS, rank_of
from engine.contract import hand_teams, playing_together
from engine.deal import kitty_size
from engine.game import canonical_move
from engine.masks import count
from engine.memo import remember
from engine.model import GameOver, HandScored
from engine.playout import BitPlayout
from engine.rules import MISERE_BIDS, bid_level, bid_strain, bid_value, side_of
from engine.scoring import judge_game, score_hand
from engine.seats import controlled_seats, controller
from engine.tricks import strain_of

#: How many standard errors a candidate must beat the ``basic`` move by (see :func:`choose`).
CONFIDENCE = 1.0

#: How many standard errors of the paired difference a candidate must trail another by, at a check, to be
#: dropped from the rest of the search (see :func:`prune`); and the fewest deals seen before the first check
#: (fewer give too rough a standard error: playout values are heavy-tailed).
PRUNE_CONFIDENCE = 3.0
PRUNE_FROM = 8
#: How often (every so many deals, from :data:`PRUNE_FROM` on) the search prunes and asks whether it is settled.
PRUNE_EVERY = 4

#: From this many deals on, a candidate that trails the ``basic`` move on the deals so far is dropped as futile
#: (see :func:`futile`): :func:`choose` would need it to end more than a standard error ahead.
FUTILE_FROM = 16

#: By how many standard errors of the paired difference a candidate must trail the ``basic`` move to be futile,
#: by phase (:data:`FUTILE_TRAIL_DEFAULT` for the others). In the card play a trailing candidate seldom recovers
#: (0: trailing at all is enough); in the auction and the setup a playout's value swings by whole contracts, and a
#: better move may still trail after a few deals (docs/BENCHMARKS.md measures both).
FUTILE_TRAIL: Mapping[str, float] = {"play": 0.0, "nominate": 0.0}
FUTILE_TRAIL_DEFAULT = 1.0

#: The search is settled, too, when no candidate can beat the ``basic`` move by more than this many points
#: (:mod:`bots.value`): the upper end of each gain's interval (:data:`INDIFFERENT_CONFIDENCE` standard errors of
#: the paired difference above its mean) is below it, so the rest of the budget could only choose between moves
#: worth about the same.
INDIFFERENT = 2.0
INDIFFERENT_CONFIDENCE = 2.0

#: How many bids of the strains the hand is best in (by the ``basic`` estimate) the auction searches above the
#: cheapest: the dearest ones the hand is worth, that is up to :data:`WORTH_MARGIN` tricks above the estimate
#: (see :func:`candidates`). The estimate counts the hand as ``basic`` would play it; the search is asked
#: about two tricks above it because the expert's own play, and its partner's, make more of a hand than that
#: (docs/BENCHMARKS.md measures both margins).
INTERMEDIATE_BIDS = 4
WORTH_MARGIN = 2.0

#: The cheapest bid of a strain is searched when it is at most this many tricks above the hand's estimate there.
NEAR_MARGIN = 1.0

#: A misère bid is searched when the hand left after the discard it would make (its riskiest cards, as many as the
#: kitty holds) has at most this many cards that could be forced to win a trick (:func:`bots.basic.misere_danger`):
#: 1 admits about one dealt hand in ten (0, one in forty: it searched fewer auction decisions and found about half
#: the misère points against the strangers; docs/BENCHMARKS.md).
MISERE_NEAR = 1

#: Default budget: playouts per decision.
DEFAULT_BUDGET = 256

#: Default budgets that differ from :data:`DEFAULT_BUDGET`, by phase. An auction decision decides the hand's
#: contract, and sampling noise costs most there (docs/BENCHMARKS.md measures the points lost per decision); most
#: auction decisions have one candidate and cost nothing, so the searched ones can afford twice the playouts.
PHASE_BUDGETS: Mapping[str, int] = {"auction": 512}

#: The most any decision spends when the caller names no budget (what a search is charged before its phase is
#: known).
LARGEST_DEFAULT_BUDGET = max(DEFAULT_BUDGET, *PHASE_BUDGETS.values())


def default_budget(phase: str) -> int:
    """The playouts a decision in ``phase`` spends when the caller names no budget."""
    return PHASE_BUDGETS.get(phase, DEFAULT_BUDGET)


def _basic_move(state: GameState) -> Move:
    seat = state.to_act
    assert seat is not None
    opts = state.options
    own = controller(opts, seat) == seat  # not a ghost's move, which its partner decides from its own view
    if state.phase == "auction" and state.viewed[seat] and own:
        # The basic bid from the state's values (bots.basic.bid_from_hand), without building the seat's view:
        # within a sampled deal they are what its view says (its hand, the high bid, its side before a contract,
        # a ghost partner's face-up cards).
        high = state.high
        ghost = next((g for g in controlled_seats(opts, seat) if g != seat), None) if state.ghost_piles else None
        return bid_from_hand(opts, seat, state.hands[seat], legal_moves(state), None if high is None else high.seat,
                             None if high is None else high.bid, _sides_together(opts)[seat],
                             None if ghost is None else state.hands[ghost])
    if state.phase == "exchange" and own and state.contract is not None:
        # The basic discard from the state's values (bots.basic.discard_from_hand), likewise; kept by what it reads
        # (the strain table is the options', the bid's and the nominations'), as the candidates on one sampled deal
        # often reach the same contract with the same hand.
        key = (opts, state.hands[seat], state.contract.bid, state.nominations)
        cards = _DISCARDS.get(key)
        if cards is None:
            cards = remember(_DISCARDS, key, tuple(discard_from_hand(opts, state.hands[seat], kitty_size(opts),
                                                                    state.contract.bid, strain_of(state))), 1 << 14)
        return Discard(seat=seat, cards=cards)
    if own and state.viewed[seat] and state.contract is not None:
        # The basic partner call and nomination from the state's values (bots.basic.partner_call_from_hand,
        # nomination_from_hand), likewise: the contractor's hand, the contract's bid, the auction's calls.
        if state.phase == "call":
            return partner_call_from_hand(opts, seat, state.hands[seat], state.contract.bid, state.calls,
                                          legal_moves(state))
        if state.phase == "nominate":
            return nomination_from_hand(state.contract.bid, state.hands[seat], legal_moves(state))
    knowledge = Knowledge(view(state, controller(state.options, seat)), state.options)
    legal = [] if state.phase == "exchange" else legal_moves(state)
    return decide_basic(knowledge, legal)


#: The playouts' basic discards, by (options, the contractor's hand with the kitty, the bid, the nominations).
_DISCARDS: dict[tuple[Options, tuple[str, ...], str, tuple[tuple[str, str], ...]], tuple[str, ...]] = {}

@lru_cache(maxsize=1024)
def _sides_together(opts: Options) -> tuple[tuple[int, ...], ...]:
    """Each seat's side before a contract (:func:`engine.contract.playing_together` of the scoring sides)."""
    return playing_together(sides(opts), None)


#: A playout's result for the seat: its value, and whether its side got its way with the contract (1.0: made
#: it as the contracting side or defeated it as a defender; 0.0: the opposite; None: no contract was played).
Outcome = tuple[float, float | None]


def value_of(state: GameState, move: Move, seat: int) -> float:
    """The playout value for ``seat``'s side of playing ``move`` now."""
    return outcome_of(state, move, seat)[0]


#: A card play's result (:func:`_card_play`): the hand's score changes, the contracting seats, whether it was made.
CardPlay = tuple[tuple[int, ...], tuple[int, ...], bool | None]

#: The card plays already played out on one sampled deal: the tricks each seat won, by what the play depended on
#: (:func:`_deal_key`).
CardPlays = dict[tuple[object, ...], tuple[int, ...]]


def outcome_of(state: GameState, move: Move, seat: int, solver: Solver | BitSolver | None = None,
               played: CardPlays | None = None) -> Outcome:
    """The playout :data:`Outcome` for ``seat`` of playing ``move`` now: the rest of the hand solved exactly
    when few cards are left (:mod:`bots.endgame`; with ``solver``, the :func:`bots.endgame.shared_solver` of
    ``state`` that the other candidates on this deal use too), else played out (with ``played``, the card plays
    the other candidates reached on this deal: two candidates whose auctions end in a contract of the same strain
    and contractor with the same hands share one card play, as the playout is deterministic and its card play
    reads the contract's level nowhere; each is scored on its own contract)."""
    after, events = apply_move(state, move)
    scored = _scored_outcome(events, state.options, seat)
    if scored is not None:
        return scored
    if after.phase == "game_over" or after.hand_number != state.hand_number:
        return 0.0, None
    solved = None  # None: past the cap, or too many cards left
    if solvable(after):
        if solver is not None and isinstance(move, Play):
            solved = solver.after(move.card, move.nominate)
        else:
            solved = solve_outcome(after, seat, _teams(after)[seat])
    if solved is not None:
        value, made = solved
        return value, _success(state.options, seat, (after.contract.contractor, *partners(after))
                               if after.contract else (), made)
    return playout_outcome(after, seat, played)


def _success(opts: Options, seat: int, contracting: Sequence[int], made: bool | None) -> float | None:
    if made is None:
        return None
    side = side_of(opts)
    ours = side[seat] in {side[s] for s in contracting}
    return 1.0 if made == ours else 0.0


def _scored(events: Sequence[object], opts: Options, seat: int) -> float | None:
    scored = _scored_outcome(events, opts, seat)
    return None if scored is None else scored[0]


def _scored_outcome(events: Sequence[object], opts: Options, seat: int) -> Outcome | None:
    for e in events:
        if isinstance(e, HandScored):
            over = next((x for x in events if isinstance(x, GameOver)), None)
            value = points_value(e.deltas, opts, seat) + result_value(over.winners if over else (), opts, seat)
            return value, _success(opts, seat, e.contracting_seats, e.made)
    return None


def playout(state: GameState, seat: int) -> float:
    """Play the hand out from ``state`` (see the module docstring); the value for ``seat``'s side."""
    return playout_outcome(state, seat)[0]


def playout_outcome(state: GameState, seat: int, played: CardPlays | None = None) -> Outcome:
    """Play the hand out from ``state`` (see the module docstring); the :data:`Outcome` for ``seat`` (``played``:
    see :func:`outcome_of`)."""
    at_play, events = _to_card_play(state)
    if at_play is not None:
        return _play_out(at_play, seat, played)
    return _scored_outcome(events, state.options, seat) or (0.0, None)  # None: thrown in, the hand is redealt


def playout_values(state: GameState) -> tuple[float, ...]:
    """The playout of :func:`playout_outcome` from ``state`` (the same moves: the playout does not depend on whose
    value it gives), valued for one seat of each side (``sides(options)``, in order): one playout, every side's
    value."""
    opts = state.options
    firsts = [members[0] for members in sides(opts)]
    at_play, events = _to_card_play(state)
    if at_play is not None:
        deltas, seats, made = _card_play(at_play)
        return tuple(hand_value(at_play.scores, deltas, seats, made, opts, s) for s in firsts)
    return tuple(_scored(events, opts, s) or 0.0 for s in firsts)


def _to_card_play(state: GameState) -> tuple[GameState | None, Sequence[object]]:
    """The hand from ``state`` up to its card play, every seat making ``basic``'s move: ``(the state where the card
    play begins, ())``, or ``(None, the events that scored the hand)`` when it was scored before any card was
    played, or ``(None, ())`` when it was thrown in (the hand is redealt)."""
    hand_number = state.hand_number
    for _ in range(400):
        if state.phase == "game_over" or state.hand_number != hand_number:
            return None, ()
        if state.phase == "play":
            return state, ()
        if state.phase == "auction":
            run = _run_auction(state)
            if run.thrown_in is not None:
                return None, ()  # the hand is redealt (the run does not deal it)
            if run.made:
                state = run.state()
                if any(type(e) is HandScored for e in run.events):
                    return None, run.events
                continue
        state, events = apply_move(state, _basic_move(state))
        if any(type(e) is HandScored for e in events):  # (exact types: the compiled build asks no generic call)
            return None, events
    raise AssertionError("a hand that does not end")


def _run_auction(state: GameState) -> CallRun:
    """The auction from ``state`` (its phase), every seat making ``basic``'s call, carried on over the auction's
    values (:class:`engine.auction.CallRun`) as long as the seat to act has looked at its own hand and may only pass
    or bid (the calls :func:`_basic_move` makes from :func:`bots.basic.bid_from_hand`, each seat's hand read once):
    the run where it stopped (``run.made``: whether it made a call; ``run.thrown_in``: the auction was thrown in,
    and the run did not deal the next hand)."""
    run = CallRun(state, deal=False)
    opts = state.options
    together = _sides_together(opts)
    tables = situation_tables(opts)
    hands = state.hands
    readings: dict[int, HandReading] = {}
    while True:
        legal = run.listed()
        if legal is None:
            return run
        seat = run.to_act
        if not run.viewed[seat]:
            return run
        reading = readings.get(seat)
        if reading is None:
            if controller(opts, seat) != seat:
                return run
            ghost = next((g for g in controlled_seats(opts, seat) if g != seat), None) if state.ghost_piles else None
            reading = readings[seat] = read_hand(opts, hands[seat], None if ghost is None else hands[ghost])
        high = run.high
        table = situation_table(opts, tables, run.situation, legal)
        run.call(bid_from_reading(opts, seat, reading, hands[seat], legal, None if high is None else high.seat,
                                  None if high is None else high.bid, together[seat], None, table))


def _play_out(state: GameState, seat: int, played: CardPlays | None = None) -> Outcome:
    """The card play to the end of the hand (:func:`_card_play`), valued for ``seat`` (``played``: see
    :func:`outcome_of`)."""
    if played is None:
        deltas, seats, made = _card_play(state)
    else:
        key = _deal_key(state)
        won = played.get(key)
        if won is None:
            won = played[key] = tuple(_played_out(state).won)
        deltas, seats, made = score_hand(replace(state, tricks_won=won))
    return (hand_value(state.scores, deltas, seats, made, state.options, seat),
            _success(state.options, seat, seats, made))


def _deal_key(state: GameState) -> tuple[object, ...]:
    """What a card play's course depends on beyond what one sampled deal fixes for every candidate (the options,
    the scores, the dealer, the hand): the hands, the contract but for its level (a misère bid whole), the seats in
    play and what is already on the table, the kitty and the discards."""
    c = state.contract
    if c is not None and c.bid not in MISERE_BIDS:
        c = replace(c, bid=bid_strain(c.bid))
    return (state.hands, c, state.active, state.to_act, state.trick, state.tricks, state.tricks_won,
            state.suits_led, state.shown_void, state.nominations, state.ghost_piles, state.kitty, state.discards,
            state.dead_hand)


def _card_play(state: GameState) -> CardPlay:
    """The card play to the end of the hand (:func:`_played_out`) and its score."""
    return _played_out(state).score()


def _played_out(state: GameState) -> BitPlayout:
    """The card play to the end of the hand, each seat playing the standard card play with the sampled hands in
    the open, over masks (:class:`engine.playout.BitPlayout`, :func:`bots.cardplay.choose_bit`: the standard card
    play rule for rule; a ghost's face-down cards are not among the others' cards it weighs, as no one sees
    them): the playout at its end."""
    game = BitPlayout(state)
    table = game.table
    suit_mask, bit_suit = table.suit_mask, table.bit_suit
    teams = hand_teams(state)  # (per seat, the seats on its side: tuples, read with ``in``)
    c = state.contract
    in_play = HandInPlay(table, c.bid if c else None, c.contractor if c else None, game.active)
    keys = bit_keys(table)
    active = game.active
    hands = game.hands
    while not game.over:
        actor = game.to_act
        legal = game.legal()
        trick = game.bits
        if legal & (legal - 1) == 0:
            bit = legal
        else:
            others = 0
            for s in active:
                if s != actor:
                    others |= hands[s]
            bit = choose_bit(in_play, keys, actor, hands[actor], legal, game.leader, trick, game.led, teams[actor],
                             others)
        nominate = None
        if not trick and bit_suit[bit.bit_length() - 1] is None:
            # Leading a free joker: name the suit this seat holds most of (as bots.cardplay.choose_play does).
            suits = game.lead_suits(bit)
            hand = hands[actor]
            nominate = suits[0] if len(suits) == 1 else max(suits, key=lambda x: count(hand & suit_mask.get(x, 0)))
        game.play(bit, nominate)
    return game


def _teams(state: GameState) -> dict[int, frozenset[int]]:
    """Who plays together this hand, in a sampled deal (everyone knows everything there):
    :func:`engine.contract.hand_teams`."""
    return {s: frozenset(team) for s, team in enumerate(hand_teams(state))}


def _unique(moves: Sequence[Move]) -> list[Move]:
    out: list[Move] = []
    for m in moves:
        if m not in out:
            out.append(m)
    return out


def candidates(knowledge: Knowledge, legal: Sequence[Move]) -> list[Move]:
    """The moves worth searching for this decision (see the module docstring)."""
    phase = knowledge.view.phase
    opts = knowledge.options
    basic = decide_basic(knowledge, legal)
    if phase == "play":
        return _distinct_plays(knowledge, [basic, *legal])
    if phase == "nominate":
        return _unique([basic, *legal])
    if phase == "auction":
        hand = knowledge.hand
        if hand is None:
            return [basic]
        out: list[Move] = [basic]
        out += [m for m in legal if isinstance(m, Pass)]
        extra = helper_tricks(opts)
        bids = [m for m in legal if isinstance(m, Bid) and not m.sans_kitty]
        estimates = {strain: tricks + extra for strain, tricks in zip(STRAINS, strain_tricks(hand, opts), strict=True)}
        top = max(STRAINS, key=estimates.__getitem__)
        basic_strain = bid_strain(basic.bid) if isinstance(basic, Bid) and basic.bid not in MISERE_BIDS else None
        by_strain: dict[str, list[Bid]] = {strain: [] for strain in STRAINS}
        for m in bids:
            if m.bid not in MISERE_BIDS:
                by_strain[bid_strain(m.bid)].append(m)
        for strain in STRAINS:
            est = estimates[strain]
            ranked = by_strain[strain]
            if not ranked or bid_level(ranked[0].bid) > est + NEAR_MARGIN:
                continue
            out.append(ranked[0])
            if strain in (top, basic_strain):
                # The levels between the cheapest bid and the one the hand is worth: where no one bids on, the
                # contract is the bid, and the cheapest undersells a strong hand while basic's may be a stretch.
                worth = [m for m in ranked[1:] if bid_level(m.bid) <= est + WORTH_MARGIN]
                out += worth[-INTERMEDIATE_BIDS:]
        if _game_at_stake(knowledge):
            # Another side would win the game by making the high bid: bidding on without the hand for it
            # may cost less than the game, so the cheapest bid of every strain is searched.
            out += [ranked[0] for ranked in by_strain.values() if ranked]
        kept: list[str] | None = None
        for m in bids:
            # A misère is searched when the hand is near one after the discard: its riskiest cards set aside.
            if m.bid in MISERE_BIDS:
                kept = misere_kept(hand, opts) if kept is None else kept
                if misere_danger(kept, opts, open_hand=m.bid != "MISERE") <= MISERE_NEAR:
                    out.append(m)
        return _unique(out)
    if phase == "exchange":
        # One discard per set of cards: the same cards in another order are the same move.
        discards: list[Move] = []
        seen: set[frozenset[str] | None] = set()
        for discard in [basic, *_discard_candidates(knowledge)]:
            cards = frozenset(discard.cards) if isinstance(discard, Discard) else None
            if cards not in seen:
                seen.add(cards)
                # In the engine's canonical form (pack order), which each playout's apply_move then takes as it is.
                discards.append(canonical_move(discard, opts))
        return discards
    if phase == "call":
        out = [basic]
        out += [m for m in legal if isinstance(m, GoAlone)]
        out += [m for m in legal if isinstance(m, ChoosePartners)]
        calls = [m for m in legal if isinstance(m, CallCard)]
        c = knowledge.view.contract
        held = set(knowledge.hand or ())
        if calls and c is not None:
            strain = bid_strain(c.bid)
            table = knowledge.table
            wanted = [m for m in calls if m.card not in held and (
                table.suit[m.card] == strain or rank_of(m.card) == "A")]
            wanted.sort(key=lambda m: table.power[m.card], reverse=True)
            out += wanted[:4]
        return _unique(out)
    return [basic]


def _game_at_stake(knowledge: Knowledge) -> bool:
    """Whether the high bid is another side's, and making it would win that side the game."""
    v = knowledge.view
    high = v.high_bid
    if high is None or high.bid is None:
        return False
    opts = knowledge.options
    side = side_of(opts)
    theirs, mine = side[high.seat], side[knowledge.seat]
    if theirs == mine:
        return False
    after = list(v.scores)
    after[theirs] += bid_value(opts, high.bid)
    result = judge_game(opts, tuple(after), [theirs], True)
    return result is not None and mine not in result.winners


def _distinct_plays(knowledge: Knowledge, legal: Sequence[Move]) -> list[Move]:
    """The legal plays, keeping one of each run of equivalent cards: two cards of one effective suit with no
    card between them that anyone else may hold or that lies in the current trick win and lose the same tricks,
    so searching both would only halve the deals each gets."""
    table = knowledge.table
    suit_of, power = table.suit, table.power
    elsewhere = set(knowledge.unseen)
    for holder, cards in knowledge.known_hands.items():
        if holder != knowledge.seat:
            elsewhere.update(cards)
    trick = knowledge.view.current_trick
    if trick is not None:
        elsewhere.update(p.card for p in trick.plays)
    out: list[Move] = []
    kept: list[Play] = []
    for m in _unique(legal):
        if not isinstance(m, Play) or m.nominate is not None or suit_of[m.card] is None:
            out.append(m)
            continue
        suit, p = suit_of[m.card], power[m.card]
        twin = next((k for k in kept if suit_of[k.card] == suit and not any(
            suit_of[x] == suit and min(p, power[k.card]) < power[x] < max(p, power[k.card]) for x in elsewhere)),
            None)
        if twin is None:
            kept.append(m)
            out.append(m)
    return out


def _discard_candidates(knowledge: Knowledge) -> list[Move]:
    view = knowledge.view
    hand = list(knowledge.hand or ())
    k = view.kitty_size
    c = view.contract
    assert c is not None
    table = knowledge.table
    suit_of, power = table.suit, table.power
    seat = knowledge.seat
    keepers = [x for x in hand if suit_of[x] is None or suit_of[x] == table.trump]
    plain = sorted((x for x in hand if x not in keepers), key=power.__getitem__)
    out: list[Move] = []
    if len(plain) >= k:
        out.append(Discard(seat=seat, cards=tuple(plain[:k])))
        for s in SUITS:
            suit_cards = [x for x in plain if suit_of[x] == s]
            if 0 < len(suit_cards) <= k:
                rest = [x for x in plain if x not in suit_cards][: k - len(suit_cards)]
                if len(suit_cards) + len(rest) == k:
                    out.append(Discard(seat=seat, cards=tuple(suit_cards + rest)))
    if c.bid in MISERE_BIDS:
        ranked = sorted(hand, key=power.__getitem__, reverse=True)
        for combo in combinations(ranked[: k + 2], k):
            out.append(Discard(seat=seat, cards=combo))
            if len(out) > 8:
                break
    return out


def search(knowledge: Knowledge, legal: Sequence[Move], rng: random.Random,
           budget: int) -> tuple[Move, list[tuple[Move, float, int]], int, int]:
    """PIMC over the candidates: (best move, [(candidate, mean value, playouts)], playouts, samples)."""
    move, found, playouts, samples = search_outcomes(knowledge, legal, rng, budget)
    return move, [(m, v, n) for m, v, _success, n in found], playouts, samples


def search_outcomes(knowledge: Knowledge, legal: Sequence[Move], rng: random.Random,
                    budget: int) -> tuple[Move, list[tuple[Move, float, float | None, int]], int, int]:
    """:func:`search`, with each candidate's share of playouts in which the seat's side got its way with the
    contract (made it, or defeated another side's; None when no playout played a contract out):
    (best move, [(candidate, mean value, success share, playouts)], playouts, samples)."""
    cands = candidates(knowledge, legal)
    if len(cands) == 1:
        return cands[0], [], 0, 0
    # Every candidate still in the running is tried on the same sampled deals, until the budget is spent or the
    # choice is settled; at least one deal even when the budget is smaller than the number of candidates (the
    # decision then reports the playouts it really spent). The deals a pruned candidate no longer takes go to
    # the others.
    values: list[list[float]] = [[] for _ in cands]
    successes: list[list[float]] = [[] for _ in cands]
    seat = knowledge.seat
    trail = FUTILE_TRAIL.get(knowledge.view.phase, FUTILE_TRAIL_DEFAULT)
    evidence = read_auction(knowledge)
    alive = list(range(len(cands)))
    dealt = spent = 0
    while dealt == 0 or spent + len(alive) <= budget:
        state = sample(knowledge, rng, evidence)
        dealt += 1
        spent += len(alive)
        # (The seat's side is the sampled deal's: where a called partner is not yet known, the deal places it.)
        solver = shared_solver(state, seat, _teams(state)[seat]) if state.phase == "play" else None
        played: CardPlays | None = None if state.phase == "play" else {}
        for i in alive:
            value, success = outcome_of(state, cands[i], seat, solver, played)
            values[i].append(value)
            if success is not None:
                successes[i].append(success)
        if dealt >= PRUNE_FROM and dealt % PRUNE_EVERY == 0 and len(alive) > 1:
            alive = prune([values[i] for i in alive], alive)
            if dealt >= FUTILE_FROM:
                alive = futile([values[i] for i in alive], alive, trail)
            if settled([values[i] for i in alive]) or indifferent([values[i] for i in alive]):
                break
    means = [sum(v) / len(v) for v in values]
    shares = [sum(x) / len(x) if x else None for x in successes]
    best = alive[choose([values[i] for i in alive])]
    return (cands[best], [(m, v, p, len(n)) for m, v, p, n in zip(cands, means, shares, values, strict=True)],
            spent, dealt)


def prune(values: list[list[float]], ids: Sequence[int]) -> list[int]:
    """The ``ids`` of the candidates still worth sampling (``values``: each one's playout values so far, on the
    same deals): the ``basic`` move (the first) always; another unless some candidate beats it on these deals by
    more than :data:`PRUNE_CONFIDENCE` standard errors of the paired difference (it could then hardly end up
    chosen, and the deals it would take are saved), or it has had the basic move's value on every deal so far
    (:func:`choose` takes the basic move over one that does not beat it)."""
    n = len(values[0])
    keep = [ids[0]]
    basic = values[0]
    means: dict[tuple[int, int], float] = {}  # (j, i): the mean gain of candidate j over i, each pair summed once
    for i in range(1, len(values)):
        if values[i] == basic:
            # The same value as the basic move on every deal so far (an equivalent move, as the search sees it):
            # it could beat the basic move only by parting from it on most of the deals still to come.
            continue
        if not any(_beats(values, j, i, n, means) for j in range(len(values)) if j != i):
            keep.append(ids[i])
    return keep


def _beats(values: list[list[float]], j: int, i: int, n: int, means: dict[tuple[int, int], float]) -> bool:
    """Whether candidate ``j`` beats candidate ``i`` by more than :data:`PRUNE_CONFIDENCE` standard errors of the
    paired difference (:func:`_beaten_by`). A pair's mean is summed once for both of its orders: the gain of ``j``
    over ``i`` is exactly the negated gain of ``i`` over ``j`` (each difference, and so each partial sum, is)."""
    known = means.get((i, j))
    mean = _mean_gain(values[j], values[i]) if known is None else -known
    means[(j, i)] = mean
    if mean <= 0.0:
        return False
    spread = math.sqrt(_squares(values[j], values[i], mean) / (n - 1))
    return mean > PRUNE_CONFIDENCE * spread / math.sqrt(n)


def futile(values: list[list[float]], ids: Sequence[int], trail: float) -> list[int]:
    """The ``ids`` of the candidates still worth sampling once :data:`FUTILE_FROM` deals are in (``values``: each
    one's playout values so far, on the same deals, the ``basic`` move first): the ``basic`` move, and each other
    that does not trail it by more than ``trail`` standard errors of the paired difference (with ``trail`` 0: whose
    mean is above its mean). :func:`choose` leaves the ``basic`` move only for a candidate that ends more than
    :data:`CONFIDENCE` standard errors ahead of it; one that trails it after this many deals seldom gets there,
    and when it does its gain is small (a candidate worth much more than the ``basic`` move leads it after a few
    deals), so its deals go to the candidates that lead."""
    basic = values[0]
    keep = [ids[0]]
    for i in range(1, len(values)):
        mean, se = _gain(values[i], basic)
        if mean > -trail * se:
            keep.append(ids[i])
    return keep


def indifferent(values: list[list[float]]) -> bool:
    """Whether every candidate still sampled (``values``, the ``basic`` move first) is, on the deals so far,
    surely within :data:`INDIFFERENT` points above the ``basic`` move (see there)."""
    basic = values[0]
    for other in values[1:]:
        mean, se = _gain(other, basic)
        if mean + INDIFFERENT_CONFIDENCE * se >= INDIFFERENT:
            return False
    return True


def _gain(other: list[float], base: list[float]) -> tuple[float, float]:
    """The mean gain of ``other`` over ``base`` on the same deals, and its standard error."""
    n = len(base)
    mean = _mean_gain(other, base)
    return mean, math.sqrt(_squares(other, base, mean) / (n - 1) / n)


def _mean_gain(other: list[float], base: list[float]) -> float:
    """The mean of ``other`` less ``base``, deal by deal, the differences summed in the deals' order (as ``sum``
    adds floats: the same float)."""
    n = len(base)
    assert len(other) == n
    total = 0.0
    for k in range(n):
        total += other[k] - base[k]
    return total / n


def _squares(other: list[float], base: list[float], mean: float) -> float:
    """The sum of the squared deviations from ``mean`` of ``other`` less ``base``, deal by deal, in order."""
    total = 0.0
    for k in range(len(base)):
        total += math.pow(other[k] - base[k] - mean, 2.0)  # as ``** 2`` computes it (not ``d * d``)
    return total


def settled(values: list[list[float]]) -> bool:
    """Whether the search may stop (``values``: the candidates still sampled, the ``basic`` move first): one
    is left, or the ``basic`` move and one that beats it by :data:`PRUNE_CONFIDENCE` standard errors (which
    :func:`choose` picks, by a margin the rest of the budget would hardly undo)."""
    if len(values) == 1:
        return True
    return len(values) == 2 and _beaten_by(values[0], values[1], len(values[0]))


def _clear_gain(other: list[float], base: list[float], n: int, confidence: float) -> float | None:
    """The mean gain of ``other`` over ``base`` on the same ``n`` deals, if it exceeds ``confidence`` standard
    errors of the paired difference; else None."""
    mean = _mean_gain(other, base)
    if mean <= 0.0:
        return None
    spread = math.sqrt(_squares(other, base, mean) / (n - 1))
    return mean if mean > confidence * spread / math.sqrt(n) else None


def _beaten_by(mine: list[float], other: list[float], n: int) -> bool:
    return _clear_gain(other, mine, n, PRUNE_CONFIDENCE) is not None


def choose(values: list[list[float]]) -> int:
    """The candidate to play: the ``basic`` move (index 0) unless another beats it on the same sampled deals
    by more than :data:`CONFIDENCE` standard errors of the paired difference; then, of those that do, the one
    with the highest mean.

    Picking the highest mean outright would let a few lucky deals choose a wild bid; with this rule a small
    budget plays like ``basic`` and a larger one departs from it where the deals show it should. Among the
    candidates that pass that test the mean decides, not the margin: ranking them by their lower bound would
    favour the steadier of two good moves over the better one (a cheaper bid over a dearer one that scores
    more on average but varies more)."""
    samples = len(values[0])
    if samples < 2:
        return 0
    best, best_mean = 0, 0.0
    for i in range(1, len(values)):
        gain = _clear_gain(values[i], values[0], samples, CONFIDENCE)
        if gain is not None and gain > best_mean:
            best, best_mean = i, gain
    return best


__all__ = ["DEFAULT_BUDGET", "LARGEST_DEFAULT_BUDGET", "PHASE_BUDGETS", "Outcome", "Play", "candidates",
           "default_budget", "futile", "indifferent", "outcome_of", "playout", "playout_outcome", "playout_values",
           "search", "search_outcomes", "value_of"]
