"""What a seat knows, from its view alone, and the game states consistent with it.

A bot never receives the game state. It receives the seat's :class:`engine.SeatView` (the information set the
rules let that seat have) and the options. This module turns that view into:

- :class:`Knowledge`: the seat's own cards, the cards it has seen (played, exposed, the kitty or its discards
  when it saw them), the unseen cards, and the *places* the unseen cards may be (other hands, the kitty, the
  discards, the two-player dead hand, a ghost's face-down cards) with their sizes and the suits each hand has
  shown void in (a ghost's face-up cards are known to all; its face-down cards are unseen by all, its partner
  included), each as the engine's :mod:`engine.unseen` says;
- :func:`determinize`: one full :class:`engine.GameState` drawn uniformly among the deals consistent with that
  knowledge (voids respected), for search and for asking the engine which moves are legal: the deal is drawn
  here, and the state it makes with the view is the engine's (:func:`engine.unseen.complete_view`).

Because everything is computed from the view, a bot cannot peek: permuting the cards the seat cannot see among
the places it cannot see changes nothing here (the property test in ``tests/bots`` proves it).

Limits, written down: a view holds no memory of earlier phases, so a seat forgets, once play starts, which kitty
cards a ``show_kitty`` game showed it; and a view does not say whether a refused no-ace-no-face redeal barred
this side from misère, so the legal moves derived here may list a misère bid the engine would refuse. Callers
that hold the seat's legal-move list (which the API serves to that seat) pass it to :func:`bots.decide`, which
then chooses among those.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Collection, Mapping, Sequence

from engine import GameState, Options, SeatView
from engine.cards import Strain
from engine.contract import playing_together
from engine.deal import pack_index
from engine.rules import MISERE_BIDS
from engine.seats import controlled_seats
from engine.unseen import (
    DEAD_HAND,
    DISCARDS,
    KITTY,
    complete_view,
    face_down_place,
    known_hands,
    known_voids,
    unseen_cards,
    unseen_places,
    view_strain,
)

#: The place of a ghost's face-down cards (:func:`engine.unseen.face_down_place`).
face_down_slot = face_down_place


class Knowledge:
    """One seat's information set, derived from its view (see the module docstring)."""

    __slots__ = ("view", "options", "seat", "hand", "table", "unseen", "slots", "voids", "known_hands",
                 "kitty_known", "discards_known", "played", "groups")

    def __init__(self, view: SeatView, options: Options) -> None:
        if view.seat is None:
            raise ValueError("a bot plays for a seat, not for a spectator")
        self.view = view
        self.options = options
        # The seat deciding: the viewer, or (ghost partners) the viewer's ghost when the ghost is to act; the
        # viewer's own cards stay known either way.
        acting = view.to_act is not None and view.to_act != view.seat and \
            view.to_act in controlled_seats(options, view.seat)
        seat = self.seat = view.to_act if acting and view.to_act is not None else view.seat
        self.table: Strain = view_strain(view, options)
        ghosts = {g.seat: g for g in view.ghosts}
        self.hand: tuple[str, ...] | None = ghosts[seat].face_up if seat in ghosts else view.hand
        self.played = tuple(p.card for t in (*view.tricks, *((view.current_trick,) if view.current_trick else ()))
                            for p in t.plays)
        self.known_hands = known_hands(view)
        self.kitty_known: tuple[str, ...] | None = view.kitty
        self.discards_known: tuple[str, ...] | None = view.discards
        self.slots = unseen_places(view, options)
        self.unseen = unseen_cards(view, options)
        if len(self.unseen) != sum(self.slots.values()):
            raise ValueError(f"the view does not add up: {len(self.unseen)} unseen cards for "
                             f"{sum(self.slots.values())} unseen places")
        self.voids = known_voids(view, options, self.table)
        #: :func:`placement_groups` per set of reads, filled as asked (a pure memo of this view's answers).
        self.groups: dict[frozenset[tuple[int, frozenset[str]]], Groups] = {}

    def partners(self) -> tuple[int, ...]:
        """The seats on this seat's side for the hand being played, as far as it knows."""
        return team_of(self.view, self.seat)


def team_of(view: SeatView, seat: int) -> tuple[int, ...]:
    """``seat`` and the seats known to play on its side this hand (:func:`engine.contract.playing_together`, with
    the contract's partners as far as the view shows them)."""
    c = view.contract
    contracting = None if c is None else (c.contractor,) if c.bid in MISERE_BIDS else (c.contractor, *c.partners)
    return playing_together(view.sides, contracting)[seat]


def places_for(knowledge: Knowledge, lacks: Mapping[int, Collection[str]]) -> dict[str, list[int]]:
    """Each unseen card's places: every place below zero (not a seat's hand), and each seat that has not shown
    void in the card's suit nor is taken to lack the card (``lacks``)."""
    suit, voids, places = knowledge.table.suit, knowledge.voids, list(knowledge.slots)
    return {card: [p for p in places if p < 0 or (suit[card] not in voids.get(p, ()) and card not in lacks.get(p, ()))]
            for card in knowledge.unseen}


#: How the unseen cards may be placed under some reads: each group of cards that fit the same places, as (the
#: places, the cards), groups with fewer places first (:func:`placement_groups`).
Groups = tuple[tuple[tuple[int, ...], tuple[str, ...]], ...]


def placement_groups(knowledge: Knowledge, lacks: Mapping[int, Collection[str]]) -> Groups:
    """The unseen cards grouped by the places each may go to (:func:`places_for`), groups of fewer places first
    (then in the order of their first card among the unseen, for a fixed order). Kept on the knowledge per set of
    ``lacks``: a search samples hundreds of deals of one view under the same reads."""
    key = frozenset((p, frozenset(c)) for p, c in lacks.items())
    cached = knowledge.groups.get(key)
    if cached is not None:
        return cached
    by_fit: dict[tuple[int, ...], list[str]] = {}
    for card, fits in places_for(knowledge, lacks).items():
        by_fit.setdefault(tuple(fits), []).append(card)
    groups = tuple(sorted(((fit, tuple(cards)) for fit, cards in by_fit.items()), key=lambda g: len(g[0])))
    knowledge.groups[key] = groups
    return groups


def _below(bits: Callable[[int], int], n: int) -> int:
    """A random integer in ``[0, n)``, ``n > 0``: the draw ``random.Random`` makes for its ``sample`` and
    ``shuffle`` (its ``_randbelow``, from ``getrandbits``, here the generator's bound ``bits``), from the same
    bits."""
    k = n.bit_length()
    r = bits(k)
    while r >= n:
        r = bits(k)
    return r


def shuffled(rng: random.Random, items: list[str]) -> None:
    """``rng.shuffle(items)``: the same order from the same random bits, without the interpreted call per card
    (this module is compiled; :mod:`random`'s methods are Python). tests/bots/test_knowledge.py holds the two
    equal."""
    bits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        j = _below(bits, i + 1)
        items[i], items[j] = items[j], items[i]


def sampled(rng: random.Random, population: Sequence[int], k: int, spare: bool = False) -> list[int]:
    """``rng.sample(population, k)``: the same picks in the same order from the same random bits (its two
    methods, a pool for a small population and a set of picks for a large one, chosen by the same sizes). With
    ``spare``, a ``population`` list the caller no longer needs is the pool itself (reordered), not a copy."""
    n = len(population)
    if not 0 <= k <= n:
        raise ValueError("sample larger than population or is negative")
    setsize = 21
    if k > 5:
        setsize += 4 ** math.ceil(math.log(k * 3, 4))
    result: list[int] = []
    bits = rng.getrandbits
    if n <= setsize:
        pool = population if spare and isinstance(population, list) else list(population)
        for i in range(k):
            j = _below(bits, n - i)
            result.append(pool[j])
            pool[j] = pool[n - i - 1]
        return result
    selected: set[int] = set()
    for _ in range(k):
        j = _below(bits, n)
        while j in selected:
            j = _below(bits, n)
        selected.add(j)
        result.append(population[j])
    return result


def deal_groups(knowledge: Knowledge,
                lacks: Mapping[int, Collection[str]] | None = None) -> tuple[Groups, Groups] | None:
    """What :func:`deal_unseen` places the unseen cards by under ``lacks``: the groups with the voids alone and with
    ``lacks`` too (:func:`placement_groups`), or None when there is neither a void nor a read to respect (the cards
    are then shuffled and cut). For a caller that deals many times under the same reads."""
    slots = knowledge.slots
    voids = knowledge.voids
    lacking = {p: c for p, c in (lacks or {}).items() if p in slots and c}
    if not lacking and not any(voids.get(p) for p in slots if p >= 0):
        return None
    voids_only = placement_groups(knowledge, {})
    return voids_only, placement_groups(knowledge, lacking) if lacking else voids_only


def deal_unseen(knowledge: Knowledge, rng: random.Random, tries: int = 30,
                lacks: Mapping[int, Collection[str]] | None = None) -> dict[int, list[str]]:
    """Place every unseen card in an unseen place, at random among placements that respect the shown voids and
    ``lacks`` (cards a seat is taken not to hold, :func:`bots.inference.read_plays`).

    The cards are placed a group at a time (:func:`placement_groups`: the cards that fit the same places),
    the groups that fit fewer places first; a group's cards take places drawn without replacement among the room
    its places have left, each unit of room alike (so a place takes a share of the group in proportion to its
    room: with no void and no read, every card lands in each place in proportion to its size). A dead end (a
    group with more cards than room) restarts (``tries`` times: the first half honour ``lacks``, the rest the
    voids alone), after which the voids are relaxed rather than fail (a view whose voids cannot all be honoured
    does not arise in legal play).
    """
    return deal_by(knowledge, rng, deal_groups(knowledge, lacks), tries)


def deal_by(knowledge: Knowledge, rng: random.Random, groups: tuple[Groups, Groups] | None,
            tries: int = 30) -> dict[int, list[str]]:
    """:func:`deal_unseen` by the :func:`deal_groups` of its reads."""
    slots = knowledge.slots
    if groups is None:
        # No void to respect: a shuffle cut into the places' sizes is the same uniform draw, much faster.
        cards = list(knowledge.unseen)
        shuffled(rng, cards)
        out: dict[int, list[str]] = {}
        start = 0
        for place, size in slots.items():
            out[place] = cards[start:start + size]
            start += size
        return out
    voids_only, with_lacks = groups
    relaxed: Groups = ((tuple(slots), tuple(knowledge.unseen)),)
    for attempt in range(tries + 1):
        now = relaxed if attempt == tries else (with_lacks if attempt < tries // 2 else voids_only)
        room = dict(slots)
        placed: dict[int, list[str]] = {p: [] for p in slots}
        ok = True
        for fits, group in now:
            units = [p for p in fits for _ in range(room[p])]
            if len(units) < len(group):
                ok = False
                break
            for card, place in zip(group, sampled(rng, units, len(group), spare=True), strict=True):
                placed[place].append(card)
                room[place] -= 1
        if ok:
            return placed
    raise AssertionError("unreachable: the relaxed placement always succeeds")


def determinize(knowledge: Knowledge, rng: random.Random) -> GameState:
    """A full game state consistent with the seat's knowledge (one sample of the unseen cards)."""
    return state_from(knowledge, deal_unseen(knowledge, rng))


def state_from(knowledge: Knowledge, placed: dict[int, list[str]]) -> GameState:
    """The game state with the seat's known cards and the unseen cards where ``placed`` puts them
    (:func:`engine.unseen.complete_view`; each place's cards in pack order)."""
    index = pack_index(knowledge.options)
    ordered = {place: sorted(cards, key=index.__getitem__) for place, cards in placed.items()}
    return complete_view(knowledge.view, knowledge.options, ordered)


__all__ = ["DEAD_HAND", "DISCARDS", "KITTY", "Groups", "Knowledge", "deal_by", "deal_groups", "deal_unseen",
           "determinize", "face_down_slot", "placement_groups", "places_for", "sampled", "shuffled", "state_from",
           "team_of"]
