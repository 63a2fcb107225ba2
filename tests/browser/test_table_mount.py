"""The table's mount: ``/demo/`` serves the page and its files by default, ``DEMO_ENABLED=false`` leaves it out.

No browser needed: the app in process (Litestar's TestClient), and the setting's parsing.
"""

from __future__ import annotations

import pytest
from litestar.testing import TestClient

from service.app import create_app
from service.config import ConfigError, Settings, load_settings


def settings(*, demo_enabled: bool = True) -> Settings:
    return Settings(snapshot_keys=(bytes(32),), log_level="WARNING", demo_enabled=demo_enabled)


def test_the_table_is_served_by_default() -> None:
    assert load_settings({}).demo_enabled is True
    with TestClient(create_app(settings())) as client:
        for path in ("/demo", "/demo/", "/demo/index.html"):
            page = client.get(path)
            assert page.status_code == 200, path
            assert page.headers["content-type"].startswith("text/html")
            assert '<script type="module" src="/demo/table.js">' in page.text
        script = client.get("/demo/table.js")
        assert script.status_code == 200 and "javascript" in script.headers["content-type"]
        assert "Idempotency-Key" in script.text and "If-Match" in script.text
        assert client.get("/demo/table.css").headers["content-type"].startswith("text/css")
        assert client.get("/demo/missing.js").status_code == 404
        # Not part of the API's contract.
        paths = client.get("/schema/openapi.json").json()["paths"]
        assert not [p for p in paths if p.startswith("/demo")]


@pytest.mark.parametrize("value", ["false", "0", "no", "off", "FALSE"])
def test_demo_enabled_false_leaves_the_table_out(value: str) -> None:
    assert load_settings({"DEMO_ENABLED": value}).demo_enabled is False
    with TestClient(create_app(settings(demo_enabled=False))) as client:
        assert client.get("/demo/").status_code == 404
        assert client.get("/demo/table.js").status_code == 404
        assert client.get("/v1/rules").status_code == 200


@pytest.mark.parametrize("value", ["true", "1", "yes", "on", " True ", ""])
def test_demo_enabled_true_values(value: str) -> None:
    assert load_settings({"DEMO_ENABLED": value}).demo_enabled is True


def test_demo_enabled_refuses_other_values() -> None:
    with pytest.raises(ConfigError, match="DEMO_ENABLED must be true or false"):
        load_settings({"DEMO_ENABLED": "maybe"})
