"""Where the sources are silent, what this engine decided (docs/RULES.md section 4.2; served by the rules catalogue, tested in tests/engine)."""

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
     "decision": "The rules let a contractor who does not nominate give nothing away (docs/RULES.md 1.9.3), so the step before "
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
    {"topic": "ghost partners: seats and control",
     "decision": "two_player_method=ghost_partners seats four: the humans at seats 0 and 1, side by side, and each one's "
                 "ghost opposite it (seat 2 is seat 0's, seat 3 is seat 1's), so the sides are 0+2 against 1+3 and the "
                 "hand is scored exactly as the four-player game between them. A ghost never bids and never deals: the "
                 "auction and the deal go round the two humans (the dealer's opponent calls first; the deal alternates), "
                 "and first_lead=eldest means the dealer's opponent. Each human plays its ghost's cards, seeing of them "
                 "only what everyone sees. A ghost's move names the ghost's own seat; the view says who controls each "
                 "ghost (ghosts[].controlled_by), a human's legal moves include its ghost's when the ghost is to act, and "
                 "a hosted session's seat token moves for its ghost too. A ghost is no viewer: views, legal moves and "
                 "suggestions are asked for the humans' seats."},
    {"topic": "ghost partners: the deal and the piles",
     "decision": "The deal is the fixed one of the rules (3 to each human, 5 face down to each ghost, 1 to the kitty, 4 to "
                 "each human, 5 face up to each ghost, one on each face-down card, 1 to the kitty, 3 to each human, 1 to "
                 "the kitty), clockwise from the dealer's left within each kind of seat; deal_pattern must stay at its "
                 "default. The pack is the four-player 43-card pack (fours_removed applies, deck_4p does not). A ghost's "
                 "playable cards are its face-up cards: it follows suit with those alone, and when a card that covers "
                 "another is played, the card beneath is turned up for everyone (event ghost_cards_up) and can be played "
                 "from then on. Nobody, its own human included, sees a face-down card before that; the views show how "
                 "many lie face down and which face-up cards cover one."},
    {"topic": "ghost partners: kitty, leads, misère",
     "decision": "The highest bidder (always a human) takes the kitty into its own hand and discards from it; the ghost's "
                 "cards stay as they lie. A ghost that wins a trick leads the next one, its human choosing among its "
                 "face-up cards. In misère the contractor's ghost sits out (its cards are not played and stay face down "
                 "and face up as they lie), as a four-player partner does. no_ace_no_face has no effect: the partner who "
                 "would answer a proposal is the proposer's own ghost. The last trick, where a joker is led without a "
                 "suit, is told by the trick count, since a ghost's last face-up card may still cover another."},
    {"topic": "24-card two-player pack",
     "decision": "A-9 in four suits with no joker and a 4-card kitty (a joker is not verified by any source)."},
]
