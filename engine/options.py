"""Rule options (RULES.md section 3), presets, and the catalogue a front end builds its rules screen from.

Every option has exactly the name RULES.md gives it; its default is the standard Australian game. An option that
is not the default changes exactly what its catalogue entry says and nothing else.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from engine.memo import remember

RULES_VERSION = "2026.11.1"


def _about(description: str) -> msgspec.Meta:
    """An option's one-line meaning, kept on its field: the catalogue (so docs/RULES.md section 3) and the
    contract's option schemas all read it from there."""
    return msgspec.Meta(description=description)


class Options(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True, omit_defaults=True,
              cache_hash=True):
    """A complete, resolved rule set. Field names are RULES.md section 3's option names.

    Every option has exactly one JSON type (boolean, integer, string, or a string or integer enumeration), so
    that every client generator maps it to one type: an option of RULES.md with values of two types is a
    string enumeration here (``pass_is_final``: ``always`` / ``never`` / ``reopen_on_suit_change`` for RULES.md's
    ``true`` / ``false`` / ``reopen_on_suit_change``; ``defender_trick_cap``: ``none`` / ``490`` / ``480``).
    """

    players: Annotated[Literal[2, 3, 4, 5, 6], _about(
        "Number of players, 2 to 6 (RULES.md section 2).")] = 4
    # 3.1 auction
    bidding_style: Annotated[Literal["australian", "american_single_round"], _about(
        "australian: repeated rounds until all but the high bidder have passed. american_single_round: each player "
        "makes exactly one call, dealer's left first; the highest bid wins.")] = "australian"
    pass_is_final: Annotated[Literal["always", "never", "reopen_on_suit_change"], _about(
        "always (RULES.md `true`): a player who passed may not bid again. never (RULES.md `false`): a passed player "
        "may bid at any later turn; the auction ends when all the others pass in a row after a bid. "
        "reopen_on_suit_change: passes are final except that a player bidding a strain different from their own "
        "previous bid reopens the auction to everyone.")] = "always"
    final_bidder_may_raise: Annotated[bool, _about(
        "When all others have passed, the high bidder gets one more call: pass (the contract stands) or any higher "
        "bid.")] = False
    raise_strain_change_reopens: Annotated[bool, _about(
        "With final_bidder_may_raise: a raise that changes strain reopens the auction to every player; a raise in the "
        "same strain becomes the contract at once. false: every raise is final.")] = True
    misere_enabled: Annotated[bool, _about(
        "false: misère, open misère and blind misère may never be bid.")] = True
    misere_requires_seven: Annotated[bool, _about(
        "true: misère may be bid only after some bid of level 7 or more has been made.")] = True
    misere_rank: Annotated[Literal["above_7NT_below_8S", "between_8S_8C"], _about(
        "above_7NT_below_8S: misère sits between 7NT and 8S. between_8S_8C: between 8S and 8C.")] = "above_7NT_below_8S"
    open_misere_enabled: Annotated[bool, _about(
        "false: open misère may not be bid.")] = True
    open_misere_rank: Annotated[Literal["above_10D_below_10H", "highest"], _about(
        "above_10D_below_10H: open misère sits between 10D and 10H. highest: above 10NT.")] = "above_10D_below_10H"
    open_misere_requires_eight: Annotated[bool, _about(
        "true: open misère may be bid only after some bid of level 8 or more.")] = False
    blind_misere_enabled: Annotated[bool, _about(
        "true: a seat that has not looked at its hand may bid blind misère (500), on the open-misère rung (neither "
        "overcalls the other). Seats then start with their hand unseen and look with a look_at_hand move; any bid but "
        "blind misère counts as looking.")] = False
    sans_kitty_enabled: Annotated[bool, _about(
        "true: a suit or NT bid may carry sans_kitty; same value and rung as the plain bid; the contractor does not "
        "take the kitty.")] = False
    inkle_mode: Annotated[Literal["off", "min_bid_seven", "signal_only"], _about(
        "off. min_bid_seven: 6-level bids are illegal. signal_only: only the first two calls of the auction may be "
        "6-level bids; an auction won at the 6 level is thrown in and the same dealer redeals.")] = "off"
    all_pass: Annotated[Literal["redeal_next_dealer", "redeal_same_dealer", "play_no_trumps"], _about(
        "What happens when everyone passes (games of 2, 4, 5 and 6 players): redeal_next_dealer, redeal_same_dealer, "
        "or play_no_trumps (no kitty, dealer's left leads, every side +10 per trick, no "
        "contract).")] = "redeal_next_dealer"
    no_ace_no_face: Annotated[bool, _about(
        "true (partnership games): before its first call, a seat holding no A, K, Q, J or joker may propose a redeal; "
        "if its partner accepts, the same dealer redeals; if not, play goes on and the proposing side may not bid "
        "misère this hand. No effect in games without partners.")] = False
    # 3.2 deck and deal
    deck_4p: Annotated[Literal["43", "45", "46"], _about(
        "Four-player pack: 43 (kitty 3), 45 (adds 4S and 4C, kitty 5), 46 (45 plus the black joker JKB, which outranks "
        "JK; kitty 6).")] = "43"
    fours_removed: Annotated[Literal["black", "4S_4D"], _about(
        "43-card pack: black removes 4S and 4C; 4S_4D removes 4S and 4D instead (the remaining 4 of the trump colour "
        "that is not of the trump suit then also counts as the lowest trump).")] = "black"
    first_dealer: Annotated[Literal["random", "cut_low"], _about(
        "random: drawn from the seed. cut_low: each player cuts a card from the first shuffled pack; lowest deals (ace "
        "low, joker lowest); ties cut again. An explicit first_dealer at creation wins.")] = "random"
    deal_pattern: Annotated[str, msgspec.Meta(pattern=r"^[0-9]{1,2}(-[0-9]{1,2}){1,31}$", description=(
        "Packets dealt to each player, alternating with packets to the kitty, e.g. 3-1-4-1-3-1. With the default "
        "pattern the kitty packets scale with the kitty size (4: 1-2-1, 5: 2-2-1, 6: 2-2-2)."))] = "3-1-4-1-3-1"
    show_kitty: Annotated[bool, _about(
        "true: the kitty is shown to every seat before the contractor takes it.")] = False
    # 3.3 play
    first_lead: Annotated[Literal["contractor", "eldest"], _about(
        "contractor, or eldest (the dealer's left; the next active seat if eldest sits out).")] = "contractor"
    joker_prenomination: Annotated[bool, _about(
        "false: the contractor may not nominate the joker's suit before play.")] = True
    joker_lead_restriction: Annotated[Literal["unled_suit", "not_shown_void", "any_suit"], _about(
        "Suits an un-nominated joker may be led as: unled_suit (not yet led this hand), not_shown_void (any suit the "
        "leader has not shown void in), any_suit.")] = "unled_suit"
    joker_lead_timing: Annotated[Literal["normal", "last_trick_only"], _about(
        "last_trick_only: in NT-family contracts the un-nominated joker may be led only to the last trick.")] = "normal"
    joker_forced_in_misere: Annotated[bool, _about(
        "true: in misère contracts a holder of the un-nominated joker who is void in the led suit must play "
        "it.")] = True
    joker_follow_first_round: Annotated[bool, _about(
        "true: in NT-family contracts the un-nominated joker may be played to the first lead of a suit even by a "
        "holder who can follow; it wins.")] = False
    joker_low_in_misere: Annotated[bool, _about(
        "true: in misère contracts the joker is the lowest card: played only when void, led as the lowest card of a "
        "nominated suit, never forced, and not pre-nominated.")] = False
    open_misere_expose: Annotated[Literal["after_first_trick", "before_opening_lead"], _about(
        "after_first_trick, or before_opening_lead.")] = "after_first_trick"
    # 3.4 scoring
    score_table: Annotated[Literal["avondale", "perfect"], _about(
        "avondale: 6S=40 … 10NT=520. perfect: every suit/NT value 20 less (misère unchanged).")] = "avondale"
    slam_rule: Annotated[Literal["min_250", "none"], _about(
        "min_250: taking all tricks on a bid worth less than 250 scores 250. none: the bid value only.")] = "min_250"
    defender_trick_points: Annotated[Literal["always", "on_failure_only", "never"], _about(
        "always, on_failure_only, or never: when defenders score 10 per trick.")] = "always"
    defender_trick_cap: Annotated[Literal["none", "490", "480"], _about(
        "none, 490 or 480: defending trick points cannot raise a side's total above the cap.")] = "none"
    defender_points_cutoff: Annotated[Literal["none", "400"], _about(
        "none or 400: a side already over 400 before the hand scores no defending points.")] = "none"
    misere_values: Annotated[Literal["250/500", "beagle"], _about(
        "250/500: misère 250, open/blind misère 500. beagle: misère 130 (between 6NT and 7S), open/blind misère 230 "
        "(between 7NT and 8S).")] = "250/500"
    # 3.5 game end
    target: Annotated[int, msgspec.Meta(ge=10, le=100_000, multiple_of=10, description=(
        "Score that wins (inclusive)."))] = 500
    lose_at: Annotated[int, msgspec.Meta(ge=-100_000, le=-10, multiple_of=10, description=(
        "Score at or below which a side goes out backwards (inclusive)."))] = -500
    win_requires_contract: Annotated[bool, _about(
        "true: a side wins only by making its own contract at or above target. false: the contracting side wins at or "
        "above target; otherwise the highest other side at or above target wins.")] = True
    out_backwards_only_if_opponent_nonnegative: Annotated[bool, _about(
        "true: a side at or below lose_at loses only if some other side's score is at least 0.")] = False
    # 3.6 by number of players
    two_player_method: Annotated[Literal["uspcc_dead_hand", "uspcc_24_card", "ghost_partners"], _about(
        "uspcc_dead_hand: 33 cards, a dead 10-card hand nobody sees. uspcc_24_card: A-9 in four suits, no joker, kitty "
        "4. ghost_partners: the Australian 43-card game; each human (seats 0 and 1) has a ghost partner opposite "
        "(seats 2 and 3) dealt five cards face down under five face up; only the humans bid; a human plays its "
        "ghost's face-up cards, and a card played uncovers the one beneath it.")] = "uspcc_dead_hand"
    three_player_all_pass: Annotated[Literal["redeal_next_dealer", "play_no_trumps"], _about(
        "Three players, everyone passes: redeal_next_dealer, or play_no_trumps (each player +10 per trick, no widow, "
        "eldest leads). Replaces all_pass for three players.")] = "redeal_next_dealer"
    five_player_deck: Annotated[Literal["52_plus_joker", "stripped_63"], _about(
        "52_plus_joker, or stripped_63 (the six-player pack without 2s, 3s, 4S and 4C).")] = "52_plus_joker"
    five_player_partner_method: Annotated[Literal["called_card", "choose_player", "alone_only"], _about(
        "called_card (the contractor calls a card, not a joker, or goes alone), choose_player (names one partner, or "
        "two for bids of 8 or more), alone_only.")] = "called_card"
    five_player_call_timing: Annotated[Literal["before_kitty", "after_kitty"], _about(
        "before_kitty or after_kitty: when the partner's card is called.")] = "before_kitty"
    five_player_partner_share: Annotated[Literal["full", "half"], _about(
        "full: contractor and partner each score the value. half: each scores half (rounded up to a "
        "multiple of 10).")] = "full"
    six_player_teams: Annotated[Literal["two_teams_of_three", "three_teams_of_two"], _about(
        "two_teams_of_three (alternate seats) or three_teams_of_two (seats i and i+3).")] = "two_teams_of_three"
    six_player_misere: Annotated[bool, _about(
        "true: misère bids allowed with six players; all of the contractor's partners sit out.")] = False
    six_player_kitty: Annotated[Literal[3, 5, 6], _about(
        "3 (63 cards), 5 (adds 13S and 13C), 6 (also the black joker JKB).")] = 3


#: The option sets :func:`interned` has seen, each mapped to itself (bounded: cleared when full).
_INTERNED: dict[Options, Options] = {}
_INTERNED_LIMIT = 256


def interned(options: Options) -> Options:
    """The one object this process keeps for an option set equal to ``options`` (the first it was given).

    A state decoded from a snapshot carries an option set of its own, equal to the one the game was created
    with but not the same object; every memo keyed by the option set (the pack, the sides, the ladder, the
    integrity check's facts) then compares all of its fields on each lookup. Replacing it by the interned one
    makes those lookups match by identity. Options are immutable, so sharing one object changes nothing else.

    >>> a, b = Options(target=250), Options(target=250)
    >>> a is b, interned(a) is interned(b), interned(b) == b
    (False, True, True)
    """
    found = _INTERNED.get(options)
    if found is None:
        found = remember(_INTERNED, options, options, _INTERNED_LIMIT)
    return found


class OptionsError(ValueError):
    """A rule set that cannot be played; the message names the option and what is wrong."""


#: Named presets: option overrides applied on top of the defaults (RULES.md 3.7 for ``american``).
PRESETS: dict[str, dict[str, Any]] = {
    "australian": {},
    "american": {
        "bidding_style": "american_single_round",
        "deck_4p": "45",
        "misere_rank": "between_8S_8C",
        "win_requires_contract": False,
    },
    "beagle": {
        "pass_is_final": "never",
        "misere_values": "beagle",
        "misere_requires_seven": False,
        "joker_lead_restriction": "any_suit",
        "joker_forced_in_misere": False,
    },
}

PRESET_DESCRIPTIONS: dict[str, str] = {
    "australian": "The standard Australian game of RULES.md section 1: every option at its default.",
    "american": "American/USPCC play (RULES.md 3.7): single-round bidding, the 45-card pack with a 5-card "
    "widow, nullo (misère) between 8S and 8C, and a win by reaching the target by any means. Double and bar "
    "nullo are not specified well enough by any source and are not offered.",
    "beagle": "Thomas Beagle's house rules: passes are not final, misère 130 and open misère 230 on their own "
    "rungs with no 7-bid prerequisite, the joker may be led nominating any suit and is never forced.",
}



def option_catalogue() -> list[dict[str, Any]]:
    """Every option with its kind, default, allowed values (or bounds) and meaning; each option has one JSON type.

    ``type`` is ``boolean`` (``allowed``: true, false); ``choice`` (a string enumeration, ``allowed``);
    ``integer_choice`` (an integer enumeration, ``allowed``); ``integer`` (``minimum``, ``maximum``,
    ``multiple_of``); or ``string`` (``pattern``).
    """
    schema = msgspec.json.schema(Options)
    props = schema["$defs"]["Options"]["properties"]
    defaults = msgspec.structs.asdict(Options())
    out: list[dict[str, Any]] = []
    for name in Options.__struct_fields__:
        prop = props[name]
        entry: dict[str, Any] = {"name": name}
        if "enum" in prop:
            kind = "integer_choice" if all(isinstance(v, int) for v in prop["enum"]) else "choice"
            entry.update(type=kind, default=defaults[name], allowed=list(prop["enum"]))
        elif prop.get("type") == "boolean":
            entry.update(type="boolean", default=defaults[name], allowed=[True, False])
        elif prop.get("type") == "integer":
            entry.update(type="integer", default=defaults[name], minimum=prop["minimum"], maximum=prop["maximum"],
                         multiple_of=prop["multipleOf"])
        elif prop.get("type") == "string":
            entry.update(type="string", default=defaults[name], pattern=prop["pattern"])
        else:  # pragma: no cover - guards a new option of a second JSON type
            raise TypeError(f"option {name} must have one JSON type, has {prop}")
        entry["description"] = prop["description"]
        out.append(entry)
    return out
