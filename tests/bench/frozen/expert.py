"""The ``expert`` bot: Perfect Information Monte Carlo search (determinized search, as GIB plays Bridge).

For the seat to act it samples deals of the cards it has not seen, uniformly among those consistent with its
view (its own hand, every card played, exposed hands, the kitty or its discards where it saw them, and the suits
each seat has shown void in). On each sampled deal it tries every candidate move and plays the hand out to its
score, then picks the candidate with the best average. The same sampled deals are used for every candidate
(common random numbers), so differences between candidates are not drowned by the luck of the samples.

A playout plays the rest of the hand: the auction (if it is still open) and the setup steps (partner call,
exchange, joker nomination) by the ``basic`` bot deciding from each seat's view of the sampled deal, and the
card play by the standard card-play policy of :mod:`bots.cardplay` with the sampled hands in the open (within a
sampled deal, every seat knows the deal: that is what makes it fast). A playout's value is the seat's side's
score change for the hand minus the average change of the other sides.

The ``basic`` move is always the first candidate, and is played unless another candidate beats it on the
sampled deals with confidence (:func:`choose`). Candidates: every legal card (and joker lead nomination) in
play; in the auction, pass, the ``basic`` choice, the cheapest legal bid in every strain the hand is near,
and the misère bids it might make; a handful of discards (the ``basic`` one, ones that void each plain suit,
the lowest cards); every nomination; the best few partner calls and going alone. With one candidate the bot
answers at once and spends nothing.

The budget is counted in playouts (never in time: the bots have no clock). The decision reports the playouts
and sampled deals it spent and each candidate's estimated value.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from itertools import combinations

import msgspec

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
    score_hand,
    sides,
    view,
)
from engine.cards import Strain
from engine.model import HandScored
from engine.rules import MISERE_BIDS, bid_level, bid_strain, hand_strain
from engine.seats import controller, seat_count
from engine.tricks import led_suit, trick_winner_index
from tests.bench.frozen.basic import (
    STRAINS,
    decide_basic,
    helper_tricks,
    misere_danger,
    own_tricks,
)
from tests.bench.frozen.cardplay import choose_card, choose_play
from tests.bench.frozen.knowledge import Knowledge, determinize

replace = msgspec.structs.replace

#: How many standard errors a candidate must beat the ``basic`` move by (see :func:`choose`).
CONFIDENCE = 1.0

#: Default budget: playouts per decision.
DEFAULT_BUDGET = 64


def _side_index(opts: Options) -> list[int]:
    out = [0] * seat_count(opts)
    for i, members in enumerate(sides(opts)):
        for s in members:
            out[s] = i
    return out


def _basic_move(state: GameState) -> Move:
    seat = state.to_act
    assert seat is not None
    knowledge = Knowledge(view(state, controller(state.options, seat)), state.options)
    legal = [] if state.phase == "exchange" else legal_moves(state)
    return decide_basic(knowledge, legal)


def value_of(state: GameState, move: Move, seat: int) -> float:
    """The playout value for ``seat``'s side of playing ``move`` now."""
    after, events = apply_move(state, move)
    scored = _scored(events, state.options, seat)
    if scored is not None:
        return scored
    if after.phase == "game_over" or after.hand_number != state.hand_number:
        return 0.0
    return playout(after, seat)


def _scored(events: Sequence[object], opts: Options, seat: int) -> float | None:
    for e in events:
        if isinstance(e, HandScored):
            mine = _side_index(opts)[seat]
            others = [d for i, d in enumerate(e.deltas) if i != mine]
            return float(e.deltas[mine] - (sum(others) / len(others) if others else 0.0))
    return None


def playout(state: GameState, seat: int) -> float:
    """Play the hand out from ``state`` (see the module docstring); the value for ``seat``'s side."""
    opts = state.options
    hand_number = state.hand_number
    table = None
    teams: dict[int, frozenset[int]] = {}
    for _ in range(400):
        if state.phase == "game_over" or state.hand_number != hand_number:
            return 0.0  # thrown in: the hand is redealt
        if state.phase != "play":
            move = _basic_move(state)
            state, events = apply_move(state, move)
        else:
            if table is None:
                c = state.contract
                table = hand_strain(opts, c.bid if c else None, state.nominations)
                teams = _teams(state)
            # (The fast playout knows no ghost piles: in the ghost-partners game the engine plays every card,
            # turning up the cards beneath.)
            if not state.ghost_piles and not any(table.suit[x] is None for s in state.active
                                                 for x in state.hands[s]):
                return _fast_playout(state, seat, table, teams)
            actor = state.to_act
            assert actor is not None
            legal = legal_moves(state)
            if len(legal) == 1:
                move = legal[0]
            else:
                trick = state.trick
                others: set[str] = set()
                for s in state.active:
                    if s != actor:
                        others.update(state.hands[s])
                c = state.contract
                move = choose_play(actor, state.hands[actor], legal, trick.leader if trick else None,  # type: ignore[arg-type]
                                   trick.cards if trick else (), trick.nominate if trick else None,
                                   state.active, table, c.bid if c else None, c.contractor if c else None,
                                   teams[actor], others)
            state, events = apply_move(state, move)
        scored = _scored(events, opts, seat)
        if scored is not None:
            return scored
    raise AssertionError("a hand that does not end")


def _fast_playout(state: GameState, seat: int, table: Strain, teams: dict[int, frozenset[int]]) -> float:
    """The card play to the end of the hand without building a game state per card.

    Only for play with no un-nominated joker in any hand: then the rules of play are exactly "follow the led
    effective suit if you can, else play anything", and the trick goes to the highest-power card of the led suit
    or of trumps (the strain table's order). The score comes from the engine's :func:`engine.score_hand`.
    """
    opts = state.options
    suit_of = table.suit
    active = state.active
    n_active = len(active)
    hands = {s: list(state.hands[s]) for s in active}
    won = list(state.tricks_won)
    c = state.contract
    bid = c.bid if c else None
    contractor = c.contractor if c else None
    misere = bid in MISERE_BIDS
    trick = state.trick
    leader = trick.leader if trick else state.to_act
    assert leader is not None
    cards = list(trick.cards) if trick else []
    nominate = trick.nominate if trick else None
    tricks_done = len(state.tricks)
    actor = active[(active.index(leader) + len(cards)) % n_active]
    while True:
        hand = hands[actor]
        if cards:
            led = led_suit(cards, nominate, table)
            legal = [x for x in hand if suit_of[x] == led] or hand
        else:
            legal = hand
        if len(legal) == 1:
            card = legal[0]
        else:
            others = [x for s in active if s != actor for x in hands[s]]
            card = choose_card(actor, hand, legal, leader, cards, nominate, active, table, bid, contractor,
                               teams[actor], others)
        hand.remove(card)
        cards.append(card)
        if len(cards) < n_active:
            actor = active[(active.index(actor) + 1) % n_active]
            continue
        winner = active[(active.index(leader) + trick_winner_index(cards, nominate, table)) % n_active]
        won[winner] += 1
        tricks_done += 1
        if tricks_done == 10 or (misere and winner == contractor):
            break
        leader = actor = winner
        cards, nominate = [], None
    deltas, _seats, _made = score_hand(replace(state, tricks_won=tuple(won)))
    mine = _side_index(opts)[seat]
    rest = [d for i, d in enumerate(deltas) if i != mine]
    return float(deltas[mine] - (sum(rest) / len(rest) if rest else 0.0))


def _teams(state: GameState) -> dict[int, frozenset[int]]:
    """Who plays together this hand, in a sampled deal (everyone knows everything there)."""
    opts = state.options
    n = seat_count(opts)
    c = state.contract
    if c is None:
        out: dict[int, frozenset[int]] = {}
        for members in sides(opts):
            for s in members:
                out[s] = frozenset(members)
        return out
    contracting = frozenset((c.contractor, *partners(state)))
    defenders = frozenset(s for s in range(n) if s not in contracting)
    return {s: contracting if s in contracting else defenders for s in range(n)}


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
        for strain in STRAINS:
            est = own_tricks(hand, strain, opts) + extra
            cheapest = next((m for m in bids if m.bid not in MISERE_BIDS and bid_strain(m.bid) == strain), None)
            if cheapest is not None and bid_level(cheapest.bid) <= est + 1.0:
                out.append(cheapest)
        for m in bids:
            if m.bid in MISERE_BIDS and misere_danger(hand, opts, open_hand=m.bid != "MISERE") <= 1:
                out.append(m)
        return _unique(out)
    if phase == "exchange":
        return _unique([basic, *_discard_candidates(knowledge)])
    if phase == "call":
        out = [basic]
        out += [m for m in legal if isinstance(m, GoAlone)]
        out += [m for m in legal if isinstance(m, ChoosePartners)]
        calls = [m for m in legal if isinstance(m, CallCard)]
        c = knowledge.view.contract
        held = set(knowledge.hand or ())
        if calls and c is not None:
            strain = bid_strain(c.bid)
            table = hand_strain(opts, c.bid, ())
            wanted = [m for m in calls if m.card not in held and (
                table.suit[m.card] == strain or m.card[:-1] == "A")]
            wanted.sort(key=lambda m: table.power[m.card], reverse=True)
            out += wanted[:4]
        return _unique(out)
    return [basic]


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
    view, opts = knowledge.view, knowledge.options
    hand = list(knowledge.hand or ())
    k = view.kitty_size
    c = view.contract
    assert c is not None
    table = hand_strain(opts, c.bid, tuple(sorted(view.joker_nominations.items())))
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
    cands = candidates(knowledge, legal)
    if len(cands) == 1:
        return cands[0], [], 0, 0
    # Every candidate is tried on the same sampled deals; at least one deal even when the budget is smaller than
    # the number of candidates (the decision then reports the playouts it really spent).
    samples = max(1, budget // len(cands))
    values: list[list[float]] = [[] for _ in cands]
    seat = knowledge.seat
    bidders = _bidders(knowledge)
    for _ in range(samples):
        state = _sample(knowledge, rng, bidders)
        for i, move in enumerate(cands):
            values[i].append(value_of(state, move, seat))
    means = [sum(v) / samples for v in values]
    best = choose(values)
    return cands[best], [(m, v, samples) for m, v in zip(cands, means, strict=True)], samples * len(cands), samples


#: Deals drawn per sample to find one that agrees with the auction (see :func:`_sample`).
AUCTION_TRIES = 8


def _bidders(knowledge: Knowledge) -> dict[int, tuple[str, float, tuple[str, ...]]]:
    """Seats whose bids say something about their hands: seat → (strain, tricks its hand should be worth).

    The contractor's winning bid and every other seat's last suit or no-trump bid: a player who bid 8H holds a
    hand the bidding rules value near eight tricks with hearts as trumps (partner and kitty included)."""
    view, opts = knowledge.view, knowledge.options
    last: dict[int, str] = {}
    for call in view.auction:
        if call.bid is not None and call.bid not in MISERE_BIDS:
            last[call.seat] = call.bid
    c = view.contract
    if c is not None and c.bid not in MISERE_BIDS:
        last[c.contractor] = c.bid
    extra = helper_tricks(opts)
    played: dict[int, list[str]] = {}
    for t in (*view.tricks, *((view.current_trick,) if view.current_trick else ())):
        for p in t.plays:
            played.setdefault(p.seat, []).append(p.card)
    out: dict[int, tuple[str, float, tuple[str, ...]]] = {}
    for seat, bid in last.items():
        if seat != knowledge.seat and seat not in knowledge.known_hands:
            out[seat] = (bid_strain(bid), bid_level(bid) - 1.5 - extra, tuple(played.get(seat, ())))
    return out


def _sample(knowledge: Knowledge, rng: random.Random,
            bidders: dict[int, tuple[str, float, tuple[str, ...]]]) -> GameState:
    """A sampled deal that agrees with the auction: among up to :data:`AUCTION_TRIES` consistent deals, the
    first in which every bidder's hand is worth about what it bid (else the one that comes closest).

    Uniform sampling would give a defender against 8H a contractor with two hearts as often as with six."""
    best: GameState | None = None
    best_miss = float("inf")
    for _ in range(AUCTION_TRIES if bidders else 1):
        state = determinize(knowledge, rng)
        miss = 0.0
        for seat, (strain, need, played) in bidders.items():
            hand = state.hands[seat] + played  # the hand it bid on (after the exchange, for the contractor)
            miss += max(0.0, need - own_tricks(hand, strain, knowledge.options))
        if miss < best_miss:
            best, best_miss = state, miss
        if miss == 0.0:
            break
    assert best is not None
    return best


def choose(values: Sequence[Sequence[float]]) -> int:
    """The candidate to play: the ``basic`` move (index 0) unless another beats it on the same sampled deals
    by more than :data:`CONFIDENCE` standard errors of the paired difference, then the one that does by most.

    Picking the highest mean outright would let a few lucky deals choose a wild bid; with this rule a small
    budget plays like ``basic`` and a larger one departs from it where the deals show it should."""
    samples = len(values[0])
    if samples < 2:
        return 0
    best, best_margin = 0, 0.0
    for i in range(1, len(values)):
        diffs = [a - b for a, b in zip(values[i], values[0], strict=True)]
        mean = sum(diffs) / samples
        spread = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (samples - 1))
        margin = mean - CONFIDENCE * spread / math.sqrt(samples)
        if margin > best_margin:
            best, best_margin = i, margin
    return best


__all__ = ["DEFAULT_BUDGET", "Play", "candidates", "playout", "search", "value_of"]
