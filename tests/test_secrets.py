"""API keys never leak, in any spelling, and never sit on a command line.

Attacks as an operator's mistakes make them real: a key read from a file keeps its
newline, a server echoes the key back, ``requests`` quotes a refused header value, and
``ps`` shows every process's arguments.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fake_openai_server import FakeOpenAIServer

from lagent_like import ActionStatusCode, ModelClientError, ModelHTTPError
from lagent_like._net.http import REDACTED, redact
from lagent_like.llms import OpenAIChat
from lagent_like.tools.web.google_search import GoogleSearch

#: A key as a file gives it: a trailing newline, and characters URL-encoding changes.
FILE_KEY = "sk-live/9+x=\n"
#: How that key may be spelled in a message.
FORMS = ["sk-live/9+x=", "sk-live%2F9%2Bx%3D", "sk-live/9%2Bx%3D", "sk-live%2F9%2Bx%3D%0A", "sk-live/9+x=\\n"]


@pytest.mark.parametrize("form", [pytest.param(f, id=f) for f in FORMS])
def test_redact_hides_every_spelling_of_a_key(form: str) -> None:
    assert redact(f"<{form}>", [FILE_KEY]) == f"<{REDACTED}>"


def test_redact_leaves_text_alone_for_blank_keys() -> None:
    assert redact("a b\n", ["", None, " \n"]) == "a b\n"


def test_the_model_clients_errors_repr_and_logs_never_show_the_key(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    echo = " ".join(FORMS)
    with FakeOpenAIServer([{"status": 401, "error": f"bad key {echo}"}]) as server:
        client = OpenAIChat("m", base_url=server.base_url, api_key=FILE_KEY, max_retries=0)
        with pytest.raises(ModelHTTPError) as caught:
            client("hi")
        # The key is sent without its newline.
        assert server.headers[0]["Authorization"] == "Bearer sk-live/9+x="
    assert str(caught.value) == (
        f"model server {server.base_url}/chat/completions answered HTTP 401 Unauthorized: "
        # The client keeps the stripped key: what is left of a spelling is the newline.
        "bad key *** *** *** ***%0A ***\\n"
    )
    texts = [str(caught.value), caught.value.server_message, repr(client), caplog.text]
    assert [(f, t) for t in texts for f in FORMS if f in t] == []


def test_a_header_requests_refuses_is_reported_without_its_value() -> None:
    # requests quotes a refused header value back (with the newline escaped).
    client = OpenAIChat("m", base_url="http://127.0.0.1:9/v1", api_key="", headers={"api-key": FILE_KEY})
    with pytest.raises(ModelClientError) as caught:
        client("hi")
    assert "sk-live" not in str(caught.value)
    assert str(caught.value).startswith("could not send the request to model server http://127.0.0.1:9/v1/")
    assert REDACTED in str(caught.value)


def test_an_overridden_google_search_hook_cannot_leak_the_key_into_errmsg(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def failing(self: GoogleSearch, search_term: str, search_type: Any = None, **kwargs: Any) -> Any:
        return -1, f"HTTPSConnectionPool: X-API-KEY={FILE_KEY!r} url=/search?key=sk-live%2F9%2Bx%3D%0A"

    monkeypatch.setattr(GoogleSearch, "_search", failing)
    ret = GoogleSearch(api_key=FILE_KEY)({"query": "x"})
    assert ret.state == ActionStatusCode.HTTP_ERROR
    assert ret.errmsg == "HTTPSConnectionPool: X-API-KEY='***' url=/search?key=***"


# --- the command line -------------------------------------------------------------------------


def _chat(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    return subprocess.run(
        [sys.executable, "-m", "lagent_like", "chat", "--model", "m", "--tools", "FinishAction", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
        env=env,
        input="",
    )


def test_chat_refuses_a_key_on_the_command_line_and_says_why(tmp_path: Path) -> None:
    out = _chat("--base-url", "http://127.0.0.1:9/v1", "--api-key", "sk-visible", "hi", cwd=tmp_path)
    assert out.returncode == 2
    assert out.stderr == (
        "lagent-like: error: --api-key is not accepted: a command line is visible to every user of the "
        "machine (ps, /proc/PID/cmdline); set OPENAI_API_KEY or pass --api-key-file PATH\n"
    )


def test_chat_reads_the_key_from_a_file_without_its_newline(tmp_path: Path) -> None:
    key_file = tmp_path / "key"
    key_file.write_text(FILE_KEY)
    with FakeOpenAIServer(["Final Answer: done"]) as server:
        out = _chat("--base-url", server.base_url, "--api-key-file", str(key_file), "hi", cwd=tmp_path)
        sent = server.headers[0]["Authorization"]
    assert (out.returncode, sent) == (0, "Bearer sk-live/9+x="), out.stderr


def test_chat_with_a_missing_key_file_is_one_error_line(tmp_path: Path) -> None:
    out = _chat(
        "--base-url", "http://127.0.0.1:9/v1", "--api-key-file", str(tmp_path / "none"), "hi", cwd=tmp_path
    )
    assert (out.returncode, out.stderr) == (
        2,
        f"lagent-like: error: cannot read the key file {tmp_path / 'none'}: No such file or directory\n",
    )


def test_version_prints_the_package_version(tmp_path: Path) -> None:
    from lagent_like import __version__

    out = subprocess.run(
        [sys.executable, "-m", "lagent_like", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert (out.returncode, out.stdout) == (0, f"lagent-like {__version__}\n")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        pytest.param("BINGMap.get_coordinates", "get_coordinates", id="api"),
        pytest.param("ArxivSearch", "ArxivSearch", id="tool"),
    ],
)
def test_describe_takes_tool_dot_api_as_call_does(tmp_path: Path, name: str, expected: str) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "lagent_like", "describe", name],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert (out.returncode, json.loads(out.stdout)["name"]) == (0, expected)


def test_describe_an_unknown_api_lists_the_tools_apis(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "lagent_like", "describe", "ArxivSearch.nope"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert (out.returncode, out.stderr) == (
        2,
        "lagent-like: error: tool 'ArxivSearch' has no API 'nope'; its APIs: get_arxiv_article_information\n",
    )
