"""An async HTTP client whose connections are pinned to addresses the rule checked at connect time.

The client resolves a name once per connection, refuses it unless every address is
allowed, and connects to a checked address; TLS still verifies the URL's host name.
Every server here is on 127.0.0.1 (an ephemeral port) and the ``guard`` fixture answers
the test names, so nothing leaves the machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import ipaddress
import shutil
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Optional

import pytest
from net_guard import PUBLIC, Guard

pytest.importorskip("httpx2", reason="needs the 'mcp' extra: pip install '.[mcp]' (or 'lagent-like[mcp]')")

import httpx2 as httpx

from lagent_like._net._pinned import pinned_async_client
from lagent_like._net.egress import AddressRefused, AddressRule

LOOPBACK_ALLOWED = AddressRule(allowed=(ipaddress.ip_network("127.0.0.0/8"),))


class Hello(http.server.BaseHTTPRequestHandler):
    """Answers every GET with ``hello`` and the Host header it was sent."""

    def do_GET(self) -> None:
        body = f"hello {self.headers['Host']}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""


@contextlib.contextmanager
def hello_server(tls: Optional[ssl.SSLContext] = None) -> Iterator[int]:
    """A server on 127.0.0.1 (TLS when given a context); yields its port, stops it after."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hello)
    if tls is not None:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        thread.join()
        server.server_close()


def get(url: str, rule: AddressRule = LOOPBACK_ALLOWED, verify: Any = True) -> str:
    async def fetch() -> str:
        async with pinned_async_client(rule, httpx, verify=verify) as client:
            reply = await client.get(url)
            return f"{reply.status_code} {reply.text}"

    return asyncio.run(fetch())


def test_a_name_is_resolved_at_connect_and_the_checked_address_is_connected(guard: Guard) -> None:
    with hello_server() as port:
        assert get(f"http://loopback.test:{port}/") == f"200 hello loopback.test:{port}"
    assert guard.attempts == [("127.0.0.1", port)]


@pytest.mark.parametrize(
    ("name", "answers", "message"),
    [
        pytest.param(
            "rebind.test",
            ["10.0.0.1"],
            "rebind.test resolves to 10.0.0.1, a private or local address; not opened",
            id="private",
        ),
        pytest.param(
            "metadata.test",
            ["169.254.169.254"],
            "metadata.test resolves to 169.254.169.254, a private or local address; not opened",
            id="metadata",
        ),
        pytest.param(
            "mixed.test",
            [PUBLIC, "10.0.0.5"],
            "mixed.test resolves to 10.0.0.5, a private or local address; not opened",
            id="one-private-among-public",
        ),
    ],
)
def test_a_name_answering_a_refused_address_at_connect_is_refused_and_nothing_is_sent(
    guard: Guard, name: str, answers: list[str], message: str
) -> None:
    guard.names[name] = lambda: answers
    with pytest.raises(AddressRefused, match=f"^{message}$"):
        get(f"http://{name}:8000/")
    assert guard.attempts == []


def test_the_client_refuses_options_that_would_bypass_the_pinned_transport() -> None:
    with pytest.raises(TypeError, match=r"^pinned_async_client sets \['proxy', 'transport'\] itself$"):
        pinned_async_client(LOOPBACK_ALLOWED, httpx, transport=None, proxy="http://127.0.0.1:9")


def test_a_pinned_client_ignores_the_environments_proxy(
    guard: Guard, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Through a proxy, the proxy would pick the address: the pinned client never uses one.
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("ALL_PROXY", "http://127.0.0.1:9")
    with hello_server() as port:
        assert get(f"http://loopback.test:{port}/") == f"200 hello loopback.test:{port}"
    assert guard.attempts == [("127.0.0.1", port)]


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    """A self-signed certificate for ``tls.test`` and its key."""
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command to make a test certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=tls.test",
         "-addext", "subjectAltName=DNS:tls.test", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
        timeout=60,
    )  # fmt: skip
    return cert, key


def test_tls_to_a_checked_address_verifies_the_certificate_against_the_urls_host_name(
    guard: Guard, certificate: tuple[Path, Path]
) -> None:
    cert, key = certificate
    server_side = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_side.load_cert_chain(cert, key)
    names_asked: list[Optional[str]] = []
    server_side.sni_callback = lambda sock, name, context: names_asked.append(name)
    trusting = ssl.create_default_context(cafile=str(cert))
    trusting.verify_flags &= ~getattr(ssl, "VERIFY_X509_STRICT", 0)
    guard.names["tls.test"] = lambda: ["127.0.0.1"]
    with hello_server(server_side) as port:
        assert get(f"https://tls.test:{port}/", verify=trusting) == f"200 hello tls.test:{port}"
        # The same server by its address: the name in the certificate is not the address.
        with pytest.raises(httpx.ConnectError, match="certificate verify failed"):
            get(f"https://127.0.0.1:{port}/", verify=trusting)
    assert names_asked[0] == "tls.test"
    assert guard.refused() == []


def test_the_pinned_client_tries_the_next_checked_address_when_one_does_not_answer(guard: Guard) -> None:
    # 127.0.0.2 answers nothing on the port (refused at once); 127.0.0.1 serves.
    with hello_server() as port:
        guard.names["two.test"] = lambda: ["127.0.0.2", "127.0.0.1"]
        assert get(f"http://two.test:{port}/") == f"200 hello two.test:{port}"
    assert guard.attempts == [("127.0.0.2", port), ("127.0.0.1", port)]
