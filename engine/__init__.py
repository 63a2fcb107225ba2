"""Five Hundred rules engine: pure functions over frozen msgspec states, in the API's vocabulary.

>>> from engine import Options, new_game, legal_moves, apply_move
>>> state, events = new_game(Options(), seed=42, first_dealer=3)
>>> move = legal_moves(state)[0]
>>> state, events = apply_move(state, move)
>>> [e.type for e in events] if False else type(events[0]).__name__
'Passed'
"""

from engine._native import (  # first: it chooses the compiled or pure modules
    ENGINE_BUILD,
    ENGINE_BUILD_REASON,
    companion_path,
)
from engine.cards import ALL_CARDS, BLACK_JOKER, JOKER, JOKERS, SUITS, effective_suit, parse_card
from engine.deal import kitty_size, pack_for
from engine.decisions import DECISIONS
from engine.game import (
    GameSetupError,
    IllegalMove,
    Rejection,
    apply_move,
    canonical_move,
    check_move,
    judge_game,
    legal_moves,
    new_game,
    partners,
    score_hand,
    to_act,
)
from engine.integrity import integrity_problems, structure_problems
from engine.model import (
    AnswerRedeal,
    Bid,
    CallCard,
    ChoosePartners,
    Discard,
    DiscardChoices,
    Event,
    GameState,
    GoAlone,
    LookAtHand,
    Move,
    NominateJoker,
    Pass,
    Play,
    ProposeRedeal,
    SeatView,
)
from engine.options import PRESET_DESCRIPTIONS, PRESETS, RULES_VERSION, Options, OptionsError, option_catalogue
from engine.playout import Playout
from engine.reasons import Reason
from engine.record_text import RecordTextError, record_from_text, record_to_text
from engine.records import (
    MAX_RECORD_HANDS,
    MAX_RECORD_MOVES,
    RECORD_FORMAT,
    GameRecord,
    HandRecord,
    HandScore,
    RecordContract,
    RecordOptions,
    RecordRefused,
    RecordResult,
    RecordTrick,
    Verified,
    engine_options,
    record_options,
)
from engine.replay import build_record, replay_game, replay_states, verify_record
from engine.rules import bid_value, ladder, score_table_rows, sides
from engine.seat_records import SeatRecord, SeatVerified, seat_record, verify_seat_record
from engine.seats import controlled_seats, controller, player_to_act, seat_count
from engine.setup import resolve_options
from engine.unseen import complete_view, known_voids, unseen_cards, unseen_places
from engine.views import public_view, redact_events, seat_view, view

__all__ = [
    "ALL_CARDS", "BLACK_JOKER", "DECISIONS", "ENGINE_BUILD", "ENGINE_BUILD_REASON", "companion_path", "JOKER", "JOKERS",
    "MAX_RECORD_HANDS", "MAX_RECORD_MOVES", "PRESETS", "PRESET_DESCRIPTIONS", "RECORD_FORMAT", "RULES_VERSION",
    "SUITS", "AnswerRedeal", "Bid", "CallCard", "ChoosePartners", "Discard", "DiscardChoices", "Event", "GameRecord",
    "GameSetupError", "GameState", "GoAlone", "HandRecord", "HandScore", "IllegalMove", "LookAtHand", "Move",
    "NominateJoker", "Options", "OptionsError", "Pass", "Play", "Playout", "ProposeRedeal", "Reason", "RecordContract",
    "RecordOptions", "RecordRefused", "RecordResult", "RecordTextError", "RecordTrick", "Rejection", "SeatRecord",
    "SeatVerified", "SeatView", "Verified", "apply_move", "bid_value", "build_record", "canonical_move",
    "check_move", "complete_view", "controlled_seats", "controller", "effective_suit",
    "engine_options", "integrity_problems", "judge_game", "kitty_size", "known_voids", "ladder", "legal_moves",
    "new_game",
    "option_catalogue", "pack_for", "parse_card", "partners", "player_to_act", "public_view", "record_from_text",
    "record_options", "record_to_text", "redact_events", "replay_game", "replay_states", "resolve_options",
    "score_hand", "score_table_rows", "seat_count", "seat_record", "seat_view", "sides", "structure_problems",
    "to_act", "unseen_cards", "unseen_places", "verify_record",
    "verify_seat_record", "view",
]
