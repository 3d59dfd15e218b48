"""WebBrowser's address rule, tried the way an attacker would (issue 21, item 3).

Every test here first installs ``guard``: no connection may leave 127.0.0.0/8 or ::1,
and no name is looked up on the network (a stub answers the names below, numeric
hosts are parsed locally). A URL that got round the rule therefore shows up as a
request to the local server, or as an attempt in ``guard``, never as a packet elsewhere.
"""

from __future__ import annotations

import ipaddress
import json
import ssl
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from local_http_server import LocalServer, Reply
from net_guard import PUBLIC, Guard

from lagent_like import ActionStatusCode
from lagent_like._net.egress import AddressRule, guarded_session
from lagent_like.tools.web.web_browser import SerperSearch, WebBrowser


def opened(tool: WebBrowser, url: str) -> Any:
    ret = tool({"url": url}, "open_url")
    assert ret.state == ActionStatusCode.SUCCESS, ret.errmsg
    (item,) = ret.result
    return json.loads(item["content"])


def refusal(text: str) -> dict[str, str]:
    return {"error": f"WebBrowser: {text}"}


PAGE = "<html><body><p>internal</p></body></html>"


# --- the default rule: public addresses only -------------------------------------------------


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        pytest.param(
            "http://127.0.0.1:{port}\\@1.1.1.1/",
            "the host part of 'http://127.0.0.1:{port}\\\\@1.1.1.1/' contains '\\\\'; not opened",
            id="backslash-before-userinfo",
        ),
        pytest.param(
            "http://127.0.0.1:{port}\\.1.1.1.1/",
            "the host part of 'http://127.0.0.1:{port}\\\\.1.1.1.1/' contains '\\\\'; not opened",
            id="backslash-as-path",
        ),
        pytest.param(
            "http://1.1.1.1\t@127.0.0.1:{port}/",
            "'http://1.1.1.1\\t@127.0.0.1:{port}/' contains a control character; not opened",
            id="tab",
        ),
        pytest.param(
            "http://127.0.0.1:{port}\n.public.test/",
            "'http://127.0.0.1:{port}\\n.public.test/' contains a control character; not opened",
            id="newline",
        ),
        pytest.param(
            "http://public.test\r@127.0.0.1:{port}/",
            "'http://public.test\\r@127.0.0.1:{port}/' contains a control character; not opened",
            id="carriage-return",
        ),
        pytest.param(
            "http://127.0.0.1:{port}\x00.public.test/",
            "'http://127.0.0.1:{port}\\x00.public.test/' contains a control character; not opened",
            id="nul",
        ),
        pytest.param(
            "http://127.0.0.1 .public.test:{port}/",
            "the host part of 'http://127.0.0.1 .public.test:{port}/' contains ' '; not opened",
            id="space",
        ),
        pytest.param(
            "http://%31%32%37.0.0.1:{port}/",
            "the host part of 'http://%31%32%37.0.0.1:{port}/' contains '%'; not opened",
            id="percent-encoded-host",
        ),
        pytest.param(
            "http://public.test@127.0.0.1:{port}/",
            "127.0.0.1 is a private or local address; not opened",
            id="userinfo-hides-loopback",
        ),
        pytest.param(
            "http://2130706433:{port}/",
            "2130706433 resolves to 127.0.0.1, a private or local address; not opened",
            id="decimal-ipv4",
        ),
        pytest.param(
            "http://0x7f.1:{port}/",
            "0x7f.1 resolves to 127.0.0.1, a private or local address; not opened",
            id="hex-ipv4",
        ),
        pytest.param(
            "http://0177.0.0.1:{port}/",
            "0177.0.0.1 resolves to 127.0.0.1, a private or local address; not opened",
            id="octal-ipv4",
        ),
        pytest.param(
            "http://[::ffff:127.0.0.1]:{port}/",
            "::ffff:127.0.0.1 is a private or local address; not opened",
            id="ipv4-mapped-ipv6",
        ),
        pytest.param(
            "http://[::1]:{port}/", "::1 is a private or local address; not opened", id="ipv6-loopback"
        ),
        pytest.param(
            "http://0.0.0.0:{port}/", "0.0.0.0 is a private or local address; not opened", id="unspecified"
        ),
        pytest.param(
            "http://loopback.test:{port}/",
            "loopback.test resolves to 127.0.0.1, a private or local address; not opened",
            id="name-of-loopback",
        ),
        pytest.param(
            "http://mixed.test:{port}/",
            "mixed.test resolves to 10.0.0.5, a private or local address; not opened",
            id="name-with-one-private-address-among-public-ones",
        ),
    ],
)
def test_open_url_refuses_every_disguise_of_a_local_address(
    guard: Guard, server: LocalServer, url: str, expected: str
) -> None:
    server.replies["/"] = Reply(200, PAGE, content_type="text/html")
    port = server.base.rsplit(":", 1)[1]
    tool = WebBrowser(searcher_type=SerperSearch(api_key="k", base_url=server.base))
    assert opened(tool, url.format(port=port)) == refusal(expected.format(port=port))
    assert (server.requests, guard.attempts) == ([], [])


@pytest.mark.parametrize(
    "address",
    [
        pytest.param("169.254.169.254", id="cloud-metadata"),
        pytest.param("10.1.2.3", id="rfc1918-10"),
        pytest.param("172.16.0.1", id="rfc1918-172"),
        pytest.param("192.168.1.1", id="rfc1918-192"),
        pytest.param("100.64.0.1", id="cgnat"),
        pytest.param("224.0.0.1", id="multicast"),
        pytest.param("240.0.0.1", id="reserved"),
        pytest.param("255.255.255.255", id="broadcast"),
        pytest.param("[fe80::1]", id="ipv6-link-local"),
        pytest.param("[fd00::1]", id="ipv6-unique-local"),
        pytest.param("[ff02::1]", id="ipv6-multicast"),
        pytest.param("[::]", id="ipv6-unspecified"),
        pytest.param("[2002:7f00:1::]", id="6to4-of-loopback"),
        pytest.param("[64:ff9b::7f00:1]", id="nat64-of-loopback"),
    ],
)
def test_open_url_refuses_non_public_address_ranges(guard: Guard, address: str) -> None:
    tool = WebBrowser(searcher_type="GoogleSearch")
    assert opened(tool, f"http://{address}/") == refusal(
        f"{address.strip('[]')} is a private or local address; not opened"
    )
    assert guard.attempts == []


def test_userinfo_that_looks_like_a_local_host_connects_to_the_host_after_the_at(
    guard: Guard, server: LocalServer
) -> None:
    # Every parser reads 1.1.1.1 as the host here; the connection goes there (refused by
    # the guard, so nothing leaves) and never to the local server.
    port = server.base.rsplit(":", 1)[1]
    tool = WebBrowser(searcher_type="GoogleSearch")
    assert opened(tool, f"http://127.0.0.1:{port}@1.1.1.1/") == refusal(
        "could not reach http://1.1.1.1/ (ConnectionError)"
    )
    assert (server.requests, guard.attempts) == ([], [("1.1.1.1", 80)])


def test_a_name_is_resolved_once_and_the_checked_address_is_the_one_connected_to(
    guard: Guard, server: LocalServer
) -> None:
    # DNS rebinding: public when looked at, loopback afterwards.
    answers = iter([[PUBLIC], ["127.0.0.1"], ["127.0.0.1"]])
    guard.names["rebind.test"] = lambda: next(answers)
    port = int(server.base.rsplit(":", 1)[1])
    tool = WebBrowser(searcher_type="GoogleSearch")
    assert opened(tool, f"http://rebind.test:{port}/") == refusal(
        f"could not reach http://rebind.test:{port}/ (ConnectionError)"
    )
    assert (server.requests, guard.attempts, next(answers)) == ([], [(PUBLIC, port)], ["127.0.0.1"])


def test_a_rebound_name_is_refused_at_connect_time(guard: Guard, server: LocalServer) -> None:
    # The name turns local on the connection after the first: that one is refused too.
    answers = iter([[PUBLIC], ["127.0.0.1"]])
    guard.names["rebind.test"] = lambda: next(answers)
    port = int(server.base.rsplit(":", 1)[1])
    tool = WebBrowser(searcher_type="GoogleSearch")
    first = opened(tool, f"http://rebind.test:{port}/")
    second = opened(tool, f"http://rebind.test:{port}/")
    assert (first, second) == (
        refusal(f"could not reach http://rebind.test:{port}/ (ConnectionError)"),
        refusal("rebind.test resolves to 127.0.0.1, a private or local address; not opened"),
    )
    assert (server.requests, guard.attempts) == ([], [(PUBLIC, port)])


def test_a_search_result_on_a_local_address_is_not_read(guard: Guard, server: LocalServer) -> None:
    # The search API itself is the operator's (here on loopback); its results are not.
    port = server.base.rsplit(":", 1)[1]
    organic = [{"link": f"http://127.0.0.1:{port}\\@1.1.1.1/secret", "title": "S", "snippet": "s"}]
    server.replies["/search"] = Reply(200, json.dumps({"organic": organic}))
    server.replies["/secret"] = Reply(200, PAGE, content_type="text/html")
    tool = WebBrowser(searcher_type=SerperSearch(api_key="k", base_url=server.base))
    found = tool({"query": "q"}, "search")
    selected = tool({"select_ids": [0]}, "select")
    assert (found.state, selected.state, json.loads(selected.result[0]["content"])) == (
        ActionStatusCode.SUCCESS,
        ActionStatusCode.SUCCESS,
        {},
    )
    assert [r["path"] for r in server.requests] == ["/search"]
    assert guard.refused() == []


# --- allow_private_hosts: an allowlist, and redirects ------------------------------------------


def test_an_allowed_network_is_read_and_a_redirect_out_of_it_is_refused(
    guard: Guard, server: LocalServer
) -> None:
    port = server.base.rsplit(":", 1)[1]
    server.replies["/p"] = Reply(200, "<p>the page</p>", content_type="text/html")
    server.replies["/here"] = Reply(302, "", headers={"Location": "/p"})
    server.replies["/to-127.0.0.2"] = Reply(302, "", headers={"Location": f"http://127.0.0.2:{port}/p"})
    server.replies["/to-ipv6"] = Reply(302, "", headers={"Location": f"http://[::1]:{port}/p"})
    server.replies["/to-metadata"] = Reply(302, "", headers={"Location": "http://169.254.169.254/"})
    server.replies["/to-file"] = Reply(302, "", headers={"Location": "file:///etc/passwd"})
    tool = WebBrowser(searcher_type="GoogleSearch", allow_private_hosts=["127.0.0.1"])
    results = [opened(tool, f"{server.base}{path}") for path in ["/p", "/here", "/to-127.0.0.2", "/to-ipv6"]]
    results += [opened(tool, f"{server.base}{path}") for path in ["/to-metadata", "/to-file"]]
    assert results == [
        {"type": "text", "content": "the page"},
        {"type": "text", "content": "the page"},
        refusal("127.0.0.2 is a private or local address; not opened"),
        refusal("::1 is a private or local address; not opened"),
        refusal("169.254.169.254 is a private or local address; not opened"),
        refusal(
            f"could not send the request to {server.base}/to-file: "
            "No connection adapters were found for 'file:///etc/passwd'"
        ),
    ]
    assert [r["path"] for r in server.requests] == [
        "/p",
        "/here",
        "/p",
        "/to-127.0.0.2",
        "/to-ipv6",
        "/to-metadata",
        "/to-file",
    ]
    assert {a[0] for a in guard.attempts} == {"127.0.0.1"}


def test_a_connection_kept_for_an_allowlist_is_not_reused_by_a_stricter_browser(
    guard: Guard, server: LocalServer
) -> None:
    server.replies["/p"] = Reply(200, "<p>the page</p>", content_type="text/html")
    loose = WebBrowser(searcher_type="GoogleSearch", allow_private_hosts="127.0.0.0/8")
    strict = WebBrowser(searcher_type="GoogleSearch")
    assert [opened(loose, f"{server.base}/p"), opened(strict, f"{server.base}/p")] == [
        {"type": "text", "content": "the page"},
        refusal("127.0.0.1 is a private or local address; not opened"),
    ]
    assert len(server.requests) == 1


def test_allow_private_hosts_true_allows_every_address(guard: Guard, server: LocalServer) -> None:
    server.replies["/p"] = Reply(200, "<p>the page</p>", content_type="text/html")
    tool = WebBrowser(searcher_type="GoogleSearch", allow_private_hosts=True)
    assert opened(tool, f"{server.base}/p") == {"type": "text", "content": "the page"}
    assert tool.allow_private_hosts is True


@pytest.mark.parametrize(
    ("setting", "stored"),
    [
        pytest.param(False, False, id="false"),
        pytest.param("10.0.0.0/8", ("10.0.0.0/8",), id="one-network"),
        pytest.param(["127.0.0.1", "fd00::/8"], ("127.0.0.1", "fd00::/8"), id="a-list"),
    ],
)
def test_allow_private_hosts_is_kept_as_given(setting: Any, stored: Any) -> None:
    assert WebBrowser(searcher_type="GoogleSearch", allow_private_hosts=setting).allow_private_hosts == stored


@pytest.mark.parametrize(
    "setting",
    [
        pytest.param(["intranet.example"], id="a-name"),
        pytest.param(["10.1.2.3/8"], id="host-bits-set"),
        pytest.param([8], id="not-a-string"),
    ],
)
def test_allow_private_hosts_that_is_no_network_is_refused_when_built(setting: Any) -> None:
    with pytest.raises(
        ValueError, match=rf"^WebBrowser: allow_private_hosts holds {setting[0]!r}, which is not"
    ):
        WebBrowser(searcher_type="GoogleSearch", allow_private_hosts=setting)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        pytest.param(
            "http://[::1/", "'http://[::1/' is not a valid URL (Invalid IPv6 URL); not opened", id="ipv6"
        ),
        pytest.param(
            "ftp://public.test/",
            "only http:// and https:// URLs can be opened, got 'ftp://public.test/'",
            id="ftp",
        ),
        pytest.param(
            "http:///path", "only http:// and https:// URLs can be opened, got 'http:///path'", id="no-host"
        ),
    ],
)
def test_a_malformed_url_is_answered_not_raised(guard: Guard, url: str, expected: str) -> None:
    assert opened(WebBrowser(searcher_type="GoogleSearch"), url) == refusal(expected)
    assert guard.attempts == []


# --- the checked address is connected to, the host is still named -------------------------------


def test_a_name_on_an_allowed_network_is_asked_for_by_its_name(guard: Guard, server: LocalServer) -> None:
    port = server.base.rsplit(":", 1)[1]
    server.replies["/p"] = Reply(200, "<p>the page</p>", content_type="text/html")
    tool = WebBrowser(searcher_type="GoogleSearch", allow_private_hosts=["127.0.0.1"])
    assert opened(tool, f"http://loopback.test:{port}/p") == {"type": "text", "content": "the page"}
    assert [r["headers"]["Host"] for r in server.requests] == [f"loopback.test:{port}"]


TLS = Path(__file__).parent / "data" / "webtool_tls"


@pytest.fixture
def tls_server() -> Iterator[tuple[int, list[tuple[str, str]]]]:
    """An HTTPS server on 127.0.0.1 for ``loopback.test``; yields its port and (SNI, Host) seen."""
    seen: list[tuple[str, str]] = []
    names: list[str] = []
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(TLS / "loopback.test.pem", TLS / "loopback.test.key")
    context.sni_callback = lambda sock, name, ctx: names.append(str(name))

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append((names[-1] if names else "", str(self.headers["Host"])))
            body = b"<p>secure page</p>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    httpd.socket = context.wrap_socket(httpd.socket, server_side=True)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield httpd.server_address[1], seen
    httpd.shutdown()
    httpd.server_close()
    thread.join(5)


def test_https_to_a_checked_address_keeps_the_hosts_name_for_tls_and_host(
    guard: Guard, tls_server: tuple[int, list[tuple[str, str]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    port, seen = tls_server
    session = guarded_session(AddressRule((ipaddress.ip_network("127.0.0.1"),)))
    # The certificate names loopback.test only: it verifies only if TLS was told that name.
    monkeypatch.setattr(session, "verify", str(TLS / "loopback.test.pem"))
    tool = WebBrowser(searcher_type="GoogleSearch", allow_private_hosts=["127.0.0.1"])
    assert opened(tool, f"https://loopback.test:{port}/") == {"type": "text", "content": "secure page"}
    assert seen == [("loopback.test", f"loopback.test:{port}")]
    assert {a[0] for a in guard.attempts} == {"127.0.0.1"}
