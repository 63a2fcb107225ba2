"""The play of one hand card by card without a game state per card: the engine's fast path for searches.

A search plays thousands of hands to their end, and each :func:`engine.apply_move` builds a new
:class:`engine.GameState` and its events. :class:`Playout` holds the play phase of one hand in plain lists
instead, and applies the same rules: the cards a seat may play (:func:`engine.play.cards_to_follow` and
:func:`engine.play.lead_suits`, the functions the engine's own checks use), the trick's winner
(:func:`engine.tricks.trick_winner_index`), the suits led and shown void, a ghost's face-down card turned up
when the card on it is played, and the end of the hand after the tenth trick or the first trick a misère
contractor wins. :meth:`Playout.state` gives the game state it stands for, the scored hand included:
``tests/engine/test_playout.py`` plays random hands of every player count and rule set both ways and finds the
same legal moves and the same states at every card.

A playout trusts its caller: :meth:`Playout.play` takes one of :meth:`Playout.legal_cards` (with a suit from
:meth:`Playout.lead_suits`) and does not check it again; :func:`engine.apply_move` is the referee.

>>> from engine import Options, apply_move, legal_moves, new_game
>>> state, _ = new_game(Options(), seed=3, first_dealer=3)
>>> while state.phase != "play":
...     state, _ = apply_move(state, legal_moves(state)[-1] if state.phase == "auction" else legal_moves(state)[0])
>>> p = Playout(state)
>>> while not p.over:
...     card = p.legal_cards()[0]
...     p.play(card, p.lead_suits(card)[0])
>>> sum(p.won), len(p.deltas()) == len(state.scores)
(10, True)
"""

from __future__ import annotations

from typing import Final

import msgspec

from engine.deal import pack_index
from engine.masks import cards_of, follow_mask, mask_of, winning_index
from engine.model import Event, GameState, Move, Trick
from engine.play import cards_to_follow, lead_suits, play_move
from engine.rules import MISERE_BIDS
from engine.scoring import TRICKS_PER_HAND, finish_hand, score_hand
from engine.tricks import joker_forced, strain_of, trick_winner_index

replace: Final = msgspec.structs.replace

#: The answer of :meth:`Playout.lead_suits` for every card but a free joker led: no suit is named.
_NO_SUIT: Final[tuple[str | None, ...]] = (None,)


class Playout:
    """The play phase of one hand from ``state`` (in the play phase), in mutable lists (see the module docstring).

    Read freely, never write: ``hands`` (every seat's playable cards, in the hand's order), ``to_act``,
    ``leader`` and ``cards`` and ``nominate`` (the trick in progress: its leader, cards so far and a free joker
    lead's suit), ``won`` (tricks per seat), ``table`` (the hand's strain table), ``active`` (the seats playing)
    and ``over`` (the hand is finished).
    """

    def __init__(self, state: GameState) -> None:
        if state.phase != "play" or state.to_act is None:
            raise ValueError("a playout starts in the play phase")
        self.start = state
        opts = state.options
        self.table = strain_of(state)
        self.active = state.active
        n = len(self.active)
        self._next = [0] * len(state.hands)
        for i, s in enumerate(self.active):
            self._next[s] = self.active[(i + 1) % n]
        self.hands = [list(h) for h in state.hands]
        trick = state.trick
        self.to_act: int = state.to_act
        self.leader: int = trick.leader if trick is not None else state.to_act
        self.cards: list[str] = list(trick.cards) if trick is not None else []
        self.nominate: str | None = trick.nominate if trick is not None else None
        self._led: str | None = (self.table.suit[self.cards[0]] or self.nominate) if self.cards else None
        self.tricks: list[Trick] = list(state.tricks)
        self.won = list(state.tricks_won)
        self.suits_led = state.suits_led
        self.shown_void = list(state.shown_void)
        c = state.contract
        self._contractor = c.contractor if c is not None and c.bid in MISERE_BIDS else -1
        self._free_rules = opts.joker_follow_first_round or joker_forced(opts, c)
        # Free (un-nominated) jokers still to be played, face-down ones included: with none left, a seat may lead
        # any card and must follow the led suit if it can, nothing else.
        suit_of = self.table.suit
        self._free = sum(1 for s in self.active for x in state.hands[s] if suit_of[x] is None) + sum(
            1 for s in self.active if state.ghost_piles and state.ghost_piles[s]
            for up, down in state.ghost_piles[s] if up in state.hands[s] and suit_of[down] is None)
        self._piles = state.ghost_piles
        self._index = pack_index(opts) if state.ghost_piles else {}
        self.over = False

    # ------------------------------------------------------------------------------------------- the rules

    def legal_cards(self) -> list[str]:
        """The cards the seat to act may play now, each once, in its hand's order (a free joker only when it may
        be led now: see :meth:`lead_suits`)."""
        hand = self.hands[self.to_act]
        table = self.table
        if self.cards:
            led = self._led
            if not self._free_rules or not self._free:
                suit_of = table.suit
                same = [c for c in hand if suit_of[c] == led]
                if same or not self._free:
                    return same or list(hand)
            return cards_to_follow(self.start.options, self.start.contract, hand, led, table, self.tricks)
        if not self._free:
            return list(hand)
        suit_of = table.suit
        out: list[str] = []
        for c in hand:
            if suit_of[c] is not None or self.lead_suits(c):
                out.append(c)
        return out

    def lead_suits(self, card: str) -> tuple[str | None, ...]:
        """The suits ``card`` may name as it is played now: for a free joker led, those of
        :func:`engine.play.lead_suits` (``(None,)`` on the last trick, empty when it may not be led now); for any
        other play, ``(None,)``."""
        table = self.table
        if self.cards or table.suit[card] is not None:
            return _NO_SUIT
        seat = self.to_act
        return lead_suits(self.start.options, len(self.tricks), self.suits_led, self.shown_void[seat],
                          self.hands[seat], table.power[card] < 0)

    def legal_plays(self) -> list[Move]:
        """The legal moves of the seat to act, exactly as :func:`engine.legal_moves` lists them."""
        seat = self.to_act
        moves: list[Move] = []
        for c in self.legal_cards():
            moves.extend(play_move(seat, c, s) for s in self.lead_suits(c))
        return moves

    def play(self, card: str, nominate: str | None = None) -> None:
        """The seat to act plays ``card`` (naming ``nominate`` when it leads a free joker): one of
        :meth:`legal_cards`, not checked again."""
        seat = self.to_act
        hand = self.hands[seat]
        hand.remove(card)
        if self._piles:  # ghost partners: the card beneath a ghost's played card is turned up
            for up, down in self._piles[seat]:
                if up == card:
                    hand.append(down)
                    hand.sort(key=self._index.__getitem__)
                    break
        table = self.table
        if table.suit[card] is None:
            self._free -= 1
        cards = self.cards
        if not cards:
            self.leader = seat
            self.nominate = nominate
            led = table.suit[card] or nominate
            self._led = led
            if led and led not in self.suits_led:
                self.suits_led += led
        else:
            led = self._led
            if led is not None and table.suit[card] != led and led not in self.shown_void[seat]:
                self.shown_void[seat] += led
        cards.append(card)
        active = self.active
        if len(cards) < len(active):
            self.to_act = self._next[seat]
            return
        leader = self.leader
        winner = active[(active.index(leader) + trick_winner_index(cards, self.nominate, table)) % len(active)]
        self.tricks.append(Trick(leader, tuple(cards), self.nominate, winner))
        self.won[winner] += 1
        self.cards = []
        self.nominate = None
        self._led = None
        self.to_act = winner
        if winner == self._contractor or len(self.tricks) == TRICKS_PER_HAND:
            self.over = True

    # ------------------------------------------------------------------------------------------- the results

    def _played(self) -> GameState:
        """The game state of the cards played so far (before the hand is scored, once it is over)."""
        hands = tuple(tuple(h) for h in self.hands)
        trick = Trick(self.leader, tuple(self.cards), self.nominate) if self.cards else None
        return replace(self.start, hands=hands, trick=trick, tricks=tuple(self.tricks), to_act=self.to_act,
                       suits_led=self.suits_led, shown_void=tuple(self.shown_void), tricks_won=tuple(self.won))

    def state(self) -> GameState:
        """The game state this playout stands for: the one :func:`engine.apply_move` gives after the same plays,
        the hand scored (and the next hand dealt, or the game over) once the hand is over."""
        st = self._played()
        if self.over:
            events: list[Event] = []
            return finish_hand(st, events)
        return st

    def score(self) -> tuple[tuple[int, ...], tuple[int, ...], bool | None]:
        """Once the hand is over, :func:`engine.score_hand` of it: (score change per side, the contracting seats,
        whether the contract was made)."""
        if not self.over:
            raise ValueError("the hand is not over")
        return score_hand(self._played())

    def deltas(self) -> tuple[int, ...]:
        """The hand's score change per side, once the hand is over (:meth:`score`)."""
        return self.score()[0]


class BitPlayout:
    """:class:`Playout` with the hands as masks (:mod:`engine.masks`): the play phase of one hand from ``state``,
    for the searches' playouts, where a card is a bit of the hand's strain table (``table.bit``).

    The same rules as :class:`Playout` (``tests/engine/test_masks.py`` plays random hands of every player count
    and rule set with both, card by card, and finds the same legal cards, tricks and scores): following and
    winning by mask operations, and, while a free joker's own rules can matter (``joker_follow_first_round``,
    the misère-forced joker, a free joker to lead), the engine's general functions on the cards
    (:func:`engine.play.cards_to_follow`, :func:`engine.play.lead_suits`); a ghost's face-down card joins its
    hand when the card on it is played.

    Read freely, never write: ``hands`` (every seat's mask), ``to_act``, ``leader``, ``bits`` and ``nominate``
    (the trick in progress), ``led`` (its suit), ``won``, ``table``, ``active``, ``over``.
    """

    def __init__(self, state: GameState) -> None:
        if state.phase != "play" or state.to_act is None:
            raise ValueError("a playout starts in the play phase")
        self.start = state
        opts = state.options
        table = self.table = strain_of(state)
        self.active = state.active
        n = len(self.active)
        self._next = [0] * len(state.hands)
        for i, s in enumerate(self.active):
            self._next[s] = self.active[(i + 1) % n]
        bit = table.bit
        self.hands: list[int] = []
        for h in state.hands:
            m = 0
            for card in h:
                m |= bit[card]
            self.hands.append(m)
        trick = state.trick
        self.to_act: int = state.to_act
        self.leader: int = trick.leader if trick is not None else state.to_act
        self.bits: list[int] = [bit[c] for c in trick.cards] if trick is not None else []
        self.nominate: str | None = trick.nominate if trick is not None else None
        self.led: str | None = (table.suit[trick.cards[0]] or self.nominate) if trick is not None else None
        #: The completed tricks, kept only while ``joker_follow_first_round`` can read them (a free joker left).
        self.tricks: list[Trick] = list(state.tricks)
        self._done = len(state.tricks)
        self.won = list(state.tricks_won)
        self.suits_led = state.suits_led
        self.shown_void = list(state.shown_void)
        c = state.contract
        self._contractor = c.contractor if c is not None and c.bid in MISERE_BIDS else -1
        self._forced = joker_forced(opts, c)
        self._first_round = opts.joker_follow_first_round
        free = table.suit_mask.get(None, 0)
        self._free = 0
        for s in self.active:
            self._free |= self.hands[s] & free
        # Ghost partners: per seat, each face-up card lying on a face-down one → the card beneath (as bits).
        self._piles: list[dict[int, int]] = [{} for _ in state.hands]
        for s, piles in enumerate(state.ghost_piles):
            for up, down in piles:
                if up in state.hands[s]:
                    self._piles[s][bit[up]] = bit[down]
                    self._free |= bit[down] & free
        self.over = False

    def legal(self) -> int:
        """The mask of the cards the seat to act may play now (a free joker only when it may be led now: see
        :meth:`lead_suits`)."""
        hand = self.hands[self.to_act]
        table = self.table
        if self.bits:
            if self._first_round and self._free:
                cards = cards_to_follow(self.start.options, self.start.contract, cards_of(hand, table), self.led,
                                        table, self.tricks)
                return mask_of(cards, table)
            return follow_mask(hand, self.led, table, self._forced and self._free != 0)
        free = hand & self._free
        if not free:
            return hand
        out = hand ^ free
        while free:
            low = free & -free
            if self.lead_suits(low):
                out |= low
            free ^= low
        return out

    def lead_suits(self, bit: int) -> tuple[str | None, ...]:
        """The suits the card ``bit`` may name as it is played now (:meth:`Playout.lead_suits`)."""
        table = self.table
        i = bit.bit_length() - 1
        if self.bits or table.bit_suit[i] is not None:
            return _NO_SUIT
        seat = self.to_act
        return lead_suits(self.start.options, self._done, self.suits_led, self.shown_void[seat],
                          cards_of(self.hands[seat], table), table.bit_power[i] < 0)

    def play(self, bit: int, nominate: str | None = None) -> None:
        """The seat to act plays the card ``bit`` (naming ``nominate`` when it leads a free joker): one of
        :meth:`legal`, not checked again."""
        seat = self.to_act
        hands = self.hands
        # (an item's augmented assignment, ``hands[seat] ^= bit``, is a generic call in the compiled build)
        hands[seat] = hands[seat] ^ bit
        self._free &= ~bit
        piles = self._piles[seat]
        if piles and bit in piles:  # a ghost's face-down card beneath is turned up
            hands[seat] = hands[seat] | piles.pop(bit)
        table = self.table
        bits = self.bits
        if not bits:
            self.leader = seat
            self.nominate = nominate
            led = table.bit_suit[bit.bit_length() - 1] or nominate
            self.led = led
            if led and led not in self.suits_led:
                self.suits_led += led
        else:
            led = self.led
            if led is not None and not bit & table.suit_mask.get(led, 0) and led not in self.shown_void[seat]:
                self.shown_void[seat] += led
        bits.append(bit)
        active = self.active
        if len(bits) < len(active):
            self.to_act = self._next[seat]
            return
        leader = self.leader
        winner = active[(active.index(leader) + winning_index(bits, self.led, table)) % len(active)]
        if self._first_round and self._free:
            # (the completed tricks are read only by joker_follow_first_round, and not once no free joker is left)
            cards = table.cards
            self.tricks.append(Trick(leader, tuple(cards[b.bit_length() - 1] for b in bits), self.nominate,
                                     winner))
        self._done += 1
        won = self.won
        won[winner] = won[winner] + 1
        self.bits = []
        self.nominate = None
        self.led = None
        self.to_act = winner
        if winner == self._contractor or self._done == TRICKS_PER_HAND:
            self.over = True

    def score(self) -> tuple[tuple[int, ...], tuple[int, ...], bool | None]:
        """Once the hand is over, :func:`engine.score_hand` of it (:meth:`Playout.score`)."""
        if not self.over:
            raise ValueError("the hand is not over")
        return score_hand(replace(self.start, tricks_won=tuple(self.won)))


__all__ = ["BitPlayout", "Playout"]
