"""The engine's leak suite: over random games of every player count and random option sets, everything a seat or
the public receives (views, events as redacted for it, legal-move lists, refusals) is checked against what the
rules let that viewer know, and against the hidden-card swap property.

What a viewer may know is derived here from the rules and the moves made, not from the view code:

- its own hand once it has looked (at once, unless blind misère is enabled; then by looking, by any bid but
  blind misère, or when the auction ends in a contract or a no-trump play-out);
- every card played, and by whom; a joker's suit once its nomination is announced (so that its holder);
- an open-misère contractor's hand once exposed;
- the kitty: the contractor once it takes it, everyone when it is shown (``show_kitty``);
- the discards: the contractor;
- ghost partners: every ghost's face-up cards, by everyone; a face-down card once the card lying on it is played
  (nobody, its own human included, before then);
- five players, called card: the partner once the called card is played; the holder knows it is the partner; the
  contractor knows it plays alone when the called card is among cards it has seen (its hand, the kitty it took,
  its discards). Everyone else learns the partner when the card is played, or from the hand's score.

The swap property: swapping two cards between places a viewer cannot see (other seats' hands, its own hand before
it looks, the dead hand, a kitty nobody has taken, discards it did not make, a ghost's face-down cards) changes
nothing that viewer receives,
byte for byte: its view (phase and turn included), its legal moves, the refusals of its moves; and, after the same
move is made in both states, the events it is sent, its next view and next legal moves (unless that move shows
the viewer one of the swapped places, e.g. it looks at its own hand).

Run: ``.venv/bin/python -m pytest tests/leaks/test_engine_leaks.py -q -s`` (``-s`` prints the counts).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import msgspec
import pytest

from engine import (
    ALL_CARDS,
    Bid,
    CallCard,
    Discard,
    Event,
    GameState,
    LookAtHand,
    Move,
    NominateJoker,
    Options,
    Pass,
    Play,
    apply_move,
    check_move,
    legal_moves,
    new_game,
    partners,
    redact_events,
    view,
)
from engine.model import CardCalled, CardsReceived, DealerCut, Discarded, JokerNominated, KittyTaken, LookedAtHand
from tests.engine.randomplay import junk_moves, random_ghost_options, random_options
from tests.support import move_lists

#: "ghosts" is the two-player ghost-partners game (``two_player_method=ghost_partners``).
PLAYER_COUNTS: tuple[int | str, ...] = (2, 3, 4, 5, 6, "ghosts")
GAMES_PER_COUNT = 16
#: Each game is cut off after this many deals (throw-ins included): hidden-information cases recur every hand.
MAX_DEALS = 4
#: The share of moves at which the swap property is tried, for every viewer.
SWAP_RATE = 0.25

_ENC = msgspec.json.Encoder(enc_hook=move_lists)
_AUCTION = ("auction", "redeal_answer")
_PRIVATE = (CardsReceived, KittyTaken, Discarded, LookedAtHand)
#: Fields that hold a bid or a card *name* rather than where a card is (a bid "7S" is not the seven of spades).
_NOT_LOCATIONS = frozenset({"bid", "called_card", "nominate", "suit"})

COUNTS: Counter[str] = Counter()


# ------------------------------------------------------------------------------------------------ knowledge


@dataclass
class Knowledge:
    """What each seat may know in one hand, from the rules (see the module docstring)."""

    hand_number: int
    dealt: tuple[frozenset[str], ...]
    kitty: frozenset[str]
    looked: list[bool]
    contractor: int | None = None
    kitty_taken: bool = False
    kitty_shown: bool = False
    discards: frozenset[str] = frozenset()
    played: set[str] = field(default_factory=set)
    exposed: frozenset[str] = frozenset()
    nominated: set[str] = field(default_factory=set)
    #: Ghost partners: the ghosts' cards face up so far (dealt face up, or turned up), seen by everyone.
    ghosts_up: set[str] = field(default_factory=set)

    @classmethod
    def deal(cls, state: GameState) -> Knowledge:
        blind = state.options.blind_misere_enabled
        up = {up for piles in state.ghost_piles for up, _ in piles}
        return cls(hand_number=state.hand_number, dealt=tuple(frozenset(h) for h in state.hands),
                   kitty=frozenset(state.kitty), looked=[not blind] * state.options.players, ghosts_up=up)

    def known(self, viewer: int | None) -> set[str]:
        out = self.played | self.exposed | self.nominated | self.ghosts_up
        if self.kitty_shown:
            out |= self.kitty
        if viewer is not None:
            if self.looked[viewer]:
                out |= self.dealt[viewer]
            if viewer == self.contractor:
                if self.kitty_taken:
                    out |= self.kitty
                out |= self.discards
        return set(out)

    def advance(self, before: GameState, move: Move, after: GameState) -> Knowledge:
        """The knowledge after ``move``: of the next hand if it dealt one."""
        if after.hand_number != before.hand_number:
            return Knowledge.deal(after)
        return self.within(before, move, after)

    def within(self, before: GameState, move: Move, after: GameState) -> Knowledge:
        """This hand's knowledge after ``move`` (what the move itself showed, even if it ended the hand)."""
        k = replace(self, looked=list(self.looked), played=set(self.played), nominated=set(self.nominated),
                    ghosts_up=set(self.ghosts_up))
        seat = move.seat
        if isinstance(move, LookAtHand) or (isinstance(move, Bid) and move.bid != "BLIND_MISERE"):
            k.looked[seat] = True
        if before.phase in _AUCTION and after.phase not in _AUCTION:
            k.looked = [True] * len(k.looked)  # the auction ended in a contract (or a no-trump play-out)
        c = after.contract
        if c is not None:
            k.contractor = c.contractor
        if after.phase == "exchange" and before.phase != "exchange":
            k.kitty_taken = True
            k.kitty_shown = before.options.show_kitty
        if isinstance(move, Discard):
            k.discards = frozenset(move.cards)
        if isinstance(move, Play):
            k.played.add(move.card)
            if before.ghost_piles:  # a ghost's card played: the card beneath it is turned up
                k.ghosts_up |= {down for up, down in before.ghost_piles[seat] if up == move.card}
        if isinstance(move, NominateJoker) and move.suit is not None:
            k.nominated.add(move.card)
        if c is not None and c.bid == "OPEN_MISERE" and after.phase == "play" and not k.exposed and (
                after.tricks or after.options.open_misere_expose == "before_opening_lead"):
            k.exposed = frozenset(after.hands[c.contractor])
        return k

    def partner_knowledge(self, state: GameState, viewer: int | None) -> tuple[bool, bool]:
        """(may know, must know) the five-player called-card partner."""
        c = state.contract
        assert c is not None and c.called_card is not None
        card = c.called_card
        if card in self.played:
            return True, True
        if viewer is not None and card in self.known(viewer):
            return True, True  # its holder, or a contractor who has seen the card (then it plays alone)
        deducible = self.kitty_shown and card in self.kitty  # everyone saw it go to the contractor
        return deducible, False


def card_tokens(obj: object) -> Iterator[str]:
    """Every card location named in ``obj`` (a struct, a list of them, …), skipping bids and card names."""
    if isinstance(obj, str):
        if obj in ALL_CARDS:
            yield obj
    elif isinstance(obj, CardCalled):
        return  # the name of the called card, announced to all
    elif isinstance(obj, JokerNominated | NominateJoker) and obj.suit is None:
        return  # declining names no card anyone holds
    elif isinstance(obj, CallCard | DealerCut):
        return  # a card named for the call, or the cards cut for the deal (a separate shuffle, seen by all)
    elif isinstance(obj, msgspec.Struct):
        for name in obj.__struct_fields__:
            if name not in _NOT_LOCATIONS:
                yield from card_tokens(getattr(obj, name))
    elif isinstance(obj, tuple | list):
        for x in obj:
            yield from card_tokens(x)
    elif isinstance(obj, dict):
        for x in obj.values():
            yield from card_tokens(x)


def viewers(state: GameState) -> list[int | None]:
    """The players (a ghost is no viewer: its human sees what everyone sees of it) and the public."""
    return [*range(state.options.players), None]


def mover(state: GameState) -> int | None:
    """The player who makes the move of the seat to act: a ghost's (seat 2 or 3) human opposite it."""
    to_act = state.to_act
    if to_act is not None and state.ghost_piles and to_act in (2, 3):
        return to_act - 2
    return to_act


def face_down(state: GameState) -> dict[int, list[str]]:
    """Each ghost's cards still face down: those under a card it still holds."""
    return {g: [down for up, down in piles if up in state.hands[g]] for g, piles in enumerate(state.ghost_piles)
            if piles}


# ------------------------------------------------------------------------------------------------ the checks


def check_state(state: GameState, k: Knowledge, where: str) -> None:
    """The view and the legal moves of every viewer against what it may know."""
    for v in viewers(state):
        known = k.known(v)
        sv = view(state, v)
        COUNTS["views"] += 1
        leaked = set(card_tokens(sv)) - known
        assert not leaked, f"{where}: view of {v} shows {sorted(leaked)}"
        if v is None:
            assert sv.hand is None
        else:
            assert sv.hand == (state.hands[v] if k.looked[v] else None), f"{where}: hand of {v}"
        assert sv.discards is None or v == k.contractor, f"{where}: discards shown to {v}"
        c = state.contract
        if c is not None and sv.contract is not None:
            truth = partners(state)
            cv = sv.contract
            if c.called_card is not None and not c.alone:
                may, must = k.partner_knowledge(state, v)
                if cv.partners_known:
                    assert may, f"{where}: {v} told the partners {cv.partners} before it may know"
                    assert cv.partners == truth
                else:
                    assert not must, f"{where}: {v} not told partners it knows"
                    assert cv.partners == ()
            else:
                assert cv.partners_known and cv.partners == truth
        # Legal moves: nobody but the seat to act (or the human of a ghost to act) has any; the actor's name only
        # cards it may know of.
        moves = legal_moves(state, v) if v is not None else []
        COUNTS["legal_move_lists"] += 1
        if v != mover(state):
            assert moves == [], f"{where}: seat {v} has moves out of turn"
        else:
            leaked = set(card_tokens(moves)) - known
            assert not leaked, f"{where}: legal moves of {v} name {sorted(leaked)}"


def check_events(events: list[Event], known_before: list[set[str]], known_after: list[set[str]],
                 state: GameState, where: str) -> None:
    for i, v in enumerate(viewers(state)):
        shown = redact_events(events, v)
        COUNTS["event_lists"] += 1
        COUNTS["events"] += len(shown)
        for e in shown:
            if isinstance(e, _PRIVATE) and e.cards is not None:
                assert e.seat == v, f"{where}: {v} sent {e}"
        leaked = set(card_tokens(shown)) - known_before[i] - known_after[i]
        assert not leaked, f"{where}: events to {v} show {sorted(leaked)}: {shown}"


# ------------------------------------------------------------------------------------------------ the swaps


def hidden_places(state: GameState, k: Knowledge, v: int | None, move: Move) -> list[tuple[str, list[str]]]:
    """Places ``v`` cannot see, with the cards in them it cannot place (not those ``move`` names)."""
    known = k.known(v)
    avoid = set(card_tokens(move)) | set(state.kitty if state.phase == "exchange" else ())
    out: list[tuple[str, list[str]]] = []
    for s, hand in enumerate(state.hands):
        if s != v or not k.looked[s]:
            out.append((f"hand{s}", [c for c in hand if c not in known and c not in avoid]))
    out.append(("dead", [c for c in state.dead_hand if c not in avoid]))
    for g, cards in face_down(state).items():
        out.append((f"face_down{g}", [c for c in cards if c not in known and c not in avoid]))
    if state.phase != "exchange":
        out.append(("kitty", [c for c in state.kitty if c not in known and c not in avoid]))
    out.append(("discards", [c for c in state.discards if c not in known and c not in avoid]))
    return [(name, cards) for name, cards in out if cards]


def swap(state: GameState, a: str, b: str) -> GameState:
    def sub(cards: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(b if c == a else a if c == b else c for c in cards)

    piles = tuple(tuple((up, *sub((down,))) for up, down in p) for p in state.ghost_piles)
    return msgspec.structs.replace(state, hands=tuple(sub(h) for h in state.hands), dead_hand=sub(state.dead_hand),
                                   kitty=sub(state.kitty), discards=sub(state.discards), ghost_piles=piles)


def received(state: GameState, v: int | None) -> bytes:
    return _ENC.encode([view(state, v), legal_moves(state, v) if v is not None else []])


def check_swaps(rng: random.Random, before: GameState, move: Move, after: GameState, events: list[Event],
                k: Knowledge, k_after: Knowledge, where: str) -> None:
    for v in viewers(before):
        places = hidden_places(before, k, v, move)
        if len(places) < 2:
            continue
        (pa, ca), (pb, cb) = rng.sample(places, 2)
        a, b = rng.choice(ca), rng.choice(cb)
        other = swap(before, a, b)
        COUNTS["swaps"] += 1
        if pa.startswith("face_down") or pb.startswith("face_down"):
            COUNTS["swaps_of_face_down_cards"] += 1
        assert received(other, v) == received(before, v), f"{where}: {v} sees the swap of {a} ({pa}) and {b} ({pb})"
        if v is not None:
            for junk in junk_moves(rng, before, 2):
                junk = msgspec.structs.replace(junk, seat=v)
                ra, rb = check_move(before, junk), check_move(other, junk)
                COUNTS["refusals"] += 1
                assert ra == rb, f"{where}: refusal of {junk} to {v} depends on hidden cards: {ra} / {rb}"
        if check_move(other, move) is not None:
            continue
        newly = k_after.known(v) - k.known(v) if k_after.hand_number == k.hand_number else set()
        if {a, b} & newly:
            continue  # the move shows v one of the swapped places: it may now tell them apart
        after2, events2 = apply_move(other, move)
        COUNTS["swaps_after_move"] += 1
        assert (after2.phase, after2.to_act) == (after.phase, after.to_act), f"{where}: phase or turn after {move}"
        assert _ENC.encode(redact_events(events2, v)) == _ENC.encode(redact_events(events, v)), \
            f"{where}: events to {v} after {move} depend on the swap of {a} ({pa}) and {b} ({pb})"
        assert received(after2, v) == received(after, v), \
            f"{where}: {v} after {move} sees the swap of {a} ({pa}) and {b} ({pb})"


# ------------------------------------------------------------------------------------------------ the games


def choose(rng: random.Random, state: GameState, moves: list[Move], pass_bias: float) -> Move:
    """A random legal move, biased so that blind misère, sans-kitty bids, looking and whole hands all happen."""
    if state.phase == "auction":
        blind = [m for m in moves if isinstance(m, Bid) and m.bid == "BLIND_MISERE"]
        if blind and rng.random() < 0.15:
            return blind[0]
        looks = [m for m in moves if isinstance(m, LookAtHand)]
        if looks and rng.random() < 0.3:
            return looks[0]
        if rng.random() < pass_bias:
            passes = [m for m in moves if isinstance(m, Pass)]
            if passes:
                return passes[0]
        bids = [m for m in moves if isinstance(m, Bid)]
        sans = [m for m in bids if m.sans_kitty]
        if sans and rng.random() < 0.3:
            return rng.choice(sans)
        nt = [m for m in bids if m.bid.endswith("NT") or m.bid.endswith("MISERE")]
        if nt and rng.random() < 0.3:
            return rng.choice(nt[:3])
        if bids and rng.random() < 0.7:
            return rng.choice(bids[:4])  # low bids, so that games last several hands
    return moves[rng.randrange(len(moves))]


def leak_options(rng: random.Random, players: int | str) -> Options:
    """Random options, with the options that hide things switched on more often than chance."""
    for _ in range(50):
        o = random_ghost_options(rng, 0.3) if players == "ghosts" else random_options(rng, players, 0.3)  # type: ignore[arg-type]
        forced: dict[str, object] = {}
        for name, p in (("blind_misere_enabled", 0.5), ("sans_kitty_enabled", 0.4), ("show_kitty", 0.2)):
            if rng.random() < p:
                forced[name] = True
        if forced.get("blind_misere_enabled"):
            forced.update(misere_enabled=True, six_player_misere=True)
        if rng.random() < 0.5:
            forced["misere_requires_seven"] = False
        try:
            from engine import resolve_options

            return resolve_options(o.players, None, {**msgspec.structs.asdict(o), **forced})
        except Exception:  # noqa: BLE001 - an option set that cannot be played: draw another
            continue
    raise AssertionError("no playable option set")


def run_game(players: int | str, index: int) -> None:
    rng = random.Random((7 if players == "ghosts" else players) * 100_003 + index)  # type: ignore[operator]
    opts = leak_options(rng, players)
    seed = rng.randrange(2**32)
    pass_bias = rng.choice([0.3, 0.5, 0.7])
    state, events = new_game(opts, seed=seed)
    k = Knowledge.deal(state)
    where = f"{players}p game {index}"
    check_events(events, [k.known(v) for v in viewers(state)], [k.known(v) for v in viewers(state)], state, where)
    check_state(state, k, where)
    deals = 1
    COUNTS["games"] += 1
    for step in range(3000):
        if state.to_act is None or deals > MAX_DEALS:
            break
        move = choose(rng, state, legal_moves(state), pass_bias)
        after, events = apply_move(state, move)
        k_after = k.advance(state, move, after)
        here = f"{where} step {step} ({state.phase} -> {after.phase}, {move})"
        k_moved = k.within(state, move, after)
        check_events(events, [k.known(v) for v in viewers(state)],
                     [k_moved.known(v) | k_after.known(v) for v in viewers(state)], state, here)
        check_state(after, k_after, here)
        COUNTS[f"phase:{after.phase}"] += 1
        c = after.contract
        if after.phase == "nominate" and c is not None:
            COUNTS["nominate_with_joker" if any(j in after.hands[c.contractor] for j in ("JK", "JKB"))
                   else "nominate_without_joker"] += 1
        if c is not None and c.called_card is not None and after.phase == "play" and c.sans_kitty:
            COUNTS["called_card_in_kitty" if c.called_card in after.kitty else "called_card_sans_kitty"] += 1
        if isinstance(move, Bid) and move.bid == "BLIND_MISERE":
            COUNTS["blind_misere_bids"] += 1
        COUNTS["ghost_cards_turned_up"] += len(k_after.ghosts_up - k.ghosts_up) if k_after.hand_number == \
            k.hand_number else 0
        if rng.random() < SWAP_RATE:
            check_swaps(rng, state, move, after, events, k, k_after, here)
        if after.hand_number != state.hand_number:
            deals += 1
        state, k = after, k_after
        COUNTS["moves"] += 1


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_nothing_leaks_in_random_games(players: int | str) -> None:
    before = Counter(COUNTS)
    for i in range(GAMES_PER_COUNT):
        run_game(players, i)
    got = COUNTS - before
    print(f"\n{players} players: " + ", ".join(f"{k}={v}" for k, v in sorted(got.items())))
    assert got["games"] == GAMES_PER_COUNT and got["swaps_after_move"] > 50
    assert got["phase:play"] > 100 and got["nominate_without_joker"] > 0
    if players == "ghosts":
        assert got["swaps_of_face_down_cards"] > 100 and got["ghost_cards_turned_up"] > 100


def test_every_hidden_case_was_exercised() -> None:
    """The random games above reached the cases the rules hide (run after them, in file order)."""
    if COUNTS["games"] < GAMES_PER_COUNT * len(PLAYER_COUNTS):
        pytest.skip("needs the whole file")
    for case in ("nominate_with_joker", "nominate_without_joker", "blind_misere_bids", "called_card_in_kitty",
                 "phase:call"):
        assert COUNTS[case] > 0, case
    total = sum(COUNTS[x] for x in ("views", "event_lists", "legal_move_lists", "swaps"))
    print(f"\nleak suite: {COUNTS['games']} games, {COUNTS['moves']} moves, {COUNTS['views']} views, "
          f"{COUNTS['event_lists']} event lists ({COUNTS['events']} events), {COUNTS['legal_move_lists']} legal-move "
          f"lists, {COUNTS['swaps']} swaps ({COUNTS['swaps_after_move']} followed by the move): {total} objects")
