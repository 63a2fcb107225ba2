"""Shared builders for the known-answer engine tests (RULES.md section 5).

Positions are reached by real play: :func:`deck_for` builds an explicit deck order that deals the wanted hands
(through the engine's own ``engine.deal.deal`` mapping), :func:`start` deals it, :func:`calls` runs an auction,
:func:`exchange` discards, :func:`play` plays scripted cards and :func:`play_out` finishes a hand so that
the wanted seats win the wanted tricks (a greedy line, backtracking when it misses); :func:`designed_hands`
deals hands with which a contracting side takes exactly ``t`` tricks. Constructed states (scores changed
with ``msgspec.structs.replace``) are always checked with ``integrity_problems``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import msgspec

from engine import (
    JOKERS,
    Bid,
    Discard,
    Event,
    GameState,
    NominateJoker,
    Options,
    Pass,
    Play,
    apply_move,
    check_move,
    integrity_problems,
    legal_moves,
    new_game,
    resolve_options,
)
from engine.deal import deal, pack_for
from engine.ghosts import dealt_hands
from engine.model import HandScored, TrickWon
from engine.rules import hand_strain
from engine.seats import seat_count

N, E, S, W = 0, 1, 2, 3
NS, EW = 0, 1
SUITS = ("S", "C", "D", "H")


def opts(players: int = 4, **overrides: Any) -> Options:
    """Options through the public resolver (defaults plus ``overrides``)."""
    return resolve_options(players, None, overrides)


def fresh(options: Options | None = None, dealer: int = W, seed: int = 0) -> GameState:
    """A new game under ``options`` (the defaults when ``None``), dealt from ``seed`` by ``dealer``."""
    state, _ = new_game(options or Options(), seed=seed, first_dealer=dealer)
    return state


def bid_reason(state: GameState, bid: str, sans_kitty: bool = False, *, seat: int | None = None) -> str | None:
    """The engine's reason for ``seat`` (the seat to act) bidding ``bid`` (``None``: legal), checking that
    ``legal_moves`` agrees."""
    mv = Bid(seat=state.to_act if seat is None else seat, bid=bid, sans_kitty=sans_kitty)  # type: ignore[arg-type]
    r = check_move(state, mv)
    assert (mv in legal_moves(state)) == (r is None), (bid, r)
    return None if r is None else r.reason


def play_reason(state: GameState, card: str, nominate: str | None = None) -> str | None:
    """The engine's reason for the seat to act playing ``card`` (``None``: legal)."""
    r = check_move(state, Play(seat=state.to_act, card=card, nominate=nominate))  # type: ignore[arg-type]
    return None if r is None else r.reason


def legal_cards(state: GameState) -> set[str]:
    """The cards the seat to act may play."""
    return {m.card for m in legal_moves(state) if isinstance(m, Play)}


def suit(card: str) -> str | None:
    return None if card in JOKERS else card[-1]


# ------------------------------------------------------------------------------------------------ dealing


def deck_for(options: Options, dealer: int, hands: Mapping[int, Sequence[str]] | None = None,
             kitty: Sequence[str] | None = None, dead: Sequence[str] | None = None,
             voids: Mapping[int, str] | None = None) -> tuple[str, ...]:
    """A deck order that deals ``hands`` (seat -> cards, possibly fewer than 10), ``kitty`` and ``dead``.

    Unnamed jokers go to the kitty; other unnamed cards fill the seats with ``voids`` (seat -> printed suits
    the filler must not give it) first, then the other seats and the dead hand in order, then the kitty. A
    joker is never handed to a seat or the dead hand by the filler (name it explicitly instead).
    """
    hands = dict(hands or {})
    voids = dict(voids or {})
    pack = pack_for(options)
    pos_hands, pos_dead, pos_kitty = deal(options, list(range(len(pack))), dealer)
    wanted: list[tuple[list[int], list[str], str]] = [(pos_kitty, list(kitty or []), "kitty")]
    seats = seat_count(options)
    wanted += [(pos_hands[s], list(hands.get(s, [])), f"seat {s}") for s in range(seats)]
    if pos_dead:
        wanted.append((pos_dead, list(dead or []), "dead"))
    named = [c for _, cards, _ in wanted for c in cards]
    unknown = [c for c in named if c not in pack]
    if unknown:
        raise ValueError(f"not in this pack: {unknown}")
    if len(set(named)) != len(named):
        raise ValueError(f"card named twice: {sorted(c for c in set(named) if named.count(c) > 1)}")
    pool = [c for c in pack if c not in named]
    # Unnamed jokers go to the kitty; then the seats with voids fill first, then the others, then the kitty.
    kitty_cards = wanted[0][1]
    for j in [c for c in pool if c in JOKERS]:
        if len(kitty_cards) < len(wanted[0][0]):
            kitty_cards.append(j)
            pool.remove(j)
    order = sorted(range(1, len(wanted)), key=lambda i: -len(voids.get(i - 1, "")) if i <= seats else 0)
    for i in [*order, 0]:
        positions, cards, label = wanted[i]
        if len(cards) > len(positions):
            raise ValueError(f"{label} gets {len(cards)} cards, holds {len(positions)}")
        banned = voids.get(i - 1, "") if 1 <= i <= seats else ""
        while len(cards) < len(positions):
            pick = next((c for c in pool if (label == "kitty" or c not in JOKERS)
                         and (suit(c) or "") not in banned), None)
            if pick is None:
                raise ValueError(f"cannot fill {label} (voids {banned!r}) from {pool}")
            pool.remove(pick)
            cards.append(pick)
    deck: list[str | None] = [None] * len(pack)
    for positions, cards, _ in wanted:
        for p, c in zip(positions, cards, strict=True):
            deck[p] = c
    assert None not in deck and sorted(deck) == sorted(pack)  # type: ignore[type-var]
    return tuple(deck)  # type: ignore[arg-type]


def start(options: Options, hands: Mapping[int, Sequence[str]] | None = None, *, dealer: int = W,
          kitty: Sequence[str] | None = None, dead: Sequence[str] | None = None,
          voids: Mapping[int, str] | None = None, scores: Sequence[int] | None = None,
          more_decks: Sequence[Sequence[str]] = ()) -> GameState:
    """Deal a game whose first hand is built by :func:`deck_for`; optionally start from other ``scores``."""
    deck = deck_for(options, dealer, hands, kitty, dead, voids)
    state, _ = new_game(options, seed=0, deck_orders=[deck, *more_decks], first_dealer=dealer)
    dealt = dealt_hands(state)  # a ghost's hand holds only its face-up cards; its piles hold the others
    for s, cards in (hands or {}).items():
        assert set(cards) <= set(dealt[s]), (s, cards, dealt[s])
    if kitty is not None:
        assert sorted(state.kitty) == sorted(kitty)
    if scores is not None:
        state = with_scores(state, scores)
    assert integrity_problems(state) == []
    return state


def with_scores(state: GameState, scores: Sequence[int]) -> GameState:
    """A constructed state: ``state`` with other running totals (checked for integrity).

    Scores come from scored hands, so the state also records a last hand that gave them (here an uncontracted
    hand whose change was the whole total): the integrity check refuses scores with no scored hand behind them.
    """
    n = seat_count(state.options)
    last = HandScored(bid=None, contractor=None, contracting_seats=(), made=None, tricks_won=(10,) + (0,) * (n - 1),
                      deltas=tuple(scores), scores=tuple(scores))
    st = msgspec.structs.replace(state, scores=tuple(scores), last_hand=last if any(scores) else None)
    assert integrity_problems(st) == [], integrity_problems(st)
    return st


# ------------------------------------------------------------------------------------------------ moving


def move(state: GameState, mv: Any) -> tuple[GameState, list[Event]]:
    """Apply one move after asserting ``check_move`` accepts it."""
    assert check_move(state, mv) is None, (mv, check_move(state, mv))
    new, events = apply_move(state, mv)
    assert integrity_problems(new) == [], integrity_problems(new)
    return new, events


def call_move(seat: int, call: str) -> Bid | Pass:
    if call == "P":
        return Pass(seat=seat)
    if call.endswith("/SK"):
        return Bid(seat=seat, bid=call[:-3], sans_kitty=True)
    return Bid(seat=seat, bid=call)


def calls(state: GameState, *seq: str) -> tuple[GameState, list[Event]]:
    """Make auction calls in turn ("P" passes, "7NT/SK" is a sans-kitty bid); returns all events."""
    out: list[Event] = []
    for c in seq:
        assert state.phase == "auction", (state.phase, c)
        state, ev = move(state, call_move(state.to_act, c))  # type: ignore[arg-type]
        out += ev
    return state, out


def auction_calls(bid: str, contractor: int, eldest: int = N, players: int = 4) -> list[str]:
    """Calls that make ``contractor`` win the auction at ``bid`` (misère after a 7-level bid)."""
    k = (contractor - eldest) % players
    if bid == "10NT":  # nothing outranks it: the auction ends at once
        return ["P"] * k + [bid]
    if bid != "MISERE":
        return ["P"] * k + [bid] + ["P"] * (players - 1 - k)
    if k == 0:  # the contractor is eldest: 7S, a 7C overcall, passes, misère, the 7C bidder passes
        return ["7S", "7C"] + ["P"] * (players - 2) + ["MISERE", "P"]
    return ["7S"] + ["P"] * (k - 1) + ["MISERE"] + ["P"] * (players - 1 - k) + ["P"]


def exchange(state: GameState, discards: Sequence[str] | None = None,
             nominate: str | None = None) -> tuple[GameState, list[Event]]:
    """Discard (the kitty's own cards by default) and, if asked, answer the joker nomination."""
    assert state.phase == "exchange", state.phase
    c = state.contract
    assert c is not None
    cards = tuple(discards) if discards is not None else tuple(state.kitty)
    state, events = move(state, Discard(seat=c.contractor, cards=cards))
    if state.phase == "nominate":
        state, ev = move(state, NominateJoker(seat=c.contractor, suit=nominate))
        events += ev
    else:
        assert nominate is None, "no nomination step"
    return state, events


def setup(options: Options, hands: Mapping[int, Sequence[str]] | None, bid: str, contractor: int = N, *,
          call_seq: Sequence[str] | None = None, nominate: str | None = None, dealer: int = W,
          **deal_kw: Any) -> GameState:
    """Deal, win the auction with ``bid`` for ``contractor``, discard the kitty, (decline/)nominate: play phase."""
    state = start(options, hands, dealer=dealer, **deal_kw)
    eldest = (dealer + 1) % options.players
    seq = call_seq if call_seq is not None else auction_calls(bid, contractor, eldest, options.players)
    state, _ = calls(state, *seq)
    assert state.contract is not None and state.contract.bid == bid and state.contract.contractor == contractor
    state, _ = exchange(state, nominate=nominate)
    assert state.phase == "play"
    return state


def play_move(state: GameState, item: str | tuple[str, str | None] | None) -> Play:
    seat = state.to_act
    assert seat is not None
    if item is None:  # any legal card: the first the engine lists
        mv = legal_moves(state)[0]
        assert isinstance(mv, Play)
        return mv
    if isinstance(item, tuple):
        return Play(seat=seat, card=item[0], nominate=item[1])
    return Play(seat=seat, card=item)


def play(state: GameState, *items: str | tuple[str, str | None] | None) -> tuple[GameState, list[Event]]:
    """Play cards in turn: a card, (card, nominated suit), or None for the engine's first legal card."""
    out: list[Event] = []
    for item in items:
        assert state.phase == "play", state.phase
        state, ev = move(state, play_move(state, item))
        out += ev
    return state, out


def power_key(state: GameState) -> Callable[[Any], tuple[int, str]]:
    c = state.contract
    table = hand_strain(state.options, c.bid if c else None, state.nominations)
    return lambda m: (table.power[m.card], m.nominate or "")


def play_out(state: GameState, want: Sequence[Iterable[int]] | None = None, *,
             tricks: tuple[Iterable[int], int] | None = None,
             stop_after: int | None = None) -> tuple[GameState, list[Event]]:
    """Play until the hand is scored, either so that trick ``k`` is won by one of the seats ``want[k]``, or
    (``tricks=(seats, t)``) so that ``seats`` win exactly ``t`` tricks in any order.

    Seats that should win a trick try their highest legal card first, the others their lowest; if that
    greedy line does not give the wanted result, the search backtracks (depth first) until one does. The
    line found is then replayed move by move with ``check_move`` and ``integrity_problems`` asserted (only its
    first ``stop_after`` cards, if given).
    """
    wanted = [set(w) for w in want] if want is not None else None
    group, target = (set(tricks[0]), tricks[1]) if tricks is not None else (set(), 0)
    everyone = set(range(seat_count(state.options)))
    budget = [50_000]

    def won_by_group(st: GameState) -> int:
        return sum(1 for t in st.tricks if t.winner in group)

    def desired(st: GameState) -> set[int]:
        if wanted is not None:
            return wanted[len(st.tricks)]
        return group if won_by_group(st) < target else everyone - group

    def search(st: GameState, won: int) -> list[Play] | None:
        if st.phase != "play" or st.hand_number != state.hand_number:
            return [] if wanted is not None or won == target else None
        budget[0] -= 1
        if budget[0] < 0:
            raise AssertionError("play_out: no line found within the search budget")
        key = power_key(st)
        moves = sorted(legal_moves(st), key=key, reverse=st.to_act in desired(st))
        for mv in moves:
            assert isinstance(mv, Play)
            nxt, _ = apply_move(st, mv)
            now = won
            if len(nxt.tricks) > len(st.tricks) or nxt.hand_number != st.hand_number:
                # A trick was completed (the hand may have ended with it): who won it?
                winner = nxt.tricks[-1].winner if nxt.hand_number == st.hand_number else \
                    _last_winner(st, mv)
                if wanted is not None and winner not in wanted[len(st.tricks)]:
                    continue
                now += winner in group
                left = 10 - len(st.tricks) - 1
                if wanted is None and not now <= target <= now + left:
                    continue
            rest = search(nxt, now)
            if rest is not None:
                return [mv, *rest]
        return None

    line = search(state, 0)
    assert line is not None, "play_out: the wanted trick winners cannot be achieved"
    out: list[Event] = []
    for mv in line[:stop_after]:
        state, ev = move(state, mv)
        out += ev
    return state, out


def _last_winner(st: GameState, mv: Play) -> int | None:
    """The winner of the trick ``mv`` completes when that trick ends the hand (read from its events)."""
    _, events = apply_move(st, mv)
    won = [e for e in events if isinstance(e, TrickWon)]
    return won[-1].seat if won else None


def schedule(winners: int, won_by: Iterable[int], rest: Iterable[int]) -> list[set[int]]:
    """``winners`` tricks for ``won_by``, then the rest for ``rest``."""
    return [set(won_by)] * winners + [set(rest)] * (10 - winners)


def scored(events: Sequence[Event]) -> HandScored:
    found = [e for e in events if isinstance(e, HandScored)]
    assert len(found) == 1, found
    return found[0]


def of_type(events: Sequence[Event], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


# ------------------------------------------------------------------------------------------------ designed deals


def designed_hands(options: Options, bid: str, contractor: int, t: int) -> tuple[dict[int, list[str]], list[str]]:
    """Four-player hands with which the contracting side takes exactly ``t`` tricks under :func:`play_out`
    with ``schedule(t, contracting side, defenders)``.

    The contractor holds the top ``t`` cards of the trump suit (hearts for NT-family bids) and the lowest
    plain cards; the partner holds the next-lowest plain cards; the defenders hold everything else, so they
    win every trick the contractor does not lead a top trump to. The joker goes to the kitty, which the
    contractor discards.
    """
    table = hand_strain(options, bid if bid not in ("MISERE", "OPEN_MISERE", "BLIND_MISERE") else "6NT", ())
    pack = [c for c in pack_for(options) if c not in JOKERS]
    x = table.trump or "H"
    top = sorted((c for c in pack if table.suit[c] == x), key=table.power.__getitem__, reverse=True)
    plain = {s: sorted((c for c in pack if table.suit[c] == s), key=table.power.__getitem__)
             for s in SUITS if s != x}
    low: list[str] = []
    i = 0
    order = [s for s in SUITS if s != x]
    while len(low) < 20 - t + 2:  # partner + contractor's plain cards, then two for the kitty
        s = order[i % len(order)]
        i += 1
        if plain[s]:
            low.append(plain[s].pop(0))
    partner, o1, o2 = (contractor + 2) % 4, (contractor + 1) % 4, (contractor + 3) % 4
    mine = top[:t] + low[:10 - t]
    partner_cards = low[10 - t:20 - t]
    kitty = [c for c in pack_for(options) if c in JOKERS] + low[20 - t:]
    rest = top[t:] + [c for s in order for c in plain[s]]
    hands = {contractor: mine, partner: partner_cards, o1: rest[0::2], o2: rest[1::2]}
    assert all(len(h) == 10 for h in hands.values()) and len(kitty) == 3, hands
    return hands, kitty


def misere_hands(contractor: int) -> tuple[dict[int, list[str]], list[str]]:
    """Four-player misère hands: the contractor holds the lowest two or three cards of every suit, so it can
    never win a trick it does not lead, and the defenders hold cards of every suit above them."""
    mine = ["4H", "5H", "6H", "4D", "5D", "6D", "5S", "6S", "5C", "6C"]
    partner = ["7H", "8H", "7D", "8D", "7S", "8S", "7C", "8C", "9C", "9S"]
    o1 = ["AH", "QH", "10H", "AD", "QD", "10D", "AS", "QS", "AC", "QC"]
    o2 = ["KH", "JH", "9H", "KD", "JD", "9D", "KS", "JS", "KC", "JC"]
    kitty = ["JK", "10S", "10C"]
    return {contractor: mine, (contractor + 2) % 4: partner, (contractor + 1) % 4: o1,
            (contractor + 3) % 4: o2}, kitty


def play_contract(options: Options, bid: str, contractor: int, t: int, *,
                  scores: Sequence[int] | None = None) -> tuple[GameState, list[Event]]:
    """Deal a designed hand, win the auction with ``bid`` for ``contractor``, play it out so the contracting
    side takes ``t`` tricks, and return the state after the hand plus the play's events."""
    if bid in ("MISERE", "OPEN_MISERE") and t == 0:
        hands, kitty = misere_hands(contractor)
    else:
        hands, kitty = designed_hands(options, bid, contractor, t)
    state = setup(options, hands, bid, contractor, kitty=kitty, scores=scores)
    side = {contractor, (contractor + 2) % 4}
    if bid in ("MISERE", "OPEN_MISERE"):
        side = {contractor}
    others = set(range(4)) - side
    return play_out(state, schedule(t, side, others))
