"""Operational building blocks for the Litestar app: JSON logs with request ids, request metrics, graceful
shutdown, health probes, CORS, API keys, rate limits and the served HTTP protocols.

The assembly is :func:`service.app.create_app` (service/app.py): the route-level middleware (rate limits, API
keys) inside routing and CORS, so that their 429 and 401 carry CORS headers, and around Litestar's whole
handler the request envelope of :mod:`service.ops.envelope`, the outer layers listed once (languages, request
ids and the access line, request metrics, the in-flight count, response encoding) with the fast lane
(:mod:`service.ops.fastlane`) outside them. Each module's docstring says what it does.

Run uvicorn with ``--no-access-log`` and ``--http service.ops.serving:GuardedHttpToolsProtocol`` (the
deploy/Dockerfile does).
"""
