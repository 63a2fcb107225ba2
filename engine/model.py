"""The engine's data: moves, events, state and views, all frozen msgspec Structs in the API's vocabulary.

Moves and events are tagged unions (``type`` field) so that a request body decodes straight into a move.
A :class:`GameState` round-trips exactly through msgspec encoding.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations, islice
from math import comb
from typing import Any, Literal, overload

import msgspec

from engine.options import Options

Seat = int


class _Move(msgspec.Struct, frozen=True, gc=False, tag_field="type", forbid_unknown_fields=True, kw_only=True):
    seat: Seat


class Bid(_Move, frozen=True, tag="bid"):
    """A bid: ``6S`` … ``10NT``, ``MISERE``, ``OPEN_MISERE`` or ``BLIND_MISERE``."""

    bid: str
    sans_kitty: bool = False


class Pass(_Move, frozen=True, tag="pass"):
    """Pass in the auction (or, for the contractor after others passed with a raise allowed, stand)."""


class LookAtHand(_Move, frozen=True, tag="look_at_hand"):
    """Blind-misère games: the seat looks at its hand, giving up blind misère."""


class ProposeRedeal(_Move, frozen=True, tag="propose_redeal"):
    """No-ace-no-face: propose abandoning the deal (the hand holds no A, K, Q, J or joker)."""


class AnswerRedeal(_Move, frozen=True, tag="answer_redeal"):
    """No-ace-no-face: the proposer's partner accepts (redeal) or refuses (play on)."""

    accept: bool


class CallCard(_Move, frozen=True, tag="call_card"):
    """Five players: the contractor calls a card; its holder becomes the secret partner."""

    card: str


class GoAlone(_Move, frozen=True, tag="go_alone"):
    """Five players: the contractor plays without a partner."""


class ChoosePartners(_Move, frozen=True, tag="choose_partners"):
    """Five players, ``choose_player``: name one partner (two allowed for bids of 8 or more)."""

    partners: tuple[int, ...]


class Discard(_Move, frozen=True, tag="discard"):
    """The contractor's discard after taking the kitty (as many cards as the kitty holds)."""

    cards: tuple[str, ...]


#: Every choice of ``k`` of ``n`` positions in itertools' order, per (n, k) of at most ``_MAX_CHOICES`` choices (the
#: largest hand, 16 cards with a kitty of 6, has 8,008), built the first time a discard of that shape is read by
#: index: a pure memo, the same tuples as ``itertools.combinations(range(n), k)``.
_POSITION_CHOICES: dict[tuple[int, int], tuple[tuple[int, ...], ...]] = {}
_MAX_CHOICES = 10_000


class DiscardChoices(Sequence[Discard]):
    """The legal discards of the exchange: every choice of ``k`` cards of ``hand``, as a sequence that builds each
    :class:`Discard` only when it is read.

    It holds exactly the moves ``[Discard(seat=seat, cards=c) for c in itertools.combinations(hand, k)]``, in
    that order (C(13, 3) = 286 of them in the four-player game, up to C(16, 6) = 8,008), and compares equal to
    that list; reading one by index takes a few steps instead of building them all, so a search that samples a
    random legal move at the exchange pays for one move, not hundreds. ``list(...)`` gives the plain list.

    >>> choices = DiscardChoices(0, ("AS", "KS", "QS", "JS"), 2)
    >>> len(choices), choices[0].cards, choices[-1].cards, choices[4].cards
    (6, ('AS', 'KS'), ('QS', 'JS'), ('KS', 'JS'))
    >>> Discard(seat=0, cards=("KS", "JS")) in choices, Discard(seat=0, cards=("JS", "KS")) in choices
    (True, False)
    """

    __slots__ = ("seat", "hand", "k", "_positions", "_size", "_choices", "last_read")

    def __init__(self, seat: int, hand: tuple[str, ...], k: int) -> None:
        self.seat = seat
        self.hand = hand
        self.k = k
        self._positions: dict[str, int] | None = None
        self._size = comb(len(hand), k)
        self._choices = _POSITION_CHOICES.get((len(hand), k))
        #: The move the last read by index built (``None`` before one): the engine knows it for one of these
        #: discards without looking it up again (engine.contract.listed_discard).
        self.last_read: Discard | None = None

    def __len__(self) -> int:
        return self._size

    @overload
    def __getitem__(self, index: int) -> Discard: ...

    @overload
    def __getitem__(self, index: slice) -> list[Discard]: ...

    def __getitem__(self, index: int | slice) -> Discard | list[Discard]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._size))]
        size = self._size
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("DiscardChoices index out of range")
        hand, k = self.hand, self.k
        n = len(hand)
        choices = self._choices
        if choices is None and size <= _MAX_CHOICES:
            choices = self._choices = _POSITION_CHOICES[(n, k)] = tuple(combinations(range(n), k))
        if choices is not None:  # the index-th choice of positions, read off the list of them
            move = self.last_read = Discard(seat=self.seat, cards=tuple([hand[p] for p in choices[index]]))
            return move
        # Unrank: the index-th k-subset of the hand's positions in lexicographic order (itertools' order).
        cards: list[str] = []
        first = 0
        for left in range(k, 0, -1):
            for x in range(first, n):
                block = comb(n - x - 1, left - 1)  # the choices that take position x next
                if index < block:
                    cards.append(hand[x])
                    first = x + 1
                    break
                index -= block
        move = self.last_read = Discard(seat=self.seat, cards=tuple(cards))
        return move

    def __iter__(self) -> Iterator[Discard]:
        seat = self.seat
        for cards in combinations(self.hand, self.k):
            yield Discard(seat=seat, cards=cards)

    def __contains__(self, move: object) -> bool:
        if type(move) is not Discard or move.seat != self.seat:
            return False
        cards = move.cards
        if type(cards) is not tuple or len(cards) != self.k:
            return False
        positions = self._positions
        if positions is None:
            positions = self._positions = {c: i for i, c in enumerate(self.hand)}
        last = -1
        for c in cards:
            i = positions.get(c, -1)
            if i <= last:
                return False
            last = i
        return True

    def index(self, value: object, start: int = 0, stop: int | None = None) -> int:
        if value in self:
            assert isinstance(value, Discard)
            positions = self._positions
            assert positions is not None
            n, k, rank, first = len(self.hand), self.k, 0, 0
            for left, c in zip(range(k, 0, -1), value.cards, strict=True):
                i = positions[c]
                rank += sum(comb(n - x - 1, left - 1) for x in range(first, i))
                first = i + 1
            if start <= rank and (stop is None or rank < stop):
                return rank
        raise ValueError(f"{value!r} is not a legal discard")

    def count(self, value: object) -> int:
        return 1 if value in self else 0

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DiscardChoices):
            return (self.seat, self.hand, self.k) == (other.seat, other.hand, other.k)
        if isinstance(other, list | tuple):
            return len(other) == self._size and all(a == b for a, b in zip(self, other, strict=False))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to a list, so unhashable like one

    def __repr__(self) -> str:
        shown = ", ".join(repr(m) for m in islice(self, 3))
        return f"DiscardChoices(seat={self.seat}, k={self.k}, {self._size} moves: [{shown}, ...])"


class NominateJoker(_Move, frozen=True, tag="nominate_joker"):
    """NT family: the contractor nominates a held joker's suit before play; ``suit: null`` declines.

    Every NT-family contractor takes this step, joker or not, and may always decline (engine/decisions.py)."""

    suit: str | None
    card: str = "JK"


class Play(_Move, frozen=True, tag="play"):
    """Play a card; ``nominate`` names the suit when leading an un-nominated joker in an NT-family contract."""

    card: str
    nominate: str | None = None


Move = Bid | Pass | LookAtHand | ProposeRedeal | AnswerRedeal | CallCard | GoAlone | ChoosePartners | Discard \
    | NominateJoker | Play


class Rejection(msgspec.Struct, frozen=True):
    """Why a move is illegal: a stable machine ``reason``, an English ``detail``, and the ``params`` the detail
    was built from (seats, card/bid/suit tokens, counts), so that a front end can word it in any language.

    (Defined here rather than in :mod:`engine.game`, which re-exports it, so that every Struct lives in a module
    the compiled build leaves as Python: mypyc drops class keywords such as ``frozen=True``.)
    """

    reason: str
    detail: str
    params: dict[str, Any] = {}


# ---------------------------------------------------------------------------------------------- events


class _Event(msgspec.Struct, frozen=True, gc=False, tag_field="type", kw_only=True):
    pass


class HandDealt(_Event, frozen=True, tag="hand_dealt"):
    hand_number: int
    dealer: Seat


class CardsReceived(_Event, frozen=True, tag="cards_received"):
    """Private to ``seat``: its dealt hand (``null`` for a seat that has not looked, or for other viewers)."""

    seat: Seat
    cards: tuple[str, ...] | None


class CutDraw(msgspec.Struct, frozen=True, kw_only=True):
    """One card cut for the deal: who cut it, and the card."""

    seat: Seat
    card: str


class DealerCut(_Event, frozen=True, tag="dealer_cut"):
    """``first_dealer=cut_low``: the cards each seat cut, in draw order, and who deals."""

    draws: tuple[CutDraw, ...]
    dealer: Seat


class LookedAtHand(_Event, frozen=True, tag="looked_at_hand"):
    seat: Seat
    cards: tuple[str, ...] | None


class BidMade(_Event, frozen=True, tag="bid_made"):
    seat: Seat
    bid: str
    sans_kitty: bool = False


class Passed(_Event, frozen=True, tag="passed"):
    seat: Seat


class AuctionReopened(_Event, frozen=True, tag="auction_reopened"):
    seat: Seat


class RedealProposed(_Event, frozen=True, tag="redeal_proposed"):
    seat: Seat


class RedealAnswered(_Event, frozen=True, tag="redeal_answered"):
    seat: Seat
    accept: bool


class AuctionWon(_Event, frozen=True, tag="auction_won"):
    contractor: Seat
    bid: str
    sans_kitty: bool
    sitting_out: tuple[Seat, ...]


class ThrownIn(_Event, frozen=True, tag="thrown_in"):
    reason: Literal["all_passed", "inkle", "no_ace_no_face"]
    next_dealer: Seat


class NoTrumpPlayOut(_Event, frozen=True, tag="no_trump_play_out"):
    """Everyone passed and ``all_pass=play_no_trumps``: the hand is played at no trumps with no contract."""

    leader: Seat


class KittyShown(_Event, frozen=True, tag="kitty_shown"):
    cards: tuple[str, ...]


class KittyTaken(_Event, frozen=True, tag="kitty_taken"):
    """Private to the contractor: the kitty's cards."""

    seat: Seat
    cards: tuple[str, ...] | None


class Discarded(_Event, frozen=True, tag="discarded"):
    """Private to the contractor: the discarded cards."""

    seat: Seat
    cards: tuple[str, ...] | None


class CardCalled(_Event, frozen=True, tag="card_called"):
    seat: Seat
    card: str


class WentAlone(_Event, frozen=True, tag="went_alone"):
    seat: Seat


class PartnersChosen(_Event, frozen=True, tag="partners_chosen"):
    seat: Seat
    partners: tuple[Seat, ...]


class JokerNominated(_Event, frozen=True, tag="joker_nominated"):
    seat: Seat
    card: str
    suit: str | None


class CardPlayed(_Event, frozen=True, tag="card_played"):
    seat: Seat
    card: str
    nominate: str | None = None


class PartnerRevealed(_Event, frozen=True, tag="partner_revealed"):
    seat: Seat
    card: str


class GhostCardsUp(_Event, frozen=True, tag="ghost_cards_up"):
    """Ghost partners: cards of a ghost that everyone now sees face up: its five face-up cards at the deal, then
    each card turned up when the card lying on it is played."""

    seat: Seat
    cards: tuple[str, ...]


class TrickWon(_Event, frozen=True, tag="trick_won"):
    seat: Seat
    trick_number: int
    cards: tuple[str, ...]


class HandExposed(_Event, frozen=True, tag="hand_exposed"):
    seat: Seat
    cards: tuple[str, ...]


class HandScored(_Event, frozen=True, tag="hand_scored"):
    bid: str | None
    contractor: Seat | None
    contracting_seats: tuple[Seat, ...]
    made: bool | None
    tricks_won: tuple[int, ...]
    deltas: tuple[int, ...]
    scores: tuple[int, ...]


class GameOver(_Event, frozen=True, tag="game_over"):
    winners: tuple[int, ...]
    losers: tuple[int, ...]
    reason: Literal["contract", "points", "out_backwards"]


Event = HandDealt | CardsReceived | DealerCut | LookedAtHand | BidMade | Passed | AuctionReopened \
    | RedealProposed | RedealAnswered | AuctionWon | ThrownIn | NoTrumpPlayOut | KittyShown | KittyTaken \
    | Discarded | CardCalled | WentAlone | PartnersChosen | JokerNominated | CardPlayed | PartnerRevealed \
    | GhostCardsUp | TrickWon | HandExposed | HandScored | GameOver


# ----------------------------------------------------------------------------------------------- state

Phase = Literal["auction", "redeal_answer", "call", "exchange", "nominate", "play", "game_over"]


class Call(msgspec.Struct, frozen=True, gc=False, array_like=True):
    """One auction call: ``bid`` is ``None`` for a pass."""

    seat: Seat
    bid: str | None
    sans_kitty: bool = False


class Contract(msgspec.Struct, frozen=True, gc=False, kw_only=True):
    bid: str
    contractor: Seat
    sans_kitty: bool = False
    #: Seats that sit the hand out (misère partners).
    sitting_out: tuple[Seat, ...] = ()
    #: Five players, called card: the card called (its holder is the partner, derived, never stored).
    called_card: str | None = None
    #: Five players, ``choose_player``: the named partners.
    chosen_partners: tuple[Seat, ...] = ()
    #: Five players: the contractor declared to play alone (or the method is ``alone_only``).
    alone: bool = False
    #: Five players: whether the partner question has been settled this hand.
    partner_settled: bool = False


class Trick(msgspec.Struct, frozen=True, gc=False, array_like=True):
    leader: Seat
    cards: tuple[str, ...]
    #: The suit nominated by the leader of an un-nominated joker (NT family), else ``None``.
    nominate: str | None = None
    winner: Seat | None = None


class GameResult(msgspec.Struct, frozen=True, gc=False):
    winners: tuple[int, ...]
    losers: tuple[int, ...]
    reason: Literal["contract", "points", "out_backwards"]


class GameState(msgspec.Struct, frozen=True, gc=False, kw_only=True, omit_defaults=True):
    """The whole game. Sides are indices into ``sides(options)``; ``scores`` is per side."""

    rules_version: str
    options: Options
    seed: int
    #: Explicit deck orders for the hands still to be dealt (consumed front first), then ``seed`` deals.
    deck_orders: tuple[tuple[str, ...], ...] = ()
    #: The explicit deck orders already dealt from, in order (hand 0 first): kept so that a host's record of the
    #: game can list each hand's deck (the seed rederives only its own deals).
    dealt_decks: tuple[tuple[str, ...], ...] = ()
    hand_number: int
    dealer: Seat
    phase: Phase
    to_act: Seat | None
    scores: tuple[int, ...]
    hands: tuple[tuple[str, ...], ...]
    dead_hand: tuple[str, ...] = ()
    #: Ghost partners: per seat (empty for the humans), each ghost's five piles as dealt this hand, each a pair
    #: (face-up card, the face-down card beneath it). Fixed for the hand; a ghost's ``hands`` entry holds only its
    #: cards now face up, and a face-down card is turned up once the card on it has left that hand.
    ghost_piles: tuple[tuple[tuple[str, str], ...], ...] = ()
    kitty: tuple[str, ...]
    discards: tuple[str, ...] = ()
    viewed: tuple[bool, ...]
    kitty_shown: bool = False
    # auction
    calls: tuple[Call, ...] = ()
    passed: tuple[bool, ...]
    high: Call | None = None
    #: ``final_bidder_may_raise``: the high bidder is making its final call.
    raising: bool = False
    redeal_proposer: Seat | None = None
    misere_barred: tuple[Seat, ...] = ()
    # contract and play
    contract: Contract | None = None
    nominations: tuple[tuple[str, str], ...] = ()
    active: tuple[Seat, ...] = ()
    tricks: tuple[Trick, ...] = ()
    trick: Trick | None = None
    suits_led: str = ""
    shown_void: tuple[str, ...] = ()
    tricks_won: tuple[int, ...] = ()
    result: GameResult | None = None
    last_hand: HandScored | None = None


# ----------------------------------------------------------------------------------------------- views


class PlayView(msgspec.Struct, frozen=True):
    seat: Seat
    card: str


class TrickView(msgspec.Struct, frozen=True, kw_only=True):
    leader: Seat
    plays: tuple[PlayView, ...]
    nominate: str | None = None
    winner: Seat | None = None


class CallView(msgspec.Struct, frozen=True, kw_only=True):
    """One auction call as views show it (the state keeps :class:`Call` as a compact array): ``bid`` is
    ``null`` for a pass."""

    seat: Seat
    bid: str | None
    sans_kitty: bool = False


class ContractView(msgspec.Struct, frozen=True, kw_only=True):
    bid: str
    contractor: Seat
    sans_kitty: bool
    value: int
    sitting_out: tuple[Seat, ...]
    called_card: str | None = None
    #: The contractor's partners as far as the viewer knows them.
    partners: tuple[Seat, ...] = ()
    partners_known: bool = True
    alone: bool = False


class GhostView(msgspec.Struct, frozen=True, kw_only=True):
    """Ghost partners: a ghost's cards as everyone sees them. ``face_up`` are the cards it may play; ``covered``
    are those of them with a face-down card beneath (``face_down`` of them in all, never shown to anyone)."""

    seat: Seat
    #: The seat that plays this ghost's cards (its human partner).
    controlled_by: Seat
    face_up: tuple[str, ...]
    covered: tuple[str, ...]
    face_down: int


class SeatView(msgspec.Struct, frozen=True, kw_only=True):
    """What one seat (or, with ``seat: null``, every spectator) may know."""

    seat: Seat | None
    players: int
    rules_version: str
    hand_number: int
    dealer: Seat
    phase: Phase
    to_act: Seat | None
    hand: tuple[str, ...] | None
    hand_sizes: tuple[int, ...]
    looked: tuple[bool, ...]
    auction: tuple[CallView, ...]
    high_bid: CallView | None
    contract: ContractView | None
    kitty: tuple[str, ...] | None
    kitty_size: int
    discards: tuple[str, ...] | None
    joker_nominations: dict[str, str]
    current_trick: TrickView | None
    tricks: tuple[TrickView, ...]
    tricks_won: tuple[int, ...]
    exposed: dict[str, tuple[str, ...]]
    sides: tuple[tuple[Seat, ...], ...]
    scores: tuple[int, ...]
    last_hand: HandScored | None
    result: GameResult | None
    #: Ghost partners: each ghost's public cards (empty in every other game). ``hand_sizes`` counts a ghost's
    #: face-up cards only.
    ghosts: tuple[GhostView, ...] = ()
