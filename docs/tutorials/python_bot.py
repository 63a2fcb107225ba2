"""A bot in Python that plays a whole hosted game of Five Hundred against the referee service.

It hosts a session with computer players at seats 1 to 3, takes seat 0 with its seat token, and plays until
the game is over: it reads its legal moves, picks one, and sends it with If-Match and an Idempotency-Key.
Only the standard library is used. Run it against a service (docs/tutorials/python-bot.md):

    python3 docs/tutorials/python_bot.py --api http://127.0.0.1:8000
"""

from __future__ import annotations

import argparse
import json
import random
import urllib.error
import urllib.request
from typing import Any


def call(api: str, method: str, path: str, *, token: str | None = None, body: Any = None,
         headers: dict[str, str] | None = None) -> tuple[int, Any]:
    """One request; the status and the JSON answer (a problem's body too: every error is JSON)."""
    request = urllib.request.Request(api + path, method=method,
                                     data=None if body is None else json.dumps(body).encode())
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:  # 4xx and 5xx: application/problem+json
        return error.code, json.loads(error.read() or b"null")


def choose(legal_moves: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """The bot's whole strategy: pass in the auction when it may, otherwise any legal move."""
    passes = [move for move in legal_moves if move["type"] == "pass"]
    return passes[0] if passes else rng.choice(legal_moves)


def describe(event: dict[str, Any]) -> str:
    fields = ", ".join(f"{k}={v}" for k, v in event.items() if k != "type" and v is not None)
    return f"{event['type']}({fields})"


def play(api: str, seed: int | None, target: int) -> dict[str, Any]:
    # 1. Host a session: seat 0 is ours, seats 1 to 3 are the service's computer players.
    setup = {"players": 4, "bots": {"1": "basic", "2": "basic", "3": "basic"},
             "options": {"target": target, "lose_at": -target}}
    if seed is not None:
        setup["seed"] = seed
    status, session = call(api, "POST", "/v1/sessions", body=setup)
    assert status == 201, (status, session)
    path, token = f"/v1/sessions/{session['session_id']}", session["seat_tokens"][0]
    version, phase = session["version"], session["phase"]
    print(f"session {session['session_id']}: seat 0 against three basic bots, to {target}")

    # 2. Until the game is over: read our legal moves, choose one, send it.
    rng, moves = random.Random(seed), 0
    while phase != "game_over":
        status, legal = call(api, "GET", f"{path}/legal-moves", token=token)
        assert status == 200, (status, legal)
        move = choose(legal["legal_moves"], rng)
        status, answer = call(api, "POST", f"{path}/moves", token=token, body={"move": move},
                              headers={"If-Match": f'"{legal["version"]}"',
                                       "Idempotency-Key": f"seat0-{legal['version']}"})
        if status == 409:  # the table changed since we read it (VERSION_CONFLICT): read it again
            continue
        assert status == 200, (status, answer)  # 422 ILLEGAL_MOVE would carry a reason and our legal moves
        moves += 1
        version, phase = answer["version"], answer["phase"]
        # The answer holds our move's events and the bots' that followed, up to our next turn.
        print(f"v{version}: " + "; ".join(describe(e) for e in answer["events"]))

    # 3. The final view: scores by side and the result.
    status, final = call(api, "GET", path, token=token)
    assert status == 200, (status, final)
    return {"session_id": session["session_id"], "version": version, "moves": moves,
            "phase": final["view"]["phase"], "scores": final["view"]["scores"], "result": final["view"]["result"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api", default="http://127.0.0.1:8000", help="the service's address")
    parser.add_argument("--seed", type=int, help="deal (and choose) reproducibly")
    parser.add_argument("--target", type=int, default=10, help="points to win (and minus that to lose)")
    args = parser.parse_args()
    outcome = play(args.api, args.seed, args.target)
    print(f"game over after {outcome['moves']} moves of ours: scores {outcome['scores']}, {outcome['result']}")
    print(json.dumps(outcome))


if __name__ == "__main__":
    main()
