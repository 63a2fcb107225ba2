"""What a seat knows, from its view alone, and the game states consistent with it.

A bot never receives the game state. It receives the seat's :class:`engine.SeatView` (the information set the
rules let that seat have) and the options. This module turns that view into:

- :class:`Knowledge`: the seat's own cards, the cards it has seen (played, exposed, the kitty or its discards
  when it saw them), the unseen cards, and the *places* the unseen cards may be (other hands, the kitty, the
  discards, the two-player dead hand, a ghost's face-down cards) with their sizes and the suits each hand has
  shown void in (a ghost's face-up cards are known to all; its face-down cards are unseen by all, its partner
  included);
- :func:`determinize`: one full :class:`engine.GameState` drawn uniformly among the deals consistent with that
  knowledge (voids respected), for search and for asking the engine which moves are legal.

Because everything is computed from the view, a bot cannot peek: permuting the cards the seat cannot see among
the places it cannot see changes nothing here (the property test in ``tests/bots`` proves it).

Limits, written down: a view holds no memory of earlier phases, so a seat forgets, once play starts, which kitty
cards a ``show_kitty`` game showed it; and a view does not say whether a refused no-ace-no-face redeal barred
this side from misère, so the legal moves derived here may list a misère bid the engine would refuse. Callers
that hold the seat's legal-move list (which the API serves to that seat) pass it to :func:`bots.decide`, which
then chooses among those.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import msgspec

from engine import GameState, Options, SeatView, sides
from engine.cards import Strain, sort_hand
from engine.deal import has_dead_hand, pack_for, pack_index
from engine.model import Call, CallView, Contract, Trick
from engine.rules import MISERE_BIDS, hand_strain
from engine.seats import controlled_seats, seat_count
from engine.tricks import joker_may_follow

#: Names of the places unseen cards can be.
KITTY = -1
DISCARDS = -2
DEAD_HAND = -3


class Knowledge:
    """One seat's information set, derived from its view (see the module docstring)."""

    __slots__ = ("view", "options", "seat", "hand", "table", "unseen", "slots", "voids", "known_hands",
                 "kitty_known", "discards_known", "played")

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
        n = seat_count(options)
        pack = pack_for(options)
        c = view.contract
        self.table: Strain = hand_strain(options, c.bid if c else None,
                                         tuple(sorted(view.joker_nominations.items())))
        seen: set[str] = set()
        ghosts = {g.seat: g for g in view.ghosts}
        self.hand: tuple[str, ...] | None = ghosts[seat].face_up if seat in ghosts else view.hand
        if view.hand is not None:
            seen.update(view.hand)
        played: list[str] = []
        for t in (*view.tricks, *((view.current_trick,) if view.current_trick else ())):
            played.extend(p.card for p in t.plays)
        self.played = tuple(played)
        seen.update(played)
        known_hands: dict[int, tuple[str, ...]] = {view.seat: view.hand} if view.hand is not None else {}
        for g in view.ghosts:  # a ghost's face-up cards are seen by all; its face-down ones by nobody
            known_hands[g.seat] = g.face_up
            seen.update(g.face_up)
        for name, cards in view.exposed.items():
            if int(name) != seat:
                known_hands[int(name)] = cards
                seen.update(cards)
        self.known_hands = known_hands
        phase = view.phase
        k = view.kitty_size
        # The kitty: visible during the exchange (inside the contractor's hand, so already seen); unseen before
        # it is taken, and for the whole hand when nobody takes it (sans kitty, or the all-pass NT play-out).
        self.kitty_known: tuple[str, ...] | None = view.kitty
        kitty_hidden = 0
        if phase in ("auction", "redeal_answer"):
            kitty_hidden = k
        elif phase == "call":  # five players: before the kitty is taken (or sans kitty), it is unseen
            kitty_hidden = 0 if view.discards else k
        elif phase in ("nominate", "play", "game_over") and (c is None or c.sans_kitty):
            kitty_hidden = k
        self.discards_known: tuple[str, ...] | None = view.discards
        if view.discards:
            seen.update(view.discards)
        discards_hidden = 0
        if c is not None and not c.sans_kitty and phase in ("nominate", "play") and not view.discards:
            discards_hidden = k
        slots: dict[int, int] = {}
        for s in range(n):
            if s in known_hands:
                continue
            slots[s] = view.hand_sizes[s]
        if kitty_hidden:
            slots[KITTY] = kitty_hidden
        if discards_hidden:
            slots[DISCARDS] = discards_hidden
        if has_dead_hand(options) and phase != "game_over":
            slots[DEAD_HAND] = 10
        for g in view.ghosts:
            if g.face_down:
                slots[face_down_slot(g.seat)] = g.face_down
        self.slots = slots
        self.unseen = tuple(x for x in pack if x not in seen)
        if len(self.unseen) != sum(slots.values()):
            raise ValueError(f"the view does not add up: {len(self.unseen)} unseen cards for "
                             f"{sum(slots.values())} unseen places")
        self.voids = _voids(view, options, self.table)

    def partners(self) -> tuple[int, ...]:
        """The seats on this seat's side for the hand being played, as far as it knows."""
        return team_of(self.view, self.seat)


def team_of(view: SeatView, seat: int) -> tuple[int, ...]:
    """``seat`` and the seats known to play on its side this hand (contract partnerships, else fixed sides)."""
    c = view.contract
    if c is None:
        for members in view.sides:
            if seat in members:
                return members
        return (seat,)
    if c.bid in MISERE_BIDS:
        return (seat,)
    contracting = (c.contractor, *c.partners)
    if seat in contracting:
        return tuple(contracting)
    seats = len(view.hand_sizes)
    if len(view.sides) == seats:  # every seat for itself: the defenders are one side against it
        return tuple(s for s in range(seats) if s not in contracting)
    for members in view.sides:
        if seat in members:
            return members
    return (seat,)


def _voids(view: SeatView, options: Options, table: Strain) -> dict[int, set[str]]:
    """Suits each seat has shown void in: it did not follow the led suit (RULES.md 1.10.2).

    The one exception is ``joker_follow_first_round``: the un-nominated joker played to a suit's first lead
    proves nothing about that suit.
    """
    voids: dict[int, set[str]] = {}
    led_before: set[str | None] = set()
    for t in (*view.tricks, *((view.current_trick,) if view.current_trick else ())):
        if not t.plays:
            continue
        first = t.plays[0].card
        led = table.suit[first] or t.nominate
        for p in t.plays[1:]:
            s = table.suit[p.card]
            if led is None or s == led:
                continue
            if joker_may_follow(options, p.card, led, led_before, table):
                continue
            voids.setdefault(p.seat, set()).add(led)
        led_before.add(led)
    return voids


def deal_unseen(knowledge: Knowledge, rng: random.Random, tries: int = 30) -> dict[int, list[str]]:
    """Place every unseen card in an unseen place, uniformly among placements that respect the shown voids.

    Cards that fit fewer places are placed first; a dead end restarts (``tries`` times), after which the voids
    are relaxed rather than fail (a view whose voids cannot all be honoured does not arise in legal play).
    """
    slots = knowledge.slots
    suit = knowledge.table.suit
    voids = knowledge.voids
    cards = list(knowledge.unseen)
    for attempt in range(tries + 1):
        relax = attempt == tries
        rng.shuffle(cards)
        room = dict(slots)
        placed: dict[int, list[str]] = {s: [] for s in slots}

        def fits(card: str, place: int, room: dict[int, int] = room, relax: bool = relax) -> bool:
            return room[place] > 0 and (relax or place < 0 or suit[card] not in voids.get(place, ()))

        order = sorted(cards, key=lambda x: sum(1 for p in slots if fits(x, p)))
        ok = True
        for card in order:
            options = [p for p in slots if fits(card, p)]
            if not options:
                ok = False
                break
            weights = [room[p] for p in options]
            place = rng.choices(options, weights)[0]
            placed[place].append(card)
            room[place] -= 1
        if ok:
            return placed
    raise AssertionError("unreachable: the relaxed placement always succeeds")


def determinize(knowledge: Knowledge, rng: random.Random) -> GameState:
    """A full game state consistent with the seat's knowledge (one sample of the unseen cards)."""
    return state_from(knowledge, deal_unseen(knowledge, rng))


def state_from(knowledge: Knowledge, placed: dict[int, list[str]]) -> GameState:
    """The game state with the seat's known cards and the unseen cards where ``placed`` puts them."""
    view = knowledge.view
    opts = knowledge.options
    n = seat_count(opts)
    index = pack_index(opts)

    def ordered(cards: Sequence[str]) -> tuple[str, ...]:
        return sort_hand(cards, index)

    hands = tuple(ordered(knowledge.known_hands[s]) if s in knowledge.known_hands else ordered(placed[s])
                  for s in range(n))
    phase = view.phase
    cv = view.contract
    kitty: tuple[str, ...] = ()
    if knowledge.kitty_known is not None:
        kitty = knowledge.kitty_known
    elif KITTY in placed:
        kitty = ordered(placed[KITTY])
    discards: tuple[str, ...] = ()
    if knowledge.discards_known:
        discards = knowledge.discards_known
    elif DISCARDS in placed:
        discards = ordered(placed[DISCARDS])
    contract = None
    if cv is not None:
        settled = phase not in ("call",)
        chosen = cv.partners if opts.five_player_partner_method == "choose_player" and settled else ()
        contract = Contract(bid=cv.bid, contractor=cv.contractor, sans_kitty=cv.sans_kitty,
                            sitting_out=cv.sitting_out, called_card=cv.called_card,
                            chosen_partners=tuple(sorted(chosen)), alone=cv.alone,
                            partner_settled=settled or cv.alone)
    high = view.high_bid
    raising = (phase == "auction" and high is not None and view.to_act == high.seat and opts.final_bidder_may_raise)
    table = knowledge.table
    playing = phase == "play"
    tricks: list[Trick] = []
    suits_led = ""
    shown_void = [""] * n
    for tv in view.tricks:
        tricks.append(Trick(tv.leader, tuple(p.card for p in tv.plays), tv.nominate, tv.winner))
    trick = None
    if view.current_trick is not None and view.current_trick.plays:
        ct = view.current_trick
        trick = Trick(ct.leader, tuple(p.card for p in ct.plays), ct.nominate, None)
    for tv in (*view.tricks, *((view.current_trick,) if view.current_trick else ())):
        if not tv.plays:
            continue
        led = table.suit[tv.plays[0].card] or tv.nominate
        if led and led not in suits_led:
            suits_led += led
        for p in tv.plays[1:]:
            if led is not None and table.suit[p.card] != led and led not in shown_void[p.seat]:
                shown_void[p.seat] += led
    active: tuple[int, ...] = ()
    if playing or view.tricks:
        out = set(cv.sitting_out) if cv else set()
        active = tuple(s for s in range(n) if s not in out)
    passed = _passed(view, opts)
    # Ghost partners: each covered face-up card lies on one of the cards placed face down for that ghost.
    ghost_piles = tuple(
        tuple(zip(g.covered, ordered(placed.get(face_down_slot(g.seat), ())), strict=True)) for g in view.ghosts)
    return GameState(
        rules_version=view.rules_version, options=opts, seed=0, hand_number=view.hand_number, dealer=view.dealer,
        phase=phase, to_act=view.to_act, scores=view.scores, hands=hands,
        dead_hand=ordered(placed.get(DEAD_HAND, ())),
        ghost_piles=((),) * (n - len(ghost_piles)) + ghost_piles if ghost_piles else (), kitty=kitty,
        discards=discards, viewed=view.looked,
        kitty_shown=opts.show_kitty and phase == "exchange", calls=tuple(_call(c) for c in view.auction), passed=passed,
        high=None if high is None else _call(high),
        raising=raising, contract=contract, nominations=tuple(sorted(view.joker_nominations.items())),
        active=active, tricks=tuple(tricks), trick=trick, suits_led=suits_led,
        shown_void=tuple(shown_void) if (playing or view.tricks) else (),
        tricks_won=view.tricks_won if (playing or view.tricks) else (), result=view.result,
        last_hand=view.last_hand,
    )


def face_down_slot(ghost: int) -> int:
    """The place name of a ghost's face-down cards (ghost partners): below the other places' names."""
    return -10 - ghost


def _passed(view: SeatView, opts: Options) -> tuple[bool, ...]:
    """Who has passed in the auction so far (a bid that changes strain reopens it under
    ``pass_is_final=reopen_on_suit_change``); the engine's turn order is already in ``view.to_act``."""
    n = opts.players
    passed = [False] * n
    last_bid: dict[int, str] = {}
    for call in view.auction:
        if call.bid is None:
            passed[call.seat] = True
            continue
        from engine.rules import bid_strain

        previous = last_bid.get(call.seat)
        if opts.pass_is_final == "reopen_on_suit_change" and previous is not None and \
                bid_strain(previous) != bid_strain(call.bid):
            passed = [False] * n
        last_bid[call.seat] = call.bid
    return tuple(passed)


def side_index(opts: Options, seat: int) -> int:
    for i, members in enumerate(sides(opts)):
        if seat in members:
            return i
    raise ValueError(f"no side holds seat {seat}")


def replace_view(view: SeatView, **changes: object) -> SeatView:
    return msgspec.structs.replace(view, **changes)


def _call(call: CallView) -> Call:
    """The state's compact auction call for a call as the view shows it."""
    return Call(seat=call.seat, bid=call.bid, sans_kitty=call.sans_kitty)
