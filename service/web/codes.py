"""Every problem ``code`` the service answers with: one enumeration, each with its HTTP status and meaning.

Every error body (RFC 9457 problem details, :mod:`service.web.problems`) carries one of these stable machine
strings as its ``code``; :class:`service.web.problems.Problem` refuses any other. The OpenAPI document lists them
as the enum of ``ProblemDetails.code`` and ``GET /v1/rules`` lists them with their meanings, so that front
ends can switch on them and translate them. Values never change; new codes may be added.

>>> ProblemCode.ILLEGAL_MOVE.status, ProblemCode("VERSION_CONFLICT").status
(422, 409)
"""

from __future__ import annotations

from enum import StrEnum


class ProblemCode(StrEnum):
    """A stable machine code of an error response (see :data:`PROBLEM_CODE_INFO` for status and meaning)."""

    MALFORMED_REQUEST = "MALFORMED_REQUEST"
    UNSUPPORTED_MEDIA_TYPE = "UNSUPPORTED_MEDIA_TYPE"
    MALFORMED_MOVE = "MALFORMED_MOVE"
    INVALID_OPTIONS = "INVALID_OPTIONS"
    INVALID_SEED = "INVALID_SEED"
    INVALID_DECK_ORDER = "INVALID_DECK_ORDER"
    INVALID_FIRST_DEALER = "INVALID_FIRST_DEALER"
    INVALID_BOTS = "INVALID_BOTS"
    INVALID_CLOCK = "INVALID_CLOCK"
    NO_SUCH_SEAT = "NO_SUCH_SEAT"
    SNAPSHOT_MALFORMED = "SNAPSHOT_MALFORMED"
    SNAPSHOT_VERSION_UNSUPPORTED = "SNAPSHOT_VERSION_UNSUPPORTED"
    SNAPSHOT_UNKNOWN_KEY = "SNAPSHOT_UNKNOWN_KEY"
    SNAPSHOT_TAMPERED = "SNAPSHOT_TAMPERED"
    SNAPSHOT_CORRUPT = "SNAPSHOT_CORRUPT"
    ILLEGAL_MOVE = "ILLEGAL_MOVE"
    NOT_TO_ACT = "NOT_TO_ACT"
    BODY_TOO_LARGE = "BODY_TOO_LARGE"
    RECORD_MISMATCH = "RECORD_MISMATCH"
    RECORD_UNAVAILABLE = "RECORD_UNAVAILABLE"
    INVALID_IF_MATCH = "INVALID_IF_MATCH"
    INVALID_IDEMPOTENCY_KEY = "INVALID_IDEMPOTENCY_KEY"
    INVALID_LAST_EVENT_ID = "INVALID_LAST_EVENT_ID"
    UNAUTHORIZED = "UNAUTHORIZED"
    FORBIDDEN = "FORBIDDEN"
    WRONG_SEAT = "WRONG_SEAT"
    SESSION_NOT_FOUND = "SESSION_NOT_FOUND"
    VERSION_CONFLICT = "VERSION_CONFLICT"
    MOVE_TIMED_OUT = "MOVE_TIMED_OUT"
    IDEMPOTENCY_KEY_REUSED = "IDEMPOTENCY_KEY_REUSED"
    STORE_UNAVAILABLE = "STORE_UNAVAILABLE"
    COMMIT_OUTCOME_UNKNOWN = "COMMIT_OUTCOME_UNKNOWN"
    HINTS_OFF = "HINTS_OFF"
    SPECTATORS_FULL = "SPECTATORS_FULL"
    INVALID_NAME = "INVALID_NAME"
    INVITATION_REDEEMED = "INVITATION_REDEEMED"
    INVITATION_EXPIRED = "INVITATION_EXPIRED"
    TOKEN_REVOKED = "TOKEN_REVOKED"
    SEAT_NOT_HELD = "SEAT_NOT_HELD"
    API_KEY_REQUIRED = "API_KEY_REQUIRED"
    API_KEY_INVALID = "API_KEY_INVALID"
    RATE_LIMITED = "RATE_LIMITED"
    NOT_FOUND = "NOT_FOUND"
    METHOD_NOT_ALLOWED = "METHOD_NOT_ALLOWED"
    NOT_READY = "NOT_READY"
    INTERNAL = "INTERNAL"

    @property
    def status(self) -> int:
        """The HTTP status this code is answered with."""
        return PROBLEM_CODE_INFO[self][0]

    @property
    def meaning(self) -> str:
        """One line saying what the code means."""
        return PROBLEM_CODE_INFO[self][1]


#: Each code's HTTP status and one-line meaning, in the order of :class:`ProblemCode`.
PROBLEM_CODE_INFO: dict[ProblemCode, tuple[int, str]] = {
    ProblemCode.MALFORMED_REQUEST: (400, "The body, a header or a parameter is not understood (bad JSON, wrong "
                                         "type, missing or unknown field, out-of-range value)."),
    ProblemCode.UNSUPPORTED_MEDIA_TYPE: (415, "The request body is not sent as Content-Type: application/json."),
    ProblemCode.MALFORMED_MOVE: (400, "The move names a card, bid, suit or seat this game does not have, or is "
                                      "not a move object (see `reason`)."),
    ProblemCode.INVALID_OPTIONS: (400, "The preset or an option value is unknown, or the rule set cannot be "
                                       "played."),
    ProblemCode.INVALID_SEED: (400, "The seed is not an integer from 0 to 2**53-1 (the largest every JSON "
                                    "parser reads exactly)."),
    ProblemCode.INVALID_DECK_ORDER: (400, "A deck order is not a permutation of this game's pack."),
    ProblemCode.INVALID_FIRST_DEALER: (400, "The first dealer is not a seat of this game."),
    ProblemCode.INVALID_BOTS: (400, "The bot seats asked for are not seats of this game, name an unknown level, "
                                    "or leave no seat to a human."),
    ProblemCode.INVALID_CLOCK: (400, "The turn clock asked for is out of bounds (`move_seconds`, `reserve_seconds`) "
                                     "or names an unknown bot level."),
    ProblemCode.NO_SUCH_SEAT: (400, "A seat named in the request does not exist in this game."),
    ProblemCode.SNAPSHOT_MALFORMED: (400, "The snapshot is not of the form this service issues."),
    ProblemCode.SNAPSHOT_VERSION_UNSUPPORTED: (400, "The snapshot's format version is not one this service "
                                                    "reads."),
    ProblemCode.SNAPSHOT_UNKNOWN_KEY: (400, "The snapshot was sealed under a key this service does not hold."),
    ProblemCode.SNAPSHOT_TAMPERED: (400, "The snapshot failed authentication: it was altered or sealed "
                                         "elsewhere."),
    ProblemCode.SNAPSHOT_CORRUPT: (422, "The snapshot opens but its state is inconsistent."),
    ProblemCode.ILLEGAL_MOVE: (422, "A well-formed move the rules do not allow now (see `reason` and "
                                    "`legal_moves`)."),
    ProblemCode.NOT_TO_ACT: (422, "A suggestion was asked for a seat that is not to act (the detail names who "
                                  "is)."),
    ProblemCode.BODY_TOO_LARGE: (413, "The request body is larger than the configured limit."),
    ProblemCode.RECORD_MISMATCH: (422, "A game record's derived fields disagree with its moves (`field` names the "
                                       "first that differs)."),
    ProblemCode.RECORD_UNAVAILABLE: (409, "The session's log does not hold its whole game (it was restored from a "
                                          "snapshot)."),
    ProblemCode.INVALID_IF_MATCH: (400, "If-Match is not a session version such as \"3\"."),
    ProblemCode.INVALID_IDEMPOTENCY_KEY: (400, "Idempotency-Key is not 1 to 128 printable ASCII characters."),
    ProblemCode.INVALID_LAST_EVENT_ID: (400, "Last-Event-ID is not an event id of this stream."),
    ProblemCode.UNAUTHORIZED: (401, "No session token was sent, or it is not a token of this session."),
    ProblemCode.FORBIDDEN: (403, "A token of this session, but of a role that may not do this."),
    ProblemCode.WRONG_SEAT: (403, "The move names a seat other than the token's own."),
    ProblemCode.SESSION_NOT_FOUND: (404, "The session never existed, was deleted, or expired."),
    ProblemCode.VERSION_CONFLICT: (409, "If-Match names a version the session is no longer at (see "
                                        "`current_version`)."),
    ProblemCode.MOVE_TIMED_OUT: (409, "The seat ran out of time and the clock moved for it (at `timed_out_version`); "
                                      "send its next move with If-Match naming `current_version`."),
    ProblemCode.IDEMPOTENCY_KEY_REUSED: (422, "The Idempotency-Key was already used for a different move."),
    ProblemCode.STORE_UNAVAILABLE: (503, "The session store is unavailable; nothing was applied; retry after "
                                         "Retry-After."),
    ProblemCode.COMMIT_OUTCOME_UNKNOWN: (503, "The store stopped answering while a move was committed: it may or "
                                              "may not have been applied; retrying with the same Idempotency-Key "
                                              "is safe."),
    ProblemCode.HINTS_OFF: (403, "The host turned hints off for this session."),
    ProblemCode.SPECTATORS_FULL: (409, "The session holds as many spectator tokens as it may."),
    ProblemCode.INVALID_NAME: (400, "A player's name is empty, too long, or has characters a name may not have."),
    ProblemCode.INVITATION_REDEEMED: (409, "The invitation was already redeemed (ask the host for a new one)."),
    ProblemCode.INVITATION_EXPIRED: (410, "The invitation has expired (ask the host for a new one)."),
    ProblemCode.TOKEN_REVOKED: (401, "The token was replaced: reissued by the host, or its seat was handed on or "
                                     "left."),
    ProblemCode.SEAT_NOT_HELD: (409, "No player holds the seat (it is a bot's, or open)."),
    ProblemCode.API_KEY_REQUIRED: (401, "The service requires an API key and none was sent."),
    ProblemCode.API_KEY_INVALID: (401, "The API key sent is not one of the service's keys."),
    ProblemCode.RATE_LIMITED: (429, "Too many requests from this client; retry after Retry-After."),
    ProblemCode.NOT_FOUND: (404, "No such path."),
    ProblemCode.METHOD_NOT_ALLOWED: (405, "The path does not allow this method (see Allow)."),
    ProblemCode.NOT_READY: (503, "The service is not ready (GET /readyz): a dependency failed its check."),
    ProblemCode.INTERNAL: (500, "The service failed unexpectedly (a defect; it is logged)."),
}

__all__ = ["PROBLEM_CODE_INFO", "ProblemCode"]
