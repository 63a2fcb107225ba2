"""An outside bot for the Five Hundred service, with nothing but the standard library.

The service asks it for its seat's move at each of the seat's turns (a signed ``session.turn`` POST) and makes
the move it answers. docs/tutorials/outside-bot.md reads this file from the top.

    python3 docs/tutorials/outside_bot.py --port 8100 --secret whsec_…
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import json
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TOLERANCE_SECONDS = 300  # a message signed longer ago than this (or later) is refused: a replay
SECRETS: list[bytes] = []  # the webhook secrets this bot answers for (several tables may share one bot)


def verified(headers: Any, body: bytes) -> bool:
    """Whether the message was signed by the service (Standard Webhooks: HMAC-SHA256 of id.timestamp.body)."""
    message_id, timestamp = headers.get("webhook-id", ""), headers.get("webhook-timestamp", "")
    if not message_id or not timestamp.isdigit() or abs(time.time() - int(timestamp)) > TOLERANCE_SECONDS:
        return False
    signed = f"{message_id}.{timestamp}.".encode() + body
    offered = [s.partition(",")[2] for s in headers.get("webhook-signature", "").split()]
    for key in SECRETS:
        expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
        if any(hmac.compare_digest(expected, signature) for signature in offered):
            return True
    return False


def secret_bytes(secret: str) -> bytes:
    """A ``whsec_…`` secret as the key it stands for."""
    return base64.b64decode(secret.removeprefix("whsec_"))


RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def rank(card: str) -> int:
    """A card's plain rank, low to high (the joker highest): enough for a simple bot."""
    return 99 if card == "JK" else RANKS.index(card[:-1])


def choose(turn: dict[str, Any]) -> dict[str, Any]:
    """The move for this turn: pass in the auction, discard the lowest cards, and otherwise play the lowest
    legal card (any other legal move first if there is no card to play)."""
    legal: list[dict[str, Any]] = turn["legal_moves"]
    choice = turn.get("discard_choice")
    if choice:  # the exchange: choose `count` of `cards`
        lowest = sorted(choice["cards"], key=rank)[:choice["count"]]
        return {"type": "discard", "cards": lowest}
    passes = [m for m in legal if m["type"] == "pass"]
    if passes:
        return passes[0]
    plays = [m for m in legal if m["type"] == "play"]
    if plays:
        return min(plays, key=lambda m: rank(m["card"]))
    return legal[0]


class Bot(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        if not verified(self.headers, body):
            self.send_response(401)
            self.end_headers()
            return
        message = json.loads(body)
        if message["type"] != "session.turn":
            self.send_response(204)  # a bot is sent turns only; nothing else to answer
            self.end_headers()
            return
        answer = json.dumps({"move": choose(message["data"])}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: one line per turn would drown the kit's report


def main() -> None:
    parser = argparse.ArgumentParser(description="An outside bot for the Five Hundred service.")
    parser.add_argument("--port", type=int, default=8100)
    parser.add_argument("--secret", action="append", required=True,
                        help="the secret its seats are registered with (whsec_…); repeatable")
    args = parser.parse_args()
    SECRETS.extend(secret_bytes(s) for s in args.secret)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Bot)
    print(f"outside bot on http://127.0.0.1:{args.port}/", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
