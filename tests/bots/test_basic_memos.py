"""The basic bidder's and the playouts' kept answers (bots/basic.py's hand readings and chosen calls, bots/expert.py's
kept discards): the moves are the ones computed afresh, as first written, on many random states and sampled deals
of every player count under random options."""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence

from bots.basic import _READINGS, KITTY_TRICKS, bid_from_hand, decide_basic, helper_tricks, misere_danger, own_tricks
from bots.expert import _DISCARDS, _to_card_play, candidates
from bots.inference import read_auction, sample
from bots.knowledge import Knowledge
from engine import Bid, GameState, Move, Options, Pass, ProposeRedeal, apply_move, controller, legal_moves, view
from engine.cards import STRAINS
from engine.contract import playing_together
from engine.model import HandScored
from engine.rules import MISERE, MISERE_BIDS, OPEN_MISERE, bid_level, bid_strain, bid_value, sides
from tests.bots.states import mover, random_states


def reference_bid(opts: Options, seat: int, hand: Sequence[str], legal: Sequence[Move], high_seat: int | None,
                  high_bid: str | None, team: Collection[int], ghost_face_up: Sequence[str] | None = None) -> Move:
    """``bots.basic.bid_from_hand`` as first written: the hand's estimates and misère dangers counted at every
    call, the legal moves filtered three times, nothing kept."""
    passes = [m for m in legal if isinstance(m, Pass)]
    redeal = [m for m in legal if isinstance(m, ProposeRedeal)]
    if redeal:
        return redeal[0]
    bids: list[Bid] = [m for m in legal if isinstance(m, Bid) and not m.sans_kitty]
    if not bids:
        return passes[0] if passes else legal[0]
    extra = helper_tricks(opts)
    if ghost_face_up is not None:
        guessed = extra - KITTY_TRICKS
        estimates = {s: own_tricks(hand, s, opts) + KITTY_TRICKS
                     + min(guessed + 1.0, 0.8 * own_tricks(ghost_face_up, s, opts) + 0.4) for s in STRAINS}
    else:
        estimates = {s: own_tricks(hand, s, opts) + extra for s in STRAINS}
    partner_high = high_seat is not None and high_seat in team and high_seat != seat
    best: Bid | None = None
    best_score = -1e9
    by_bid: dict[str, Bid] = {}
    for m in bids:
        by_bid[m.bid] = m
        if m.bid in MISERE_BIDS:
            continue
        level, strain = bid_level(m.bid), bid_strain(m.bid)
        target = estimates[strain]
        if level > target + 0.25:
            continue
        score = bid_value(opts, m.bid) + 40 * (target - level)
        if score > best_score:
            best, best_score = m, score
    if OPEN_MISERE in by_bid and misere_danger(hand, opts, open_hand=True) == 0:
        return by_bid[OPEN_MISERE]
    if MISERE in by_bid and misere_danger(hand, opts) == 0 and (
            best is None or bid_value(opts, best.bid) < bid_value(opts, MISERE) - 40):
        return by_bid[MISERE]
    if best is None or not passes:
        return best if best is not None else (passes[0] if passes else bids[0])
    if partner_high and high_bid is not None and bid_level(best.bid) < (bid_level(high_bid) or 7) + 1:
        return passes[0]
    return best


def test_the_basic_bid_from_a_kept_reading_is_the_one_first_written() -> None:
    """Every seat's hand of random auction states bid against the state's legal calls, with every seat as the high
    bidder's partner or not: the bid of bots.basic.bid_from_hand, fresh and again from what it kept, is the
    reference's."""
    checked = misere = 0
    for players in (2, 3, 4, 5, 6, "ghosts"):
        for options, state in random_states(players, games=30, seed=29):
            if state.phase != "auction" or state.to_act is None:
                continue
            legal = legal_moves(state)
            high = state.high
            high_seat, high_bid = (None, None) if high is None else (high.seat, high.bid)
            together = playing_together(sides(options), None)
            for seat, hand in enumerate(state.hands):
                if not hand:
                    continue
                ghost = state.hands[(seat + 2) % 4] if state.ghost_piles and seat in (0, 1) else None
                want = reference_bid(options, seat, hand, legal, high_seat, high_bid, together[seat], ghost)
                if seat % 2:
                    _READINGS.clear()
                for _ in range(2):
                    got = bid_from_hand(options, seat, list(hand), legal, high_seat, high_bid, together[seat], ghost)
                    assert got == want, (players, options, state.calls, seat)
                checked += 1
                misere += isinstance(want, Bid) and want.bid in MISERE_BIDS
    assert checked > 3000 and misere > 5, (checked, misere)


def reference_to_card_play(state: GameState) -> tuple[GameState | None, list[object]]:
    """``bots.expert._to_card_play`` in its general form: each seat's move is the basic bot's from the view of the
    player who moves it (a ghost's partner for a ghost), over the engine's general moves."""
    hand_number = state.hand_number
    for _ in range(400):
        if state.phase == "game_over" or state.hand_number != hand_number:
            return None, []
        if state.phase == "play":
            return state, []
        seat = state.to_act
        assert seat is not None
        knowledge = Knowledge(view(state, controller(state.options, seat)), state.options)
        move = decide_basic(knowledge, [] if state.phase == "exchange" else legal_moves(state))
        state, events = apply_move(state, move)
        if any(isinstance(e, HandScored) for e in events):
            return None, list(events)
    raise AssertionError("a hand that does not end")


def test_the_playouts_rest_of_the_hand_is_the_basic_bots_from_each_view() -> None:
    """On sampled deals of random auction and setup states, after every candidate of the search: the playout's
    rest of the auction and setup (with its kept readings, calls and discards, met again by the next candidate and
    the next deal) reaches the state and events the basic bot reaches from each seat's view."""
    compared = contracts = kept = 0
    rng = random.Random(31)
    for players in (2, 3, 4, 5, 6, "ghosts"):
        for options, state in random_states(players, games=24, seed=37, every=2):
            if state.phase not in ("auction", "exchange", "call") or state.to_act is None:
                continue
            know = Knowledge(view(state, mover(state)), options)
            cands = candidates(know, [] if state.phase == "exchange" else legal_moves(state))
            evidence = read_auction(know)
            for _ in range(3):
                deal = sample(know, rng, evidence)
                for move in cands:
                    after, events = apply_move(deal, move)
                    if after.hand_number != deal.hand_number or any(isinstance(e, HandScored) for e in events):
                        continue
                    before = len(_DISCARDS)
                    at, scored = _to_card_play(after)
                    assert (at, list(scored)) == reference_to_card_play(after), (players, options, move)
                    compared += 1
                    contracts += at is not None and at.contract is not None
                    # A discard made in this playout, found kept from another candidate's or deal's:
                    kept += at is not None and bool(at.discards) and not after.discards and len(_DISCARDS) == before
    assert compared > 1500 and contracts > 1000 and kept > 100, (compared, contracts, kept)
