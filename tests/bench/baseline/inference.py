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
no lower card of the suit it followed (no lower plain card, when it discarded). Under another side's winning card
the policy takes the trick when it can (second to play, only with a card no one can beat, or by trumping a plain
suit it has none of), so such a seat also held no card that would have taken it; last to play, a seat takes
another side's trick with its cheapest card that does. A lead below the best card left in its suit is the
policy's lowest card of a suit, and it leads a card no one can beat in a plain suit whenever it holds one: such a
seat holds no lower card of the suit it led and, when that suit is plain, the best card left in no plain suit.
These reads wait, in the five-player game, until the called partner is known (a seat's side decides its play).
:func:`read_plays` lists, per seat, the unseen cards such plays say it lacks, and the sampler deals them elsewhere
(a seat whose later plays break the model, by playing such a card after all, is not read; nor is any seat at misère,
which plays otherwise; nor, while no deal of the unseen cards could honour all the reads with the shown voids, the
seat said to lack most).

Each consistent deal gets a *misfit*: by how many tricks, summed over the seats, their hands miss what their calls
said. :func:`sample` draws up to :data:`TRIES` deals and keeps the first that fits, else the one that misfits
least (a cheap rejection sampler: the per-deal cost is one trick estimate per seat and strain that called).
All randomness comes from the ``rng`` passed in.
"""

from __future__ import annotations

import math
import random
from collections.abc import Collection, Mapping, Sequence
from itertools import combinations

import msgspec

from engine import GameState, Options
from engine.cards import JOKERS
from engine.rules import MISERE_BIDS, bid_level, bid_strain, ladder
from engine.tricks import beats, led_suit, trick_winner_index
from tests.bench.baseline.basic import STRAINS, helper_tricks, own_tricks
from tests.bench.baseline.knowledge import Knowledge, deal_unseen, places_for, state_from, team_of

#: Deals drawn per sample to find one that agrees with the auction.
TRIES = 10

#: How far (in tricks) a hand's estimate may sit beyond what its calls said before the deal counts as a misfit:
#: the ``basic`` bidder bids when its estimate reaches the bid's level less a quarter trick, and other bidders
#: judge hands differently, so the bounds are loose.
LOWER_SLACK = 1.5
UPPER_SLACK = 1.0


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
    for seat, bid in last_bid.items():
        if seat in hidden:
            bounds.append(Bound(seat, bid_strain(bid), bid_level(bid) - extra - LOWER_SLACK, None))
    played: dict[int, list[str]] = {}
    for t in (*view.tricks, *((view.current_trick,) if view.current_trick else ())):
        for p in t.plays:
            played.setdefault(p.seat, []).append(p.card)
    return Evidence(tuple(bounds), {s: tuple(played.get(s, ())) for s in {b.seat for b in bounds}},
                    read_plays(knowledge))


def read_plays(knowledge: Knowledge) -> dict[int, frozenset[str]]:
    """The unseen cards each other seat's plays say it does not hold (see the module docstring)."""
    view = knowledge.view
    c = view.contract
    if c is None or c.bid in MISERE_BIDS:
        return {}
    table = knowledge.table
    suit, power, trump = table.suit, table.power, table.trump
    hidden = {s for s in range(len(view.hand_sizes)) if s != knowledge.seat and s not in knowledge.known_hands}
    seats_playing = view.players - len(c.sitting_out)
    plain_suits = {suit[x] for x in power} - {None, trump}
    # Who is on whose side, as the seats themselves know it (a called partner not yet shown knows more than the
    # others do): the reads that need it wait until every seat can know it.
    sides_known = c.partners_known
    gone: set[str] = set()
    lacks: dict[int, set[str]] = {}
    played: dict[int, set[str]] = {}

    def top(s: str | None, out: Collection[str] = ()) -> str | None:
        """The highest card of effective suit ``s`` not yet played nor in ``out``."""
        cards = [x for x in power if suit[x] == s and x not in gone and x not in out]
        return max(cards, key=power.__getitem__) if cards else None

    def below(s: str | None, card: str) -> set[str]:
        """The cards of effective suit ``s`` below ``card``."""
        return {x for x in power if suit[x] == s and power[x] < power[card]}

    for t in (*view.tricks, *((view.current_trick,) if view.current_trick else ())):
        cards = [p.card for p in t.plays]
        led = led_suit(cards[:1], t.nominate, table)
        for i, p in enumerate(t.plays):
            played.setdefault(p.seat, set()).add(p.card)
            if p.seat not in hidden or p.card in JOKERS:
                continue
            s = suit[p.card]
            said: set[str] = set()
            if i == 0:
                # A lead below the best card left in its suit: the standard policy leads a card no one can beat
                # when it holds one in a plain suit (or, contracting, in trumps while others hold trumps), and
                # else the lowest card of a suit. So the seat holds no lower card of the suit it led, and, if it
                # led a plain suit, the best card left in no plain suit.
                if sides_known and s is not None and top(s) != p.card:
                    said = below(s, p.card)
                    if s != trump:
                        for plain in plain_suits:
                            best = top(plain)
                            if best is not None and best not in JOKERS:
                                said.add(best)
            else:
                w = trick_winner_index(cards[:i], t.nominate, table)
                winning = cards[w]
                last = i == seats_playing - 1
                took = beats(p.card, winning, led, table)
                against = sides_known and (last or not took) and t.plays[w].seat not in team_of(view, p.seat)
                # The cards that would have taken the trick, of those the seat could play (of the suit led, if
                # it followed it).
                takers = {x for x in power if x not in JOKERS and (s != led or suit[x] == led) and
                          beats(x, winning, led, table)} if against else set()
                if took:
                    if last:
                        # Last to play, it takes another side's trick with its cheapest card that does.
                        said = {x for x in takers if power[x] < power[p.card]}
                else:
                    if s == led:
                        said = below(s, p.card)
                    elif s is not None and s != trump:
                        said = {x for x in power if suit[x] is not None and suit[x] != trump and
                                power[x] < power[p.card]}
                    # Under another side's winning card, the standard policy takes the trick when it can: last
                    # to play, or third or later, with any card that wins; second, with one no one can beat, or
                    # by trumping a plain suit it has none of.
                    if i == 1 and not last:
                        if s == led:
                            best = top(led, cards[:i])
                            takers = {best} & takers if best is not None else set()
                        elif trump is None or led == trump:
                            takers = set()
                    said |= takers
            lacks.setdefault(p.seat, set()).update(said - gone)
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


def sample(knowledge: Knowledge, rng: random.Random, evidence: Evidence, tries: int = TRIES) -> GameState:
    """A deal consistent with the view that agrees with the auction (see the module docstring)."""
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
    return state_from(knowledge, best)


__all__ = ["LOWER_SLACK", "TRIES", "UPPER_SLACK", "Bound", "Evidence", "misfit", "placeable", "read_auction",
           "read_plays", "sample"]
