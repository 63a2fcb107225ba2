"""Per-seat and public views, and event redaction: what each seat may know, and nothing else.

A seat sees its own hand (once it has looked), the auction, the contract, every card played and by whom, trick
counts, scores, an exposed open-misère hand, the kitty only as contractor during the exchange (or when shown to
all), its own discards, and the five-player partner only once the called card is played (or if it is the
partner, or it is the contractor and holds or discarded the called card). A seat that has not looked at its hand
(blind misère) does not see it. The public view (``seat=None``) is what every seat knows. In the ghost-partners
game every viewer sees each ghost's face-up cards and nobody sees its face-down ones (``ghosts``); a ghost's
``hands`` entry holds only its face-up cards, so no view can show the others.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

import msgspec

from engine.contract import partners
from engine.deal import kitty_size
from engine.ghosts import ghost_views
from engine.model import (
    Call,
    CallView,
    CardsReceived,
    ContractView,
    Discarded,
    Event,
    GameState,
    KittyTaken,
    LookedAtHand,
    PlayView,
    SeatView,
    Trick,
    TrickView,
)
from engine.rules import OPEN_MISERE, bid_value, sides


def _trick_view(state: GameState, t: Trick) -> TrickView:
    return _trick_view_of(t, state.active)


@lru_cache(maxsize=8192)
def _trick_view_of(t: Trick, active: tuple[int, ...]) -> TrickView:
    """A trick as the views show it (memoised: completed tricks recur in every later view of the hand)."""
    start = active.index(t.leader)
    plays = tuple(PlayView(active[(start + i) % len(active)], c) for i, c in enumerate(t.cards))
    return TrickView(leader=t.leader, plays=plays, nominate=t.nominate, winner=t.winner)


def _partner_revealed(state: GameState) -> bool:
    c = state.contract
    if c is None or c.called_card is None:
        return True
    return any(c.called_card in t.cards for t in (*state.tricks, *((state.trick,) if state.trick else ())))


def _call_view(call: Call) -> CallView:
    return CallView(seat=call.seat, bid=call.bid, sans_kitty=call.sans_kitty)

def _contract_view(state: GameState, seat: int | None) -> ContractView | None:
    c = state.contract
    if c is None:
        return None
    known = True
    shown = partners(state)
    if c.called_card is not None and not c.alone and not _partner_revealed(state):
        # Secret until the called card is played; its holder knows, and so does a contractor who holds it
        # (or discarded it): then it is playing alone. A called card in a face-down kitty (sans kitty) is seen by
        # nobody, so then nobody knows until the hand ends that the contractor plays alone.
        contractor_knows = seat == c.contractor and (
            c.called_card in state.hands[c.contractor] or c.called_card in state.discards)
        if seat is not None and (seat in shown or contractor_knows):
            known = True
        else:
            known, shown = False, ()
    return ContractView(bid=c.bid, contractor=c.contractor, sans_kitty=c.sans_kitty,
                        value=bid_value(state.options, c.bid), sitting_out=c.sitting_out,
                        called_card=c.called_card, partners=shown, partners_known=known, alone=c.alone)


def view(state: GameState, seat: int | None) -> SeatView:
    """The view of ``seat``, or the public view for ``seat=None``."""
    c = state.contract
    phase = state.phase
    hand = state.hands[seat] if seat is not None and state.viewed[seat] else None
    kitty = None
    if phase == "exchange" and c is not None and (seat == c.contractor or state.kitty_shown):
        # During the exchange the kitty is inside the contractor's hand; show which cards came from it.
        kitty = state.kitty
    discards = state.discards if c is not None and seat == c.contractor and state.discards else None
    exposed: dict[str, tuple[str, ...]] = {}
    if c is not None and c.bid == OPEN_MISERE and phase == "play" and (
            state.tricks or state.options.open_misere_expose == "before_opening_lead"):
        exposed[str(c.contractor)] = state.hands[c.contractor]
    playing = phase == "play"
    return SeatView(
        seat=seat, players=state.options.players, rules_version=state.rules_version,
        hand_number=state.hand_number, dealer=state.dealer, phase=phase, to_act=state.to_act, hand=hand,
        hand_sizes=tuple(len(h) for h in state.hands), looked=state.viewed,
        auction=tuple(_call_view(c) for c in state.calls),
        high_bid=None if state.high is None else _call_view(state.high),
        contract=_contract_view(state, seat), kitty=kitty,
        kitty_size=kitty_size(state.options), discards=discards,
        joker_nominations=dict(state.nominations),
        current_trick=_trick_view(state, state.trick) if playing and state.trick else None,
        tricks=tuple(_trick_view(state, t) for t in state.tricks) if state.active else (),
        tricks_won=state.tricks_won, exposed=exposed, sides=sides(state.options), scores=state.scores,
        last_hand=state.last_hand, result=state.result, ghosts=ghost_views(state),
    )


def seat_view(state: GameState, seat: int) -> SeatView:
    return view(state, seat)


def public_view(state: GameState) -> SeatView:
    return view(state, None)


_PRIVATE = (CardsReceived, KittyTaken, Discarded, LookedAtHand)


def redact_events(events: Iterable[Event], seat: int | None) -> list[Event]:
    """The events as ``seat`` (``None``: a spectator) may see them: private cards of other seats removed."""
    out: list[Event] = []
    for e in events:
        if isinstance(e, _PRIVATE) and e.seat != seat and e.cards is not None:
            out.append(msgspec.structs.replace(e, cards=None))
        else:
            out.append(e)
    return out
