"""Properties over thousands of seeded random games, across random option sets and every player count."""

from __future__ import annotations

import os
import random

import msgspec
import pytest

from engine import (
    GameState,
    IllegalMove,
    Options,
    apply_move,
    check_move,
    controller,
    integrity_problems,
    legal_moves,
    new_game,
    seat_count,
    view,
)
from engine.model import Discard
from tests.engine.randomplay import junk_moves, move_key, random_game, random_ghost_options, random_options

#: The quick loop (``pytest -m "not slow"``) leaves these out: about 1,900 random games.
pytestmark = pytest.mark.slow

#: "ghosts" is the two-player ghost-partners game (``two_player_method=ghost_partners``).
PLAYER_COUNTS: tuple[int | str, ...] = (2, 3, 4, 5, 6, "ghosts")
_STATE = msgspec.msgpack.Decoder(GameState)
#: Games per player count in the invariant run, each move checked against every seat, its legal list and random
#: junk. 160 keeps CI's run short; ``FIVE_HUNDRED_PROPERTY_GAMES=2000`` runs a deeper sweep (more seeds, same checks).
GAMES_PER_COUNT = int(os.environ.get("FIVE_HUNDRED_PROPERTY_GAMES", "160"))
GHOSTS = Options(players=2, two_player_method="ghost_partners")


def _games(players: int | str, count: int, base: int) -> list[tuple[int, Options, float]]:
    rng = random.Random(base * 7919 + (7 if players == "ghosts" else players))  # type: ignore[operator]
    out = []
    for i in range(count):
        if players == "ghosts":
            opts = GHOSTS if i % 4 == 0 else random_ghost_options(rng)
        else:
            opts = Options(players=players) if i % 4 == 0 else random_options(rng, players)  # type: ignore[arg-type]
        out.append((base + i, opts, rng.choice([0.0, 0.5, 0.8, 0.9])))
    return out


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_random_games_keep_every_invariant(players: int | str) -> None:
    hands_played = 0
    for seed, opts, bias in _games(players, GAMES_PER_COUNT, 1000):
        rng = random.Random(seed)
        state, _ = new_game(opts, seed=seed)
        steps = 0
        for before, move in random_game(rng, state, pass_bias=bias):
            assert integrity_problems(before) == [], (seed, before.phase)
            # Exactly one seat to act while the game runs.
            assert before.to_act is not None and before.phase != "game_over"
            legal = legal_moves(before)
            assert legal, f"no legal move in phase {before.phase}"
            # Nobody else may act (but a ghost's human, for it).
            acting = (before.to_act, controller(opts, before.to_act))
            others = [s for s in range(seat_count(opts)) if s not in acting]
            assert all(legal_moves(before, s) == [] for s in others)
            assert legal_moves(before, controller(opts, before.to_act)) == legal
            # check and the legal list agree on every legal move (a sample of the discard combinations).
            sample = legal if not isinstance(legal[0], Discard) else rng.sample(legal, min(10, len(legal)))
            for m in sample:
                assert check_move(before, m) is None, (m, check_move(before, m))
            # ... and on random junk, which is refused with a reason and changes nothing.
            keys = {move_key(m) for m in legal} if not isinstance(legal[0], Discard) else None
            encoded = msgspec.msgpack.encode(before)
            for junk in junk_moves(rng, before, 6):
                rejection = check_move(before, junk)
                if keys is not None:
                    assert (rejection is None) == (move_key(junk) in keys), (junk, rejection)
                if rejection is not None:
                    assert rejection.reason and rejection.detail
                    with pytest.raises(IllegalMove):
                        apply_move(before, junk)
            assert msgspec.msgpack.encode(before) == encoded
            after, events = apply_move(before, move)
            assert events
            assert all(s % 10 == 0 for s in after.scores)
            # Round trip through msgspec encoding is exact.
            assert _STATE.decode(msgspec.msgpack.encode(after)) == after
            hands_played += sum(1 for e in events if type(e).__name__ == "HandScored")
            steps += 1
        final = before if steps else state
        del final
    assert hands_played > GAMES_PER_COUNT  # the games really played hands, not only throw-ins


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_games_end_and_replay_identically(players: int | str) -> None:
    for seed, opts, bias in _games(players, 60, 5000):
        moves = []
        state, _ = new_game(opts, seed=seed)
        for before, move in random_game(random.Random(seed), state, pass_bias=bias):
            moves.append(move)
            state = before
        state, _ = apply_move(state, moves[-1])
        if opts.out_backwards_only_if_opponent_nonnegative and state.to_act is not None:
            continue  # may legitimately run on (see random_game)
        assert state.phase == "game_over" and state.to_act is None and state.result is not None
        replay, _ = new_game(opts, seed=seed)
        for m in moves:  # noqa: B007
            replay, _ = apply_move(replay, m)
        assert replay == state
        assert msgspec.msgpack.encode(replay) == msgspec.msgpack.encode(state)


def _hidden_hands(state: GameState, viewer: int) -> list[int]:
    """Seats whose hands ``viewer`` cannot see (-1 stands for the dead hand)."""
    c = state.contract
    exposed = set()
    if c is not None and c.bid == "OPEN_MISERE" and state.phase == "play" and (
            state.tricks or state.options.open_misere_expose == "before_opening_lead"):
        exposed.add(c.contractor)
    out = [s for s in range(state.options.players) if s != viewer and s not in exposed]
    if state.dead_hand:
        out.append(-1)
    # Ghost partners: a ghost's face-down cards (-10 - ghost); its face-up cards are seen by everyone.
    out += [-10 - g for g, piles in enumerate(state.ghost_piles) if any(u in state.hands[g] for u, _ in piles)]
    return out


def _swap(state: GameState, rng: random.Random, a: int, b: int) -> GameState:
    hands = [list(h) for h in state.hands]
    dead = list(state.dead_hand)
    down = [[d for u, d in piles if u in state.hands[g]] for g, piles in enumerate(state.ghost_piles)]

    def pool(x: int) -> list[str]:
        return dead if x == -1 else down[-x - 10] if x <= -10 else hands[x]

    kitty = set(state.kitty) if state.phase == "exchange" else set()
    pa = [c for c in pool(a) if c not in kitty]
    pb = [c for c in pool(b) if c not in kitty]
    if not pa or not pb:
        return state
    ca, cb = rng.choice(pa), rng.choice(pb)
    la, lb = pool(a), pool(b)
    la[la.index(ca)] = cb
    lb[lb.index(cb)] = ca
    piles = tuple(tuple((u, {ca: cb, cb: ca}.get(d, d)) for u, d in p) for p in state.ghost_piles)
    return msgspec.structs.replace(state, hands=tuple(tuple(h) for h in hands), dead_hand=tuple(dead),
                                   ghost_piles=piles)


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_views_do_not_change_when_hidden_cards_are_swapped(players: int | str) -> None:
    checked = 0
    for seed, opts, bias in _games(players, 80, 9000):
        rng = random.Random(seed)
        state, _ = new_game(opts, seed=seed)
        for before, _move in random_game(rng, state, pass_bias=bias):
            if rng.random() > 0.3:
                continue
            for viewer in range(opts.players):
                hidden = _hidden_hands(before, viewer)
                if len(hidden) < 2:
                    continue
                a, b = rng.sample(hidden, 2)
                swapped = _swap(before, rng, a, b)
                assert msgspec.json.encode(view(swapped, viewer)) == msgspec.json.encode(view(before, viewer))
                assert msgspec.json.encode(view(swapped, None)) == msgspec.json.encode(view(before, None))
                checked += 1
    assert checked > 100


def test_five_player_partner_stays_hidden_until_the_called_card_is_played() -> None:
    seen_hidden = 0
    for seed, opts, bias in _games(5, 150, 13000):
        if opts.five_player_partner_method != "called_card":
            continue
        state, _ = new_game(opts, seed=seed)
        for before, _move in random_game(random.Random(seed), state, pass_bias=bias):
            c = before.contract
            if c is None or c.called_card is None or before.phase != "play":
                continue
            played = any(c.called_card in t.cards for t in (*before.tricks, *([before.trick] if before.trick else [])))
            holder = next((s for s in range(5) if c.called_card in before.hands[s]), None)
            for viewer in range(5):
                cv = view(before, viewer).contract
                assert cv is not None
                if not played and viewer not in (holder, c.contractor):
                    assert cv.partners == () and not cv.partners_known
                    seen_hidden += 1
                if viewer == holder and holder != c.contractor:
                    assert cv.partners == (holder,)
            public = view(before, None).contract
            assert public is not None
            if not played:
                assert public.partners == () and not public.partners_known
    assert seen_hidden > 50
