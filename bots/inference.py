"""Inference about the unseen hands: sampled deals that agree with what the other seats did.

Uniform sampling of the unseen cards (:func:`bots.knowledge.determinize`) treats the auction as if it said
nothing: a defender against 8H would meet a contractor with two hearts as often as one with six. Here the other
seats' calls are read with the ``basic`` bidder as the model of how a seat bids (its trick estimate
:func:`bots.basic.own_tricks`, plus what a partner and the kitty add, :func:`bots.basic.helper_tricks`):

- a seat that bid a suit or no trumps holds a hand worth about that many tricks in that strain (a lower bound);
- a seat that later passed over a higher bid holds a hand not worth the next bid of its strain (an upper bound);
- a seat that passed without ever bidding holds a hand worth less than the cheapest bid open to it in every
  strain (unless its partner held the high bid: a seat does not overcall its partner without a clear reason).

The cards a seat has played since count as part of the hand it bid on. Voids shown in play are already honoured
by the sampler itself. The plays say more, read with the standard card play (:mod:`bots.cardplay`) as the model:
a seat that played a card that did not beat the trick's winning card played its lowest eligible card, so it held
no lower card of the suit it followed (no lower plain card, when it discarded). :func:`read_plays` lists, per
seat, the unseen cards such plays say it lacks, and the sampler deals them elsewhere (a seat whose later plays
break the model, by playing such a card after all, is not read; nor is any seat at misère, which plays otherwise;
nor, while no deal of the unseen cards could honour all the reads with the shown voids, the seat said to lack most).

Once the contractor has taken the kitty and the card play has begun, its hand is read more tightly: the kitty's
help is in it, so it is worth about the bid less its partner's help alone (with :data:`TAKEN_MARGIN` of slack).

Each consistent deal gets a *misfit*: by how many tricks, summed over the seats, their hands miss what their calls
said. :func:`sample` draws up to :data:`TRIES` deals and keeps the first that fits, else the one that misfits
least (a cheap rejection sampler: the per-deal cost is one trick estimate per seat and strain that called).
Once the card play has begun it draws :data:`TAKEN_TRIES` and then repairs the deal that misfits least
(:func:`repair`): up to :data:`REPAIR_STEPS` times it swaps a card of the seat that misses its bounds most with
one elsewhere (a strong card of the bound's strain into a hand below its bound, out of a hand above it), each
swap honouring the voids and reads, and keeps the swap when the misfit drops. The contractor's tight bound is
seldom met by uniform draws, and the swaps reach it at the cost of a few trick estimates. Before the card play
the looser bounds are left to the draws: repairing there costs CPU in the auction and the exchange for no
measured gain (docs/BENCHMARKS.md). All randomness comes from the ``rng`` passed in.
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Mapping, Sequence
from itertools import combinations

import msgspec

from bots.basic import STRAINS, helper_tricks, kitty_tricks, own_tricks, strain_strength
from bots.knowledge import Knowledge, deal_unseen, places_for, state_from, team_of
from engine import GameState, Options
from engine.cards import JOKERS
from engine.rules import MISERE_BIDS, bid_level, bid_strain, ladder
from engine.tricks import beats, led_suit, trick_winner_index

#: Deals drawn per sample to find one that agrees with the auction; once the card play has begun (the
#: contractor's bound read tightly, :data:`TAKEN_MARGIN`), fewer draws, and the swaps that then repair the one
#: that misfits least (:func:`repair`).
TRIES = 10
TAKEN_TRIES = 6
REPAIR_STEPS = 8

#: How far (in tricks) a hand's estimate may sit beyond what its calls said before the deal counts as a misfit:
#: the ``basic`` bidder bids when its estimate reaches the bid's level less a quarter trick, and other bidders
#: judge hands differently, so the bounds are loose.
LOWER_SLACK = 1.5
UPPER_SLACK = 1.0

#: Once the card play has begun, the contractor's hand (the kitty taken) is bounded below by the bid less its
#: partner's help, plus this margin (tricks). Chosen with ``tests/bench/calibration.py`` (docs/BENCHMARKS.md):
#: with it, the share of a defender's playouts that make the contract matches the share their card play makes on
#: the real deals; half a trick above overstates the contractor about as much as the auction's looser bound
#: understated it.
TAKEN_MARGIN = -0.5


class Bound(msgspec.Struct, frozen=True):
    """What a seat's calls say about one strain: its hand (with ``played`` cards) is worth at least ``low`` and
    below ``high`` tricks by :func:`bots.basic.own_tricks` (``None``: no bound on that side)."""

    seat: int
    strain: str
    low: float | None
    high: float | None


class Evidence(msgspec.Struct, frozen=True):
    """The bounds read from the auction, each bounded seat's played cards, and the unseen cards each seat's plays
    say it lacks (:func:`read_plays`)."""

    bounds: tuple[Bound, ...]
    played: dict[int, tuple[str, ...]]
    lacks: dict[int, frozenset[str]] = {}
    #: Each unseen card's places under the voids and ``lacks`` (:func:`bots.knowledge.places_for`).
    fits: dict[str, frozenset[int]] | None = None
    #: Whether the card play has begun, the contractor's hand read with the kitty in it (deals are then repaired).
    taken: bool = False


def read_auction(knowledge: Knowledge) -> Evidence:
    """The bounds that the other seats' calls put on their hands, and what their plays say they lack (see the
    module docstring)."""
    view, opts = knowledge.view, knowledge.options
    extra = helper_tricks(opts)
    rungs = ladder(opts)
    by_strain: dict[str, list[tuple[float, int]]] = {s: [] for s in STRAINS}
    for bid, rung in rungs.items():
        if bid not in MISERE_BIDS:
            by_strain[bid_strain(bid)].append((rung, bid_level(bid)))
    for rows in by_strain.values():
        rows.sort()

    def cheapest_above(rung: float, strain: str) -> int | None:
        return next((level for r, level in by_strain[strain] if r > rung), None)

    hidden = {s for s in range(len(view.hand_sizes)) if s != knowledge.seat and s not in knowledge.known_hands}
    bounds: list[Bound] = []
    high: tuple[int, str] | None = None  # (seat, bid) of the high bid so far
    last_bid: dict[int, str] = {}
    for call in view.auction:
        seat = call.seat
        if call.bid is not None:
            if call.bid not in MISERE_BIDS:
                last_bid[seat] = call.bid
            high = (seat, call.bid)
            continue
        if seat not in hidden:
            continue
        rung = rungs.get(high[1], 0.0) if high is not None else 0.0
        if high is not None and high[0] in team_of(view, seat) and high[0] != seat:
            continue  # passing a partner's bid says little
        if seat in last_bid:  # outbid, it did not go on in its strain
            strain = bid_strain(last_bid[seat])
            level = cheapest_above(rung, strain)
            if level is not None:
                bounds.append(Bound(seat, strain, None, level - extra + UPPER_SLACK))
        else:
            for strain in STRAINS:
                level = cheapest_above(rung, strain)
                if level is not None:
                    bounds.append(Bound(seat, strain, None, level - extra + UPPER_SLACK))
    c = view.contract
    if c is not None and c.bid not in MISERE_BIDS:
        last_bid[c.contractor] = c.bid
    taken = c is not None and view.phase in ("nominate", "play")
    for seat, bid in last_bid.items():
        if seat in hidden:
            low = bid_level(bid) - extra - LOWER_SLACK
            if taken and c is not None and seat == c.contractor:
                low = bid_level(bid) - (extra - kitty_tricks(opts)) + TAKEN_MARGIN
            bounds.append(Bound(seat, bid_strain(bid), low, None))
    played: dict[int, list[str]] = {}
    for t in (*view.tricks, *((view.current_trick,) if view.current_trick else ())):
        for p in t.plays:
            played.setdefault(p.seat, []).append(p.card)
    lacks = read_plays(knowledge)
    return Evidence(tuple(bounds), {s: tuple(played.get(s, ())) for s in {b.seat for b in bounds}}, lacks,
                    {c: frozenset(p) for c, p in places_for(knowledge, lacks).items()}, taken)


def read_plays(knowledge: Knowledge) -> dict[int, frozenset[str]]:
    """The unseen cards each other seat's plays say it does not hold (see the module docstring)."""
    view = knowledge.view
    c = view.contract
    if c is None or c.bid in MISERE_BIDS:
        return {}
    table = knowledge.table
    suit, power, trump = table.suit, table.power, table.trump
    hidden = {s for s in range(len(view.hand_sizes)) if s != knowledge.seat and s not in knowledge.known_hands}
    gone: set[str] = set()
    lacks: dict[int, set[str]] = {}
    played: dict[int, set[str]] = {}
    for t in (*view.tricks, *((view.current_trick,) if view.current_trick else ())):
        cards = [p.card for p in t.plays]
        led = led_suit(cards[:1], t.nominate, table)
        for i, p in enumerate(t.plays):
            played.setdefault(p.seat, set()).add(p.card)
            if i == 0 or p.seat not in hidden or p.card in JOKERS or \
                    beats(p.card, cards[trick_winner_index(cards[:i], t.nominate, table)], led, table):
                continue
            s = suit[p.card]
            if s == led:
                lower = {x for x in power if suit[x] == s and power[x] < power[p.card]}
            elif s is not None and s != trump:
                lower = {x for x in power if suit[x] is not None and suit[x] != trump and power[x] < power[p.card]}
            else:
                continue
            lacks.setdefault(p.seat, set()).update(lower - gone)
        gone.update(cards)
    unseen = set(knowledge.unseen)
    out = {seat: frozenset(cards & unseen) for seat, cards in lacks.items()
           if not cards & played.get(seat, set()) and cards & unseen}
    # Plays the model cannot all explain (no deal of the unseen cards honours them with the voids): the seat
    # that lacks most is not read, until a deal can honour the rest.
    while out and not placeable(knowledge, out):
        del out[max(out, key=lambda seat: (len(out[seat]), seat))]
    return out


def placeable(knowledge: Knowledge, lacks: Mapping[int, Collection[str]]) -> bool:
    """Whether some deal of the unseen cards honours both the shown voids and ``lacks``: Hall's condition, every
    set of places has room for the cards that fit nowhere else."""
    slots = knowledge.slots
    places = list(slots)
    groups: dict[frozenset[int], int] = {}
    for fits in places_for(knowledge, lacks).values():
        fit = frozenset(fits)
        groups[fit] = groups.get(fit, 0) + 1
    for size in range(1, len(places)):
        for subset in combinations(places, size):
            chosen = set(subset)
            if sum(n for fit, n in groups.items() if fit <= chosen) > sum(slots[p] for p in subset):
                return False
    return not groups.get(frozenset(), 0)


def misfit(evidence: Evidence, state: GameState, knowledge: Knowledge) -> float:
    """By how many tricks the hands of ``state`` miss the bounds of ``evidence`` (0: every bound holds)."""
    return _misfit(evidence, dict(enumerate(state.hands)), knowledge.options)


def _misfit(evidence: Evidence, hands: Mapping[int, Sequence[str]], opts: Options,
            cutoff: float = math.inf) -> float:
    """:func:`misfit` over the hidden seats' ``hands``; it stops counting once the miss reaches ``cutoff`` (a deal
    that misses by that much is not kept anyway)."""
    miss = 0.0
    estimates: dict[tuple[int, str], float] = {}
    for b in evidence.bounds:
        key = (b.seat, b.strain)
        est = estimates.get(key)
        if est is None:
            est = estimates[key] = own_tricks((*hands.get(b.seat, ()), *evidence.played[b.seat]), b.strain, opts)
        if b.low is not None and est < b.low:
            miss += b.low - est
        if b.high is not None and est >= b.high:
            miss += est - b.high
        if miss >= cutoff:
            break
    return miss


def sample(knowledge: Knowledge, rng: random.Random, evidence: Evidence, tries: int | None = None,
           repair_steps: int | None = None) -> GameState:
    """A deal consistent with the view that agrees with the auction (see the module docstring); ``tries`` and
    ``repair_steps`` default by whether the card play has begun."""
    if tries is None:
        tries = TAKEN_TRIES if evidence.taken else TRIES
    if repair_steps is None:
        repair_steps = REPAIR_STEPS if evidence.taken else 0
    best: dict[int, list[str]] | None = None
    best_miss = math.inf
    for _ in range(tries if evidence.bounds else 1):
        placed = deal_unseen(knowledge, rng, lacks=evidence.lacks)
        miss = _misfit(evidence, placed, knowledge.options, best_miss) if evidence.bounds else 0.0
        if miss < best_miss:
            best, best_miss = placed, miss
        if miss == 0.0:
            break
    assert best is not None
    if best_miss > 0.0 and repair_steps:
        best = repair(knowledge, rng, evidence, best, repair_steps)
    return state_from(knowledge, best)


def _seat_misses(evidence: Evidence, hands: Mapping[int, Sequence[str]], opts: Options,
                 seats: Collection[int]) -> dict[int, tuple[float, Bound | None]]:
    """Per seat of ``seats``: by how much its hand misses its bounds, and the bound it misses most."""
    out: dict[int, tuple[float, Bound | None]] = {}
    for seat in seats:
        total, worst, worst_miss = 0.0, None, 0.0
        for b in evidence.bounds:
            if b.seat != seat:
                continue
            est = own_tricks((*hands.get(seat, ()), *evidence.played[seat]), b.strain, opts)
            miss = (b.low - est if b.low is not None and est < b.low else 0.0) + \
                (est - b.high if b.high is not None and est >= b.high else 0.0)
            total += miss
            if miss > worst_miss:
                worst, worst_miss = b, miss
        out[seat] = (total, worst)
    return out


def repair(knowledge: Knowledge, rng: random.Random, evidence: Evidence, placed: dict[int, list[str]],
           steps: int = REPAIR_STEPS) -> dict[int, list[str]]:
    """``placed`` with up to ``steps`` card swaps that each lower its misfit (see the module docstring): the seat
    that misses its bounds most takes a strong card of the strain it misses in from another place for a weak one
    of its own (gives one away, when its hand is above a bound), among the cards the voids and reads let each
    place hold."""
    opts = knowledge.options
    fits = evidence.fits if evidence.fits is not None else {c: frozenset(p) for c, p in
                                                            places_for(knowledge, evidence.lacks).items()}
    hands = {place: list(cards) for place, cards in placed.items()}
    misses = _seat_misses(evidence, hands, opts, {b.seat for b in evidence.bounds})
    for _ in range(steps):
        seat = max(misses, key=lambda s: (misses[s][0], s))
        total, bound = misses[seat]
        if bound is None:
            break
        strength = strain_strength(opts, bound.strain)
        mine = hands[seat]
        if bound.low is not None and own_tricks((*mine, *evidence.played[seat]), bound.strain, opts) < bound.low:
            # Below its bound: a strong card comes in, for the weakest the giving place may hold.
            offered = [(place, c) for place, cards in hands.items() if place != seat for c in cards
                       if strength[c] > 0 and seat in fits[c]]
            if not offered:
                break
            place, card = rng.choices(offered, [strength[c] for _, c in offered])[0]
            out = [c for c in mine if place in fits[c] and strength[c] < strength[card]]
            if not out:
                continue
            weakest = min(strength[c] for c in out)
            gone = rng.choice([c for c in out if strength[c] == weakest])
        else:
            # Above its bound: a strong card goes out, for the weakest card a place that may hold it gives.
            strong = [c for c in mine if strength[c] > 0]
            if not strong:
                break
            gone = rng.choices(strong, [strength[c] for c in strong])[0]
            back = [(place, c) for place, cards in hands.items() if place != seat and place in fits[gone]
                    for c in cards if seat in fits[c] and strength[c] < strength[gone]]
            if not back:
                continue
            weakest = min(strength[c] for _, c in back)
            place, card = rng.choice([(p, c) for p, c in back if strength[c] == weakest])
        mine[mine.index(gone)] = card
        hands[place][hands[place].index(card)] = gone
        changed = {s for s in (seat, place) if s in misses}
        after = _seat_misses(evidence, hands, opts, changed)
        if sum(after[s][0] for s in changed) < sum(misses[s][0] for s in changed) - 1e-9:
            misses.update(after)
        else:
            mine[mine.index(card)] = gone
            hands[place][hands[place].index(gone)] = card
    return hands


__all__ = ["LOWER_SLACK", "REPAIR_STEPS", "TAKEN_MARGIN", "TAKEN_TRIES", "TRIES", "UPPER_SLACK", "Bound", "Evidence",
           "misfit", "placeable", "read_auction", "read_plays", "repair", "sample"]
