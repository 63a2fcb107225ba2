"""The scenario through the Python client that openapi-python-client generated from openapi/openapi.json.

Run by tests/clients/test_clients.py in the generators' environment, with the generated package
``fivehundred_client`` on PYTHONPATH: ``python play.py <base url> <scenario json>``. It uses only the generated
functions and models (requests built with the models' ``from_dict``, answers read through their parsed models)
and prints one ``REPORT <json>`` line of what it observed; the test compares that with the reference.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from fivehundred_client import AuthenticatedClient, Client
from fivehundred_client.api.games import apply_move, create_game, legal_moves
from fivehundred_client.api.sessions import (
    apply_session_move,
    create_session,
    get_session_legal_moves,
    stream_session_events,
)
from fivehundred_client.models import (
    ApplyRequest,
    CreateGameRequest,
    CreateGameResponse,
    CreateSessionRequest,
    LegalMovesRequest,
    LegalMovesResponse,
    MoveApplied,
    MoveRequest,
    ProblemDetails,
    SessionCreated,
    SessionLegalMoves,
)


def parse_sse(text: str) -> list[dict[str, Any]]:
    """Server-Sent Events frames: a dict of the fields of each frame that has any (comments dropped)."""
    frames = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields: dict[str, Any] = {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields[name] = value[1:] if value.startswith(" ") else value
        if fields:
            frames.append(fields)
    return frames


def main() -> None:
    base_url, scenario = sys.argv[1], json.loads(sys.argv[2])
    report: dict[str, Any] = {}
    client = Client(base_url=base_url, raise_on_unexpected_status=True)

    # The stateless API: create, list legal moves, apply, and an illegal move's problem.
    created = create_game.sync(client=client, body=CreateGameRequest.from_dict(scenario["game"]))
    assert isinstance(created, CreateGameResponse), created
    report["game"] = {"phase": str(created.phase), "to_act": created.to_act, "snapshot_chars": len(created.snapshot),
                      "options": created.options.to_dict()}
    listed = legal_moves.sync(client=client, body=LegalMovesRequest.from_dict({"snapshot": created.snapshot}))
    assert isinstance(listed, LegalMovesResponse), listed
    report["legal"] = {"count": len(listed.legal_moves), "first": listed.legal_moves[0].to_dict()}
    body = ApplyRequest.from_dict({"snapshot": created.snapshot, "move": scenario["legal_move"]})
    applied = apply_move.sync(client=client, body=body)
    assert not isinstance(applied, ProblemDetails) and applied is not None, applied
    report["applied"] = {"to_act": applied.to_act, "events": [e.to_dict()["type"] for e in applied.events]}
    refused = apply_move.sync_detailed(client=client, body=ApplyRequest.from_dict(
        {"snapshot": created.snapshot, "move": scenario["illegal_move"]}))
    assert isinstance(refused.parsed, ProblemDetails), refused
    report["illegal"] = {"status": int(refused.status_code), "code": refused.parsed.code,
                         "reason": refused.parsed.reason,
                         "content_type": refused.headers.get("content-type")}

    # A hosted session played to its end through each seat's token, every move with If-Match.
    made = create_session.sync_detailed(client=client, body=CreateSessionRequest.from_dict(scenario["session"]))
    session = made.parsed
    assert isinstance(session, SessionCreated), made
    report["session"] = {"status": int(made.status_code), "etag": made.headers.get("etag"),
                         "location": made.headers.get("location"), "version": session.version,
                         "seats": len(session.seat_tokens)}
    seats = [AuthenticatedClient(base_url=base_url, token=t, raise_on_unexpected_status=True)
             for t in session.seat_tokens]
    version, to_act, phase = session.version, session.to_act, str(session.phase)
    moves: list[dict[str, Any]] = []
    while isinstance(to_act, int):
        legal = get_session_legal_moves.sync(session.session_id, client=seats[to_act])
        assert isinstance(legal, SessionLegalMoves), legal
        move = legal.legal_moves[0]
        answer = apply_session_move.sync_detailed(session.session_id, client=seats[to_act],
                                                  body=MoveRequest(move=move), if_match=f'"{version}"')
        moved = answer.parsed
        assert isinstance(moved, MoveApplied), answer
        moves.append({"if_match": version, "etag": answer.headers.get("etag"), "version": moved.version})
        version, phase = moved.version, str(moved.phase)
        to_act = moved.to_act if isinstance(moved.to_act, int) else None
    report["moves"] = moves
    report["final_phase"] = phase

    # The host's event stream, read to its end (it ends by itself once the game is over).
    host = AuthenticatedClient(base_url=base_url, token=session.host_token, raise_on_unexpected_status=True)
    stream = stream_session_events.sync_detailed(session.session_id, client=host)
    assert isinstance(stream.parsed, str), stream
    report["stream"] = {"status": int(stream.status_code), "content_type": stream.headers.get("content-type"),
                        "frames": parse_sse(stream.parsed)}
    print("REPORT " + json.dumps(report))


if __name__ == "__main__":
    main()
