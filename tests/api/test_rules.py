"""``GET /v1/rules``: the catalogue is the engine's own, for every player count and preset."""

from __future__ import annotations

import typing

import msgspec
import pytest

from engine import (
    PRESETS,
    RULES_VERSION,
    Move,
    kitty_size,
    ladder,
    option_catalogue,
    pack_for,
    resolve_options,
    score_table_rows,
    sides,
)
from service.i18n import text
from tests.support import as_json

from .helpers import Client


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("preset", [None, *PRESETS])
def test_catalogue_is_the_engines(client: Client, players: int, preset: str | None) -> None:
    query = f"?players={players}" + (f"&preset={preset}" if preset else "")
    response = client.get("/v1/rules" + query)
    assert response.status_code == 200, response.text
    body = response.json()
    opts = resolve_options(players, preset, {})
    assert body["rules_version"] == RULES_VERSION and body["players"] == players and body["preset"] == preset
    assert body["resolved_options"] == as_json(msgspec.structs.asdict(opts))
    # The engine's options, each described in English from en.po (service/i18n), as in every other language.
    assert body["options"] == [{**o, "description": text("en", f"option.{o['name']}")}
                               for o in as_json(option_catalogue())]
    assert body["presets"] == [{"name": n, "description": text("en", f"preset.{n}"), "options": as_json(o)}
                               for n, o in PRESETS.items()]
    rungs = ladder(opts)
    assert [(r["bid"], r["rung"]) for r in body["ladder"]] == sorted(rungs.items(), key=lambda kv: (kv[1], kv[0]))
    assert body["score_table"] == as_json(score_table_rows(opts))
    assert body["cards"] == list(pack_for(opts)) and len(set(body["cards"])) == len(body["cards"])
    assert body["kitty_size"] == kitty_size(opts)
    assert body["sides"] == as_json(sides(opts))


def test_defaults_are_the_four_player_australian_game(client: Client) -> None:
    body = client.get("/v1/rules").json()
    assert body["players"] == 4 and len(body["cards"]) == 43 and body["kitty_size"] == 3
    values = {row["bid"]: row["value"] for row in body["ladder"]}
    assert values["6S"] == 40 and values["10NT"] == 520 and values["MISERE"] == 250
    assert "BLIND_MISERE" not in values


def test_american_preset_uses_the_45_card_pack(client: Client) -> None:
    body = client.get("/v1/rules?preset=american").json()
    assert len(body["cards"]) == 45 and body["kitty_size"] == 5
    assert body["resolved_options"]["bidding_style"] == "american_single_round"


def test_move_types_cover_the_move_union(client: Client) -> None:
    body = client.get("/v1/rules").json()
    tags = [msgspec.inspect.type_info(t).tag for t in typing.get_args(Move)]  # type: ignore[attr-defined]
    assert [m["type"] for m in body["move_types"]] == tags
    bid = next(m for m in body["move_types"] if m["type"] == "bid")
    assert set(bid["fields"]) == {"seat", "bid", "sans_kitty"} and "MISERE" in bid["description"]


def test_the_catalogue_lists_the_engines_decisions_where_the_rules_are_silent(client: Client) -> None:
    from engine import DECISIONS

    decisions = client.get("/v1/rules").json()["decisions"]
    assert decisions == DECISIONS
    assert any(d["topic"] == "going out backwards with three or more sides" for d in decisions)
