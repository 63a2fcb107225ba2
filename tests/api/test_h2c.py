"""A request offering ``Upgrade: h2c`` keeps its body, on the service started exactly as the README says.

Java's ``java.net.http.HttpClient`` (and Spring's RestClient, Ktor …) offers a cleartext HTTP/2 upgrade on every
plain-http request. A server may ignore the offer (RFC 9110 §7.8) and must then serve the request as HTTP/1.1,
body included. uvicorn's own httptools protocol does not (Kludex/uvicorn#2722: the body is lost, so every POST
is a 400 "the request body is empty"); the served protocol (``service.ops.serving:GuardedHttpToolsProtocol``,
which the README, the Dockerfile, the Compose file and the manifests run) goes on reading the request as
HTTP/1.1, and so does the pure-Python ``GuardedH11Protocol``. This test starts the README's command (and the
same with the h11 protocol) on a free port and sends such requests over a raw socket.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
import yaml

from tests.support import ROOT, free_port

BODY = b'{"players": 4, "seed": 42}'
UPGRADE = (b"Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
           b"HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\n")


def readme_command() -> list[str]:
    """The README's run command: the ``uvicorn`` invocation of its first shell block."""
    text = (ROOT / "README.md").read_text()
    line = next(ln for ln in text.splitlines() if "uvicorn --factory" in ln and ln.startswith("python3"))
    argv = shlex.split(line.split("&&")[-1])
    assert argv[0].endswith("uvicorn"), argv
    return argv[1:]


H11 = "service.ops.serving:GuardedH11Protocol"


@pytest.fixture(scope="module", params=["readme", "h11"])
def readme_server(request: pytest.FixtureRequest) -> Iterator[int]:
    argv = readme_command()
    if request.param == "h11":
        argv[argv.index("--http") + 1] = H11
    port = free_port()
    argv[argv.index("--port") + 1] = str(port)
    env = dict(os.environ, SNAPSHOT_KEYS=base64.urlsafe_b64encode(bytes(32)).rstrip(b"=").decode(),
               LOG_LEVEL="WARNING")
    proc = subprocess.Popen([sys.executable, "-m", "uvicorn", *argv], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    output = proc.stderr.read() if proc.stderr else b""
                    raise RuntimeError(f"uvicorn did not start: {output!r}") from None
                time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=15)


def _exchange(port: int, request: bytes, parts: int = 1) -> tuple[int, dict[str, str], bytes]:
    """Send ``request`` (in ``parts`` writes, as clients that write headers and body apart do); read one answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        head, _, body = request.partition(b"\r\n\r\n")
        chunks = [request] if parts == 1 else [head + b"\r\n\r\n", body]
        for chunk in chunks:
            sock.sendall(chunk)
            time.sleep(0.05)
        data = b""
        while b"\r\n\r\n" not in data:
            data += sock.recv(65536)
        head_bytes, _, rest = data.partition(b"\r\n\r\n")
        lines = head_bytes.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
        length = int(headers.get("content-length", "0"))
        while len(rest) < length:
            rest += sock.recv(65536)
        return status, headers, rest[:length]


@pytest.mark.parametrize("parts", [1, 2])
@pytest.mark.parametrize("framing", ["content-length", "chunked"])
def test_a_post_offering_h2c_keeps_its_body(readme_server: int, framing: str, parts: int) -> None:
    if framing == "chunked":
        framed = b"Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n" % (len(BODY), BODY)
    else:
        framed = b"Content-Length: %d\r\n\r\n%s" % (len(BODY), BODY)
    request = (b"POST /v1/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" + UPGRADE
               + framed)
    status, headers, body = _exchange(readme_server, request, parts)
    assert status == 201, body
    created = json.loads(body)
    assert created["options"]["players"] == 4 and created["snapshot"].startswith("v2.")
    assert headers.get("upgrade") is None  # the offer is ignored: the answer is HTTP/1.1


def test_a_get_offering_h2c_is_served(readme_server: int) -> None:
    status, _, body = _exchange(readme_server, b"GET /v1/rules HTTP/1.1\r\nHost: 127.0.0.1\r\n" + UPGRADE + b"\r\n")
    assert status == 200 and json.loads(body)["kitty_size"] == 3


def _read_answers(sock: socket.socket, count: int) -> list[tuple[int, bytes]]:
    """``count`` answers (status, body) read off a kept-alive connection, all with a Content-Length."""
    data = b""
    out: list[tuple[int, bytes]] = []
    while len(out) < count:
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            assert chunk, f"the connection closed after {len(out)} answers"
            data += chunk
        head, _, data = data.partition(b"\r\n\r\n")
        length = int(re.search(rb"(?i)content-length: *(\d+)", head)[1])  # type: ignore[index]
        while len(data) < length:
            data += sock.recv(65536)
        out.append((int(head.split()[1]), data[:length]))
        data = data[length:]
    return out


def test_offering_requests_keep_their_bodies_on_a_kept_alive_connection(readme_server: int) -> None:
    """Several POSTs on one connection, each offering h2c, pipelined in one write and then one by one, chunked
    and not, then a plain request: every answer is the one its own body asks for."""
    def post(players: int, chunked: bool) -> bytes:
        body = b'{"players": %d, "seed": 7}' % players
        framed = (b"Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n" % (len(body), body) if chunked
                  else b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        return (b"POST /v1/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" + UPGRADE
                + framed)

    with socket.create_connection(("127.0.0.1", readme_server), timeout=10) as sock:
        sock.sendall(post(2, False) + post(3, True) + post(4, False))
        answers = _read_answers(sock, 3)
        for players in (5, 6):
            sock.sendall(post(players, players == 6))
            answers += _read_answers(sock, 1)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        answers += _read_answers(sock, 1)
    assert [status for status, _ in answers] == [201] * 5 + [200]
    # Each answer is the game its own body asked for, in order: no body lost, none read twice.
    assert [json.loads(body)["options"]["players"] for _, body in answers[:5]] == [2, 3, 4, 5, 6]


def test_the_readme_dockerfile_and_compose_run_the_same_http_implementation() -> None:
    """All three run the served protocol (service/ops/serving.py), which keeps the body of an h2c offer."""
    from uvicorn.config import HTTP_PROTOCOLS
    from uvicorn.importer import import_from_string

    from service.ops.serving import GuardedHttpToolsProtocol

    readme = readme_command()
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text()
    cmd = json.loads(re.search(r"^CMD (\[.*\])$", dockerfile, re.MULTILINE)[1])  # type: ignore[index]
    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    command = compose["services"]["api"]["command"]
    chosen = {argv[argv.index("--http") + 1] for argv in (readme, cmd, command)}
    assert len(chosen) == 1
    name = chosen.pop()
    protocol = import_from_string(HTTP_PROTOCOLS.get(name, name))
    assert protocol is GuardedHttpToolsProtocol
