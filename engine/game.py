"""The referee: start a game, whose turn, legal moves, check a move, apply a move.

Three layers as in python-chess: a move is *parsed* by the caller (msgspec decoding into :data:`Move`), *checked*
here (:func:`check_move` answers ``None`` or a :class:`Rejection` with a stable reason code and a sentence), and
*applied* (:func:`apply_move` calls the check first, so an illegal move never changes anything).

Everything is a pure function of its arguments: no I/O, no clock, no global random state. The deals come from
``seed`` through the documented stream of :mod:`engine.deal`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from itertools import combinations
from typing import Final

import msgspec

from engine.cards import ALL_CARDS, HONOURS, JOKER, JOKERS, SUITS, Strain, rank_of
from engine.deal import cut_for_dealer, deal, kitty_size, pack_for, pack_index, shuffled
from engine.model import (
    AnswerRedeal,
    AuctionReopened,
    AuctionWon,
    Bid,
    BidMade,
    Call,
    CallCard,
    CardCalled,
    CardPlayed,
    CardsReceived,
    ChoosePartners,
    Contract,
    CutDraw,
    DealerCut,
    Discard,
    Discarded,
    Event,
    GameOver,
    GameResult,
    GameState,
    GoAlone,
    HandDealt,
    HandExposed,
    HandScored,
    JokerNominated,
    KittyShown,
    KittyTaken,
    LookAtHand,
    LookedAtHand,
    Move,
    NominateJoker,
    NoTrumpPlayOut,
    PartnerRevealed,
    PartnersChosen,
    Pass,
    Passed,
    Play,
    ProposeRedeal,
    RedealAnswered,
    RedealProposed,
    Rejection,
    ThrownIn,
    Trick,
    TrickWon,
    WentAlone,
)
from engine.options import RULES_VERSION, Options, validate_options
from engine.rules import (
    ALL_BIDS,
    BLIND_MISERE,
    MISERE,
    MISERE_BIDS,
    OPEN_MISERE,
    bid_level,
    bid_strain,
    bid_value,
    hand_strain,
    has_teams,
    is_nt_family,
    ladder,
    side_of,
    sides,
    top_rung,
)

# Final: the compiled build reads Final module globals directly instead of looking them up by name.
replace: Final = msgspec.structs.replace
TRICKS_PER_HAND: Final = 10


class IllegalMove(ValueError):
    def __init__(self, rejection: Rejection) -> None:
        super().__init__(f"{rejection.reason}: {rejection.detail}")
        self.rejection = rejection


class GameSetupError(ValueError):
    """Creating a game failed: bad seed, deck orders or first dealer; ``code`` names which."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code


# ------------------------------------------------------------------------------------------------ setup


def new_game(options: Options, *, seed: int, deck_orders: Sequence[Sequence[str]] = (),
             first_dealer: int | None = None) -> tuple[GameState, list[Event]]:
    """Start a game and deal its first hand.

    ``seed`` (0 ≤ seed < 2**64) derives every deal not given in ``deck_orders`` (each a permutation of the pack,
    ``deck[0]`` dealt first) and a random first dealer.

    >>> from engine.options import Options
    >>> state, events = new_game(Options(), seed=1, first_dealer=3)
    >>> state.phase, state.to_act, len(state.hands[0]), len(state.kitty)
    ('auction', 0, 10, 3)
    """
    validate_options(options)
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**64:
        raise GameSetupError("INVALID_SEED", "seed must be an integer from 0 to 2**64-1")
    pack = pack_for(options)
    decks: list[tuple[str, ...]] = []
    for i, d in enumerate(deck_orders):
        deck = tuple(d)
        if sorted(deck) != sorted(pack):
            missing = sorted(set(pack) - set(deck))
            extra = sorted(set(deck) - set(pack))
            dupes = sorted({c for c in deck if deck.count(c) > 1})
            raise GameSetupError("INVALID_DECK_ORDER",
                                 f"deck_orders[{i}] is not a permutation of the {len(pack)}-card pack "
                                 f"(missing {missing[:5]}, not in pack {extra[:5]}, repeated {dupes[:5]})")
        decks.append(deck)
    events: list[Event] = []
    n = options.players
    if first_dealer is not None:
        if not isinstance(first_dealer, int) or not 0 <= first_dealer < n:
            raise GameSetupError("INVALID_FIRST_DEALER", f"first_dealer must be a seat from 0 to {n - 1}")
        dealer = first_dealer
    elif options.first_dealer == "cut_low":
        draws, dealer = cut_for_dealer(options, seed)
        events.append(DealerCut(draws=tuple(CutDraw(seat=s, card=c) for s, c in draws), dealer=dealer))
    else:
        from engine.deal import SeedStream

        dealer = SeedStream(seed, "dealer").below(n)
    blank = GameState(rules_version=RULES_VERSION, options=options, seed=seed, deck_orders=tuple(decks),
                      hand_number=-1, dealer=dealer, phase="auction", to_act=None,
                      scores=(0,) * len(sides(options)), hands=((),) * n, kitty=(), viewed=(True,) * n,
                      passed=(False,) * n)
    state = _deal_hand(blank, dealer, events)
    return state, events


def _deal_hand(st: GameState, dealer: int, events: list[Event]) -> GameState:
    """Deal the next hand (hand_number + 1) by ``dealer`` and open its auction."""
    opts = st.options
    hand_number = st.hand_number + 1
    deck_orders, dealt_decks = st.deck_orders, st.dealt_decks
    if deck_orders:
        deck, deck_orders = deck_orders[0], deck_orders[1:]
        dealt_decks = (*dealt_decks, deck)
    else:
        deck = shuffled(pack_for(opts), st.seed, f"deal/{hand_number}")
    hands, dead, kitty = deal(opts, deck, dealer)
    index = pack_index(opts)
    n = opts.players
    viewed = not opts.blind_misere_enabled
    events.append(HandDealt(hand_number=hand_number, dealer=dealer))
    sorted_hands = tuple(tuple(sorted(h, key=index.__getitem__)) for h in hands)
    for s in range(n):
        events.append(CardsReceived(seat=s, cards=sorted_hands[s] if viewed else None))
    first = (dealer + 1) % n
    return GameState(
        rules_version=st.rules_version, options=opts, seed=st.seed, deck_orders=deck_orders,
        dealt_decks=dealt_decks, hand_number=hand_number, dealer=dealer, phase="auction", to_act=first,
        scores=st.scores,
        hands=sorted_hands, dead_hand=tuple(sorted(dead, key=index.__getitem__)),
        kitty=tuple(kitty), viewed=(viewed,) * n, passed=(False,) * n, last_hand=st.last_hand,
    )


# ------------------------------------------------------------------------------------------------ queries


def to_act(state: GameState) -> int | None:
    """The one seat to act, or ``None`` once the game is over."""
    return state.to_act


#: Play moves are immutable, so each (seat, card, nomination) is built once and shared (a pure memo).
_PLAYS: Final[dict[tuple[int, str, str | None], Play]] = {}
#: The plays without a nomination, per seat then card, built once: the legal-move lists of the play share them.
_SEAT_PLAYS: Final = tuple({c: Play(seat=s, card=c) for c in sorted(ALL_CARDS)} for s in range(6))


def _play_move(seat: int, card: str, nominate: str | None) -> Play:
    key = (seat, card, nominate)
    move = _PLAYS.get(key)
    if move is None:
        if len(_PLAYS) > 50_000:
            _PLAYS.clear()
        move = _PLAYS[key] = Play(seat=seat, card=card, nominate=nominate)
    return move


@lru_cache(maxsize=10_000)
def _bid_move(seat: int, bid: str, sans_kitty: bool) -> Bid:
    return Bid(seat=seat, bid=bid, sans_kitty=sans_kitty)


@lru_cache(maxsize=64)
def _pass_move(seat: int) -> Pass:
    return Pass(seat=seat)


def legal_moves(state: GameState, seat: int | None = None) -> list[Move]:
    """Every legal move of ``seat`` (default: the seat to act); empty for a seat that may not act now."""
    actor = state.to_act
    if actor is None or (seat is not None and seat != actor):
        return []
    phase = state.phase
    if phase == "play":
        # Fast paths for the common cases; _legal_plays has the whole rule.
        trick = state.trick
        suit_of = _strain(state).suit
        hand = state.hands[actor]
        plays = _SEAT_PLAYS[actor]
        if trick is not None:
            led = suit_of[trick.cards[0]] or trick.nominate
            same: list[Move] = [plays[c] for c in hand if suit_of[c] == led]
            if same:
                # Following a led suit that the seat holds.
                if not state.options.joker_follow_first_round:
                    return same
            elif state.contract is None or state.contract.bid not in MISERE_BIDS or \
                    not state.options.joker_forced_in_misere:
                # Void outside misère: any card.
                return [plays[c] for c in hand]
        elif None not in [suit_of[c] for c in hand]:
            # Leading without an un-nominated joker in hand: any card.
            return [plays[c] for c in hand]
        return [_play_move(actor, c, x) for c, x in _legal_plays(state, actor)]
    if phase == "auction":
        return _legal_calls(state, actor)
    if phase == "exchange":
        # Every choice of discards is legal; listing all C(13,3) of them is the honest answer.
        k = len(state.kitty)
        make = Discard  # a local: the compiled build would look the global up once per choice
        return [make(seat=actor, cards=combo) for combo in combinations(state.hands[actor], k)]
    if phase == "nominate":
        # Declining is always legal, whether or not the contractor holds a joker (see _may_nominate).
        nominated = dict(state.nominations)
        jokers = [c for c in state.hands[actor] if c in JOKERS and c not in nominated]
        out: list[Move] = [NominateJoker(seat=actor, card=j, suit=s) for j in jokers for s in SUITS]
        out.append(_DECLINE[actor])
        return out
    if phase == "call":
        return _legal_partner_calls(state, actor)
    if phase == "redeal_answer":
        return [AnswerRedeal(seat=actor, accept=True), AnswerRedeal(seat=actor, accept=False)]
    return []


# ------------------------------------------------------------------------------------------------ auction


def _max_level(calls: tuple[Call, ...]) -> int:
    best = 0
    for c in calls:
        if c.bid is not None:
            best = max(best, bid_level(c.bid))
    return best


@lru_cache(maxsize=50_000)
def _legal_bid_list(opts: Options, high_bid: str | None, max_level: int, viewed: bool, barred: bool,
                    early: bool) -> tuple[tuple[str, bool], ...]:
    rungs = ladder(opts)
    out: list[tuple[str, bool]] = []
    for bid in sorted(rungs, key=lambda b: (rungs[b], b)):
        if _bid_reason(opts, bid, False, high_bid, max_level, viewed, barred, early) is None:
            out.append((bid, False))
            if opts.sans_kitty_enabled and bid not in MISERE_BIDS:
                out.append((bid, True))
    return tuple(out)


def _bid_reason(opts: Options, bid: str, sans: bool, high_bid: str | None, max_level: int, viewed: bool,
                barred: bool, early: bool) -> Rejection | None:
    rungs = ladder(opts)
    if bid not in ALL_BIDS:
        return Rejection("UNKNOWN_BID", f"{bid!r} is not a bid; bids are 6S … 10NT, MISERE, OPEN_MISERE, "
                         "BLIND_MISERE", {"bid": bid})
    if bid not in rungs:
        if bid in MISERE_BIDS:
            if bid == BLIND_MISERE and opts.misere_enabled:
                return Rejection("BLIND_MISERE_DISABLED", "blind misère is not enabled in this game")
            if bid == OPEN_MISERE and opts.misere_enabled and (opts.players != 6 or opts.six_player_misere):
                return Rejection("OPEN_MISERE_DISABLED", "open misère is not allowed in this game")
            return Rejection("MISERE_DISABLED", "misère bids are not allowed in this game")
        return Rejection("SIX_LEVEL_NOT_ALLOWED", "6-level bids are not allowed (inkle_mode=min_bid_seven)")
    if sans and not opts.sans_kitty_enabled:
        return Rejection("SANS_KITTY_DISABLED", "sans-kitty bids are not enabled in this game")
    if sans and bid in MISERE_BIDS:
        return Rejection("SANS_KITTY_NOT_FOR_MISERE", "only suit and NT bids may be made sans kitty")
    if high_bid is not None and rungs[bid] <= rungs[high_bid]:
        return Rejection("BID_TOO_LOW", f"{bid} does not outrank the current bid {high_bid}",
                         {"bid": bid, "high_bid": high_bid})
    if bid == BLIND_MISERE and viewed:
        return Rejection("BLIND_MISERE_AFTER_LOOKING", "blind misère may be bid only before looking at the hand")
    if bid in MISERE_BIDS and barred:
        return Rejection("MISERE_BARRED", "a side that proposed a no-ace-no-face redeal may not bid misère")
    if bid == MISERE and opts.misere_requires_seven and max_level < 7:
        return Rejection("MISERE_NEEDS_SEVEN_BID", "misère may be bid only after a bid at the 7 level or higher")
    if bid == OPEN_MISERE and opts.open_misere_requires_eight and max_level < 8:
        return Rejection("OPEN_MISERE_NEEDS_EIGHT_BID", "open misère may be bid only after a bid of 8 or more")
    if opts.inkle_mode == "signal_only" and bid_level(bid) == 6 and not early:
        return Rejection("INKLE_TOO_LATE", "only the first two calls of the auction may be 6-level bids")
    return None


def _bid_context(state: GameState, seat: int) -> tuple[str | None, int, bool, bool, bool]:
    high = state.high
    return (high.bid if high else None, _max_level(state.calls), state.viewed[seat],
            seat in state.misere_barred, len(state.calls) < 2)


@lru_cache(maxsize=50_000)
def _call_moves(opts: Options, seat: int, high_bid: str | None, max_level: int, viewed: bool, barred: bool,
                early: bool) -> tuple[Move, ...]:
    """Pass and every legal bid for one auction situation (memoised: auctions repeat these situations)."""
    bids = _legal_bid_list(opts, high_bid, max_level, viewed, barred, early)
    return (_pass_move(seat), *(_bid_move(seat, b, sk) for b, sk in bids))


def _legal_calls(state: GameState, seat: int) -> list[Move]:
    moves: list[Move] = list(_call_moves(state.options, seat, *_bid_context(state, seat)))
    if not state.raising:
        if not state.viewed[seat]:
            moves.append(LookAtHand(seat=seat))
        if _may_propose_redeal(state, seat):
            moves.append(ProposeRedeal(seat=seat))
    return moves


def _may_propose_redeal(state: GameState, seat: int) -> bool:
    opts = state.options
    return (opts.no_ace_no_face and has_teams(opts) and state.redeal_proposer is None
            and not state.misere_barred and state.viewed[seat]
            and all(c.seat != seat for c in state.calls)
            and not any(c in JOKERS or rank_of(c) in HONOURS for c in state.hands[seat]))


def _first_partner(opts: Options, seat: int) -> int:
    """The proposer's partner who answers a redeal proposal: the next team-mate clockwise."""
    side = side_of(opts)
    n = opts.players
    return next(s for s in ((seat + i) % n for i in range(1, n)) if side[s] == side[seat])


def _apply_auction(state: GameState, move: Move, events: list[Event]) -> GameState:
    opts = state.options
    seat = move.seat
    n = opts.players
    if isinstance(move, LookAtHand):
        events.append(LookedAtHand(seat=seat, cards=state.hands[seat]))
        return replace(state, viewed=state.viewed[:seat] + (True,) + state.viewed[seat + 1:])
    if isinstance(move, ProposeRedeal):
        events.append(RedealProposed(seat=seat))
        return replace(state, phase="redeal_answer", redeal_proposer=seat, to_act=_first_partner(opts, seat))
    calls = state.calls
    passed = list(state.passed)
    high = state.high
    viewed = state.viewed
    if isinstance(move, Bid):
        call = Call(seat, move.bid, move.sans_kitty)
        events.append(BidMade(seat=seat, bid=move.bid, sans_kitty=move.sans_kitty))
        if move.bid != BLIND_MISERE and not viewed[seat]:
            viewed = viewed[:seat] + (True,) + viewed[seat + 1:]
            events.append(LookedAtHand(seat=seat, cards=state.hands[seat]))
        reopen = False
        if opts.pass_is_final == "reopen_on_suit_change":
            previous = next((c for c in reversed(calls) if c.seat == seat and c.bid is not None), None)
            reopen = (previous is not None and previous.bid is not None
                      and bid_strain(previous.bid) != bid_strain(move.bid))
        if state.raising:
            same = high is not None and high.bid is not None and bid_strain(high.bid) == bid_strain(move.bid)
            reopen = not same and opts.raise_strain_change_reopens
            if not reopen:
                return _end_auction(replace(state, calls=calls + (call,), high=call, viewed=viewed,
                                            raising=False), events)
        if reopen:
            passed = [False] * n
            events.append(AuctionReopened(seat=seat))
        calls = calls + (call,)
        high = call
        if ladder(opts)[move.bid] == top_rung(opts):
            return _end_auction(replace(state, calls=calls, high=high, viewed=viewed, raising=False), events)
    else:  # Pass
        events.append(Passed(seat=seat))
        if state.raising:  # the high bidder stands on its bid
            return _end_auction(replace(state, calls=calls + (Call(seat, None),), raising=False), events)
        calls = calls + (Call(seat, None),)
        passed[seat] = True
    st = replace(state, calls=calls, passed=tuple(passed), high=high, viewed=viewed, raising=False)
    # Who acts next, or is the auction over?
    if opts.bidding_style == "american_single_round":
        if len(calls) >= n:
            return _end_auction(st, events)
        return replace(st, to_act=(seat + 1) % n)
    if opts.pass_is_final == "never":
        trailing = 0
        for c in reversed(calls):
            if c.bid is not None:
                break
            trailing += 1
        if (high is None and trailing >= n) or (high is not None and trailing >= n - 1):
            return _maybe_raise(st, events)
        return replace(st, to_act=(seat + 1) % n)
    if high is None:
        if all(passed):
            return _end_auction(st, events)
    elif passed.count(False) == 1 and not passed[high.seat]:  # everyone but the high bidder has passed
        return _maybe_raise(st, events)
    nxt = seat
    for _ in range(n):
        nxt = nxt + 1 if nxt + 1 < n else 0
        if not passed[nxt]:
            return replace(st, to_act=nxt)
    raise AssertionError("an auction in progress with nobody left to call")  # unreachable: see above


def _maybe_raise(st: GameState, events: list[Event]) -> GameState:
    if st.high is not None and st.options.final_bidder_may_raise:
        return replace(st, raising=True, to_act=st.high.seat)
    return _end_auction(st, events)


def _apply_redeal_answer(state: GameState, move: AnswerRedeal, events: list[Event]) -> GameState:
    events.append(RedealAnswered(seat=move.seat, accept=move.accept))
    proposer = state.redeal_proposer
    assert proposer is not None
    if move.accept:
        events.append(ThrownIn(reason="no_ace_no_face", next_dealer=state.dealer))
        return _deal_hand(state, state.dealer, events)
    side = side_of(state.options)
    barred = tuple(s for s in range(state.options.players) if side[s] == side[proposer])
    return replace(state, phase="auction", to_act=proposer, misere_barred=barred)


def _end_auction(st: GameState, events: list[Event]) -> GameState:
    opts = st.options
    n = opts.players
    high = st.high
    if high is None or high.bid is None:
        policy = opts.three_player_all_pass if n == 3 else opts.all_pass
        if policy == "play_no_trumps":
            leader = (st.dealer + 1) % n
            st = _everyone_looks(st, events)
            events.append(NoTrumpPlayOut(leader=leader))
            return _start_play(replace(st, contract=None), leader, events)
        next_dealer = st.dealer if policy == "redeal_same_dealer" else (st.dealer + 1) % n
        events.append(ThrownIn(reason="all_passed", next_dealer=next_dealer))
        return _deal_hand(st, next_dealer, events)
    if opts.inkle_mode == "signal_only" and bid_level(high.bid) == 6:
        events.append(ThrownIn(reason="inkle", next_dealer=st.dealer))
        return _deal_hand(st, st.dealer, events)
    st = _everyone_looks(st, events)
    contractor = high.seat
    sitting_out: tuple[int, ...] = ()
    if high.bid in MISERE_BIDS and has_teams(opts):
        side = side_of(opts)
        sitting_out = tuple(s for s in range(n) if s != contractor and side[s] == side[contractor])
    alone = opts.players == 5 and (high.bid in MISERE_BIDS or opts.five_player_partner_method == "alone_only")
    contract = Contract(bid=high.bid, contractor=contractor, sans_kitty=high.sans_kitty, sitting_out=sitting_out,
                        alone=alone, partner_settled=opts.players != 5 or alone)
    events.append(AuctionWon(contractor=contractor, bid=high.bid, sans_kitty=high.sans_kitty,
                             sitting_out=sitting_out))
    return _next_setup_step(replace(st, contract=contract), events)


def _everyone_looks(st: GameState, events: list[Event]) -> GameState:
    """Blind misère: the hand goes on, so every seat that has not looked picks up its cards (each sees its own).

    A hand thrown in is gathered unseen: a seat that passed without looking never learns those cards."""
    if all(st.viewed):
        return st
    for s in range(st.options.players):
        if not st.viewed[s]:
            events.append(LookedAtHand(seat=s, cards=st.hands[s]))
    return replace(st, viewed=(True,) * st.options.players)


def _next_setup_step(st: GameState, events: list[Event]) -> GameState:
    """After the auction: the partner call, the exchange, the joker nomination, then play, as the rules need."""
    c = st.contract
    assert c is not None
    opts = st.options
    exchanged = c.sans_kitty or bool(st.discards)
    if not c.partner_settled and (opts.five_player_call_timing == "before_kitty" or exchanged):
        return replace(st, phase="call", to_act=c.contractor)
    if not exchanged:
        if opts.show_kitty and not st.kitty_shown:
            events.append(KittyShown(cards=st.kitty))
        events.append(KittyTaken(seat=c.contractor, cards=st.kitty))
        hands = list(st.hands)
        index = pack_index(opts)
        hands[c.contractor] = tuple(sorted(hands[c.contractor] + st.kitty, key=index.__getitem__))
        return replace(st, phase="exchange", to_act=c.contractor, hands=tuple(hands),
                       kitty_shown=opts.show_kitty)
    if _may_nominate(st):
        return replace(st, phase="nominate", to_act=c.contractor)
    return _open_play(st, events)


def _may_nominate(st: GameState) -> bool:
    """Whether the contractor gets (or keeps) the nomination step before the first lead.

    It depends only on public facts (the contract, the options, the pack and the nominations announced so far),
    never on whether the contractor holds a joker: every NT-family contractor takes the same step and may always
    decline, so the phase, the turn and the events tell nobody who holds the joker (RULES.md 1.9, A24).
    """
    c = st.contract
    opts = st.options
    if c is None or not is_nt_family(c.bid) or not opts.joker_prenomination:
        return False
    if c.bid in MISERE_BIDS and opts.joker_low_in_misere:
        return False
    nominated = {j for j, _ in st.nominations}
    return any(x not in nominated for x in _pack_jokers(opts))


@lru_cache(maxsize=64)
def _pack_jokers(opts: Options) -> tuple[str, ...]:
    return tuple(x for x in JOKERS if x in pack_index(opts))


#: The decline move of each seat (``suit: null``, card ``JK``): the same whether or not the seat holds a joker.
_DECLINE: tuple[NominateJoker, ...] = tuple(NominateJoker(seat=s, suit=None) for s in range(6))


def _start_play(st: GameState, leader: int, events: list[Event]) -> GameState:
    n = st.options.players
    c = st.contract
    out = set(c.sitting_out) if c else set()
    active = tuple(s for s in range(n) if s not in out)
    if c is not None and c.bid == OPEN_MISERE and st.options.open_misere_expose == "before_opening_lead":
        events.append(HandExposed(seat=c.contractor, cards=st.hands[c.contractor]))
    return replace(st, phase="play", to_act=leader, active=active, tricks=(), trick=None, suits_led="",
                   shown_void=("",) * n, tricks_won=(0,) * n)


# ------------------------------------------------------------------------------------------------ partner call


def _legal_partner_calls(state: GameState, seat: int) -> list[Move]:
    opts = state.options
    if opts.five_player_partner_method == "choose_player":
        others = [s for s in range(opts.players) if s != seat]
        moves: list[Move] = [ChoosePartners(seat=seat, partners=(s,)) for s in others]
        assert state.contract is not None
        if bid_level(state.contract.bid) >= 8:
            moves += [ChoosePartners(seat=seat, partners=(a, b)) for i, a in enumerate(others)
                      for b in others[i + 1:]]
        return [*moves, GoAlone(seat=seat)]
    return [*(CallCard(seat=seat, card=c) for c in pack_for(opts) if c not in JOKERS), GoAlone(seat=seat)]


def _apply_partner_call(state: GameState, move: Move, events: list[Event]) -> GameState:
    c = state.contract
    assert c is not None
    if isinstance(move, CallCard):
        events.append(CardCalled(seat=move.seat, card=move.card))
        c = replace(c, called_card=move.card, partner_settled=True)
    elif isinstance(move, ChoosePartners):
        events.append(PartnersChosen(seat=move.seat, partners=tuple(move.partners)))
        c = replace(c, chosen_partners=tuple(sorted(move.partners)), partner_settled=True)
    else:
        events.append(WentAlone(seat=move.seat))
        c = replace(c, alone=True, partner_settled=True)
    return _next_setup_step(replace(state, contract=c), events)


def partners(state: GameState) -> tuple[int, ...]:
    """The contractor's partners this hand, derived from the state (never stored, so never stale).

    A called card's holder is whoever holds it or played it; a card nobody else holds means playing alone.
    """
    c = state.contract
    if c is None:
        return ()
    opts = state.options
    if c.bid in MISERE_BIDS:
        return ()
    if has_teams(opts):
        side = side_of(opts)
        return tuple(s for s in range(opts.players) if s != c.contractor and side[s] == side[c.contractor])
    if opts.players != 5 or c.alone:
        return ()
    if c.chosen_partners:
        return c.chosen_partners
    card = c.called_card
    if card is None:
        return ()
    for s, hand in enumerate(state.hands):
        if card in hand:
            return () if s == c.contractor else (s,)
    for t in (*state.tricks, *((state.trick,) if state.trick else ())):
        if card in t.cards:
            s = _trick_seat(state, t, t.cards.index(card))
            return () if s == c.contractor else (s,)
    return ()


# ------------------------------------------------------------------------------------------------ exchange


def _apply_discard(state: GameState, move: Discard, events: list[Event]) -> GameState:
    c = state.contract
    assert c is not None
    discards = tuple(move.cards)
    hand = tuple(x for x in state.hands[move.seat] if x not in discards)
    hands = state.hands[:move.seat] + (hand,) + state.hands[move.seat + 1:]
    events.append(Discarded(seat=move.seat, cards=discards))
    return _next_setup_step(replace(state, hands=hands, kitty=(), discards=discards), events)


def _apply_nomination(state: GameState, move: NominateJoker, events: list[Event]) -> GameState:
    events.append(JokerNominated(seat=move.seat, card=move.card, suit=move.suit))
    if move.suit is None:
        # Declining ends the nomination step: every joker not yet nominated stays un-nominated.
        return _open_play(state, events)
    st = replace(state, nominations=tuple(sorted(state.nominations + ((move.card, move.suit),))))
    if _may_nominate(st):
        return st
    return _open_play(st, events)


def _open_play(st: GameState, events: list[Event]) -> GameState:
    """Start the play with the first lead: the contractor's, or eldest's (the next active seat) by option."""
    c = st.contract
    assert c is not None
    opts = st.options
    if opts.first_lead == "eldest":
        out = set(c.sitting_out)
        leader = next(s for s in ((st.dealer + i) % opts.players for i in range(1, opts.players + 1))
                      if s not in out)
    else:
        leader = c.contractor
    return _start_play(st, leader, events)


# ------------------------------------------------------------------------------------------------ play


def _trick_seat(state: GameState, trick: Trick, i: int) -> int:
    active = state.active
    return active[(active.index(trick.leader) + i) % len(active)]


_STRAINS: Final[dict[tuple[Options, str | None, tuple[tuple[str, str], ...]], Strain]] = {}
#: The last table answered and the (options, contract, nominations) objects it was for: a hand's states share
#: those objects, so consecutive calls for one game skip building and hashing the key.
_LAST_STRAIN: Final[list[tuple[Options, Contract | None, tuple[tuple[str, str], ...], Strain]]] = []


def _strain(state: GameState) -> Strain:
    """The hand's strain table, memoised (Options caches its hash, so the lookup is cheap)."""
    opts, c, nominations = state.options, state.contract, state.nominations
    if _LAST_STRAIN:
        last = _LAST_STRAIN[0]
        if last[0] is opts and last[1] is c and last[2] is nominations:
            return last[3]
    key = (opts, c.bid if c else None, nominations)
    table = _STRAINS.get(key)
    if table is None:
        if len(_STRAINS) > 4096:
            _STRAINS.clear()
        table = _STRAINS[key] = hand_strain(*key)
    if _LAST_STRAIN:
        _LAST_STRAIN[0] = (opts, c, nominations, table)
    else:
        _LAST_STRAIN.append((opts, c, nominations, table))
    return table


def _joker_lead_suits(state: GameState, seat: int, hand: tuple[str, ...], low: bool) -> tuple[str | None, ...]:
    """Suits an un-nominated joker may be led as (``None``: the last trick, no nomination needed)."""
    opts = state.options
    if len(hand) == 1 and not low:
        return (None,)
    if opts.joker_lead_timing == "last_trick_only" and len(hand) > 1:
        return ()
    rule = opts.joker_lead_restriction
    if rule == "unled_suit":
        allowed = tuple(s for s in SUITS if s not in state.suits_led)
    elif rule == "not_shown_void":
        allowed = tuple(s for s in SUITS if s not in state.shown_void[seat])
    else:
        allowed = SUITS
    if not allowed and (len(hand) == 1 or all(x in JOKERS for x in hand)):
        # Only jokers left (a two-joker pack, or the low joker on the last trick): any suit rather than deadlock.
        allowed = SUITS
    return allowed


def _legal_plays(state: GameState, seat: int) -> list[tuple[str, str | None]]:
    hand = state.hands[seat]
    table = _strain(state)
    suit_of = table.suit
    trick = state.trick
    if trick is None:
        out: list[tuple[str, str | None]] = []
        for c in hand:
            if suit_of[c] is None:
                low = table.power[c] < 0
                out.extend((c, x) for x in _joker_lead_suits(state, seat, hand, low))
            else:
                out.append((c, None))
        return out
    led = trick.nominate if suit_of[trick.cards[0]] is None else suit_of[trick.cards[0]]
    same: list[tuple[str, str | None]] = [(c, None) for c in hand if suit_of[c] == led]
    if same:
        opts = state.options
        if opts.joker_follow_first_round and led not in _suits_led_before(state, table):
            same += [(c, None) for c in hand if suit_of[c] is None and table.power[c] > 0]
        return same
    c0 = state.contract
    if c0 is not None and c0.bid in MISERE_BIDS and state.options.joker_forced_in_misere:
        forced: list[tuple[str, str | None]] = [(c, None) for c in hand if suit_of[c] is None and table.power[c] > 0]
        if forced:
            return forced
    return [(c, None) for c in hand]


def _suits_led_before(state: GameState, table: Strain) -> set[str | None]:
    """Suits led to the completed tricks of this hand (not counting the trick in progress)."""
    return {t.nominate if table.suit[t.cards[0]] is None else table.suit[t.cards[0]] for t in state.tricks}


def _check_play(state: GameState, move: Play, table: Strain | None = None) -> Rejection | None:
    seat, card = move.seat, move.card
    hand = state.hands[seat]
    if card not in hand:
        if not isinstance(card, str) or card not in pack_index(state.options):
            return Rejection("UNKNOWN_CARD", f"{card!r} is not a card of this game's pack", {"card": card})
        return Rejection("CARD_NOT_IN_HAND", f"seat {seat} does not hold {card}", {"seat": seat, "card": card})
    nominate = move.nominate
    if table is None:
        table = _strain(state)
    suit_of = table.suit
    trick = state.trick
    if nominate is None and suit_of[card] is not None:
        # Fast path for the common case: a card with a suit, led or followed.
        if trick is None:
            return None
        first = trick.cards[0]
        led = trick.nominate if suit_of[first] is None else suit_of[first]
        if suit_of[card] == led:
            return None
        if led not in [suit_of[c] for c in hand]:
            c0 = state.contract
            if c0 is None or c0.bid not in MISERE_BIDS or not state.options.joker_forced_in_misere or not any(
                    suit_of[c] is None and table.power[c] > 0 for c in hand):
                return None
    if nominate is not None and nominate not in SUITS:
        return Rejection("UNKNOWN_SUIT", f"{nominate!r} is not a suit; suits are S, C, D, H", {"suit": nominate})
    if (card, nominate) in _legal_plays(state, seat):
        return None
    is_free_joker = table.suit[card] is None
    if state.trick is None:
        if not is_free_joker:
            return Rejection("NOMINATION_NOT_ALLOWED", "only a lead of the un-nominated joker names a suit")
        allowed = _joker_lead_suits(state, seat, hand, table.power[card] < 0)
        if allowed == (None,):
            return Rejection("NOMINATION_NOT_ALLOWED", "the joker led to the last trick needs no suit",
                             {"case": "last_trick"})
        if not allowed:
            if state.options.joker_lead_timing == "last_trick_only":
                return Rejection("JOKER_LEAD_LAST_TRICK_ONLY", "the joker may be led only to the last trick")
            return Rejection("JOKER_LEAD_NOT_ALLOWED", "every suit has been led: the joker may be led only to "
                             "the last trick")
        if nominate is None:
            return Rejection("JOKER_LEAD_NEEDS_SUIT", f"leading the joker needs a suit: one of {list(allowed)}",
                             {"suits": list(allowed)})
        if state.options.joker_lead_restriction == "not_shown_void":
            return Rejection("JOKER_SUIT_SHOWN_VOID", f"seat {seat} has shown void in {nominate}",
                             {"seat": seat, "suit": nominate})
        return Rejection("JOKER_SUIT_ALREADY_LED", f"{nominate} has already been led this hand; "
                         f"nominate one of {list(allowed)}", {"suit": nominate, "suits": list(allowed)})
    if nominate is not None:
        return Rejection("NOMINATION_NOT_ALLOWED", "only a lead of the un-nominated joker names a suit")
    legal = [c for c, _ in _legal_plays(state, seat)]
    if len(legal) < len(hand) and all(table.suit[c] is None for c in legal) and not is_free_joker:
        return Rejection("JOKER_MUST_BE_PLAYED", "in misère a player void in the led suit must play the joker")
    if is_free_joker:
        return Rejection("JOKER_ONLY_WHEN_VOID", "the un-nominated joker may be played only when void in the "
                         "led suit")
    trick = state.trick
    led = trick.nominate if table.suit[trick.cards[0]] is None else table.suit[trick.cards[0]]
    return Rejection("MUST_FOLLOW_SUIT", f"seat {seat} must follow {led}: play one of {legal}",
                     {"seat": seat, "suit": led, "cards": legal})


def _trick_winner(state: GameState, leader: int, cards: tuple[str, ...], nominate: str | None,
                  table: Strain) -> int:
    """The seat whose card wins the trick: the highest trump, else the highest of the led suit (an un-nominated
    joker in the NT family beats both)."""
    suit_of, power = table.suit, table.power
    led = nominate if suit_of[cards[0]] is None else suit_of[cards[0]]
    trump = table.trump
    best_i, best_p = 0, -1000
    for i, c in enumerate(cards):
        s = suit_of[c]
        if i == 0 or s == led or (trump is not None and s == trump) or (s is None and power[c] > 0):
            p = power[c]
            if p > best_p:
                best_i, best_p = i, p
    active = state.active
    return active[(active.index(leader) + best_i) % len(active)]


def _apply_play(state: GameState, move: Play, events: list[Event], table: Strain) -> GameState:
    seat, card = move.seat, move.card
    hand = state.hands[seat]
    i = hand.index(card)
    hands_list = list(state.hands)
    hands_list[seat] = hand[:i] + hand[i + 1:]
    hands = tuple(hands_list)
    events.append(CardPlayed(seat=seat, card=card, nominate=move.nominate))
    trick = state.trick
    suits_led = state.suits_led
    shown_void = state.shown_void
    cards: tuple[str, ...]
    if trick is None:
        leader, cards, nominate = seat, (card,), move.nominate
        lead_suit = table.suit[card] or nominate
        if lead_suit and lead_suit not in suits_led:
            suits_led += lead_suit
    else:
        leader, cards, nominate = trick.leader, trick.cards + (card,), trick.nominate
        led = nominate if table.suit[cards[0]] is None else table.suit[cards[0]]
        if led is not None and table.suit[card] != led and led not in shown_void[seat]:
            shown_void = shown_void[:seat] + (shown_void[seat] + led,) + shown_void[seat + 1:]
    c = state.contract
    if c is not None and c.called_card == card and seat != c.contractor:
        events.append(PartnerRevealed(seat=seat, card=card))
    active = state.active
    if len(cards) < len(active):
        nxt = active[(active.index(seat) + 1) % len(active)]
        return replace(state, hands=hands, trick=Trick(leader, cards, nominate), to_act=nxt, suits_led=suits_led,
                       shown_void=shown_void)
    # The trick is complete.
    winner = _trick_winner(state, leader, cards, nominate, table)
    trick = Trick(leader, cards, nominate, winner)
    tricks = state.tricks + (trick,)
    won = state.tricks_won
    won = won[:winner] + (won[winner] + 1,) + won[winner + 1:]
    events.append(TrickWon(seat=winner, trick_number=len(tricks), cards=trick.cards))
    st = replace(state, hands=hands, suits_led=suits_led, shown_void=shown_void, tricks=tricks, trick=None,
                 tricks_won=won, to_act=winner)
    if c is not None and c.bid == OPEN_MISERE and len(tricks) == 1 and \
            st.options.open_misere_expose == "after_first_trick" and winner != c.contractor:
        events.append(HandExposed(seat=c.contractor, cards=hands[c.contractor]))
    if (c is not None and c.bid in MISERE_BIDS and winner == c.contractor) or len(tricks) == TRICKS_PER_HAND:
        return _finish_hand(st, events)
    return st


# ------------------------------------------------------------------------------------------------ scoring


def score_hand(state: GameState) -> tuple[tuple[int, ...], tuple[int, ...], bool | None]:
    """(score change per side, contracting seats, made) for the hand just played out."""
    opts = state.options
    side = side_of(opts)
    all_sides = sides(opts)
    won = state.tricks_won
    side_tricks = [sum(won[s] for s in members) for members in all_sides]
    deltas = [0] * len(all_sides)
    c = state.contract
    if c is None:  # everyone passed and the hand was played out at no trumps
        return tuple(10 * t for t in side_tricks), (), None
    seats = (c.contractor, *partners(state))
    t = sum(won[s] for s in seats)
    value = bid_value(opts, c.bid)
    contracting_sides = sorted({side[s] for s in seats})
    if c.bid in MISERE_BIDS:
        made = t == 0
        for sd in contracting_sides:
            deltas[sd] = value if made else -value
        return tuple(deltas), seats, made
    made = t >= bid_level(c.bid)
    if made and t == TRICKS_PER_HAND and value < 250 and opts.slam_rule == "min_250":
        value = 250
    share = value
    if opts.players == 5 and len(seats) > 1 and opts.five_player_partner_share == "half":
        share = -(-value // 20) * 10  # half the value, rounded up to a multiple of 10
    for sd in contracting_sides:
        deltas[sd] = share if made else -share
    points_on = opts.defender_trick_points == "always" or (
        opts.defender_trick_points == "on_failure_only" and not made)
    if points_on:
        for sd in range(len(all_sides)):
            if sd in contracting_sides:
                continue
            before = state.scores[sd]
            gain = 10 * side_tricks[sd]
            if opts.defender_points_cutoff != "none" and before > int(opts.defender_points_cutoff):
                gain = 0
            if opts.defender_trick_cap != "none":
                gain = max(0, min(gain, int(opts.defender_trick_cap) - before))
            deltas[sd] = gain
    return tuple(deltas), seats, made


def judge_game(opts: Options, scores: tuple[int, ...], contracting_sides: Sequence[int],
               made: bool | None) -> GameResult | None:
    """Game end after a scored hand (RULES.md 1.12 and 3.5): contract wins first, then going out backwards."""
    target, lose_at = opts.target, opts.lose_at
    if opts.win_requires_contract:
        winners = tuple(sd for sd in contracting_sides if made and scores[sd] >= target)
        if winners:
            return GameResult(winners, (), "contract")
    else:
        winners = tuple(sd for sd in contracting_sides if scores[sd] >= target)
        if winners:
            return GameResult(winners, (), "contract" if made else "points")
        over = [sd for sd in range(len(scores)) if scores[sd] >= target]
        if over:
            top = max(scores[sd] for sd in over)
            return GameResult(tuple(sd for sd in over if scores[sd] == top), (), "points")
    losers = tuple(sd for sd in range(len(scores)) if scores[sd] <= lose_at)
    if losers and opts.out_backwards_only_if_opponent_nonnegative and not any(
            scores[sd] >= 0 for sd in range(len(scores)) if sd not in losers):
        losers = ()
    if losers:
        rest = [sd for sd in range(len(scores)) if sd not in losers]
        top = max((scores[sd] for sd in rest), default=0)
        return GameResult(tuple(sd for sd in rest if scores[sd] == top), losers, "out_backwards")
    return None


def _finish_hand(st: GameState, events: list[Event]) -> GameState:
    opts = st.options
    deltas, seats, made = score_hand(st)
    scores = tuple(a + b for a, b in zip(st.scores, deltas, strict=True))
    c = st.contract
    side = side_of(opts)
    scored = HandScored(bid=c.bid if c else None, contractor=c.contractor if c else None,
                        contracting_seats=seats, made=made, tricks_won=st.tricks_won, deltas=deltas,
                        scores=scores)
    events.append(scored)
    contracting_sides: list[int] = []
    for s in seats:
        if side[s] not in contracting_sides:
            contracting_sides.append(side[s])
    result = judge_game(opts, scores, contracting_sides, made)
    st = replace(st, scores=scores, last_hand=scored)
    if result is not None:
        events.append(GameOver(winners=result.winners, losers=result.losers, reason=result.reason))
        return replace(st, phase="game_over", to_act=None, result=result)
    return _deal_hand(st, (st.dealer + 1) % opts.players, events)


# ------------------------------------------------------------------------------------------------ check/apply


_PHASE_MOVES: dict[str, tuple[type, ...]] = {
    "auction": (Bid, Pass, LookAtHand, ProposeRedeal),
    "redeal_answer": (AnswerRedeal,),
    "call": (CallCard, GoAlone, ChoosePartners),
    "exchange": (Discard,),
    "nominate": (NominateJoker,),
    "play": (Play,),
}
_MOVE_NAMES: dict[type, str] = {Bid: "bid", Pass: "pass", LookAtHand: "look_at_hand", ProposeRedeal: "propose_redeal",
               AnswerRedeal: "answer_redeal", CallCard: "call_card", GoAlone: "go_alone",
               ChoosePartners: "choose_partners", Discard: "discard", NominateJoker: "nominate_joker",
               Play: "play"}


_PHASE_MOVE_SET: dict[str, frozenset[type]] = {p: frozenset(t) for p, t in _PHASE_MOVES.items()}
_PHASE_MOVE_SET["game_over"] = frozenset()


def _check_turn(state: GameState, move: Move) -> Rejection:
    """Why a move by the wrong seat, of the wrong kind, or after the game is refused."""
    opts = state.options
    seat = move.seat
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < opts.players:
        return Rejection("NO_SUCH_SEAT", f"seat must be 0 to {opts.players - 1}",
                         {"seat": seat, "last_seat": opts.players - 1})
    if state.phase == "game_over":
        return Rejection("GAME_OVER", "the game is over")
    if seat != state.to_act:
        return Rejection("NOT_YOUR_TURN", f"it is seat {state.to_act}'s turn, not seat {seat}'s",
                         {"to_act": state.to_act, "seat": seat})
    allowed = ", ".join(_MOVE_NAMES[t] for t in _PHASE_MOVES[state.phase])
    return Rejection("WRONG_PHASE", f"a {_MOVE_NAMES.get(type(move), '?')} move is not possible during the "
                     f"{state.phase} phase (expected {allowed})",
                     {"move": _MOVE_NAMES.get(type(move), "?"), "phase": state.phase,
                      "moves": [_MOVE_NAMES[t] for t in _PHASE_MOVES[state.phase]]})


def check_move(state: GameState, move: Move) -> Rejection | None:
    """``None`` if ``move`` is legal now, else why not.

    >>> from engine.options import Options
    >>> st, _ = new_game(Options(), seed=1, first_dealer=3)
    >>> check_move(st, Bid(seat=0, bid="MISERE")).reason
    'MISERE_NEEDS_SEVEN_BID'
    >>> check_move(st, Pass(seat=1)).reason
    'NOT_YOUR_TURN'
    """
    seat = move.seat
    phase = state.phase
    if type(seat) is not int or seat != state.to_act or type(move) not in _PHASE_MOVE_SET[phase]:
        return _check_turn(state, move)
    if phase == "play":
        assert isinstance(move, Play)
        return _check_play(state, move)
    opts = state.options
    if isinstance(move, Bid):
        if state.raising and state.high is not None and move.bid == state.high.bid:
            return Rejection("BID_TOO_LOW", "a raise must outrank your own bid",
                             {"bid": move.bid, "high_bid": state.high.bid})
        if not isinstance(move.bid, str):
            return Rejection("UNKNOWN_BID", "bid must be a string", {"bid": move.bid})
        return _bid_reason(opts, move.bid, bool(move.sans_kitty), *_bid_context(state, seat))
    if isinstance(move, Pass | AnswerRedeal):
        return None
    if isinstance(move, LookAtHand):
        if state.raising or state.viewed[seat]:
            return Rejection("ALREADY_LOOKED", "this seat has already looked at its hand")
        return None
    if isinstance(move, ProposeRedeal):
        if state.raising or not _may_propose_redeal(state, seat):
            return Rejection("REDEAL_NOT_ALLOWED", "a redeal may be proposed only before a seat's first call, "
                             "once per hand, by a seat holding no A, K, Q, J or joker, with no_ace_no_face on")
        return None
    if isinstance(move, Discard):
        return _check_discard(state, move)
    if isinstance(move, NominateJoker):
        return _check_nomination(state, move)
    return _check_partner_call(state, move)


def _check_discard(state: GameState, move: Discard) -> Rejection | None:
    k = kitty_size(state.options)
    cards = move.cards
    if not isinstance(cards, tuple | list) or len(cards) != k:
        return Rejection("WRONG_DISCARD_COUNT", f"discard exactly {k} cards", {"count": k})
    if len(set(cards)) != len(cards):
        return Rejection("DUPLICATE_CARD", "the discards name a card twice")
    for c in cards:
        if c not in state.hands[move.seat]:
            if not isinstance(c, str) or c not in pack_index(state.options):
                return Rejection("UNKNOWN_CARD", f"{c!r} is not a card of this game's pack", {"card": c})
            return Rejection("CARD_NOT_IN_HAND", f"seat {move.seat} does not hold {c}", {"seat": move.seat, "card": c})
    return None


def _check_nomination(state: GameState, move: NominateJoker) -> Rejection | None:
    if move.suit is not None and move.suit not in SUITS:
        return Rejection("UNKNOWN_SUIT", f"{move.suit!r} is not a suit; suits are S, C, D, H", {"suit": move.suit})
    if move.card not in JOKERS:
        return Rejection("UNKNOWN_CARD", f"{move.card!r} is not a joker", {"card": move.card, "case": "joker"})
    if move.suit is None:
        # Declining needs no joker in hand (so that it gives nothing away); it is spelled one way only.
        if move.card != JOKER:
            return Rejection("UNKNOWN_CARD", f"decline with card {JOKER!r} (the default) and suit null, "
                             f"not {move.card!r}", {"card": move.card, "case": "decline"})
        return None
    if move.card not in state.hands[move.seat] or move.card in dict(state.nominations):
        return Rejection("NO_JOKER_TO_NOMINATE", f"seat {move.seat} holds no un-nominated {move.card}",
                         {"seat": move.seat, "card": move.card})
    return None


def _check_partner_call(state: GameState, move: Move) -> Rejection | None:
    opts = state.options
    if isinstance(move, GoAlone):
        return None
    method = opts.five_player_partner_method
    if isinstance(move, CallCard):
        if method != "called_card":
            return Rejection("WRONG_PARTNER_METHOD", f"partners are chosen by {method} in this game",
                             {"method": method})
        if move.card in JOKERS:
            return Rejection("CANNOT_CALL_JOKER", "the joker may not be called")
        if not isinstance(move.card, str) or move.card not in pack_index(opts):
            return Rejection("UNKNOWN_CARD", f"{move.card!r} is not a card of this game's pack", {"card": move.card})
        return None
    assert isinstance(move, ChoosePartners)
    if method != "choose_player":
        return Rejection("WRONG_PARTNER_METHOD", f"partners are chosen by {method} in this game", {"method": method})
    chosen = tuple(move.partners)
    c = state.contract
    assert c is not None
    most = 2 if bid_level(c.bid) >= 8 else 1
    if not 1 <= len(chosen) <= most or len(set(chosen)) != len(chosen) or any(
            not isinstance(p, int) or not 0 <= p < opts.players or p == move.seat for p in chosen):
        return Rejection("INVALID_PARTNERS", f"name 1 to {most} other seats as partners", {"count": most})
    return None


def apply_move(state: GameState, move: Move) -> tuple[GameState, list[Event]]:
    """Apply a legal move: the new state and the events it caused. Raises :class:`IllegalMove` otherwise;
    the given state is never changed (it is immutable)."""
    phase = state.phase
    if phase == "play" and type(move) is Play and type(move.seat) is int and move.seat == state.to_act:
        # The hot path: check and apply a play with one strain table.
        table = _strain(state)
        rejection = _check_play(state, move, table)
        if rejection is not None:
            raise IllegalMove(rejection)
        events: list[Event] = []
        return _apply_play(state, move, events, table), events
    rejection = check_move(state, move)
    if rejection is not None:
        raise IllegalMove(rejection)
    events = []
    if phase == "auction":
        return _apply_auction(state, move, events), events
    if phase == "exchange":
        assert isinstance(move, Discard)
        return _apply_discard(state, move, events), events
    if phase == "nominate":
        assert isinstance(move, NominateJoker)
        return _apply_nomination(state, move, events), events
    if phase == "call":
        return _apply_partner_call(state, move, events), events
    assert isinstance(move, AnswerRedeal)
    return _apply_redeal_answer(state, move, events), events


__all__ = ["GameSetupError", "IllegalMove", "Rejection", "apply_move", "check_move", "judge_game",
           "legal_moves", "new_game", "partners", "score_hand", "to_act"]
