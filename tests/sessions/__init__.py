"""Tests of the hosted sessions (``service.sessions``), against real redis-server and uvicorn processes."""
