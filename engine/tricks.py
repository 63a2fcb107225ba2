"""The rules of a trick that every phase, the views and the bots share, each written once.

Every suit or rank question is answered by the hand's :class:`engine.cards.Strain` table; this module holds the
rules built on it: the led suit of a trick, the free (un-nominated) joker, the misère-forced joker, the trick's
winner and whose card is whose.

>>> from engine.cards import strain_table
>>> t = strain_table(("AS", "KS", "AH", "JK"), None, None)
>>> led_suit(("JK", "AS"), "H", t), free_joker("JK", t), high_free_joker("JK", t)
('H', True, True)
>>> trick_winner_index(("KS", "AH", "AS"), None, t)
2
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Final

from engine.cards import Strain
from engine.memo import remember
from engine.model import Contract, GameState, Trick
from engine.options import Options
from engine.rules import MISERE_BIDS, hand_strain


def led_suit(cards: Sequence[str], nominate: str | None, table: Strain) -> str | None:
    """The suit a trick was led in: the first card's effective suit, or the suit named by the leader of a free
    joker (``None`` only for a free joker led to the last trick without a suit)."""
    return table.suit[cards[0]] or nominate


def trick_led_suit(trick: Trick, table: Strain) -> str | None:
    """:func:`led_suit` of a trick of the state."""
    return table.suit[trick.cards[0]] or trick.nominate


def free_joker(card: str, table: Strain) -> bool:
    """Whether ``card`` is a joker without a suit: un-nominated in a no-trump or misère contract (high or low)."""
    return table.suit[card] is None


def high_free_joker(card: str, table: Strain) -> bool:
    """Whether ``card`` is a free joker that ranks above every card (not the low joker of ``joker_low_in_misere``)."""
    return table.suit[card] is None and table.power[card] > 0


def low_free_joker(card: str, table: Strain) -> bool:
    """Whether ``card`` is the free joker that ranks below every card (``joker_low_in_misere``)."""
    return table.suit[card] is None and table.power[card] < 0


def joker_forced(opts: Options, contract: Contract | None) -> bool:
    """Whether a seat void in the led suit must play its high free joker: misère with ``joker_forced_in_misere``."""
    return contract is not None and contract.bid in MISERE_BIDS and opts.joker_forced_in_misere


def trick_winner_index(cards: Sequence[str], nominate: str | None, table: Strain) -> int:
    """Index of the card winning the (possibly partial) trick ``cards`` (RULES.md 1.10.3): the highest trump,
    else the highest card of the led suit; a high free joker beats both; a low free joker led loses to any card
    of the suit it was led as. (The led card always counts, at its power; every other card at its
    :func:`led_ranks` rank: the first highest wins.)"""
    led = table.suit[cards[0]] or nominate
    rank_of_card = table.led_ranks.get(led)
    if rank_of_card is None:
        rank_of_card = led_ranks(table, led)
    best_i, best_p = 0, table.power[cards[0]]
    for i in range(1, len(cards)):
        p = rank_of_card[cards[i]]
        if p > best_p:
            best_i, best_p = i, p
    return best_i


#: The rank of a card that cannot win a trick (below every power: the lowest, a low free joker's, is -9).
CANNOT_WIN: Final = -1000


def led_ranks(table: Strain, led: str | None) -> dict[str, int]:
    """Each card's claim on a trick led in ``led`` when it is not the card led: its power if it may win the
    trick (a card of the led suit, a trump, a high free joker), else :data:`CANNOT_WIN`. Built once per table and
    led suit (``table.led_ranks``, a pure memo: the tables are immutable)."""
    ranks = table.led_ranks.get(led)
    if ranks is None:
        suit_of, power, trump = table.suit, table.power, table.trump
        ranks = table.led_ranks[led] = {
            c: power[c] if s == led or (trump is not None and s == trump) or (s is None and power[c] > 0)
            else CANNOT_WIN for c, s in suit_of.items()}
    return ranks


def beats(card: str, winning: str, led: str | None, table: Strain) -> bool:
    """Whether ``card``, played now to a trick led in ``led`` that ``winning`` is winning, would win it: the same
    rule as :func:`trick_winner_index` (tests/engine/test_tricks.py checks that they agree), one card at a time,
    for the players that weigh each candidate card (bots/cardplay.py)."""
    suit_of, power = table.suit, table.power
    s, ws = suit_of[card], suit_of[winning]
    if s is None:
        return power[card] > 0 and (ws is not None or power[card] > power[winning])
    trump = table.trump
    if ws is None:  # a led low joker loses to any card of the suit it was led as, and to a trump
        return power[winning] < 0 and (s == led or (trump is not None and s == trump))
    if s == ws:
        return power[card] > power[winning]
    return trump is not None and s == trump


def joker_may_follow(opts: Options, card: str, led: str | None, led_before: Collection[str | None],
                     table: Strain) -> bool:
    """Whether ``card``, not of the led suit, may follow although its player holds that suit: the high free joker
    on the suit's first round (``led`` not among ``led_before``, the suits led to the completed tricks), with
    ``joker_follow_first_round`` (RULES.md 3.3). So such a play shows no void."""
    return opts.joker_follow_first_round and led not in led_before and high_free_joker(card, table)


def trick_seat(state: GameState, trick: Trick, i: int) -> int:
    """The seat that played card ``i`` of ``trick`` (seats sitting the hand out are skipped)."""
    return seat_after(state.active, trick.leader, i)


def seat_after(active: tuple[int, ...], leader: int, i: int) -> int:
    """The seat ``i`` places after ``leader`` among the seats playing the hand (``active``)."""
    return active[(active.index(leader) + i) % len(active)]


def suits_led_before(state: GameState, table: Strain) -> set[str | None]:
    """Suits led to the completed tricks of this hand (not counting the trick in progress)."""
    return {trick_led_suit(t, table) for t in state.tricks}


_STRAINS: Final[dict[tuple[Options, str | None, tuple[tuple[str, str], ...]], Strain]] = {}
#: The last table answered and the (options, contract, nominations) objects it was for: a hand's states share
#: those objects, so consecutive calls for one game skip building and hashing the key.
_LAST_STRAIN: Final[list[tuple[Options, Contract | None, tuple[tuple[str, str], ...], Strain]]] = []


def strain_of(state: GameState) -> Strain:
    """The strain table of the hand being played, memoised (Options caches its hash, so the lookup is cheap)."""
    opts, c, nominations = state.options, state.contract, state.nominations
    if _LAST_STRAIN:
        last = _LAST_STRAIN[0]
        if last[0] is opts and last[1] is c and last[2] is nominations:
            return last[3]
    key = (opts, c.bid if c else None, nominations)
    table = _STRAINS.get(key)
    if table is None:
        table = remember(_STRAINS, key, hand_strain(*key), 4096)
    if _LAST_STRAIN:
        _LAST_STRAIN[0] = (opts, c, nominations, table)
    else:
        _LAST_STRAIN.append((opts, c, nominations, table))
    return table


__all__ = ["CANNOT_WIN", "beats", "free_joker", "high_free_joker", "joker_forced", "joker_may_follow", "led_ranks",
           "led_suit", "low_free_joker", "seat_after", "strain_of", "suits_led_before", "trick_led_suit", "trick_seat",
           "trick_winner_index"]
