"""The cards a seat cannot see, where they may lie, and the game state its view and a deal of them make.

A :class:`engine.SeatView` shows one seat everything the rules let it know. What it does not show is where the
other cards lie; each lies in one *place*: another seat's hand, the kitty, the contractor's discards, the
two-player dead hand, or a ghost's face-down cards. :func:`unseen_places` names those places with their sizes
(seats by number; :data:`KITTY`, :data:`DISCARDS`, :data:`DEAD_HAND` and :func:`face_down_place` for the others)
and :func:`unseen_cards` the cards to put there. :func:`complete_view` takes the view and such a deal of the
unseen cards and gives the full :class:`engine.GameState` they make, with everything the engine derives from the
history (who has passed, the suits led and shown void, the seats in play) derived by the engine's own rules:
``tests/engine/test_unseen.py`` checks, over random games of every player count and rule set, that the state's
view for that seat is the view given, and its legal moves those of the real game.

:func:`known_voids` says which suits each seat has shown it holds none of, which a deal of the unseen cards that
fits the play must respect (the engine checks nothing of the kind: a deal that breaks it makes a state whose
history could not have been played).

What a view does not say, and so a completed state cannot know: the seed of the deals to come, and whether a
no-ace-no-face redeal was proposed and refused this hand (the proposer and the misère bar); after such a refusal
the completed state would let the side bid misère, and another seat propose a redeal.

>>> from engine import Options, new_game, view
>>> state, _ = new_game(Options(), seed=5, first_dealer=3)
>>> seen = view(state, 0)
>>> places = unseen_places(seen, Options())
>>> places, len(unseen_cards(seen, Options()))
({1: 10, 2: 10, 3: 10, -1: 3}, 33)
>>> cards = iter(unseen_cards(seen, Options()))
>>> deal = {place: [next(cards) for _ in range(size)] for place, size in places.items()}
>>> view(complete_view(seen, Options(), deal), 0) == seen
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Final

from engine.auction import apply_call, first_partner
from engine.cards import Strain, sort_hand
from engine.contract import active_seats
from engine.deal import has_dead_hand, pack_for, pack_index
from engine.model import Bid, Call, CallView, Contract, Event, GameState, Move, Pass, SeatView, Trick, TrickView
from engine.options import Options
from engine.rules import hand_strain, sides
from engine.seats import seat_count
from engine.tricks import joker_may_follow, led_suit

#: The place of the kitty's cards while nobody has taken it (or, during the exchange, the cards of the
#: contractor's hand that came from it).
KITTY: Final = -1
#: The place of the contractor's discards.
DISCARDS: Final = -2
#: The place of the two-player dead hand.
DEAD_HAND: Final = -3
#: Cards in the dead hand of the two-player game (``two_player_method=uspcc_dead_hand``).
_DEAD_HAND_SIZE: Final = 10


def face_down_place(ghost: int) -> int:
    """The place of a ghost's face-down cards (ghost partners): below the other places' numbers."""
    return -10 - ghost


def view_strain(view: SeatView, options: Options) -> Strain:
    """The strain table of the hand the view shows (its contract and the jokers' nominations)."""
    c = view.contract
    return hand_strain(options, c.bid if c else None, tuple(sorted(view.joker_nominations.items())))


def known_hands(view: SeatView) -> dict[int, tuple[str, ...]]:
    """The hands the viewer sees whole: its own once it has looked, an exposed open-misère hand, and each ghost's
    face-up cards (the cards a ghost may play; its face-down ones are unseen by all, its partner included)."""
    known: dict[int, tuple[str, ...]] = {}
    if view.seat is not None and view.hand is not None:
        known[view.seat] = view.hand
    for g in view.ghosts:
        known[g.seat] = g.face_up
    for name, cards in view.exposed.items():
        known[int(name)] = cards
    return known


def _kitty_taken(view: SeatView, options: Options) -> bool:
    """Whether the contractor has taken the kitty into its hand this hand (then it is discarded, or being)."""
    c = view.contract
    if c is None or c.sans_kitty:
        return False
    if view.phase == "call":  # five players: the partner call comes before the kitty, or after the exchange
        return options.five_player_call_timing != "before_kitty"
    return view.phase in ("exchange", "nominate", "play", "game_over")


def unseen_places(view: SeatView, options: Options) -> dict[int, int]:
    """Where the cards the viewer cannot see lie, each place with the number of them it holds (see the module
    docstring). During the exchange, a contractor's hand that the viewer cannot see holds the kitty too: under its
    seat, only its own cards are counted (the kitty's are :data:`KITTY`, or seen when the kitty is shown)."""
    known = known_hands(view)
    places = {s: size for s, size in enumerate(view.hand_sizes) if s not in known and size}
    k = view.kitty_size
    c = view.contract
    if view.phase == "exchange" and c is not None and c.contractor in places:
        places[c.contractor] -= k  # the kitty's cards in that hand are a place of their own, or shown to all
    if view.kitty is None and k:
        if not _kitty_taken(view, options) or view.phase == "exchange":
            places[KITTY] = k
        elif view.discards is None:
            places[DISCARDS] = k
    if has_dead_hand(options):
        places[DEAD_HAND] = _DEAD_HAND_SIZE
    for g in view.ghosts:
        if g.face_down:
            places[face_down_place(g.seat)] = g.face_down
    return places


def unseen_cards(view: SeatView, options: Options) -> tuple[str, ...]:
    """The cards of the pack the viewer cannot see, in pack order: those :func:`unseen_places` holds."""
    seen: set[str] = set()
    for cards in known_hands(view).values():
        seen.update(cards)
    for t in (*view.tricks, *((view.current_trick,) if view.current_trick else ())):
        seen.update(p.card for p in t.plays)
    if view.kitty:
        seen.update(view.kitty)
    if view.discards:
        seen.update(view.discards)
    return tuple(x for x in pack_for(options) if x not in seen)


def _tricks_of(view: SeatView) -> tuple[TrickView, ...]:
    return (*view.tricks, *((view.current_trick,) if view.current_trick and view.current_trick.plays else ()))


def known_voids(view: SeatView, options: Options, table: Strain | None = None) -> dict[int, set[str]]:
    """The suits each seat has shown it holds none of this hand: it did not follow the led suit (RULES.md 1.10.2),
    unless the card it played was the high free joker on the suit's first round, which
    ``joker_follow_first_round`` lets a seat play although it holds the suit. ``table``: the hand's strain table
    (:func:`view_strain`), when the caller has it."""
    table = view_strain(view, options) if table is None else table
    voids: dict[int, set[str]] = {}
    led_before: set[str | None] = set()
    for t in _tricks_of(view):
        led = led_suit((t.plays[0].card,), t.nominate, table)
        for p in t.plays[1:]:
            s = table.suit[p.card]
            if led is None or s == led or joker_may_follow(options, p.card, led, led_before, table):
                continue
            voids.setdefault(p.seat, set()).add(led)
        led_before.add(led)
    return voids


def _call(c: CallView) -> Call:
    return Call(c.seat, c.bid, c.sans_kitty)


@lru_cache(maxsize=4096)
def _auction_replayed(opts: Options, dealer: int, calls: tuple[Call, ...]) -> tuple[tuple[bool, ...], bool]:
    """(who has passed, whether the high bidder is making its final call) after ``calls``: the auction replayed by
    the engine's own rules on a hand of no cards (the calls do not depend on the cards; memoised, since every
    completion of one view replays the same calls)."""
    n = seat_count(opts)
    st = GameState(rules_version="", options=opts, seed=0, hand_number=0, dealer=dealer, phase="auction",
                   to_act=(dealer + 1) % opts.players, scores=(0,) * len(sides(opts)), hands=((),) * n, kitty=(),
                   viewed=(True,) * n, passed=(False,) * opts.players)
    events: list[Event] = []
    for call in calls:
        move: Move = Pass(seat=call.seat) if call.bid is None else \
            Bid(seat=call.seat, bid=call.bid, sans_kitty=call.sans_kitty)
        st = apply_call(st, move, events)
    return st.passed, st.raising


def _play_history(tricks: Sequence[TrickView], table: Strain, n: int) -> tuple[str, tuple[str, ...]]:
    """(the suits led this hand, the suits each seat has shown void in), as :func:`engine.play.play` records them
    card by card (the rule of ``joker_lead_restriction=not_shown_void``: any card off the led suit counts)."""
    suits_led = ""
    shown_void = [""] * n
    for t in tricks:
        led = led_suit((t.plays[0].card,), t.nominate, table)
        if led and led not in suits_led:
            suits_led += led
        for p in t.plays[1:]:
            if led is not None and table.suit[p.card] != led and led not in shown_void[p.seat]:
                shown_void[p.seat] += led
    return suits_led, tuple(shown_void)


def _contract(view: SeatView, opts: Options) -> Contract | None:
    """The contract the view shows, with what the state keeps of the five-player partner question."""
    cv = view.contract
    if cv is None:
        return None
    phase = view.phase
    # Five players: the partner question is open until the call, which comes before the kitty or after it.
    settled = opts.players != 5 or cv.alone or not (
        phase == "call" or (phase == "exchange" and opts.five_player_call_timing != "before_kitty"))
    chosen = cv.partners if opts.players == 5 and opts.five_player_partner_method == "choose_player" \
        and settled and not cv.alone else ()
    return Contract(bid=cv.bid, contractor=cv.contractor, sans_kitty=cv.sans_kitty, sitting_out=cv.sitting_out,
                    called_card=cv.called_card, chosen_partners=tuple(sorted(chosen)), alone=cv.alone,
                    partner_settled=settled)


def _redeal_proposer(view: SeatView, opts: Options) -> int | None:
    """While a no-ace-no-face redeal is being answered, the seat that proposed it: the one whose partner answers."""
    answering = view.to_act
    if view.phase != "redeal_answer" or answering is None:
        return None
    return next(s for s in range(opts.players) if s != answering and first_partner(opts, s) == answering)


def complete_view(view: SeatView, options: Options, placed: Mapping[int, Sequence[str]]) -> GameState:
    """The game state that ``view`` (of a seat) shows, with the unseen cards where ``placed`` puts them: each place
    of :func:`unseen_places` mapped to as many cards as it holds, together :func:`unseen_cards`. Hands and discards
    are put in pack order, a kitty nobody has seen keeps the order given, and a ghost's face-down cards lie, in
    the order given, under its ``covered`` cards in theirs. See the module docstring for what no view says."""
    if view.seat is None:
        raise ValueError("a completion is of a seat's view, not the public view")
    opts = options
    n = seat_count(opts)
    index = pack_index(opts)
    known = known_hands(view)
    phase = view.phase
    cv = view.contract
    kitty: tuple[str, ...] = ()
    if view.kitty is not None:
        kitty = view.kitty
    elif KITTY in placed:
        kitty = tuple(placed[KITTY])
    exchange = phase == "exchange" and cv is not None
    hands: list[tuple[str, ...]] = []
    for s in range(n):
        if s in known:
            hands.append(known[s])
        elif exchange and cv is not None and s == cv.contractor:  # its hand holds the kitty during the exchange
            hands.append(sort_hand((*placed.get(s, ()), *kitty), index))
        else:
            hands.append(sort_hand(placed.get(s, ()), index))
    discards: tuple[str, ...] = ()
    if view.discards:
        discards = view.discards
    elif DISCARDS in placed:
        discards = sort_hand(placed[DISCARDS], index)
    contract = _contract(view, opts)
    calls = tuple(_call(c) for c in view.auction)
    passed, raising = _auction_replayed(opts, view.dealer, calls)
    proposer = _redeal_proposer(view, opts)
    table = view_strain(view, opts)
    played = phase in ("play", "game_over")
    tricks = tuple(Trick(t.leader, tuple(p.card for p in t.plays), t.nominate, t.winner) for t in view.tricks)
    trick = None
    ct = view.current_trick
    if ct is not None and ct.plays:
        trick = Trick(ct.leader, tuple(p.card for p in ct.plays), ct.nominate, None)
    active = active_seats(opts, view.contract.sitting_out if view.contract else ()) if played else ()
    suits_led, shown_void = _play_history(_tricks_of(view), table, n) if played else ("", ())
    piles: list[tuple[tuple[str, str], ...]] = [()] * n
    for g in view.ghosts:
        piles[g.seat] = tuple(zip(g.covered, placed.get(face_down_place(g.seat), ()), strict=True))
    return GameState(
        rules_version=view.rules_version, options=opts, seed=0, hand_number=view.hand_number, dealer=view.dealer,
        phase=phase, to_act=view.to_act, scores=view.scores, hands=tuple(hands),
        dead_hand=sort_hand(placed.get(DEAD_HAND, ()), index), ghost_piles=tuple(piles) if view.ghosts else (),
        kitty=kitty, discards=discards, viewed=view.looked,
        kitty_shown=opts.show_kitty and _kitty_taken(view, opts), calls=calls, passed=passed,
        high=None if view.high_bid is None else _call(view.high_bid), raising=raising, redeal_proposer=proposer,
        contract=contract, nominations=tuple(sorted(view.joker_nominations.items())),
        active=active, tricks=tricks, trick=trick, suits_led=suits_led,
        shown_void=shown_void, tricks_won=view.tricks_won, result=view.result, last_hand=view.last_hand,
    )


__all__ = ["DEAD_HAND", "DISCARDS", "KITTY", "complete_view", "face_down_place", "known_hands", "known_voids",
           "unseen_cards", "unseen_places", "view_strain"]
