"""Exact endgames: the rest of a hand's card play solved by alpha-beta search over one known deal.

When few cards are left, the ``expert`` bot does not play each sampled deal out by rules of thumb: it solves it.
Within a sampled deal every seat knows every hand, a ghost's face-down cards included (that is what a
determinization is), so the rest of the play is a two-sided game of perfect information: the seat's side (its
partners this hand) maximizes the seat's playout value (its side's score change for the hand minus the others'
average, with the game's result when the hand ends it, as :mod:`bots.value` counts it), every other seat
minimizes it.

The search holds the hands, the trick in progress, the tricks won and, while a free (un-nominated) joker is still
to be played, what its rules read (the suits led, the suits each seat has shown void in, the completed tricks).
Every rule comes from the engine, through the same pure functions its own checks and
:class:`engine.playout.Playout` use: which cards may follow (:func:`engine.play.cards_to_follow`), which suits a
free joker may be led as (:func:`engine.play.lead_suits`: each is a move of the leader), who wins a trick
(:func:`engine.tricks.trick_winner_index`), the order of play (the hand's active seats), a ghost's face-down card
turned up when the card on it is played (its piles, ``GameState.ghost_piles``) and the score
(:func:`engine.scoring.score_hand`, from the state with the tricks won filled in). Play simply continues to the last
trick: a misère contract is lost with its first trick whether or not the rest is played, so the score is the
engine's either way; the tests compare this search with a brute-force minimax over :func:`engine.apply_move`.

The cost is bounded in search nodes (never in time: the bots have no clock). A solve that would visit more than
its cap (:data:`NODE_CAP`) gives up and answers ``None``; the caller then plays the deal out.

Speed comes from the usual tools: alpha-beta with the moves ordered (a leader's high cards first; a follower's
cheapest winning card first unless its side is already winning the trick), one card of each run of equivalent
cards (two cards of one suit in one hand with no unplayed card between them anywhere else win and lose the same
tricks; a free joker or a card lying on a face-down one is never merged), and a table of the positions met at the
start of a trick, with the bounds found for each.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

import msgspec

from engine import GameState
from engine.cards import Strain
from engine.deal import pack_index
from engine.ghosts import face_down
from engine.model import Trick
from engine.play import cards_to_follow, lead_suits
from engine.scoring import score_hand
from engine.tricks import beats, led_suit, strain_of, trick_winner_index
from tests.bench.baseline.value import hand_value

#: Cards left in the hands (a ghost's face-down ones included) at or below which :mod:`bots.expert` solves each
#: sampled deal, per number of seats playing the hand: the last six tricks at two seats, four at three or four
#: (the ghost-partners game plays four seats; a misère at four players, three), three at five or six. The search
#: grows with the cards and the seats; docs/BENCHMARKS.md has what each costs the expert.
ENDGAME_CARDS: Mapping[int, int] = {2: 12, 3: 12, 4: 16, 5: 15, 6: 18}

#: Search nodes (cards tried) past which a solve gives up (:func:`solve` answers ``None``): a bound for the odd
#: deal, far above what a solve at :data:`ENDGAME_CARDS` commonly needs (tests/bots/test_endgame.py).
NODE_CAP = 5_000

Hands = tuple[tuple[str, ...], ...]
#: What a free joker's rules read, carried only while one is still to be played: (the suits led this hand, the
#: suits each seat has shown void in, the completed tricks).
Context = tuple[str, tuple[str, ...], tuple[Trick, ...]]
Move = tuple[str, str | None]  # a card and the suit a free joker's lead names
#: A position of the search: (the hands, the trick's leader, its cards so far, the suit its free joker lead named,
#: the tricks won per seat, the :data:`Context` or ``None``, how many free jokers are still to be played).
Position = tuple[Hands, int, tuple[str, ...], str | None, tuple[int, ...], Context | None, int]
_NO_SUIT: tuple[str | None, ...] = (None,)


class GiveUp(Exception):
    """The search met its node cap."""


def tricks_left(state: GameState) -> int:
    """Tricks still to be completed in the hand being played (the one in progress included)."""
    active = state.active
    if not active:
        return 0
    return max(len(state.hands[s]) + len(face_down(state, s)) for s in active)


def cards_left(state: GameState) -> int:
    """Cards still to be played in the hand, a ghost's face-down ones included."""
    return sum(len(state.hands[s]) + len(face_down(state, s)) for s in state.active)


def solvable(state: GameState, limit: int | None = None) -> bool:
    """Whether :func:`solve` applies: card play, with at most ``limit`` cards left (default
    :data:`ENDGAME_CARDS` for the seats playing)."""
    if state.phase != "play" or state.to_act is None:
        return False
    if limit is None:
        limit = ENDGAME_CARDS.get(len(state.active), 0)
    return 0 < cards_left(state) <= limit


def solve(state: GameState, seat: int, team: Collection[int], cap: int | None = None) -> float | None:
    """The value for ``seat`` of the rest of the hand from ``state`` under best play by every seat (``team``: the
    seats playing with ``seat`` this hand, which maximize the value with it; the others minimize it), or ``None``
    if the search would visit more than ``cap`` nodes (default :data:`NODE_CAP`). ``state`` must be
    :func:`solvable`."""
    solved = solve_outcome(state, seat, team, cap)
    return None if solved is None else solved[0]


def solve_outcome(state: GameState, seat: int, team: Collection[int],
                  cap: int | None = None) -> tuple[float, bool | None] | None:
    """:func:`solve`, with whether the contract is made on the line of best play (None: no contract); ``None``
    if the cap is met."""
    solver = Solver(state, seat, team, NODE_CAP if cap is None else cap)
    try:
        value = solver.run()
    except GiveUp:
        return None
    return value, solver.made.get(value)


def shared_solver(state: GameState, seat: int, team: Collection[int]) -> Solver | None:
    """One :class:`Solver` for every move of the seat to play in ``state`` (its :meth:`Solver.after`), when the
    position after any card is :func:`solvable`; else ``None``. The candidates' solves of one sampled deal then
    share the positions found: after the trick in progress, most lines of play meet the same ones."""
    if state.phase != "play" or state.to_act is None:
        return None
    if not 1 < cards_left(state) <= ENDGAME_CARDS.get(len(state.active), 0) + 1:
        return None
    return Solver(state, seat, team, NODE_CAP)


class Solver:
    """One solve's search (see the module docstring). A position is a :data:`Position`; :meth:`legal` and
    :meth:`child` are the rules of play over it (tests/bots/test_endgame.py walks random lines of play with them
    and :func:`engine.apply_move` side by side)."""

    __slots__ = ("state", "opts", "contract", "table", "active", "order", "team", "seat", "leaves", "made",
                 "positions", "nodes", "cap", "piles", "index", "down")

    def __init__(self, state: GameState, seat: int, team: Collection[int], cap: int = NODE_CAP) -> None:
        self.state = state
        self.opts = state.options
        self.contract = state.contract
        self.table: Strain = strain_of(state)
        self.active = state.active
        self.order = {s: i for i, s in enumerate(state.active)}
        self.team = frozenset(team)
        self.seat = seat
        self.leaves: dict[tuple[int, ...], float] = {}
        self.made: dict[float, bool | None] = {}  # a leaf's value → whether the contract is made there
        self.positions: dict[tuple[object, ...], tuple[float, float]] = {}
        self.nodes = 0
        self.cap = cap
        # Ghost partners: per seat, each face-up card still on a face-down one → the card beneath.
        self.piles: dict[int, dict[str, str]] = {}
        self.down: tuple[str, ...] = ()
        if state.ghost_piles:
            for s in self.active:
                if state.ghost_piles[s]:
                    self.piles[s] = {up: down for up, down in state.ghost_piles[s] if up in state.hands[s]}
            self.down = tuple(c for s in self.active for c in face_down(state, s))
        self.index = pack_index(self.opts) if self.piles else {}

    def root(self) -> Position:
        """The position of the state the solve starts from."""
        st = self.state
        suit_of = self.table.suit
        free = sum(1 for s in self.active for c in st.hands[s] if suit_of[c] is None)
        free += sum(1 for c in self.down if suit_of[c] is None)
        ctx: Context | None = (st.suits_led, st.shown_void, st.tricks) if free else None
        trick = st.trick
        if trick is None:
            assert st.to_act is not None
            return st.hands, st.to_act, (), None, st.tricks_won, ctx, free
        return st.hands, trick.leader, trick.cards, trick.nominate, st.tricks_won, ctx, free

    def run(self) -> float:
        """The value of the root under best play (:class:`GiveUp` past the cap)."""
        return self.search(self.root(), -1e9, 1e9)

    def after(self, card: str, named: str | None = None) -> tuple[float, bool | None] | None:
        """:func:`solve_outcome` of the position after the seat to play plays ``card`` (naming ``named`` if it
        leads a free joker), with this solver's positions found so far: the cap counts this solve's nodes."""
        self.nodes = 0
        root = self.root()
        try:
            value = self.search(self.child(root, self.actor(root), card, named), -1e9, 1e9)
        except GiveUp:
            return None
        return value, self.made.get(value)

    def leaf(self, won: tuple[int, ...]) -> float:
        value = self.leaves.get(won)
        if value is None:
            deltas, seats, made = score_hand(msgspec.structs.replace(self.state, tricks_won=won))
            value = hand_value(self.state.scores, deltas, seats, made, self.state.options, self.seat)
            self.leaves[won] = value
            self.made.setdefault(value, made)
        return value

    def search(self, pos: Position, alpha: float, beta: float) -> float:
        self.nodes += 1
        if self.nodes > self.cap:
            raise GiveUp
        hands, leader, cards, _nominate, won, ctx, _free = pos
        key: tuple[object, ...] | None = None
        if not cards:
            if not hands[leader]:
                return self.leaf(won)
            if ctx is None:
                key = (leader, hands, won)
            else:  # with what the free joker's rules read, in an order-free form
                key = (leader, hands, won, "".join(sorted(ctx[0])), tuple("".join(sorted(v)) for v in ctx[1]))
            bounds = self.positions.get(key)
            if bounds is not None:
                low, high = bounds
                if low >= beta:
                    return low
                if high <= alpha or low == high:  # (the value known exactly: no window is left to search in)
                    return high
                alpha, beta = max(alpha, low), min(beta, high)
        alpha0, beta0 = alpha, beta
        active = self.active
        actor = active[(self.order[leader] + len(cards)) % len(active)]
        maximizing = actor in self.team
        best = -1e9 if maximizing else 1e9
        child = self.child
        for card, named in self.moves(pos, actor):
            value = self.search(child(pos, actor, card, named), alpha, beta)
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

    def actor(self, pos: Position) -> int:
        """The seat to play in ``pos``."""
        active = self.active
        return active[(self.order[pos[1]] + len(pos[2])) % len(active)]

    def child(self, pos: Position, actor: int, card: str, named: str | None) -> Position:
        """The position after ``actor``, the seat to play, plays ``card`` (naming ``named`` if it leads a free
        joker)."""
        hands, leader, cards, nominate, won, ctx, free = pos
        table = self.table
        active = self.active
        hand = hands[actor]
        i = hand.index(card)
        kept = hand[:i] + hand[i + 1:]
        if self.piles:
            piles = self.piles.get(actor)
            if piles is not None and card in piles:  # the card beneath is turned up
                index = self.index
                kept = tuple(sorted((*kept, piles[card]), key=index.__getitem__))
        after = hands[:actor] + (kept,) + hands[actor + 1:]
        if cards:
            played = cards + (card,)
        else:
            leader, played, nominate = actor, (card,), named
        if ctx is not None:  # (while a free joker is still to be played)
            suit_of = table.suit
            if suit_of[card] is None:
                free -= 1
            if not free:
                ctx = None
            else:
                suits_led, shown_void, tricks = ctx
                led = led_suit(played, nominate, table)
                if not cards:
                    if led and led not in suits_led:
                        suits_led += led
                elif led is not None and suit_of[card] != led and led not in shown_void[actor]:
                    shown_void = shown_void[:actor] + (shown_void[actor] + led,) + shown_void[actor + 1:]
                ctx = (suits_led, shown_void, tricks)
        if len(played) < len(active):
            return after, leader, played, nominate, won, ctx, free
        winner = active[(self.order[leader] + trick_winner_index(played, nominate, table)) % len(active)]
        if ctx is not None:
            ctx = (ctx[0], ctx[1], ctx[2] + (Trick(leader, played, nominate, winner),))
        return after, winner, (), None, won[:winner] + (won[winner] + 1,) + won[winner + 1:], ctx, free

    def legal_cards(self, pos: Position, actor: int) -> list[str]:
        """The cards ``actor``, the seat to play, may play (a free joker to lead even when it may not be led
        now)."""
        hands, _leader, cards, nominate, _won, ctx, _free = pos
        hand = hands[actor]
        if not cards:
            return list(hand)
        table = self.table
        return cards_to_follow(self.opts, self.contract, hand, led_suit(cards, nominate, table), table,
                               ctx[2] if ctx is not None else self.state.tricks)

    def names(self, pos: Position, actor: int, card: str) -> tuple[str | None, ...]:
        """The suits a lead of ``card`` may name: for a free joker those of :func:`engine.play.lead_suits` (none:
        it may not be led now; ``(None,)``: the last trick), for any other card or a follower's play ``(None,)``."""
        if pos[2] or self.table.suit[card] is not None:
            return _NO_SUIT
        ctx = pos[5]
        assert ctx is not None  # (a free joker still to be played)
        return lead_suits(self.opts, len(ctx[2]), ctx[0], ctx[1][actor], pos[0][actor], self.table.power[card] < 0)

    def legal(self, pos: Position) -> list[Move]:
        """Every legal play of the seat to play: each card, a free joker's lead once per suit it may name."""
        actor = self.actor(pos)
        return [(c, x) for c in self.legal_cards(pos, actor) for x in self.names(pos, actor, c)]

    def moves(self, pos: Position, actor: int) -> list[Move]:
        """The legal plays of ``actor``, the seat to play, one card of each run of equivalent cards, in search
        order."""
        table = self.table
        suit_of, power = table.suit, table.power
        hands, leader, cards, nominate, _won, _ctx, _free = pos
        legal = self.legal_cards(pos, actor)
        if len(legal) > 1:
            # Equivalent cards: keep the highest of each run with no other unplayed card of the suit between
            # (never a free joker, nor a card whose play turns a face-down one up).
            piles = self.piles.get(actor, {})
            elsewhere = [c for s in self.active if s != actor for c in hands[s]]
            elsewhere += cards
            elsewhere += self.down
            legal.sort(key=lambda c: (suit_of[c] or "", -power[c]))
            kept = [legal[0]]
            for prev, card in zip(legal, legal[1:], strict=False):
                suit = suit_of[card]
                if suit is not None and suit == suit_of[prev] and card not in piles and prev not in piles and \
                        not any(suit_of[x] == suit and power[card] < power[x] < power[prev] for x in elsewhere):
                    continue
                kept.append(card)
            legal = kept
        if not cards:
            legal.sort(key=lambda c: -power[c])
            if not pos[6]:
                return [(c, None) for c in legal]
            return [(c, x) for c in legal for x in self.names(pos, actor, c)]
        if len(legal) == 1:
            return [(legal[0], None)]
        led = led_suit(cards, nominate, table)
        w = trick_winner_index(cards, nominate, table)
        winning = cards[w]
        winner_seat = self.active[(self.order[leader] + w) % len(self.active)]
        if (winner_seat in self.team) == (actor in self.team):
            legal.sort(key=lambda c: power[c])  # the trick is the side's already: play low
            return [(c, None) for c in legal]
        winners = sorted((c for c in legal if beats(c, winning, led, table)), key=lambda c: power[c])
        losers = sorted((c for c in legal if c not in winners), key=lambda c: power[c])
        return [(c, None) for c in winners + losers]


__all__ = ["ENDGAME_CARDS", "NODE_CAP", "GiveUp", "Solver", "cards_left", "shared_solver", "solvable", "solve",
           "solve_outcome", "tricks_left"]
