"""Integrity of a state that came from outside (a snapshot): *what* is wrong, not a crash.

Like python-chess's ``Board.status()``, :func:`integrity_problems` describes a broken state: cards not accounted
for exactly once, a phase or turn that cannot be, sizes that do not add up.
"""

from __future__ import annotations

from collections import Counter
from functools import lru_cache

from engine.cards import JOKERS, SUITS
from engine.deal import HAND_SIZE, has_dead_hand, kitty_size, pack_for
from engine.model import GameState
from engine.options import RULES_VERSION, OptionsError, validate_options
from engine.rules import ALL_BIDS, MISERE_BIDS, ladder, sides


@lru_cache(maxsize=64)
def _sorted_pack(pack: tuple[str, ...]) -> list[str]:
    return sorted(pack)


def integrity_problems(state: GameState) -> list[str]:
    """Every problem found in ``state``; an empty list means the state is consistent.

    >>> from engine.game import new_game
    >>> from engine.options import Options
    >>> st, _ = new_game(Options(), seed=3)
    >>> integrity_problems(st)
    []
    """
    problems: list[str] = []
    opts = state.options
    if state.rules_version != RULES_VERSION:
        problems.append(f"rules_version {state.rules_version!r} is not {RULES_VERSION!r}")
    try:
        validate_options(opts)
    except OptionsError as exc:
        return [f"options: {exc}"]
    n = opts.players
    if len(state.hands) != n:
        return [f"{len(state.hands)} hands for {n} players"]
    for name, tup in (("viewed", state.viewed), ("passed", state.passed)):
        if len(tup) != n:
            problems.append(f"{name} has {len(tup)} entries for {n} players")
    if len(state.scores) != len(sides(opts)):
        problems.append(f"{len(state.scores)} scores for {len(sides(opts))} sides")
    if any(s % 10 for s in state.scores):
        problems.append("a score is not a multiple of 10")
    if not 0 <= state.dealer < n:
        problems.append(f"dealer {state.dealer} is not a seat")
    if state.seed < 0 or state.seed >= 2**64:
        problems.append("seed out of range")
    pack = pack_for(opts)
    sorted_pack = _sorted_pack(pack)
    for i, d in enumerate(state.deck_orders):
        if sorted(d) != sorted_pack:
            problems.append(f"deck_orders[{i}] is not a permutation of the pack")
    # Every card exactly once.
    located: list[str] = [c for h in state.hands for c in h]
    located += state.dead_hand
    if state.phase == "exchange":
        # The contractor holds the kitty's cards; ``kitty`` only records which they are.
        c = state.contract
        if c is not None and not set(state.kitty) <= set(state.hands[c.contractor]):
            problems.append("the kitty's cards are not in the contractor's hand during the exchange")
    else:
        located += state.kitty
    located += state.discards
    for t in state.tricks:
        located += t.cards
    if state.trick is not None:
        located += state.trick.cards
    if sorted(located) != sorted_pack:  # one comparison for the common case; details only when it fails
        seen = Counter(located)
        pack_set = set(pack)
        missing = sorted(pack_set - set(seen))
        extra = sorted(c for c in seen if c not in pack_set)
        doubled = sorted(c for c, k in seen.items() if k > 1)
        if missing:
            problems.append(f"cards not accounted for: {missing}")
        if extra:
            problems.append(f"cards not in the pack: {extra}")
        if doubled:
            problems.append(f"cards held twice: {doubled}")
    if has_dead_hand(opts) != bool(state.dead_hand) and state.phase != "game_over":
        problems.append("dead hand present or absent against the rules")
    problems += _phase_problems(state)
    return problems


def _phase_problems(state: GameState) -> list[str]:
    opts = state.options
    n = opts.players
    phase = state.phase
    out: list[str] = []
    if phase == "game_over":
        if state.to_act is not None or state.result is None:
            out.append("a finished game has a seat to act or no result")
        return out
    if state.to_act is None or not 0 <= state.to_act < n:
        return [f"phase {phase} needs a seat to act, has {state.to_act!r}"]
    if state.result is not None:
        out.append("a game in progress has a result")
    c = state.contract
    k = kitty_size(opts)
    if phase in ("auction", "redeal_answer"):
        if c is not None or state.tricks or state.trick is not None:
            out.append("an auction with a contract or tricks")
        if any(len(h) != HAND_SIZE for h in state.hands) or len(state.kitty) != k:
            out.append("hand or kitty sizes wrong for the auction")
        for call in state.calls:
            if call.bid is not None and call.bid not in ALL_BIDS:
                out.append(f"unknown bid {call.bid!r} in the auction")
        high = state.high
        if high is not None and (high.bid not in ladder(opts) or high not in state.calls):
            out.append("the high bid is not a call of this auction")
        if phase == "auction" and opts.pass_is_final == "always" and state.passed[state.to_act] and not state.raising:
            out.append("a seat that passed is to act")
        if phase == "redeal_answer" and state.redeal_proposer is None:
            out.append("a redeal answer with no proposal")
        return out
    if phase != "play" or c is not None:
        if c is None:
            return [f"phase {phase} without a contract"]
        if c.bid not in ladder(opts):
            out.append(f"contract bid {c.bid!r} is not allowed by the options")
        if not 0 <= c.contractor < n:
            out.append("contractor is not a seat")
        if phase in ("call", "exchange", "nominate") and state.to_act != c.contractor:
            out.append(f"the contractor must act during the {phase} phase")
    if phase == "exchange":
        if len(state.hands[c.contractor]) != HAND_SIZE + k or len(state.kitty) != k:  # type: ignore[union-attr]
            out.append("the contractor must hold the kitty during the exchange")
        return out
    if phase == "call":
        return out
    for joker, suit in state.nominations:
        if joker not in JOKERS or suit not in SUITS:
            out.append(f"bad joker nomination {joker}={suit}")
    if phase == "nominate":
        return out
    # play
    if len(state.tricks) >= 10:
        out.append("a hand in play with 10 completed tricks")
    if len(state.tricks_won) != n or sum(state.tricks_won) != len(state.tricks):
        out.append("tricks won do not add up to the completed tricks")
    active = state.active
    sitting = set(c.sitting_out) if c else set()
    if tuple(s for s in range(n) if s not in sitting) != active:
        out.append("active seats do not match the contract")
        return out
    if state.to_act not in active:
        out.append("the seat to act is not playing this hand")
        return out
    played = len(state.tricks)
    in_trick = state.trick.cards if state.trick else ()
    if state.trick is not None:
        if state.trick.leader not in active or len(in_trick) >= len(active):
            out.append("the trick in progress is malformed")
            return out
        expected = active[(active.index(state.trick.leader) + len(in_trick)) % len(active)]
        if expected != state.to_act:
            out.append(f"seat {state.to_act} is to act but seat {expected} is next in the trick")
    trick_seats: set[int] = set()
    if state.trick is not None:
        start = active.index(state.trick.leader)
        trick_seats = {active[(start + i) % len(active)] for i in range(len(in_trick))}
    for s in active:
        want = HAND_SIZE - played - (1 if s in trick_seats else 0)
        if len(state.hands[s]) != want:
            out.append(f"seat {s} holds {len(state.hands[s])} cards, expected {want}")
    for s in sitting:
        if len(state.hands[s]) != HAND_SIZE:
            out.append(f"sitting-out seat {s} must keep {HAND_SIZE} cards")
    if c is not None and c.bid in MISERE_BIDS and state.tricks_won[c.contractor]:
        out.append("a misère still in play although the contractor won a trick")
    return out
