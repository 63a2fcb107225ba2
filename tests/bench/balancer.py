"""One address in front of several replicas: a TCP balancer that hands each new connection to the next replica
in turn (as a layer-4 load balancer or a Kubernetes Service does), for ``load_system.py``; no HTTP parsing.

    python tests/bench/balancer.py PORT HOST:PORT[,HOST:PORT…]

A replica that refuses a connection is passed over for that connection (the next one is tried).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import sys


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()


async def main(port: int, backends: list[tuple[str, int]]) -> None:
    turns = itertools.cycle(range(len(backends)))

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        for _ in range(len(backends)):
            host, backend_port = backends[next(turns)]
            try:
                up_reader, up_writer = await asyncio.open_connection(host, backend_port)
                break
            except OSError:
                continue
        else:
            writer.close()
            return
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))

    server = await asyncio.start_server(handle, "127.0.0.1", port, backlog=4096)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    listen = int(sys.argv[1])
    targets = [(h, int(p)) for h, _, p in (item.rpartition(":") for item in sys.argv[2].split(","))]
    asyncio.run(main(listen, targets))
