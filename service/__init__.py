"""The HTTP service: a thin Litestar shell around :mod:`engine` (stateless snapshots and hosted sessions)."""
