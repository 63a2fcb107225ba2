"""The request metrics kept in plain counts until a scrape (service/ops/metrics.py ``observe_request``) show what
``prometheus_client``'s own ``inc`` and ``observe`` on every request would show."""

from __future__ import annotations

import math
import random

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest

from service.ops.metrics import DEFAULT_LATENCY_BUCKETS, ServiceMetrics


def _samples(text: bytes, names: set[str]) -> dict[str, float]:
    out = {}
    for line in text.decode().splitlines():
        if line and not line.startswith("#") and line.split("{")[0] in names:
            key, _, value = line.rpartition(" ")
            out[key] = float(value)
    return out


def test_batched_request_metrics_match_prometheus_own() -> None:
    metrics = ServiceMetrics()
    registry = CollectorRegistry(auto_describe=True)
    counter = Counter("http_requests_total", "x", ("method", "route", "status"), registry=registry)
    histogram = Histogram("http_request_duration_seconds", "x", ("method", "route"),
                          buckets=DEFAULT_LATENCY_BUCKETS, registry=registry)
    rng = random.Random(1)
    scraped = []
    for i in range(4000):
        method, route, status = rng.choice(["GET", "POST", "BREW"]), rng.choice(["/a", "/b"]), rng.choice([200, 404])
        duration = rng.choice([None, rng.random() * 0.02, rng.random() * 20, 0.005, 0.001, 10.0, 11.0])
        metrics.observe_request(method, route, status, duration)
        method = method if method != "BREW" else "OTHER"
        counter.labels(method=method, route=route, status=str(status)).inc()
        if duration is not None:
            histogram.labels(method=method, route=route).observe(duration)
        if i in (0, 1999, 3999):  # every scrape sees every request so far
            names = {"http_requests_total", "http_request_duration_seconds_bucket",
                     "http_request_duration_seconds_count", "http_request_duration_seconds_sum"}
            ours, theirs = _samples(metrics.render(), names), _samples(generate_latest(registry), names)
            assert ours.keys() == theirs.keys()
            for key, value in theirs.items():  # sums added in another order: equal up to rounding
                assert math.isclose(ours[key], value, rel_tol=1e-9), key
            scraped.append(ours)
    total = sum(value for key, value in scraped[-1].items() if key.startswith("http_requests_total{"))
    assert total == 4000
