"""Exact endgames: the rest of a hand's card play solved by alpha-beta search over one known deal.

When few tricks remain, the ``expert`` bot does not play each sampled deal out by rules of thumb: it solves it.
Within a sampled deal every seat knows every hand (that is what a determinization is), so the rest of the play
is a two-sided game of perfect information: the seat's side (its partners this hand) maximizes the seat's
playout value (its side's score change for the hand minus the others' average, with the game's result when the
hand ends it, as :mod:`bots.value` counts it), every other seat minimizes it.

The search holds only the hands, the trick in progress and the tricks won; every rule comes from the engine:
which cards may follow (:func:`engine.play.follow_cards`), who wins a trick (:func:`engine.tricks.trick_winner_index`),
the order of play (:func:`engine.tricks.seat_after`) and the score (:func:`engine.scoring.score_hand`, from the
state with the tricks won filled in). Play simply continues to the last trick: a misère contract is lost with its
first trick whether or not the rest is played, so the score is the engine's either way, and the test that compares
this search with a brute-force minimax over :func:`engine.apply_move` shows it.

It solves positions where no hand holds a free (un-nominated) joker and no ghost's cards lie face down: there the
rules of play are the ones above; elsewhere :func:`solvable` says no and the expert plays the deal out.

Speed comes from the usual tools: alpha-beta with the moves ordered (a leader's high cards first; a follower's
cheapest winning card first unless its side is already winning the trick), one card of each run of equivalent
cards (two cards of one suit in one hand with no card between them anywhere else win and lose the same tricks),
and a table of the positions met at the start of a trick, with the bounds found for each.
"""

from __future__ import annotations

from collections.abc import Collection

import msgspec

from bots.value import hand_value
from engine import GameState
from engine.cards import Strain
from engine.play import follow_cards
from engine.scoring import score_hand
from engine.tricks import beats, led_suit, strain_of, trick_winner_index

#: Cards left in the hands at or below which :mod:`bots.expert` solves each sampled deal: the last three tricks at
#: four players, four at three, six at two, two at five or six (the search grows with the cards, not the tricks).
ENDGAME_CARDS = 12

Hands = tuple[tuple[str, ...], ...]


def tricks_left(state: GameState) -> int:
    """Tricks still to be completed in the hand being played (the one in progress included)."""
    active = state.active
    if not active:
        return 0
    return max(len(state.hands[s]) for s in active)


def solvable(state: GameState, limit: int = ENDGAME_CARDS) -> bool:
    """Whether :func:`solve` applies: card play, at most ``limit`` cards left in the hands, no free joker in any
    hand and no ghost's cards face down."""
    if state.phase != "play" or state.ghost_piles or state.to_act is None:
        return False
    left = sum(len(state.hands[s]) for s in state.active)
    if left == 0 or left > limit:
        return False
    suit_of = strain_of(state).suit
    return all(suit_of[c] is not None for s in state.active for c in state.hands[s])


def solve(state: GameState, seat: int, team: Collection[int]) -> float:
    """The value for ``seat`` of the rest of the hand from ``state`` under best play by every seat (``team``: the
    seats playing with ``seat`` this hand, which maximize the value with it; the others minimize it).
    ``state`` must be :func:`solvable`."""
    return _Solver(state, seat, team).run()


def solve_outcome(state: GameState, seat: int, team: Collection[int]) -> tuple[float, bool | None]:
    """:func:`solve`, with whether the contract is made on the line of best play (None: no contract)."""
    solver = _Solver(state, seat, team)
    value = solver.run()
    return value, solver.made.get(value)


class _Solver:
    __slots__ = ("state", "table", "active", "order", "team", "seat", "leaves", "made", "positions", "nodes")

    def __init__(self, state: GameState, seat: int, team: Collection[int]) -> None:
        self.state = state
        self.table: Strain = strain_of(state)
        self.active = state.active
        self.order = {s: i for i, s in enumerate(state.active)}
        self.team = frozenset(team)
        self.seat = seat
        self.leaves: dict[tuple[int, ...], float] = {}
        self.made: dict[float, bool | None] = {}  # a leaf's value → whether the contract is made there
        self.positions: dict[tuple[int, Hands, tuple[int, ...]], tuple[float, float]] = {}
        self.nodes = 0

    def run(self) -> float:
        st = self.state
        trick = st.trick
        if trick is None:
            assert st.to_act is not None
            return self.search(st.hands, st.to_act, (), None, st.tricks_won, -1e9, 1e9)
        return self.search(st.hands, trick.leader, trick.cards, trick.nominate, st.tricks_won, -1e9, 1e9)

    def leaf(self, won: tuple[int, ...]) -> float:
        value = self.leaves.get(won)
        if value is None:
            deltas, seats, made = score_hand(msgspec.structs.replace(self.state, tricks_won=won))
            value = hand_value(self.state.scores, deltas, seats, made, self.state.options, self.seat)
            self.leaves[won] = value
            self.made.setdefault(value, made)
        return value

    def search(self, hands: Hands, leader: int, cards: tuple[str, ...], nominate: str | None,
               won: tuple[int, ...], alpha: float, beta: float) -> float:
        self.nodes += 1
        active = self.active
        n_active = len(active)
        start = self.order[leader]
        key = None
        if not cards:
            if not hands[leader]:
                return self.leaf(won)
            key = (leader, hands, won)
            bounds = self.positions.get(key)
            if bounds is not None:
                low, high = bounds
                if low >= beta:
                    return low
                if high <= alpha:
                    return high
                alpha, beta = max(alpha, low), min(beta, high)
        alpha0, beta0 = alpha, beta
        actor = active[(start + len(cards)) % n_active]
        hand = hands[actor]
        maximizing = actor in self.team
        best = -1e9 if maximizing else 1e9
        for card in self.moves(hands, actor, leader, cards, nominate):
            rest = list(hands)
            rest[actor] = tuple(c for c in hand if c != card)
            after = tuple(rest)
            played = cards + (card,)
            if len(played) == n_active:
                winner = active[(start + trick_winner_index(played, nominate, self.table)) % n_active]
                value = self.search(after, winner, (), None, won[:winner] + (won[winner] + 1,) + won[winner + 1:],
                                    alpha, beta)
            else:
                value = self.search(after, leader, played, nominate, won, alpha, beta)
            if maximizing:
                if value > best:
                    best = value
                alpha = max(alpha, value)
            else:
                if value < best:
                    best = value
                beta = min(beta, value)
            if alpha >= beta:
                break
        if key is not None:
            low, high = self.positions.get(key, (-1e9, 1e9))
            if best <= alpha0:
                high = min(high, best)
            elif best >= beta0:
                low = max(low, best)
            else:
                low = high = best
            self.positions[key] = (low, high)
        return best

    def moves(self, hands: Hands, actor: int, leader: int, cards: tuple[str, ...], nominate: str | None) -> list[str]:
        """The actor's legal cards, one of each run of equivalent cards, in search order."""
        table = self.table
        suit_of, power = table.suit, table.power
        hand = hands[actor]
        led = led_suit(cards, nominate, table) if cards else None
        legal = follow_cards(self.state, hand, led, table) if cards else list(hand)
        if len(legal) > 1:
            # Equivalent cards: keep the highest of each run with no other unplayed card of the suit between.
            elsewhere = [c for s in self.active if s != actor for c in hands[s]]
            elsewhere += cards
            legal.sort(key=lambda c: (suit_of[c] or "", -power[c]))
            kept = [legal[0]]
            for prev, card in zip(legal, legal[1:], strict=False):
                suit = suit_of[card]
                if suit == suit_of[prev] and not any(
                        suit_of[x] == suit and power[card] < power[x] < power[prev] for x in elsewhere):
                    continue
                kept.append(card)
            legal = kept
        if len(legal) == 1:
            return legal
        if not cards:
            legal.sort(key=lambda c: -power[c])
            return legal
        w = trick_winner_index(cards, nominate, table)
        winning = cards[w]
        winner_seat = self.active[(self.order[leader] + w) % len(self.active)]
        if (winner_seat in self.team) == (actor in self.team):
            legal.sort(key=lambda c: power[c])  # the trick is the side's already: play low
            return legal
        winners = sorted((c for c in legal if beats(c, winning, led, table)), key=lambda c: power[c])
        losers = sorted((c for c in legal if c not in winners), key=lambda c: power[c])
        return winners + losers


__all__ = ["ENDGAME_CARDS", "solvable", "solve", "solve_outcome", "tricks_left"]
