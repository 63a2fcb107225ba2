"""Languages over HTTP: Content-Language and Vary on every response, refusals and problems worded in the
negotiated language with the machine fields unchanged, and the rules catalogue in each language valid against
the contract."""

from __future__ import annotations

import json
import random
import string
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import pytest
from litestar import Litestar
from litestar.testing import TestClient
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from engine import Bid, GameState, Move, Pass, Play, apply_move, check_move, legal_moves, new_game, resolve_options
from service.app import create_app
from service.config import Settings
from service.i18n import SUPPORTED_LANGUAGES, LanguageMiddleware, rejection_text
from service.i18n.catalogues import CATALOGUES
from service.i18n.texts import rejection_key
from service.referee.snapshots import Sealer
from tests.support import KEY, app_with_key

CONTRACT = json.loads((Path(__file__).resolve().parents[2] / "openapi" / "openapi.json").read_text())
OTHERS = [language for language in SUPPORTED_LANGUAGES if language != "en"]


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient[Litestar]]:
    with TestClient(app_with_key()) as test_client:
        yield test_client


def _states(count: int = 60) -> list[GameState]:
    """States met in random games of 2 to 6 players under a few rule sets."""
    rng = random.Random(5)
    out: list[GameState] = []
    for players, preset in ((2, None), (3, None), (4, None), (4, "american"), (4, "beagle"), (5, None), (6, None)):
        state, _ = new_game(resolve_options(players, preset, {}), seed=players)
        for step in range(300):
            if state.phase == "game_over" or len(out) >= count * 2:
                break
            if step % 9 == 0 or state.phase != "play":
                out.append(state)
            state, _ = apply_move(state, rng.choice(legal_moves(state)))
    return out


def _candidates(state: GameState) -> list[Move]:
    """Moves of every kind, most of them illegal: other seats' turns, wrong phases, cards not held, low bids."""
    players = state.options.players
    moves: list[Move] = [Pass(seat=s) for s in range(players)]
    for seat in range(players):
        moves += [Bid(seat=seat, bid=b) for b in ("6S", "7H", "MISERE", "OPEN_MISERE", "BLIND_MISERE", "6X")]
        moves += [Play(seat=seat, card=c, nominate=n) for c in state.hands[seat][:4] for n in (None, "H")]
        moves += [Play(seat=seat, card="JK", nominate=n) for n in (None, "S", "Q")]
    for seat in range(players):
        for other in legal_moves(state, seat)[:5]:
            moves.append(msgspec.structs.replace(other, seat=(seat + 1) % players))
    return moves


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}


def test_every_refusal_met_in_play_is_worded_in_every_language() -> None:
    """Each refusal's parameters are exactly its English text's placeholders, and it renders in every
    language with nothing left unfilled."""
    seen: set[str] = set()
    for state in _states():
        for move in _candidates(state):
            rejection = check_move(state, move)
            if rejection is None:
                continue
            key = rejection_key(rejection.reason, rejection.params)
            seen.add(key)
            params = set(rejection.params) - {"case"}
            count = rejection.params.get("count")
            english = CATALOGUES["en"].template(key, count if isinstance(count, int) else None)
            assert _placeholders(english) == params, (key, rejection.params)
            for language in OTHERS:
                worded = rejection_text(language, rejection.reason, rejection.detail, rejection.params)
                assert worded and "{" not in worded and worded != rejection.detail, (language, key, worded)
            english_text = rejection_text("en", rejection.reason, rejection.detail, rejection.params)
            assert not english_text[0].islower() and english_text.endswith(".") and "[" not in english_text, \
                (key, english_text)  # a sentence, not a log line with a Python list in it
    assert len(seen) >= 12, sorted(seen)


@pytest.mark.parametrize("path", ["/v1/rules", "/v1/nowhere", "/healthz"])
def test_every_response_says_its_language_and_varies_on_it(client: TestClient[Litestar], path: str) -> None:
    for header, expected in (("hr-HR,hr;q=0.9,en;q=0.5", "hr"), ("de", "en"), (None, "en"), ("*", "en")):
        response = client.get(path, headers={"Accept-Language": header} if header else {})
        assert response.headers["content-language"] == expected
        assert "accept-language" in response.headers["vary"].lower()
    assert client.get(path + "?lang=th", headers={"Accept-Language": "hr"}).headers["content-language"] == "th"


async def test_vary_is_merged_with_the_vary_already_there() -> None:
    sent: list[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200,
                    "headers": [(b"vary", b"Origin"), (b"content-language", b"xx")]})
        await send({"type": "http.response.body", "body": b""})

    async def send(message: Any) -> None:
        sent.append(message)

    scope = {"type": "http", "headers": [(b"accept-language", b"su")], "query_string": b""}
    await LanguageMiddleware(app)(scope, None, send)  # type: ignore[arg-type]
    headers = sent[0]["headers"]
    assert (b"vary", b"Origin, Accept-Language") in headers and (b"content-language", b"su") in headers
    assert [k for k, _ in headers].count(b"content-language") == 1


def _validator(component: str) -> jsonschema.Draft202012Validator:
    resource = Resource.from_contents(CONTRACT, default_specification=DRAFT202012)
    registry: Registry[Any] = Registry().with_resource("urn:openapi", resource)
    return jsonschema.Draft202012Validator({"$ref": f"urn:openapi#/components/schemas/{component}"},
                                           registry=registry)


def _machine_fields(catalogue: dict[str, Any]) -> dict[str, Any]:
    out = dict(catalogue)
    for name in ("language", "names"):
        out.pop(name)
    out["options"] = [{k: v for k, v in o.items() if k != "description"} for o in out["options"]]
    out["presets"] = [{k: v for k, v in p.items() if k != "description"} for p in out["presets"]]
    out["move_types"] = [{k: v for k, v in m.items() if k != "description"} for m in out["move_types"]]
    return out


@pytest.mark.parametrize(("players", "preset"), [(4, None), (6, None), (4, "american"), (2, None)])
def test_the_rules_catalogue_in_each_language_validates_against_the_contract(
        client: TestClient[Litestar], players: int, preset: str | None) -> None:
    validator = _validator("RulesCatalogue")
    query = f"/v1/rules?players={players}" + (f"&preset={preset}" if preset else "")
    english = client.get(query).json()
    for language in SUPPORTED_LANGUAGES:
        response = client.get(query, headers={"Accept-Language": language})
        assert response.status_code == 200 and response.headers["content-language"] == language
        body = response.json()
        validator.validate(body)
        assert body["language"] == language
        assert [lang["tag"] for lang in body["languages"]] == list(SUPPORTED_LANGUAGES)
        assert _machine_fields(body) == _machine_fields(english)  # codes, tokens, option names never change
        assert set(body["names"]["cards"]) == set(body["cards"])
        assert set(body["names"]["bids"]) == {row["bid"] for row in body["ladder"]}
        if language != "en":
            assert all(o["description"] != e["description"] for o, e in zip(body["options"], english["options"],
                                                                           strict=True)
                       if o["name"] not in ("deal_pattern", "score_table", "six_player_kitty"))
    croatian = client.get(query + "&lang=hr").json()["names"]
    assert croatian["suits"]["NT"] == "Bez aduta" and croatian["cards"]["JK"] == "joker"


def test_refusals_and_problems_in_each_language(client: TestClient[Litestar]) -> None:
    sealer = Sealer([KEY])
    state, _ = new_game(resolve_options(4, None, {}), seed=3, first_dealer=3)
    snapshot = sealer.seal(state)
    move = {"type": "bid", "seat": 0, "bid": "MISERE"}  # misère needs a 7 bid first
    rejection = check_move(state, Bid(seat=0, bid="MISERE"))
    assert rejection is not None
    english = client.post("/v1/games/apply", json={"snapshot": snapshot, "move": move}).json()
    validator = _validator("ProblemDetails")
    for language in SUPPORTED_LANGUAGES:
        headers = {"Accept-Language": f"{language};q=0.9, de"}
        verdict = client.post("/v1/games/validate", json={"snapshot": snapshot, "move": move}, headers=headers)
        assert verdict.headers["content-language"] == language
        body = verdict.json()
        assert body["reason"] == rejection.reason == "MISERE_NEEDS_SEVEN_BID"
        assert body["detail"] == rejection_text(language, rejection.reason, rejection.detail, rejection.params)
        problem = client.post("/v1/games/apply", json={"snapshot": snapshot, "move": move}, headers=headers)
        assert problem.status_code == 422 and problem.headers["content-language"] == language
        worded = problem.json()
        validator.validate(worded)
        assert {k: worded[k] for k in ("code", "reason", "legal_moves", "status", "type")} == {
            k: english[k] for k in ("code", "reason", "legal_moves", "status", "type")}
        assert worded["detail"] == body["detail"]
        assert (worded["title"] == "Illegal move") == (language == "en")
    malformed = client.post("/v1/games/apply?lang=hr", json={"snapshot": snapshot, "move": {**move, "bid": "6X"}})
    assert malformed.status_code == 400 and malformed.json()["code"] == "MALFORMED_MOVE"
    assert malformed.json()["detail"] == "'6X' nije licitacija; licitacije su 6S … 10NT, MISERE, OPEN_MISERE i " \
                                         "BLIND_MISERE."
    seat = client.post("/v1/games/view", json={"snapshot": snapshot, "seat": 5}, headers={"Accept-Language": "sq"})
    assert seat.json()["detail"] == "Vendi 5 nuk ekziston: vendet janë nga 0 deri në 3."
    missing = client.get("/v1/nowhere", headers={"Accept-Language": "fil"}).json()
    assert missing["code"] == "NOT_FOUND" and missing["title"] == "Hindi nahanap"


def test_session_refusals_are_worded_too(client: TestClient[Litestar]) -> None:
    created = client.post("/v1/sessions", json={"players": 4, "seed": 3, "known_deal": True, "first_dealer": 3}).json()
    token = created["seat_tokens"][0]
    response = client.post(f"/v1/sessions/{created['session_id']}/moves",
                           json={"move": {"type": "bid", "seat": 0, "bid": "MISERE"}},
                           headers={"Authorization": f"Bearer {token}", "Accept-Language": "th"})
    assert response.status_code == 422 and response.headers["content-language"] == "th"
    body = response.json()
    assert body["reason"] == "MISERE_NEEDS_SEVEN_BID"
    assert body["detail"] == "ประมูล Misere ได้หลังจากมีการประมูลระดับ 7 ขึ้นไปแล้วเท่านั้น"


def test_gateway_problems_are_worded_too() -> None:
    """API-key and rate-limit refusals are answered before any handler, in the negotiated language."""
    settings = Settings(snapshot_keys=(KEY,), log_level="WARNING", api_keys=("k1",), rate_limit_per_minute=2)
    with TestClient(create_app(settings)) as gateway:
        missing = gateway.get("/v1/rules", headers={"Accept-Language": "hr"})
        assert missing.status_code == 401 and missing.headers["content-language"] == "hr"
        assert missing.json()["code"] == "API_KEY_REQUIRED"
        assert missing.json()["detail"] == "Pošaljite svoj API ključ u zaglavlju X-API-Key."
        statuses = [gateway.get("/v1/rules?lang=su", headers={"X-API-Key": "k1"}) for _ in range(3)]
        limited = statuses[-1]
        assert limited.status_code == 429 and limited.json()["code"] == "RATE_LIMITED"
        assert limited.json()["title"] == "Kaseueuran paménta" and "detik" in limited.json()["detail"]


def _session_problems(client: TestClient[Litestar], headers: dict[str, str]) -> list[tuple[str, dict[str, Any]]]:
    """Each kind of session and record problem that carries a specific detail, asked for in one language."""
    created = client.post("/v1/sessions", json={"players": 4, "seed": 3, "known_deal": True, "first_dealer": 3}).json()
    sid, host, seats = created["session_id"], created["host_token"], created["seat_tokens"]
    path = f"/v1/sessions/{sid}"

    def auth(token: str) -> dict[str, str]:
        return {**headers, "Authorization": f"Bearer {token}"}

    move = {"move": {"type": "pass", "seat": 0}}
    out: list[tuple[str, Any]] = []
    asked = [
        ("if_match", client.post(f"{path}/moves", json=move, headers={**auth(seats[0]), "If-Match": '"7", "9"'})),
        ("wrong_seat", client.post(f"{path}/moves", json=move, headers=auth(seats[1]))),
        ("host_moves", client.post(f"{path}/moves", json=move, headers=auth(host))),
        ("invalid_token", client.get(path, headers=auth("not-a-token"))),
        ("own_view", client.get(f"{path}?seat=2", headers=auth(seats[1]))),
        ("host_public_view", client.get(f"{path}?seat=2", headers=auth(host))),
        ("host_legal_moves", client.get(f"{path}/legal-moves", headers=auth(host))),
        ("host_only_snapshot", client.get(f"{path}/snapshot", headers=auth(seats[0]))),
        ("host_only_delete", client.delete(path, headers=auth(seats[0]))),
        ("bots_seat", client.post("/v1/sessions", json={"players": 4, "bots": {"7": "basic"}}, headers=headers)),
        ("bots_human", client.post("/v1/sessions", json={"players": 2, "bots": {"0": "basic", "1": "basic"}},
                                   headers=headers)),
        ("options", client.post("/v1/sessions", json={"players": 4, "options": {"deal_pattern": "1-1"}},
                                 headers=headers)),
        ("deck", client.post("/v1/sessions", json={"players": 4, "deck_orders": [["AS"]]}, headers=headers)),
        ("no_players", client.post("/v1/sessions", json={}, headers=headers)),
        ("verify_one_of", client.post("/v1/records/verify", json={}, headers=headers)),
        ("verify_players", client.post("/v1/records/verify", json={"moves": []}, headers=headers)),
        ("verify_seed", client.post("/v1/records/verify", json={"moves": [], "players": 4}, headers=headers)),
        ("verify_text", client.post("/v1/records/verify", json={"text": "nonsense"}, headers=headers)),
        ("verify_options", client.post("/v1/records/verify", json={
            "moves": [], "players": 4, "seed": 1, "options": {"deal_pattern": "1-1"}}, headers=headers)),
    ]
    for name, response in asked:
        assert 400 <= response.status_code < 500, (name, response.text)
        out.append((name, response.json()))
    return out


@pytest.mark.parametrize("language", OTHERS)
def test_session_and_record_problems_are_worded_in_every_language(client: TestClient[Litestar],
                                                                  language: str) -> None:
    """No session or record problem answers a non-English client with the English detail, and the machine
    fields (code, status, current_version) are the same in every language."""
    english = dict(_session_problems(client, {}))
    worded = dict(_session_problems(client, {"Accept-Language": language}))
    for name, body in worded.items():
        assert body["code"] == english[name]["code"] and body["status"] == english[name]["status"], name
        assert body["detail"] != english[name]["detail"], (name, body["detail"])
        assert body["title"] != english[name]["title"] or body["title"] in ("Bot", "Token"), name
    conflict = worded["if_match"]
    assert conflict["code"] == "VERSION_CONFLICT" and conflict["current_version"] == 1
    assert all(number in conflict["detail"] for number in ("1", "7", "9")), conflict["detail"]
    assert worded["wrong_seat"]["code"] == "WRONG_SEAT" and "0" in worded["wrong_seat"]["detail"]
    assert "1" in worded["wrong_seat"]["detail"]
