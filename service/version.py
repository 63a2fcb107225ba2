"""The release's version: one number for the distribution (``pyproject.toml`` reads it from here) and the HTTP
contract (the OpenAPI document's ``info.version``), carried by the client packages built from that document
(``clients/``).

It follows semantic versioning of the contract: a major release is a new path prefix (``/v1`` is 1.x), a minor
one adds to the contract without breaking a client, a patch changes no shape. The rules version
(``engine.options.RULES_VERSION``, e.g. ``2026.11.1``) is separate: it names the rules a game is refereed by
and changes only when they do (docs/API.md, "Versions").
"""

__version__ = "1.0.0"
