"""A bare Litestar + msgspec echo: the ceiling the served apply is measured against (a benchmark's app, not a test).

``POST /echo`` decodes the JSON body with msgspec and answers it encoded again; ``GET /readyz`` answers 200.
No middleware, no dependencies, no OpenAPI: the framework's and the HTTP server's own cost for a request of the
apply path's size. ``tests/bench/bench_http.py --echo`` serves it beside the service
(``uvicorn --factory tests.bench.echo_app:create_app --http httptools``).
"""

from __future__ import annotations

from typing import Any

import msgspec
from litestar import Litestar, Request, get, post
from litestar.response import Response

_DECODER = msgspec.json.Decoder()
_ENCODER = msgspec.json.Encoder()


@post("/echo", status_code=200, sync_to_thread=False)
async def echo(request: Request[Any, Any, Any]) -> Response[bytes]:
    return Response(_ENCODER.encode(_DECODER.decode(await request.body())), media_type="application/json")


@get("/readyz", sync_to_thread=False)
def ready() -> dict[str, str]:
    return {"status": "ok"}


def create_app() -> Litestar:
    return Litestar([echo, ready], openapi_config=None)
