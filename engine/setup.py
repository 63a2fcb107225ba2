"""Setting up: resolving and validating a rule set, starting a game, and dealing each hand.

:func:`resolve_options` expands a preset and overrides into a checked :class:`engine.options.Options`;
:func:`new_game` checks the seed, the deck orders and the first dealer and deals the first hand;
:func:`deal_hand` deals every later hand (after a throw-in, a redeal or a scored hand). The shuffle and the
packet deal themselves are :mod:`engine.deal`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import Any

import msgspec

from engine.cards import sort_hand
from engine.deal import cut_for_dealer, deal, first_below, kitty_packets, pack_for, pack_index, shuffled
from engine.ghosts import lay_out
from engine.memo import remember
from engine.model import CardsReceived, CutDraw, DealerCut, Event, GameState, GhostCardsUp, HandDealt
from engine.options import PRESETS, RULES_VERSION, Options, OptionsError, option_catalogue
from engine.rules import sides
from engine.seats import ghost_seats, seat_count


class GameSetupError(ValueError):
    """Creating a game failed: bad seed, deck orders or first dealer; ``code`` names which."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code


def resolve_options(players: int = 4, preset: str | None = None,
                    overrides: dict[str, Any] | None = None) -> Options:
    """Expand a preset, apply overrides, and validate the result.

    >>> resolve_options(4, "american").bidding_style
    'american_single_round'
    >>> resolve_options(4, None, {"misere_rank": "nowhere"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    engine.options.OptionsError: Invalid enum value 'nowhere' - at `$.misere_rank` (allowed: above_7NT_below_8S, ...)
    """
    merged: dict[str, Any] = {}
    if preset is not None:
        if preset not in PRESETS:
            raise OptionsError(f"unknown preset {preset!r}; known: {', '.join(PRESETS)}")
        merged.update(PRESETS[preset])
    merged.update(overrides or {})
    if "players" in merged and merged["players"] != players:
        raise OptionsError(f"options.players={merged['players']!r} contradicts players={players!r}")
    merged["players"] = players
    try:
        opts = msgspec.convert(merged, Options)
    except msgspec.ValidationError as exc:
        message = str(exc)
        name = message.rsplit("$.", 1)[-1].rstrip("`") if "$." in message else None
        allowed = next((o.get("allowed") for o in option_catalogue() if o["name"] == name), None)
        if name and allowed:
            message += f" (allowed: {', '.join(map(str, allowed))})"
        elif "$." not in message and "Object contains unknown field" in message:
            message += f"; known options: {', '.join(Options.__struct_fields__)}"
        raise OptionsError(message) from None
    validate_options(opts)
    return opts


def validate_options(opts: Options) -> None:
    """Raise :class:`OptionsError` for option values that are well-typed but cannot be played."""
    if opts.target <= 0 or opts.target > 100_000 or opts.target % 10:
        raise OptionsError("target must be a positive multiple of 10 up to 100000")
    if opts.lose_at >= 0 or opts.lose_at < -100_000 or opts.lose_at % 10:
        raise OptionsError("lose_at must be a negative multiple of 10 down to -100000")
    kitty_packets(opts)  # raises OptionsError for a pattern that does not fit the pack


def new_game(options: Options, *, seed: int, deck_orders: Sequence[Sequence[str]] = (),
             first_dealer: int | None = None) -> tuple[GameState, list[Event]]:
    """Start a game and deal its first hand.

    ``seed`` (0 ≤ seed < 2**64) derives every deal not given in ``deck_orders`` (each a permutation of the pack,
    ``deck[0]`` dealt first) and a random first dealer.

    >>> from engine.options import Options
    >>> state, events = new_game(Options(), seed=1, first_dealer=3)
    >>> state.phase, state.to_act, len(state.hands[0]), len(state.kitty)
    ('auction', 0, 10, 3)
    """
    validate_options(options)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**64:
        raise GameSetupError("INVALID_SEED", "seed must be an integer from 0 to 2**64-1")
    decks = _checked_decks(options, deck_orders)
    events: list[Event] = []
    n = options.players
    if first_dealer is not None:
        if not isinstance(first_dealer, int) or not 0 <= first_dealer < n:
            raise GameSetupError("INVALID_FIRST_DEALER", f"first_dealer must be a seat from 0 to {n - 1}")
        dealer = first_dealer
    elif options.first_dealer == "cut_low":
        draws, dealer = cut_for_dealer(options, seed)
        events.append(DealerCut(draws=tuple(CutDraw(seat=s, card=c) for s, c in draws), dealer=dealer))
    else:
        dealer = first_below(seed, "dealer", n)
    seats = seat_count(options)
    blank = GameState(rules_version=RULES_VERSION, options=options, seed=seed, deck_orders=decks,
                      hand_number=-1, dealer=dealer, phase="auction", to_act=None,
                      scores=(0,) * len(sides(options)), hands=((),) * seats, kitty=(), viewed=(True,) * seats,
                      passed=(False,) * n)
    state = deal_hand(blank, dealer, events)
    return state, events


def _checked_decks(options: Options, deck_orders: Sequence[Sequence[str]]) -> tuple[tuple[str, ...], ...]:
    """The explicit deck orders, each checked to be a permutation of the pack."""
    pack = pack_for(options)
    decks: list[tuple[str, ...]] = []
    for i, d in enumerate(deck_orders):
        deck = tuple(d)
        if sorted(deck) != sorted(pack):
            missing = sorted(set(pack) - set(deck))
            extra = sorted(set(deck) - set(pack))
            dupes = sorted({c for c in deck if deck.count(c) > 1})
            raise GameSetupError("INVALID_DECK_ORDER",
                                 f"deck_orders[{i}] is not a permutation of the {len(pack)}-card pack "
                                 f"(missing {missing[:5]}, not in pack {extra[:5]}, repeated {dupes[:5]})")
        decks.append(deck)
    return tuple(decks)


def seed_deck(opts: Options, seed: int, hand_number: int) -> tuple[str, ...]:
    """The deck the seed deals hand ``hand_number`` from (every deal counts, redeals included)."""
    return shuffled(pack_for(opts), seed, f"deal/{hand_number}")


def decks_so_far(state: GameState) -> tuple[tuple[str, ...], ...]:
    """The deck of every hand dealt so far, in order: the explicit deck orders it dealt, then the seed's."""
    return (*state.dealt_decks, *(seed_deck(state.options, state.seed, h)
                                  for h in range(len(state.dealt_decks), state.hand_number + 1)))


def deal_hand(st: GameState, dealer: int, events: list[Event]) -> GameState:
    """Deal the next hand (hand_number + 1) by ``dealer`` and open its auction."""
    opts = st.options
    hand_number = st.hand_number + 1
    deck_orders, dealt_decks = st.deck_orders, st.dealt_decks
    if deck_orders:
        deck, deck_orders = deck_orders[0], deck_orders[1:]
        dealt_decks = (*dealt_decks, deck)  # kept, so that a host's record can list each hand's deck
    else:
        ghosts = ghost_seats(opts)
        if not ghosts:
            return _deal_seed_hand(st, hand_number, dealer, events)
        deck = seed_deck(opts, st.seed, hand_number)
    hands, dead, kitty = deal(opts, deck, dealer)
    index = pack_index(opts)
    n = opts.players
    viewed = not opts.blind_misere_enabled
    ghosts = ghost_seats(opts)
    piles: list[tuple[tuple[str, str], ...]] = [()] * len(hands)
    for g in ghosts:  # a ghost holds only its face-up cards; the face-down ones lie in its piles
        hands[g][:], piles[g] = lay_out(hands[g])
    events.append(HandDealt(hand_number=hand_number, dealer=dealer))
    sorted_hands = tuple(sort_hand(h, index) for h in hands)
    for s in range(n):
        events.append(CardsReceived(seat=s, cards=sorted_hands[s] if viewed else None))
    for g in ghosts:
        events.append(GhostCardsUp(seat=g, cards=sorted_hands[g]))
    first = (dealer + 1) % n
    return GameState(
        rules_version=st.rules_version, options=opts, seed=st.seed, deck_orders=deck_orders,
        dealt_decks=dealt_decks, hand_number=hand_number, dealer=dealer, phase="auction", to_act=first,
        scores=st.scores,
        hands=sorted_hands, dead_hand=sort_hand(dead, index),
        ghost_piles=tuple(piles) if ghosts else (),
        kitty=tuple(kitty), viewed=(viewed,) * n + (True,) * len(ghosts), passed=(False,) * n,
        last_hand=st.last_hand,
    )


#: Per (options, dealer): getters of the deck positions :func:`engine.deal.deal` gives each hand, the dead hand
#: and the kitty (the packet deal run once on the positions themselves), so that a seed's deal reads them off the
#: shuffled positions. A pure memo.
Picker = Callable[[Sequence[int]], Sequence[int]]
_DEAL_PLANS: dict[tuple[Options, int], tuple[tuple[Picker, ...], Picker, Picker]] = {}


def _picker(positions: Sequence[str]) -> Picker:
    """What picks the items at ``positions`` (decimal strings) of a sequence, in that order, as a tuple."""
    indices = [int(p) for p in positions]
    if len(indices) > 1:
        return itemgetter(*indices)
    return lambda items: tuple(items[i] for i in indices)


def _deal_plan(opts: Options, dealer: int) -> tuple[tuple[Picker, ...], Picker, Picker]:
    key = (opts, dealer)
    plan = _DEAL_PLANS.get(key)
    if plan is None:
        hands, dead, kitty = deal(opts, tuple(str(i) for i in range(len(pack_for(opts)))), dealer)
        plan = remember(_DEAL_PLANS, key, (tuple(_picker(h) for h in hands), _picker(dead), _picker(kitty)), 1024)
    return plan


def _deal_seed_hand(st: GameState, hand_number: int, dealer: int, events: list[Event]) -> GameState:
    """:func:`deal_hand` of a seed's deck in a game without ghosts: the same deal (the shuffle of the pack's
    positions is the shuffle of the pack, and each hand sorted by pack position is :func:`sort_hand`'s order),
    with the cards picked by position."""
    opts = st.options
    pack = pack_for(opts)
    positions = shuffled(_POSITIONS[len(pack)], st.seed, f"deal/{hand_number}")  # the pack position of each card
    hand_plan, dead_plan, kitty_plan = _deal_plan(opts, dealer)
    sorted_hands = tuple([tuple([pack[i] for i in sorted(pick(positions))]) for pick in hand_plan])
    n = opts.players
    viewed = not opts.blind_misere_enabled
    events.append(HandDealt(hand_number=hand_number, dealer=dealer))
    for s in range(n):
        events.append(CardsReceived(seat=s, cards=sorted_hands[s] if viewed else None))
    return GameState(
        rules_version=st.rules_version, options=opts, seed=st.seed, deck_orders=st.deck_orders,
        dealt_decks=st.dealt_decks, hand_number=hand_number, dealer=dealer, phase="auction", to_act=(dealer + 1) % n,
        scores=st.scores, hands=sorted_hands, dead_hand=tuple([pack[i] for i in sorted(dead_plan(positions))]),
        kitty=tuple([pack[i] for i in kitty_plan(positions)]), viewed=(viewed,) * n, passed=(False,) * n,
        last_hand=st.last_hand,
    )


_POSITIONS: tuple[tuple[int, ...], ...] = tuple(tuple(range(size)) for size in range(128))

__all__ = ["GameSetupError", "deal_hand", "decks_so_far", "new_game", "resolve_options", "seed_deck",
           "validate_options"]
