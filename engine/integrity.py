"""Integrity of a state that came from outside (a snapshot): *what* is wrong, not a crash.

Like python-chess's ``Board.status()``, :func:`integrity_problems` describes a broken state. It never raises,
whatever it is given (a state decoded from an insider's snapshot can hold any well-typed value), and a state it
accepts is one the game can reach:

- every field is in range: the rules version and options, the seed, ``hand_number`` (0 to
  :data:`MAX_HAND_NUMBER`), the dealer and the seat to act, scores (multiples of 10 within ±:data:`MAX_SCORE`),
  the phase, and the sizes of every tuple for the player count;
- every card of the pack is accounted for exactly once, and each ``deck_orders`` entry is a permutation of it;
- the scores agree with the last scored hand (all zero before one), and a finished game's result is the one its
  last hand gives;
- the current hand is *replayed*: from the deal it implies (the cards now held plus those played, the kitty
  being the discards once exchanged) the recorded auction calls (with the no-ace-no-face proposal and the looks
  at hands they need), the partner call, the discard, the nominations and every card of every trick are made
  again through the engine's own rules, and the result must be the given state field for field. So duplicated
  or out-of-turn calls, a contract the auction did not produce, a nomination by the wrong seat or of no suit, a
  revoke, a trick led by a seat not playing or won by the wrong card, a wrong phase or turn, each becomes a
  named problem.

:func:`structure_problems` runs every check above but the replay: ranges and kinds, every card once, the
history, the fields of the current hand naming seats, bids and cards of the game, the hands making a deal
with the cards played, and in the play the tricks' order and the turn. It costs a small fraction of the
replay (tens of microseconds against hundreds, ``tests/bench/bench_integrity.py``) and is what the service runs
on a snapshot it sealed itself; the replay is for states from elsewhere (docs/API.md, "Snapshots").

The past hands are summarised by ``scores``, ``last_hand``, ``hand_number`` and ``dealer``, and are checked for
range and consistency only: the last hand's deltas are not re-scored, and a game in progress is not re-judged
(positions with any running totals are accepted, so that a game can be set up from given scores).
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache
from itertools import chain
from operator import attrgetter

from engine.cards import SUITS, sort_hand
from engine.deal import HAND_SIZE, has_dead_hand, kitty_size, pack_for, pack_index
from engine.ghosts import face_down
from engine.memo import remember
from engine.model import (
    AnswerRedeal,
    Bid,
    Call,
    CallCard,
    ChoosePartners,
    Discard,
    GameResult,
    GameState,
    GoAlone,
    LookAtHand,
    Move,
    NominateJoker,
    Pass,
    Play,
    ProposeRedeal,
)
from engine.options import RULES_VERSION, Options, OptionsError
from engine.rules import ALL_BIDS, ladder, side_of, sides
from engine.scoring import judge_game
from engine.seats import GHOST_PILES, ghost_seats, seat_count
from engine.setup import validate_options
from engine.tricks import seat_after

#: The highest ``hand_number`` accepted (hands are counted from 0, throw-ins included).
MAX_HAND_NUMBER = 1_000_000
#: Scores beyond ± this are refused (a side needs hundreds of thousands of hands to get there).
MAX_SCORE = 10_000_000
_PHASES = frozenset({"auction", "redeal_answer", "call", "exchange", "nominate", "play", "game_over"})
_SETUP = ("call", "exchange", "nominate")
_SUIT_CHARS = "".join(SUITS)
_SEED_LIMIT = 2**64
#: ``{*map(type, values)} <= _INT``: every value an ``int`` (not a ``bool``), in one pass in C.
_INT = frozenset({int})
_STR = frozenset({str})
_SEAT_OF = attrgetter("seat")
_BID_OF = attrgetter("bid")
_BID_AND_SANS = attrgetter("bid", "sans_kitty")
_CARDS_OF = attrgetter("cards")


@lru_cache(maxsize=64)
def _sorted_pack(pack: tuple[str, ...]) -> list[str]:
    return sorted(pack)


class _Facts:
    """What the checks need of a (valid) option set, computed once per option set."""

    __slots__ = ("dead_hand", "ghosts", "kitty_size", "pack", "pack_set", "player_seats", "players", "seats",
                 "sides", "sorted_pack", "table_seats")

    def __init__(self, opts: Options) -> None:
        self.pack = pack_for(opts)
        self.pack_set = frozenset(self.pack)
        self.sorted_pack = _sorted_pack(self.pack)
        self.kitty_size = kitty_size(opts)
        self.sides = len(sides(opts))
        self.players = opts.players
        self.seats = seat_count(opts)
        self.ghosts = ghost_seats(opts)
        self.dead_hand = has_dead_hand(opts)
        #: The seats that bid and deal, and the seats that hold hands (the ghosts too), as sets.
        self.player_seats = frozenset(range(self.players))
        self.table_seats = frozenset(range(self.seats))


#: Facts of option sets that passed :func:`engine.setup.validate_options` (only those are entered).
_FACTS: dict[Options, _Facts] = {}


def _facts(opts: Options) -> _Facts:
    found = _FACTS.get(opts)
    if found is None:
        found = remember(_FACTS, opts, _Facts(opts), 256)
    return found


def _seats_in(values: tuple[object, ...], seats: frozenset[int]) -> bool:
    """Every value an ``int`` (a ``bool`` is not a seat) naming one of ``seats``, checked in C."""
    return {*map(type, values)} <= _INT and seats.issuperset(values)


def structure_problems(state: GameState) -> list[str]:
    """The problems found by every check of :func:`integrity_problems` but the replay of the current hand: a
    fraction of its cost, for states that come back under the service's own seal (see docs/API.md, snapshots).

    Checked: every field in range and of its kind; every card exactly once (and each deck order a permutation
    of the pack); the scores, the last scored hand and the result agree; the auction's calls, the high bid and
    the contract name seats, bids and cards of this game; no contract during the auction and one in the
    partner call, the exchange and the nomination; the hands, with the cards played this hand, make a deal (ten
    cards each and a full kitty); in the play, the tricks are led and won by seats playing, each led by the
    winner of the one before, the trick counts are the tricks won and the seat to act is the next to play. Not
    checked: that the recorded moves were legal and lead to this state (a revoke, a bid out of turn, a contract
    the auction did not produce, a trick won by the wrong card): that is the replay's job. Never raises.

    >>> from engine.game import new_game
    >>> from engine.options import Options
    >>> st, _ = new_game(Options(), seed=3)
    >>> structure_problems(st)
    []
    >>> import msgspec
    >>> structure_problems(msgspec.structs.replace(st, kitty=st.kitty[1:]))
    ["cards not accounted for: ['KD']"]
    >>> structure_problems(msgspec.structs.replace(st, phase="play"))
    ['no valid seats playing the hand']
    """
    try:
        return _structure_problems(state)
    except Exception as exc:  # noqa: BLE001 - a value of a kind no check above foresaw: refuse, never crash
        return [f"malformed state ({type(exc).__name__})"]


def integrity_problems(state: GameState) -> list[str]:
    """Every problem found in ``state``; an empty list means the state is one the game can reach.

    >>> from engine.game import new_game
    >>> from engine.options import Options
    >>> st, _ = new_game(Options(), seed=3)
    >>> integrity_problems(st)
    []
    >>> import msgspec
    >>> integrity_problems(msgspec.structs.replace(st, hand_number=-2**63))
    ['hand_number -9223372036854775808 is not 0 to 1000000']
    """
    try:
        return _structure_problems(state) or _replay_problems(state)
    except Exception as exc:  # noqa: BLE001 - a value of a kind no check above foresaw: refuse, never crash
        return [f"malformed state ({type(exc).__name__})"]


def _is_int(x: object) -> bool:
    return type(x) is int


def _structure_problems(state: GameState) -> list[str]:
    if not isinstance(state, GameState):
        return ["not a game state"]
    opts = state.options
    if not isinstance(opts, Options):
        return ["options are not an option set"]
    problems: list[str] = []
    if state.rules_version != RULES_VERSION:
        problems.append(f"rules_version {state.rules_version!r} is not {RULES_VERSION!r}")
    try:
        # An option set seen before (by identity first: engine.options.interned) passed validation then.
        facts = _FACTS.get(opts)
    except TypeError:  # a field of an unhashable kind: validation says what is wrong with it
        facts = None
    if facts is None:
        try:
            validate_options(opts)
        except OptionsError as exc:
            return [f"options: {exc}"]
        if opts.players not in (2, 3, 4, 5, 6):
            return [f"players {opts.players!r} is not 2 to 6"]
    n = opts.players  # the players, who bid and deal
    seats = seat_count(opts) if facts is None else facts.seats  # the seats holding hands (ghosts too)
    # Shapes and ranges of every field, before anything reads them.
    shape = _shape_problems(state, seats)
    if shape:
        return problems + shape
    if facts is None:
        facts = _facts(opts)
    problems += _field_problems(state, facts, n, seats)
    if facts.ghosts or state.ghost_piles:
        problems += _pile_problems(state)
    if problems:
        return problems
    for name in ("deck_orders", "dealt_decks"):
        for i, d in enumerate(getattr(state, name)):
            if sorted(d) != facts.sorted_pack:
                problems.append(f"{name}[{i}] is not a permutation of the pack")
    # At most one dealt deck per hand so far (a snapshot carries none: the sealer leaves them out).
    if len(state.dealt_decks) > state.hand_number + 1:
        problems.append(f"dealt_decks has {len(state.dealt_decks)} entries at hand {state.hand_number}")
    problems += _card_problems(state, facts)
    problems += _history_problems(state, facts)
    if problems:
        return problems
    return _hand_problems(state, facts)


def _field_problems(state: GameState, facts: _Facts, n: int, seats: int) -> list[str]:
    """The ranges of the game's single fields and the lengths of its per-seat and per-side ones."""
    problems: list[str] = []
    if not 0 <= state.seed < _SEED_LIMIT:
        problems.append("seed out of range")
    if not 0 <= state.hand_number <= MAX_HAND_NUMBER:
        problems.append(f"hand_number {state.hand_number} is not 0 to {MAX_HAND_NUMBER}")
    if not 0 <= state.dealer < n:
        problems.append(f"dealer {state.dealer} is not a seat")
    if state.phase not in _PHASES:
        problems.append(f"phase {state.phase!r} is not a phase")
    to_act = state.to_act
    if to_act is not None and not 0 <= to_act < seats:
        problems.append(f"to_act {to_act} is not a seat")
    if (to_act is None) != (state.phase == "game_over"):
        problems.append("exactly a finished game has no seat to act")
    scores = state.scores
    if len(scores) != facts.sides:
        problems.append(f"{len(scores)} scores for {facts.sides} sides")
    if scores and (any(map((10).__rmod__, scores)) or max(map(abs, scores)) > MAX_SCORE):
        problems.append(f"a score is not a multiple of 10 within ±{MAX_SCORE}")
    if len(state.viewed) != seats:
        problems.append(f"viewed has {len(state.viewed)} entries for {seats} seats")
    if len(state.passed) != n:
        problems.append(f"passed has {len(state.passed)} entries for {n} seats")
    return problems


# long: one pass over the current hand's fields, each check a line or two
def _hand_problems(state: GameState, facts: _Facts) -> list[str]:
    """The current hand's fields: seats, bids and cards of this game, the contract where the phase needs one,
    the hands making a deal with the cards played, and in the play the order of the tricks and the turn."""
    n = facts.players  # the players call; every seat plays (a ghost, in ghost partners: facts.seats)
    phase = state.phase
    out: list[str] = []
    calls = state.calls
    if calls != () and not _calls_plainly_valid(calls, facts):
        for i, call in enumerate(calls):
            if not (_is_int(call.seat) and 0 <= call.seat < n):
                out.append(f"auction call {i + 1} is made by {call.seat!r}, not a seat")
            elif call.bid is None and call.sans_kitty:
                out.append(f"auction call {i + 1} is a pass made sans kitty")
            elif call.bid is not None and call.bid not in ALL_BIDS:
                out.append(f"auction call {i + 1} bids {call.bid!r}, not a bid")
    proposer = state.redeal_proposer
    if proposer is not None and not (_is_int(proposer) and 0 <= proposer < n):
        out.append(f"redeal_proposer {proposer!r} is not a seat")
    if state.misere_barred != () and not _seats_in(state.misere_barred, facts.player_seats):
        out.append("misere_barred names seats that do not exist")
    active = state.active
    if len(set(active)) != len(active) or not _seats_in(active, facts.table_seats):
        out.append("active names seats that do not exist, or one twice")
    if state.high is not None and (state.high.bid not in ALL_BIDS or not _is_int(state.high.seat)
                                   or not 0 <= state.high.seat < n):
        out.append("the high bid is not a bid by a seat")
    c = state.contract
    if phase in ("auction", "redeal_answer"):
        if c is not None:
            out.append("a contract during the auction")
        if state.tricks or state.trick is not None:
            out.append("tricks during the auction")
    elif phase in _SETUP and c is None:
        out.append(f"the {phase} phase without a contract")
    if c is not None:
        if c.bid not in ALL_BIDS or not _is_int(c.contractor) or not 0 <= c.contractor < n:
            out.append("the contract is not a bid by a seat")
        elif not _seats_in((*c.sitting_out, *c.chosen_partners), facts.table_seats):
            out.append("the contract names seats that do not exist")
        elif c.called_card is not None and c.called_card not in facts.pack_set:
            out.append(f"the called card {c.called_card!r} is not in the pack")
    for card, suit in state.nominations:
        if card not in facts.pack_set or (suit is not None and suit not in SUITS):
            out.append(f"the nomination of {card!r} as {suit!r} is not of a card of the pack to a suit")
    if out:
        return out
    kitty = state.kitty if state.kitty else state.discards
    if len(kitty) != facts.kitty_size:
        return [f"the kitty (or the discards) holds {len(kitty)} cards, not {facts.kitty_size}"]
    if phase == "play":
        return _play_problems(state, facts)
    if phase in _SETUP and (state.tricks or state.trick is not None):
        return [f"tricks in the {phase} phase"]
    played = _played_by(state)
    if isinstance(played, str):
        return [played]
    taken = c.contractor if c is not None and phase == "exchange" else -1
    if taken >= 0 and not set(kitty) <= set(state.hands[taken]):
        return ["the kitty's cards are not in the contractor's hand during the exchange"]
    if any(len(h) + len(face_down(state, s)) + len(played[s]) - (len(kitty) if s == taken else 0) != HAND_SIZE
           for s, h in enumerate(state.hands)):
        return [_NO_DEAL]
    return []


def _calls_plainly_valid(calls: tuple[Call, ...], facts: _Facts) -> bool:
    """Whether every auction call is certainly by a seat of the game, a bid of the game or a pass not sans kitty
    (so the call-by-call check, which names the first wrong one, has nothing to find), checked in C. ``False``
    is no verdict: the call-by-call check then decides."""
    try:
        if not _seats_in((*map(_SEAT_OF, calls),), facts.player_seats):
            return False
        bids = {*map(_BID_OF, calls)}
        bids.discard(None)
        if not bids <= ALL_BIDS:
            return False
        return all(sans is False for bid, sans in {*map(_BID_AND_SANS, calls)} if bid is None)
    except TypeError:  # an unhashable seat or bid
        return False


_NO_DEAL = "the hands and the kitty do not make a deal (10 cards each and a full kitty)"


def _play_problems(state: GameState, facts: _Facts) -> list[str]:
    """In the play: every trick complete but the current one, each led by the winner of the one before, the
    trick counts those of the winners, the seat to act the next to play, and each seat holding ten cards less
    those it played."""
    active = state.active
    n = facts.seats
    if not active or len(set(active)) != len(active) or not _seats_in(active, facts.table_seats):
        return ["no valid seats playing the hand"]
    size = len(active)
    tricks = state.tricks
    if len(tricks) >= HAND_SIZE:
        return [f"{len(tricks)} tricks completed in a hand still being played"]
    if state.to_act not in active:
        return [f"to_act {state.to_act} is not a seat playing this hand"]
    trick = state.trick
    counts = [0] * n
    winner: int | None = None
    for i, t in enumerate(tricks if trick is None else (*tricks, trick)):
        if t.leader not in active:
            return [f"trick {i + 1} is led by seat {t.leader!r}, not a seat playing this hand"]
        if t.nominate is not None and t.nominate not in SUITS:
            return [f"trick {i + 1} nominates {t.nominate!r}, not a suit"]
        if i and t.leader != winner:
            return [f"trick {i + 1} is not led by the winner of trick {i}"]
        if t is trick:
            break
        won = t.winner
        if won is None or len(t.cards) != size or won not in active:
            return [f"trick {i + 1} is not complete or not won by a seat playing, yet another follows it"]
        counts[won] += 1
        winner = won
    if tricks and trick is None and state.to_act != winner:
        return [f"to_act {state.to_act} is not the winner of the last trick"]
    if list(state.tricks_won) != counts:
        return ["tricks_won is not the count of the tricks each seat won"]
    in_trick: list[int] = []
    if trick is not None:
        if trick.winner is not None or not 0 < len(trick.cards) < size:
            return [f"the trick in progress has {len(trick.cards)} cards for {size} seats, or a winner"]
        if state.to_act != seat_after(active, trick.leader, len(trick.cards)):
            return [f"to_act {state.to_act} is not the next seat to play to the trick"]
        start = active.index(trick.leader)
        in_trick = [active[(start + j) % size] for j in range(len(trick.cards))]
    done = len(tricks)
    ghosts = facts.ghosts
    for s, hand in enumerate(state.hands):
        held = len(hand) + len(face_down(state, s)) if ghosts else len(hand)  # (a ghost's face-down cards)
        if s in active and held + done + (s in in_trick) != HAND_SIZE or s not in active and held != HAND_SIZE:
            return [_NO_DEAL]
    return []


def _shape_problems(state: GameState, n: int) -> list[str]:
    """Field kinds and tuple sizes that the checks below rely on (a decoded snapshot has the right types; a
    state built in code may not, and whatever else is wrong with it is caught by integrity_problems)."""
    out: list[str] = []
    if type(state.seed) is not int:
        out.append("seed is not an integer")
    if type(state.hand_number) is not int:
        out.append("hand_number is not an integer")
    if type(state.dealer) is not int:
        out.append("dealer is not an integer")
    if state.to_act is not None and type(state.to_act) is not int:
        out.append("to_act is not a seat number")
    if type(state.hands) is not tuple or len(state.hands) != n:
        out.append(f"hands must be {n} tuples of cards")
    if type(state.scores) is not tuple or not {*map(type, state.scores)} <= _INT:
        out.append("scores are not integers")
    if type(state.raising) is not bool:
        out.append("raising is not true or false")
    if type(state.kitty_shown) is not bool:
        out.append("kitty_shown is not true or false")
    if type(state.suits_led) is not str or state.suits_led.strip(_SUIT_CHARS):
        out.append("suits_led is not a string of suits")
    shown_void = state.shown_void
    # (each string of suits alone, or all of them joined: a character not a suit shows either way)
    if type(shown_void) is not tuple or not {*map(type, shown_void)} <= _STR or "".join(shown_void).strip(
            _SUIT_CHARS):
        out.append("shown_void is not a string of suits per seat")
    if type(state.tricks_won) is not tuple or not {*map(type, state.tricks_won)} <= _INT:
        out.append("tricks_won are not counts")
    if state.result is not None and not isinstance(state.result, GameResult):
        out.append("result is not a game result")
    return out


def _pile_problems(state: GameState) -> list[str]:
    """Ghost partners: five piles of two cards for each ghost, none for anyone else (where each card is, the card
    count and the replay check)."""
    opts = state.options
    ghosts = ghost_seats(opts)
    piles = state.ghost_piles
    if not ghosts:
        return ["ghost piles in a game without ghosts"] if piles else []
    if type(piles) is not tuple or len(piles) != seat_count(opts):
        return [f"ghost_piles must have {seat_count(opts)} entries, one per seat"]
    for s, seat_piles in enumerate(piles):
        size = GHOST_PILES if s in ghosts else 0
        if type(seat_piles) is not tuple or len(seat_piles) != size or not all(
                type(p) is tuple and len(p) == 2 and all(type(c) is str for c in p) for p in seat_piles):
            return [f"seat {s} must have {size} ghost piles of a face-up and a face-down card"]
    return []


def _card_problems(state: GameState, facts: _Facts) -> list[str]:
    """Every card exactly once, wherever it is (a ghost's face-down cards lie in its piles)."""
    problems: list[str] = []
    located: list[str] = [*chain.from_iterable(state.hands)]
    for g in facts.ghosts:
        located += face_down(state, g)
    located += state.dead_hand
    if state.phase == "exchange":
        # The contractor holds the kitty's cards; ``kitty`` only records which they are.
        c = state.contract
        if c is not None and 0 <= c.contractor < len(state.hands) and not set(state.kitty) <= set(
                state.hands[c.contractor]):
            problems.append("the kitty's cards are not in the contractor's hand during the exchange")
    else:
        located += state.kitty
    located += state.discards
    located += chain.from_iterable(map(_CARDS_OF, state.tricks))
    if state.trick is not None:
        located += state.trick.cards
    pack_set = facts.pack_set
    # As many cards as the pack and the same set: each exactly once (one test for the common case).
    if len(located) != len(pack_set) or pack_set != frozenset(located):
        seen = Counter(located)
        missing = sorted(pack_set - set(seen))
        extra = sorted(c for c in seen if c not in pack_set)
        doubled = sorted(c for c, k in seen.items() if k > 1)
        if missing:
            problems.append(f"cards not accounted for: {missing}")
        if extra:
            problems.append(f"cards not in the pack: {extra}")
        if doubled:
            problems.append(f"cards held twice: {doubled}")
    if facts.dead_hand != bool(state.dead_hand):
        problems.append("dead hand present or absent against the rules")
    return problems


def _history_problems(state: GameState, facts: _Facts) -> list[str]:
    """The summary of past hands: the last scored hand, the scores and the result."""
    opts = state.options
    n = facts.seats
    out: list[str] = []
    last = state.last_hand
    n_sides = facts.sides
    if last is None:
        if any(state.scores):
            out.append("scores without a scored hand")
        if state.phase == "game_over":
            out.append("a finished game without a scored hand")
        return out
    if not (len(last.tricks_won) == n and all(_is_int(t) and t >= 0 for t in last.tricks_won)
            and sum(last.tricks_won) <= 10 and len(last.deltas) == n_sides and len(last.scores) == n_sides
            and all(_is_int(x) and x % 10 == 0 and abs(x) <= MAX_SCORE for x in (*last.deltas, *last.scores))):
        return ["last_hand counts are malformed"]
    if last.bid is None:
        if last.contractor is not None or last.contracting_seats or last.made is not None \
                or sum(last.tricks_won) != 10:
            out.append("last_hand without a contract names a contractor or a result")
    else:
        if last.bid not in ladder(opts) or last.contractor is None or not 0 <= last.contractor < opts.players \
                or type(last.made) is not bool:
            out.append("last_hand's contract is not one of this game")
        elif not last.contracting_seats or last.contracting_seats[0] != last.contractor or len(
                set(last.contracting_seats)) != len(last.contracting_seats) or not all(
                _is_int(s) and 0 <= s < n for s in last.contracting_seats):
            out.append("last_hand's contracting seats are not seats led by its contractor")
    if out:
        return out
    if last.scores != state.scores:
        out.append("scores differ from the last scored hand's")
    side = side_of(opts)
    contracting: list[int] = []
    for s in last.contracting_seats:
        if side[s] not in contracting:
            contracting.append(side[s])
    before = tuple(a - d for a, d in zip(last.scores, last.deltas, strict=True))
    if any(abs(x) > MAX_SCORE for x in before):
        out.append("scores before the last hand out of range")
    result = judge_game(opts, last.scores, contracting, last.made)
    if state.phase == "game_over":
        if state.result != result:
            out.append(f"result {state.result} is not what the last hand gives ({result})")
    else:
        if state.result is not None:
            out.append("a game in progress has a result")
    return out


# ------------------------------------------------------------------------------------------------ replay


def _replay_problems(state: GameState) -> list[str]:
    """Replay the current hand from the deal it implies; the result must be ``state`` itself."""
    from engine.game import IllegalMove

    start = _deal_of(state)
    if isinstance(start, str):
        return [start]
    auction = _auction_moves(state)
    if isinstance(auction, str):
        return [auction]
    node = _root(start)
    for label, call in auction:
        st = node.state
        if isinstance(call, LookAtHand) and st.viewed[call.seat]:
            continue  # the proposer had already looked (no blind start, or a bid that counts as looking)
        if st.hand_number != state.hand_number or st.phase not in ("auction", "redeal_answer"):
            return [f"{label} comes after the auction ended"]
        try:
            node = _step(node, call, call)
        except IllegalMove as exc:
            return [f"{label} is illegal there ({exc.rejection.reason}: {exc.rejection.detail})"]
    if state.phase not in ("auction", "redeal_answer"):
        plays = [(card, t.nominate if j == 0 else None)
                 for t in (*state.tricks, *((state.trick,) if state.trick is not None else ()))
                 for j, card in enumerate(t.cards)]
        done = 0
        for _ in range(len(plays) + 16):  # each setup step and each card once
            st = node.state
            if st.hand_number != state.hand_number or st.phase == "game_over":
                break
            key: object
            mv: Move | None
            if st.phase == "play":
                if done == len(plays):
                    break
                key, mv = plays[done], None
            else:
                setup = _next_setup_move(state, st)
                if isinstance(setup, str):
                    return [setup]
                if setup is None:
                    break
                key = mv = setup
            try:
                node = _step(node, key, mv)
            except IllegalMove as exc:
                where = f"the card {plays[done][0]} of trick {_trick_of(state, done) + 1}" if mv is None \
                    else f"the {st.phase} move"
                return [f"{where} is illegal there ({exc.rejection.reason}: {exc.rejection.detail})"]
            done += mv is None
        if done < len(plays):
            return [f"cards recorded in tricks after the hand ended ({len(plays) - done} of them)"]
    st = node.state
    if st == state:
        return []
    differing = [f for f in GameState.__struct_fields__ if getattr(st, f) != getattr(state, f)]
    return [f"{', '.join(differing)}: not what this hand's recorded moves lead to"]


def _trick_of(state: GameState, index: int) -> int:
    """Which trick the ``index``-th card played this hand belongs to."""
    for k, t in enumerate((*state.tricks, *((state.trick,) if state.trick is not None else ()))):
        if index < len(t.cards):
            return k
        index -= len(t.cards)
    return len(state.tricks)


class _Node:
    """A state the replay reached, and the states each move from it led to (a memo: see :func:`_root`)."""

    __slots__ = ("children", "state")

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.children: dict[object, _Node] = {}


#: Replays already made, by the deal they start from: a later state of the same hand (the next move's snapshot)
#: walks the moves it shares with an earlier one and applies only its new ones. A pure memo of the engine's own
#: transitions, bounded; a move it has not seen is always applied (and so checked) by the engine.
_REPLAYS: dict[GameState, _Node] = {}
_MAX_NODES = 50_000
_nodes = [0]


def _root(start: GameState) -> _Node:
    node = _REPLAYS.get(start)
    if node is None:
        if len(_REPLAYS) > 1024 or _nodes[0] > _MAX_NODES:
            _REPLAYS.clear()
            _nodes[0] = 0
        node = _REPLAYS[start] = _Node(start)
    return node


def _step(node: _Node, key: object, move: Move | None) -> _Node:
    """The replay's next state: ``move``, or for ``None`` the play ``key`` = (card, nominated suit) by the seat to
    act. Raises :class:`engine.game.IllegalMove` for an illegal move."""
    from engine.game import apply_move

    child = node.children.get(key)
    if child is None:
        if move is None:
            assert isinstance(key, tuple)
            card: str = key[0]
            nominate: str | None = key[1]
            seat = node.state.to_act
            assert seat is not None
            move = Play(seat=seat, card=card, nominate=nominate)
        child = _Node(apply_move(node.state, move)[0])
        node.children[key] = child
        _nodes[0] += 1
    return child


def _next_setup_move(state: GameState, st: GameState) -> Move | str | None:
    """The replay's next step between the auction and the first lead (``None``: it has reached the given
    state's phase)."""
    seat = st.to_act
    assert seat is not None
    phase = st.phase
    c = state.contract
    if phase == "call":
        if state.phase == "call":
            return None
        if c is None:
            return "a partner call without a contract"
        if c.called_card is not None:
            return CallCard(seat=seat, card=c.called_card)
        if c.chosen_partners:
            return ChoosePartners(seat=seat, partners=c.chosen_partners)
        if c.alone:
            return GoAlone(seat=seat)
        return "the contract records no partner call, yet the hand went past it"
    if phase == "exchange":
        if state.phase == "exchange":
            return None
        if not state.discards:
            return "the hand went past the exchange without discards"
        return Discard(seat=seat, cards=state.discards)
    if phase == "nominate":
        pending = [x for x in state.nominations if x not in st.nominations]
        if pending:
            return NominateJoker(seat=seat, card=pending[0][0], suit=pending[0][1])
        return None if state.phase == "nominate" else NominateJoker(seat=seat, suit=None)
    return None


def _played_by(state: GameState) -> list[list[str]] | str:
    """The cards each seat played this hand (from the tricks and their leaders)."""
    n = seat_count(state.options)
    out: list[list[str]] = [[] for _ in range(n)]
    active = state.active
    tricks = (*state.tricks, *((state.trick,) if state.trick is not None else ()))
    if not tricks:
        return out
    if not active or len(set(active)) != len(active) or not all(0 <= s < n for s in active):
        return "tricks played with no valid active seats"
    size = len(active)
    for i, t in enumerate(tricks):
        if t.leader not in active:
            return f"trick {i + 1} is led by seat {t.leader!r}, not a seat playing this hand"
        if not 0 < len(t.cards) <= size:
            return f"trick {i + 1} has {len(t.cards)} cards for {size} seats playing"
        if t.nominate is not None and t.nominate not in SUITS:
            return f"trick {i + 1} nominates {t.nominate!r}, not a suit"
        if t.winner is not None and t.winner not in active:
            return f"trick {i + 1} is won by seat {t.winner!r}, not a seat playing this hand"
        start = active.index(t.leader)
        for j, c in enumerate(t.cards):
            out[active[(start + j) % size]].append(c)
    return out


def _dealt_hands(state: GameState, played: list[list[str]]) -> list[list[str]] | str:
    """The hands as dealt, from the hands held and the cards each seat played (and, during the exchange, the
    kitty taken back out of the contractor's hand): ten cards each, beside a full kitty, or a problem."""
    n = state.options.players
    c = state.contract
    hands = [list(h) + played[s] for s, h in enumerate(state.hands)]
    ghosts = ghost_seats(state.options)
    for g in ghosts:  # a ghost was dealt its piles: the cards it holds face up, has played, and has face down
        dealt = sorted(x for pile in state.ghost_piles[g] for x in pile)
        if sorted(hands[g] + list(face_down(state, g))) != dealt:
            return f"seat {g}'s cards face up, face down and played are not the ghost's piles"
        hands[g] = [up for up, _ in state.ghost_piles[g]]
    kitty = state.kitty if state.kitty else state.discards
    if c is not None and state.phase == "exchange":
        if not 0 <= c.contractor < n or not set(kitty) <= set(hands[c.contractor]):
            return "the kitty's cards are not in the contractor's hand during the exchange"
        hands[c.contractor] = [x for x in hands[c.contractor] if x not in kitty]
    if any(len(h) != (GHOST_PILES if s in ghosts else HAND_SIZE) for s, h in enumerate(hands)) \
            or len(kitty) != kitty_size(state.options):
        return _NO_DEAL
    return hands


def _deal_of(state: GameState) -> GameState | str:
    """The state at the deal of the current hand implied by ``state``. Once the contractor has exchanged, the
    kitty is taken to be its discards: any split of its cards between its hand and the kitty is a possible deal,
    and this one needs no knowledge of which cards came from the kitty."""
    opts = state.options
    n = opts.players
    played = _played_by(state)
    if isinstance(played, str):
        return played
    hands = _dealt_hands(state, played)
    if isinstance(hands, str):
        return hands
    kitty = state.kitty if state.kitty else state.discards
    ghosts = ghost_seats(opts)
    index = pack_index(opts)
    scores, last = state.scores, state.last_hand
    if state.phase == "game_over":
        assert last is not None  # checked by _history_problems
        scores = tuple(a - d for a, d in zip(last.scores, last.deltas, strict=True))
        last = None
    return GameState(rules_version=state.rules_version, options=opts, seed=state.seed,
                     deck_orders=state.deck_orders, dealt_decks=state.dealt_decks,
                     hand_number=state.hand_number, dealer=state.dealer,
                     phase="auction", to_act=(state.dealer + 1) % n, scores=scores,
                     hands=tuple(sort_hand(h, index) for h in hands),
                     dead_hand=sort_hand(state.dead_hand, index), ghost_piles=state.ghost_piles, kitty=tuple(kitty),
                     viewed=(not opts.blind_misere_enabled,) * n + (True,) * len(ghosts), passed=(False,) * n,
                     last_hand=last)


def _auction_moves(state: GameState) -> list[tuple[str, Move]] | str:
    """The auction's moves as the state records them: its calls, a no-ace-no-face proposal (just before the
    proposer's first call, as the rules require) and, in blind-misère games, the looks at hands."""
    from engine.auction import first_partner

    opts = state.options
    n = opts.players
    moves: list[tuple[str, Move]] = []
    calls = state.calls
    proposer = state.redeal_proposer
    if proposer is not None and not 0 <= proposer < n:
        return f"redeal_proposer {proposer} is not a seat"
    first_call = next((i for i, c in enumerate(calls) if c.seat == proposer), None)
    in_auction = state.phase in ("auction", "redeal_answer")
    # A seat that has looked without a bid that counts as looking did so now (if it is to act) or before its last
    # pass since its last blind-misère bid.
    looks: dict[int, int] = {}
    if opts.blind_misere_enabled and in_auction:
        for s in range(n):
            if not state.viewed[s] or s == proposer or any(
                    c.seat == s and c.bid not in (None, "BLIND_MISERE") for c in calls):
                continue
            blind_at = max((i for i, c in enumerate(calls) if c.seat == s and c.bid is not None), default=-1)
            passes = [i for i, c in enumerate(calls) if c.seat == s and c.bid is None and i > blind_at]
            if s == state.to_act and not state.raising and state.phase == "auction":
                looks[s] = len(calls)
            elif passes:
                looks[s] = passes[-1]
            else:
                return f"seat {s} has looked at its hand without a turn to do so"

    def proposal(pending: bool) -> None:
        assert proposer is not None
        moves.append(("the look before the redeal proposal", LookAtHand(seat=proposer)))
        moves.append(("the redeal proposal", ProposeRedeal(seat=proposer)))
        if not pending:
            moves.append(("the refusal of the redeal", AnswerRedeal(seat=first_partner(opts, proposer),
                                                                     accept=False)))

    for i, call in enumerate(calls):
        if proposer is not None and i == first_call:
            proposal(False)
        moves += [(f"seat {s}'s look at its hand", LookAtHand(seat=s)) for s, at in looks.items() if at == i]
        label = f"auction call {i + 1}"
        if call.bid is None:
            if call.sans_kitty:
                return f"{label} is a pass made sans kitty"
            moves.append((label, Pass(seat=call.seat)))
        elif call.bid not in ALL_BIDS:
            return f"{label} bids {call.bid!r}, not a bid"
        else:
            moves.append((label, Bid(seat=call.seat, bid=call.bid, sans_kitty=call.sans_kitty)))
    if proposer is not None and first_call is None:
        if not in_auction:
            return "a redeal proposer that never called, in an auction that ended"
        proposal(state.phase == "redeal_answer")
    moves += [(f"seat {s}'s look at its hand", LookAtHand(seat=s)) for s, at in looks.items() if at == len(calls)]
    return moves
