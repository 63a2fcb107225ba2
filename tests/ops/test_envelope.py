"""The request envelope (service/ops/envelope.py): its layers are the ones the fast lane takes the steps of, and
the lane will not stand over a layer it has no step for."""

from __future__ import annotations

from typing import Any

import pytest

from service.app import create_app
from service.config import Settings
from service.ops import fastlane
from service.ops.envelope import outer_layers
from service.ops.fastlane import LANE_LAYERS, FastLane
from service.ops.metrics import ServiceMetrics
from service.ops.shutdown import ShutdownCoordinator
from tests.support import KEY


def test_the_lane_knows_every_layer_of_the_envelope() -> None:
    layers = outer_layers(ServiceMetrics(), ShutdownCoordinator())
    assert tuple(layer.middleware for layer in layers) == LANE_LAYERS


def test_the_lane_refuses_a_layer_it_has_no_step_for() -> None:
    app = create_app(Settings(snapshot_keys=(KEY,), log_level="WARNING"))
    lane = app.asgi_handler
    assert isinstance(lane, FastLane)
    below: Any = lane.app
    for _ in LANE_LAYERS:
        below = below.app

    class Unknown:
        def __init__(self, inner: Any) -> None:
            self.app = inner

        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            await self.app(scope, receive, send)

    with pytest.raises(TypeError, match="Unknown"):
        FastLane(Unknown(lane.app), routes=lane.routes, below=below, max_body_bytes=1024, cors=False)


def test_the_lane_refuses_usual_headers_that_are_not_the_layers(monkeypatch: pytest.MonkeyPatch) -> None:
    app = create_app(Settings(snapshot_keys=(KEY,), log_level="WARNING"))
    lane = app.asgi_handler
    assert isinstance(lane, FastLane)
    below: Any = lane.app
    for _ in LANE_LAYERS:
        below = below.app
    usual = fastlane.usual_headers
    monkeypatch.setattr(fastlane, "usual_headers", lambda *args: usual(*args)[:-1])
    with pytest.raises(TypeError, match="usual headers"):
        FastLane(lane.app, routes=lane.routes, below=below, max_body_bytes=1024, cors=False)
