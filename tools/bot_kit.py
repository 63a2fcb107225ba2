"""The bot author's kit: is an outside bot ready to sit at a table? One command, a few minutes.

    python3 tools/bot_kit.py --bot-url http://127.0.0.1:8100/ --secret whsec_… [--deals 4] [--target 500]

Runs the service in this process (its in-process store; webhooks allowed to the bot's host only) and plays
``--deals`` seeded four-player deals in duplicate: each deal twice, the bot in seat 0 (with the service's
``--level`` bot as its partner) and then in seat 1 with the same cards dealt, the service's bots in the other
seats, under a turn clock of ``--move-seconds`` that moves for the bot's seat when it does not answer in time.
The bot is seated as any outside bot is (``registerWebhook`` with ``"bot": true``, signed with ``--secret``).
Then it reports:

- **legality**: the bot's answers the service refused (not a legal move, not a move), with the last refusal;
- **deadlines**: the bot's turns the clock had to play (no answer, a late one, an error);
- **idempotency**: one turn sent twice with the same ``webhook-id``: whether the bot answered the same move;
- **duplicate**: per deal, the bot's side's score less the other side's in each seat, and their sum: what the
  bot made of the cards against what the service's bots made of the same cards.

Exit status 0 when nothing was refused, no deadline was missed and the bot is idempotent; 1 otherwise.
docs/tutorials/outside-bot.md has a bot to try it on.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import ipaddress
import json
import os
import socket
import sys
import urllib.parse
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import uvicorn  # noqa: E402
from standardwebhooks import Webhook as Signer  # noqa: E402

from service.app import create_app  # noqa: E402
from service.config import Settings  # noqa: E402


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _settings(bot_url: str, move_seconds: float) -> Settings:
    host = urllib.parse.urlsplit(bot_url).hostname or ""
    try:
        private = not ipaddress.ip_address(host).is_global
    except ValueError:
        private = host == "localhost"
    return Settings(log_level="WARNING", snapshot_keys=(os.urandom(32),), webhook_hosts=(host,),
                    webhook_allow_http=bot_url.startswith("http:"),
                    webhook_allow_private=private, webhook_timeout_seconds=max(0.5, move_seconds),
                    webhook_poll_seconds=0.05, clock_min_move_seconds=min(1.0, move_seconds),
                    clock_poll_seconds=0.05)


class Kit:
    def __init__(self, args: argparse.Namespace, api: httpx.AsyncClient, app: Any) -> None:
        self.args, self.api, self.app = args, api, app

    async def game(self, deal: int, bot_seat: int) -> dict[str, Any]:
        """One game of ``deal`` with the bot in ``bot_seat``: its stats, the clock's moves for it, the scores."""
        args = self.args
        others = {str(s): args.level for s in range(4) if s != bot_seat}
        body = {"players": 4, "seed": args.seed + deal, "first_dealer": 3, "known_deal": True, "bots": others,
                "start": "host", "options": {"target": args.target, "lose_at": -args.target},
                "clock": {"move_seconds": args.move_seconds, "bot": args.level}}
        r = await self.api.post("/v1/sessions", json=body)
        r.raise_for_status()
        created = r.json()
        url, host = f"/v1/sessions/{created['session_id']}", {"authorization": "Bearer " + created["host_token"]}
        seat = {"authorization": "Bearer " + created["seat_tokens"][bot_seat]}
        r = await self.api.post(url + "/webhooks", json={"url": args.bot_url, "bot": True, "secret": args.secret},
                                headers=seat)
        if r.status_code != 201:
            raise SystemExit(f"the service refused to seat the bot: {r.status_code} {r.text}")
        (await self.api.post(url + "/start", json={}, headers=host)).raise_for_status()
        async with asyncio.timeout(args.game_seconds):
            while True:
                state = (await self.api.get(url, headers=host)).json()
                if state["view"]["phase"] == "game_over":
                    break
                await asyncio.sleep(0.1)
        stats = (await self.api.get(url + "/webhooks", headers=seat)).json()["webhooks"][0]["bot"]
        log = (await self.api.get(url + "/events/catch-up", headers=host)).json()["events"]
        missed = sum(1 for e in log if e["event"]["type"] == "move_timed_out" and e["event"]["seat"] == bot_seat)
        scores = state["view"]["scores"]
        side = bot_seat % 2
        return {"deal": deal, "seat": bot_seat, "stats": stats, "missed": missed,
                "margin": scores[side] - scores[1 - side], "scores": scores}

    async def idempotency(self) -> bool:
        """One turn sent to the bot twice, the same message (id, timestamp, body): the same move both times?"""
        args = self.args
        body = {"players": 4, "seed": args.seed, "first_dealer": 3, "known_deal": True, "start": "host",
                "bots": {"1": args.level, "2": args.level, "3": args.level},
                "clock": {"move_seconds": args.move_seconds, "bot": args.level}}
        created = (await self.api.post("/v1/sessions", json=body)).json()
        service = self.app.state.sessions
        loaded = await service.service.store.load(created["session_id"])
        turn = service.deliverer.turns.turn(created["session_id"], "wh_kit", loaded.record, 0)
        payload = json.dumps({"type": turn.type, "timestamp": turn.timestamp,
                              "data": _builtins(turn.data)}).encode()
        message_id = f"wh_kit_{turn.data.id}"
        moment = datetime.datetime.now(tz=datetime.UTC)
        headers = {"content-type": "application/json", "webhook-id": message_id,
                   "webhook-timestamp": str(int(moment.timestamp())),
                   "webhook-signature": Signer(args.secret).sign(message_id, moment, payload)}
        answers = []
        async with httpx.AsyncClient(timeout=args.move_seconds + 5, trust_env=False) as bot:
            for _ in range(2):
                r = await bot.post(args.bot_url, content=payload, headers=headers)
                answers.append((r.status_code, r.json().get("move") if r.content else None))
        return answers[0] == answers[1] and answers[0][0] < 300


def _builtins(value: Any) -> Any:
    import msgspec

    return msgspec.to_builtins(value)


async def main(args: argparse.Namespace) -> int:
    app = create_app(_settings(args.bot_url, args.move_seconds))
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False,
                                           lifespan="on"))
    task = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=30, trust_env=False) as api:
            kit = Kit(args, api, app)
            games = []
            for deal in range(args.deals):
                for seat in (0, 1):
                    games.append(await kit.game(deal, seat))
                    g = games[-1]
                    print(f"deal {deal} seat {seat}: asked {g['stats']['asked']}, moved {g['stats']['moved']}, "
                          f"refused {g['stats']['refused']}, clock moves {g['missed']}, "
                          f"scores {g['scores']}", flush=True)
            same = await kit.idempotency()
    finally:
        server.should_exit = True
        await task
    asked = sum(g["stats"]["asked"] for g in games)
    refused = sum(g["stats"]["refused"] for g in games)
    missed = sum(g["missed"] for g in games)
    last = next((g["stats"]["last_refusal"] for g in reversed(games) if g["stats"].get("last_refusal")), None)
    print(f"\nbot {args.bot_url}: {args.deals} deals in duplicate ({len(games)} games), seeds {args.seed} to "
          f"{args.seed + args.deals - 1}, the service's {args.level} bots in the other seats, "
          f"{args.move_seconds:g} s a move")
    print(f"legality:    {refused} of {asked} answers refused" + (f" (last: {last})" if last else ""))
    print(f"deadlines:   {missed} of {asked} turns played by the clock")
    print(f"idempotency: the same turn twice, {'the same move' if same else 'NOT the same move'}")
    margins = []
    for deal in range(args.deals):
        pair = [g["margin"] for g in games if g["deal"] == deal]
        margins.append(sum(pair))
        print(f"duplicate:   deal {deal}: the bot's side {pair[0]:+} in seat 0, {pair[1]:+} in seat 1: "
              f"{sum(pair):+}")
    print(f"duplicate:   over {args.deals} deals {sum(margins):+} (0: as the service's {args.level} bots do)")
    ready = refused == 0 and missed == 0 and same
    print("READY" if ready else "NOT READY")
    return 0 if ready else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bot-url", required=True)
    parser.add_argument("--secret", required=True, help="whsec_…: the secret the bot verifies with")
    parser.add_argument("--deals", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--target", type=int, default=500)
    parser.add_argument("--level", default="basic", choices=["random", "basic", "expert"])
    parser.add_argument("--move-seconds", type=float, default=2.0)
    parser.add_argument("--game-seconds", type=float, default=600.0)
    sys.exit(asyncio.run(main(parser.parse_args())))
