"""Pure rule facts derived from options: sides, the bid ladder, bid values and the hand's strain table."""

from __future__ import annotations

from typing import Final

from engine.cards import SAME_COLOUR, STRAINS, Strain, strain_table
from engine.deal import pack_for
from engine.memo import remember
from engine.options import Options
from engine.seats import is_ghost_game, seat_count

MISERE: Final = "MISERE"
OPEN_MISERE: Final = "OPEN_MISERE"
BLIND_MISERE: Final = "BLIND_MISERE"
MISERE_BIDS: Final = frozenset({MISERE, OPEN_MISERE, BLIND_MISERE})
SUIT_BIDS = tuple(f"{level}{strain}" for level in range(6, 11) for strain in STRAINS)
ALL_BIDS = frozenset(SUIT_BIDS) | MISERE_BIDS
_STRAIN_INDEX: Final = {s: i for i, s in enumerate(STRAINS)}


def _parse_level(bid: str) -> int:
    return 0 if bid in MISERE_BIDS else int(bid[:-2] if bid.endswith("NT") else bid[:-1])


_LEVELS: Final = {b: _parse_level(b) for b in (*SUIT_BIDS, *MISERE_BIDS)}


def bid_level(bid: str) -> int:
    """Tricks promised by a suit/NT bid (0 for the misère bids)."""
    level = _LEVELS.get(bid)
    return _parse_level(bid) if level is None else level


def bid_strain(bid: str) -> str:
    """``S C D H NT`` for suit/NT bids; the bid itself for the misère bids (each is its own strain)."""
    if bid in MISERE_BIDS:
        return bid
    return "NT" if bid.endswith("NT") else bid[-1]


def is_nt_family(bid: str | None) -> bool:
    """No trump suit: NT and every misère (``None``, the all-pass no-trump play-out, is NT too)."""
    return bid is None or bid in MISERE_BIDS or bid.endswith("NT")


def trump_of(bid: str | None) -> str | None:
    return None if is_nt_family(bid) else bid[-1]  # type: ignore[index]


def sides(opts: Options) -> tuple[tuple[int, ...], ...]:
    """Scoring sides: fixed teams in the 4- and 6-player games (and each human with its ghost in the ghost-partners
    game, seated as the four-player game), every seat for itself otherwise."""
    found = _SIDES.get(opts)
    if found is None:
        found = remember(_SIDES, opts, _sides(opts), 64)
    return found


#: The memos of :func:`sides`, :func:`side_of`, :func:`ladder` and :func:`top_rung` by options (plain dicts: see
#: :mod:`engine.memo`; the scoring and the bots' playouts ask them at every hand).
_SIDES: Final[dict[Options, tuple[tuple[int, ...], ...]]] = {}
_SIDE_OF: Final[dict[Options, tuple[int, ...]]] = {}
_LADDER: Final[dict[Options, dict[str, float]]] = {}
_TOP_RUNG: Final[dict[Options, float]] = {}


def _sides(opts: Options) -> tuple[tuple[int, ...], ...]:
    n = seat_count(opts)
    if n == 4:
        return ((0, 2), (1, 3))
    if n == 6:
        if opts.six_player_teams == "two_teams_of_three":
            return ((0, 2, 4), (1, 3, 5))
        return ((0, 3), (1, 4), (2, 5))
    return tuple((s,) for s in range(n))


def side_of(opts: Options) -> tuple[int, ...]:
    """Each seat's scoring side: its index in :func:`sides`."""
    found = _SIDE_OF.get(opts)
    if found is None:
        found = remember(_SIDE_OF, opts, _side_of(opts), 64)
    return found


def _side_of(opts: Options) -> tuple[int, ...]:
    out = [0] * seat_count(opts)
    for i, members in enumerate(sides(opts)):
        for s in members:
            out[s] = i
    return tuple(out)


def has_teams(opts: Options) -> bool:
    """Fixed partnerships: four and six players, and the ghost-partners game (each human with its ghost)."""
    return opts.players in (4, 6) or is_ghost_game(opts)


def plays_alone(opts: Options, bid: str) -> bool:
    """Whether the contractor of ``bid`` plays alone from the auction on: five players, a misère bid or the
    ``alone_only`` partner method (otherwise a five-player contractor calls or chooses partners, or goes alone)."""
    return opts.players == 5 and (bid in MISERE_BIDS or opts.five_player_partner_method == "alone_only")


def misere_allowed(opts: Options) -> bool:
    """Whether misère bids may be bid at all under these options (misère_enabled; six players only with
    six_player_misere). Which misère bids, and when, is the ladder's and the auction's."""
    return opts.misere_enabled and (opts.players != 6 or opts.six_player_misere)


def joker_low(opts: Options, bid: str | None) -> bool:
    """Whether the free joker is the lowest card instead of the highest: a misère contract with
    joker_low_in_misere (it then cannot be nominated before play, and its lead always names a suit)."""
    return bid in MISERE_BIDS and opts.joker_low_in_misere


def ladder(opts: Options) -> dict[str, float]:
    """Every bid this rule set allows, mapped to its rung (higher outranks; equal rungs do not overcall). The same
    dict for equal options: read it, never change it."""
    found = _LADDER.get(opts)
    if found is None:
        found = remember(_LADDER, opts, _ladder(opts), 64)
    return found


def _ladder(opts: Options) -> dict[str, float]:
    rungs: dict[str, float] = {}
    for bid in SUIT_BIDS:
        level = bid_level(bid)
        if opts.inkle_mode == "min_bid_seven" and level == 6:
            continue
        rungs[bid] = (level - 6) * 5 + _STRAIN_INDEX[bid_strain(bid)] + 1
    if misere_allowed(opts):
        if opts.misere_values == "beagle":
            rungs[MISERE] = 5.5  # between 6NT and 7S
            open_rung = 10.5  # between 7NT and 8S
        else:
            rungs[MISERE] = 11.5 if opts.misere_rank == "between_8S_8C" else 10.5
            open_rung = 26.0 if opts.open_misere_rank == "highest" else 23.5  # 10D is 23, 10H is 24
        if opts.open_misere_enabled:
            rungs[OPEN_MISERE] = open_rung
        if opts.blind_misere_enabled:
            rungs[BLIND_MISERE] = open_rung
    return rungs


def top_rung(opts: Options) -> float:
    """The highest rung of the ladder: a bid there ends the auction at once."""
    found = _TOP_RUNG.get(opts)
    if found is None:
        found = remember(_TOP_RUNG, opts, max(ladder(opts).values()), 64)
    return found


def bid_value(opts: Options, bid: str) -> int:
    """Points for a bid: the Avondale formula 40 + 20·s + 100·(n−6), or a misère value."""
    if bid in MISERE_BIDS:
        if opts.misere_values == "beagle":
            return 130 if bid == MISERE else 230
        return 250 if bid == MISERE else 500
    value = 40 + 20 * _STRAIN_INDEX[bid_strain(bid)] + 100 * (bid_level(bid) - 6)
    return value - 20 if opts.score_table == "perfect" else value


def score_table_rows(opts: Options) -> list[dict[str, object]]:
    """The score table in ladder order (what the catalogue serves)."""
    rungs = ladder(opts)
    return [{"bid": b, "rung": rungs[b], "value": bid_value(opts, b), "level": bid_level(b) or None,
             "strain": bid_strain(b)} for b in sorted(rungs, key=lambda b: (rungs[b], b))]


def hand_strain(opts: Options, bid: str | None, nominations: tuple[tuple[str, str], ...]) -> Strain:
    """The one strain table (effective suits and powers) for the hand being played."""
    low = joker_low(opts, bid)
    trump = trump_of(bid)
    low_trump = None
    if trump is not None and opts.fours_removed == "4S_4D" and (
            (opts.players == 4 and opts.deck_4p == "43") or is_ghost_game(opts)):
        low_trump = "4" + SAME_COLOUR[trump]  # RULES.md 3.2: the other 4 of the trump colour is the lowest trump
    return strain_table(pack_for(opts), trump, nominations or None, low, low_trump)
