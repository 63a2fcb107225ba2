"""Smaller answers for phones, with a real client (httpx) against a live uvicorn serving the service's own app
with its production protocol: compression in the encodings the client offers (gzip and brotli; the fast apply
route too; never an event stream), ``ETag``/``Cache-Control`` on the cacheable answers and ``304`` for a tag the
client already holds (service/web/encoding.py)."""

from __future__ import annotations

import gzip
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import brotli  # type: ignore[import-untyped]
import httpx
import pytest

from tests.ops.served import Server

pytestmark = pytest.mark.slow  # a real server process

ENCODINGS = {"gzip": gzip.decompress, "br": brotli.decompress}


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    served = Server({})
    yield served
    served.stop()


@pytest.fixture(scope="module")
def http(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as client:
        yield client


def raw(http: httpx.Client, method: str, path: str, *, encoding: str = "identity",
        **kwargs: Any) -> tuple[httpx.Response, bytes]:
    """The answer and its body exactly as sent (not decoded)."""
    headers = {"Accept-Encoding": encoding, **kwargs.pop("headers", {})}
    with http.stream(method, path, headers=headers, **kwargs) as response:
        return response, b"".join(response.iter_raw())


def decoded(response: httpx.Response, body: bytes) -> Any:
    encoding = response.headers.get("content-encoding")
    return json.loads(ENCODINGS[encoding](body) if encoding else body)


def _exchange(http: httpx.Client) -> str:
    """A four-player game at its exchange: its snapshot."""
    game = http.post("/v1/games", json={"seed": 42, "first_dealer": 3}).json()
    for move in ({"type": "bid", "seat": 0, "bid": "7H"}, *({"type": "pass", "seat": s} for s in (1, 2, 3))):
        game = http.post("/v1/games/apply", json={"snapshot": game["snapshot"], "move": move}).json()
    assert game["phase"] == "exchange"
    return str(game["snapshot"])


@pytest.mark.parametrize("encoding", ["gzip", "br"])
def test_answers_are_compressed_in_the_encoding_offered(http: httpx.Client, encoding: str) -> None:
    plain, plain_body = raw(http, "GET", "/v1/rules")
    packed, packed_body = raw(http, "GET", "/v1/rules", encoding=encoding)
    assert "content-encoding" not in plain.headers
    assert packed.headers["content-encoding"] == encoding
    assert "accept-encoding" in packed.headers["vary"].lower() and "accept-language" in packed.headers["vary"].lower()
    assert int(packed.headers["content-length"]) == len(packed_body) < len(plain_body) // 3
    assert decoded(packed, packed_body) == json.loads(plain_body)
    # The legal moves at a four-player exchange (286 discards), and a problem body, are compressed alike.
    snapshot = _exchange(http)
    listed, listed_body = raw(http, "POST", "/v1/games/legal-moves", encoding=encoding,
                              json={"snapshot": snapshot})
    assert listed.headers["content-encoding"] == encoding and len(listed_body) < 4_000
    assert len(decoded(listed, listed_body)["legal_moves"]) == 286
    refused, refused_body = raw(http, "POST", "/v1/rules", encoding=encoding)
    assert refused.status_code == 405 and decoded(refused, refused_body)["code"] == "METHOD_NOT_ALLOWED"


@pytest.mark.parametrize("encoding", ["gzip", "br"])
def test_the_fast_apply_route_is_compressed(http: httpx.Client, encoding: str) -> None:
    game = http.post("/v1/games", json={"seed": 42, "first_dealer": 3}).json()
    body = {"snapshot": game["snapshot"], "move": {"type": "pass", "seat": 0}, "views": [0, None]}
    sent = json.dumps(body).encode()
    response, payload = raw(http, "POST", "/v1/games/apply", encoding=encoding, content=sent,
                            headers={"Content-Type": "application/json", "Content-Length": str(len(sent))})
    assert response.status_code == 200 and response.headers["content-encoding"] == encoding
    answer = decoded(response, payload)
    assert [v["seat"] for v in answer["views"]] == [0, None] and len(payload) < len(json.dumps(answer)) // 2


def test_preferences_and_small_answers(http: httpx.Client) -> None:
    response, _ = raw(http, "GET", "/v1/rules", encoding="gzip;q=1, br;q=0.5")
    assert response.headers["content-encoding"] == "gzip"
    response, _ = raw(http, "GET", "/v1/rules", encoding="br;q=0, gzip;q=0")
    assert "content-encoding" not in response.headers
    small, body = raw(http, "GET", "/healthz", encoding="gzip, br")
    assert "content-encoding" not in small.headers and json.loads(body) == {"status": "ok"}


def test_an_event_stream_is_never_compressed_or_buffered(http: httpx.Client, server: Server) -> None:
    created = http.post("/v1/sessions", json={"players": 4, "seed": 42, "known_deal": True, "first_dealer": 3}).json()
    session, tokens = created["session_id"], created["seat_tokens"]
    frames: list[str] = []
    opened = threading.Event()

    def read() -> None:
        with httpx.Client(base_url=server.url, timeout=30) as reader, reader.stream(
                "GET", f"/v1/sessions/{session}/events",
                headers={"Accept-Encoding": "gzip, br", "Authorization": f"Bearer {tokens[1]}"}) as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            assert "content-encoding" not in stream.headers
            opened.set()
            for line in stream.iter_lines():  # the deal's frames first, then the move's, as they happen
                if line.startswith("data:"):
                    frames.append(line)
                    if '"passed"' in line:
                        return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert opened.wait(10)
    time.sleep(0.3)
    moved = http.post(f"/v1/sessions/{session}/moves", json={"move": {"type": "pass", "seat": 0}},
                      headers={"Authorization": f"Bearer {tokens[0]}"})
    assert moved.status_code == 200, moved.text
    reader.join(10)
    assert frames and '"passed"' in frames[-1]  # the move's frame arrived while the stream stayed open
    assert '"hand_dealt"' in frames[0]


@pytest.mark.parametrize("path", ["/v1/rules", "/v1/rules?players=5&preset=beagle", "/schema/openapi.json"])
def test_cacheable_answers_carry_a_validator_and_answer_304(http: httpx.Client, path: str) -> None:
    first, body = raw(http, "GET", path, encoding="br")
    etag = first.headers["etag"]
    assert etag.startswith('W/"') and "max-age" in first.headers["cache-control"]
    again, _ = raw(http, "GET", path, encoding="gzip")
    assert again.headers["etag"] == etag  # one tag for every encoding of the same answer (a weak validator)
    cached, cached_body = raw(http, "GET", path, encoding="br", headers={"If-None-Match": etag})
    assert cached.status_code == 304 and cached_body == b"" and cached.headers["etag"] == etag
    assert "max-age" in cached.headers["cache-control"]
    stale, stale_body = raw(http, "GET", path, encoding="br", headers={"If-None-Match": 'W/"0000", "1111"'})
    assert stale.status_code == 200 and stale_body == body
    croatian, _ = raw(http, "GET", path, headers={"Accept-Language": "hr"})
    if path.startswith("/v1/rules"):
        assert croatian.headers["etag"] != etag  # another variant, another tag
    listed = http.post("/v1/games/legal-moves", json={"snapshot": _exchange(http)})
    assert "etag" not in listed.headers  # a game's answers are not cacheable


def test_the_payload_savings(http: httpx.Client) -> None:
    """What a phone downloads, before and after (README/docs: the figures)."""
    sizes: dict[str, dict[str, int]] = {}
    snapshot = _exchange(http)
    for name, method, path, body in (("rules", "GET", "/v1/rules", None),
                                     ("exchange legal moves", "POST", "/v1/games/legal-moves",
                                      {"snapshot": snapshot}),
                                     ("exchange legal moves, compact", "POST", "/v1/games/legal-moves",
                                      {"snapshot": snapshot, "list_discards": False})):
        sizes[name] = {enc: len(raw(http, method, path, encoding=enc, json=body)[1])
                       for enc in ("identity", "gzip", "br")}
    print(json.dumps(sizes))
    assert sizes["rules"]["br"] < sizes["rules"]["identity"] // 3
    assert sizes["exchange legal moves, compact"]["identity"] < 600 < sizes["exchange legal moves"]["identity"]
