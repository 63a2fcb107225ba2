"""RULES.md section 3: every option, on and off, where the T76–T88 scenarios do not already cover it.

Each test names the option; the default behaviour is asserted beside the variant so that a test cannot pass
just because the option is ignored."""

from __future__ import annotations

import pytest

from engine import (
    BLACK_JOKER,
    AnswerRedeal,
    CallCard,
    ChoosePartners,
    Discard,
    NominateJoker,
    Options,
    OptionsError,
    ProposeRedeal,
    bid_value,
    check_move,
    effective_suit,
    judge_game,
    legal_moves,
    new_game,
    pack_for,
    resolve_options,
    view,
)
from engine.model import (
    AuctionReopened,
    AuctionWon,
    DealerCut,
    GameOver,
    GameResult,
    HandExposed,
    KittyShown,
    NoTrumpPlayOut,
    ThrownIn,
    TrickWon,
)
from engine.rules import hand_strain
from tests.engine.helpers import (
    EW,
    NS,
    E,
    N,
    S,
    W,
    bid_reason,
    calls,
    exchange,
    fresh,
    legal_cards,
    misere_hands,
    move,
    of_type,
    opts,
    play,
    play_contract,
    play_out,
    play_reason,
    scored,
    setup,
    start,
)

# ------------------------------------------------------------------------------------------------ 3.1 auction


def test_bidding_style_australian_gives_more_rounds():
    state, _ = calls(fresh(opts()), "6S", "7H", "P", "P")
    assert state.phase == "auction" and state.to_act == N  # N may bid again
    state, events = calls(fresh(opts(bidding_style="american_single_round")), "P", "6S", "P", "P")
    assert of_type(events, AuctionWon)[0].contractor == E and state.phase == "exchange"
    _, events = calls(fresh(opts(bidding_style="american_single_round")), "P", "P", "P", "P")
    assert of_type(events, ThrownIn)[0].reason == "all_passed"


def test_pass_is_final_false_lets_a_passed_player_bid():
    o = opts(pass_is_final="never")
    state, _ = calls(fresh(o), "P", "6S", "P", "P")
    assert state.phase == "auction" and state.to_act == N
    assert bid_reason(state, "7S") is None
    state, events = calls(state, "7S", "P", "P", "P")
    won = of_type(events, AuctionWon)[0]
    assert won.contractor == N and won.bid == "7S"
    # the default: N passed, so after W's pass the auction is over
    state, events = calls(fresh(opts()), "P", "6S", "P", "P")
    assert of_type(events, AuctionWon)[0].contractor == E
    _, events = calls(fresh(o), "P", "P", "P", "P")
    assert of_type(events, ThrownIn)


def test_pass_is_final_reopen_on_suit_change():
    o = opts(pass_is_final="reopen_on_suit_change")
    state, events = calls(fresh(o), "6S", "P", "6H", "P", "7H")  # N changes strain ♠ → ♥
    assert of_type(events, AuctionReopened)[0].seat == N
    assert state.to_act == E and bid_reason(state, "7NT") is None
    state, events = calls(fresh(o), "6S", "P", "6H", "P", "7S")  # same strain: no reopening
    assert not of_type(events, AuctionReopened) and state.to_act == S
    state, _ = calls(fresh(opts()), "6S", "P", "6H", "P", "7H")
    assert state.to_act == S  # default: E stays out


def test_raise_strain_change_reopens_false():
    o = opts(final_bidder_may_raise=True, raise_strain_change_reopens=False)
    state, _ = calls(fresh(o), "7S", "P", "P", "P")
    state, events = calls(state, "7NT")
    assert not of_type(events, AuctionReopened)
    assert state.phase == "exchange" and state.contract.bid == "7NT"  # type: ignore[union-attr]
    assert bid_reason(calls(fresh(o), "7S", "P", "P", "P")[0], "7S") == "BID_TOO_LOW"


def test_open_misere_enabled_false():
    o = opts(open_misere_enabled=False)
    state = fresh(o)
    assert bid_reason(state, "OPEN_MISERE") == "OPEN_MISERE_DISABLED"
    state, _ = calls(state, "7S")
    assert bid_reason(state, "MISERE") is None
    assert bid_reason(fresh(opts()), "OPEN_MISERE") is None


def test_open_misere_rank_highest():
    o = opts(open_misere_rank="highest")
    state, events = calls(fresh(o), "10NT")
    assert state.phase == "auction" and not of_type(events, AuctionWon)  # 10NT can still be overcalled
    assert bid_reason(state, "OPEN_MISERE") is None
    state, events = calls(state, "OPEN_MISERE")  # nothing outranks it: the auction ends at once
    assert of_type(events, AuctionWon)[0].bid == "OPEN_MISERE"
    state, _ = calls(fresh(opts()), "10H")
    assert bid_reason(state, "OPEN_MISERE") == "BID_TOO_LOW"
    state, _ = calls(fresh(o), "10H")
    assert bid_reason(state, "OPEN_MISERE") is None


def test_open_misere_requires_eight():
    o = opts(open_misere_requires_eight=True)
    assert bid_reason(fresh(o), "OPEN_MISERE") == "OPEN_MISERE_NEEDS_EIGHT_BID"
    state, _ = calls(fresh(o), "7NT")
    assert bid_reason(state, "OPEN_MISERE") == "OPEN_MISERE_NEEDS_EIGHT_BID"
    state, _ = calls(fresh(o), "8S")
    assert bid_reason(state, "OPEN_MISERE") is None
    state, _ = calls(fresh(opts()), "7NT")
    assert bid_reason(state, "OPEN_MISERE") is None


def test_blind_misere_disabled_by_default():
    state = fresh(opts())
    assert all(state.viewed) and view(state, N).hand == state.hands[N]
    assert bid_reason(state, "BLIND_MISERE") == "BLIND_MISERE_DISABLED"


def test_blind_misere_contract_partner_out_exchange_and_closed_play():
    o = opts(blind_misere_enabled=True)
    hands, kitty = misere_hands(N)
    state = start(o, hands, kitty=kitty)
    state, events = calls(state, "BLIND_MISERE", "P", "P", "P")
    won = of_type(events, AuctionWon)[0]
    assert won.bid == "BLIND_MISERE" and won.sitting_out == (S,)
    assert state.phase == "exchange" and len(state.hands[N]) == 13 and state.viewed[N]
    state, _ = exchange(state)
    state, events = play_out(state, [{E, W}] * 10)
    assert not of_type(events, HandExposed)  # played closed
    hs = scored(events)
    assert hs.deltas == (500, 0) and all(len(t.cards) == 3 for t in of_type(events, TrickWon))


def test_sans_kitty():
    o = opts(sans_kitty_enabled=True)
    state = fresh(o)
    assert bid_reason(state, "6S", sans_kitty=True) is None
    assert bid_reason(state, "OPEN_MISERE", sans_kitty=True) == "SANS_KITTY_NOT_FOR_MISERE"
    st, _ = calls(state, "6S")
    assert bid_reason(st, "6S", sans_kitty=True) == "BID_TOO_LOW"  # same rung as the plain bid
    st, _ = calls(state, "6S/SK")
    assert bid_reason(st, "6S") == "BID_TOO_LOW"
    kitty = state.kitty
    st, events = calls(state, "7S/SK", "P", "P", "P")
    won = of_type(events, AuctionWon)[0]
    assert won.sans_kitty and won.bid == "7S"
    assert st.phase == "play" and st.to_act == N  # no exchange
    assert st.kitty == kitty and len(st.hands[N]) == 10
    assert view(st, N).contract.value == bid_value(o, "7S") == 140  # type: ignore[union-attr]
    assert bid_reason(fresh(opts()), "6S", sans_kitty=True) == "SANS_KITTY_DISABLED"


def test_inkle_mode_signal_only():
    o = opts(inkle_mode="signal_only")
    state, _ = calls(fresh(o), "6S", "6H")  # the first two calls may inkle
    assert bid_reason(state, "6NT") == "INKLE_TOO_LATE"
    assert bid_reason(state, "7S") is None
    state, events = calls(fresh(o), "6S", "P", "P", "P")  # a 6-level contract is thrown in
    thrown = of_type(events, ThrownIn)
    assert thrown and thrown[0].reason == "inkle" and thrown[0].next_dealer == W
    assert state.dealer == W and state.hand_number == 1 and state.phase == "auction"
    state, _ = calls(fresh(opts()), "6S", "6H")
    assert bid_reason(state, "6NT") is None


def test_all_pass_redeal_same_dealer():
    state, events = calls(fresh(opts(all_pass="redeal_same_dealer")), "P", "P", "P", "P")
    assert of_type(events, ThrownIn)[0].next_dealer == W
    assert state.dealer == W and state.hand_number == 1 and state.to_act == N


NO_HONOURS = ["10S", "9S", "8S", "7S", "6S", "10C", "9C", "8C", "7C", "6C"]


@pytest.mark.parametrize("accept", [True, False])
def test_no_ace_no_face(accept: bool):
    o = opts(no_ace_no_face=True)
    state = start(o, {N: NO_HONOURS, E: ["AS"]})
    assert ProposeRedeal(seat=N) in legal_moves(state)
    state, _ = move(state, ProposeRedeal(seat=N))
    assert state.phase == "redeal_answer" and state.to_act == S  # the partner answers
    state, events = move(state, AnswerRedeal(seat=S, accept=accept))
    if accept:
        assert of_type(events, ThrownIn)[0].reason == "no_ace_no_face"
        assert state.dealer == W and state.hand_number == 1
    else:
        assert state.phase == "auction" and state.to_act == N and state.hand_number == 0
        state, _ = calls(state, "7S", "P")
        assert state.to_act == S
        assert bid_reason(state, "MISERE") == "MISERE_BARRED"
        state, _ = calls(state, "P", "P")
        assert state.phase == "exchange"  # N's 7S stands
    # E holds an ace: no proposal; and with the option off nobody may propose
    off = start(opts(), {N: NO_HONOURS})
    assert check_move(off, ProposeRedeal(seat=N)).reason == "REDEAL_NOT_ALLOWED"  # type: ignore[union-attr]


# ------------------------------------------------------------------------------------------------ 3.2 deck and deal


def test_deck_4p_45_and_46():
    p45 = pack_for(opts(deck_4p="45"))
    assert len(p45) == 45 and {"4S", "4C"} <= set(p45) and BLACK_JOKER not in p45
    state = fresh(opts(deck_4p="45"))
    assert len(state.kitty) == 5 and all(len(h) == 10 for h in state.hands)
    state, _ = calls(state, "6S", "P", "P", "P")
    assert len(state.hands[N]) == 15
    three = state.hands[N][:3]
    assert check_move(state, Discard(seat=N, cards=three)).reason == "WRONG_DISCARD_COUNT"  # type: ignore
    state, _ = move(state, Discard(seat=N, cards=state.hands[N][:5]))
    assert len(state.hands[N]) == 10
    p46 = pack_for(opts(deck_4p="46"))
    assert len(p46) == 46 and BLACK_JOKER in p46 and "JK" in p46
    assert len(fresh(opts(deck_4p="46")).kitty) == 6


def test_second_joker_order_black_joker_highest():
    o = opts(deck_4p="46")
    table = hand_strain(o, "6H", ())
    trumps = table.order(c for c in pack_for(o) if effective_suit(c, table) == "H")
    assert trumps[:5] == [BLACK_JOKER, "JK", "JH", "JD", "AH"]
    state = setup(o, {N: ["JK"], E: [BLACK_JOKER]}, "6H", N, kitty=["4S", "4C", "5S", "5C", "6S", "6C"])
    state, events = play(state, "JK", BLACK_JOKER, None, None)
    assert of_type(events, TrickWon)[0].seat == E


def test_fours_removed_4S_4D():
    o = opts(fours_removed="4S_4D")
    pack = pack_for(o)
    assert len(pack) == 43 and {"4C", "4H"} <= set(pack) and not {"4S", "4D"} & set(pack)
    for trump, low in (("D", "4H"), ("S", "4C"), ("H", "4H"), ("C", "4C")):
        table = hand_strain(o, f"6{trump}", ())
        trumps = table.order(c for c in pack if effective_suit(c, table) == trump)
        assert len(trumps) == 13 and trumps[-1] == low, (trump, trumps)
    # in play: with ♦ trumps the 4♥ must follow a trump lead and is the lowest trump
    state = setup(o, {N: ["5D"], E: ["4H", "AH"]}, "6D", N, voids={E: "D"})
    state, _ = play(state, "5D")
    assert legal_cards(state) == {"4H"}
    default = hand_strain(opts(), "6D", ())
    assert effective_suit("4H", default) == "H"


def _cut_value(card: str) -> int:
    if card == "JK":
        return 0
    return {"A": 1, "J": 11, "Q": 12, "K": 13}.get(card[:-1]) or int(card[:-1])


def test_first_dealer_cut_low():
    o = opts(first_dealer="cut_low")
    tie_seen = False
    for seed in range(40):
        state, events = new_game(o, seed=seed)
        cut = of_type(events, DealerCut)
        assert len(cut) == 1 and cut[0].dealer == state.dealer
        draws = cut[0].draws
        tie_seen |= len(draws) > 4
        last_round: list[tuple[int, str]] = []
        contenders = list(range(4))
        rest = [(d.seat, d.card) for d in draws]  # named objects on the wire (seat, card)
        while rest:  # replay the rounds: every round is one draw per remaining contender
            last_round, rest = rest[:len(contenders)], rest[len(contenders):]
            low = min(_cut_value(c) for _, c in last_round)
            contenders = [s for s, c in last_round if _cut_value(c) == low]
        assert contenders == [state.dealer]
        assert state.to_act == (state.dealer + 1) % 4
    assert tie_seen  # some seed made tied cutters draw again
    _, events = new_game(o, seed=0, first_dealer=2)  # an explicit first dealer wins
    assert not of_type(events, DealerCut)
    _, events = new_game(opts(), seed=0)
    assert not of_type(events, DealerCut)


def test_deal_pattern():
    o = opts(deal_pattern="3-3-4-0-3-0")
    deck = pack_for(o)
    state, _ = new_game(o, seed=0, deck_orders=[deck], first_dealer=W)
    assert state.kitty == (deck[12], deck[13], deck[14])
    assert set(state.hands[N]) == {deck[i] for i in (0, 1, 2, 15, 16, 17, 18, 31, 32, 33)}
    with pytest.raises(OptionsError):
        resolve_options(4, None, {"deal_pattern": "3-1-4-1-4-1"})


def test_show_kitty():
    o = opts(show_kitty=True)
    state = fresh(o)
    kitty = state.kitty
    state, events = calls(state, "6S", "P", "P", "P")
    shown = of_type(events, KittyShown)
    assert shown and shown[0].cards == kitty
    for seat in (E, S, W, None):
        assert sorted(view(state, seat).kitty) == sorted(kitty)  # type: ignore[arg-type]
    state, events = calls(fresh(opts()), "6S", "P", "P", "P")
    assert not of_type(events, KittyShown) and view(state, E).kitty is None


# ------------------------------------------------------------------------------------------------ 3.3 play


def test_first_lead_eldest_in_a_suit_contract():
    hands = {S: ["AS"]}
    st = setup(opts(first_lead="eldest"), hands, "6S", S)
    assert st.to_act == N
    st = setup(opts(), hands, "6S", S)
    assert st.to_act == S


def test_joker_prenomination_false():
    o = opts(joker_prenomination=False)
    state = start(o, {N: ["JK"]})
    state, _ = calls(state, "7NT", "P", "P", "P")
    state, events = move(state, Discard(seat=N, cards=state.kitty))
    assert state.phase == "play" and state.to_act == N
    assert check_move(state, NominateJoker(seat=N, suit="H")).reason == "WRONG_PHASE"  # type: ignore
    assert {m.nominate for m in legal_moves(state) if m.card == "JK"} == {"S", "C", "D", "H"}  # type: ignore
    state = start(opts(), {N: ["JK"]})
    state, _ = calls(state, "7NT", "P", "P", "P")
    state, _ = move(state, Discard(seat=N, cards=state.kitty))
    assert state.phase == "nominate"


def test_joker_lead_restriction_any_suit():
    hands = {N: ["AS", "4D"], E: ["JK", "AD", "5S"], S: ["6S", "6D"]}
    for o, ok in ((opts(joker_lead_restriction="any_suit"), True), (opts(), False)):
        state = setup(o, hands, "7NT", N)
        state, _ = play(state, "AS", "5S", "6S", None, "4D", "AD", "6D", None)
        assert state.to_act == E
        assert (play_reason(state, "JK", "S") is None) == ok
        assert play_reason(state, "JK", "H") is None


def test_joker_forced_in_misere_false():
    low_n = ["4H", "5H", "6H", "4D", "5D", "6D", "5S", "6S", "5C", "6C"]
    misere = ["7S", "7C", "P", "P", "MISERE", "P"]
    for o, forced in ((opts(joker_forced_in_misere=False), False), (opts(), True)):
        state = setup(o, {N: low_n, E: ["JK"]}, "MISERE", N, call_seq=misere, voids={E: "D"})
        state, _ = play(state, "6D")
        assert (legal_cards(state) == {"JK"}) == forced
        if not forced:
            assert legal_cards(state) == set(state.hands[E])


def test_joker_follow_first_round():
    o = opts(joker_follow_first_round=True)
    hands = {N: ["7C", "6C"], E: ["8C", "9C", "JK"], S: ["10C", "QC"], W: ["5C", "KC"]}
    no_clubs = {N: "C", E: "C", S: "C", W: "C"}  # A♣ and J♣ go to the kitty
    state = setup(o, hands, "7NT", N, voids=no_clubs)
    state, _ = play(state, "7C")
    assert legal_cards(state) == {"8C", "9C", "JK"}  # first club lead: the joker may be played
    state, events = play(state, "8C", "10C", "KC")
    assert of_type(events, TrickWon)[0].seat == W
    state, _ = play(state, "5C", "6C")  # W leads clubs again
    assert "JK" not in legal_cards(state)
    assert play_reason(state, "JK") == "JOKER_ONLY_WHEN_VOID"
    # on a first lead the joker, once played, wins
    state = setup(o, hands, "7NT", N, voids=no_clubs)
    state, events = play(state, "7C", "JK", "10C", "KC")
    assert of_type(events, TrickWon)[0].seat == E
    state = setup(opts(), hands, "7NT", N, voids=no_clubs)
    state, _ = play(state, "7C")
    assert play_reason(state, "JK") == "JOKER_ONLY_WHEN_VOID"


def test_joker_low_in_misere():
    o = opts(joker_low_in_misere=True)
    misere = ["7S", "7C", "P", "P", "MISERE", "P"]
    # a defender's joker is not forced and, discarded, does not win
    low_n = ["4H", "5H", "6H", "4D", "5D", "6D", "5S", "6S", "5C", "6C"]
    state = setup(o, {N: low_n, E: ["JK"], W: ["AD"]}, "MISERE", N, call_seq=misere, voids={E: "D"})
    state, _ = play(state, "6D")
    assert legal_cards(state) == set(state.hands[E])
    state, events = play(state, "JK", "AD")
    assert of_type(events, TrickWon)[0].seat == W
    # the contractor holding it is not asked to nominate; led, it is the lowest card of the nominated suit
    north = ["JK", "4H", "5H", "6H", "4D", "5D", "6D", "5S", "6S", "7S"]
    state = start(o, {N: north, E: ["8H"], W: ["9H"]}, voids={E: "C", W: "C"})
    state, _ = calls(state, *misere)
    state, _ = move(state, Discard(seat=N, cards=state.kitty))
    assert state.phase == "play" and state.nominations == ()
    st, events = play(state, ("JK", "H"), "8H", "9H")
    assert of_type(events, TrickWon)[0].seat == W  # followed: the joker is lowest
    st, events = play(state, ("JK", "C"), None, None)
    assert of_type(events, TrickWon)[0].seat == N  # nobody follows clubs: it wins, the misère fails
    assert scored(events).deltas == (-250, 0)


def test_open_misere_expose_before_opening_lead():
    hands, kitty = misere_hands(N)
    o = opts(open_misere_expose="before_opening_lead")
    state = start(o, hands, kitty=kitty)
    state, _ = calls(state, "OPEN_MISERE", "P", "P", "P")
    state, events = exchange(state)
    exposed = of_type(events, HandExposed)
    assert exposed and exposed[0].seat == N and len(exposed[0].cards) == 10
    assert state.tricks == () and view(state, E).exposed == {str(N): state.hands[N]}
    state, events = play(state, "4H", "AH", "KH")
    assert not of_type(events, HandExposed)  # not exposed a second time
    default = start(opts(), hands, kitty=kitty)
    default, _ = calls(default, "OPEN_MISERE", "P", "P", "P")
    default, events = exchange(default)
    assert not of_type(events, HandExposed) and view(default, E).exposed == {}


# ------------------------------------------------------------------------------------------------ 3.4 scoring


def test_score_table_perfect():
    o = opts(score_table="perfect")
    assert bid_value(o, "6S") == 20 and bid_value(o, "10NT") == 500 and bid_value(o, "8H") == 280
    assert bid_value(o, "MISERE") == 250 and bid_value(o, "OPEN_MISERE") == 500
    _, events = play_contract(o, "6S", N, 6)
    assert scored(events).deltas == (20, 40)
    _, events = play_contract(opts(), "6S", N, 6)
    assert scored(events).deltas == (40, 40)


def test_slam_rule_none():
    _, events = play_contract(opts(slam_rule="none"), "6S", N, 10)
    assert scored(events).deltas == (40, 0)


@pytest.mark.parametrize(("t", "deltas"), [(6, (40, 0)), (5, (-40, 0))])
def test_defender_trick_points_never(t: int, deltas: tuple[int, int]):
    _, events = play_contract(opts(defender_trick_points="never"), "6S", N, t)
    assert scored(events).deltas == deltas


@pytest.mark.parametrize(("before", "after"), [(460, 480), (480, 480), (300, 340)])
def test_defender_trick_cap_480(before: int, after: int):
    _, events = play_contract(opts(defender_trick_cap="480"), "6S", N, 6, scores=(0, before))
    assert scored(events).scores[EW] == after


def test_defender_trick_cap_default_none():
    _, events = play_contract(opts(), "6S", N, 6, scores=(0, 470))
    assert scored(events).scores[EW] == 510


@pytest.mark.parametrize(("option", "before", "gain"), [("400", 410, 0), ("400", 400, 40), ("none", 410, 40)])
def test_defender_points_cutoff(option: str, before: int, gain: int):
    o = opts(defender_points_cutoff=option)
    _, events = play_contract(o, "6S", N, 6, scores=(0, before))
    assert scored(events).deltas == (40, gain)


def test_misere_values_beagle():
    o = opts(misere_values="beagle", misere_requires_seven=False)
    assert bid_value(o, "MISERE") == 130 and bid_value(o, "OPEN_MISERE") == 230
    state, _ = calls(fresh(o), "6NT")
    assert bid_reason(state, "MISERE") is None
    state, _ = calls(fresh(o), "7S")
    assert bid_reason(state, "MISERE") == "BID_TOO_LOW"  # beaten by any 7 bid
    assert bid_reason(state, "OPEN_MISERE") is None
    state, _ = calls(fresh(o), "7NT")
    assert bid_reason(state, "OPEN_MISERE") is None
    state, _ = calls(fresh(o), "MISERE")
    assert bid_reason(state, "7S") is None and bid_reason(state, "6NT") == "BID_TOO_LOW"
    state, _ = calls(fresh(o), "8S")
    assert bid_reason(state, "OPEN_MISERE") == "BID_TOO_LOW"  # beaten by any 8 bid
    hands, kitty = misere_hands(N)
    state = start(o, hands, kitty=kitty)
    state, _ = calls(state, "MISERE", "P", "P", "P")
    state, _ = exchange(state)
    state, events = play_out(state, [{E, W}] * 10)
    assert scored(events).deltas == (130, 0)


# ------------------------------------------------------------------------------------------------ 3.5 game end


def test_target_and_lose_at():
    o = opts(target=300, lose_at=-200)
    state, events = play_contract(o, "6H", N, 6, scores=(200, 0))
    g = of_type(events, GameOver)
    assert state.scores == (300, 40) and g and g[0].winners == (NS,)
    state, events = play_contract(o, "6H", N, 5, scores=(-100, 0))
    g = of_type(events, GameOver)
    assert state.scores == (-200, 50) and g and g[0].losers == (NS,)
    _, events = play_contract(opts(), "6H", N, 6, scores=(200, 0))
    assert not of_type(events, GameOver)


@pytest.mark.parametrize(("ns_before", "ew_before", "made", "winner", "why"), [
    (400, 580, True, NS, "contract"),  # the contractor wins although EW have more points
    (660, 0, False, NS, "points"),     # failed (660 - 140 = 520), still over the target
    (100, 480, True, EW, "points"),    # EW reach 510 by defending
])
def test_win_requires_contract_false(ns_before: int, ew_before: int, made: bool, winner: int, why: str):
    o = opts(win_requires_contract=False)
    state, events = play_contract(o, "7S", N, 7 if made else 6, scores=(ns_before, ew_before))
    g = of_type(events, GameOver)
    assert len(g) == 1 and g[0].winners == (winner,) and g[0].reason == why, (state.scores, g)
    _, events = play_contract(opts(), "7S", N, 7 if made else 6, scores=(ns_before, ew_before))
    assert bool(of_type(events, GameOver)) == (made and ns_before + 140 >= 500)


@pytest.mark.parametrize(("ew_before", "ends"), [(-60, False), (-40, True)])
def test_out_backwards_only_if_opponent_nonnegative(ew_before: int, ends: bool):
    o = opts(out_backwards_only_if_opponent_nonnegative=True)
    state, events = play_contract(o, "7C", N, 6, scores=(-380, ew_before))
    assert state.scores == (-540, ew_before + 40)
    g = of_type(events, GameOver)
    assert bool(g) == ends
    if ends:
        assert g[0].losers == (NS,)
    assert judge_game(opts(), (-540, -20), [NS], False) == GameResult((EW,), (NS,), "out_backwards")


# ------------------------------------------------------------------------------------------------ 3.6 player counts


def test_two_player_method_uspcc_24_card():
    o = opts(2, two_player_method="uspcc_24_card")
    pack = pack_for(o)
    assert len(pack) == 24 and "JK" not in pack
    assert {c[:-1] for c in pack} == {"A", "K", "Q", "J", "10", "9"}
    state = fresh(o, dealer=1)
    assert state.dead_hand == () and len(state.kitty) == 4
    state, _ = calls(state, "6S", "P")
    assert len(state.hands[0]) == 14
    state, _ = move(state, Discard(seat=0, cards=state.kitty))
    assert state.phase == "play"
    assert len(fresh(opts(2), dealer=1).dead_hand) == 10


def test_three_player_all_pass_play_no_trumps():
    o = opts(3, three_player_all_pass="play_no_trumps")
    state = fresh(o, dealer=2)
    state, events = calls(state, "P", "P", "P")
    assert of_type(events, NoTrumpPlayOut)[0].leader == 0 and state.to_act == 0 and state.contract is None
    state, events = play_out(state, tricks=({0}, 4))
    hs = scored(events)
    assert hs.deltas == tuple(10 * t for t in hs.tricks_won) and sum(hs.deltas) == 100
    assert hs.tricks_won[0] == 4
    _, events = calls(fresh(opts(3), dealer=2), "P", "P", "P")
    assert of_type(events, ThrownIn)[0].next_dealer == 0


def test_five_player_deck_stripped_63():
    pack = set(pack_for(opts(5, five_player_deck="stripped_63")))
    red = ["A", "K", "Q", "J", "13", "12", "11", "10", "9", "8", "7", "6", "5", "4"]
    black = ["A", "K", "Q", "J", "12", "11", "10", "9", "8", "7", "6", "5"]
    expected = {"JK"} | {r + s for s in "DH" for r in red} | {r + s for s in "SC" for r in black}
    assert len(pack) == 53 and pack == expected
    assert "2S" in set(pack_for(opts(5)))


def test_five_player_partner_method_choose_player():
    o = opts(5, five_player_partner_method="choose_player")
    state = fresh(o, dealer=4)
    st, _ = calls(state, "7S", "P", "P", "P", "P")
    assert st.phase == "call"
    assert check_move(st, CallCard(seat=0, card="AH")).reason == "WRONG_PARTNER_METHOD"  # type: ignore
    assert check_move(st, ChoosePartners(seat=0, partners=(1, 2))).reason == "INVALID_PARTNERS"  # type: ignore
    assert check_move(st, ChoosePartners(seat=0, partners=(0,))).reason == "INVALID_PARTNERS"  # type: ignore
    st2, _ = move(st, ChoosePartners(seat=0, partners=(2,)))
    assert st2.phase == "exchange" and view(st2, 1).contract.partners == (2,)  # type: ignore[union-attr]
    st, _ = calls(state, "8S", "P", "P", "P", "P")
    assert check_move(st, ChoosePartners(seat=0, partners=(1, 2))) is None  # two partners for 8+
    st, _ = move(st, ChoosePartners(seat=0, partners=(1, 2)))
    st, _ = exchange(st)
    st, events = play_out(st, tricks=({0, 1, 2}, 8))
    hs = scored(events)
    assert hs.contracting_seats == (0, 1, 2) and hs.deltas[:3] == (240, 240, 240)


def test_five_player_partner_method_alone_only():
    o = opts(5, five_player_partner_method="alone_only")
    st, _ = calls(fresh(o, dealer=4), "7S", "P", "P", "P", "P")
    assert st.phase == "exchange" and st.contract.alone  # type: ignore[union-attr]
    st, _ = calls(fresh(opts(5), dealer=4), "7S", "P", "P", "P", "P")
    assert st.phase == "call"


def test_five_player_call_timing_after_kitty():
    o = opts(5, five_player_call_timing="after_kitty")
    st, _ = calls(fresh(o, dealer=4), "7S", "P", "P", "P", "P")
    assert st.phase == "exchange"
    st, _ = move(st, Discard(seat=0, cards=st.kitty))
    assert st.phase == "call"
    st, _ = move(st, CallCard(seat=0, card="AH"))
    assert st.phase in ("play", "nominate")


def test_six_player_kitty_sizes():
    p5 = pack_for(opts(6, six_player_kitty=5))
    assert len(p5) == 65 and {"13S", "13C"} <= set(p5)
    assert len(fresh(opts(6, six_player_kitty=5), dealer=5).kitty) == 5
    p6 = pack_for(opts(6, six_player_kitty=6))
    assert len(p6) == 66 and BLACK_JOKER in p6
    assert len(fresh(opts(6, six_player_kitty=6), dealer=5).kitty) == 6
    assert len(fresh(opts(6), dealer=5).kitty) == 3


def test_presets_and_invalid_options():
    am = resolve_options(4, "american")
    assert (am.bidding_style, am.deck_4p, am.misere_rank, am.win_requires_contract) == (
        "american_single_round", "45", "between_8S_8C", False)
    assert resolve_options(4, "australian") == Options()
    with pytest.raises(OptionsError):
        resolve_options(4, None, {"misere_rank": "nowhere"})
    with pytest.raises(OptionsError):
        resolve_options(4, "nonsense")
