"""``OpenAIChat`` against a real local fake server (``fake_openai_server``), never the network.

Each test starts :class:`FakeOpenAIServer` on 127.0.0.1 with a script of replies and
reads back what the client sent. Pauses between retries go to an injected ``sleep``
that only records them, and jitter comes from an injected ``random``, so every delay
is exact and no test waits on a back-off.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_openai_server import FakeOpenAIServer

from lagent_like import (
    ActionExecutor,
    BaseAction,
    LagentLikeError,
    ModelClientError,
    ModelConnectionError,
    ModelHTTPError,
    ModelResponseError,
    ModelTimeoutError,
    tool_api,
)
from lagent_like.llms import OpenAIChat

KEY = "sk-test-secret-4242"

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "Calc.add",
            "description": "Add two numbers.",
            "parameters": {
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"],
            },
        },
    }
]


def make_client(server: FakeOpenAIServer, delays: list[float], **kwargs: Any) -> OpenAIChat:
    """A client of ``server`` whose pauses go to ``delays`` and whose jitter is off."""
    options: dict[str, Any] = {"api_key": "", "sleep": delays.append, "random": lambda: 0.0}
    options.update(kwargs)
    return OpenAIChat("fake-model", base_url=server.base_url, **options)


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A port on 127.0.0.1 with nothing listening, kept bound so no one else takes it."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    try:
        yield sock.getsockname()[1]
    finally:
        sock.close()


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    # A developer's real key must never reach the fake server or a test's expectations,
    # and no proxy setting may route a request anywhere but 127.0.0.1.
    for name in (
        "OPENAI_API_KEY",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ):
        monkeypatch.delenv(name, raising=False)


# -- replies --------------------------------------------------------------------------


def test_call_returns_the_reply_text_and_sends_the_conversation() -> None:
    with FakeOpenAIServer(["Hello!"]) as server:
        text = make_client(server, [])([{"role": "user", "content": "hi"}])
    assert text == "Hello!"
    assert server.requests == [{"model": "fake-model", "messages": [{"role": "user", "content": "hi"}]}]


def test_a_string_is_sent_as_one_user_message() -> None:
    with FakeOpenAIServer(["pong"]) as server:
        assert make_client(server, [])("ping") == "pong"
    assert server.requests[0]["messages"] == [{"role": "user", "content": "ping"}]


def test_chat_returns_a_text_message_without_tool_calls_key() -> None:
    with FakeOpenAIServer([{"content": "Four."}]) as server:
        message = make_client(server, []).chat("2+2?")
    assert message == {"role": "assistant", "content": "Four."}


def test_chat_returns_the_tool_calls_with_generated_ids() -> None:
    script = [
        {
            "tool_calls": [
                {"name": "Calc.add", "arguments": '{"a": 1, "b": 2}'},
                {"name": "Calc.add", "arguments": {"a": 3, "b": 4}},
            ]
        }
    ]
    with FakeOpenAIServer(script) as server:
        message = make_client(server, []).chat("add", tools=TOOLS)
    assert message == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_0",
                "type": "function",
                "function": {"name": "Calc.add", "arguments": '{"a": 1, "b": 2}'},
            },
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "Calc.add", "arguments": '{"a": 3, "b": 4}'},
            },
        ],
    }


def test_call_returns_empty_text_when_the_model_only_called_tools() -> None:
    with FakeOpenAIServer([{"tool_calls": [{"name": "Calc.add", "arguments": "{}"}]}]) as server:
        assert make_client(server, [])("add") == ""


def test_tools_and_params_are_sent_in_the_body_over_the_defaults() -> None:
    with FakeOpenAIServer(["ok"]) as server:
        client = make_client(server, [], default_params={"temperature": 1.0, "max_tokens": 64})
        client.chat("hi", tools=TOOLS, temperature=0.2, stop=["Observation:"], tool_choice="auto")
    assert server.requests == [
        {
            "model": "fake-model",
            "messages": [{"role": "user", "content": "hi"}],
            "temperature": 0.2,
            "max_tokens": 64,
            "stop": ["Observation:"],
            "tool_choice": "auto",
            "tools": TOOLS,
        }
    ]


def test_empty_tools_are_not_sent() -> None:
    with FakeOpenAIServer(["ok"]) as server:
        make_client(server, []).chat("hi", tools=[])
    assert "tools" not in server.requests[0]


def test_a_dynamic_script_answers_from_the_request() -> None:
    def echo(body: dict[str, Any]) -> str:
        return "echo: " + str(body["messages"][-1]["content"])

    with FakeOpenAIServer(echo) as server:
        client = make_client(server, [])
        assert [client("one"), client("two")] == ["echo: one", "echo: two"]


def test_on_token_gets_the_whole_text_once_without_streaming() -> None:
    tokens: list[str] = []
    with FakeOpenAIServer(["all at once"]) as server:
        make_client(server, [])("hi", on_token=tokens.append)
    assert tokens == ["all at once"]


# -- the API key ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env_key", "api_key", "expected"),
    [
        pytest.param(KEY, None, f"Bearer {KEY}", id="from-env"),
        pytest.param(None, KEY, f"Bearer {KEY}", id="from-constructor"),
        pytest.param("sk-env-other", KEY, f"Bearer {KEY}", id="constructor-over-env"),
        pytest.param(None, None, None, id="none-for-local-servers"),
        pytest.param(KEY, "", None, id="empty-string-ignores-env"),
    ],
)
def test_authorization_header_comes_from_the_key(
    monkeypatch: pytest.MonkeyPatch, env_key: str | None, api_key: str | None, expected: str | None
) -> None:
    if env_key is not None:
        monkeypatch.setenv("OPENAI_API_KEY", env_key)
    with FakeOpenAIServer(["ok"]) as server:
        OpenAIChat("fake-model", base_url=server.base_url, api_key=api_key)("hi")
    assert server.headers[0].get("Authorization") == expected


def test_extra_headers_are_sent() -> None:
    with FakeOpenAIServer(["ok"]) as server:
        make_client(server, [], headers={"X-Request-Source": "tests"})("hi")
    assert server.headers[0]["X-Request-Source"] == "tests"


def test_the_key_never_appears_in_repr_or_exceptions(closed_port: int) -> None:
    echoing = [{"status": 401, "error": f"Incorrect API key provided: {KEY}"}]
    with FakeOpenAIServer(echoing) as server:
        client = OpenAIChat("fake-model", base_url=server.base_url, api_key=KEY)
        with pytest.raises(ModelHTTPError) as refused:
            client("hi")
    unreachable = OpenAIChat(
        "fake-model", base_url=f"http://127.0.0.1:{closed_port}/v1", api_key=KEY, max_retries=0
    )
    with pytest.raises(ModelConnectionError) as no_answer:
        unreachable("hi")
    assert repr(client) == f"OpenAIChat(model='fake-model', base_url='{server.base_url}', api_key='***')"
    assert str(refused.value).endswith("answered HTTP 401 Unauthorized: Incorrect API key provided: ***")
    assert refused.value.server_message == "Incorrect API key provided: ***"
    for text in (repr(client), repr(unreachable), str(refused.value), str(no_answer.value)):
        assert KEY not in text


# -- retries --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("failures", "client_options", "expected_delays"),
    [
        pytest.param([{"status": 500}, {"status": 503}], {}, [0.5, 1.0], id="5xx-doubling-backoff"),
        pytest.param([{"status": 429}], {}, [0.5], id="429-without-retry-after"),
        pytest.param([{"status": 429, "headers": {"Retry-After": "0"}}], {}, [0.0], id="retry-after-zero"),
        pytest.param([{"status": 429, "headers": {"Retry-After": "7"}}], {}, [7.0], id="retry-after-seconds"),
        pytest.param(
            [{"status": 429, "headers": {"Retry-After": "120"}}],
            {"max_delay": 10.0},
            [10.0],
            id="retry-after-capped",
        ),
        pytest.param(
            [{"status": 429, "headers": {"Retry-After": "Wed, 21 Oct 2015 07:28:00 GMT"}}],
            {},
            [0.0],
            id="retry-after-date-in-the-past",
        ),
        pytest.param([{"status": 502}] * 3, {"max_retries": 3}, [0.5, 1.0, 2.0], id="up-to-max-retries"),
        pytest.param([{"status": 500}] * 3, {"max_delay": 0.75}, [0.5, 0.75, 0.75], id="backoff-capped"),
        pytest.param([{"status": 500}] * 2, {"random": lambda: 0.5}, [0.375, 0.75], id="jitter-shortens"),
        pytest.param([{"drop": True}], {}, [0.5], id="dropped-connection"),
    ],
)
def test_transient_failures_are_retried_then_succeed(
    failures: list[dict[str, Any]], client_options: dict[str, Any], expected_delays: list[float]
) -> None:
    delays: list[float] = []
    with FakeOpenAIServer([*failures, "finally"]) as server:
        text = make_client(server, delays, **client_options)("hi")
    assert text == "finally"
    assert server.hits == len(failures) + 1
    assert delays == expected_delays


@pytest.mark.parametrize(
    ("status", "reason"),
    [
        pytest.param(429, "Too Many Requests", id="429"),
        pytest.param(500, "Internal Server Error", id="500"),
    ],
)
def test_gives_up_after_max_retries_naming_status_and_attempts(status: int, reason: str) -> None:
    delays: list[float] = []
    with FakeOpenAIServer([{"status": status}] * 3) as server:
        client = make_client(server, delays, max_retries=2)
        with pytest.raises(ModelHTTPError) as caught:
            client("hi")
    assert str(caught.value) == (
        f"model server {server.base_url}/chat/completions answered HTTP {status} {reason} "
        f"after 3 attempts: fake server: scripted HTTP {status}"
    )
    assert (caught.value.status, caught.value.attempts, server.hits, delays) == (status, 3, 3, [0.5, 1.0])


def test_max_retries_zero_tries_once() -> None:
    delays: list[float] = []
    with FakeOpenAIServer([{"status": 503}, "unused"]) as server:
        client = make_client(server, delays, max_retries=0)
        with pytest.raises(ModelHTTPError, match="answered HTTP 503 Service Unavailable after 1 attempt: "):
            client("hi")
    assert (server.hits, delays) == (1, [])


@pytest.mark.parametrize(
    ("reply", "expected_message"),
    [
        pytest.param({"status": 400, "error": "bad model"}, "bad model", id="openai-error-shape"),
        pytest.param(
            {"status": 404, "body": "model 'x' not found\n"}, "model 'x' not found", id="plain-text"
        ),
        pytest.param(
            {"status": 400, "body": '{"object": "error", "message": "max_tokens is too large", "code": 400}'},
            "max_tokens is too large",
            id="vllm-flat-shape",
        ),
        pytest.param({"status": 422, "body": '{"detail": "field required"}'}, "field required", id="fastapi"),
        pytest.param(
            {"status": 400, "body": '{"error": "model is required"}'}, "model is required", id="ollama"
        ),
    ],
)
def test_client_errors_raise_at_once_with_the_server_message(
    reply: dict[str, Any], expected_message: str
) -> None:
    delays: list[float] = []
    with FakeOpenAIServer([reply, "unused"]) as server, pytest.raises(ModelHTTPError) as caught:
        make_client(server, delays)("hi")
    assert caught.value.server_message == expected_message
    assert str(caught.value).endswith(f": {expected_message}")
    assert (caught.value.status, caught.value.attempts, server.hits, delays) == (reply["status"], 1, 1, [])


def test_bad_request_message_names_the_endpoint_and_status() -> None:
    with FakeOpenAIServer([{"status": 400, "error": "bad model"}]) as server:
        client = make_client(server, [])
        with pytest.raises(ModelHTTPError) as caught:
            client("hi")
    expected = f"model server {server.base_url}/chat/completions answered HTTP 400 Bad Request: bad model"
    assert str(caught.value) == expected


def test_connection_refused_is_retried_then_raised(closed_port: int) -> None:
    delays: list[float] = []
    client = OpenAIChat(
        "fake-model",
        base_url=f"http://127.0.0.1:{closed_port}/v1",
        max_retries=2,
        sleep=delays.append,
        random=lambda: 0.0,
    )
    with pytest.raises(ModelConnectionError) as caught:
        client("hi")
    assert str(caught.value) == (
        f"could not reach model server http://127.0.0.1:{closed_port}/v1/chat/completions "
        "(ConnectionError, after 3 attempts)"
    )
    assert (caught.value.attempts, delays) == (3, [0.5, 1.0])
    assert not isinstance(caught.value, ModelTimeoutError)


def test_a_slow_reply_times_out_after_every_retry() -> None:
    delays: list[float] = []
    with FakeOpenAIServer([{"delay": 1.0, "content": "late"}] * 2) as server:
        client = make_client(server, delays, timeout=0.2, max_retries=1)
        with pytest.raises(ModelTimeoutError) as caught:
            client("hi")
    assert str(caught.value) == (
        f"no answer from model server {server.base_url}/chat/completions within 0.2 s (after 2 attempts)"
    )
    assert (caught.value.timeout, caught.value.attempts, server.hits, delays) == (0.2, 2, 2, [0.5])


def test_an_exhausted_script_answers_500_with_a_clear_message() -> None:
    with FakeOpenAIServer(["only one"]) as server:
        client = make_client(server, [], max_retries=0)
        client("first")
        with pytest.raises(ModelHTTPError) as caught:
            client("second")
    assert (
        caught.value.server_message
        == "fake server: script exhausted: all 1 replies used, none left for request 2"
    )


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        pytest.param(
            {"body": "<html>gateway</html>", "content_type": "text/html"},
            "answered HTTP 200 with a body that is not JSON: '<html>gateway</html>'",
            id="not-json",
        ),
        pytest.param(
            {"body": '{"choices": []}', "content_type": "application/json"},
            "answered without choices[0].message: '{\"choices\": []}'",
            id="no-choices",
        ),
    ],
)
def test_a_success_status_without_a_completion_raises(reply: dict[str, Any], expected: str) -> None:
    with FakeOpenAIServer([reply]) as server, pytest.raises(ModelResponseError) as caught:
        make_client(server, [])("hi")
    assert str(caught.value) == f"model server {server.base_url}/chat/completions {expected}"


def test_every_client_error_is_a_lagent_like_error() -> None:
    for cls in (ModelConnectionError, ModelTimeoutError, ModelHTTPError, ModelResponseError):
        assert issubclass(cls, ModelClientError)
    assert issubclass(ModelClientError, LagentLikeError)


# -- streaming ------------------------------------------------------------------------


def test_streaming_passes_each_text_delta_to_on_token_in_order() -> None:
    tokens: list[str] = []
    with FakeOpenAIServer(
        [{"content": "Hello there, world!", "chunks": ["Hel", "lo there", ", world", "!"]}]
    ) as server:
        text = make_client(server, [])("hi", stream=True, on_token=tokens.append)
    assert (text, tokens) == ("Hello there, world!", ["Hel", "lo there", ", world", "!"])
    assert server.requests[0]["stream"] is True
    assert server.headers[0]["Accept"] == "text/event-stream"


def test_streaming_is_the_constructor_default_and_a_call_may_turn_it_off() -> None:
    tokens: list[str] = []
    with FakeOpenAIServer(["streamed by default", "not streamed"]) as server:
        client = make_client(server, [], stream=True)
        first = client("one", on_token=tokens.append)
        second = client("two", stream=False)
    assert (first, second) == ("streamed by default", "not streamed")
    assert tokens == ["streamed ", "by ", "default"]
    assert [body.get("stream") for body in server.requests] == [True, None]


def test_streamed_tool_calls_are_assembled() -> None:
    script = [
        {
            "content": "Let me add.",
            "tool_calls": [
                {"name": "Calc.add", "arguments": '{"a": 1, "b": 2}'},
                {"name": "Calc.add", "arguments": '{"a": 30, "b": 40}', "id": "call_custom"},
            ],
        }
    ]
    with FakeOpenAIServer(script) as server:
        message = make_client(server, []).chat("add", tools=TOOLS, stream=True)
    assert message == {
        "role": "assistant",
        "content": "Let me add.",
        "tool_calls": [
            {
                "id": "call_0",
                "type": "function",
                "function": {"name": "Calc.add", "arguments": '{"a": 1, "b": 2}'},
            },
            {
                "id": "call_custom",
                "type": "function",
                "function": {"name": "Calc.add", "arguments": '{"a": 30, "b": 40}'},
            },
        ],
    }


def test_streamed_tool_calls_only_have_no_content() -> None:
    with FakeOpenAIServer([{"tool_calls": [{"name": "Calc.add", "arguments": "{}"}]}]) as server:
        message = make_client(server, []).chat("add", stream=True)
    assert message["content"] is None
    assert [call["function"]["name"] for call in message["tool_calls"]] == ["Calc.add"]


def test_a_usage_only_chunk_is_ignored() -> None:
    with FakeOpenAIServer(["counted"]) as server:
        text = make_client(server, [])("hi", stream=True, stream_options={"include_usage": True})
    assert text == "counted"


def test_an_error_event_mid_stream_raises() -> None:
    events = (
        'data: {"choices": [{"delta": {"content": "par"}}]}\n\ndata: {"error": {"message": "overloaded"}}\n\n'
    )
    reply = {"body": events, "content_type": "text/event-stream"}
    with FakeOpenAIServer([reply]) as server, pytest.raises(ModelResponseError) as caught:
        make_client(server, [])("hi", stream=True)
    assert (
        str(caught.value)
        == f"model server {server.base_url}/chat/completions reported an error mid-stream: overloaded"
    )


def test_sse_comments_and_multi_line_data_are_read() -> None:
    events = (
        ": keep-alive\n\n"
        'data: {"choices": [{"delta":\ndata: {"content": "a"}}]}\n\n'
        'data:{"choices": [{"delta": {"content": "b"}}]}\n\n'
        "data: [DONE]\n\n"
        'data: {"choices": [{"delta": {"content": "after done"}}]}\n\n'
    )
    tokens: list[str] = []
    with FakeOpenAIServer([{"body": events, "content_type": "text/event-stream"}]) as server:
        text = make_client(server, [])("hi", stream=True, on_token=tokens.append)
    assert (text, tokens) == ("ab", ["a", "b"])


def test_a_server_ignoring_stream_is_read_as_one_reply() -> None:
    tokens: list[str] = []
    whole = json.dumps({"choices": [{"message": {"role": "assistant", "content": "whole"}}]})
    with FakeOpenAIServer([{"body": whole, "content_type": "application/json"}]) as server:
        text = make_client(server, [])("hi", stream=True, on_token=tokens.append)
    assert (text, tokens) == ("whole", ["whole"])


# -- construction and import ----------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        pytest.param({"model": ""}, "OpenAIChat: model must be a non-empty string, got ''", id="empty-model"),
        pytest.param(
            {"base_url": "localhost:11434/v1"},
            "OpenAIChat: base_url must be an http:// or https:// URL, got 'localhost:11434/v1'",
            id="no-scheme",
        ),
        pytest.param(
            {"timeout": 0}, "OpenAIChat: timeout must be a finite number > 0, got 0", id="zero-timeout"
        ),
        pytest.param(
            {"max_retries": -1}, "OpenAIChat: max_retries must be an int >= 0, got -1", id="negative-retries"
        ),
        pytest.param(
            {"max_retries": True}, "OpenAIChat: max_retries must be an int >= 0, got True", id="bool-retries"
        ),
        pytest.param(
            {"backoff": float("inf")},
            "OpenAIChat: backoff must be a finite number >= 0, got inf",
            id="inf-backoff",
        ),
        pytest.param(
            {"max_delay": -1.0}, "OpenAIChat: max_delay must be a finite number >= 0, got -1.0", id="neg-cap"
        ),
    ],
)
def test_bad_constructor_arguments_are_refused(kwargs: dict[str, Any], message: str) -> None:
    arguments: dict[str, Any] = {"model": "m", **kwargs}
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        OpenAIChat(**arguments)


def test_base_url_trailing_slash_is_dropped() -> None:
    client = OpenAIChat("m", base_url="http://localhost:11434/v1/", api_key="")
    assert (client.base_url, client.url) == (
        "http://localhost:11434/v1",
        "http://localhost:11434/v1/chat/completions",
    )


def test_importing_the_client_does_not_import_requests() -> None:
    probe = textwrap.dedent(
        """
        import sys
        from lagent_like.llms import OpenAIChat
        OpenAIChat("m", api_key="")
        print("requests" in sys.modules)
        """
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_close_leaves_a_session_passed_in_open() -> None:
    import requests

    class CountingSession(requests.Session):
        closed = 0

        def close(self) -> None:
            self.closed += 1
            super().close()

    given = CountingSession()
    with FakeOpenAIServer(["one", "two"]) as server:
        with make_client(server, [], session=given) as client:
            assert client("hi") == "one"
        own = make_client(server, [])
        assert own("hi") == "two"
        own.close()
        own.close()
    assert given.closed == 0
    given.close()


# -- the fake server as a program -----------------------------------------------------


def test_fake_server_program_prints_its_url_and_records_requests(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(["from a subprocess"]), encoding="utf-8")
    record = tmp_path / "requests.jsonl"
    program = Path(__file__).with_name("fake_openai_server.py")
    process = subprocess.Popen(
        [sys.executable, str(program), "--script", str(script), "--record", str(record)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        base_url = process.stdout.readline().strip()
        assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1")
        assert OpenAIChat("fake-model", base_url=base_url, api_key="")("hi") == "from a subprocess"
    finally:
        process.terminate()
        process.wait(timeout=10)
    assert process.returncode == 0
    lines = record.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [
        {"model": "fake-model", "messages": [{"role": "user", "content": "hi"}]}
    ]


# -- with an executor -----------------------------------------------------------------


def test_a_tool_call_round_trip_through_an_executor() -> None:
    class Calc(BaseAction):
        @tool_api
        def add(self, a: int, b: int) -> int:
            """Add two integers.

            Args:
                a: the first.
                b: the second.
            """
            return a + b

    def model(body: dict[str, Any]) -> Any:
        if body["messages"][-1]["role"] == "tool":
            return "The sum is " + body["messages"][-1]["content"]
        name = body["tools"][0]["function"]["name"]
        return {"tool_calls": [{"name": name, "arguments": '{"a": 2, "b": 3}'}]}

    executor = ActionExecutor([Calc()])
    messages: list[dict[str, Any]] = [{"role": "user", "content": "2 + 3?"}]
    with FakeOpenAIServer(model) as server:
        client = make_client(server, [])
        reply = client.chat(messages, tools=executor.to_openai_tools())
        messages += [reply, *executor.run_tool_calls(reply["tool_calls"])]
        answer = client(messages, tools=executor.to_openai_tools())
    assert answer == "The sum is 5"
    assert messages[-1] == {"role": "tool", "tool_call_id": "call_0", "content": "5"}


def test_the_client_backs_off_with_a_given_retry_policy_the_one_executors_use() -> None:
    from lagent_like import RetryPolicy

    policy = RetryPolicy(max_attempts=3, base_delay=0.2, max_delay=0.3, jitter=0.5)
    delays: list[float] = []
    with FakeOpenAIServer([{"status": 500}, {"status": 503}, "ok"]) as server:
        client = OpenAIChat(
            "m", base_url=server.base_url, api_key="", retry=policy, sleep=delays.append, random=lambda: 0.5
        )
        assert client("hi") == "ok"
    # The policy's doubling and cap; its jitter shortens each pause by random() * jitter.
    assert (delays, server.hits) == (pytest.approx([0.15, 0.225], abs=1e-12), 3)
    assert client.retry_policy is policy
    assert (client.max_retries, client.backoff, client.max_delay) == (2, 0.2, 0.3)


def test_a_retry_that_is_not_a_policy_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match=r"^OpenAIChat: retry must be a RetryPolicy or None, got 3$"):
        OpenAIChat("m", retry=3)  # type: ignore[arg-type]
