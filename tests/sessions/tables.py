"""Test-side helpers for tables that play game after game: moves chosen from what the service answers (the seat's
own legal moves), since a table's next game is dealt from a secret no test knows."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

import httpx

from tests.support import bearer

#: A game that ends after its first played hand (a made contract reaches 10; a failed one reaches -10).
SHORT_GAME = {"target": 10, "lose_at": -10}
#: The fields of a seat's view that only that seat sees; every other field is the public view's.
PRIVATE_VIEW_FIELDS = ("seat", "hand", "kitty", "discards")


def pick(view: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
    """A move that ends a hand soon: in the auction the first bid opens at the lowest bid and everyone else passes;
    otherwise the first legal move."""
    if view["phase"] == "auction":
        bids = [m for m in legal if m["type"] == "bid"]
        if view["high_bid"] is None and bids:
            return next((m for m in bids if m["bid"] == "6S"), bids[0])
        passes = [m for m in legal if m["type"] == "pass"]
        if passes:
            return passes[0]
    return legal[0]


def public(view: dict[str, Any]) -> dict[str, Any]:
    """A view less what only its seat sees."""
    return {k: v for k, v in view.items() if k not in PRIVATE_VIEW_FIELDS}


async def play_one(client: httpx.AsyncClient, url: str, tokens: Sequence[str | None]) -> dict[str, Any] | None:
    """One move of the seat to act (its token among ``tokens``), chosen from its legal moves, with an
    ``Idempotency-Key``: the move's answer, or ``None`` when nobody is to act (the game is over)."""
    seen = (await client.get(url, headers=bearer(next(t for t in tokens if t)))).json()
    to_act = seen["view"]["to_act"]
    if to_act is None:
        return None
    token = tokens[to_act]
    assert token is not None, f"seat {to_act} is to act and no test token holds it"
    mine = (await client.get(url, headers=bearer(token))).json()
    legal = (await client.get(url + "/legal-moves", headers=bearer(token))).json()["legal_moves"]
    r = await client.post(url + "/moves", json={"move": pick(mine["view"], legal)},
                          headers={**bearer(token), "Idempotency-Key": uuid.uuid4().hex})
    assert r.status_code == 200, r.text
    return dict(r.json())


async def play_to_the_end(client: httpx.AsyncClient, url: str, tokens: Sequence[str | None], *,
                          most: int = 400) -> int:
    """Play the game to its end (bot seats play themselves): how many moves the tokens made."""
    for made in range(most):
        if await play_one(client, url, tokens) is None:
            return made
    raise AssertionError(f"the game did not end within {most} moves")
