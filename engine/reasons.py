"""Every reason the engine gives for refusing a move: one enumeration, each with its kind and meaning.

A refusal (:class:`engine.Rejection`) carries one of these stable machine strings as its ``reason``. Two kinds:

- ``malformed``: the move names a card, bid, suit or seat this game does not have; the HTTP API answers
  400 ``MALFORMED_MOVE``;
- ``illegal``: a well-formed move that the rules do not allow now; the HTTP API answers 422 ``ILLEGAL_MOVE``.

The values are part of the public contract (front ends switch on them and translate them), so they never
change; new reasons may be added. ``tests/api/test_codes.py`` finds every reason string the engine can
emit and checks that it is a member here, with a meaning.

>>> Reason.MUST_FOLLOW_SUIT.kind, Reason("UNKNOWN_CARD").kind
('illegal', 'malformed')
>>> Reason.MUST_FOLLOW_SUIT == "MUST_FOLLOW_SUIT"
True
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

ReasonKind = Literal["malformed", "illegal"]


class Reason(StrEnum):
    """A stable reason code for a refused move (see :data:`REASON_INFO` for each one's kind and meaning)."""

    # Malformed: a token the game does not have.
    UNKNOWN_CARD = "UNKNOWN_CARD"
    UNKNOWN_BID = "UNKNOWN_BID"
    UNKNOWN_SUIT = "UNKNOWN_SUIT"
    NO_SUCH_SEAT = "NO_SUCH_SEAT"
    # Illegal: turn and phase.
    GAME_OVER = "GAME_OVER"
    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    WRONG_PHASE = "WRONG_PHASE"
    # Illegal: the auction.
    BID_TOO_LOW = "BID_TOO_LOW"
    MISERE_DISABLED = "MISERE_DISABLED"
    OPEN_MISERE_DISABLED = "OPEN_MISERE_DISABLED"
    BLIND_MISERE_DISABLED = "BLIND_MISERE_DISABLED"
    BLIND_MISERE_AFTER_LOOKING = "BLIND_MISERE_AFTER_LOOKING"
    MISERE_BARRED = "MISERE_BARRED"
    MISERE_NEEDS_SEVEN_BID = "MISERE_NEEDS_SEVEN_BID"
    OPEN_MISERE_NEEDS_EIGHT_BID = "OPEN_MISERE_NEEDS_EIGHT_BID"
    SIX_LEVEL_NOT_ALLOWED = "SIX_LEVEL_NOT_ALLOWED"
    INKLE_TOO_LATE = "INKLE_TOO_LATE"
    SANS_KITTY_DISABLED = "SANS_KITTY_DISABLED"
    SANS_KITTY_NOT_FOR_MISERE = "SANS_KITTY_NOT_FOR_MISERE"
    ALREADY_LOOKED = "ALREADY_LOOKED"
    REDEAL_NOT_ALLOWED = "REDEAL_NOT_ALLOWED"
    # Illegal: partners (five players).
    WRONG_PARTNER_METHOD = "WRONG_PARTNER_METHOD"
    CANNOT_CALL_JOKER = "CANNOT_CALL_JOKER"
    INVALID_PARTNERS = "INVALID_PARTNERS"
    # Illegal: the exchange and the joker's nomination.
    WRONG_DISCARD_COUNT = "WRONG_DISCARD_COUNT"
    DUPLICATE_CARD = "DUPLICATE_CARD"
    CARD_NOT_IN_HAND = "CARD_NOT_IN_HAND"
    NO_JOKER_TO_NOMINATE = "NO_JOKER_TO_NOMINATE"
    # Illegal: the play.
    MUST_FOLLOW_SUIT = "MUST_FOLLOW_SUIT"
    NOMINATION_NOT_ALLOWED = "NOMINATION_NOT_ALLOWED"
    JOKER_LEAD_NEEDS_SUIT = "JOKER_LEAD_NEEDS_SUIT"
    JOKER_LEAD_NOT_ALLOWED = "JOKER_LEAD_NOT_ALLOWED"
    JOKER_LEAD_LAST_TRICK_ONLY = "JOKER_LEAD_LAST_TRICK_ONLY"
    JOKER_SUIT_ALREADY_LED = "JOKER_SUIT_ALREADY_LED"
    JOKER_SUIT_SHOWN_VOID = "JOKER_SUIT_SHOWN_VOID"
    JOKER_MUST_BE_PLAYED = "JOKER_MUST_BE_PLAYED"
    JOKER_ONLY_WHEN_VOID = "JOKER_ONLY_WHEN_VOID"

    def __repr__(self) -> str:
        # A reason is the string it stands for, wherever it is shown (a Rejection's repr, a doctest).
        return repr(self.value)

    @property
    def malformed(self) -> bool:
        """Whether the reason means a token was not understood (answered 400) rather than a rule broken (422)."""
        return REASON_INFO[self][0] == "malformed"

    @property
    def kind(self) -> ReasonKind:
        """``malformed`` (answered 400) or ``illegal`` (answered 422)."""
        return REASON_INFO[self][0]

    @property
    def meaning(self) -> str:
        """One line saying what the reason means."""
        return REASON_INFO[self][1]


#: Each reason's kind and one-line meaning, in the order of :class:`Reason`.
REASON_INFO: dict[Reason, tuple[ReasonKind, str]] = {
    Reason.UNKNOWN_CARD: ("malformed", "The move names a card that is not in this game's pack (or, to nominate, "
                                       "a card that is not a joker)."),
    Reason.UNKNOWN_BID: ("malformed", "The bid is not one of 6S … 10NT, MISERE, OPEN_MISERE, BLIND_MISERE."),
    Reason.UNKNOWN_SUIT: ("malformed", "The suit is not one of S, C, D, H."),
    Reason.NO_SUCH_SEAT: ("malformed", "The move names a seat (or partner seat) that this game does not have."),
    Reason.GAME_OVER: ("illegal", "The game is over: no move is possible."),
    Reason.NOT_YOUR_TURN: ("illegal", "Another seat is to act."),
    Reason.WRONG_PHASE: ("illegal", "This kind of move is not possible in the current phase."),
    Reason.BID_TOO_LOW: ("illegal", "The bid does not outrank the current high bid (or a raise repeats the "
                                    "contractor's own bid)."),
    Reason.MISERE_DISABLED: ("illegal", "Misère bids are not allowed under this game's options."),
    Reason.OPEN_MISERE_DISABLED: ("illegal", "Open misère is not allowed under this game's options."),
    Reason.BLIND_MISERE_DISABLED: ("illegal", "Blind misère is not enabled in this game."),
    Reason.BLIND_MISERE_AFTER_LOOKING: ("illegal", "Blind misère may be bid only before the seat looks at its "
                                                   "hand."),
    Reason.MISERE_BARRED: ("illegal", "A side that proposed a no-ace-no-face redeal may not bid misère this "
                                      "hand."),
    Reason.MISERE_NEEDS_SEVEN_BID: ("illegal", "Misère may be bid only after a bid at the 7 level or higher."),
    Reason.OPEN_MISERE_NEEDS_EIGHT_BID: ("illegal", "Open misère may be bid only after a bid at the 8 level or "
                                                    "higher."),
    Reason.SIX_LEVEL_NOT_ALLOWED: ("illegal", "6-level bids are not allowed (inkle_mode=min_bid_seven)."),
    Reason.INKLE_TOO_LATE: ("illegal", "Only the first two calls of the auction may be 6-level bids "
                                       "(inkle_mode=signal_only)."),
    Reason.SANS_KITTY_DISABLED: ("illegal", "Sans-kitty bids are not enabled in this game."),
    Reason.SANS_KITTY_NOT_FOR_MISERE: ("illegal", "Only suit and no-trump bids may be made sans kitty."),
    Reason.ALREADY_LOOKED: ("illegal", "This seat has already looked at its hand."),
    Reason.REDEAL_NOT_ALLOWED: ("illegal", "A no-ace-no-face redeal may not be proposed by this seat now."),
    Reason.WRONG_PARTNER_METHOD: ("illegal", "Partners are chosen another way in this game "
                                             "(five_player_partner_method)."),
    Reason.CANNOT_CALL_JOKER: ("illegal", "The joker may not be called as the partner's card."),
    Reason.INVALID_PARTNERS: ("illegal", "The chosen partners are the wrong number of seats, repeat a seat or "
                                         "include the contractor."),
    Reason.WRONG_DISCARD_COUNT: ("illegal", "The discard does not name exactly as many cards as the kitty "
                                            "holds."),
    Reason.DUPLICATE_CARD: ("illegal", "The discard names a card twice."),
    Reason.CARD_NOT_IN_HAND: ("illegal", "The seat does not hold that card."),
    Reason.NO_JOKER_TO_NOMINATE: ("illegal", "The seat holds no un-nominated joker of that kind."),
    Reason.MUST_FOLLOW_SUIT: ("illegal", "The seat can follow the led suit and must."),
    Reason.NOMINATION_NOT_ALLOWED: ("illegal", "Only a lead of the un-nominated joker names a suit (and not to "
                                               "the last trick)."),
    Reason.JOKER_LEAD_NEEDS_SUIT: ("illegal", "Leading the un-nominated joker in a no-trump contract needs a "
                                              "suit."),
    Reason.JOKER_LEAD_NOT_ALLOWED: ("illegal", "Every suit the joker could be led as has been led: it may be led "
                                               "only to the last trick."),
    Reason.JOKER_LEAD_LAST_TRICK_ONLY: ("illegal", "The un-nominated joker may be led only to the last trick "
                                                   "(joker_lead_timing=last_trick_only)."),
    Reason.JOKER_SUIT_ALREADY_LED: ("illegal", "The joker may not be led as a suit already led this hand."),
    Reason.JOKER_SUIT_SHOWN_VOID: ("illegal", "The joker may not be led as a suit the leader has shown void in."),
    Reason.JOKER_MUST_BE_PLAYED: ("illegal", "In misère, a seat void in the led suit must play the joker."),
    Reason.JOKER_ONLY_WHEN_VOID: ("illegal", "The un-nominated joker may be played only when void in the led "
                                             "suit."),
}

#: The reasons that mean a token was not understood rather than a rule was broken.
MALFORMED_REASONS: frozenset[Reason] = frozenset(r for r in Reason if r.kind == "malformed")

__all__ = ["MALFORMED_REASONS", "REASON_INFO", "Reason", "ReasonKind"]
