"""Liveness and readiness probes.

* ``GET /healthz`` (``operation_id="getHealth"``): the process is alive; always ``200 {"status": "ok"}``. It
  checks nothing external on purpose: a Redis outage must not make Kubernetes restart healthy pods.
* ``GET /readyz`` (``operation_id="getReadiness"``): runs every readiness check concurrently, each bounded by
  ``timeout`` seconds. All pass: ``200 {"status": "ready", "checks": {"redis": "ok"}}``. Any fails (raises,
  returns ``False`` or times out), or shutdown has begun: ``503`` problem+json with ``code: NOT_READY``, the
  checks in ``detail`` and ``Retry-After``, so the load balancer stops sending traffic to this replica.

Wired in :func:`service.app.create_app` (service/app.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import msgspec
from litestar import Request, Response, get
from litestar.handlers import HTTPRouteHandler
from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example

from service.i18n import request_language
from service.web.problems import PROBLEM_MEDIA_TYPE, ProblemDetails, make_problem

from .shutdown import ShutdownCoordinator

__all__ = ["HealthStatus", "ReadinessCheck", "ReadyStatus", "health_route_handlers"]

#: A readiness check: an async callable that raises or returns ``False`` when its dependency is unusable.
ReadinessCheck = Callable[[], Awaitable[Any]]


class HealthStatus(msgspec.Struct, frozen=True):
    """Liveness: the process answers."""

    status: str = "ok"


class ReadyStatus(msgspec.Struct, frozen=True):
    """Readiness: every dependency check passed."""

    status: str
    checks: dict[str, str]


async def _run_check(check: ReadinessCheck, timeout: float) -> str:
    try:
        async with asyncio.timeout(timeout):
            result = await check()
    except TimeoutError:
        return "timeout"
    except Exception:
        return "failed"
    return "failed" if result is False else "ok"


def health_route_handlers(
    checks: Mapping[str, ReadinessCheck] | None = None,
    *,
    timeout: float = 2.0,
    retry_after_seconds: int = 5,
    shutdown: ShutdownCoordinator | None = None,
    problem_schema: type[Any] = ProblemDetails,
) -> list[HTTPRouteHandler]:
    """The ``GET /healthz`` and ``GET /readyz`` handlers, bound to ``checks`` (name to check).

    ``problem_schema`` is the struct the OpenAPI document names for the 503 body: pass the service's own
    problem-details struct so that the document has one error schema (the body sent is always the five
    RFC 9457 fields ``type``, ``title``, ``status``, ``code``, ``detail``, which that struct must have).
    """
    named_checks = dict(checks or {})
    return [_liveness_handler(), _readiness_handler(named_checks, timeout, str(max(1, retry_after_seconds)),
                                                    shutdown, problem_schema)]


def _liveness_handler() -> HTTPRouteHandler:
    @get(
        "/healthz",
        operation_id="getHealth",
        summary="Liveness probe",
        description="Always 200 while the process can answer; checks no dependency.",
        tags=["operations"],
        sync_to_thread=False,
        cache_control=None,
        responses={
            200: ResponseSpec(
                data_container=HealthStatus,
                description="Alive.",
                generate_examples=False,
                examples=[Example(summary="Alive", value={"status": "ok"})],
            )
        },
    )
    def healthz() -> HealthStatus:
        return HealthStatus()

    return healthz


def _readiness_responses(named_checks: Mapping[str, ReadinessCheck],
                         problem_schema: type[Any]) -> dict[int, ResponseSpec]:
    """``GET /readyz``'s two answers as the OpenAPI document shows them (the handler returns either)."""
    first_check = next(iter(named_checks), "redis")
    return {
        200: ResponseSpec(
            data_container=ReadyStatus,
            description="Ready: every check passed.",
            generate_examples=False,
            examples=[
                Example(
                    summary="Ready",
                    value={"status": "ready", "checks": {name: "ok" for name in named_checks}},
                )
            ],
        ),
        503: ResponseSpec(
            data_container=problem_schema,
            description="Not ready: a dependency check failed or the replica is shutting down "
            "(`NOT_READY`, with `Retry-After`).",
            media_type=PROBLEM_MEDIA_TYPE,
            generate_examples=False,
            examples=[
                Example(
                    summary="NOT_READY",
                    value={
                        "type": "https://fivehundred.dev/problems/not-ready",
                        "title": "Service not ready",
                        "status": 503,
                        "code": "NOT_READY",
                        "detail": f"Failed checks: {first_check}=failed.",
                    },
                )
            ],
        ),
    }


def _readiness_handler(named_checks: dict[str, ReadinessCheck], timeout: float, retry_after: str,
                       shutdown: ShutdownCoordinator | None, problem_schema: type[Any]) -> HTTPRouteHandler:
    @get(
        "/readyz",
        operation_id="getReadiness",
        summary="Readiness probe",
        description="200 when every dependency (the session store) is reachable; 503 otherwise.",
        tags=["operations"],
        responses=_readiness_responses(named_checks, problem_schema),
    )
    # Annotated Any: both statuses are documented by ``responses`` above, each with its own schema.
    async def readyz(request: Request[Any, Any, Any]) -> Response[Any]:
        names = list(named_checks)
        results = await asyncio.gather(*(_run_check(named_checks[name], timeout) for name in names))
        outcome = dict(zip(names, results, strict=True))
        if shutdown is not None and shutdown.shutting_down.is_set():
            outcome["shutdown"] = "shutting_down"
        failed = {name: result for name, result in outcome.items() if result != "ok"}
        if not failed:
            return Response(ReadyStatus(status="ready", checks=outcome))
        problem = make_problem(
            slug="not-ready",
            title="Service not ready",
            code="NOT_READY",
            detail="Failed checks: " + ", ".join(f"{k}={v}" for k, v in sorted(failed.items())) + ".",
            language=request_language(request.scope), instance=request.url.path,
            params={"checks": ", ".join(f"{k}={v}" for k, v in sorted(failed.items()))},
        )
        return Response(
            problem,
            status_code=503,
            media_type=PROBLEM_MEDIA_TYPE,
            headers={"Retry-After": retry_after},
        )

    return readyz
