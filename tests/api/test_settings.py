"""Settings that would silently do nothing are normalised or refused at start."""

from __future__ import annotations

import pytest
from litestar.testing import TestClient

from service.app import create_app
from service.config import ConfigError, load_settings


@pytest.mark.parametrize(("raw", "origins"), [
    ("https://play.example/", ("https://play.example",)),
    ("https://Play.Example:8443, http://localhost:3000/", ("https://play.example:8443", "http://localhost:3000")),
    ("*", ("*",)),
    ("https://a.example,https://a.example/", ("https://a.example",)),
    ("", ()),
])
def test_cors_origins_are_normalised(raw: str, origins: tuple[str, ...]) -> None:
    assert load_settings({"CORS_ORIGINS": raw}).cors_origins == origins


@pytest.mark.parametrize("raw", ["https://play.example/app", "play.example", "https://play.example?x=1",
                                 "ftp://play.example", "https://u@play.example"])
def test_cors_origins_that_can_never_match_are_refused(raw: str) -> None:
    with pytest.raises(ConfigError, match="CORS_ORIGINS"):
        load_settings({"CORS_ORIGINS": raw})


def test_a_trailing_slash_origin_matches_the_browsers_origin() -> None:
    settings = load_settings({"CORS_ORIGINS": "https://play.example/"})
    with TestClient(create_app(settings)) as client:
        response = client.get("/v1/rules", headers={"origin": "https://play.example"})
    assert response.headers["access-control-allow-origin"] == "https://play.example"


@pytest.mark.parametrize("raw", [" , ,", ",", "  ,  "])
def test_an_api_key_list_of_nothing_is_refused(raw: str) -> None:
    with pytest.raises(ConfigError, match="API_KEYS"):
        load_settings({"API_KEYS": raw})


@pytest.mark.parametrize(("raw", "keys"), [("", ()), ("k1", ("k1",)), (" k1 , k2 ,", ("k1", "k2"))])
def test_api_keys_unset_empty_or_listed(raw: str, keys: tuple[str, ...]) -> None:
    assert load_settings({"API_KEYS": raw}).api_keys == keys
    assert load_settings({}).api_keys == ()
