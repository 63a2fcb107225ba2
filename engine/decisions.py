"""Where RULES.md is silent, what this engine decided (served by the rules catalogue, tested in tests/engine)."""

from __future__ import annotations

DECISIONS: list[dict[str, str]] = [
    {"topic": "shuffle",
     "decision": "Deals come from a Fisher–Yates shuffle driven by SHA-256 of 'fivehundred/v1/deal/<hand>/<seed>/<block>' "
                 "(engine/deal.py documents it), so a seed gives the same deals on every machine. Explicit deck orders "
                 "are dealt first, one per hand (redeals included); later hands come from the seed."},
    {"topic": "two-player dead hand",
     "decision": "The dead hand is dealt first, as the hand on the dealer's left; nobody ever sees it."},
    {"topic": "blind misère",
     "decision": "With blind_misere_enabled, every seat starts without looking. At its turn a seat may look_at_hand "
                 "(and then call), pass without looking, or bid; any bid other than BLIND_MISERE counts as looking. "
                 "Everyone looks at their own hand once the auction ends in a contract (or a no-trump play-out); a hand "
                 "thrown in is gathered unseen, so a seat that never looked is never shown it."},
    {"topic": "final bidder raise",
     "decision": "Each misère bid counts as a strain of its own, so raising from a suit/NT bid to a misère bid (or back) "
                 "changes strain. The high bidder is offered the raise each time all the others have passed."},
    {"topic": "joker nomination step",
     "decision": "The rules let a contractor who does not nominate give nothing away (RULES.md 1.9.3), so the step before "
                 "the first lead is taken by every NT-family contractor (no trumps and the misères, when joker_prenomination "
                 "is on, the pack has a joker and, in misère, joker_low_in_misere is off), whether or not they hold a "
                 "joker. Declining, nominate_joker with suit null (and card JK, the default), is always legal and sends "
                 "everyone the same event {type: joker_nominated, card: JK, suit: null}; naming a suit needs the joker and "
                 "is announced to all (A24). Folding the nomination into the discard was not chosen: sans-kitty contracts "
                 "have no discard, and a separate, uniform step keeps the move vocabulary integrators already use."},
    {"topic": "two jokers in no-trump contracts",
     "decision": "Each joker is nominated separately (nominate_joker names the card); the step stays open until the "
                 "contractor declines (suit null) or every joker of the pack is nominated, so it never shows whether the "
                 "other joker is held. Un-nominated jokers have no suit; the black joker beats the coloured one. A leader "
                 "holding only un-nominated jokers may nominate any suit rather than be stuck."},
    {"topic": "low joker in misère",
     "decision": "With joker_low_in_misere the contractor cannot pre-nominate the joker in a misère contract, and a lead "
                 "of the joker always names a suit (also at the last trick)."},
    {"topic": "open misère exposure",
     "decision": "The hand is exposed after trick 1 only if the contractor did not win it; if it did, the hand is over."},
    {"topic": "five-player partner scoring",
     "decision": "With five_player_partner_share=half each partner scores half the value rounded up to a multiple of 10 "
                 "(a 250 slam gives 130 each). Both the contractor and the partner win if their made contract takes "
                 "them to the target."},
    {"topic": "going out backwards with three or more sides",
     "decision": "The game ends; the sides at or below lose_at lose, and the highest-scoring other side wins (several "
                 "if tied)."},
    {"topic": "no ace no face",
     "decision": "A seat may propose at its turn before its first call; the next team-mate clockwise answers. The option "
                 "has no effect in games without partners (2, 3 and 5 players)."},
    {"topic": "three players, everyone passes",
     "decision": "three_player_all_pass governs three-player games; all_pass governs the others."},
    {"topic": "cutting for the first deal",
     "decision": "Joker lowest, then ace, then 2 up to 10, 11, 12, 13, J, Q, K; ties cut again from the same pack (a "
                 "fresh shuffle if it runs out)."},
    {"topic": "American single-round auction",
     "decision": "final_bidder_may_raise does not apply to american_single_round bidding: every seat has exactly one call."},
    {"topic": "24-card two-player pack",
     "decision": "A-9 in four suits with no joker and a 4-card kitty (a joker is not verified by any source)."},
]
