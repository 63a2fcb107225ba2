"""Swagger UI is served from the service's own assets: the page references nothing outside the service, and
every asset it references is served (so it works offline and behind a same-origin CSP)."""

from __future__ import annotations

import re

import pytest

from .helpers import Client


@pytest.mark.parametrize("path", ["/schema/swagger", "/schema"])
def test_swagger_ui_loads_only_the_services_own_assets(client: Client, path: str) -> None:
    page = client.get(path)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    html = page.text
    assert "SwaggerUIBundle" in html
    references = re.findall(r"(?:src|href)=['\"]([^'\"]+)['\"]", html)
    assert references and all(r.startswith("/schema/swagger-ui/") for r in references), references
    # No CDN host anywhere (the page also embeds the contract, whose example snapshots are random base64url, so
    # a bare "cdn" can occur in them by chance; a host name cannot: base64url has no dot).
    assert not re.search(r"cdn[\w-]*\.|jsdelivr|unpkg", html, re.IGNORECASE) and "@import" not in html
    assert {r.rsplit("/", 1)[-1] for r in references} >= {"swagger-ui-bundle.js", "swagger-ui.css",
                                                          "swagger-ui-standalone-preset.js"}
    for reference in references:
        asset = client.get(reference)
        assert asset.status_code == 200, reference
        assert len(asset.content) > 500, reference
    bundle = client.get("/schema/swagger-ui/swagger-ui-bundle.js")
    assert "javascript" in bundle.headers["content-type"]
    assert '"operationId":"applyMove"' in html.replace(" ", "")  # it shows the service's own document


def test_the_ui_assets_are_not_operations_of_the_contract(client: Client) -> None:
    document = client.get("/schema/openapi.json").json()
    assert not any(path.startswith("/schema") for path in document["paths"])
